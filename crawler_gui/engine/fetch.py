"""One HTTP fetch, done carefully: capped, decompressed by hand, redirects followed by hand.

:class:`Fetcher` owns one :class:`~crawler_gui.engine.http1.Http1Client` (connections kept
alive per host; through a proxy, one shared :class:`aiohttp.ClientSession` instead).
:meth:`Fetcher.fetch` never raises for network trouble: every failure comes back as a
:class:`FetchOutcome` with an :class:`~crawler_gui.core.policy.ErrorKind`.

Redirects are followed only within one host key (scheme, host, port): a redirect to another
host comes back unfollowed as ``redirect_to`` so the pool queues it under that host's
politeness. Each followed hop passes the caller's ``hop_check`` (scope, robots) and the address
policy; the body is capped raw (``max_body``) and decompressed (``max_decompressed``), so
neither a huge body nor a gzip bomb costs more than the caps.

With ``settings.proxy`` every request goes through that proxy: an HTTP(S) proxy through
aiohttp's own ``proxy=`` (plain requests forwarded, ``https://`` targets tunnelled with
CONNECT), a SOCKS4/5 proxy through ``aiohttp-socks`` (names resolved by the proxy). The proxy
makes the connections, so the address checks judge the URL's host before sending
(:meth:`~crawler_gui.engine.safety.AddressPolicy.check_proxied_host`) instead of the resolved
and connected addresses. The environment's ``HTTP_PROXY`` and the like are never read
(``trust_env=False``), and the proxy's password never appears in a message.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import aiohttp

from crawler_gui.core.policy import ErrorKind, FetchResult
from crawler_gui.core.text import header_text
from crawler_gui.core.urls import REASONS, host_too_long, join
from crawler_gui.engine.http1 import (
    BadRequest,
    ConnectFailed,
    Disconnected,
    Http1Client,
    NameNotResolved,
    ProtocolError,
    request_target,
)
from crawler_gui.engine.robots import RobotsRefused
from crawler_gui.engine.safety import AddressPolicy, BlockedAddressError
from crawler_gui.engine.settings import CrawlSettings

__all__ = [
    "ERROR_BODY_CAP",
    "FetchOutcome",
    "Fetcher",
    "HopCheck",
    "parse_retry_after",
]

logger = logging.getLogger(__name__)

#: Compressed bodies bigger than this are inflated in a worker thread, off the event loop.
THREAD_INFLATE_BYTES = 256 * 1024
#: Bodies of non-2xx responses are read (for the record) up to this many bytes, then truncated.
ERROR_BODY_CAP = 64 * 1024
HopCheck = Callable[[str], ErrorKind | None]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_PERMANENT = frozenset({301, 308})
_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5"
_READ_CHUNK = 256 * 1024


@dataclass(slots=True)
class FetchOutcome:
    """Everything one fetch produced. ``status`` is the last HTTP status seen (kept even when an
    error such as ``TOO_LARGE`` spoiled the body); :meth:`to_result` turns it into the pool's
    :class:`FetchResult`."""

    url: str
    final_url: str
    status: int | None = None
    content_type: str | None = None
    body: bytes = b""
    elapsed: float = 0.0
    chain: list[tuple[str, int]] = field(default_factory=list)
    error: ErrorKind | None = None
    message: str = ""
    retry_after: float | None = None
    redirect_to: str | None = None
    permanent_redirect: bool = False
    peer: str | None = None
    #: Raw (still compressed) body bytes read.
    size: int = 0
    #: Response headers of the last response (for WARC records), ``None`` without a response.
    headers: Mapping[str, str] | None = None

    @property
    def ok(self) -> bool:
        """A 2xx response with a complete, decoded body."""
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def not_modified(self) -> bool:
        """A ``304 Not Modified`` answer to a conditional request: nothing new, no body."""
        return self.error is None and self.status == 304

    def to_result(self) -> FetchResult:
        """The pool's view. A 2xx (or other non-redirect) status spoiled by an error is reported
        as no status, so the error decides (retry a timeout, fail a too-large body)."""
        status = self.status
        if (
            self.error is not None
            and status is not None
            and (not 300 <= status < 400 or self.error.retryable)
        ):
            # A spoiled 2xx, or a transient failure on a later redirect hop: the error decides.
            status = None
        return FetchResult(
            status=status,
            error=self.error,
            retry_after=self.retry_after,
            redirect_to=self.redirect_to,
            final_url=self.final_url,
            elapsed=self.elapsed,
            message=self.message,
        )


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _host_key(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s) URL, or ``None``; parsed once per
    ``scheme://authority`` (every URL of a host has the same)."""
    cut = url.find("/", url.find("://") + 3)
    head = url if cut < 0 else url[:cut]
    if head in _HOST_KEYS:
        return _HOST_KEYS[head]
    key = _parse_host_key(head)
    if len(_HOST_KEYS) >= 4096:
        _HOST_KEYS.clear()
    _HOST_KEYS[head] = key
    return key


