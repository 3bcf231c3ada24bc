"""Feeds and sitemaps as hubs, conditional refresh and changed-only hub bodies, end to end: a
real crawl (real LevelDB pool and page store) against a real aiohttp server on loopback."""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

import crawler_gui.engine.pipeline as pipeline_module
from crawler_gui.core.frontier import HubSpec
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState

FAST = CrawlSettings(
    concurrency=8,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    idle_span=30.0,
    retry_base=0.1,
    allow_private=True,
    hub_span=300.0,
)
PUBLISHED = datetime(2024, 5, 1, 8, 30, tzinfo=UTC)


def run(coro_fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(coro_fn(), 90))


async def wait_for(condition: Callable[[], bool], what: str) -> None:
    while not condition():
        await asyncio.sleep(0.02)


@dataclass
class Site:
    """A small news site: a home page announcing a feed, robots.txt naming a sitemap index
    of ``children`` news sitemaps, a list page whose body and validators the test changes."""

    children: int = 2
    validators: bool = True
    list_items: list[int] = field(default_factory=lambda: [1, 2])
    fetches: Counter[str] = field(default_factory=Counter)
    not_modified: int = 0
    list_bytes: int = 0
    port: int = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _list_body(self) -> bytes:
        links = "".join(f'<li><a href="/l{i}.html">story {i}</a></li>' for i in self.list_items)
        return (
            f"<!DOCTYPE html><html><head><title>List</title></head><body><ul>{links}</ul>".encode()
        )

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.fetches[path] += 1
        html = {"Content-Type": "text/html; charset=utf-8"}
        xml = {"Content-Type": "application/xml"}
        if path == "/robots.txt":
            body = f"User-agent: *\nDisallow:\nSitemap: {self.url('/sitemap-index.xml')}\n"
            return web.Response(text=body)
        if path == "/":
            return web.Response(
                body=(
                    b'<!DOCTYPE html><html><head><title>Home</title><link rel="alternate" '
                    b'type="application/rss+xml" href="/rss.xml"><link rel="alternate" '
                    b'type="application/rss+xml" href="http://127.0.0.2:1/elsewhere.xml">'
                    b'</head><body><a href="/list.html">list</a></body></html>'
                ),
                headers=html,
            )
        if path == "/rss.xml":
            date = email.utils.format_datetime(PUBLISHED)
            items = "".join(
                f"<item><title>feed {i}</title><link>{self.url(f'/f{i}.html')}</link>"
                f"<pubDate>{date}</pubDate></item>"
                for i in range(3)
            )
            body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>{items}'
            return web.Response(
                body=(body + "</channel></rss>").encode(),
                headers={"Content-Type": "application/rss+xml"},
            )
        if path == "/sitemap-index.xml":
            children = "".join(
                f"<sitemap><loc>{self.url(f'/news-{k}.xml')}</loc></sitemap>"
                for k in range(self.children)
            )
            children += "<sitemap><loc>http://127.0.0.2:1/other.xml</loc></sitemap>"
            return web.Response(
                body=(
                    '<?xml version="1.0"?><sitemapindex '
                    f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{children}'
                    "</sitemapindex>"
                ).encode(),
                headers=xml,
            )
        if path.startswith("/news-"):
            k = path.removeprefix("/news-").removesuffix(".xml")
            return web.Response(
                body=(
                    '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                    'sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
                    f"<url><loc>{self.url(f'/s{k}.html')}</loc><news:news>"
                    "<news:publication_date>2024-05-02T10:00:00+08:00</news:publication_date>"
                    "</news:news></url></urlset>"
                ).encode(),
                headers=xml,
            )
        if path == "/list.html":
            body = self._list_body()
            etag = f'"{hashlib.sha1(body).hexdigest()[:12]}"'
            headers = dict(html)
            if self.validators:
                headers["ETag"] = etag
                if request.headers.get("If-None-Match") == etag:
                    self.not_modified += 1
                    return web.Response(status=304, headers={"ETag": etag})
            self.list_bytes += len(body)
            return web.Response(body=body, headers=headers)
        if path.endswith(".html"):
            return web.Response(
                body=f"<html><head><title>{path}</title></head><body>x</body></html>".encode(),
                headers=html,
            )
        return web.Response(status=404)


