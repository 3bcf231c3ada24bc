"""Hide credentials in URLs before they reach a log line, a message, a title or saved settings.

One function for every URL that may carry a secret: Redis pool URLs (``redis://user:pass@host``,
``?password=``), proxy URLs (``http://user:pass@proxy:3128``) and any other. It never raises: a URL
too malformed to parse is shown as ``<unparsable URL>`` rather than risk printing a secret.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

__all__ = ["SECRET_QUERY_KEYS", "redact_url"]

#: Query keys whose values are secrets (compared case-insensitively). A key that merely contains
#: one of these words (``redis_password``, ``api_token``) is a secret too.
SECRET_QUERY_KEYS = frozenset(
    {"password", "passwd", "pass", "pwd", "username", "user", "secret", "token", "key", "auth"}
)

#: What a hidden secret is replaced with.
MASK = "***"


def _is_secret_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in SECRET_QUERY_KEYS or any(
        word in lowered for word in ("password", "passwd", "secret", "token", "apikey", "api_key")
    )


def redact_url(url: str) -> str:
    """``url`` with the user info's password and every secret query value replaced by ``***``.

    The user name is kept (it helps tell two accounts apart and is not a secret by itself); a
    user name given as a query key (``username=``) is hidden like a password, since such URLs
    usually pair it with ``password=``.
    """
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, _, hostport = netloc.rpartition("@")
            user, sep, _password = userinfo.partition(":")
            netloc = f"{user}:{MASK}@{hostport}" if sep else f"{userinfo}@{hostport}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            if any(_is_secret_key(key) for key, _ in pairs):
                query = urlencode(
                    [(key, MASK if _is_secret_key(key) else value) for key, value in pairs],
                    safe="*/:",
                )
        if netloc == parts.netloc and query == parts.query:
            return url
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return "<unparsable URL>"
