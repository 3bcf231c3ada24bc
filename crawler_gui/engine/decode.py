"""Turn a response body into text, and tell HTML from text from binary.

:func:`decode_body` follows the order browsers use, with one twist: a declared encoding is used
only if the bytes really decode with it (servers and pages lie about their charset, most often
"UTF-8" on a GBK page). Order:

1. the ``charset`` of the HTTP ``Content-Type`` header;
2. a byte-order mark;
3. ``<meta charset=...>`` or ``<meta http-equiv="Content-Type" content="...charset=...">`` in
   the first 4 KB;
4. strict UTF-8, then ``cchardet``'s guess;
5. UTF-8 with replacement characters.

Label aliases follow the WHATWG Encoding Standard where Python's codecs are narrower: GB2312,
GBK, x-gbk and cp936 read as gb18030 (a superset), Big5 as big5hkscs, ISO-8859-1 and US-ASCII as
windows-1252. Pure ASCII and valid UTF-8 bodies take a fast path.
"""

from __future__ import annotations

import codecs
import re

import cchardet

__all__ = ["decode_body", "normalize_label", "sniff_kind"]

#: Label (lower-case) -> Python codec name, where the plain codec lookup is wrong or too narrow.
_ALIASES: dict[str, str] = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "ms936": "gb18030",
    "windows-936": "gb18030",
    "csgb2312": "gb18030",
    "chinese": "gb18030",
    "gb_2312-80": "gb18030",
    "iso-ir-58": "gb18030",
    "euc-cn": "gb18030",
    "x-euc-cn": "gb18030",
    "hz-gb-2312": "gb18030",
    "gb18030": "gb18030",
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "cn-big5": "big5hkscs",
    "csbig5": "big5hkscs",
    "x-x-big5": "big5hkscs",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "windows-1252": "cp1252",
    "x-sjis": "shift_jis",
    "shift-jis": "shift_jis",
    "sjis": "shift_jis",
    "windows-31j": "cp932",
    "x-mac-roman": "mac_roman",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "utf8": "utf-8",
    "unicode-1-1-utf-8": "utf-8",
}
#: Single-byte labels that decode anything: a body that is valid non-ASCII UTF-8 is taken as UTF-8.
_SINGLE_BYTE = frozenset({"cp1252", "latin-1", "iso8859-1", "iso8859-15"})
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([-\w.:]+)""", re.IGNORECASE)
_META_WINDOW = 4096
_label_cache: dict[str, str | None] = {}


def normalize_label(label: str | None) -> str | None:
    """The Python codec name for an encoding label, or ``None`` if the label is unknown."""
    if not label:
        return None
    key = label.strip().strip("\"'").lower()
    if key in _label_cache:
        return _label_cache[key]
    name: str | None = _ALIASES.get(key)
    if name is None:
        try:
            info = codecs.lookup(key)
        except (LookupError, ValueError):
            name = None
        else:
            # Only text encodings: "rot13", "base64", "zlib" ... are codecs too.
            name = info.name if getattr(info, "_is_text_encoding", True) else None
    if len(_label_cache) < 512:
        _label_cache[key] = name
    return name


def _header_charset(content_type: str | None) -> str | None:
    if not content_type:
        return None
    lowered = content_type.lower()
    at = lowered.find("charset=")
    if at < 0:
        return None
    value = content_type[at + 8 :].split(";", 1)[0].strip().strip("\"'")
    return value or None


def _try(body: bytes, encoding: str) -> str | None:
    """Strict decode; a character cut off at the very end (a truncated body) is tolerated."""
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        if exc.start >= len(body) - 3 and exc.start > 0:
            try:
                return body[: exc.start].decode(encoding) + "\ufffd"
            except UnicodeDecodeError:
                return None
        return None
    except LookupError:
        return None


def _declared(body: bytes, encoding: str) -> str | None:
    """Strict decode with a declared encoding; a single-byte label loses to valid UTF-8."""
    if encoding in _SINGLE_BYTE:
        text = _try(body, "utf-8")
        if text is not None:
            return None  # the caller's utf-8 step will take it
    return _try(body, encoding)


def decode_body(body: bytes, content_type: str | None) -> tuple[str, str]:
    """Decode ``body``; return ``(text, encoding_used)``. Never raises."""
    text, encoding, _how = decode_body_explained(body, content_type)
    return text, encoding


#: How :func:`decode_body_explained` chose the encoding (recorded with each page).
DECIDED_BY = ("empty", "ascii", "header", "bom", "meta", "utf-8", "guess", "fallback")


def decode_body_explained(body: bytes, content_type: str | None) -> tuple[str, str, str]:
    """:func:`decode_body`, also saying how the encoding was decided: one of
    :data:`DECIDED_BY` (the HTTP header, a byte-order mark, a ``<meta>`` tag, strict UTF-8, a
    guess from the bytes, or UTF-8 with replacements when nothing fit)."""
    if not body:
        return "", "utf-8", "empty"
    declared = normalize_label(_header_charset(content_type))
    if body.isascii() and (declared is None or not declared.startswith(("utf-16", "utf-32"))):
        return body.decode("ascii"), "ascii", "ascii"
    # 1. the HTTP header
    if declared is not None:
        text = _declared(body, declared)
        if text is not None:
            return text, declared, "header"
    # 2. a byte-order mark
    for bom, name in _BOMS:
        if body.startswith(bom):
            text = _try(body[len(bom) :], name)
            if text is not None:
                return text, name, "bom"
            break
    # 3. <meta> in the first 4 KB (a UTF-16 label there cannot be right: the meta was ASCII)
    match = _META_CHARSET.search(body, 0, _META_WINDOW)
    if match is not None:
        meta = normalize_label(match.group(1).decode("ascii", "replace"))
        if meta is not None and not meta.startswith(("utf-16", "utf-32")) and meta != declared:
            text = _declared(body, meta)
            if text is not None:
                return text, meta, "meta"
    # 4. strict UTF-8, then a guess
    text = _try(body, "utf-8")
    if text is not None:
        return text, "utf-8", "utf-8"
    guess = normalize_label(cchardet.detect(body).get("encoding"))
    if guess is not None and guess != "utf-8":
        text = _try(body, guess)
        if text is not None:
            return text, guess, "guess"
    # 5. give up gracefully
    return body.decode("utf-8", "replace"), "utf-8", "fallback"


_BINARY_MAGIC: tuple[bytes, ...] = (
    b"\x89PNG\r\n\x1a\n",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",  # JPEG
    b"%PDF-",
    b"PK\x03\x04",  # ZIP, DOCX, XLSX, EPUB, JAR
    b"PK\x05\x06",
    b"\x1f\x8b",  # gzip
    b"BZh",
    b"\xfd7zXZ\x00",  # xz
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07",
    b"\x28\xb5\x2f\xfd",  # zstd
    b"RIFF",  # WEBP, WAV, AVI
    b"OggS",
    b"ID3",  # MP3
    b"fLaC",
    b"\x00\x00\x01\x00",  # ICO
    b"\x7fELF",
    b"MZ",  # Windows executables
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",  # old MS Office
    b"wOFF",
    b"wOF2",
    b"\x1aE\xdf\xa3",  # Matroska / WebM
    b"II*\x00",  # TIFF
    b"MM\x00*",
    b"%!PS",
)
_HTML_MARKERS: tuple[bytes, ...] = (
    b"<!doctype html",
    b"<html",
    b"<head",
    b"<body",
    b"<title",
    b"<meta",
    b"<script",
    b"<div",
    b"<a ",
    b"<p>",
    b"<!--",
)
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/xml",
        "application/rss+xml",
        "application/atom+xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
    }
)
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"})
_SNIFF = 1024


def _looks_binary(head: bytes) -> bool:
    if head.startswith(_BINARY_MAGIC):
        return True
    if b"\x00" in head:
        # UTF-16/32 text is full of NUL bytes; a BOM says it is text.
        return not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE))
    return False


def sniff_kind(content_type: str | None, body: bytes) -> str:
    """``"html"``, ``"text"`` or ``"binary"``: what the engine may do with a body.

    Binary content is recognised by its magic number or a NUL byte in the first 1 KB whatever the
    server says; such a body is never parsed as HTML.
    """
    head = body[:_SNIFF]
    if _looks_binary(head):
        return "binary"
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if mime in _HTML_TYPES or mime.endswith("+xhtml"):
        return "html"
    if mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+xml", "+json")):
        return "text"
    if mime and mime not in ("application/octet-stream", "binary/octet-stream", "unknown/unknown"):
        return "binary"
    # No (or a meaningless) content type: look at the bytes.
    lowered = head.lstrip(b" \t\r\n\xef\xbb\xbf").lower()
    if lowered.startswith(b"<") and any(marker in lowered for marker in _HTML_MARKERS):
        return "html"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the 1 KB boundary
            return "binary" if mime else "text"
    return "text"
