"""The page pipeline alone, one lease at a time: a real aiohttp site on loopback, a real
LevelDB pool and page store in tmp_path, the pool and the pipeline on the core's fake clock.
No dispatcher and no committer: the results are collected as the pipeline hands them on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from aiohttp import web
from warcio.archiveiterator import ArchiveIterator

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import AddRequest, HubSpec, Lease
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import ErrorKind, FetchResult, Politeness, PoolConfig
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.pipeline import PagePipeline
from crawler_gui.engine.robots import RobotsCache
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.stats import CrawlStats
from crawler_gui.engine.store import PageRecord, PageStore
from crawler_gui.engine.turns import TurnBudget
from crawler_gui.engine.warc import WarcWriter
from crawler_gui.errors import StoreCorruptError
from tests.damage import damage_value
from tests.engine.conftest import LOOPBACK_ONLY, fast_settings, serve

ROBOTS = "User-agent: *\nDisallow: /private\n"
HOME = (
    "<html><head><title>Home</title></head><body>"
    '<a href="/a.html">a</a> <a href="/b.html">b</a> '
    '<a href="http://elsewhere.example.org/x.html">off the site</a>'
    "</body></html>"
)
#: Leases are handed to the pipeline by the test, not by a dispatcher: no politeness wait.
EAGER = PoolConfig(politeness=Politeness(min_delay=0.0, delay_factor=0.0, max_in_flight=4))


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 60))


def site(hits: list[str]) -> web.Application:
    async def handle(request: web.Request) -> web.Response:
        hits.append(request.path)
        if request.path == "/robots.txt":
            return web.Response(text=ROBOTS)
        if request.path == "/":
            return web.Response(text=HOME, content_type="text/html")
        return web.Response(text="<title>other</title>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    return app


class Stand:
    """A pipeline over real parts; ``results`` and ``unstored`` are what it handed on."""

    def __init__(self, base: str, pool: LevelDBPool, store: PageStore) -> None:
        self.clock = ManualClock()
        self.settings = fast_settings(obey_robots=True, discover_feeds=False)
        self.fetcher = Fetcher(self.settings, allow_networks=LOOPBACK_ONLY)
        self.results: dict[str, FetchResult] = {}
        self.unstored: list[str] = []
        #: The URLs whose page met a damaged pool or store, with the error (the crawl stops).
        self.fatal: list[tuple[str, Exception]] = []
        self.changes = 0
        self.counters = Counters()
        self.stats = CrawlStats(self.clock.now)
        self.pipeline = PagePipeline(
            pool,
            settings=self.settings,
            fetcher=self.fetcher,
            robots=RobotsCache(self.settings.user_agent, clock=self.clock.now),
            scope=Scope([base + "/"]),
            store=store,
            warc=None,
            clock=self.clock,
            articles=None,
            stats=self.stats,
            counters=self.counters,
            complete=self.results.__setitem__,
            unstored=lambda url, _exc: self.unstored.append(url),
            changed=self.changed,
            fatal=lambda url, exc: self.fatal.append((url, exc)),
        )

    def changed(self) -> None:
        self.changes += 1


async def lease_of(pool: LevelDBPool, url: str) -> Lease:
    await pool.add_many([AddRequest(url, 0, None)])
    (lease,) = await pool.pop(1)
    assert lease.url == url
    return lease


def test_a_page_is_fetched_stored_and_its_links_in_scope_go_to_the_pool(tmp_path: Path) -> None:
    async def main() -> None:
        hits: list[str] = []
        async with serve(site(hits)) as base:
            pool = await LevelDBPool.open_async(tmp_path / "pool", EAGER, ManualClock())
            store = await asyncio.to_thread(PageStore.open_in_pool, tmp_path / "pool")
            stand = Stand(base, pool, store)
            await stand.fetcher.start()
            try:
                home = base + "/"
                await stand.pipeline.process(await lease_of(pool, home))
                assert stand.results[home].status == 200 and stand.results[home].error is None
                assert hits == ["/robots.txt", "/"]
                assert pool.url_state(base + "/a.html") == "waiting"
                assert pool.url_state(base + "/b.html") == "waiting"
                assert pool.url_state("http://elsewhere.example.org/x.html") is None
                await store.flush()
                stored = store.get(home)
                assert stored is not None and stored.title == "Home"
                assert stored.fetched_at == stand.clock.now()  # the crawl's clock
                assert stand.stats.snapshot().pages == 1
                assert stand.unstored == []
            finally:
                await stand.fetcher.close()
                await stand.pipeline.robots.close()
                store.close()
                await pool.close()

    run(main)


def damaged_hub_state(folder: Path, home: str) -> None:
    """A page store in ``folder`` whose state of hub ``home`` is damaged in its table."""
    with PageStore.open_in_pool(folder) as store:
        store.add_hub_fetch(
            PageRecord(
                url=home,
                final_url=home,
                status=200,
                fetched_at=1.7e9,
                content_type="text/html",
                encoding="utf-8",
                title="Home",
                depth=0,
                size=10,
                elapsed=0.1,
                referrer=None,
                redirect_chain=(),
            ),
            {"ETag": '"the-etag-of-the-last-refresh"'},
        )
        # (feed dates, which sort between the hub and the store's own records: the damaged
        # block holds the hub's state, not the schema version read at every open)
        store.add_listed(home + "feed", [(f"{home}article-{i}", 1.7e9, None) for i in range(200)])
    damage_value(folder / "pages", b"the-etag-of-the-last-refresh")


def test_a_damaged_hub_state_stops_the_crawl_and_charges_nothing(tmp_path: Path) -> None:
    """A hub whose refresh state in the page store is damaged (a bit flipped in a table): its
    refresh stops the crawl with the store's clear error, and the hub goes back unfetched: no
    result, no attempt, nothing stored."""
    folder = tmp_path / "pool"

    async def main() -> None:
        hits: list[str] = []
        async with serve(site(hits)) as base:
            home = base + "/"
            await asyncio.to_thread(damaged_hub_state, folder, home)
            pool = await LevelDBPool.open_async(folder, EAGER, ManualClock())
            store = await asyncio.to_thread(PageStore.open_in_pool, folder)
            stand = Stand(base, pool, store)
            await stand.fetcher.start()
            try:
                await pool.set_hubs([HubSpec(home, 60)])
                (lease,) = await pool.pop(1)
                assert lease.is_hub and lease.url == home
                await stand.pipeline.process(lease)
                ((url, exc),) = stand.fatal
                assert url == home and isinstance(exc, StoreCorruptError)
                assert "crawler-gui repair" in str(exc) and "checksum" in str(exc)
                assert stand.results == {}  # no result: nothing charged to the hub
                assert "/" not in hits  # (its refresh never asked for the page)
                assert store.count() == 1
            finally:
                await stand.fetcher.close()
                await stand.pipeline.robots.close()
                store.close()
                await pool.close()

    run(main)


def test_refusals_are_decided_without_a_request(tmp_path: Path) -> None:
    """Disallowed by robots.txt, or outside the scope: refused, counted as refusals (not as
    fetches), and the page is never asked for."""

    async def main() -> None:
        hits: list[str] = []
        async with serve(site(hits)) as base:
            pool = await LevelDBPool.open_async(tmp_path / "pool", EAGER, ManualClock())
            store = await asyncio.to_thread(PageStore.open_in_pool, tmp_path / "pool")
            stand = Stand(base, pool, store)
            await stand.fetcher.start()
            try:
                private = base + "/private/1.html"
                await stand.pipeline.process(await lease_of(pool, private))
                assert stand.results[private].error is ErrorKind.ROBOTS
                # A URL in the pool that the scope no longer covers (a narrowed scope).
                stand.pipeline.scope = Scope(["http://elsewhere.example.org/"])
                other = base + "/a.html"
                await stand.pipeline.process(await lease_of(pool, other))
                assert stand.results[other].error is ErrorKind.OUT_OF_SCOPE
                assert hits == ["/robots.txt"]
                snap = stand.stats.snapshot()
                assert snap.pages == 0 and snap.errors == 0
                await store.flush()
                assert store.count() == 0
            finally:
                await stand.fetcher.close()
                await stand.pipeline.robots.close()
                store.close()
                await pool.close()

    run(main)


class CountingBudget(TurnBudget):
    """The real turn budget, counting how often a page asked it for a turn."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def checkpoint(self) -> None:
        self.calls += 1
        await super().checkpoint()


