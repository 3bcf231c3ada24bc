"""The clean-up of a main text's lines (the repeated headline, copyright and share lines,
datelines, menus, trailing related-news links), and the second opinion asked where the
fast path is unsure: trafilatura, on the page parsed anew by its own loader."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from copy import copy
from typing import TYPE_CHECKING

from crawler_gui.engine.extract.textutil import norm_key, units

if TYPE_CHECKING:
    from trafilatura.settings import Extractor

__all__ = [
    "Anchors",
    "clean_block_lines",
    "clean_lines",
    "cut_link_tail",
    "is_link_line",
    "trafilatura_lines",
    "trim_chinese",
]


#: Boilerplate lines: by how they start (tried at the start of the line only) ...
_BOILER_START = re.compile(
    r"(copyright|©|\(c\)\s|(share|like) this|follow (us|@)|sign up|subscribe|advertisement$|"
    r"read more\b|also on |print article|an error has occurred|this article has been sent|"
    r"thank you$|write to .+@|https?://\S+$|(来源|来源于|编辑|本文来源)[：:]\S{0,20}$|微信扫一扫|"
    r"(当前|现在)位置[：:]|"
    r"(点击|扫码|关注).{0,20}(公众号|微信|下载)|(分享到|返回顶部|打印|关闭窗口)|"
    r"(上一篇|下一篇)[：:]|-?\s*图\s*\d+$|(视频)?加载中|\d+\s*/\s*\d+$|热门推荐|小编最近文章|"
    r"(免注册|登录|注册|意见反馈)|toggle navigation$|(上一篇|下一篇)\s*[:：]?\s*$)",
    re.IGNORECASE,
)
#: ... and by what they say anywhere (looked for in the lower-cased line as plain
#: substrings: a search of the line for each is cheaper than a pattern tried at every
#: position).
_BOILER_ANYWHERE = (
    "all rights reserved",
    "版权所有",
    "未经授权",
    "责任编辑",
    "share it with",
    "order reprints",
    "for your personal, non-commercial",
    "公众号",
    "二维码",
    "免责声明",
    "点击投票",
    "点击进入",
    "点击查看",
)


#: A line longer than this is no boilerplate line (a paragraph that mentions copyright).
_BOILER_CHARS = 300


def _boiler(line: str) -> bool:
    if _BOILER_START.match(line):
        return True
    low = line.lower()
    return any(words in low for words in _BOILER_ANYWHERE)


_DATELINE_LABEL = re.compile(r"(来源|作者|发布|时间|编辑|记者)[：:]")
#: :data:`_BOILER_START` at the start of any line of a text.
_BOILER_LINE = re.compile(f"^(?:{_BOILER_START.pattern})", re.IGNORECASE | re.MULTILINE)


def _may_drop(short: list[str]) -> tuple[bool, bool]:
    """Whether any of the lines ``short`` might be boilerplate, and whether any might be a
    dateline, told from their text joined: most main texts have no boilerplate line, and
    each line need not be tried for it."""
    if not short:
        return False, False
    blob = "\n".join(short)
    low = blob.lower()
    boiler = bool(_BOILER_LINE.search(blob)) or any(words in low for words in _BOILER_ANYWHERE)
    return boiler, ("：" in blob or ":" in blob) and bool(_DATELINE_LABEL.search(blob))


_RELATED_HEADING = re.compile(
    r"(相关|推荐|延伸阅读|热门|热点|猜你喜欢|更多|其他媒体|排行|related|more stories|"
    r"most read|read more|recommended|elsewhere|you may also like)",
    re.I,
)


class Anchors:
    """The normalised texts of a page's links (:func:`~.textutil.norm_key`), for telling
    link lines: kept longest first, so a line is compared only with the links long enough
    to be most of it (a body line is compared with a few of a page's hundreds of links)."""

    __slots__ = ("by_length", "keys", "prefixes")

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = frozenset(keys)
        self.by_length = sorted(self.keys, key=len, reverse=True)
        self.prefixes = tuple(self.keys)


def is_link_line(line: str, anchors: Anchors) -> bool:
    """A line that is (or is most of) the text of one of the page's links."""
    key = norm_key(line.lstrip("-•* "))
    if not key:
        return False
    if key in anchors.keys:
        return True
    for k in anchors.by_length:
        if len(key) > 1.5 * len(k):
            return False  # the rest are shorter still
        if k in key:
            return True
    return False


def cut_link_tail(lines: list[str], anchors: Anchors) -> list[str]:
    """Lines without a trailing block of links (related news, most read): a short heading
    like "相关新闻" / "Related" followed mostly by link lines, or link lines at the very end."""
    for i, line in enumerate(lines):
        if i == 0 or units(line) > 8 or not _RELATED_HEADING.search(line):
            continue
        rest = lines[i + 1 :]
        if rest and sum(is_link_line(x, anchors) for x in rest) >= 0.5 * len(rest):
            lines = lines[:i]
            break
    while len(lines) > 1 and (
        is_link_line(lines[-1], anchors)
        or (lines[-1].startswith("- ") and _TAIL_DATE.search(lines[-1]))
    ):
        lines = lines[:-1]
    # A closing run of list items that each start with a link's text (headline + teaser).
    n = len(lines)
    while n > 1 and lines[n - 1].startswith("- ") and _starts_with_anchor(lines[n - 1], anchors):
        n -= 1
    if len(lines) - n >= 3:
        lines = lines[:n]
    return lines


def _starts_with_anchor(line: str, anchors: Anchors) -> bool:
    return norm_key(line.lstrip("-•* ")).startswith(anchors.prefixes)


_TAIL_DATE = re.compile(r"(19|20)\d{2}-\d{1,2}-\d{1,2}( \d{1,2}:\d{2})?")
_SENTENCE_END = re.compile(r"[。！？!?.…”」）)]$")


def trim_chinese(lines: list[str]) -> list[str]:
    """Chinese text without the short unpunctuated lines at its start and end (widgets,
    labels, site names): a paragraph ends with sentence punctuation."""

    def junk(line: str) -> bool:
        return units(line) < 20 and not _SENTENCE_END.search(line)

    start, end = 0, len(lines)
    # (A salutation opening a statement, "女士们、先生们：", is text.)
    while start < end and junk(lines[start]) and not lines[start].endswith("："):
        start += 1
    while end > start and junk(lines[end - 1]):
        end -= 1
    return lines[start:end]


def _dateline(line: str) -> bool:
    """A short line with a date and a source/author label: the dateline, not body text."""
    # (The label first: most lines have none, and counting a line's units costs more.)
    return (
        ("：" in line or ":" in line)
        and bool(_DATELINE_LABEL.search(line))
        and bool(re.search(r"(19|20)\d{2}\s*[-/.年]\s*\d{1,2}", line))
        and units(line) < 40
    )


def clean_lines(text: str, headline: str, *, menus: bool = True) -> list[str]:
    """``text``'s non-empty lines without the repeated headline, boilerplate lines,
    datelines and (with ``menus``) menu-like runs of short lines: a text read from the
    page's blocks has no menus left (their links are gone), and its runs of short lines
    are a table's cells or a poem's."""
    lines = [" ".join(x.split()) for x in text.split("\n")]
    return _clean([x for x in lines if x], headline, menus)


def clean_block_lines(blocks: Sequence[str], headline: str) -> list[str]:
    """:func:`clean_lines` (without ``menus``) of the texts of a page's blocks, whose spaces
    are already made single (a block of several lines is split into them)."""
    lines = [y for x in blocks for y in (x.split("\n") if "\n" in x else (x,)) if y]
    return _clean(lines, headline, False)


def _clean(lines: list[str], headline: str, menus: bool) -> list[str]:
    key = norm_key(headline)
    # The headline (and a standfirst repeating it) is not body text, also when a
    # breadcrumb or a label line comes first.
    for i in range(min(3, len(lines)) - 1, -1, -1):
        first = norm_key(lines[i])
        if key and (first == key or (len(first) > 8 and first in key)):
            del lines[i]
    # (Nor is the headline repeated further down, above a picture or a second page. A
    # line much longer than the headline is none of these: a paragraph.)
    n = max(len(headline) * 2, _BOILER_CHARS)
    top = 2 * len(headline) + 10
    boiler, dateline = _may_drop([x for x in lines if len(x) <= n])
    lines = [
        x
        for x in lines
        if len(x) > n
        or not (
            (boiler and _boiler(x))
            or (dateline and _dateline(x))
            or (key and len(key) <= len(x) <= top and norm_key(x) == key)
        )
    ]
    if not menus:
        return lines
    # A run of many short lines without sentence punctuation is a menu or a tag cloud.
    out: list[str] = []
    run: list[str] = []
    for x in [*lines, ""]:
        short = 0 < units(x) <= 4 and not re.search(r"[.!?。！？]$", x)
        if short:
            run.append(x)
            continue
        if len(run) < 6:
            out.extend(run)
        run = []
        if x:
            out.append(x)
    return out


def trafilatura_lines(text: str, url: str, headline: str) -> list[str]:
    """trafilatura's main text of the page ``text`` (its default path, with its fallback
    extractors; tables kept, comments left out), cleaned up. Imported on first use: a
    worker that never needs it never loads it."""
    import trafilatura

    options = copy(_options())
    options.url = url
    options.source = url
    try:
        out = trafilatura.extract(text, options=options)
    except Exception:  # trafilatura raises on odd input; no text is no error
        return []
    return clean_lines(out or "", headline)


@functools.cache
def _options() -> Extractor:
    """trafilatura's settings for our calls, made once (each reads its configuration file's
    values anew, a quarter of a millisecond); each call takes a copy with its page's URL."""
    from trafilatura.settings import Extractor

    return Extractor(
        output_format="txt", fast=False, comments=False, tables=True, with_metadata=False
    )
