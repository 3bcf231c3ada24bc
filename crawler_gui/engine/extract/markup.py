"""What a page's markup says of it (:class:`~.dom.PageDom`'s head, JSON-LD, ``itemprop`` and
``<time>`` elements, script state): machine-readable publication and update times, authors,
language, whether it is marked up as an article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from crawler_gui.engine.extract.dates import Stamp, parse_machine_date
from crawler_gui.engine.extract.dom import PageDom
from crawler_gui.engine.extract.textutil import cjk_share

__all__ = [
    "ARTICLE_TYPES",
    "Said",
    "authors",
    "is_marked_article",
    "language",
    "ld_types",
    "machine_dates",
    "script_date",
]

ARTICLE_TYPES = frozenset(
    {
        "article",
        "newsarticle",
        "blogposting",
        "reportagenewsarticle",
        "report",
        "analysisnewsarticle",
        "opinionnewsarticle",
        "reviewnewsarticle",
        "backgroundnewsarticle",
        "techarticle",
        "scholarlyarticle",
        "liveblogposting",
        "socialmediaposting",
        "posting",
        "liveblog",
    }
)
#: Meta names and properties of a page's publication time, best first: Open Graph and its
#: relatives, Dublin Core, the names of news platforms and analytics, and the Chinese
#: portals' own (``publishdate``, ``firstpublishedtime``, ``ptime``).
_META_PUBLISHED = (
    "article:published_time",
    "og:article:published_time",
    "article:published",
    "og:published_time",
    "datepublished",
    "article.published",
    "article:publicationdate",
    "article_date_original",
    "article:post_date",
    "og:pubdate",
    "pubdate",
    "publishdate",
    "publish_date",
    "publish-date",
    "published_date",
    "published-date",
    "publication_date",
    "published_time",
    "publish_time",
    "publishtime",
    "firstpublishedtime",
    "first_published",
    "dc.date.issued",
    "dc.date.created",
    "dc.date.publication",
    "dcterms.issued",
    "dcterms.created",
    "dcterms.date",
    "dc.created",
    "dc.date",
    "dc:date",
    "dc:created",
    "citation_publication_date",
    "citation_date",
    "citation_online_date",
    "sailthru.date",
    "parsely-pub-date",
    "cxenseparse:recs:publishtime",
    "dcsext.articlefirstpublished",
    "originalpublicationdate",
    "og:release_date",
    "release_date",
    "rnews:datepublished",
    "article:created",
    "article.created",
    "date_published",
    "datecreated",
    "date_created",
    "content_create_date",
    "created",
    "createdate",
    "date",
    "ptime",
    "pdate",
    "displaydate",
    "doc_date",
    "weibo:article:create_at",
    "bt:pubdate",
    "shareaholic:article_published_time",
    "twt-published-at",
    "vr:published_time",
    "mediator_published_time",
    # Baidu's pages name the time they show as "发布时间" so.
    "dateupdate",
)
#: Meta names whose date is as often when the page was made or last changed as when it was
#: published.
_META_PERHAPS = frozenset(
    {
        "dc.date",
        "dc:date",
        "dcterms.date",
        "dc.created",
        "dc:created",
        "dc.date.created",
        "dcterms.created",
        "date",
        "created",
        "createdate",
        "datecreated",
        "date_created",
        "content_create_date",
        "article:created",
        "article.created",
        "ptime",
        "pdate",
        "displaydate",
        "doc_date",
        "release_date",
        "og:release_date",
        "dateupdate",
        "citation_date",
    }
)
_META_UPDATED = (
    "article:modified_time",
    "og:article:modified_time",
    "article:modified",
    "og:updated_time",
    "og:modified_time",
    "datemodified",
    "dc.date.modified",
    "dcterms.modified",
    "dc.modified",
    "modified_time",
    "lastmod",
    "last-modified",
    "lastmodified",
    "updated_time",
    "utime",
)
_LD_PUBLISHED = ("datePublished", "dateCreated", "uploadDate", "datepublished")
#: Publication times in a page's script state (``publish_time: '2019-09-08 11:42:03'``,
#: ``var publishdate = '2019-09-26 12:11:01'``), and a WeChat article's Unix time.
_SCRIPT_TIME = re.compile(
    r"""["']?(?:publish(?:ed)?_?(?:time|date|at)|pub_?time|pub_?date|date_?published|"""
    r"""first_?published(?:_?(?:at|time|date))?|first_?publish_?time|ctime|create_?time|"""
    r"""created_?at)["']?\s*[:=]\s*"""
    r"""["'](?P<v>(?:19|20)\d{2}-\d{1,2}-\d{1,2}"""
    r"""(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?[^"']{0,12})["']""",
    re.I,
)
_QUOTED_DATE = re.compile(r"""["'](?:19|20)\d\d-""")
_UNIX_CT = re.compile(r"""\bvar\s+ct\s*=\s*["'](1\d{9})["']""")


def ld_types(item: dict[str, Any]) -> set[str]:
    """The types (``@type``) of a JSON-LD object, lower-cased."""
    t = item.get("@type")
    types = t if isinstance(t, list) else [t]
    return {str(x).lower() for x in types if x}


def is_marked_article(page: PageDom) -> bool:
    """``og:type`` article, or a JSON-LD object of an article type."""
    if page.meta.get("og:type", "").lower() == "article":
        return True
    return any(ld_types(i) & ARTICLE_TYPES for i in page.json_ld)