def test_only_a_page_waits_for_a_turn_for_its_work(tmp_path: Path) -> None:
    """Every lease asks for a turn before it starts; after the fetch only a page (parse,
    links, store) asks again: a dead link or a redirect has nothing left to spread out."""

    async def handle(request: web.Request) -> web.Response:
        if request.path == "/robots.txt":
            return web.Response(text="")
        if request.path == "/gone":
            return web.Response(status=404, text="gone")
        if request.path == "/moved":
            raise web.HTTPMovedPermanently("http://elsewhere.example.org/a.html")
        return web.Response(text=HOME, content_type="text/html")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)

    async def main() -> None:
        async with serve(app) as base:
            pool = await LevelDBPool.open_async(tmp_path / "pool", EAGER, ManualClock())
            store = await asyncio.to_thread(PageStore.open_in_pool, tmp_path / "pool")
            stand = Stand(base, pool, store)
            budget = stand.pipeline.turns = CountingBudget()
            await stand.fetcher.start()
            try:
                expected = {"/gone": (404, 1), "/moved": (301, 1), "/": (200, 2)}
                for path, (status, calls) in expected.items():
                    budget.calls = 0
                    await stand.pipeline.process(await lease_of(pool, base + path))
                    assert stand.results[base + path].status == status
                    assert budget.calls == calls, path
                assert pool.url_state(base + "/a.html") == "waiting"  # the page's work was done
            finally:
                await stand.fetcher.close()
                await stand.pipeline.robots.close()
                store.close()
                await pool.close()

    run(main)