@asynccontextmanager
async def serving(site: Site) -> AsyncIterator[Site]:
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", site.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    site.port = runner.addresses[0][1]
    try:
        yield site
    finally:
        await runner.cleanup()


async def crawl(
    tmp: Path, site: Site, settings: CrawlSettings, hubs: list[str], seeds: list[str]
) -> CrawlSession:
    session = await CrawlSession.open(tmp / "pool", settings)
    await session.crawler.set_hubs([HubSpec(u, settings.hub_span) for u in hubs])
    if seeds:
        await session.crawler.add_seeds(seeds)
    return session


def test_feeds_and_sitemaps_become_hubs_and_their_items_are_crawled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline_module, "INDEX_CHILDREN", 3)

    async def main() -> None:
        async with serving(Site(children=5)) as site:
            session = await crawl(tmp_path, site, FAST, [site.url("/")], [])
            async with session:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                hubs = {h.url for h in await session.crawler.hubs()}
                # The feed announced in the home page's head, the sitemap index named in
                # robots.txt, and the first 3 of its in-scope children (not the one elsewhere).
                assert hubs == {
                    site.url("/"),
                    site.url("/rss.xml"),
                    site.url("/sitemap-index.xml"),
                    *(site.url(f"/news-{k}.xml") for k in range(3)),
                }
                stored = {r.final_url: r for r in session.store.iter_records()}
                for i in range(3):  # the feed's items, at the hub's depth + 1
                    record = stored[site.url(f"/f{i}.html")]
                    assert record.depth == 1 and record.referrer == site.url("/rss.xml")
                    listed = session.store.listed(site.url(f"/f{i}.html"))
                    assert listed is not None
                    assert listed["published"] == PUBLISHED.timestamp()
                    assert listed["via"] == site.url("/rss.xml")
                for k in range(3):  # each child sitemap's article
                    assert site.url(f"/s{k}.html") in stored
                    listed = session.store.listed(site.url(f"/s{k}.html"))
                    assert listed is not None
                    assert listed["published"] == datetime(2024, 5, 2, 2, tzinfo=UTC).timestamp()
                assert site.url("/s3.html") not in stored  # its sitemap was past the bound
                assert site.fetches["/rss.xml"] == 1 and site.fetches["/news-4.xml"] == 0

    run(main)


def test_discovery_can_be_turned_off(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(Site()) as site:
            settings = replace(FAST, discover_feeds=False)
            session = await crawl(tmp_path, site, settings, [site.url("/")], [])
            async with session:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                assert {h.url for h in await session.crawler.hubs()} == {site.url("/")}
                assert site.fetches["/rss.xml"] == site.fetches["/sitemap-index.xml"] == 0

    run(main)


def test_auto_hubs_are_bounded_per_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline_module, "AUTO_HUBS_PER_HOST", 2)

    async def main() -> None:
        async with serving(Site(children=5)) as site:
            session = await crawl(tmp_path, site, FAST, [site.url("/")], [])
            async with session:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                hubs = {h.url for h in await session.crawler.hubs()}
                assert len(hubs) == 1 + 2

    run(main)


