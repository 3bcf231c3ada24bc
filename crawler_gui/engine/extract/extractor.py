"""Article extraction from one HTML page: its content (headline, times, authors, language and
main text, for every page that has readable main text) and what kind of page it is (article
/ list / other, with the reasons).

One parse with lexbor (:mod:`.dom`), our own rules over its text blocks (:mod:`.content`
for the main text, :mod:`.headline`, :mod:`.published` and :mod:`.markup` for the rest), and
a second opinion (trafilatura, on the page parsed anew) only where the main text found is
in doubt (:attr:`~.content.MainText.doubt`).

Pure function of its inputs: runs in the extraction worker processes.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from urllib.parse import urljoin, urlsplit, urlunsplit

from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.extract.body import (
    Anchors,
    clean_block_lines,
    cut_link_tail,
    is_link_line,
    trafilatura_lines,
    trim_chinese,
)
from crawler_gui.engine.extract.content import main_text, with_lead
from crawler_gui.engine.extract.dates import format_stamp, zone_for
from crawler_gui.engine.extract.dom import PageDom, parse_page
from crawler_gui.engine.extract.headline import find_headline, text_after
from crawler_gui.engine.extract.markup import authors, is_marked_article, language
from crawler_gui.engine.extract.model import Article, Extraction
from crawler_gui.engine.extract.published import htmldate_stamp, publication
from crawler_gui.engine.extract.textutil import cjk_share, norm_key, units

__all__ = ["READABLE_UNITS", "extract_page"]

#: Main text a page needs for its content to be kept (words; CJK characters).
READABLE_UNITS = 25

_JS_NOTICE = re.compile(
    r"(enable javascript|javascript is (required|disabled)|启用\s*JavaScript)", re.I
)
_MULTIPAGE = re.compile(r"^(?P<stem>.+?)[_-](?P<n>\d{1,2})(?P<ext>\.s?html?)$")
_INDEX_PATH = re.compile(
    r"(^/?$|/$|/index\.\w+$|/(list|tag|tags|category|channel|column)[/_-])", re.I
)
#: A slug of four or more words: ``/world/a-long-story-about-something/``.
_SLUG = re.compile(r"/[a-z0-9]+(?:-[a-z0-9]+){3,}/?$", re.I)
#: A hyphenated slug ending in a slash (``/about-bugs/``): a permalink, not a section index.
_SLUG_DIR = re.compile(r"/[a-z0-9]+(?:-[a-z0-9]+)+/$", re.I)
_ARTICLE_PATH = re.compile(
    r"(/20\d{2}[-/]?\d{2}[-/]?\d{2}|/\d{6,}|\.s?html?$|/a\d+\.html$|/doc-|/article|/news/\w)", re.I
)


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


def _js_only(page: PageDom, body_units: int) -> str | None:
    """Why the page renders only with JavaScript, or None."""
    if body_units >= 40 or page.visible_chars > 600:
        return None
    script_bytes = sum(len(s) for s in page.scripts) + 2000 * page.script_srcs
    if _JS_NOTICE.search(page.noscript):
        return "asks for JavaScript (noscript notice) and has no readable text"
    if page.app_roots and all(page.app_roots):
        return "an empty app container filled by scripts"
    if script_bytes > 4000:
        return "scripts only, no readable text"
    return None


class _Laps:
    """CPU time per pass into a dict (the benchmark's breakdown), or nothing."""

    __slots__ = ("sink", "t")

    def __init__(self, sink: dict[str, float] | None) -> None:
        self.sink = sink
        self.t = time.process_time() if sink is not None else 0.0

    def __call__(self, name: str) -> None:
        if self.sink is not None:
            now = time.process_time()
            self.sink[name] = self.sink.get(name, 0.0) + now - self.t
            self.t = now


def extract_page(
    body: bytes,
    url: str,
    content_type: str | None = None,
    *,
    site_suffixes: Sequence[str] = (),
    zones: dict[str, str] | None = None,
    is_html: bool = True,
    timings: dict[str, float] | None = None,
) -> Extraction:
    """Judge and extract one page. ``site_suffixes`` are the host's learned ``<title>``
    suffixes; ``zones`` maps hosts (or ``.domain`` suffixes) to offsets for local times.
    ``timings``, when given, gets each pass's CPU seconds added to it (by pass name)."""
    lap = _Laps(timings)
    if not is_html:
        return Extraction(kind="other", why="not HTML")
    text, _enc = decode_body(body, content_type)
    lap("decode")
    if not text.strip():
        return Extraction(kind="other", why="empty page")
    page = parse_page(text)
    lap("parse")
    if page is None:
        return Extraction(kind="other", why="unparsable HTML")
    canonical = urljoin(url, page.canonical) if page.canonical else None
    if canonical and urlsplit(canonical).scheme not in ("http", "https"):
        canonical = None
    article_url, part = _tie(url, canonical, page.amp)
    raw_title = page.raw_title

    main = main_text(page)
    lap("main text")
    js_reason = _js_only(page, main.units)
    if js_reason is not None:
        return Extraction(
            kind="other",
            why=f"JavaScript-only page: {js_reason}",
            js_only=True,
            article_url=article_url,
            part=part,
            raw_title=raw_title,
        )
    main_start = main.start
    headline, head_src, head_at = find_headline(page, site_suffixes, main_start)
    main = with_lead(page, main, head_at)
    lap("headline")

    body_lines = clean_block_lines(main.lines, headline)
    # (Counted once: the clean-up keeps most lines, the ones it leaves out are subtracted;
    # Chinese text is costly to count.)
    n_body = main.units
    if body_lines != main.lines:
        left_out = Counter(main.lines)
        left_out.subtract(body_lines)
        n_body -= units("\n".join(x for x, k in left_out.items() for _ in range(max(0, k))))
    lap("clean-up")
    text_src = "text by our rules"
    second = ""
    if main.doubt:
        # Unsure (little text where the page has more, prose spread over the page): a
        # second opinion, the longer text kept.
        other = trafilatura_lines(text, url, headline)
        n_other = units("\n".join(other))
        second = f"unsure ({main.doubt}): trafilatura asked"
        if n_other > n_body:
            body_lines, n_body = other, n_other
            text_src = "text by trafilatura"
    lap("second opinion")
    if text_src == "text by our rules":
        # (Our blocks know their links: the link lines are out, and the share of links is
        # the container's, the lines left out counted.)
        body_link_share = main.link_share
    else:
        links = Anchors(
            k for k in (norm_key(t) for t in page.link_texts if len(t) >= 8) if len(k) >= 8
        )
        body_lines = cut_link_tail(body_lines, links)
        n_body = units("\n".join(body_lines))
        linked = sum(units(line) for line in body_lines if is_link_line(line, links))
        body_link_share = linked / max(1, units("\n".join(body_lines)))
    text_out = "\n".join(body_lines)
    chinese = cjk_share(text_out[:2000]) > 0.3  # (a share: the first lines tell)
    if chinese:
        trimmed = trim_chinese(body_lines)
        if len(trimmed) != len(body_lines):
            # (A text's units are its lines' units: the lines cut off are counted, not all.)
            start = body_lines.index(trimmed[0]) if trimmed else len(body_lines)
            cut = body_lines[:start] + body_lines[start + len(trimmed) :]
            n_body -= units("\n".join(cut))
            body_lines = trimmed
            text_out = "\n".join(body_lines)
    body_units = n_body
    lang = language(page, text_out or " ".join(b.text for b in page.blocks[:50]))
    lap("clean-up")

    when = publication(page, url, head_at, main_start, lang)
    pub, upd = when.published, when.updated
    date_src = when.source
    lap("dates")
    if pub is None and body_units >= READABLE_UNITS and headline and not main.is_list:
        # A page with text (not a list of stories) and no date our rules find: a second
        # opinion.
        pub = htmldate_stamp(text, url)
        if pub is not None:
            date_src = "htmldate"
        second = "; ".join(x for x in (second, "no date found: htmldate asked") if x)
    lap("second opinion on the date")

    # The judgement.
    signals: list[str] = []
    points = 0
    if is_marked_article(page):
        points += 2
        signals.append("marked up as an article")
    if pub is not None:
        points += 1
        signals.append(f"dated ({date_src})")
    if headline and (head_src in ("h1", "og:title", "json-ld") or head_at >= 0):
        points += 1
        signals.append(f"headline from {head_src}")
    path = urlsplit(url).path
    if _ARTICLE_PATH.search(path) or _SLUG.search(path):
        points += 1
        signals.append("article-like URL")
    elif _INDEX_PATH.search(path) and not _SLUG_DIR.search(path):
        points -= 1
        signals.append("index-like URL")
    if body_units >= 300:
        points += 1
    link_chars = sum(b.link_chars for b in page.blocks)
    link_share = link_chars / max(1, page.visible_chars)
    # (A link text of sixty characters has eight words; shorter ones are counted.)
    long_links = sum(1 for t in page.link_texts if len(t) >= 60 or (len(t) >= 8 and units(t) >= 8))
    if body_link_share > 0.3:
        points -= 3
        signals.append(f"{body_link_share:.0%} of the main text is links")
    elif link_share > 0.6 and body_units < 150:
        points -= 2
        signals.append(f"{link_share:.0%} of the page's text is links")
    signals.append(f"{body_units} words of main text, {long_links} headline links")
    signals.append(text_src)
    if second:
        signals.append(second)
    is_article = body_units >= 60 and points >= 2 and bool(headline)
    kind = "article" if is_article else ("list" if long_links >= 8 else "other")
    lap("judgement")
    # Content: a page with readable text; or a dated page with a little (a photo's page, a
    # short notice), not a list of links.
    readable = body_units >= READABLE_UNITS or (pub is not None and kind != "list" and body_units)
    if not headline or not readable:
        return Extraction(
            kind=kind if kind != "article" else "other",
            why="; ".join(signals),
            article_url=article_url if is_article else None,
            part=part,
            raw_title=raw_title,
        )
    zone, zone_guess = zone_for(urlsplit(url).netloc, lang, zones or {})
    pub_s, inferred1 = format_stamp(pub, zone)
    upd_s, inferred2 = format_stamp(upd, zone)
    near = text_after(page, head_at, 600) if head_at >= 0 else ""
    content = Article(
        title=headline,
        published=pub_s,
        updated=upd_s,
        authors=authors(page, near),
        lang=lang,
        text=text_out,
        zone_inferred=(inferred1 or inferred2) and zone_guess,
    )
    lap("authors")
    return Extraction(
        kind=kind,
        why="; ".join(signals),
        article=content,
        extra={"words": body_units},
        article_url=article_url if is_article else None,
        part=part if is_article else 1,
        raw_title=raw_title,
    )
