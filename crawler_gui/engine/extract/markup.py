"""What a page's markup says of it: ``<meta>`` tags, JSON-LD, machine-readable times (meta,
JSON-LD, script state, ``<time>``, htmldate as the last resort), authors and language."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from crawler_gui.engine.extract.dates import Stamp, parse_machine_date
from crawler_gui.engine.extract.textutil import cjk_share, element_text

__all__ = [
    "ARTICLE_TYPES",
    "authors",
    "htmldate_stamp",
    "json_ld",
    "language",
    "ld_types",
    "machine_dates",
    "meta_tags",
]


ARTICLE_TYPES = {"article", "newsarticle", "blogposting", "reportagenewsarticle", "report"}
_META_PUBLISHED = (
    "article:published_time",
    "og:published_time",
    "og:release_date",
    "datepublished",
    "pubdate",
    "publishdate",
    "publish_date",
    "publication_date",
    "sailthru.date",
    "parsely-pub-date",
    "dc.date.issued",
    "dc.date",
    "date",
    "weibo:article:create_at",
    # Baidu's pages name the time they show as "发布时间" so.
    "dateupdate",
)
#: Publication times in a page's script state (``publish_time: '2019-09-08 11:42:03'``).
_UNIX_TIME = re.compile(r"""\bvar\s+ct\s*=\s*["'](1\d{9})["']""")
_SCRIPT_TIME = re.compile(
    r"""["']?(?:publish_?time|pub_?time|publishDate|pubDate|datePublished|ctime)["']?\s*[:=]\s*"""
    r"""["'](20\d{2}-\d{1,2}-\d{1,2}[ T]\d{1,2}:\d{2}(?::\d{2})?)["']""",
    re.I,
)
#: Where a script may hold either: a quoted date (_SCRIPT_TIME scans every
#: position of a page's 50 KB of scripts case-insensitively, milliseconds a page; this one
#: looks for a quote followed by a year, and the keys are then tried just before it) ...
_QUOTED_DATE = re.compile(r"""["']20\d\d-""")
#: ... and a WeChat creation time (a literal start: found by a fast string search).
_VAR_CT = re.compile(r"var\s+ct\s*=")
_META_UPDATED = ("article:modified_time", "og:updated_time", "datemodified", "lastmod")
_AUTHOR_TEXT = re.compile(
    r"(?:作者|记者|文\s*/|撰文)[：:\s]\s*([\u4e00-\u9fa5·]{2,8}(?:[、，,][\u4e00-\u9fa5·]{2,4}){0,3})"
)


def _script_time(text: str) -> re.Match[str] | None:
    """:data:`_SCRIPT_TIME`'s first match in ``text``, tried only before quoted dates."""
    for q in _QUOTED_DATE.finditer(text):
        start = max(0, q.start() - 80)
        for m in _SCRIPT_TIME.finditer(text, start, q.end() + 40):
            if m.start(1) == q.start() + 1:
                return m
    return None


def meta_tags(tree: Any) -> dict[str, str]:
    """The page's ``<meta>`` contents by lower-cased ``property``/``name``/``itemprop``
    (the first of each)."""
    out: dict[str, str] = {}
    for m in tree.iter("meta"):
        key = (m.get("property") or m.get("name") or m.get("itemprop") or "").strip().lower()
        content = m.get("content")
        if key and content and key not in out:
            out[key] = content.strip()
    return out


def json_ld(tree: Any) -> list[dict[str, Any]]:
    """Every JSON-LD object of the page, nested lists and ``@graph`` flattened."""
    out: list[dict[str, Any]] = []
    for s in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(s.text or "")
        except ValueError:
            continue
        stack: list[Any] = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                if "@graph" in item:
                    stack.append(item["@graph"])
                out.append(item)
    return out


def ld_types(item: dict[str, Any]) -> set[str]:
    """The types (``@type``) of a JSON-LD object, lower-cased."""
    t = item.get("@type")
    types = t if isinstance(t, list) else [t]
    return {str(x).lower() for x in types if x}


def machine_dates(
    tree: Any, meta: dict[str, str], ld: list[dict[str, Any]]
) -> tuple[Stamp | None, Stamp | None]:
    """(published, updated) from JSON-LD, meta tags, script state and ``<time>``."""
    pub: Stamp | None = None
    upd: Stamp | None = None
    for item in ld:
        if pub is None and isinstance(item.get("datePublished"), str):
            pub = parse_machine_date(item["datePublished"])
        if upd is None and isinstance(item.get("dateModified"), str):
            upd = parse_machine_date(item["dateModified"])
    for key in _META_PUBLISHED:
        if pub is not None:
            break
        if key in meta:
            pub = parse_machine_date(meta[key])
    for key in _META_UPDATED:
        if upd is not None:
            break
        if key in meta:
            upd = parse_machine_date(meta[key])
    if pub is None:
        for script in tree.iter("script"):
            text = script.text or ""
            m = _script_time(text)
            if m:
                pub = parse_machine_date(m.group(1))
                break
            m = _UNIX_TIME.search(text) if _VAR_CT.search(text) else None
            if m:
                # WeChat articles: the creation time as a Unix timestamp (the page shows
                # only "前天"); an instant, so its offset is read, not inferred.
                when = datetime.fromtimestamp(int(m.group(1)), UTC)
                pub = Stamp(when.date(), (when.hour, when.minute, when.second), "+00:00")
                break
    if pub is None:
        for t in tree.xpath("//time[@datetime]")[:3]:
            pub = parse_machine_date(t.get("datetime", ""))
            if pub is not None:
                break
    return pub, upd


def authors(tree: Any, meta: dict[str, str], ld: list[dict[str, Any]], near: str) -> list[str]:
    """The article's authors: JSON-LD, meta tags, a "作者/记者" label in ``near`` (the text
    after the headline), ``rel``/``itemprop="author"`` elements; at most 8."""
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
        for piece in re.split(r"\s*(?:,|;|、|，|\band\b)\s*", value):
            name = re.sub(r"^(by|作者|记者)[:：\s]+", "", piece.strip(), flags=re.I).strip()
            if name and len(name) <= 60 and "http" not in name and name not in names:
                names.append(name)

    for item in ld:
        if ld_types(item) & ARTICLE_TYPES and "author" in item:
            add(item["author"])
    if not names and meta.get("author"):
        add(meta["author"])
    if not names and meta.get("article:author") and "http" not in meta["article:author"]:
        add(meta["article:author"])
    if not names:
        m = _AUTHOR_TEXT.search(near)
        if m:
            add(m.group(1))
    if not names:
        for el in tree.xpath('//*[@rel="author" or @itemprop="author"]')[:3]:
            add(element_text(el))
    return names[:8]


def language(tree: Any, meta: dict[str, str], text: str) -> str | None:
    """The text's language: "zh" by its characters, else the declared one, else "en" by
    common words."""
    share = cjk_share(text[:2000]) if text else 0.0
    if share > 0.3:
        return "zh"
    declared = tree.get("lang") or meta.get("content-language") or meta.get("og:locale") or ""
    declared = declared.strip().replace("_", "-").split("-")[0].lower()
    if declared and declared != "zh":
        return declared
    if text and share < 0.05 and re.search(r"\b(the|and|of|to|in)\b", text[:2000]):
        return "en"
    return declared or None


def htmldate_stamp(page: bytes | Any, url: str) -> Stamp | None:
    """htmldate's publication date of the page (a day, no time), the last resort. ``page``:
    its body as fetched, or its tree as parsed (htmldate reads a copy of it: the same date,
    without decoding and parsing the page anew)."""
    from htmldate import find_date

    try:
        found = find_date(
            page, url=url, extensive_search=False, original_date=True, outputformat="%Y-%m-%d"
        )
    except Exception:  # htmldate raises on odd input; a missing date is no error
        return None
    return parse_machine_date(found) if found else None
