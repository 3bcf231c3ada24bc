"""URL canonicalization and validation: the one gate every URL passes before the pool sees it.

``canonicalize(raw)`` returns ``(url, host)`` where ``url`` is the canonical form and ``host`` is
the politeness key (``hostname`` or ``hostname:port`` when the port is not the default). It
raises :class:`~crawler_gui.errors.InvalidURLError` with one of :data:`REASONS`.

The canonical form:

* scheme and host lower-cased; an IDN host encoded to punycode (IDNA 2003, as browsers did);
* the default port (80 for http, 443 for https) dropped;
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
# RFC 3986, appendix B: scheme, authority, path, query, fragment.
_SPLIT = re.compile(r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#.*)?\Z", re.S)
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
    kept = []
    for part in query.split("&"):
        if not part:
            continue
        name = part.split("=", 1)[0].lower()
        if name in drop or name.startswith(prefixes):
            continue
        kept.append(part)
    return "&".join(kept)


def _encode_host(host: str, raw: str) -> str:
    if host.isascii():
        host = host.lower()
    else:
        if host_too_long(host):  # before the codec, which says only "label too long"
            raise InvalidURLError(raw, "long_host", REASONS["long_host"])
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise InvalidURLError(raw, "bad_host", "the host name cannot be encoded") from exc
    if host.endswith("."):
        host = host[:-1]
    if not host:
        raise InvalidURLError(raw, "no_host", REASONS["no_host"])
    if not _HOST_OK.match(host) or ".." in host or host.startswith((".", "-")):
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
    url = raw.strip()
    if not url:
        raise InvalidURLError(raw, "empty", REASONS["empty"])
    if len(url) > max_length:
        raise InvalidURLError(raw, "too_long", f"longer than {max_length} characters")
    if "\t" in url or "\n" in url or "\r" in url or "\x00" in url:
        url = url.replace("\r", "").replace("\n", "").replace("\t", "")
        if "\x00" in url:
            raise InvalidURLError(raw, "malformed", "the URL contains a NUL character")
    parts = _SPLIT.match(url)
    if parts is None:  # pragma: no cover - the pattern matches every string
        raise InvalidURLError(raw, "malformed", REASONS["malformed"])
    scheme_raw, netloc_raw, path_raw, query_raw = parts.groups()
    scheme = (scheme_raw or "").lower()
    if scheme not in _DEFAULT_PORTS:
        if not scheme:
            raise InvalidURLError(raw, "scheme", "the URL has no scheme (http:// or https://)")
        raise InvalidURLError(raw, "scheme", REASONS["scheme"])
    netloc = netloc_raw or ""
    if not netloc:
        raise InvalidURLError(raw, "no_host", REASONS["no_host"])
    if "@" in netloc:
        raise InvalidURLError(raw, "userinfo", REASONS["userinfo"])
    if netloc.startswith("["):
        raise InvalidURLError(raw, "host_without_dot", "IPv6 literal hosts are not crawled")
    host, sep, port = netloc.rpartition(":") if ":" in netloc else (netloc, "", "")
    if sep:
        if not port:
            pass
        elif not port.isdigit() or not (0 < int(port) < 65536):
            raise InvalidURLError(raw, "bad_port", REASONS["bad_port"])
        else:
            port = str(int(port))
    host = _encode_host(host, raw)
    hostkey = f"{host}:{port}" if port and port != _DEFAULT_PORTS[scheme] else host
    path = _remove_dot_segments(_quote(path_raw, _SAFE_PATH)) if path_raw else "/"
    if not path.startswith("/"):
        path = "/" + path
    query = _clean_query(_quote(query_raw or "", _SAFE_QUERY), drop_params, drop_prefixes)
    out = f"{scheme}://{hostkey}{path}?{query}" if query else f"{scheme}://{hostkey}{path}"
    if len(out) > max_length:
        raise InvalidURLError(raw, "too_long", f"longer than {max_length} characters")
    return out, hostkey


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