def test_a_header_byte_that_is_not_utf8_is_stored_and_the_crawl_goes_on(tmp_path: Path) -> None:
    """A server whose headers carry a Latin-1 byte (raw, as many old servers send): the page
    is stored with its links queued, its headers read as Latin-1 (the content type from the
    fetch on, the detail, the WARC); the store
    takes the next page too (such a byte once failed every later write of the page store)."""
    body = b"<html><title>Caf\xc3\xa9</title><body><a href='/a.html'>a</a></body></html>"
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8; name=caf\xe9\r\n"
        b"X-Note: caf\xe9\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    ) + body

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(answer)
                await writer.drain()
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        pool = await LevelDBPool.open_async(tmp_path / "pool", EAGER, ManualClock())
        store = await asyncio.to_thread(PageStore.open_in_pool, tmp_path / "pool")
        stand = Stand(base, pool, store)
        stand.pipeline.warc = warc = WarcWriter(tmp_path / "warc")
        await stand.fetcher.start()
        try:
            for path in ("/", "/b.html"):
                url = base + path
                await stand.pipeline.process(await lease_of(pool, url))
                assert stand.results[url].status == 200
                await store.flush()
            assert pool.url_state(base + "/a.html") == "waiting"
            seq = store.seq_of(base + "/")
            assert seq is not None
            detail = store.detail(seq)
            assert detail is not None and ["X-Note", "café"] in detail["response_headers"]
            stored = store.get(base + "/")
            assert stored is not None
            assert stored.content_type == "text/html; charset=utf-8; name=café"
            assert stored.encoding == "utf-8" and stored.title == "Café"
            assert store.get(base + "/b.html") is not None
            assert stand.unstored == []
            warc.close()
            (path,) = (tmp_path / "warc").iterdir()
            with open(path, "rb") as fh:
                notes = [
                    rec.http_headers.get_header("X-Note")
                    for rec in ArchiveIterator(fh)
                    if rec.rec_type == "response"
                ]
            # The crawl's WARC reads the header as the store does (Latin-1: warcio writes
            # non-ASCII header text percent-encoded as UTF-8; it wrote U+FFFD, %EF%BF%BD).
            assert notes == ["caf%C3%A9", "caf%C3%A9"]
        finally:
            await stand.fetcher.close()
            await stand.pipeline.robots.close()
            store.close()
            await pool.close()
            server.close()
            await server.wait_closed()

    run(main)
