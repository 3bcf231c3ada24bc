"""Article extraction from one HTML page: kind (article / list / other, with the reason),
headline, times, authors, language and main text.

The general case is trafilatura's (its fast path, comments left out), with our clean-up of the
lines it keeps (repeated headline, copyright and share lines, menus). What it gets wrong on
Chinese portals is done here: the headline is reconciled from ``<h1>``, ``og:title`` and
``<title>`` (site suffixes learned per host, passed in by the caller), times come from the
markup or from the Chinese date patterns printed near the headline, and where trafilatura
finds little text a text-density rule picks the block with the most non-link text.

Pure function of its inputs: runs in the extraction worker processes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import trafilatura
from lxml import etree
from trafilatura.utils import load_html

from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.extract.dates import (
    Stamp,
    find_labelled_date,
    find_text_dates,
    format_stamp,
    parse_machine_date,
    zone_for,
)
from crawler_gui.engine.extract.model import Article, Extraction
from crawler_gui.engine.extract.textutil import cjk_share, norm_key, units

__all__ = ["extract_page", "strip_site_suffix"]

#: Separators between a headline and the site name in a ``<title>``.
_TITLE_SEPS = ("_", "|", " - ", " – ", " — ", "｜", "-", "—", "::", " · ")
_ARTICLE_TYPES = {"article", "newsarticle", "blogposting", "reportagenewsarticle", "report"}
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
_META_UPDATED = ("article:modified_time", "og:updated_time", "datemodified", "lastmod")
_BOILER_LINE = re.compile(
    r"(^(copyright|©|\(c\)\s)|all rights reserved|版权所有|未经授权|责任编辑|"
    r"^(share|like) this|share it with|^follow (us|@)|^sign up|^subscribe|^advertisement$|"
    r"^read more\b|^also on |order reprints|^print article|for your personal, non-commercial|"
    r"^an error has occurred|^this article has been sent|^thank you$|^write to .+@|"
    r"^https?://\S+$|^(来源|编辑|本文来源)[：:]\S{0,20}$|^(点击|扫码|关注).{0,20}(公众号|微信|下载)|"
    r"^(分享到|返回顶部|打印|关闭窗口)|^(上一篇|下一篇)[：:]|"
    r"^-?\s*图\s*\d+$|^(视频)?加载中|^\d+\s*/\s*\d+$|公众号|二维码|^热门推荐|^小编最近文章|"
    r"^(免注册|登录|注册|意见反馈)|^toggle navigation$|^(上一篇|下一篇)\s*[:：]?\s*$)",
    re.IGNORECASE,
)
_JS_NOTICE = re.compile(
    r"(enable javascript|javascript is (required|disabled)|启用\s*JavaScript)", re.I
)
_AUTHOR_TEXT = re.compile(
    r"(?:作者|记者|文\s*/|撰文)[：:\s]\s*([\u4e00-\u9fa5·]{2,8}(?:[、，,][\u4e00-\u9fa5·]{2,4}){0,3})"
)
_MULTIPAGE = re.compile(r"^(?P<stem>.+?)[_-](?P<n>\d{1,2})(?P<ext>\.s?html?)$")
_INDEX_PATH = re.compile(
    r"(^/?$|/$|/index\.\w+$|/(list|tag|tags|category|channel|column)[/_-])", re.I
)
#: A slug of four or more words: ``/world/a-long-story-about-something/``.
_SLUG = re.compile(r"/[a-z0-9]+(?:-[a-z0-9]+){3,}/?$", re.I)
_ARTICLE_PATH = re.compile(
    r"(/20\d{2}[-/]?\d{2}[-/]?\d{2}|/\d{6,}|\.s?html?$|/a\d+\.html$|/doc-|/article|/news/\w)", re.I
)


def _text(el: Any) -> str:
    return " ".join("".join(el.itertext()).split())


def _meta(tree: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in tree.iter("meta"):
        key = (m.get("property") or m.get("name") or m.get("itemprop") or "").strip().lower()
        content = m.get("content")
        if key and content and key not in out:
            out[key] = content.strip()
    return out


def _json_ld(tree: Any) -> list[dict[str, Any]]:
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


def _ld_type(item: dict[str, Any]) -> set[str]:
    t = item.get("@type")
    types = t if isinstance(t, list) else [t]
    return {str(x).lower() for x in types if x}


def _split_title(raw: str) -> list[str]:
    """``raw`` cut at each site separator from the right: candidates from longest to shortest."""
    out = [raw]
    cur = raw
    while True:
        best = -1
        for sep in _TITLE_SEPS:
            i = cur.rfind(sep)
            if i > best:
                best = i
                cut = cur[:i].strip()
        if best <= 0 or not cut:
            return out
        cur = cut
        out.append(cur)


def strip_site_suffix(raw: str, suffixes: Sequence[str] = ()) -> str:
    """``raw`` (a ``<title>``) without the host's site suffix: a learned suffix when it ends
    ``raw``, else the last separator's tail when what is left is still a headline."""
    raw = " ".join(raw.split())
    for suf in sorted(suffixes, key=len, reverse=True):
        if suf and raw.endswith(suf) and len(raw) > len(suf):
            return raw[: -len(suf)].strip()
    parts = _split_title(raw)
    if len(parts) > 1 and units(parts[1]) >= 4:
        return parts[1]
    return raw


