"""A lean HTTP/1.1 client for the crawl's direct fetches (no proxy): GET, one request at a time
per connection, connections kept alive per host, responses parsed by llhttp.

Why not aiohttp's client here: on the demo site's link mix (``benchmarks/crawl.py``) a bare
aiohttp loop spends about 0.17 ms of CPU per response; a connection per host, the request
written as bytes and the response parsed by llhttp (through ``httptools``, the parser Node.js
and uvicorn use) about 0.05 (a minimal client measured beside it), and the crawl as a whole a
quarter less CPU per response with this client than with aiohttp's. A polite crawl asks one
host for one page at a time, which keeps this simple. aiohttp still
fetches through a proxy (``engine.fetch``), where this client is not used.

What a hostile server meets:

* the status line and headers together are capped (:data:`MAX_HEADER_BYTES`, also while a
  header is still arriving) and counted (:data:`MAX_HEADERS`); so is everything else that is
  not body (interim answers, chunk sizes, trailers);
* llhttp decides the body's length strictly: both ``Content-Length`` and
  ``Transfer-Encoding``, two lengths, a bad chunk size, a space before a colon are a
  :class:`ProtocolError`, never guessed. It is lenient where aiohttp's parser is (outside
  its debug mode) and real servers need it: odd bytes in a header value (not NUL), lines
  ended by LF alone, spaces after a chunk size;
* the body is read up to the caller's cap and then the connection is closed (never read on);
  it is kept in one buffer (a body in tiny chunks costs its size, not a list of pieces);
* interim ``1xx`` responses are skipped, ``101`` (a switch of protocol nobody asked for) is an
  error; a connection with bytes nobody asked for (between requests, or a second answer after
  the first) is closed, and the first answer stays as it came;
* every wait is bounded: connecting by the connect timeout, each read by the read timeout
  (time between two arrivals, as aiohttp's ``sock_read``), the whole request, its wait for a
  slot included, by a deadline.

Addresses are checked as with aiohttp (``engine.safety``): an IP literal before connecting, a
name's answers filtered by the policy (a name that resolves only to blocked addresses is
refused), and the peer each new connection reached, before a byte is sent. Answers are cached
for :data:`DNS_TTL` seconds (aiohttp's ``ttl_dns_cache``) and connected to as aiohttp does,
by Happy Eyeballs (``aiohappyeyeballs``: a host with unreachable IPv6 addresses costs a
quarter of a second, not a connect timeout per address). A connection kept alive is used
again within :data:`KEEPALIVE` seconds; a request that finds it closed by the server before a
byte of the answer came is sent once more on a new connection (as aiohttp does).
"""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import aiohappyeyeballs
import httptools
from multidict import CIMultiDict, CIMultiDictProxy

from crawler_gui.engine.safety import AddressPolicy, BlockedAddressError, transport_peer

__all__ = [
    "DNS_TTL",
    "KEEPALIVE",
    "MAX_HEADERS",
    "MAX_HEADER_BYTES",
    "BadRequest",
    "ConnectFailed",
    "Disconnected",
    "Http1Client",
    "HttpError",
    "NameNotResolved",
    "ProtocolError",
    "Response",
    "check_header",
    "request_target",
]

#: The status line and header block of one response, at most (aiohttp: 8 KB a line).
MAX_HEADER_BYTES = 64 * 1024
MAX_HEADERS = 128
#: Seconds an idle connection is kept for the next request to its host (aiohttp's default).
KEEPALIVE = 15.0
#: Seconds a name's addresses are kept.
DNS_TTL = 300.0
_DNS_ENTRIES = 10_000
#: Seconds before the next address of a host is tried while the last is still connecting.
HAPPY_EYEBALLS_DELAY = 0.25
_NUMERIC = socket.AI_NUMERICHOST | socket.AI_NUMERICSERV
_AddrInfo = tuple[Any, ...]  # (family, type, proto, canonname, sockaddr), as getaddrinfo
_DEFAULT_PORTS = {"http": 80, "https": 443}