def _ld_value(item: dict[str, Any], key: str) -> str | None:
    v = item.get(key)
    if isinstance(v, list) and v:
        v = v[0]
    if isinstance(v, dict):
        v = v.get("@value")
    return v if isinstance(v, str) and v.strip() else None


@dataclass(frozen=True, slots=True)
class Said:
    """A publication time the markup gives, where, and whether that place names the
    publication time for sure (an article's JSON-LD, ``article:published_time``,
    ``itemprop=datePublished``) or only perhaps (``<meta name="date">``, Dublin Core's
    date: often when the page was made or last changed)."""

    stamp: Stamp
    source: str
    sure: bool


def machine_dates(page: PageDom) -> tuple[list[Said], Stamp | None]:
    """(the publication times the markup gives, surest first; the update time) from JSON-LD
    (an article's, then any object's), meta tags and ``itemprop`` elements."""
    said: list[Said] = []
    upd: Stamp | None = None
    ld = page.json_ld
    for articles_only in (True, False):
        for item in ld:
            is_article = bool(ld_types(item) & ARTICLE_TYPES)
            if articles_only != is_article:
                continue
            for key in _LD_PUBLISHED:
                v = _ld_value(item, key)
                st = parse_machine_date(v) if v is not None else None
                if st is not None:
                    said.append(Said(st, "structured data", is_article))
                    break
            if upd is None:
                v = _ld_value(item, "dateModified")
                if v is not None:
                    upd = parse_machine_date(v)
    meta = page.meta
    for key in _META_PUBLISHED:
        if key in meta:
            st = parse_machine_date(meta[key])
            if st is not None:
                said.append(Said(st, "meta " + key, key not in _META_PERHAPS))
    for key in _META_UPDATED:
        if upd is None and key in meta:
            upd = parse_machine_date(meta[key])
    for prop, value, text, _el in page.times:
        if prop == "time":
            continue
        st = parse_machine_date(value or text)
        if st is None:
            continue
        if prop in ("datepublished", "datecreated"):
            said.append(Said(st, "itemprop", True))
        elif prop in ("datemodified", "dateupdated") and upd is None:
            upd = st
    said.sort(key=lambda x: not x.sure)  # (stable: the sure ones first, each in its order)
    return said, upd


def script_date(page: PageDom) -> Stamp | None:
    """A publication time in the page's script state (a quoted date after a publication
    key; a WeChat article's creation time)."""
    for text in page.scripts:
        for q in _QUOTED_DATE.finditer(text):
            start = max(0, q.start() - 60)
            m = _SCRIPT_TIME.search(text, start, q.end() + 40)
            if m is not None and m.start("v") == q.start() + 1:
                st = parse_machine_date(m["v"])
                if st is not None:
                    return st
        if "var ct" in text or "var  ct" in text:
            m = _UNIX_CT.search(text)
            if m is not None:
                # WeChat articles: the creation time as a Unix timestamp (the page shows
                # only "前天"); an instant, so its offset is read, not inferred.
                return parse_machine_date(m.group(1))
    return None


_AUTHOR_TEXT = re.compile(
    r"(?:作者|记者|文\s*/|撰文)[：:\s]\s*([\u4e00-\u9fa5·]{2,8}(?:[、，,][\u4e00-\u9fa5·]{2,4}){0,3})"
)
_AUTHOR_SPLIT = re.compile(r"\s*(?:,|;|、|，|\band\b|\bund\b|\bet\b|\by\b|&)\s*")
_BY = re.compile(r"^(by|von|par|por|di|door|av|作者|记者)[:：\s]+", re.I)


def authors(page: PageDom, near: str) -> list[str]:
    """The article's authors: JSON-LD, meta tags, a "作者/记者" label in ``near`` (the text
    after the headline), ``rel``/``itemprop="author"`` names; at most 8."""
    names: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, list):
            for v in value:
                add(v)
            return
        if isinstance(value, dict):
            value = value.get("name")
        if not isinstance(value, str):
            return
        for piece in _AUTHOR_SPLIT.split(value):
            name = _BY.sub("", " ".join(piece.split())).strip()
            if name and len(name) <= 60 and "http" not in name and name not in names:
                names.append(name)

    for item in page.json_ld:
        if ld_types(item) & ARTICLE_TYPES and "author" in item:
            add(item["author"])
    meta = page.meta
    if not names and meta.get("author"):
        add(meta["author"])
    if not names and meta.get("article:author") and "http" not in meta["article:author"]:
        add(meta["article:author"])
    if not names and meta.get("dc.creator"):
        add(meta["dc.creator"])
    if not names:
        m = _AUTHOR_TEXT.search(near)
        if m:
            add(m.group(1))
    if not names:
        add(page.author_names[:3])
    return names[:8]


def language(page: PageDom, text: str) -> str | None:
    """The text's language: "zh" by its characters, else the declared one, else "en" by
    common words."""
    share = cjk_share(text[:2000]) if text else 0.0
    if share > 0.3:
        return "zh"
    meta = page.meta
    declared = page.lang or meta.get("content-language") or meta.get("og:locale") or ""
    declared = declared.strip().replace("_", "-").split("-")[0].lower()
    if declared and declared != "zh":
        return declared
    if text and share < 0.05 and re.search(r"\b(the|and|of|to|in)\b", text[:2000]):
        return "en"
    return declared or None
