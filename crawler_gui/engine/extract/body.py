"""The main text of an article page: trafilatura's (fast path, then full path), a text-density
rule where it finds little on a Chinese portal, and our clean-up of the lines (repeated
headline, copyright and share lines, datelines, menus, trailing related-news links)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from copy import copy, deepcopy
from typing import Any

import trafilatura
from lxml import etree, html
from trafilatura.settings import Extractor
from trafilatura.utils import (
    DOCTYPE_TAG,
    FAULTY_HTML,
    HTML_PARSER,
    INVALID_XML_CHARS,
    load_html,
)

from crawler_gui.engine.extract.textutil import element_text, norm_key, string_value, units

__all__ = [
    "Anchors",
    "PageWalk",
    "clean_lines",
    "cut_link_tail",
    "density_lines",
    "is_link_line",
    "main_container",
    "paragraph_lines",
    "parse_html",
    "plain_container_lines",
    "strip_never_text",
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
#: ... and by what they say anywhere (searched along the line: few alternatives, it is
#: the costly part).
_BOILER_ANYWHERE = re.compile(
    r"all rights reserved|版权所有|未经授权|责任编辑|share it with|order reprints|"
    r"for your personal, non-commercial|公众号|二维码|免责声明|点击(投票|进入|查看)",
    re.IGNORECASE,
)


def _boiler(line: str) -> bool:
    return bool(_BOILER_START.match(line) or _BOILER_ANYWHERE.search(line))


_DATELINE_LABEL = re.compile(r"(来源|作者|发布|时间|编辑|记者)[：:]")


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
        bool(_DATELINE_LABEL.search(line))
        and bool(re.search(r"(19|20)\d{2}\s*[-/.年]\s*\d{1,2}", line))
        and units(line) < 40
    )


def clean_lines(text: str, headline: str) -> list[str]:
    """``text``'s non-empty lines without the repeated headline, boilerplate lines,
    datelines and menu-like runs of short lines."""
    lines = [" ".join(x.split()) for x in text.split("\n")]
    lines = [x for x in lines if x]
    key = norm_key(headline)
    # The headline (and a standfirst repeating it) is not body text, also when a
    # breadcrumb or a label line comes first.
    for i in range(min(3, len(lines)) - 1, -1, -1):
        first = norm_key(lines[i])
        if key and (first == key or (len(first) > 8 and first in key)):
            del lines[i]
    # (Nor is the headline repeated further down, above a picture or a second page.)
    lines = [x for x in lines if not _boiler(x) and not _dateline(x) and norm_key(x) != key]
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


_DENSITY_SKIP = {
    "script",
    "style",
    "noscript",
    "nav",
    "footer",
    "header",
    "aside",
    "form",
    "select",
}


def _density_text(tree: Any) -> list[str]:
    """Text-density rule for Chinese portals where trafilatura finds little: the block whose
    own non-link text is largest, weighed by its punctuation (sentences) and paragraphs, and
    penalised by the share of link text; its paragraphs are the body."""
    best: tuple[float, Any] | None = None
    for el in tree.iter("div", "article", "section", "td", "main"):
        text_len = 0
        link_len = 0
        punct = 0
        paras = 0
        for node in el.iter():
            if not isinstance(node.tag, str) or node.tag in _DENSITY_SKIP:
                continue
            t = (node.text or "").strip()
            tail = (node.tail or "").strip() if node is not el else ""
            n = len(t) + len(tail)
            text_len += n
            if node.tag == "a":
                link_len += len(t)
            if node.tag in ("p", "br"):
                paras += 1
            punct += sum(t.count(c) + tail.count(c) for c in "，。！？；、,.")
        if text_len < 60:
            continue
        link_share = link_len / text_len
        score = (text_len - link_len) * (1 - link_share) * math.log(2 + punct) * math.log(2 + paras)
        if best is None or score > best[0]:
            best = (score, el)
    if best is None:
        return []
    el = best[1]
    lines: list[str] = []
    blocks = el.xpath(".//p") or [el]
    for p in blocks:
        if any(anc.tag in _DENSITY_SKIP for anc in p.iterancestors()):
            continue
        t = element_text(p)
        if t:
            lines.append(t)
    return lines


class PageWalk:
    """What the passes over the whole page give: its visible text (outside scripts, styles
    and ``<noscript>``), the text of each of its links, and its sentence-like paragraphs
    (:func:`paragraph_lines`)."""

    __slots__ = ("link_chars", "link_texts", "outside", "paras", "visible")

    def __init__(self, tree: Any) -> None:
        texts = _VISIBLE_TEXT(tree) if _BODY_NOSCRIPT(tree) else _TEXT_OUTSIDE_SCRIPTS(tree)
        self.visible = " ".join(filter(str.strip, texts))
        links = list(tree.iter("a"))
        self.link_texts = [element_text(a) for a in links]
        #: Each link's characters (:func:`main_container` counts a block's link text often:
        #: read here once).
        self.link_chars: dict[Any, int] = {
            a: len(t) for a, t in zip(links, self.link_texts, strict=True)
        }
        #: Whether each element met so far is inside navigation, a footer, a link or
        #: comments (:func:`main_container` asks again for its blocks' ancestors).
        self.outside: dict[Any, bool] = {}
        self.paras = paragraph_lines(tree, self.outside)


#: The visible text nodes, as plain strings: lxml's default "smart" strings each keep a
#: reference to their element, which costs more than the search itself on a big page.
#: (Outside scripts and styles: their parent is not one, see below; outside ``<noscript>``:
#: none of their ancestors is one, one walk up the tree instead of three.)
_VISIBLE_TEXT = etree.XPath(
    "//body//text()[not(parent::script or parent::style or ancestor::noscript)]",
    smart_strings=False,
)


#: The same text nodes on a page without ``<noscript>`` in its body: a script's or a style's
#: text is its own text (the parser reads their content as text, never as elements), so the
#: test is on the parent alone, not on every ancestor up to the root (a page's thousands of
#: text nodes; half the time of the search above).
_TEXT_OUTSIDE_SCRIPTS = etree.XPath(
    "//body//text()[not(parent::script or parent::style)]", smart_strings=False
)
_BODY_NOSCRIPT = etree.XPath("//body//noscript")


_OUTSIDE_TAGS = frozenset({"nav", "footer", "aside", "a"})
_SENTENCE_MARK = re.compile(r"[.!?。！？,，]")


def paragraph_lines(tree: Any, outside: dict[Any, bool] | None = None) -> list[tuple[Any, str]]:
    """The page's sentence-like ``<p>`` elements outside navigation, footers and comments,
    with their parents. ``outside``: what :func:`_outside_article` found of each element,
    added to as it goes."""
    lines: list[tuple[Any, str]] = []
    for p in tree.iter("p"):
        t = element_text(p)
        # (15 units need 15 characters: most short paragraphs stop at the cheap test.)
        if len(t) < 15 or not _SENTENCE_MARK.search(t) or units(t) < 15:
            continue
        if _outside_article(p, outside):
            continue
        lines.append((p, t))
    return lines


def _outside_article(el: Any, known: dict[Any, bool] | None = None) -> bool:
    """``el`` is inside navigation, a footer, an aside, a link or a block whose class names
    comments. ``known``: each element's answer for its own descendants (whether it or one
    of its ancestors is such a block), filled in on the way: a page's paragraphs and blocks
    share their ancestors, which are then looked at once, not once per paragraph."""
    if known is None:
        return any(_outside_block(a) for a in el.iterancestors())
    chain = []
    inside_outside = False
    node = el.getparent()
    while node is not None:
        seen = known.get(node)
        if seen is not None:
            inside_outside = seen
            break
        chain.append(node)
        node = node.getparent()
    for a in reversed(chain):  # from the top down: an element is outside when its parent is
        inside_outside = inside_outside or _outside_block(a)
        known[a] = inside_outside
    return inside_outside


def _outside_block(el: Any) -> bool:
    if el.tag in _OUTSIDE_TAGS:
        return True
    cls = el.get("class")
    return cls is not None and "comment" in cls.lower()


def _link_chars(el: Any, known: dict[Any, int] | None = None) -> int:
    """Characters of link text in ``el`` (``known``: the links' characters, when counted)."""
    if known is None:
        return sum(_text_chars(a) for a in el.iter("a"))
    return sum(known[a] if a in known else _text_chars(a) for a in el.iter("a"))


def _text_chars(el: Any) -> int:
    return len(" ".join(string_value(el).split()))


#: Share of the page's article-like text the container must hold.
_CONTAINER_SHARE = 0.9
#: Characters of sentence-like paragraphs a page needs for its container to be looked for.
_CONTAINER_MIN = 300


def main_container(
    tree: Any,
    paras: list[tuple[Any, str]],
    link_chars: dict[Any, int] | None = None,
    outside: dict[Any, bool] | None = None,
) -> Any | None:
    """The element that holds the article, for handing trafilatura a small tree: the deepest
    element with nine tenths of the page's article-like text (the sentence-like paragraphs
    ``paras``, and the headings, quotes and non-link list items beside them), widened while
    what its parent adds is mostly text, not links (a heading or a list just outside it).
    None when that is the whole ``<body>``. ``link_chars``: each link's characters, when
    already counted (:attr:`PageWalk.link_chars`); ``outside``: what is known of elements
    being outside the article (:attr:`PageWalk.outside`).

    trafilatura's cost grows with the tree it is given (it copies and walks it several
    times, testing regular expressions on every block); the rest of a news page (menus,
    sidebars, footers, scripts) is most of the tree and none of the article."""
    # Amounts in characters: only shares within the page are compared.
    blocks = [(p, len(t)) for p, t in paras]
    if sum(n for _p, n in blocks) < _CONTAINER_MIN:
        return None  # too few paragraphs to tell where the article is
    for el in tree.iter("li", "h2", "h3", "h4", "blockquote"):
        n = _text_chars(el)
        if n < 8 or (el.tag == "li" and _link_chars(el, link_chars) > 0.5 * n):
            continue
        if not _outside_article(el, outside):
            blocks.append((el, n))
    total = 0
    held: dict[Any, int] = {}
    for el, u in blocks:
        total += u
        for anc in el.iterancestors():
            held[anc] = held.get(anc, 0) + u
    if not total:
        return None
    best: Any = None
    best_depth = -1
    for anc, u in held.items():
        if u >= _CONTAINER_SHARE * total:
            depth = sum(1 for _ in anc.iterancestors())
            if depth > best_depth:
                best, best_depth = anc, depth
    if best is None:
        return None
    text, links = _text_chars(best), _link_chars(best, link_chars)
    while True:
        parent = best.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        p_text, p_links = _text_chars(parent), _link_chars(parent, link_chars)
        added = p_text - text
        if added > 0 and p_links - links >= 0.3 * added:
            break
        # (Wrappers that add no text are taken too: their class names, "article-body",
        # are what trafilatura looks for.)
        best, text, links = parent, p_text, p_links
    return None if best.tag in ("body", "html", "header", "nav", "footer") else best


#: Control characters trafilatura's loader deletes before parsing (XML cannot hold them),
#: as bytes of the UTF-8 text: deleted by ``bytes.translate`` to tell whether there are any.
_CONTROL_BYTES = bytes(c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))
#: U+FFFE and U+FFFF (also deleted by the loader): looked for in the text, where a search
#: for a character is several times faster than for their UTF-8 bytes (and instant in a text
#: of single-byte characters).
_NONCHARS = ("\ufffe", "\uffff")