def _similar(a: str, b: str) -> float:
    """How much of the shorter normalised string the longer contains (1.0: contained), by
    character pairs."""
    ka, kb = norm_key(a), norm_key(b)
    if not ka or not kb:
        return 0.0
    short, long_ = (ka, kb) if len(ka) <= len(kb) else (kb, ka)
    if short in long_:
        return 1.0
    if len(short) < 10:
        return 0.0  # too short for a partial match to mean anything
    pairs = {short[i : i + 2] for i in range(len(short) - 1)}
    if not pairs:
        return 0.0
    return sum(1 for p in pairs if p in long_) / len(pairs)


def _headline(
    tree: Any,
    meta: dict[str, str],
    ld: list[dict[str, Any]],
    raw_title: str,
    suffixes: Sequence[str],
) -> tuple[str, str, Any]:
    """(headline, where it came from, its element or None)."""
    og = meta.get("og:title") or meta.get("twitter:title") or ""
    ld_head = next((str(i["headline"]) for i in ld if isinstance(i.get("headline"), str)), "")
    cleaned = strip_site_suffix(raw_title, suffixes) if raw_title else ""
    refs = [r for r in (og, ld_head, cleaned, raw_title) if r]
    h1s = [(h, _text(h)) for h in tree.iter("h1")]
    h1s = [(h, t) for h, t in h1s if 2 <= len(t) <= 200]
    # An <h1> that the <title>/og:title/JSON-LD also name is the headline (a portal's other
    # <h1>s are its logo or a recommended story).
    best: tuple[float, str, Any] | None = None
    for h, t in h1s:
        score = max((_similar(t, r) for r in refs), default=0.0)
        if score >= 0.8 and (best is None or score > best[0] or len(t) > len(best[1])):
            best = (score, t, h)
    if best is not None and units(best[1]) >= 3:
        return best[1], "h1", best[2]
    # A piece of the <title> that the page shows as an element of its own is the headline
    # (whichever side of the separator the site name is on).
    if raw_title:
        pieces = {raw_title, *_split_title(raw_title)}
        for sep in _TITLE_SEPS:
            pieces.update(x.strip() for x in raw_title.split(sep))
        for piece in sorted(pieces, key=len, reverse=True):
            if units(piece) >= 4:
                el = _element_showing(tree, piece)
                if el is not None:
                    return piece, "title (shown on the page)", el
    if og and units(og) >= 3:
        return strip_site_suffix(og, suffixes), "og:title", None
    if ld_head:
        return ld_head, "json-ld", None
    if cleaned:
        return cleaned, "title", None
    if h1s:
        return h1s[0][1], "h1 (no title)", h1s[0][0]
    return "", "none", None


def _element_showing(tree: Any, headline: str) -> Any:
    """The first element in ``<body>`` whose own text is the headline."""
    key = norm_key(headline)
    body = tree.find(".//body")
    if not key or body is None:
        return None
    for el in body.iter("h1", "h2", "h3", "div", "span", "p", "strong", "td"):
        text = el.text_content() if len(el) < 4 else ""
        if text and len(text) < len(headline) * 2 + 20 and norm_key(text) == key:
            return el
    return None


