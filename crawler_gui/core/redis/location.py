"""A Redis pool's URL: ``redis://host:port/db?name=news&worker=w1&groups=16`` (also
``rediss://`` and ``unix:///path/to.sock?db=0``), checked and split by the one function every
caller uses (the session, the command line, the window's Open Redis pool dialog). Pure parsing:
it does not import redis-py, so the window checks a URL as it is typed without loading it."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from crawler_gui.core.redact import redact_url
from crawler_gui.errors import PoolURLError

__all__ = [
    "MAX_GROUPS",
    "REDIS_SCHEMES",
    "REDIS_TYPED_URL_KEYS",
    "is_pool_url",
    "parse_pool_url",
    "parse_pool_url_full",
]

#: URL schemes that name a Redis pool instead of a pool directory.
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")

#: Letters of a pool name (it is part of every key).
_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
#: The most key groups a pool may have (``groups=``).
MAX_GROUPS = 1024

#: Query keys of a pool URL: ours (taken out before redis-py sees the URL), redis-py's typed
#: options (``redis.connection.URL_QUERY_ARGUMENT_PARSERS``, listed here so that checking a URL
#: does not import redis-py; a test keeps the two the same) and its text options; anything else
#: would reach redis-py's connection class as an unknown keyword and fail with a traceback.
_OUR_URL_KEYS = frozenset({"name", "worker", "groups"})
REDIS_TYPED_URL_KEYS = frozenset(
    {
        "db",
        "health_check_interval",
        "legacy_responses",
        "max_connections",
        "protocol",
        "retry_on_error",
        "retry_on_timeout",
        "socket_connect_timeout",
        "socket_keepalive",
        "socket_read_size",
        "socket_timeout",
        "ssl_check_hostname",
        "ssl_exclude_verify_flags",
        "ssl_include_verify_flags",
        "ssl_min_version",
        "ssl_validate_ocsp",
        "ssl_validate_ocsp_stapled",
        "timeout",
    }
)
_REDIS_URL_KEYS = REDIS_TYPED_URL_KEYS | {
    "password",
    "username",
    "client_name",
    "encoding",
    "encoding_errors",
}
_TLS_URL_KEYS = frozenset(
    {
        "ssl_keyfile",
        "ssl_certfile",
        "ssl_cert_reqs",
        "ssl_ca_certs",
        "ssl_ca_path",
        "ssl_ciphers",
        "ssl_password",
    }
)


def is_pool_url(location: str | Path) -> bool:
    """True when ``location`` names a Redis pool rather than a directory (by its scheme; whether
    the URL is a good one is :func:`parse_pool_url_full`'s to say)."""
    return isinstance(location, str) and location.strip().lower().startswith(REDIS_SCHEMES)


def parse_pool_url(url: str) -> tuple[str, str, str | None]:
    """Split ``redis://host:port/db?name=news&worker=w1`` into (redis URL, name, worker)."""
    redis_url, name, worker, _groups = parse_pool_url_full(url)
    return redis_url, name, worker


def parse_pool_url_full(url: str) -> tuple[str, str, str | None, int | None]:
    """As :func:`parse_pool_url`, plus the ``groups=`` parameter (None when absent)."""
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not 0-65535
    except ValueError as exc:
        raise PoolURLError(f"invalid Redis URL {shown!r}: {exc}") from exc
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise PoolURLError(f"not a Redis URL: {shown!r} (expected redis://host:port/db?name=...)")
    if parts.scheme == "unix" and not parts.path.strip("/"):
        raise PoolURLError(f"invalid Redis URL {shown!r}: no socket path (unix:///path/to.sock)")
    if parts.scheme != "unix" and not parts.hostname:
        raise PoolURLError(f"invalid Redis URL {shown!r}: no host")
    db = parts.path.strip("/")
    if parts.scheme != "unix" and db and not db.isdigit():
        raise PoolURLError(
            f"invalid Redis URL {shown!r}: the database after the host is not a number"
        )
    query = parse_qsl(parts.query, keep_blank_values=True)
    unknown = sorted(
        {key for key, _ in query}
        - _OUR_URL_KEYS
        - _REDIS_URL_KEYS
        - (_TLS_URL_KEYS if parts.scheme == "rediss" else frozenset())
    )
    if unknown:
        raise PoolURLError(
            f"invalid Redis URL {shown!r}: unknown option(s) {', '.join(map(repr, unknown))} "
            "(ours: name, worker, groups; and redis-py's, such as socket_timeout)"
        )
    name = "default"
    worker: str | None = None
    groups: int | None = None
    rest: list[tuple[str, str]] = []
    for key, value in query:
        if key == "name":
            name = value
        elif key == "worker":
            worker = value or None
        elif key == "groups":
            try:
                groups = int(value)
            except ValueError:
                groups = 0
            if not 1 <= groups <= MAX_GROUPS:
                raise PoolURLError(
                    f"invalid groups={value!r}: a whole number from 1 to {MAX_GROUPS}"
                )
        else:
            rest.append((key, value))
    if not name or not set(name) <= _NAME_OK:
        raise PoolURLError(f"invalid pool name {name!r}: use letters, digits, '_', '.', '-'")
    return urlunsplit(parts._replace(query=urlencode(rest))), name, worker, groups
