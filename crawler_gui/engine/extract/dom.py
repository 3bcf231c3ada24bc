"""One parse of a page (lexbor, through selectolax) and one walk over its ``<body>``: what the
extractor's rules then read, as plain Python lists.

* The page's **text blocks** in document order (:class:`Block`): the runs of text between
  block-level boundaries (a ``<p>``, a ``<div>``, a list item, a table cell, a ``<br>``), each
  with its characters, how many of them are link text, and the element that holds it.
* The page's **elements** (the ones the walk entered), as parallel lists: tag, parent, the
  words of their ``class`` and ``id``, and flags for what they are and what they are inside
  (navigation, a footer, a block named as comments or a share bar, hidden, a figure...).
* What the markup says before the walk: ``<meta>`` tags, JSON-LD, ``<title>``, the canonical
  link, ``<html lang>``, the scripts' text (dates in script state), ``<noscript>`` notices,
  ``<time>`` and ``itemprop`` dates.

Scripts, styles, forms' controls, media and SVG are never walked (their content is never
text a reader sees). The walk is a loop, not a recursion: a page nested ten thousand
elements deep costs its length, never the interpreter's stack.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = [
    "BOILER",
    "COMMENTS",
    "CONTENT",
    "FIGURE",
    "HEADER",
    "HIDDEN",
    "INLINE_TAGS",
    "NAVIGATION",
    "Block",
    "PageDom",
    "parse_page",
]

#: Elements whose text runs on in the line of their parent.
INLINE_TAGS = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "b",
        "bdi",
        "bdo",
        "big",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "img",
        "ins",
        "kbd",
        "label",
        "mark",
        "nobr",
        "q",
        "ruby",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    ]
)
#: Inline elements that, when nothing in their attributes says anything, are read as part
#: of their parent.
_PLAIN_INLINE = INLINE_TAGS - {"a", "time", "img"}
#: Elements that hold nothing (no text, no element).
_EMPTY_TAGS = frozenset({"img", "wbr", "col", "param", "area", "source", "track", "input"})
#: Elements never walked: their content is never text a reader sees in the page. (A
#: ``<noscript>`` is walked: the parser reads its content as elements, and some sites -- a
#: blog platform's pages -- give their whole text only there.)
SKIP_TAGS = frozenset(
    [
        "script",
        "style",
        "template",
        "svg",
        "math",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "canvas",
        "video",
        "audio",
        "picture",
        "source",
        "track",
        "map",
        "area",
        "select",
        "option",
        "optgroup",
        "button",
        "input",
        "textarea",
        "datalist",
        "output",
        "progress",
        "meter",
        "head",
        "title",
        "meta",
        "link",
        "base",
        "dialog",
        "rt",
        "rp",
    ]
)

# Element flags (own, and inherited by everything inside: see PageDom.within).
#: ``<nav>``, ``<menu>``, ``role=navigation``, or named as a menu or breadcrumb.
NAVIGATION = 1
#: ``<footer>``, or named as a page's footer.
FOOTER = 2
#: ``<aside>`` or ``role=complementary``.
ASIDE = 4
#: Named as comments (``comment``, ``disqus``, ``respond``).
COMMENTS = 8
#: Named as something that is not the article's text: share bars, related stories, ads,
#: newsletters, tags, bylines, author boxes (see :data:`_BOILER_NAME`).
BOILER = 16
#: Named as the article's content (``article-body``, ``entry-content``, ``story``...).
CONTENT = 32
#: ``hidden``, ``aria-hidden=true``, ``display: none``.
HIDDEN = 64
#: ``<figure>``, ``<figcaption>``, or named as a caption or a picture's credit.
FIGURE = 128
#: ``<header>``.
HEADER = 256
#: ``<form>``.
FORM = 512
#: ``<article>``, ``role=article``, ``itemprop=articleBody``.
ARTICLE = 1024
#: ``<li>``, ``<dt>``, ``<dd>``.
ITEM = 2048
#: ``<table>``.
TABLE = 4096
#: ``<main>`` or ``role=main``.
MAIN = 8192

_TAG_FLAGS = {
    "nav": NAVIGATION,
    "menu": NAVIGATION,
    "footer": FOOTER,
    "aside": ASIDE,
    "figure": FIGURE,
    "figcaption": FIGURE,
    "header": HEADER,
    "form": FORM,
    "article": ARTICLE,
    "li": ITEM,
    "dt": ITEM,
    "dd": ITEM,
    "table": TABLE,
    "main": MAIN,
}
_ROLE_FLAGS = {
    "navigation": NAVIGATION,
    "menu": NAVIGATION,
    "menubar": NAVIGATION,
    "contentinfo": FOOTER,
    "complementary": ASIDE,
    "article": ARTICLE,
    "main": MAIN,
    "banner": HEADER,
    "dialog": BOILER,
    "alert": BOILER,
}

# Class and id names: each class (and the id) is a token; a BEM modifier (``--hidden``)
# says what state a block is in, not what it is, and is left out; the rest is cut into its
# parts at ``-`` and ``_``.
#: Parts that name navigation.
_NAV_PARTS = frozenset(
    [
        "nav",
        "navbar",
        "navigation",
        "navi",
        "menu",
        "menubar",
        "mainmenu",
        "submenu",
        "megamenu",
        "breadcrumb",
        "breadcrumbs",
        "crumbs",
        "pagination",
        "pager",
        "paging",
        "skiplink",
        "skiplinks",
        "sitemap",
        "topbar",
        "subnav",
    ]
)
_FOOTER_PARTS = frozenset(("footer", "foot", "sitefooter", "pagefooter", "colophon"))
_COMMENT_PARTS = frozenset(
    [
        "comment",
        "comments",
        "commentlist",
        "commentary-list",
        "disqus",
        "respond",
        "replies",
        "discussion",
        "talkback",
        "kommentar",
        "kommentare",
        "leserkommentare",
        "commentaire",
        "commentaires",
        "comentario",
        "comentarios",
        "commenti",
        "reacties",
    ]
)
#: Parts that name blocks near or in an article that are not its text. (Not the names
#: that sites give their article's parts as often as their boilerplate: "teaser" is a
#: lead paragraph as often as a list of other stories, "gallery", "slider", "paywall",
#: "banner", "meta" wrap articles too.)
_BOILER_PARTS = frozenset(
    [
        "share",
        "shares",
        "sharing",
        "sharebar",
        "sharetools",
        "shareaholic",
        "social",
        "socials",
        "sociable",
        "newsletter",
        "newsletters",
        "subscribe",
        "subscription",
        "signup",
        "related",
        "relatedposts",
        "recommended",
        "recommendations",
        "recommend",
        "recirculation",
        "outbrain",
        "taboola",
        "plista",
        "ligatus",
        "readmore",
        "readalso",
        "seealso",
        "mostread",
        "mostpopular",
        "trending",
        "promo",
        "advert",
        "advertisement",
        "advertising",
        "adsense",
        "adslot",
        "adunit",
        "ads",
        "sponsor",
        "sponsored",
        "cookie",
        "cookies",
        "consent",
        "gdpr",
        "modal",
        "popup",
        "lightbox",
        "toolbar",
        "noprint",
        "byline",
        "authorbox",
        "authorbio",
        "author",
        "authors",
        "autor",
        "autorin",
        "postmeta",
        "entrymeta",
        "articlemeta",
        "dateline",
        "tags",
        "tagcloud",
        "taglist",
        "caption",
        "captions",
        "credit",
        "credits",
        "disclaimer",
        "disclosure",
        "rating",
        "ratings",
        "legend",
        "authorinfo",
        "aboutauthor",
        "bio",
        "factbox",
        "donate",
        "donation",
        "reward",
        "qrcode",
    ]
)
#: Parts that name a sidebar.
_SIDE_PARTS = frozenset(
    ("sidebar", "sidebars", "rail", "siderail", "rightrail", "leftrail", "aside")
)
#: Whole classes that hide a block (not ``hidden-xs``: hidden on small screens only).
_HIDDEN_CLASSES = frozenset(
    [
        "hidden",
        "hide",
        "is-hidden",
        "sr-only",
        "visually-hidden",
        "visuallyhidden",
        "screen-reader-text",
        "screenreader-only",
        "element-invisible",
        "offscreen",
        "u-hidden",
        "js-hidden",
    ]
)
#: Parts that name the article's content.
_CONTENT_PARTS = frozenset(
    [
        "story",
        "article",
        "entry",
        "post",
        "text",
        "content",
        "articulo",
        "artikel",
        "contenido",
        "contenu",
        "testo",
    ]
)


def _word_flags() -> dict[str, int]:
    out: dict[str, int] = {}
    for words, flag in (
        (_COMMENT_PARTS, COMMENTS),
        (_NAV_PARTS, NAVIGATION),
        (_FOOTER_PARTS, FOOTER),
        (_BOILER_PARTS, BOILER),
        (_SIDE_PARTS, ASIDE),
        (_CONTENT_PARTS, CONTENT),
    ):
        for w in words:
            out[w] = out.get(w, 0) | flag
    return out


#: Each part's flags.
_WORD_FLAGS = _word_flags()
#: Classes that say a state ("with-navigation", "has-comments") or what a post is filed
#: under (a blog platform's "category-social-media", "tag-comments"), not what the block
#: is.
_STATE_PREFIXES = (
    "with-",
    "has-",
    "no-",
    "without-",
    "show-",
    "enable-",
    "disable-",
    "category-",
    "tag-",
    "cat-",
    "term-",
    "taxonomy-",
    "format-",
    "status-",
    "type-",
    "topic-",
    "section-",
    "channel-",
)
_DISPLAY_NONE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")


@dataclass(slots=True)
class Block:
    """A run of text between block-level boundaries."""

    #: Its text, whitespace runs made single spaces (a ``<br>`` inside it: a newline).
    text: str
    #: ``len(text)``.
    chars: int
    #: Characters of it inside links.
    link_chars: int
    #: The element that holds it (an index into :class:`PageDom`'s lists).
    el: int
    #: The tag of that element.
    tag: str
    #: Characters of the link the block starts with (0: it starts outside a link).
    lead_link: int = 0


@dataclass(slots=True)
class PageDom:
    """A page as the walk saw it (see the module's docstring)."""

    blocks: list[Block] = field(default_factory=list)
    #: Per element: tag, parent index (-1 for ``<body>``), own flags, flags of itself and
    #: its ancestors (once :func:`~.content.main_text` has read the page: without the flags
    #: of a wrapper that holds most of the page's prose, a ``<div class="content-sidebar">``
    #: around the article and its sidebar), lower-cased class and id words.
    tags: list[str] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    own: list[int] = field(default_factory=list)
    within: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    #: Text of each link (``<a>``) of the body, whitespace made single.
    link_texts: list[str] = field(default_factory=list)
    #: The links without text (around a picture, a card's invisible overlay): their
    #: element indexes.
    empty_links: list[int] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    json_ld: list[dict[str, Any]] = field(default_factory=list)
    raw_title: str = ""
    canonical: str | None = None
    lang: str = ""
    amp: bool = False
    #: The text of every script (dates in script state), without JSON-LD.
    scripts: list[str] = field(default_factory=list)
    script_srcs: int = 0
    noscript: str = ""
    #: ``(datetime attribute, text, element index or -1)`` of ``<time>`` elements and of
    #: elements with ``itemprop=datePublished``/``dateCreated``/``dateModified``.
    times: list[tuple[str, str, str, int]] = field(default_factory=list)
    #: Elements of the body that are app roots (``#app``, ``#root``...) and whether empty.
    app_roots: list[bool] = field(default_factory=list)
    #: Characters of visible text in the body.
    visible_chars: int = 0
    #: Texts of ``rel=author`` and ``itemprop=author`` elements.
    author_names: list[str] = field(default_factory=list)

    #: Per element: the index after its last descendant (its subtree is ``[el, end)``:
    #: elements are numbered in document order), and the range of the blocks inside it
    #: (``blocks[lo:hi]``; ``lo == hi`` when it holds none).
    end: list[int] = field(default_factory=list)
    lo: list[int] = field(default_factory=list)
    hi: list[int] = field(default_factory=list)

    def finish(self) -> None:
        """Number the subtrees and the blocks they hold (after the walk)."""
        n = len(self.tags)
        parents = self.parents
        end = list(range(1, n + 1))
        lo = [len(self.blocks)] * n
        hi = [0] * n
        for i, b in enumerate(self.blocks):
            el = b.el
            if i < lo[el]:  # noqa: PLR1730 - (an if costs less than a call, per block)
                lo[el] = i
            hi[el] = i + 1
        for el in range(n - 1, 0, -1):
            p = parents[el]
            if end[el] > end[p]:  # noqa: PLR1730 - (an if costs less than a call)
                end[p] = end[el]
            if lo[el] < lo[p]:  # noqa: PLR1730
                lo[p] = lo[el]
            if hi[el] > hi[p]:  # noqa: PLR1730
                hi[p] = hi[el]
        for el in range(n):
            if hi[el] == 0:
                lo[el] = hi[el] = 0
        self.end, self.lo, self.hi = end, lo, hi

    def ancestors(self, el: int) -> list[int]:
        out = []
        while el >= 0:
            out.append(el)
            el = self.parents[el]
        return out

    def blocks_in(self, el: int) -> list[Block]:
        return self.blocks[self.lo[el] : self.hi[el]]

    def is_inside(self, el: int, anc: int) -> bool:
        """Whether element ``el`` is ``anc`` or inside it."""
        return anc <= el < self.end[anc]


#: Flags of the class/id names met (names repeat: a page's menu items, its paragraphs).
_NAME_FLAGS: dict[str, int] = {}


def _name_flags(names: str) -> int:
    flags = _NAME_FLAGS.get(names)
    if flags is not None:
        return flags
    flags = _compute_name_flags(names)
    if len(_NAME_FLAGS) > 50_000:
        _NAME_FLAGS.clear()
    _NAME_FLAGS[names] = flags
    return flags


def _compute_name_flags(names: str) -> int:
    flags = 0
    known = _TOKEN_FLAGS
    for name in names.split():
        found = known.get(name)
        if found is None:
            found = _token_flags(name)
            if len(known) > 100_000:
                known.clear()
            known[name] = found
        flags |= found
    return flags


#: Flags of the class tokens met (a page's names are new combinations of a few tokens).
_TOKEN_FLAGS: dict[str, int] = {}


def _token_flags(name: str) -> int:
    """The flags one class (or the id) gives."""
    if name in _HIDDEN_CLASSES:
        return HIDDEN
    if name.startswith(_STATE_PREFIXES):
        return 0  # a state ("with-navigation", "has-comments"), not what the block is
    token = name.split("--", 1)[0] if "--" in name else name
    words = _WORD_FLAGS
    found = words.get(token)
    if found is None:
        found = 0
        if "-" in token or "_" in token:
            plain = token.replace("_", "-")
            for part in plain.split("-"):
                found |= words.get(part, 0)
            # (Joined parts too: "read-more" is "readmore", "author-box" "authorbox".)
            found |= words.get(plain.replace("-", ""), 0)
    if found & FOOTER and found & CONTENT:
        found &= ~FOOTER  # "entry-footer", "post-footer": the article's own footer
    return found


def _read_head(tree: LexborHTMLParser, page: PageDom) -> None:
    for m in tree.css("meta"):
        attrs = m.attributes
        key = (attrs.get("property") or attrs.get("name") or attrs.get("itemprop") or "").strip()
        key = key.lower()
        content = attrs.get("content")
        if not content and attrs.get("datetime"):
            content = attrs.get("datetime")
        if key and content and key not in page.meta:
            page.meta[key] = content.strip()
        equiv = (attrs.get("http-equiv") or "").lower()
        if equiv == "content-language" and content and "content-language" not in page.meta:
            page.meta["content-language"] = content.strip()
    title = tree.css_first("title")
    if title is not None:
        page.raw_title = " ".join((title.text() or "").split())
    for link in tree.css("link"):
        attrs = link.attributes
        rel = (attrs.get("rel") or "").lower().split()
        href = (attrs.get("href") or "").strip()
        if "canonical" in rel and href and page.canonical is None:
            page.canonical = href
    html = tree.css_first("html")
    if html is not None:
        attrs = html.attributes
        page.lang = (attrs.get("lang") or attrs.get("xml:lang") or "").strip()
        page.amp = "amp" in attrs or "⚡" in attrs
    for s in tree.css("script"):
        attrs = s.attributes
        kind = (attrs.get("type") or "").lower()
        text = s.text() or ""
        if kind == "application/ld+json":
            _add_json_ld(text, page.json_ld)
        elif attrs.get("src"):
            page.script_srcs += 1
        elif text and (not kind or "javascript" in kind or kind == "module"):
            page.scripts.append(text)
    page.noscript = " ".join(" ".join((n.text() or "").split()) for n in tree.css("noscript"))


def _add_json_ld(text: str, out: list[dict[str, Any]]) -> None:
    try:
        data = json.loads(text)
    except ValueError:
        # (Some sites leave a trailing comma or a control character: try once without.)
        try:
            data = json.loads(re.sub(r"[\x00-\x1f]", " ", text).replace(",}", "}"))
        except ValueError:
            return
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            if "@graph" in item:
                stack.append(item["@graph"])
            out.append(item)


def parse_page(text: str) -> PageDom | None:
    """Parse ``text`` (an HTML page) and walk it; None when it has no ``<body>``."""
    tree = LexborHTMLParser(text)
    page = PageDom()
    _read_head(tree, page)
    body = tree.body
    if body is None:
        return None
    # (Cut away in C what is never walked: lexbor's iterator would go through it.)
    tree.strip_tags(_STRIPPED)
    folded = _fold_page_parts(body)
    _walk(body, page, folded)
    page.finish()
    return page


#: The page's navigation, footers and asides: never its text, a third of its nodes.
_PAGE_PARTS = (
    "nav, footer, aside, [role=navigation], [role=contentinfo], [role=complementary], menu"
)


def _unfold(text: str, folded: list[_Folded]) -> _Folded | None:
    """The page part a marker text names (``"\\x00<n>\\x00"``), or None."""
    if len(text) < 3 or text[-1] != "\x00" or not text[1:-1].isdigit():
        return None
    n = int(text[1:-1])
    return folded[n] if n < len(folded) else None


@dataclass(slots=True)
class _Folded:
    """A page part read in one piece (:func:`_fold_page_parts`)."""

    tag: str
    names: str
    lines: list[str]
    link_share: float
    link_texts: list[str]


def _fold_page_parts(body: LexborNode) -> list[_Folded]:
    """The page's navigation, footers and asides (not an article's own footer or aside)
    read in C, each as its lines and its links' texts, and left in the tree as a marker
    text the walk reads back: what the rules need of them -- their text counts against
    the container, a footer's date is a last resort -- without a Python step for each of
    their nodes."""
    found = body.css(_PAGE_PARTS)
    if not found:
        return []
    ids = {n.mem_id for n in found}
    outer = []
    for node in found:
        up = node.parent
        keep = True
        while up is not None and up.tag != "body":
            if up.mem_id in ids or up.tag == "article":
                keep = False  # (inside another part, or an article's own)
                break
            up = up.parent
        if keep:
            outer.append(node)
    folded: list[_Folded] = []
    for node in outer:
        attrs = node.attributes
        raw = node.text(deep=True, separator="\n") or ""
        lines = [y for y in (" ".join(x.split()) for x in raw.split("\n")) if y]
        chars = sum(len(x) for x in lines)
        texts = [" ".join((a.text(deep=True) or "").split()) for a in node.css("a")]
        linked = sum(len(t) for t in texts)
        names = " ".join(x for x in (attrs.get("class"), attrs.get("id")) if x).lower()
        folded.append(
            _Folded(
                node.tag or "nav",
                names,
                lines,
                min(1.0, linked / chars) if chars else 0.0,
                [t for t in texts if t],
            )
        )
        node.replace_with(f"\x00{len(folded) - 1}\x00")
    return folded


#: Cut away in C before the walk: the elements whose content is large and common (each tag
#: cut costs a pass of lexbor's over the tree: the rare ones are skipped by the walk).
_STRIPPED = ["script", "style", "svg", "template", "select", "iframe"]
#: RDFa properties (after their prefix) of a page's times, as the ``itemprop`` they mean.
_RDFA_TIMES = {
    "datepublished": "datepublished",
    "datecreated": "datecreated",
    "datemodified": "datemodified",
    "created": "datecreated",
    "issued": "datepublished",
    "date": "datecreated",
    "modified": "datemodified",
}
_TIME_PROPS = frozenset({"datepublished", "datecreated", "datemodified", "dateupdated"})
_APP_IDS = frozenset({"app", "root", "__next", "__nuxt", "app-root"})


def _other_attributes(
    node: LexborNode, attrs: dict[str, str | None], idx: int, tag: str, page: PageDom
) -> int:
    """What an element's attributes other than its class and id say: its role, that it is
    hidden, a date's or the article body's ``itemprop`` (or RDFa ``property``), an author;
    the flags they give."""
    flags = 0
    role = attrs.get("role")
    if role:
        flags |= _ROLE_FLAGS.get(role.lower(), 0)
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        flags |= HIDDEN
    style = attrs.get("style")
    if style and ("none" in style or "hidden" in style) and _DISPLAY_NONE.search(style):
        flags |= HIDDEN
    prop = attrs.get("itemprop")
    if not prop and "property" in attrs:
        # RDFa: property="schema:datePublished", "dc:date"
        rdfa = attrs.get("property") or ""
        prop = _RDFA_TIMES.get(rdfa.lower().rsplit(":", 1)[-1] if ":" in rdfa else "")
    if prop:
        prop = prop.lower()
        if prop == "articlebody":
            flags |= ARTICLE | CONTENT
        elif prop in _TIME_PROPS:
            value = attrs.get("datetime") or attrs.get("content") or ""
            page.times.append((prop, value, node.text() or "", idx))
    if attrs.get("rel") == "author" or prop == "author":
        name = " ".join((node.text() or "").split())
        if name:
            page.author_names.append(name)
    return flags


def _walk(body: LexborNode, page: PageDom, folded: list[_Folded]) -> None:
    """One pass over the body's nodes in document order (lexbor's own iterator): each
    element is numbered and its parent found by the parent's identity; a text node belongs
    to the innermost block holding it, and a line ends where a block starts or where the
    text's block changes (the block it was in has ended)."""
    blocks = page.blocks
    tags = page.tags
    parents = page.parents
    own = page.own
    within = page.within
    names_l = page.names
    times = page.times
    #: Per element: the innermost block holding it (itself if a block), the innermost link
    #: holding it (itself if a link) or -1.
    block_of: list[int] = [0]
    link_of: list[int] = [-1]
    index: dict[int, int] = {body.mem_id: 0}
    link_parts: dict[int, list[str]] = {}

    tags.append("body")
    parents.append(-1)
    battrs = body.attributes
    names_l.append(" ".join(x for x in (battrs.get("class"), battrs.get("id")) if x).lower())
    # (A body named "single-post" or "page-article" says what the page is, not that
    # everything in it is boilerplate or content.)
    own.append(0)
    within.append(0)

    line: list[str] = []
    line_block = 0
    n_link = 0  # raw characters of the line inside links
    n_all = 0
    visible = 0

    lead = [0, -1]  # [raw characters of the link the line starts with, that link or -2: closed]

    def flush() -> None:
        raw = "".join(line)
        line.clear()
        lead_n = lead[0]
        lead[0], lead[1] = 0, -1
        if "\n" in raw:
            text = "\n".join(y for y in (" ".join(x.split()) for x in raw.split("\n")) if y)
        else:
            text = " ".join(raw.split())
        if text:
            chars = len(text)
            links = min(chars, round(n_link * chars / n_all)) if n_all else 0
            first = min(links, round(lead_n * chars / n_all)) if n_all and lead_n else 0
            blocks.append(Block(text, chars, links, line_block, tags[line_block], first))

    for node in body.traverse(include_text=True):
        tag = node.tag
        if tag == "-text":
            t = node.text_content
            if not t:
                continue
            if t.isspace():
                # (Half a page's text nodes: the space between two tags. It separates
                # words on the current line, and a line's ends are trimmed anyway.)
                if line:
                    line.append(" ")
                continue
            up = node.parent
            parent = index.get(up.mem_id) if up is not None else None
            if parent is None:
                continue  # inside an element not walked
            if t[0] == "\x00" and folded:
                part = _unfold(t, folded)
                if part is not None:
                    # A page part read in one piece: an element of its own, its lines.
                    if line:
                        flush()
                        n_link = n_all = 0
                    idx = len(tags)
                    tags.append(part.tag)
                    parents.append(parent)
                    flags = _TAG_FLAGS.get(part.tag, NAVIGATION)
                    if part.names:
                        flags |= _name_flags(part.names)
                    own.append(flags)
                    within.append(flags | within[parent])
                    names_l.append(part.names)
                    block_of.append(idx)
                    link_of.append(-1)
                    for x in part.lines:
                        n = len(x)
                        visible += n
                        blocks.append(Block(x, n, round(n * part.link_share), idx, part.tag))
                    page.link_texts.extend(part.link_texts)
                    line_block = idx
                    continue
            blk = block_of[parent]
            if blk != line_block:
                if line:
                    flush()
                    n_link = n_all = 0
                line_block = blk
            lnk = link_of[parent]
            if not line:
                lead[1] = lnk if lnk >= 0 else -2
            line.append(t)
            n = len(t)
            n_all += n
            visible += n
            if lead[1] >= 0:
                if lnk == lead[1]:
                    lead[0] += n
                else:
                    lead[1] = -2
            if lnk >= 0:
                n_link += n
                link_parts[lnk].append(t)
            continue
        if tag is None or tag[0] in "-_!" or tag in _EMPTY_TAGS:
            continue  # (a picture, an input: no text, nothing inside)
        up = node.parent
        parent = index.get(up.mem_id) if up is not None else None
        if parent is None:
            continue  # inside an element not walked
        if tag in SKIP_TAGS:
            continue
        if tag in ("br", "hr"):
            if line and block_of[parent] == line_block:
                line.append("\n")
            continue
        attrs = node.attributes
        if tag in _PLAIN_INLINE and (
            not attrs
            or (
                len(attrs) == ("class" in attrs) + ("id" in attrs)
                and not _name_flags(
                    " ".join(x for x in (attrs.get("class"), attrs.get("id")) if x).lower()
                )
            )
        ):
            # A <b>, <span>, <em> whose names say nothing (or that has none) is read as part
            # of its parent: its text is its parent's line, nothing to number.
            index[node.mem_id] = parent
            continue
        idx = len(tags)
        index[node.mem_id] = idx
        tags.append(tag)
        parents.append(parent)
        flags = _TAG_FLAGS.get(tag, 0)
        if not attrs and "-" in tag:
            attrs = {"class": ""}  # (a custom element's name is read as a name below)
        if flags & FOOTER and within[parent] & ARTICLE:
            flags &= ~FOOTER  # an article's own footer (its date, its author), not the page's
        names = ""
        if attrs:
            cls = attrs.get("class")
            ident = attrs.get("id")
            if cls:
                names = (cls + " " + ident if ident else cls).lower()
            elif ident:
                names = ident.lower()
            if "-" in tag:
                names = f"{tag} {names}" if names else tag  # a custom element's name says too
            if names:
                flags |= _name_flags(names)
                if flags & FOOTER and within[parent] & ARTICLE:
                    flags &= ~FOOTER
            # (Most elements have a class, an id, or both, and nothing else: the other
            # attributes are looked for only when there are more.)
            if len(attrs) > (cls is not None) + (ident is not None):
                flags |= _other_attributes(node, attrs, idx, tag, page)
            if ident and ident.lower() in _APP_IDS:
                page.app_roots.append(not (node.text() or "").strip())
        if tag == "time":
            times.append(("time", (attrs or {}).get("datetime") or "", node.text() or "", idx))
        own.append(flags)
        within.append(flags | within[parent])
        names_l.append(names)
        if tag in INLINE_TAGS:
            block_of.append(block_of[parent])
        else:
            block_of.append(idx)
            if line:
                flush()
                n_link = n_all = 0
            line_block = idx
        if tag == "a":
            link_of.append(idx)
            link_parts[idx] = []
        else:
            link_of.append(link_of[parent])
    if line:
        flush()
    page.visible_chars = visible
    texts = page.link_texts
    empty = page.empty_links
    for idx, parts in link_parts.items():
        text = " ".join("".join(parts).split())
        if text:
            texts.append(text)
        else:
            empty.append(idx)