def _after(el: Any, limit: int) -> str:
    """The text that follows ``el`` in document order, up to ``limit`` characters."""
    parts: list[str] = []
    n = 0
    node = el
    # Walk: following siblings, then the parent's following siblings, and so on.
    while node is not None and n < limit:
        sib = node.getnext()
        while sib is not None and n < limit:
            if isinstance(sib.tag, str) and sib.tag not in ("script", "style"):
                t = " ".join("".join(sib.itertext()).split())
                parts.append(t)
                n += len(t)
            if sib.tail:
                parts.append(sib.tail)
                n += len(sib.tail)
            sib = sib.getnext()
        node = node.getparent()
    return " ".join(parts)[:limit]


def _machine_dates(
    tree: Any, meta: dict[str, str], ld: list[dict[str, Any]]
) -> tuple[Stamp | None, Stamp | None]:
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
            m = _SCRIPT_TIME.search(script.text or "")
            if m:
                pub = parse_machine_date(m.group(1))
                break
            m = _UNIX_TIME.search(script.text or "")
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


def _authors(tree: Any, meta: dict[str, str], ld: list[dict[str, Any]], near: str) -> list[str]:
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
        if _ld_type(item) & _ARTICLE_TYPES and "author" in item:
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
            add(_text(el))
    return names[:8]


def _lang(tree: Any, meta: dict[str, str], text: str) -> str | None:
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


_DATELINE_LABEL = re.compile(r"(来源|作者|发布|时间|编辑|记者)[：:]")


_RELATED_HEADING = re.compile(
    r"(相关|推荐|延伸阅读|热门|热点|猜你喜欢|更多|其他媒体|排行|related|more stories|"
    r"most read|read more|recommended|elsewhere|you may also like)",
    re.I,
)


def _is_link_line(line: str, anchors: set[str]) -> bool:
    key = norm_key(line.lstrip("-•* "))
    return bool(key) and (
        key in anchors or any(k in key for k in anchors if len(key) <= 1.5 * len(k))
    )