def parse_html(text: str) -> Any:
    """Parse as trafilatura's loader does (its parser settings and repairs change what it
    finds), a third faster: the text goes to lxml as UTF-8 bytes, as the loader's own
    fallback gives it (the same tree as from a ``str``), and the loader's scan deleting
    control characters over the whole text is made only when there are any (found by a
    ``bytes.translate``, several times faster than the scan). Text that does not start like
    HTML goes through the loader itself (its checks for that case). Its elements are all of
    one class (:func:`_plain_class_parser`)."""
    beginning = text[:50].lower()
    if "html" not in beginning:
        return _load_html(text)
    data = text.encode("utf-8", "surrogatepass")
    repaired = False
    if len(data.translate(None, _CONTROL_BYTES)) != len(data) or any(n in text for n in _NONCHARS):
        text = INVALID_XML_CHARS.sub("", text)
        repaired = True
    if "doctype" in beginning:
        first, _nl, rest = text.partition("\n")
        text = DOCTYPE_TAG.sub("", first, count=1) + "\n" + rest
        repaired = True
    for line in text[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            text = FAULTY_HTML.sub(r"\1>", text, count=1)
            repaired = True
            break
    if repaired:
        data = text.encode("utf-8", "surrogatepass")
    try:
        tree = html.fromstring(data, parser=_PARSER)
    except (etree.ParserError, ValueError):
        return _load_html(text)
    return tree if len(tree) >= 1 else _load_html(text)


def _plain_class_parser() -> Any:
    """trafilatura's parser (its settings), its elements all of lxml.html's one element
    class, chosen in C: lxml.html's own parser asks a Python method for every element
    object it makes (to make ``<form>``, ``<input>``, ``<select>`` special classes that
    nothing here uses), and every pass over the tree -- ours, trafilatura's, htmldate's --
    makes thousands (a twentieth of the extraction's time). The same tree, the same
    methods."""
    parser = HTML_PARSER.copy()
    parser.set_element_class_lookup(
        etree.ElementDefaultClassLookup(
            element=html.HtmlElement,
            comment=html.HtmlComment,
            pi=html.HtmlProcessingInstruction,
            entity=html.HtmlEntity,
        )
    )
    return parser


#: The parser :func:`parse_html` uses (and trees made for trafilatura are made with).
_PARSER = _plain_class_parser()


def _load_html(text: str) -> Any:
    """trafilatura's loader (its repairs, its parse from a ``str``, its checks)."""
    try:
        return load_html(text)
    except (etree.ParserError, ValueError):
        return None


#: Blocks that are never the article: readers' comments, footers, related-news boxes.
_PRUNE_WORDS = re.compile(
    r"[ _-](comments?|comment-list|commentlist|footer|foot|related|relate|recommend|"
    r"hot-?news|rank|share|sharebox)[ _-]",
    re.I,
)


def _prune(tree: Any) -> None:
    # (A compiled regular expression over the elements: an XPath with re:test calls back
    # into Python for every element, several times slower.)
    found = [
        el
        for el in tree.iter("div", "section", "ul", "aside")
        if _PRUNE_WORDS.search(f" {el.get('id', '')} {el.get('class', '')} ")
    ]
    for el in found:
        if el.getparent() is not None and el.tag != "body":
            el.drop_tree()


#: Elements trafilatura deletes (with their content, keeping the text after them) before it
#: looks for the text: gone from the container's copy first, its passes walk less.
_NEVER_TEXT = (
    "script",
    "style",
    "noscript",
    "svg",
    "iframe",
    "embed",
    "object",
    "canvas",
    "video",
    "audio",
    "picture",
    "map",
    "applet",
    "button",
    "select",
    "option",
    "input",
    "textarea",
    "link",
    "source",
    "track",
    "use",
)


def strip_never_text(tree: Any) -> None:
    """``tree`` without the elements trafilatura deletes before it looks for text (their
    text after them is kept)."""
    etree.strip_elements(tree, *_NEVER_TEXT, with_tail=False)


def trafilatura_lines(
    tree: Any, url: str, headline: str, *, fast: bool, scope: Any = None
) -> list[str]:
    """trafilatura's main text of ``tree`` (pruned of comment and related-news blocks first:
    the tree is changed), cleaned up. With ``scope`` (an element of ``tree``, see
    :func:`main_container`), trafilatura sees a copy of that element alone, in a document
    of its own, and ``tree`` is left as it is; there it runs with its precision setting
    (linked promotion lines and headings between the paragraphs left out): the container
    already holds the page's paragraphs, so what precision loses is little."""
    if scope is not None:
        tree = _PARSER.makeelement("html")
        etree.SubElement(tree, "body").append(deepcopy(scope))
        strip_never_text(tree)
    _prune(tree)
    options = copy(_options(fast, scope is not None))
    options.url = url
    options.source = url
    out = trafilatura.extract(tree, options=options)
    return clean_lines(out or "", headline)


@functools.cache
def _options(fast: bool, precision: bool) -> Extractor:
    """trafilatura's settings for our calls, made once (each reads its configuration file's
    values anew, a quarter of a millisecond); each call takes a copy with its page's URL."""
    return Extractor(
        output_format="txt",
        fast=fast,
        precision=precision,
        comments=False,
        tables=True,
        with_metadata=False,
    )


def density_lines(text: str, headline: str) -> list[str]:
    """The text-density rule's main text of the page ``text`` (a fresh parse), cleaned up."""
    tree = parse_html(text)
    if tree is None:
        return []
    return clean_lines("\n".join(_density_text(tree)), headline)


#: Elements whose content is never article text (trafilatura deletes them the same way).
_SKIP_TAGS = frozenset(
    {
        *_NEVER_TEXT,
        "aside",
        "footer",
        "nav",
        "menu",
        "figure",
        "figcaption",
        "header",
        "time",
        "label",
        "fieldset",
        "dialog",
        "head",
        "title",
        "meta",
    }
)
#: Blocks: each starts a line of its own.
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "ul",
        "ol",
        "dl",
        "dd",
        "dt",
        "blockquote",
        "pre",
        "table",
        "tr",
        "td",
        "th",
        "section",
        "article",
        "main",
        "header",
        "br",
        "hr",
        "center",
        "address",
    }
)
#: Class and id words of blocks inside an article container that are not its text: share
#: bars, bylines, tag lists, related stories, newsletter boxes, ads, hidden parts.
_BOILER_ATTR = re.compile(
    r"(^|[\s_-])(share|sharing|social|sociable|viral|newsletter|subscribe|signup|tags?|tag-list|"
    r"byline|author|related|elated|recommend|promo|advert|ads?|ad-\w+|sponsor|comments?|"
    r"sidebar|breadcrumbs?|bread-crumb|nav|navbar|menu|toolbar|hidden|hide|sr-only|"
    r"visually-hidden|screen-reader-text|caption|credit|print-only|noprint|most-popular|"
    r"more-on|next-|read-more|readmore|paywall|premium|cookie|consent|modal|popup|widget|"
    r"embed|embedded|banner|meta|dateline|timestamp|date|footer|header|popular|latest|trending|"
    r"syndication|bio|rating|overlay|bottom|outbrain|taboola|user-info|sign-up|reward|qrcode)"
    r"([\s_-]|$)",
    re.I,
)


