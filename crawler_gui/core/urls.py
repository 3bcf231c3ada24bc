"""URL canonicalization and validation: the one gate every URL passes before the pool sees it.

``canonicalize(raw)`` returns ``(url, host)`` where ``url`` is the canonical form and ``host`` is
the politeness key (``hostname`` or ``hostname:port`` when the port is not the default). It
raises :class:`~crawler_gui.errors.InvalidURLError` with one of :data:`REASONS`.

Parsing follows the WHATWG URL Standard, the one browsers implement: :func:`parse` is the
standard's parser (the C++ library ada through its ``can_ada`` binding, which runs the
web-platform-tests vectors), so hosts are IDNA-encoded by UTS #46 (``ß.de`` is ``xn--zca.de``,
the domain a browser reaches, not ``ss.de``), IPv4 hosts are normalised (``0x7f.1`` is
``127.0.0.1``), backslashes are slashes, and everything the standard refuses is refused.
``tests/core/test_urls_wpt.py`` checks this against the standard's own test vectors.

On top of the standard, our own rules make the de-duplication key (the canonical form):

* user-info refused (a crawler has no business sending credentials); IPv6 literal hosts, hosts
  without a dot, labels over 63 and names over 253 characters, and host characters DNS cannot
  carry are refused (the standard accepts them; no resolver would);
* the trailing dot of a host dropped;
* the default port (80 for http, 443 for https) dropped (the standard does this too);
* the fragment dropped; user-info refused (a crawler has no business sending credentials);
* ``.`` and ``..`` path segments resolved; an empty path becomes ``/``;
* percent-encoding normalised: escapes upper-cased, escapes of unreserved characters decoded,
  characters that must be escaped (spaces, controls, non-ASCII as UTF-8) escaped;
* tracking parameters (``utm_*``, ``gclid``, ``fbclid`` ...) removed from the query; the order
  of the other parameters is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

import ada_url
import can_ada

from crawler_gui.core.i18n import QT_TRANSLATE_NOOP
from crawler_gui.errors import InvalidURLError

#: Machine-readable refusal reasons, with the sentence the GUI shows for each.
REASONS: dict[str, str] = {
    "empty": QT_TRANSLATE_NOOP("reasons", "the URL is empty"),
    "malformed": QT_TRANSLATE_NOOP("reasons", "the URL cannot be parsed"),
    "scheme": QT_TRANSLATE_NOOP("reasons", "only http and https URLs are crawled"),
    "too_long": QT_TRANSLATE_NOOP("reasons", "the URL is longer than the limit"),
    "no_host": QT_TRANSLATE_NOOP("reasons", "the URL has no host"),
    "host_without_dot": QT_TRANSLATE_NOOP(
        "reasons", "the host has no dot (not a public host name)"
    ),
    "bad_host": QT_TRANSLATE_NOOP("reasons", "the host name is not valid"),
    "long_host": QT_TRANSLATE_NOOP(
        "reasons", "the host name is longer than 253 characters, or one of its labels than 63"
    ),
    "bad_port": QT_TRANSLATE_NOOP("reasons", "the port is not a number from 1 to 65535"),
    "userinfo": QT_TRANSLATE_NOOP("reasons", "URLs with a user name or password are not crawled"),
    "too_deep": QT_TRANSLATE_NOOP("reasons", "the URL is deeper than the depth limit"),
    "host_full": QT_TRANSLATE_NOOP(
        "reasons", "the host already has the maximum number of waiting URLs"
    ),
    "is_hub": QT_TRANSLATE_NOOP(
        "reasons", "the URL is a hub; hubs are refreshed on their own timer"
    ),
}

DEFAULT_MAX_LENGTH = 2048
#: DNS limits (RFC 1035): a name of at most 253 characters, each label at most 63.
MAX_HOST_LENGTH = 253
MAX_LABEL_LENGTH = 63

#: Query parameters that only track the reader; removed by default.
TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        "gclid",
        "dclid",
        "fbclid",
        "msclkid",
        "yclid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
        "igshid",
        "spm",
    }
)
TRACKING_PREFIXES: tuple[str, ...] = ("utm_",)
#: Substrings one of which every default tracking parameter contains: a query with none of them
#: keeps all its parameters (a quick test before splitting it).
_TRACKING_HINTS = ("utm_", "clid", "mc_", "_hs", "igshid", "spm")

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_HEX = "0123456789ABCDEF"
_HOST_OK = re.compile(r"[a-z0-9.\-_]+\Z")
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
# Characters left alone in a path or query: RFC 3986 pchar and sub-delims, "/", "?", and "%"
# (escapes are handled separately).
_SAFE_PATH = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/%"
)
_SAFE_QUERY = _SAFE_PATH | frozenset(b"?")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_STRIP = "".join(chr(c) for c in range(0x21))  # C0 controls and space, as the standard strips
_NEEDS_WORK = re.compile(r"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]")


def _fix_escape(m: re.Match[str]) -> str:
    byte = int(m.group(1), 16)
    if byte in _UNRESERVED:
        return chr(byte)
    return "%" + m.group(1).upper()


def _quote(text: str, safe: frozenset[int]) -> str:
    """Escape what must be escaped and normalise existing escapes; leave the rest."""
    if not _NEEDS_WORK.search(text):
        return text
    if "%" in text:
        text = _PCT.sub(_fix_escape, text)
    out: list[str] = []
    data = text.encode("utf-8", "surrogatepass")
    n = len(data)
    i = 0
    while i < n:
        b = data[i]
        if b == 0x25:  # '%': keep a valid escape (already normalised), escape a stray one
            if i + 2 < n and _is_hex(data[i + 1]) and _is_hex(data[i + 2]):
                out.append(chr(b))
                out.append(chr(data[i + 1]))
                out.append(chr(data[i + 2]))
                i += 3
                continue
            out.append("%25")
        elif b in safe:
            out.append(chr(b))
        else:
            out.append("%" + _HEX[b >> 4] + _HEX[b & 15])
        i += 1
    return "".join(out)


def _is_hex(b: int) -> bool:
    return 48 <= b <= 57 or 65 <= b <= 70 or 97 <= b <= 102


def _remove_dot_segments(path: str) -> str:
    if "." not in path:
        return path
    segments = path.split("/")
    if "." not in segments and ".." not in segments:
        return path
    out: list[str] = []
    for seg in segments[1:]:
        if seg == "..":
            if out:
                out.pop()
        elif seg != ".":
            out.append(seg)
    if segments[-1] in (".", ".."):
        out.append("")
    return "/" + "/".join(out)


def _clean_query(query: str, drop: frozenset[str], prefixes: tuple[str, ...]) -> str:
    if not query:
        return ""
    if drop is TRACKING_PARAMS and prefixes is TRACKING_PREFIXES:
        lowered = query.lower()
        if not any(hint in lowered for hint in _TRACKING_HINTS):
            return (
                query.strip("&")
                if "&&" not in query
                else "&".join(p for p in query.split("&") if p)
            )
    kept = []
    for part in query.split("&"):
        if not part:
            continue
        name = part.split("=", 1)[0].lower()
        if name in drop or name.startswith(prefixes):
            continue
        kept.append(part)
    return "&".join(kept)


class StandardURL(NamedTuple):
    """An http(s) URL as the WHATWG URL Standard parses it, before any rule of ours."""

    scheme: str  #: ``http`` or ``https``
    username: str
    password: str
    hostname: str  #: ASCII: punycode, a normalised IPv4 address, or ``[v6]``
    port: str  #: ``""`` for the scheme's default
    path: str  #: ``pathname``: dot segments resolved, percent-encoded as the standard says
    query: str  #: ``search`` without the ``?``


def parse(raw: str) -> StandardURL:
    """Parse an absolute http(s) URL by the WHATWG URL Standard, or raise
    :class:`InvalidURLError` (``scheme`` for another scheme or none, ``malformed`` for what the
    standard refuses)."""
    if not isinstance(raw, str):
        raise InvalidURLError(repr(raw), "malformed", "a URL must be text")
    text = raw.strip(_STRIP)
    if not text:
        raise InvalidURLError(raw, "empty", REASONS["empty"])
    head = _SCHEME.match(text.replace("\t", "").replace("\n", "").replace("\r", ""))
    if head is None:
        raise InvalidURLError(raw, "scheme", "the URL has no scheme (http:// or https://)")
    if head.group(0)[:-1].lower() not in _DEFAULT_PORTS:
        raise InvalidURLError(raw, "scheme", REASONS["scheme"])
    url: Any = None
    if text.isascii():
        # can_ada is ada's fast binding (about 1 µs a URL). ada_url binds a newer ada that
        # follows the newest revision of the standard: it accepts a few hosts the older one
        # refuses (undecodable xn-- labels) and maps newer Unicode (U+1E9E) by UTS #46. It is
        # ten times slower, so it parses only non-ASCII URLs and what can_ada refuses.
        try:
            url = can_ada.parse(text)
        except (ValueError, TypeError):
            url = None
    if url is None:
        try:
            url = ada_url.URL(text)
        except (ValueError, TypeError, UnicodeError) as exc:
            reason = _diagnose(text)
            raise InvalidURLError(raw, reason, REASONS[reason]) from exc
    search = url.search
    return StandardURL(
        scheme=url.protocol[:-1],
        username=url.username,
        password=url.password,
        hostname=url.hostname,
        port=url.port,
        path=url.pathname,
        query=search[1:] if search else "",
    )


_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[/\\]*([^/\\?#]*)")


def _diagnose(text: str) -> str:
    """The likeliest reason the standard refused ``text``, for a clearer message."""
    match = _AUTHORITY.match(text)
    authority = match.group(1) if match else ""
    hostport = authority.rpartition("@")[2]
    host, sep, port = (
        hostport.rpartition(":")
        if ":" in hostport.rpartition("]")[2]
        else (
            hostport,
            "",
            "",
        )
    )
    if sep and port and (not port.isdigit() or int(port) > 65535):
        return "bad_port"
    if not host:
        return "no_host"
    return "bad_host"


#: Hosts that passed :func:`_check_host`, by the standard's host name (a crawl meets the same
#: few thousand hosts again and again). Cleared when full; only valid hosts are kept.
_HOSTS: dict[str, str] = {}
_HOSTS_MAX = 8192


def _check_host(host: str, raw: str) -> str:
    """Our rules on a host the standard accepted: what DNS can carry, with a dot."""
    if host.endswith("."):
        host = host[:-1]
    if not host:
        raise InvalidURLError(raw, "no_host", REASONS["no_host"])
    if host.startswith("["):
        raise InvalidURLError(raw, "host_without_dot", "IPv6 literal hosts are not crawled")
    if (
        not _HOST_OK.match(host)
        or ".." in host
        or host.startswith((".", "-"))
        or host.endswith(".")
    ):
        raise InvalidURLError(raw, "bad_host", REASONS["bad_host"])
    if "." not in host:
        raise InvalidURLError(raw, "host_without_dot", REASONS["host_without_dot"])
    if host_too_long(host):
        raise InvalidURLError(raw, "long_host", REASONS["long_host"])
    return host


def host_too_long(host: str) -> bool:
    """True when a host name is over the DNS limits: no resolver can look it up (and
    Python's would raise "label too long" from deep inside a connection attempt)."""
    if len(host) <= MAX_LABEL_LENGTH:  # the common case: no label can be too long
        return False
    host = host.rstrip(".")
    if len(host) > MAX_HOST_LENGTH:
        return True
    return any(len(label) > MAX_LABEL_LENGTH for label in host.split("."))


def canonicalize(
    raw: str,
    *,
    max_length: int = DEFAULT_MAX_LENGTH,
    drop_params: frozenset[str] = TRACKING_PARAMS,
    drop_prefixes: tuple[str, ...] = TRACKING_PREFIXES,
) -> tuple[str, str]:
    """Return ``(canonical_url, host_key)`` or raise :class:`InvalidURLError`."""
    if not isinstance(raw, str):
        raise InvalidURLError(repr(raw), "malformed", "a URL must be text")
    if len(raw) > max_length + 64 and len(raw.strip(_STRIP)) > max_length:
        raise InvalidURLError(raw, "too_long", f"longer than {max_length} characters")
    scheme: str
    text = raw.strip(_STRIP)
    head = text[:8].lower()
    fast: Any = None
    if (head.startswith("http://") or head == "https://") and text.isascii():
        # The common case, without building a StandardURL: one parse, five reads.
        try:
            fast = can_ada.parse(text)
        except (ValueError, TypeError):
            fast = None
    if fast is not None:
        if fast.has_credentials():
            raise InvalidURLError(raw, "userinfo", REASONS["userinfo"])
        scheme = "https" if head == "https://" else "http"
        hostname, port, path, query = fast.hostname, fast.port, fast.pathname, fast.search[1:]
    else:
        std = parse(raw)
        if std.username or std.password:
            raise InvalidURLError(raw, "userinfo", REASONS["userinfo"])
        scheme, hostname, port, path, query = (
            std.scheme,
            std.hostname,
            std.port,
            std.path,
            std.query,
        )
    host = _HOSTS.get(hostname)
    if host is None:
        host = _check_host(hostname, raw)
        if len(_HOSTS) >= _HOSTS_MAX:
            _HOSTS.clear()
        _HOSTS[hostname] = host
    hostkey = f"{host}:{port}" if port else host
    if not path:
        path = "/"
    else:
        # The standard has resolved dot segments already (%2e included); decoding an escape of
        # ours can only make a new one from a "%2E" the standard kept inside a longer segment.
        quoted = _quote(path, _SAFE_PATH)
        path = _remove_dot_segments(quoted) if "%2" in path else quoted
    if query:
        query = _clean_query(_quote(query, _SAFE_QUERY), drop_params, drop_prefixes)
    out = f"{scheme}://{hostkey}{path}?{query}" if query else f"{scheme}://{hostkey}{path}"
    if len(out) > max_length:
        raise InvalidURLError(raw, "too_long", f"longer than {max_length} characters")
    return out, hostkey


def join(base: str, href: str) -> str | None:
    """``href`` made absolute against ``base`` by the WHATWG URL Standard (as a browser follows
    a link), or ``None`` when the standard refuses it. Not canonicalized: ``canonicalize``
    does that (and refuses what is not http(s))."""
    try:
        return str(ada_url.join_url(base, href))
    except (ValueError, TypeError, UnicodeError):
        return None


def host_of(canonical_url: str) -> str:
    """The host key of a URL that is already canonical (cheap: no parsing)."""
    rest = canonical_url.split("://", 1)[1]
    return rest.split("/", 1)[0]


def check_lines(lines: Iterable[str]) -> list[tuple[int, str, str | None, str | None]]:
    """Validate user-typed lines (the add-seeds and hubs dialogs).

    Returns ``(line_number, text, canonical_url_or_None, reason_or_None)`` for each non-blank,
    non-comment line; line numbers start at 1.
    """
    out: list[tuple[int, str, str | None, str | None]] = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            url, _host = canonicalize(text)
        except InvalidURLError as exc:
            out.append((number, text, None, exc.reason))
        else:
            out.append((number, text, url, None))
    return out