def test_conditional_refresh_304_is_a_successful_refresh_that_stores_nothing(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        async with serving(Site()) as site:
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS, discover_feeds=False)
            hub = site.url("/list.html")
            session = await crawl(tmp_path, site, settings, [], [])
            async with session:
                await session.crawler.set_hubs([HubSpec(hub, 0.2)])
                session.crawler.start()
                await wait_for(lambda: site.not_modified >= 2, "two 304s")
                # The list changes: the next refresh gets it whole and finds the new story.
                site.list_items.append(3)
                await wait_for(lambda: site.fetches["/l3.html"] == 1, "the new story")
                await wait_for(lambda: site.not_modified >= 3, "a 304 for the new list")
                await session.crawler.stop()
                records = [r for r in session.store.iter_records(with_body=True) if r.url == hub]
                # Two bodies stored (the first list and the changed one); the 304s noted only.
                assert [r.body is not None for r in records] == [True, True]
                assert b"/l3.html" in (records[1].body or b"")
                state = session.store.hub_state(hub)
                assert state["not_modified"] == site.not_modified
                rows = {row.url: row for row in (await session.frontier.snapshot()).hubs}
                assert rows[hub].last_result == "304" and not rows[hub].parked
                assert rows[hub].crashes == 0
                # For the learned rate the 304 is a refresh that found nothing new (the one
                # before it found the new story); the list's size is the last body's.
                assert rows[hub].last_new == 0 and rows[hub].listed == len(site.list_items)
                totals = (await session.frontier.snapshot()).totals
                assert totals.failed == 0

    run(main)


def test_unchanged_body_without_validators_is_not_stored_twice(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(Site(validators=False)) as site:
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS, discover_feeds=False)
            hub = site.url("/list.html")
            session = await crawl(tmp_path, site, settings, [], [])
            async with session:
                await session.crawler.set_hubs([HubSpec(hub, 0.2)])
                session.crawler.start()
                await wait_for(lambda: site.fetches["/list.html"] >= 3, "three fetches")
                await session.crawler.stop()
                records = [r for r in session.store.iter_records(with_body=True) if r.url == hub]
                assert len(records) >= 3  # every fetch noted
                assert sum(r.body is not None for r in records) == 1  # its body once
                assert site.not_modified == 0

    run(main)


def test_demo_crawl_with_feeds_reaches_everything(tmp_path: Path) -> None:
    async def main() -> None:
        async with DemoSite(hosts=4, articles_per_host=12, feeds=True) as site:
            session = await CrawlSession.open(tmp_path / "pool", FAST, demo_site=site)
            async with session:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                finals = [r.final_url for r in session.store.iter_records()]
                assert set(finals) == site.expected_urls()
                hubs = {h.url for h in await session.crawler.hubs()}
                assert set(site.feed_urls()) | set(site.sitemap_urls()) <= hubs
                assert site.feed_urls() and site.sitemap_urls()
                article = next(
                    u
                    for u in site.expected_urls()
                    if u.startswith(site.feed_urls()[0][:-9]) and u.endswith("1.html")
                )
                listed = session.store.listed(article)
                assert listed is not None and listed["published"] is not None
                # The disk use, measured off the loop, shows in the crawl's stats.
                await wait_for(lambda: bool(session.crawler.stats().disk_use), "disk use")
                use = session.crawler.stats().disk_use
                assert use["pages"] > 0 and use["pool"] > 0
                assert use["total"] == use["pool"] + use["pages"]

    run(main)


def test_demo_site_answers_conditional_requests(tmp_path: Path) -> None:
    import aiohttp

    async def main() -> None:
        async with (
            DemoSite(hosts=1, articles_per_host=8, feeds=True) as site,
            aiohttp.ClientSession() as http,
        ):
            for url in [*site.hub_urls()[:2], *site.feed_urls(), *site.sitemap_urls()]:
                async with http.get(url) as resp:
                    assert resp.status == 200
                    etag, modified = resp.headers["ETag"], resp.headers["Last-Modified"]
                    await resp.read()
                async with http.get(url, headers={"If-None-Match": etag}) as resp:
                    assert resp.status == 304 and await resp.read() == b""
                async with http.get(url, headers={"If-Modified-Since": modified}) as resp:
                    assert resp.status == 304
                async with http.get(url, headers={"If-None-Match": '"other"'}) as resp:
                    assert resp.status == 200
            assert site.not_modified == 2 * 5
            async with http.get(site.seed_urls()[0].rstrip("/") + "/robots.txt") as resp:
                assert f"Sitemap: {site.sitemap_urls()[0]}" in await resp.text()

    run(main)


