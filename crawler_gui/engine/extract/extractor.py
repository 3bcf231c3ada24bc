"""Article extraction from one HTML page: what kind of page it is (article / list / other,
with the reasons), and for an article its headline, times, authors, language and main text.

This module judges the page and puts the parts together; the parts live beside it: the
headline reconciled from ``<h1>``, ``og:title`` and ``<title>`` (:mod:`.headline`), what the
markup says (meta tags, JSON-LD, machine times, authors, language: :mod:`.markup`), the main
text and its clean-up (:mod:`.body`), and the Chinese date patterns printed near the headline
(:mod:`.dates`).

Pure function of its inputs: runs in the extraction worker processes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.extract.body import (
    Anchors,
    PageWalk,
    clean_lines,
    cut_link_tail,
    density_lines,
    is_link_line,
    main_container,
    parse_html,
    plain_container_lines,
    strip_never_text,
    trafilatura_lines,
    trim_chinese,
)
from crawler_gui.engine.extract.dates import (
    find_labelled_date,
    find_text_dates,
    format_stamp,
    zone_for,
)
from crawler_gui.engine.extract.headline import element_showing, find_headline, text_after
from crawler_gui.engine.extract.markup import (
    ARTICLE_TYPES,
    authors,
    htmldate_stamp,
    json_ld,
    language,
    ld_types,
    machine_dates,
    meta_tags,
)
from crawler_gui.engine.extract.model import Article, Extraction
from crawler_gui.engine.extract.textutil import cjk_share, element_text, norm_key, units

__all__ = ["extract_page"]

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


def _js_only(tree: Any, body_units: int) -> str | None:
    """Why the page renders only with JavaScript, or None."""
    if body_units >= 40:
        return None
    scripts = tree.xpath("//script")
    script_bytes = sum(len(s.text or "") for s in scripts) + 2000 * sum(
        1 for s in scripts if s.get("src")
    )
    noscript = " ".join(element_text(n) for n in tree.iter("noscript"))
    if _JS_NOTICE.search(noscript):
        return "asks for JavaScript (noscript notice) and has no readable text"
    roots = tree.xpath('//*[@id="app" or @id="root" or @id="__next" or @id="__nuxt"]')
    if roots and all(not element_text(r) for r in roots):
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
    tree = parse_html(text)
    if tree is None:
        return Extraction(kind="other", why="unparsable HTML")
    lap("parse")
    meta = meta_tags(tree)
    ld = json_ld(tree)
    title_el = tree.find(".//title")
    raw_title = " ".join(element_text(title_el).split()) if title_el is not None else ""

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
    lap("markup")

    walk = PageWalk(tree)
    visible = walk.visible
    visible_units = units(visible)
    lap("visible text")
    js_reason = _js_only(tree, visible_units)
    lap("js check")
    if js_reason is not None:
        return Extraction(
            kind="other",
            why=f"JavaScript-only page: {js_reason}",
            js_only=True,
            article_url=article_url,
            part=part,
            raw_title=raw_title,
        )

    searched: dict[str, Any] = {}
    headline, head_src, head_el = find_headline(tree, meta, ld, raw_title, site_suffixes, searched)
    if head_el is None and headline:
        # No <h1>: the element that shows the headline (a styled <div>, an <h2>) is where
        # the dateline follows (among the elements the headline's search looked at, when
        # they serve a headline this long).
        longest, shown = searched.get("shown", (0, None))
        head_el = element_showing(tree, headline, shown if len(headline) <= longest else None)
        if head_el is not None:
            head_src += " (shown on the page)"
    near = text_after(head_el, 600) if head_el is not None else ""
    lap("headline")
    pub, upd = machine_dates(tree, meta, ld)
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
    lap("dates")

    # Link statistics over the page: headline-like links are what list pages are made of.
    # (Counted over the links' texts joined by spaces: the same count as link by link, in
    # one call; a link of 8 units has at least 8 characters.)
    link_units = units(" ".join(walk.link_texts))
    longer = [t for t in walk.link_texts if len(t) >= 8]
    long_links = sum(1 for t in longer if units(t) >= 8)
    #: Normalised texts of the links with some length (for telling list lines).
    anchors: set[str] = {norm_key(t) for t in longer}
    page_units = max(1, visible_units)
    link_share = link_units / page_units
    lap("links")

    paras = walk.paras
    para_units = units("\n".join(t for _p, t in paras))
    lap("paragraphs")
    scope = main_container(tree, paras, walk.link_chars, walk.outside)
    lap("container")
    doubts: list[str] = []
    #: The page's tree as parsed (the passes below may change it: trafilatura is then
    #: handed the page's own tree, not a copy).
    pristine = True
    plain = plain_container_lines(scope, doubts) if scope is not None else None
    if plain is not None:
        body_lines = clean_lines("\n".join(plain), headline)
        text_src = "text read from the article's container"
        # (The main text's units are counted once per text, and kept with it.)
        n_body = units("\n".join(body_lines))
        if n_body < 0.6 * para_units:
            plain = None
            doubts.append("less text than its paragraphs")
    lap("read container")
    if plain is None:
        text_src = "text by trafilatura" + (f" (container has {doubts[0]})" if doubts else "")
        if scope is None:
            # trafilatura then reads the page itself (which it changes: the full path below
            # parses it anew): what it would delete first is gone before it copies the tree
            # and runs its expressions over it (scripts, styles, SVG drawings: a third of a
            # news page's elements). The markup has been read from them already.
            strip_never_text(tree)
            pristine = False
        body_lines = trafilatura_lines(tree, url, headline, fast=True, scope=scope)
        n_body = units("\n".join(body_lines))
    lap("trafilatura fast")
    if n_body < 0.6 * para_units:
        # The fast path (on the article's container, or the page) lost paragraphs the page
        # plainly has: take trafilatura's full path (with its fallback extractors) on the
        # whole page (a fresh parse unless the fast path saw a copy), keep the longer text;
        # if that too misses most of them, the paragraphs themselves are the text.
        whole = tree if scope is not None else parse_html(text)
        full = trafilatura_lines(whole, url, headline, fast=False)
        pristine = pristine and whole is not tree
        n_full = units("\n".join(full))
        if n_full > n_body:
            body_lines, n_body = full, n_full
            text_src = "text by trafilatura's full path"
        if n_body < 0.6 * para_units:
            body_lines = clean_lines("\n".join(t for _p, t in paras), headline)
            n_body = units("\n".join(body_lines))
            text_src = "text from the page's paragraphs"
    lap("trafilatura full")
    text_out = "\n".join(body_lines)
    lang = language(tree, meta, text_out or visible)
    chinese = cjk_share(text_out) > 0.3
    if chinese and n_body < 150:
        dense = density_lines(text, headline)
        n_dense = units("\n".join(dense))
        if n_dense > n_body * 1.5:
            body_lines, n_body = dense, n_dense
            text_src = "text by text density"
            text_out = "\n".join(dense)
            chinese = cjk_share(text_out) > 0.3
    lap("density")
    links = Anchors(k for k in anchors if len(k) >= 8)
    kept = len(body_lines)
    body_lines = cut_link_tail(body_lines, links)
    if chinese:
        body_lines = trim_chinese(body_lines)
    text_out = "\n".join(body_lines)
    # (Both keep a run of the lines: as many lines, the same lines.)
    body_units = n_body if len(body_lines) == kept else units(text_out)
    # How much of the main text is link text: a list's "main text" is its headlines.
    linked = 0
    for line in body_lines:
        if is_link_line(line, links):
            linked += units(line)
    body_link_share = linked / body_units if body_units else 0.0
    lap("clean-up")

    if pub is None and body_units >= 80:
        # (The tree as parsed spares htmldate its own decoding and parse; it reads a copy.)
        pub = htmldate_stamp(tree if pristine else body, url)
        if pub is not None:
            date_src = "htmldate"
    lap("htmldate")

    # The judgement.
    signals: list[str] = []
    points = 0
    og_type = meta.get("og:type", "").lower()
    if og_type == "article" or any(ld_types(i) & ARTICLE_TYPES for i in ld):
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
    elif _INDEX_PATH.search(path) and not _SLUG_DIR.search(path):
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
    signals.append(text_src)
    why = "; ".join(signals)
    lap("judgement")
    if body_units >= 60 and points >= 2 and headline:
        zone, zone_guess = zone_for(urlsplit(url).netloc, lang, zones or {})
        pub_s, inferred1 = format_stamp(pub, zone)
        upd_s, inferred2 = format_stamp(upd, zone)
        article = Article(
            title=headline,
            published=pub_s,
            updated=upd_s,
            authors=authors(tree, meta, ld, near),
            lang=lang,
            text=text_out,
            zone_inferred=(inferred1 or inferred2) and zone_guess,
        )
        lap("authors")
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
