"""Text that came from the network, made fit to store, index, export and show.

The HTTP client keeps a header byte that is not UTF-8 as a lone surrogate (Python's
``surrogateescape``), so that a redirect's target keeps its bytes; text parsed out of a page
(a JSON-LD ``"\\ud83d"`` escape, a feed's ``&#55357;``) can hold lone surrogates too. Such text
cannot be encoded as UTF-8: a page store write, a search index, an export or a log file that
meets it fails. These functions mend it where it enters.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["header_text", "is_unicode", "mend_text", "mended"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def is_unicode(value: str) -> bool:
    """True when ``value`` encodes as UTF-8 (it holds no surrogate)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def header_text(value: str) -> str:
    """A response header's value as text: a value whose bytes are not UTF-8 is read as
    ISO-8859-1, HTTP's historical charset (RFC 9110, 5.5), as a browser shows it."""
    if is_unicode(value):
        return value
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte could have made
        return mend_text(value)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def mend_text(value: str) -> str:
    """``value`` with each surrogate pair joined into its character and each lone surrogate
    replaced by U+FFFD: text that encodes as UTF-8."""
    if is_unicode(value):
        return value
    joined = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _LONE_SURROGATE.sub("\ufffd", joined)


def mended(obj: Any) -> Any:
    """A JSON-like value (dicts, lists, tuples, text, numbers) with every text mended (keys
    too); other values as they are."""
    if isinstance(obj, str):
        return mend_text(obj)
    if isinstance(obj, dict):
        return {mended(k): mended(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [mended(v) for v in obj]
    return obj