def test_an_article_without_a_date_takes_its_feed_date(tmp_path: Path) -> None:
    """Through the real extraction pool: the page gives no date, the feed that listed it does
    (looked up in the page store off the loop); a page's own date wins over the feed's."""
    from crawler_gui.engine.extract.pool import ExtractPool
    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.store import PageStore

    paragraph = (
        "<p>The harbour authority said on the record that the new berths will open to "
        "container traffic next spring, after two years of dredging and a long dispute "
        "over the cost of the breakwater that protects the inner basin.</p>"
    )

    def page(dateline: str) -> bytes:
        return (
            "<html><head><title>Harbour opens new berths</title></head><body>"
            "<nav><a href='/'>Home</a> <a href='/world'>World</a></nav><article>"
            f"<h1>Harbour opens new berths</h1>{dateline}{paragraph * 6}</article>"
            "</body></html>"
        ).encode()

    feed = "http://127.0.0.1:8631/feed.xml"
    undated, dated = "http://127.0.0.1:8631/a1.html", "http://127.0.0.1:8631/a2.html"
    own_date = '<time datetime="2024-04-30T10:00:00+08:00">30 April 2024</time>'

    async def main() -> None:
        with PageStore.open(tmp_path / "pages") as store:
            stamp = PUBLISHED.timestamp()
            store.add_listed(feed, [(undated, stamp, stamp + 60), (dated, stamp, None)])
            async with ExtractPool(1) as pool:
                articles = Articles(pool, store)
                await articles.page(1, undated, page(""), "text/html", is_html=True)
                await articles.page(2, dated, page(own_date), "text/html", is_html=True)
                await articles.drain()
            store.flush_sync()
            first, second = store.extraction(1), store.extraction(2)
        assert first is not None and second is not None
        assert first["kind"] == "article" and second["kind"] == "article"
        assert first["article"]["published"] == "2024-05-01T08:30:00+00:00"
        assert first["article"]["updated"] == "2024-05-01T08:31:00+00:00"
        # The page's own date wins over the feed's.
        assert second["article"]["published"] == "2024-04-30T10:00:00+08:00"
        assert second["article"]["updated"] is None

    asyncio.run(main())


def test_demo_site_without_validators_always_sends_the_body() -> None:
    import aiohttp

    async def main() -> None:
        async with (
            DemoSite(hosts=1, articles_per_host=8, validators=False) as site,
            aiohttp.ClientSession() as http,
        ):
            url = site.hub_urls()[0]
            async with http.get(url, headers={"If-None-Match": "*"}) as resp:
                assert resp.status == 200 and "ETag" not in resp.headers
                assert site.hub_bytes == len(await resp.read()) > 0
            assert site.not_modified == 0

    run(main)


def test_feeds_become_hubs_and_304s_succeed_on_a_redis_pool(
    redis_server: str, tmp_path: Path
) -> None:
    import uuid

    async def main() -> None:
        async with serving(Site(children=1)) as site:
            url = f"{redis_server}?name=feeds-{uuid.uuid4().hex[:10]}"
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS)
            session = await CrawlSession.open(url, settings, store_dir=tmp_path / "w1")
            async with session:
                hub = site.url("/list.html")
                await session.crawler.set_hubs([HubSpec(site.url("/"), 300.0), HubSpec(hub, 0.2)])
                session.crawler.start()
                await wait_for(lambda: site.fetches["/s0.html"] == 1, "the sitemap's article")
                await wait_for(lambda: site.fetches["/f2.html"] == 1, "the feed's article")
                await wait_for(lambda: site.not_modified >= 2, "two 304s")
                await session.crawler.stop()
                hubs = {h.url for h in await session.crawler.hubs()}
                assert {site.url("/rss.xml"), site.url("/sitemap-index.xml")} <= hubs
                assert site.url("/news-0.xml") in hubs
                rows = {row.url: row for row in (await session.frontier.snapshot()).hubs}
                assert rows[hub].last_result == "304" and not rows[hub].parked
                assert (await session.frontier.snapshot()).totals.failed == 0

    run(main)
