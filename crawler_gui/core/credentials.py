"""Passwords off the command line: the Redis pool's and the proxy's, from a file
(``--redis-password-file``, ``--proxy-password-file``; a systemd credential) or the environment
(:data:`REDIS_PASSWORD_ENV`, :data:`PROXY_PASSWORD_ENV`), put into the URL in memory only.

A password given on the command line can be read by every user of the machine (the process
list); a file of the user's own, or the process's environment, cannot. The URL that carries it
afterwards is shown only through ``core/redact.py`` (logs, messages, titles, metrics) and never
saved (the window's settings keep a URL without it).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from crawler_gui.core.redact import redact_url
from crawler_gui.errors import ConfigError

__all__ = [
    "PROXY_PASSWORD_ENV",
    "REDIS_PASSWORD_ENV",
    "has_password",
    "proxy_with_password",
    "read_password_file",
    "redis_with_password",
    "with_proxy_password",
    "with_redis_password",
    "without_password",
]

#: The environment variable of the Redis pool's password (when no file is given).
REDIS_PASSWORD_ENV = "CRAWLER_GUI_REDIS_PASSWORD"  # noqa: S105 - a variable's name
#: The environment variable of the proxy's password (when no file is given).
PROXY_PASSWORD_ENV = "CRAWLER_GUI_PROXY_PASSWORD"  # noqa: S105 - a variable's name
#: A password file larger than this is not a password file.
_MAX_FILE = 4096


def read_password_file(path: str | Path) -> str | None:
    """The password in the file ``path``: its one line, without its line end; None for an
    empty file (no password: the default of a systemd credential that was not set). Clear
    ConfigErrors for a file that cannot be read or holds more than one line, never saying what
    it holds."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read(_MAX_FILE + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the password file {p}: {exc.strerror or exc}") from exc
    if len(data) > _MAX_FILE:
        raise ConfigError(f"the password file {p} is not one line of text (too large)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the password file {p} is not UTF-8 text") from exc
    if text.endswith("\n"):
        text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
    if "\n" in text or "\r" in text:
        raise ConfigError(
            f"the password file {p} holds more than one line: give the password alone"
        )
    return text or None


def _given(url: str, file: str | Path | None, env: str) -> str | None:
    """The password to put into ``url``: the file's when one is given (a URL with a password
    of its own is then refused: one place), else the environment variable's, a default for
    a URL without one (unset or empty: none)."""
    if file:
        return read_password_file(file)
    if has_password(url):
        return None
    return os.environ.get(env) or None


def redis_with_password(url: str, file: str | Path | None = None) -> str:
    """The Redis pool URL ``url`` with its password from ``file`` (``--redis-password-file``)
    or the environment (:data:`REDIS_PASSWORD_ENV`)."""
    return with_redis_password(url, _given(url, file, REDIS_PASSWORD_ENV))


def proxy_with_password(url: str, file: str | Path | None = None) -> str:
    """The proxy URL ``url`` with its user's password from ``file`` (``--proxy-password-file``)
    or the environment (:data:`PROXY_PASSWORD_ENV`)."""
    return with_proxy_password(url, _given(url, file, PROXY_PASSWORD_ENV))


def has_password(url: str) -> bool:
    """Whether ``url`` carries a password (in its user info, or as ``password=``)."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    in_userinfo = ":" in userinfo and bool(userinfo.partition(":")[2])
    in_query = any(k == "password" for k, _ in parse_qsl(parts.query, keep_blank_values=True))
    return in_userinfo or in_query


def with_redis_password(url: str, password: str | None) -> str:
    """The Redis pool URL ``url`` with ``password`` in it (a ``password=`` option, which the
    pool passes on to redis-py; the user name stays where the URL has it). A URL that carries
    a password already is refused: the password is given in one place."""
    if password is None:
        return url
    url = url.strip()
    if has_password(url):
        raise ConfigError(
            f"the pool URL {redact_url(url)} carries a password already: give it in one place "
            "(the URL, the password file or the environment)"
        )
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True), ("password", password)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_proxy_password(url: str, password: str | None) -> str:
    """The proxy URL ``url`` (``scheme://USER@host:port``) with ``password`` in its user info.
    The user must be in the URL; a URL with a password already is refused."""
    if password is None:
        return url
    parts = urlsplit(url.strip())
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if not at or not userinfo:
        raise ConfigError(
            f"the proxy {redact_url(url)} names no user: give it in the URL "
            "(scheme://USER@host:port) with a proxy password"
        )
    if has_password(url):
        raise ConfigError(
            f"the proxy {redact_url(url)} carries a password already: give it in one place"
        )
    netloc = f"{userinfo}:{quote(password, safe='')}@{hostport}"
    return urlunsplit(parts._replace(netloc=netloc))


def without_password(url: str) -> str:
    """``url`` without its password (the user info's, ``password=``): what may be shown in a
    field to edit or remembered."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}@{hostport}" if user else hostport
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "password"]
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query)))