class HttpError(Exception):
    """The server broke HTTP/1.1."""


class ProtocolError(HttpError):
    """A response that is not HTTP/1.1 as it must be."""


class Disconnected(HttpError):
    """The connection ended before the response did."""


class BadRequest(ValueError):
    """A request that cannot be sent as asked (a header or target that would break the
    request's lines)."""


class ConnectFailed(OSError):
    """No connection could be made (refused, unreachable, a TLS handshake that failed)."""


class NameNotResolved(OSError):
    """The host name has no address."""


def check_header(name: str, value: str) -> str | None:
    """Why a request header cannot be sent as given (``None`` when it can): a name must be
    an HTTP token, a value must not break the line (CR, LF, NUL)."""
    if not name or any(c in _NOT_TOKEN or ord(c) > 126 or ord(c) < 33 for c in name):
        return f"header name {name!r} is not an HTTP token"
    if any(c in "\r\n\x00" for c in value):
        return f"header {name!r} has a line break or NUL in its value"
    return None


_NOT_TOKEN = frozenset('()<>@,;:\\"/[]?={} \t')


class _Connection(asyncio.Protocol):
    """One connection and the response being read on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.reused = False  # answered a request before
        self.idle_since = 0.0
        self.waiter: asyncio.Future[None] | None = None
        # (one parser for the connection's responses: llhttp starts the next message itself)
        self.parser: Any = httptools.HttpResponseParser(self)
        # As aiohttp's parser outside its debug mode: header values with odd bytes, lines
        # ended by LF alone, spaces after a chunk size (what real servers send). Never the
        # leniencies that let a body's length be read two ways.
        self.parser.set_dangerous_leniencies(
            lenient_headers=True,
            lenient_optional_cr_before_lf=True,
            lenient_spaces_after_chunk_size=True,
        )
        self._begin()

    def _begin(self) -> None:
        self.active = False
        self.status = 0
        self.raw_headers: list[tuple[bytes, bytes]] = []
        self.header_bytes = 0  # of the headers' names and values
        self.headers_done = False
        self.interim = False
        self.until_eof = False
        self.keep_alive = False
        self.length: int | None = None
        self.first: bytes = b""  # the body while it is one piece (most bodies)
        self.rest: bytearray | None = None  # the body once a second piece came
        self.body_bytes = 0
        self.chunks_seen = 0  # chunked framing: its size lines are not body
        self.cap: int | None = None
        self.over = False
        self.complete = False
        self.received = 0
        self.error: BaseException | None = None

    # -- asyncio ---------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if not self.active or self.complete:
            self.close()  # bytes nobody asked for: the connection cannot be trusted again
            return
        if self.error is not None or self.over:
            return  # (the connection is closing)
        self.received += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(ProtocolError("the server switched protocols (101) unasked"))
        except httptools.HttpParserError as exc:
            self._fail(ProtocolError(f"bad HTTP response: {exc}"))
        # Everything that is not body (status lines, headers, interim answers, chunk sizes,
        # trailers) is bounded, also while llhttp still holds a line that has not ended.
        if self.received - self.body_bytes > 2 * MAX_HEADER_BYTES + 32 * self.chunks_seen:
            self._fail(ProtocolError(f"response headers over {MAX_HEADER_BYTES} bytes"))
        self._wake()

    def eof_received(self) -> bool:
        if self.active and self.headers_done and self.until_eof and not self.complete:
            self.complete = True  # a body delimited by the end of the connection
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.active and not self.complete and self.error is None and not self.over:
            detail = f": {exc}" if exc else ""
            self.error = Disconnected(
                "connection closed by the server before the response ended" + detail
            )
        self._wake()

    # -- llhttp's callbacks ----------------------------------------------------------------
    def on_header(self, name: bytes, value: bytes) -> None:
        if self.error is not None or self.complete:
            return
        if b"\x00" in value:  # (llhttp's lenient mode lets it through; aiohttp refuses it)
            self._fail(ProtocolError("a NUL byte in a response header"))
            return
        self.header_bytes += len(name) + len(value) + 4
        if self.header_bytes > MAX_HEADER_BYTES:
            self._fail(ProtocolError(f"response headers over {MAX_HEADER_BYTES} bytes"))
            return
        if len(self.raw_headers) >= MAX_HEADERS:
            self._fail(ProtocolError(f"more than {MAX_HEADERS} response headers"))
            return
        self.raw_headers.append((name, value.rstrip(b" \t")))

    def on_message_begin(self) -> None:
        if self.complete:
            self.close()  # a second answer to one request: the connection is spoiled

    def on_headers_complete(self) -> None:
        if self.error is not None or self.complete:
            return
        status = self.parser.get_status_code()
        if status == 101:
            self._fail(ProtocolError("the server switched protocols (101) unasked"))
            return
        if 100 <= status < 200:
            self.interim = True  # (its message ends at once; the real response follows)
            self.raw_headers = []
            self.header_bytes = 0
            return
        self.status = status
        self.headers_done = True
        chunked = False
        length: int | None = None
        for name, value in self.raw_headers:
            lower = name.lower()
            if lower == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = None
            elif lower == b"transfer-encoding":
                chunked = value.strip().lower().endswith(b"chunked")
        self.length = length
        self.until_eof = not chunked and length is None and status not in (204, 304)
        # (asked now: llhttp forgets it once the message has ended)
        self.keep_alive = bool(self.parser.should_keep_alive()) and not self.until_eof

    def on_chunk_header(self) -> None:
        self.chunks_seen += 1

    def on_body(self, body: bytes) -> None:
        if self.over or self.error is not None or self.complete:
            return
        self.body_bytes += len(body)
        # (one buffer, not a list of pieces: a body sent in tiny chunks costs its size)
        if self.rest is not None:
            self.rest += body
        elif self.first:
            self.rest = bytearray(self.first)
            self.rest += body
            self.first = b""
        else:
            self.first = body
        if self.cap is not None and self.body_bytes > self.cap:
            self.over = True

    def on_message_complete(self) -> None:
        if self.complete:
            return  # (a second answer's end: the connection is already spoiled)
        if self.interim:
            self.interim = False
            return
        if self.error is None:
            self.complete = True

    # -- waiting -----------------------------------------------------------------------------
    def _fail(self, error: BaseException) -> None:
        if self.error is None and not self.complete:  # (after the answer: only spoiled)
            self.error = error
        self.close()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, ready: Callable[[], bool], timeout: float, deadline: float) -> None:
        """Until ``ready()``; raises the connection's error, or TimeoutError after
        ``timeout`` seconds without news (or at ``deadline``, a ``time.monotonic`` time)."""
        while not ready():
            if self.error is not None:
                raise self.error
            if self.closed:
                raise Disconnected("connection closed by the server before the response ended")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request's total time ran out")
            waiter = self.loop.create_future()
            self.waiter = waiter
            timer = self.loop.call_later(
                min(timeout, left), _time_out, waiter, "no data from the server in time"
            )
            try:
                await waiter
            finally:
                timer.cancel()
                self.waiter = None
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _still_usable(conn: _Connection, now: float) -> bool:
    """An idle connection the server has not closed, idle for less than :data:`KEEPALIVE`."""
    return not conn.closed and now - conn.idle_since < KEEPALIVE


def _time_out(waiter: asyncio.Future[None], why: str) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError(why))


class Response:
    """A response whose status and headers have arrived; :meth:`read` reads its body,
    :meth:`close` hands the connection back (kept alive when the body was read whole)."""

    __slots__ = ("_client", "_conn", "_deadline", "_key", "headers", "peer", "status")

    def __init__(
        self,
        client: Http1Client,
        key: tuple[str, str, int],
        conn: _Connection,
        deadline: float,
    ) -> None:
        self._client = client
        self._key = key
        self._conn: _Connection | None = conn
        self._deadline = deadline
        self.status = conn.status
        self.headers: CIMultiDictProxy[str] = CIMultiDictProxy(
            CIMultiDict(
                [
                    (k.decode("utf-8", "surrogateescape"), v.decode("utf-8", "surrogateescape"))
                    for k, v in conn.raw_headers
                ]
            )
        )
        transport = conn.transport
        self.peer = transport_peer(transport) if transport is not None else None

    async def read(self, cap: int, give_up: bool) -> tuple[bytes, bool]:
        """At most ``cap`` bytes of the body; ``(body, True)`` when it is longer (the rest is
        never read: the connection is closed). With ``give_up``, a ``Content-Length`` over
        the cap stops before reading anything."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("the response was closed")
        if give_up and conn.length is not None and conn.length > cap:
            return b"", True
        conn.cap = cap
        if conn.body_bytes > cap:
            conn.over = True
        await conn.wait(
            lambda: conn.complete or conn.over, self._client.read_timeout, self._deadline
        )
        body = bytes(conn.rest) if conn.rest is not None else conn.first
        conn.first, conn.rest = b"", None
        if conn.over:
            return body[:cap], True
        return body, False

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._client._release(self._key, conn)