_HOST_KEYS: dict[str, tuple[str, str, int] | None] = {}


def _parse_host_key(url: str) -> tuple[str, str, int] | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def _clean_location(location: str) -> str:
    """aiohttp decodes header bytes with ``surrogateescape``: a raw non-UTF-8 byte in a
    Location header arrives as a lone surrogate. Percent-encode such bytes (and any other
    non-ASCII) so the target is a plain ASCII URL."""
    raw = location.strip().encode("utf-8", "surrogateescape")
    if raw.isascii():
        return raw.decode("ascii")
    return quote(raw, safe="/:?#[]@!$&'()*+,;=%~")


def _defrag(url: str) -> str:
    at = url.find("#")
    return url if at < 0 else url[:at]


def _decompress(raw: bytes, wbits: int, limit: int) -> bytes | None:
    """Inflate ``raw``; ``None`` when the output would exceed ``limit``. Raises zlib.error."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(raw, limit + 1)
    if len(out) > limit:
        return None
    tail = inflater.flush()
    if tail:
        if len(out) + len(tail) > limit:
            return None
        out += tail
    return out


def _classify(exc: BaseException) -> tuple[ErrorKind, str]:
    """Map a network exception to an error kind and a short message."""
    if isinstance(exc, TimeoutError):  # asyncio and aiohttp timeouts alike
        return ErrorKind.TIMEOUT, f"timed out ({str(exc) or type(exc).__name__})"
    # (engine.http1's, for direct connections)
    if isinstance(exc, NameNotResolved):
        return ErrorKind.DNS, f"name not resolved: {exc}"
    if isinstance(exc, ConnectFailed):
        return ErrorKind.CONNECT, f"cannot connect: {exc}"
    if isinstance(exc, Disconnected):
        return ErrorKind.RESET, f"connection lost: {exc}"
    if isinstance(exc, ProtocolError):
        return ErrorKind.PROTOCOL, f"bad HTTP response: {exc}"
    if isinstance(exc, BadRequest):
        return ErrorKind.UNSUPPORTED, f"cannot send the request: {exc}"
    if isinstance(exc, aiohttp.ClientConnectorError) and isinstance(
        exc.os_error, BlockedAddressError
    ):
        return ErrorKind.BLOCKED_ADDRESS, str(exc.os_error.strerror)
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return ErrorKind.DNS, f"name not resolved: {exc.os_error}"
    if isinstance(exc, BlockedAddressError):
        return ErrorKind.BLOCKED_ADDRESS, str(exc.strerror)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return ErrorKind.CONNECT, f"cannot connect: {exc.os_error}"
    if isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
        return ErrorKind.RESET, f"connection lost: {exc}"
    if isinstance(exc, aiohttp.InvalidURL):
        return ErrorKind.UNSUPPORTED, f"invalid URL: {exc}"
    if isinstance(exc, aiohttp.ClientResponseError):
        return ErrorKind.PROTOCOL, f"bad HTTP response: {exc.message}"
    if isinstance(exc, ConnectionError | aiohttp.ClientOSError):
        return ErrorKind.RESET, f"connection error: {exc}"
    if isinstance(exc, aiohttp.ClientError):
        return ErrorKind.PROTOCOL, f"{type(exc).__name__}: {exc}"
    if isinstance(exc, OSError):
        return ErrorKind.CONNECT, f"{type(exc).__name__}: {exc}"
    return ErrorKind.INTERNAL, f"{type(exc).__name__}: {exc}"


def _needs_cleanup_closed() -> bool:
    from aiohttp import connector

    return bool(getattr(connector, "NEEDS_CLEANUP_CLOSED", False))


class Fetcher:
    """Fetches URLs over one client (direct) or aiohttp session (through a proxy). Use
    ``async with Fetcher(settings) as f`` or :meth:`start` / :meth:`close`."""

    def __init__(self, settings: CrawlSettings, *, allow_networks: Sequence[str] = ()) -> None:
        self.settings = settings
        self.policy = AddressPolicy(settings.allow_private, allow_networks)
        self._session: aiohttp.ClientSession | None = None  # (through a proxy)
        self._client: Http1Client | None = None  # (direct connections)
        self._request_headers: list[tuple[str, str]] | None = None
        self._timeout = aiohttp.ClientTimeout(
            total=settings.total_timeout,
            sock_connect=settings.connect_timeout,
            sock_read=settings.read_timeout,
        )
        self._error_cap = min(settings.max_body, ERROR_BODY_CAP)
        self._proxy = settings.proxy
        # aiohttp's proxy= for HTTP(S) proxies; a SOCKS proxy is the connector itself.
        self._http_proxy: str | None = None
        self._secrets: tuple[str, ...] = ()
        if settings.proxy:
            parts = urlsplit(settings.proxy)
            if parts.scheme.lower() in ("http", "https"):
                # (aiohttp sends the URL's user and password as Proxy-Authorization)
                self._http_proxy = settings.proxy
            self._secrets = tuple(
                secret for secret in (parts.password, unquote(parts.password or "")) if secret
            )

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            raise RuntimeError("Fetcher is not started")
        return self._session

    def _connector(self) -> aiohttp.BaseConnector:
        """The proxy's connector (direct connections are :class:`Http1Client`'s)."""
        s = self.settings
        assert self._proxy is not None
        common: dict[str, Any] = {
            "limit": s.concurrency + 4,
            "limit_per_host": s.per_host,
            "enable_cleanup_closed": _needs_cleanup_closed(),
        }
        if self._http_proxy is not None:
            # Connections go to the proxy (the user's choice, often on a private network):
            # the address checks cannot apply to them; URL hosts are judged in fetch().
            return aiohttp.TCPConnector(ttl_dns_cache=300, **common)
        from aiohttp_socks import ProxyConnector

        # rdns: the proxy resolves names (socks4a / socks5h), as with an HTTP proxy.
        connector: aiohttp.BaseConnector = ProxyConnector.from_url(self._proxy, rdns=True, **common)
        return connector

    def scrub(self, message: str) -> str:
        """``message`` without the proxy's password."""
        for secret in self._secrets:
            message = message.replace(secret, "***")
        return message

    async def start(self) -> None:
        if self._session is not None or self._client is not None:
            return
        s = self.settings
        headers = self._sent_headers()
        if self._proxy is None:
            self._client = Http1Client(
                self.policy,
                headers=headers,
                connect_timeout=s.connect_timeout,
                read_timeout=s.read_timeout,
                limit=s.concurrency + 4,
                per_host=s.per_host,
            )
            return
        self._session = aiohttp.ClientSession(
            connector=self._connector(),
            timeout=self._timeout,
            headers=headers,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,
        )

    def _sent_headers(self) -> list[tuple[str, str]]:
        """The headers of every request: ours, each replaced by the settings' extra header
        of the same name (any case), then the other extra headers."""
        s = self.settings
        extra = {str(k).lower(): (str(k), str(v)) for k, v in dict(s.extra_headers).items()}
        out = []
        for name, value in (
            ("User-Agent", s.user_agent),
            ("Accept", _ACCEPT),
            ("Accept-Encoding", "gzip, deflate"),
        ):
            out.append(extra.pop(name.lower(), (name, value)))
        extra.pop("host", None)  # (the URL's)
        return out + list(extra.values())

    def request_headers(self) -> list[tuple[str, str]]:
        """The headers every request sends, as recorded with each page: values of headers
        that carry credentials (``Authorization``, ``Cookie``, ``*token*``...) are hidden.
        Made once per fetcher (its settings do not change: a new fetcher is made)."""
        if self._request_headers is None:
            self._request_headers = self._make_request_headers()
        return list(self._request_headers)

    def _make_request_headers(self) -> list[tuple[str, str]]:
        secret = ("authorization", "cookie", "token", "secret", "password", "api-key", "apikey")
        return [
            (k, "***" if any(w in k.lower() for w in secret) else v)
            for k, v in self._sent_headers()
        ]

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def __aenter__(self) -> Fetcher:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def fetch_robots(self, url: str) -> tuple[int | None, bytes]:
        """A ``fetch`` for :meth:`RobotsCache.allowed`: ``(status or None on error, body)``.

        Redirects to other hosts (``http`` -> ``https`` is one) are followed here, up to
        five as RFC 9309 asks; a longer chain reads as "unavailable" (its 3xx status).
        """
        outcome = await self.fetch(url)
        if outcome.error is ErrorKind.BLOCKED_ADDRESS:
            # The site's own address is out of bounds: so are its pages (a refusal, not an
            # unreachable robots.txt to try again later).
            raise RobotsRefused(outcome.message)
        for _ in range(5):
            if outcome.redirect_to is None:
                break
            outcome = await self.fetch(outcome.redirect_to)
        if outcome.error is not None and not (
            outcome.status is not None and 300 <= outcome.status < 400
        ):
            if outcome.error is ErrorKind.TOO_LARGE and outcome.status is not None:
                return outcome.status, outcome.body  # the first part of a huge robots.txt
            return None, b""
        return outcome.status, outcome.body

    async def fetch(
        self,
        url: str,
        *,
        hop_check: HopCheck | None = None,
        known: Callable[[str], bool] | None = None,
        conditional: Mapping[str, str] | None = None,
    ) -> FetchOutcome:
        """Fetch ``url``, following same-host redirects. Never raises for network trouble.

        ``conditional`` headers (``If-None-Match``, ``If-Modified-Since``: a hub refreshed
        with the validators of its last fetch) go with the first request only (a redirect's
        target has validators of its own); a ``304 Not Modified`` answer has no body and is
        not :attr:`FetchOutcome.ok` (``not_modified`` tells it).

        ``known(target)`` true for a redirect target hands it back as ``redirect_to`` instead of
        fetching it (the pool already has it: fetching it again would be a duplicate)."""
        if self._session is None and self._client is None:
            await self.start()  # a fetcher made by a live settings change starts on first use
        out = FetchOutcome(url=url, final_url=url)
        started = time.perf_counter()
        deadline = started + self.settings.total_timeout
        current = url
        key = _host_key(url)
        if key is None:
            out.error = ErrorKind.UNSUPPORTED
            out.message = "not an http(s) URL with a host"
            return out
        visited = {_defrag(url)}
        hops = 0
        timeout = self._timeout
        if host_too_long(key[1]):
            # Canonicalization refuses such hosts; one in a pool from before it never reaches
            # the resolver (which fails on it with a traceback, on every attempt).
            out.error = ErrorKind.UNSUPPORTED
            out.message = f"{REASONS['long_host']}: {key[1][:80]}..."
            return out
        if self._proxy is not None:
            # The proxy resolves and connects: the URL's host is all that can be judged.
            if not self.policy.check_proxied_host(key[1]):
                out.error = ErrorKind.BLOCKED_ADDRESS
                out.message = f"{key[1]}: a private address or name, refused through the proxy"
                return out
        elif self.policy.check_host(key[1]) is False:
            # aiohttp connects to IP literals without asking the resolver: judge them here.
            out.error = ErrorKind.BLOCKED_ADDRESS
            out.message = f"{key[1]}: a blocked or non-canonical IP address"
            return out
        extra = dict(conditional) if conditional else None
        try:
            while True:
                location = await self._request(current, out, timeout, deadline, extra)
                extra = None
                if location is None or out.error is not None:
                    return out
                # A redirect: follow it, refuse it, or hand it back.
                status = out.status
                assert status is not None
                if status in _PERMANENT:
                    out.permanent_redirect = True
                # Resolved by the URL standard, as a browser follows it.
                joined = join(current, _clean_location(location))
                target = _defrag(joined) if joined is not None else ""
                target_key = _host_key(target) if target else None
                if target_key is None:
                    out.error = ErrorKind.BAD_REDIRECT
                    out.message = f"unusable Location {location[:200]!r}"
                    return out
                if target_key != key:
                    out.redirect_to = target
                    return out
                if target in visited:
                    out.error = ErrorKind.REDIRECT_LOOP
                    out.message = f"redirect loop back to {target}"
                    return out
                if self.settings.max_redirects == 0 or (known is not None and known(target)):
                    out.redirect_to = target  # not following: the pool records or queues it
                    return out
                hops += 1
                if hops > self.settings.max_redirects:
                    out.error = ErrorKind.TOO_MANY_REDIRECTS
                    out.message = f"more than {self.settings.max_redirects} redirects"
                    return out
                if hop_check is not None:
                    refused = hop_check(target)
                    if refused is not None:
                        out.error = refused
                        out.message = f"redirect to {target} refused ({refused})"
                        out.redirect_to = target  # kept with the refusal, not followed
                        return out
                visited.add(target)
                current = target
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    out.error = ErrorKind.TIMEOUT
                    out.message = "total timeout reached while following redirects"
                    return out
                timeout = aiohttp.ClientTimeout(
                    total=remaining,
                    sock_connect=self.settings.connect_timeout,
                    sock_read=self.settings.read_timeout,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            kind, message = _classify(exc)
            if kind is ErrorKind.INTERNAL:
                logger.warning(
                    "unexpected error fetching %s: %s",
                    current,
                    self.scrub(message),
                    exc_info=self._proxy is None,  # (a traceback may show the proxy's URL)
                )
            out.error = kind
            out.message = self.scrub(message)
            return out
        finally:
            out.elapsed = time.perf_counter() - started

    async def _request(
        self,
        url: str,
        out: FetchOutcome,
        timeout: aiohttp.ClientTimeout,
        deadline: float,
        headers: Mapping[str, str] | None = None,
    ) -> str | None:
        """One request; fills ``out``. Returns the Location of a redirect to follow, if any.
        ``deadline`` is a ``time.perf_counter`` time (``timeout`` says the same to aiohttp)."""
        client = self._client
        if client is not None:
            key = _host_key(url)
            assert key is not None  # (checked by fetch, for every hop)
            resp = await client.get(
                key,
                request_target(url),
                deadline=time.monotonic() + (deadline - time.perf_counter()),
                headers=headers,
            )
            try:
                return await self._answer(url, out, resp.status, resp.headers, resp.peer, resp.read)
            finally:
                resp.close()
        async with self.session.get(
            url,
            allow_redirects=False,
            timeout=timeout,
            proxy=self._http_proxy,
            headers=headers,
        ) as aresp:

            async def read(cap: int, give_up: bool) -> tuple[bytes, bool]:
                return await self._read(aresp, cap, give_up)

            return await self._answer(url, out, aresp.status, aresp.headers, None, read)

    async def _answer(
        self,
        url: str,
        out: FetchOutcome,
        status: int,
        headers: Mapping[str, str],
        peer: str | None,
        read: Callable[[int, bool], Awaitable[tuple[bytes, bool]]],
    ) -> str | None:
        """Judge a response whose status and headers came (``peer``: the address it came
        from, ``None`` through a proxy) and read its body with ``read(cap, give_up)``."""
        out.status = status
        out.final_url = url
        out.chain.append((url, status))
        out.headers = headers
        content_type = headers.get("Content-Type")
        # (text: a byte that is not UTF-8 would stop the decoder's label, a feed, the store)
        out.content_type = header_text(content_type) if content_type is not None else None
        out.peer = peer
        if peer is not None and not self.policy.check(peer):
            out.error = ErrorKind.BLOCKED_ADDRESS
            out.message = f"connected to a blocked address {peer}"
            return None
        if status in (429, 503):
            out.retry_after = parse_retry_after(headers.get("Retry-After"))
        is_redirect = status in _REDIRECTS
        location = None
        if is_redirect:
            location = headers.get("Location")
            if not location or not location.strip():
                out.error = ErrorKind.BAD_REDIRECT
                out.message = f"{status} without a Location header"
                if status in _PERMANENT:
                    out.permanent_redirect = True
                return None
        ok = 200 <= status < 300
        cap = self.settings.max_body if ok else self._error_cap
        raw, over = await read(cap, ok)
        out.size = len(raw)
        if over and ok:
            out.error = ErrorKind.TOO_LARGE
            out.message = f"body larger than {cap} bytes"
            return None
        encoding = headers.get("Content-Encoding")
        if encoding and raw:
            coding = encoding.strip().lower()
            if len(raw) > THREAD_INFLATE_BYTES:  # tens of ms for megabytes: off the loop
                body = await asyncio.to_thread(self._decode_content, raw, coding, out, ok)
            else:
                body = self._decode_content(raw, coding, out, ok)
            if body is None:
                return None
            raw = body
        out.body = raw
        return location

    async def _read(
        self, resp: aiohttp.ClientResponse, cap: int, give_up: bool
    ) -> tuple[bytes, bool]:
        """Read at most ``cap`` bytes; ``(body, True)`` when the body is longer. With
        ``give_up``, a Content-Length over the cap stops before reading anything."""
        length = resp.content_length
        if give_up and length is not None and length > cap:
            return b"", True
        content = resp.content
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = await content.readany()
            if not chunk:
                break
            total += len(chunk)
            if total > cap:
                chunks.append(chunk[: len(chunk) - (total - cap)])
                return b"".join(chunks), True
            chunks.append(chunk)
        if len(chunks) == 1:
            return chunks[0], False
        return b"".join(chunks), False

    def _decode_content(
        self, raw: bytes, encoding: str, out: FetchOutcome, ok: bool
    ) -> bytes | None:
        if encoding in ("identity", ""):
            return raw
        limit = self.settings.max_decompressed
        try:
            if encoding in ("gzip", "x-gzip"):
                body = _decompress(raw, 16 + zlib.MAX_WBITS, limit)
            elif encoding == "deflate":
                try:
                    body = _decompress(raw, zlib.MAX_WBITS, limit)
                except zlib.error:
                    body = _decompress(raw, -zlib.MAX_WBITS, limit)  # raw deflate, as IIS sends
            else:
                if ok:
                    out.error = ErrorKind.UNSUPPORTED
                    out.message = f"unsupported Content-Encoding {encoding!r}"
                    return None
                return raw
        except zlib.error as exc:
            if ok:
                out.error = ErrorKind.PROTOCOL
                out.message = f"cannot decompress the {encoding} body: {exc}"
                return None
            return raw
        if body is None:
            if ok:
                out.error = ErrorKind.TOO_LARGE
                out.message = f"decompressed body larger than {limit} bytes"
                return None
            return raw[:0]
        return body