def _boiler_el(el: Any) -> bool:
    """Hidden, or named (class, id) as one of the blocks in :data:`_BOILER_ATTR`."""
    attrs = el.attrib
    if not attrs:
        return False
    if attrs.get("aria-hidden") == "true" or attrs.get("hidden") is not None:
        return True
    style = attrs.get("style")
    if style and "display" in style and re.search(r"display:\s*none", style):
        return True
    cls = attrs.get("class", "")
    ident = attrs.get("id", "")
    return bool((cls and _BOILER_ATTR.search(cls)) or (ident and _BOILER_ATTR.search(ident)))


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Link lines an article's container may have and still be read directly.
_MAX_LINK_LINES = 3


def plain_container_lines(scope: Any, doubts: list[str] | None = None) -> list[str] | None:
    """The text of the article container ``scope`` as lines, read in one walk, when the
    container is plain enough: blocks start lines, list items get a "- ", and what
    trafilatura would delete anyway is left out (scripts, figures, forms, navigation,
    headers; blocks named as share bars, bylines, ads, related stories, unless they hold
    most of the text; link lines; lists that are mostly links or start every item with a
    link, with the heading before them). None when the container is not plain (``doubts``
    gets the reason): several articles, headings after the text, many link lines left
    outside such lists. Then trafilatura reads it."""
    # A line: (text, starts with a link, is a link line, its block: "h" heading, "p" paragraph)
    lines: list[tuple[str, bool, bool, str]] = []
    buf: list[str] = []
    st: dict[str, Any] = {"link": 0, "first": None}
    reasons = doubts if doubts is not None else []
    limit = 0.5 * len(string_value(scope))

    def add(text: str, in_link: bool) -> None:
        if in_link:
            st["link"] += len(text)
        if st["first"] is None and text.strip():
            st["first"] = in_link
        buf.append(text)

    def flush(in_li: bool, kind: str = "") -> None:
        if buf:
            t = " ".join("".join(buf).split())
            # a one-word item is a label, not text (a Chinese title has no spaces: its
            # characters are its words)
            if t and not (in_li and units(t) < 2):
                linked = st["link"] >= 0.5 * len(t)
                lines.append(("- " + t if in_li else t, bool(st["first"]), linked, kind))
            buf.clear()
        st["link"] = 0
        st["first"] = None

    def walk(el: Any, in_link: bool, in_li: bool) -> None:
        for child in el:
            tag = child.tag
            if reasons:
                return
            if not isinstance(tag, str) or tag in _SKIP_TAGS:
                pass
            elif (tag == "form" or _boiler_el(child)) and len(string_value(child)) < limit:
                # (A wrapper named "content-bottom", or a page-wide form, holding the
                # article is walked.)
                pass
            else:
                block = tag in _BLOCK_TAGS
                start = 0
                if block:
                    flush(in_li)
                    start = len(lines)
                    if tag == "article" and lines:
                        reasons.append("several articles")
                        return
                is_a = tag == "a"
                if child.text:
                    add(child.text, in_link or is_a)
                walk(child, in_link or is_a, in_li or tag == "li")
                if block:
                    kind = "h" if tag in _HEADINGS and tag != "h1" else "p" if tag == "p" else ""
                    flush(in_li or tag == "li", kind)
                    if tag in _LIST_BLOCKS and len(lines) - start >= 3:
                        mine = lines[start:]
                        if (
                            sum(x[1] or x[2] for x in mine) >= 0.5 * len(mine)
                            and sum(len(x[0]) for x in mine) < limit
                        ):
                            del lines[start:]  # a list of stories
                            if lines and _heading_like(lines[-1][0]):
                                del lines[-1]
            if child.tail:
                add(child.tail, in_link)

    if scope.text:
        add(scope.text, False)
    try:
        walk(scope, False, False)
    except RecursionError:
        reasons.append("elements nested too deep to walk")
        return None
    flush(False)
    last_p = max((i for i, x in enumerate(lines) if x[3] == "p"), default=-1)
    if any(x[3] == "h" for x in lines[last_p + 1 :]):
        reasons.append("heading after the text")
    link_lines = [x[0] for x in lines if x[2]]
    if len(link_lines) >= _MAX_LINK_LINES:
        reasons.append(f"link lines: {link_lines[0][:40]}")
    return None if reasons else [x[0] for x in lines if not x[2]]


_LIST_BLOCKS = frozenset({"div", "ul", "ol", "section", "table", "dl"})


def _heading_like(line: str) -> bool:
    """A short line without sentence punctuation: a section heading ("Related Articles")."""
    return units(line) <= 8 and not _SENTENCE_END.search(line)