def _cut_link_tail(lines: list[str], anchors: set[str]) -> list[str]:
    """Lines without a trailing block of links (related news, most read): a short heading
    like "相关新闻" / "Related" followed mostly by link lines, or link lines at the very end."""
    for i, line in enumerate(lines):
        if i == 0 or units(line) > 8 or not _RELATED_HEADING.search(line):
            continue
        rest = lines[i + 1 :]
        if rest and sum(_is_link_line(x, anchors) for x in rest) >= 0.5 * len(rest):
            lines = lines[:i]
            break
    while len(lines) > 1 and (
        _is_link_line(lines[-1], anchors)
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


def _starts_with_anchor(line: str, anchors: set[str]) -> bool:
    key = norm_key(line.lstrip("-•* "))
    return any(key.startswith(k) for k in anchors)


_TAIL_DATE = re.compile(r"(19|20)\d{2}-\d{1,2}-\d{1,2}( \d{1,2}:\d{2})?")
_SENTENCE_END = re.compile(r"[。！？!?.…”」）)]$")


def _trim_chinese(lines: list[str]) -> list[str]:
    """Chinese text without the short unpunctuated lines at its start and end (widgets,
    labels, site names): a paragraph ends with sentence punctuation."""

    def junk(line: str) -> bool:
        return units(line) < 20 and not _SENTENCE_END.search(line)

    start, end = 0, len(lines)
    while start < end and junk(lines[start]):
        start += 1
    while end > start and junk(lines[end - 1]):
        end -= 1
    return lines[start:end]


def _dateline(line: str) -> bool:
    """A short line with a date and a source/author label: the dateline, not body text."""
    return (
        units(line) < 40
        and bool(_DATELINE_LABEL.search(line))
        and bool(re.search(r"(19|20)\d{2}\s*[-/.年]\s*\d{1,2}", line))
    )


def _clean_lines(text: str, headline: str) -> list[str]:
    lines = [" ".join(x.split()) for x in text.split("\n")]
    lines = [x for x in lines if x]
    key = norm_key(headline)
    # The headline (and a standfirst repeating it) is not body text.
    while lines and key:
        first = norm_key(lines[0])
        if first != key and not (len(first) > 8 and first in key):
            break
        lines.pop(0)
    lines = [x for x in lines if not _BOILER_LINE.search(x) and not _dateline(x)]
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
        t = _text(p)
        if t:
            lines.append(t)
    return lines


def _tie(url: str, canonical: str | None, amp: bool) -> tuple[str, int]:
    """The URL every copy of this article shares, and this page's part number."""
    parts = urlsplit(url)
    host = parts.netloc
    path = parts.path
    query = parts.query
    part = 1
    m = _MULTIPAGE.match(path)
    if m and 2 <= int(m["n"]) <= 50:
        part = int(m["n"])
        path = m["stem"] + m["ext"]
    if canonical:
        cparts = urlsplit(canonical)
        mc = _MULTIPAGE.match(cparts.path)
        if mc and 2 <= int(mc["n"]) <= 50:
            canonical = urlunsplit(cparts._replace(path=mc["stem"] + mc["ext"]))
        return canonical, part
    if host.startswith("m."):
        host = "www." + host[2:]
    elif host.startswith("wap."):
        host = "www." + host[4:]
    if amp:
        path = re.sub(r"(/amp(?=/|$)|\.amp(?=\.html?$))", "", path) or "/"
        query = "&".join(q for q in query.split("&") if q not in ("amp", "amp=1", "outputType=amp"))
    return urlunsplit((parts.scheme, host, path, query, "")), part


def _js_only(tree: Any, body_text: str) -> str | None:
    """Why the page renders only with JavaScript, or None."""
    if units(body_text) >= 40:
        return None
    scripts = tree.xpath("//script")
    script_bytes = sum(len(s.text or "") for s in scripts) + 2000 * sum(
        1 for s in scripts if s.get("src")
    )
    noscript = " ".join(_text(n) for n in tree.iter("noscript"))
    if _JS_NOTICE.search(noscript):
        return "asks for JavaScript (noscript notice) and has no readable text"
    roots = tree.xpath('//*[@id="app" or @id="root" or @id="__next" or @id="__nuxt"]')
    if roots and all(not _text(r) for r in roots):
        return "an empty app container filled by scripts"
    if script_bytes > 4000:
        return "scripts only, no readable text"
    return None


def extract_page(
    body: bytes,
    url: str,
    content_type: str | None = None,
    *,
    site_suffixes: Sequence[str] = (),
    zones: dict[str, str] | None = None,
    is_html: bool = True,
) -> Extraction:
    """Judge and extract one page. ``site_suffixes`` are the host's learned ``<title>``
    suffixes; ``zones`` maps hosts (or ``.domain`` suffixes) to offsets for local times."""
    if not is_html:
        return Extraction(kind="other", why="not HTML")
    text, _enc = decode_body(body, content_type)
    if not text.strip():
        return Extraction(kind="other", why="empty page")
    tree = _parse(text)
    if tree is None:
        return Extraction(kind="other", why="unparsable HTML")
    meta = _meta(tree)
    ld = _json_ld(tree)
    title_el = tree.find(".//title")
    raw_title = " ".join(_text(title_el).split()) if title_el is not None else ""

    canonical: str | None = None
    amp = tree.get("amp") is not None or tree.get("⚡") is not None
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        href = (link.get("href") or "").strip()
        if "canonical" in rel and href and canonical is None:
            canonical = urljoin(url, href)
    if canonical and urlsplit(canonical).scheme not in ("http", "https"):
        canonical = None
    article_url, part = _tie(url, canonical, amp)

    body_el = tree.find(".//body")
    visible = ""
    if body_el is not None:
        visible = " ".join(
            t
            for t in body_el.xpath(
                ".//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::noscript)]"  # noqa: E501
            )
            if t.strip()
        )
    js_reason = _js_only(tree, visible)
    if js_reason is not None:
        return Extraction(
            kind="other",
            why=f"JavaScript-only page: {js_reason}",
            js_only=True,
            article_url=article_url,
            part=part,
            raw_title=raw_title,
        )

    headline, head_src, head_el = _headline(tree, meta, ld, raw_title, site_suffixes)
    if head_el is None and headline:
        # No <h1>: the element that shows the headline (a styled <div>, an <h2>) is where
        # the dateline follows.
        head_el = _element_showing(tree, headline)
        if head_el is not None:
            head_src += " (shown on the page)"
    near = _after(head_el, 600) if head_el is not None else ""
    pub, upd = _machine_dates(tree, meta, ld)
    text_pub, text_upd = find_text_dates(near) if near else (None, None)
    if pub is None or (pub.time is None and text_pub is not None and text_pub.day == pub.day):
        labelled = find_labelled_date(visible)
        if (
            pub is None
            and labelled is not None
            and not (text_pub is not None and find_labelled_date(near) == text_pub)
        ):
            # The page says which date is its publication time (a portal's "发布时间："),
            # and the dates right after the headline do not.
            text_pub = labelled
        pub = text_pub or pub
    upd = upd or text_upd
    date_src = (
        "markup" if pub is not None and pub is not text_pub else ("near headline" if pub else "")
    )

    # Link statistics over the page: headline-like links are what list pages are made of.
    long_links = 0
    link_units = 0
    #: Normalised texts of the links with some length (for telling list lines).
    anchors: set[str] = set()
    for a in tree.iter("a"):
        t = _text(a)
        u = units(t)
        link_units += u
        if u >= 8:
            long_links += 1
        if len(t) >= 8:
            anchors.add(norm_key(t))
    page_units = max(1, units(visible))
    link_share = link_units / page_units

    paras = _paragraph_lines(tree)
    para_units = units("\n".join(t for _p, t in paras))
    body_lines = _body_lines(tree, url, headline, fast=True)
    if units("\n".join(body_lines)) < 0.6 * para_units:
        # The fast path lost paragraphs the page plainly has: take trafilatura's full
        # path (with its fallback extractors) on a fresh parse, keep the longer text; if
        # that too misses most of them, the paragraphs themselves are the text.
        full = _body_lines(_parse(text), url, headline, fast=False)
        if units("\n".join(full)) > units("\n".join(body_lines)):
            body_lines = full
        if units("\n".join(body_lines)) < 0.6 * para_units:
            body_lines = _clean_lines("\n".join(t for _p, t in paras), headline)
    text_out = "\n".join(body_lines)
    lang = _lang(tree, meta, text_out or visible)
    if cjk_share(text_out) > 0.3 and units(text_out) < 150:
        dense = _density_lines_from(text, headline)
        if units("\n".join(dense)) > units(text_out) * 1.5:
            body_lines = dense
            text_out = "\n".join(dense)
    anchors = {k for k in anchors if len(k) >= 8}
    body_lines = _cut_link_tail(body_lines, anchors)
    if cjk_share(text_out) > 0.3:
        body_lines = _trim_chinese(body_lines)
    text_out = "\n".join(body_lines)
    body_units = units(text_out)
    # How much of the main text is link text: a list's "main text" is its headlines.
    linked = 0
    for line in body_lines:
        lk = norm_key(line)
        if lk in anchors or any(k in lk for k in anchors if len(lk) <= 1.5 * len(k)):
            linked += units(line)
    body_link_share = linked / body_units if body_units else 0.0

    if pub is None and body_units >= 80:
        pub = _htmldate(body, url)
        if pub is not None:
            date_src = "htmldate"

    # The judgement.
    signals: list[str] = []
    points = 0
    og_type = meta.get("og:type", "").lower()
    if og_type == "article" or any(_ld_type(i) & _ARTICLE_TYPES for i in ld):
        points += 2
        signals.append("marked up as an article")
    if pub is not None:
        points += 1
        signals.append(f"dated ({date_src})")
    if headline and (head_src in ("h1", "og:title", "json-ld") or head_el is not None):
        points += 1
        signals.append(f"headline from {head_src}")
    path = urlsplit(url).path
    if _ARTICLE_PATH.search(path) or _SLUG.search(path):
        points += 1
        signals.append("article-like URL")
    elif _INDEX_PATH.search(path):
        points -= 1
        signals.append("index-like URL")
    if body_units >= 300:
        points += 1
    if body_link_share > 0.3:
        points -= 3
        signals.append(f"{body_link_share:.0%} of the main text is links")
    elif link_share > 0.6 and body_units < 150:
        points -= 2
        signals.append(f"{link_share:.0%} of the page's text is links")
    signals.append(f"{body_units} words of main text, {long_links} headline links")
    why = "; ".join(signals)
    if body_units >= 60 and points >= 2 and headline:
        zone, zone_guess = zone_for(urlsplit(url).netloc, lang, zones or {})
        pub_s, inferred1 = format_stamp(pub, zone)
        upd_s, inferred2 = format_stamp(upd, zone)
        article = Article(
            title=headline,
            published=pub_s,
            updated=upd_s,
            authors=_authors(tree, meta, ld, near),
            lang=lang,
            text=text_out,
            zone_inferred=(inferred1 or inferred2) and zone_guess,
        )
        return Extraction(
            kind="article",
            why=why,
            article=article,
            extra={"words": body_units},
            article_url=article_url,
            part=part,
            raw_title=raw_title,
        )
    kind = "list" if long_links >= 8 else "other"
    return Extraction(kind=kind, why=why, article_url=None, part=1, raw_title=raw_title)


def _paragraph_lines(tree: Any) -> list[tuple[Any, str]]:
    """The page's sentence-like ``<p>`` elements outside navigation, footers and comments,
    with their parents."""
    lines: list[tuple[Any, str]] = []
    for p in tree.iter("p"):
        t = _text(p)
        u = units(t)
        if u < 15 or not re.search(r"[.!?。！？,，]", t):
            continue
        if any(
            a.tag in ("nav", "footer", "aside", "a") or "comment" in (a.get("class") or "").lower()
            for a in p.iterancestors()
        ):
            continue
        lines.append((p, t))
    return lines


def _parse(text: str) -> Any:
    """Parse as trafilatura does (its parser settings change what it finds)."""
    try:
        return load_html(text)
    except (etree.ParserError, ValueError):
        return None


#: Blocks that are never the article: readers' comments, footers, related-news boxes.
_PRUNE = (
    "//*[self::div or self::section or self::ul or self::aside]"
    "[re:test(concat(' ', @id, ' ', @class, ' '), "
    "'[ _-](comments?|comment-list|commentlist|footer|foot|related|relate|recommend|"
    "hot-?news|rank|share|sharebox)[ _-]', 'i')]"
)


def _prune(tree: Any) -> None:
    for el in tree.xpath(_PRUNE, namespaces={"re": "http://exslt.org/regular-expressions"}):
        if el.getparent() is not None and el.tag != "body":
            el.drop_tree()


def _body_lines(tree: Any, url: str, headline: str, *, fast: bool) -> list[str]:
    _prune(tree)
    out = trafilatura.extract(
        tree,
        url=url,
        fast=fast,
        include_comments=False,
        include_tables=True,
        with_metadata=False,
        output_format="txt",
    )
    return _clean_lines(out or "", headline)


def _density_lines_from(text: str, headline: str) -> list[str]:
    tree = _parse(text)
    if tree is None:
        return []
    return _clean_lines("\n".join(_density_text(tree)), headline)


def _htmldate(body: bytes, url: str) -> Stamp | None:
    from htmldate import find_date

    try:
        found = find_date(
            body, url=url, extensive_search=False, original_date=True, outputformat="%Y-%m-%d"
        )
    except Exception:  # htmldate raises on odd input; a missing date is no error
        return None
    return parse_machine_date(found) if found else None


def learn_suffix(titles: Iterable[str]) -> str | None:
    """The site suffix a host's ``<title>``s share (starting at a separator), if any."""
    titles = [t for t in titles if t]
    if len(titles) < 3:
        return None
    first = titles[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[-1 - n] == first[-1 - n] for t in titles):
        n += 1
    if n == 0:
        return None
    common = first[len(first) - n :]
    for sep in _TITLE_SEPS:
        i = common.find(sep)
        if i >= 0:
            return common[i:]
    return None
