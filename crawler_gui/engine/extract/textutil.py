"""Small text helpers shared by the extractor and its users (no parsing here)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["cjk_share", "element_text", "norm_key", "units", "word_count"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_PUNCT_SPACE = re.compile(r"[\W_]+")


_SPACE = re.compile(r"\s+")
_UNIT = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]"
    r"|[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+"
)


def cjk_share(text: str) -> float:
    """Share of CJK characters among the non-space characters of ``text``."""
    letters = len(_SPACE.sub("", text))
    if not letters:
        return 0.0
    return len(_CJK.findall(text)) / letters


def units(text: str) -> int:
    """Amount of text: CJK characters plus other words (a Chinese character carries about
    what an English word does)."""
    return len(_UNIT.findall(text))


def word_count(text: str) -> int:
    """Words for display: as :func:`units`."""
    return units(text)


def norm_key(text: str) -> str:
    """Lower-case text without spaces and punctuation: for comparing headline candidates."""
    return _PUNCT_SPACE.sub("", text).lower()


def element_text(el: Any) -> str:
    """An (lxml) element's text, its whitespace runs made single spaces."""
    return " ".join("".join(el.itertext()).split())