class Http1Client:
    """Connections to many hosts, at most ``per_host`` at a time to each and ``limit`` in all;
    ``headers`` are sent with every request (after ``Host``). ``https`` is verified against the
    system's certificate authorities (``ssl.create_default_context``), or ``tls``."""

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        headers: Sequence[tuple[str, str]],
        connect_timeout: float,
        read_timeout: float,
        limit: int,
        per_host: int,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        for name, value in headers:
            problem = check_header(name, value)
            if problem is not None:
                raise BadRequest(problem)
        self.policy = policy
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._limit = limit
        self._per_host = per_host
        self._header_block = "".join(f"{k}: {v}\r\n" for k, v in headers)
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._busy: dict[tuple[str, str, int], int] = {}
        self._total = 0
        self._slot_waiters: list[asyncio.Future[None]] = []
        self._dns: dict[tuple[str, int], tuple[float, list[_AddrInfo]]] = {}
        self._tls = tls  # (made on the first https request: loading the CAs takes a while)
        self._sweep: asyncio.TimerHandle | None = None
        self._closed = False

    # -- requests ----------------------------------------------------------------------------
    async def get(
        self,
        key: tuple[str, str, int],
        target: str,
        *,
        deadline: float,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Send ``GET target`` to ``key`` (scheme, host, port) and wait for the response's
        status and headers (``deadline`` a ``time.monotonic`` time). The caller reads the
        body and must :meth:`Response.close` it."""
        if self._closed:
            raise RuntimeError("the client is closed")
        if not target.startswith("/") or not _VISIBLE.fullmatch(target):
            raise BadRequest(f"the request target {target[:200]!r} is not plain ASCII")
        request = self._request_bytes(key, target, headers)
        await self._acquire(key, deadline)
        try:
            for attempt in (0, 1):
                conn = self._take_idle(key) if attempt == 0 else None
                if conn is None:
                    conn = await self._connect(key, deadline)
                try:
                    return await self._exchange(key, conn, request, deadline)
                except (Disconnected, ConnectionError):
                    # A kept-alive connection the server had closed, with nothing answered:
                    # once more on a new connection.
                    if attempt or not conn.reused or conn.received:
                        raise
            raise AssertionError("unreachable")
        except BaseException:
            self._release_slot(key)
            raise

    async def _exchange(
        self, key: tuple[str, str, int], conn: _Connection, request: bytes, deadline: float
    ) -> Response:
        conn._begin()
        conn.active = True
        try:
            assert conn.transport is not None
            conn.transport.write(request)
            await conn.wait(lambda: conn.headers_done, self.read_timeout, deadline)
            return Response(self, key, conn, deadline)
        except BaseException:
            conn.close()
            raise

    def _request_bytes(
        self, key: tuple[str, str, int], target: str, extra: Mapping[str, str] | None
    ) -> bytes:
        scheme, host, port = key
        shown = f"[{host}]" if ":" in host else host
        if port != _DEFAULT_PORTS[scheme]:
            shown = f"{shown}:{port}"
        head = f"GET {target} HTTP/1.1\r\nHost: {shown}\r\n{self._header_block}"
        if extra:
            for name, value in extra.items():
                problem = check_header(name, value)
                if problem is not None:
                    raise BadRequest(problem)
                head += f"{name}: {value}\r\n"
        return (head + "\r\n").encode("utf-8")

    # -- connections ---------------------------------------------------------------------------
    def _take_idle(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if _still_usable(conn, now):
                if not idle:
                    del self._idle[key]
                return conn
            conn.close()
        self._idle.pop(key, None)
        return None

    async def _connect(self, key: tuple[str, str, int], deadline: float) -> _Connection:
        scheme, host, port = key
        loop = asyncio.get_running_loop()
        infos = await self._addr_infos(host, port, deadline)
        tls = self._tls_context() if scheme == "https" else None
        left = min(self.connect_timeout, deadline - time.monotonic())
        if left <= 0:
            raise TimeoutError("the request's total time ran out before connecting")
        try:
            async with asyncio.timeout(left):
                # Happy Eyeballs (RFC 8305) as aiohttp does it: the next address is tried
                # 0.25 s after the last began, families interleaved, the first to answer wins
                # (a host with unreachable IPv6 addresses costs a quarter second, not a timeout).
                sock = await aiohappyeyeballs.start_connection(
                    infos, happy_eyeballs_delay=HAPPY_EYEBALLS_DELAY, interleave=1
                )
                try:
                    transport, conn = await loop.create_connection(
                        lambda: _Connection(loop),
                        sock=sock,
                        ssl=tls,
                        server_hostname=host if tls is not None else None,
                    )
                except BaseException:
                    sock.close()
                    raise
        except TimeoutError:
            raise TimeoutError(
                f"no connection to {host}:{port} within the connect timeout"
            ) from None
        except ssl.SSLError as exc:
            raise ConnectFailed(f"{host}:{port}: TLS failed: {exc}") from exc
        except OSError as exc:
            raise ConnectFailed(f"{host}:{port}: {exc.strerror or exc}") from exc
        peer = transport_peer(transport)
        if peer is not None and not self.policy.check(peer):
            transport.close()
            raise BlockedAddressError(host, f"connected to {peer}")
        return conn

    async def resolve(self, host: str, port: int, *, deadline: float) -> list[str]:
        """The addresses of ``host`` that may be connected to (an IP literal judged as it
        is); raises :class:`BlockedAddressError` when none may, :class:`NameNotResolved`
        when it has none."""
        return [str(info[4][0]) for info in await self._addr_infos(host, port, deadline)]

    async def _addr_infos(self, host: str, port: int, deadline: float) -> list[_AddrInfo]:
        verdict = self.policy.check_host(host)
        if verdict is False:
            raise BlockedAddressError(host, "a blocked or non-canonical IP address")
        if verdict is True:  # (numeric: nothing is looked up)
            return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=_NUMERIC)
        now = time.monotonic()
        cached = self._dns.get((host, port))
        if cached is not None and cached[0] > now:
            return cached[1]
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(max(deadline - now, 0.001)):
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise NameNotResolved(f"{host}: {exc.strerror or exc}") from exc
        kept = [info for info in infos if self.policy.check(str(info[4][0]))]
        if not kept:
            shown = ", ".join(sorted({str(info[4][0]) for info in infos})) or "nothing"
            raise BlockedAddressError(host, f"resolves only to blocked addresses ({shown})")
        if len(self._dns) >= _DNS_ENTRIES:
            self._dns.clear()
        self._dns[(host, port)] = (now + DNS_TTL, kept)
        return kept

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            context = ssl.create_default_context()
            context.set_alpn_protocols(["http/1.1"])
            self._tls = context
        return self._tls

    def _release(self, key: tuple[str, str, int], conn: _Connection) -> None:
        """A response is done with: its connection kept alive when the whole body was read
        and both sides allow it, closed otherwise."""
        reusable = (
            conn.complete
            and not conn.closed
            and conn.error is None
            and not conn.over
            and conn.keep_alive
            and not self._closed
        )
        conn.active = False
        if reusable:
            conn.reused = True
            conn.idle_since = time.monotonic()
            conn.first, conn.rest = b"", None
            self._idle.setdefault(key, []).append(conn)
            if self._sweep is None:
                self._sweep = conn.loop.call_later(KEEPALIVE, self._close_expired)
        else:
            conn.close()
        self._release_slot(key)

    def _close_expired(self) -> None:
        """Close the connections idle for :data:`KEEPALIVE` seconds (a host whose last page
        was fetched keeps no socket open), every :data:`KEEPALIVE` seconds while any is kept."""
        self._sweep = None
        now = time.monotonic()
        loop: asyncio.AbstractEventLoop | None = None
        for key in list(self._idle):
            kept = []
            for conn in self._idle[key]:
                if _still_usable(conn, now):
                    kept.append(conn)
                    loop = conn.loop
                else:
                    conn.close()
            if kept:
                self._idle[key] = kept
            else:
                del self._idle[key]
        if loop is not None and not self._closed:
            self._sweep = loop.call_later(KEEPALIVE, self._close_expired)

    # -- limits --------------------------------------------------------------------------------
    async def _acquire(self, key: tuple[str, str, int], deadline: float) -> None:
        """A slot for a request to ``key``: waits (until ``deadline``) while the host or the
        client has as many in flight as allowed."""
        while self._busy.get(key, 0) >= self._per_host or self._total >= self._limit:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(_SLOT_TIMEOUT)
            loop = asyncio.get_running_loop()
            waiter = loop.create_future()
            self._slot_waiters.append(waiter)
            timer = loop.call_later(left, _time_out, waiter, _SLOT_TIMEOUT)
            try:
                await waiter
            finally:
                timer.cancel()
                if waiter in self._slot_waiters:
                    self._slot_waiters.remove(waiter)
        self._busy[key] = self._busy.get(key, 0) + 1
        self._total += 1

    def _release_slot(self, key: tuple[str, str, int]) -> None:
        left = self._busy.get(key, 0) - 1
        if left > 0:
            self._busy[key] = left
        else:
            self._busy.pop(key, None)
        self._total -= 1
        waiters, self._slot_waiters = self._slot_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def idle_connections(self) -> int:
        """Connections kept alive, waiting for a request."""
        return sum(len(conns) for conns in self._idle.values())

    async def close(self) -> None:
        """Close every idle connection (a response still being read closes its own)."""
        self._closed = True
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()
        await asyncio.sleep(0)  # (let the transports finish closing)


_VISIBLE = re.compile(r"[\x21-\x7e]+")
_SLOT_TIMEOUT = "the request's total time ran out waiting for a slot"


def request_target(url: str) -> str:
    """The request target of an absolute http(s) URL: its path and query (``/`` for none),
    without the fragment."""
    start = url.find("//")
    cut = len(url)
    for sep in "/?#":
        at = url.find(sep, start + 2 if start >= 0 else 0)
        if 0 <= at < cut:
            cut = at
    rest = url[cut:]
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest = rest[:hash_at]
    if not rest.startswith("/"):
        rest = "/" + rest
    return rest
