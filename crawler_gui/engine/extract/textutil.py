"""Small text helpers shared by the extractor and its users (no parsing here)."""

from __future__ import annotations

import re

__all__ = ["cjk_share", "no_cjk", "norm_key", "units", "word_count"]

_CJK_CLASS = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
#: Runs of CJK characters (a run is one match: counting a Chinese text's characters as
#: single matches costs five times more).
_CJK_RUNS = re.compile(f"[{_CJK_CLASS}]+")
_PUNCT_SPACE = re.compile(r"[\W_]+")


#: UTF-8 bytes that start no character from U+3000 up (the CJK ranges above start at
#: U+3040): a text whose UTF-8 has only these has no CJK character.
_BELOW_U3000 = bytes(range(0xE3))
_WORD = re.compile(r"\w+")


def no_cjk(text: str) -> bool:
    """True when ``text`` surely has no CJK character (all its characters are below U+3000):
    told from its UTF-8 bytes by one ``bytes.translate``, twenty times faster than a search
    with the CJK pattern over an English page."""
    return text.isascii() or not text.encode("utf-8", "surrogatepass").translate(None, _BELOW_U3000)


def cjk_share(text: str) -> float:
    """Share of CJK characters among the non-space characters of ``text``."""
    if no_cjk(text):
        return 0.0
    # (``str.split`` and ``\s`` know the same spaces.)
    letters = sum(map(len, text.split()))
    if not letters:
        return 0.0
    return (len(text) - len(_CJK_RUNS.sub("", text))) / letters


#: ASCII bytes with every non-word byte made a space (word bytes: letters, digits, ``_``):
#: an ASCII text's words are then the runs ``bytes.split`` finds.
_ASCII_WORDS = bytes(c if chr(c).isalnum() or c == 0x5F else 0x20 for c in range(128)) + bytes(
    range(128, 256)
)
#: The punctuation of Latin-script text beyond ASCII (curly quotes, dashes, the ellipsis,
#: the no-break space, bullets): not word characters, made spaces to keep such a text on
#: the ASCII way.
_WIDE_PUNCT = "\u2019\u2018\u201c\u201d\u2014\u2013\u2026\xa0\u00b7\u2022"


def units(text: str) -> int:
    """Amount of text: CJK characters plus other words (a Chinese character carries about
    what an English word does).

    (Counted as the pattern of both would count them, by the cheapest way that gives the
    same number: an ASCII text -- or one that is once its common wide punctuation is made
    spaces -- by ``bytes.translate`` and ``split``, a few times faster than a regular
    expression over it; other texts without CJK characters as runs of word characters;
    CJK texts as their runs of CJK characters' lengths and their other words.)"""
    if not text.isascii():
        if not no_cjk(text):
            # (The CJK runs made spaces in one pass: their characters are the length lost
            # plus one a run; the words left are counted the ASCII way when they can be.)
            rest, runs = _CJK_RUNS.subn(" ", text)
            cjk = len(text) - len(rest) + runs
            if rest.isascii():
                return cjk + len(rest.encode("ascii").translate(_ASCII_WORDS).split())
            return cjk + _WORD.subn("", rest)[1]
        plain = text
        for ch in _WIDE_PUNCT:
            if ch in plain:
                plain = plain.replace(ch, " ")
        if not plain.isascii():
            return _WORD.subn("", text)[1]
        text = plain
    return len(text.encode("ascii").translate(_ASCII_WORDS).split())


def word_count(text: str) -> int:
    """Words for display: as :func:`units`."""
    return units(text)


#: The ASCII characters that are not letters or digits (:func:`norm_key` deletes them).
_ASCII_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


def norm_key(text: str) -> str:
    """Lower-case text without spaces and punctuation: for comparing headline candidates.

    (An ASCII text -- or one that is once its common wide punctuation is deleted -- by
    ``bytes.translate``, twice as fast as the regular expression other texts take: the
    same key. A page's every link text gets one.)"""
    if not text.isascii():
        plain = text
        for ch in _WIDE_PUNCT:
            if ch in plain:
                plain = plain.replace(ch, "")
        if not plain.isascii():
            return _PUNCT_SPACE.sub("", text).lower()
        text = plain
    return text.encode("ascii").translate(None, _ASCII_NOT_ALNUM).lower().decode("ascii")
