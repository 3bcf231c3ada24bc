"""A fetched page decoded and parsed: its title, encoding and links in the crawl's scope; a
feed's or a sitemap's items; the links of stored pages. Pure work on bytes, safe in a worker
thread: nothing here touches the crawler's state (``engine/pipeline.py`` decides where it runs).
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import threading
from collections.abc import Iterator

from crawler_gui.engine.decode import decode_body_explained, sniff_kind
from crawler_gui.engine.feeds import HubDocument, parse_hub_document
from crawler_gui.engine.fetch import FetchOutcome
from crawler_gui.engine.links import extract_links
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.store import MAX_DETAIL_LINKS, PageRecord

#: A parsed page: title, encoding, how the encoding was decided, links in scope, and the other
#: links as ``(url, outcome, reason)`` (up to :data:`MAX_DETAIL_LINKS`).
ParsedPage = tuple[str, str, str, list[str], list[tuple[str, str, str]]]


class _GcState:
    lock = threading.Lock()
    pausers = 0
    was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a worker thread parses a big page.

    Parsing a page of 300,000 links makes as many short-lived node objects (freed by their
    reference counts, never cyclic); collections triggered meanwhile would walk the whole heap,
    and a full one holds the GIL, so the event loop (the GUI thread), for 100 ms or more. The
    collector is switched back on (if it was on) when the last such parse ends."""
    state = _GcState
    with state.lock:
        if state.pausers == 0:
            state.was_enabled = gc.isenabled()
            gc.disable()
        state.pausers += 1
    try:
        yield
    finally:
        with state.lock:
            state.pausers -= 1
            if state.pausers == 0 and state.was_enabled:
                gc.enable()


def parse_page(outcome: FetchOutcome, scope: Scope | None, others: bool) -> ParsedPage:
    """Decode and parse a page: its title, encoding, how the encoding was decided, its
    links in ``scope`` (none without a scope) and, with ``others``, up to
    :data:`MAX_DETAIL_LINKS` of the rest as ``(url, "off_scope", reason)`` (or
    ``not_followed`` without a scope: the depth limit). Runs in a worker thread for a big
    page: nothing here touches the crawler's state."""
    body = outcome.body
    text, encoding, how = decode_body_explained(body, outcome.content_type)
    source: str | bytes = text
    if (
        encoding in ("utf-8", "ascii")
        and "\ufffd" not in text
        and not body.startswith(codecs.BOM_UTF8)
    ):
        # The whole body decoded strictly: ``text.encode()`` would give back these very
        # bytes, which extract_links passes to the parser as they are (saves a re-encode).
        source = body
    links, title = extract_links(source, outcome.final_url)
    rest: list[tuple[str, str, str]] = []
    if scope is None:
        if others:
            rest = [(link, "not_followed", "depth limit") for link in links]
        return title, encoding, how, [], rest[:MAX_DETAIL_LINKS]
    check = scope.check
    kept: list[str] = []
    for link in links:
        why = check(link)
        if why is None:
            kept.append(link)
        elif others and len(rest) < MAX_DETAIL_LINKS:
            rest.append((link, "off_scope", why))
    return title, encoding, how, kept, rest


def parse_page_big(outcome: FetchOutcome, scope: Scope | None, others: bool) -> ParsedPage:
    """:func:`parse_page` in a worker thread, with the garbage collector paused."""
    with gc_paused():
        return parse_page(outcome, scope, others)


def parse(outcome: FetchOutcome, scope: Scope | None) -> tuple[str, str, list[str]]:
    """Decode and parse a page; its links in ``scope`` (none without a scope)."""
    title, encoding, _how, links, _others = parse_page(outcome, scope, False)
    return title, encoding, links


def parse_big(outcome: FetchOutcome, scope: Scope | None) -> tuple[str, str, list[str]]:
    """:func:`parse` in a worker thread, with the garbage collector paused."""
    with gc_paused():
        return parse(outcome, scope)


def links_of_records(
    records: Iterator[PageRecord], scope: Scope, count: int
) -> list[tuple[str, int, list[str]]]:
    """The next ``count`` stored pages' links in ``scope`` (a worker thread's work)."""
    out: list[tuple[str, int, list[str]]] = []
    for record in records:
        if record.body is None or sniff_kind(record.content_type, record.body) != "html":
            continue
        page = FetchOutcome(
            url=record.url,
            final_url=record.final_url,
            content_type=record.content_type,
            body=record.body,
        )
        _title, _encoding, links = parse_big(page, scope)
        out.append((record.final_url, record.depth, links))
        if len(out) >= count:
            break
    return out


def hub_items(
    body: bytes, url: str, content_type: str, scope: Scope
) -> tuple[HubDocument, list[tuple[str, float | None, float | None]]]:
    """A feed or sitemap parsed, and its items in ``scope`` as ``(url, published, updated)``
    (POSIX seconds or None). A worker thread's work for a big one: a sitemap of 50,000 URLs
    costs the loop some 120 ms of scope checks alone."""
    doc = parse_hub_document(body, url, content_type)
    check = scope.check
    items = [
        (
            item.url,
            item.published.timestamp() if item.published else None,
            item.updated.timestamp() if item.updated else None,
        )
        for item in doc.items
        if check(item.url) is None
    ]
    return doc, items
