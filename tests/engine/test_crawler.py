"""The crawl engine end to end, against the real demo site on loopback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import HubSpec
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState

FAST = CrawlSettings(
    concurrency=16,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    idle_span=30.0,
    retry_base=0.1,
    allow_private=True,
)


def run(coro_fn: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(coro_fn(), 90))


async def open_demo(tmp: Path, site: DemoSite, settings: CrawlSettings = FAST) -> CrawlSession:
    return await CrawlSession.open(tmp / "pool", settings, demo_site=site)


def fetched_final_urls(session: CrawlSession) -> list[str]:
    return [r.final_url for r in session.store.iter_records()]


def test_demo_site_crawled_until_idle_reaches_everything_exactly_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            DemoSite(hosts=6, articles_per_host=24) as site,
            await open_demo(tmp_path, site) as session,
        ):
            session.crawler.start()
            assert await session.crawler.wait() is CrawlState.FINISHED
            finals = fetched_final_urls(session)
            expected = site.expected_urls()
            assert set(finals) == expected
            assert len(finals) == len(expected)  # each page stored once
            # fetched once over the wire too, apart from the 500s that recover
            recovering = site.recovering_urls()
            for url, count in site.fetch_counts.items():
                assert count == 1 + recovering.get(url, 0), url
            assert max(site.max_concurrent_by_host.values()) == 1
            assert not (set(finals) & site.private_urls())  # robots.txt obeyed
            totals = (await session.frontier.snapshot()).totals
            assert totals.waiting == totals.pending == totals.retrying == 0
            record = session.store.get(sorted(expected)[0])
            assert record is not None and record.status == 200 and record.title
            gbk = [r for r in session.store.iter_records() if r.encoding == "gb18030"]
            assert gbk and all("\ufffd" not in r.title for r in gbk)

    run(main)


def test_pause_stops_new_fetches_and_resume_continues(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            DemoSite(hosts=4, articles_per_host=16) as site,
            await open_demo(tmp_path, site) as session,
        ):
            crawler = session.crawler
            crawler.start()
            while crawler.stats().pages < 10:
                await asyncio.sleep(0.01)
            crawler.pause()
            assert crawler.state is CrawlState.PAUSED
            while crawler.in_flight:
                await asyncio.sleep(0.01)
            before = site.total_requests
            await asyncio.sleep(0.5)
            assert site.total_requests == before
            crawler.resume()
            assert await crawler.wait() is CrawlState.FINISHED
            assert site.total_requests > before

    run(main)


def test_stop_at_once_puts_unfinished_urls_back_and_resume_completes(tmp_path: Path) -> None:
    async def main() -> None:
        async with DemoSite(hosts=4, articles_per_host=16, slow_share=0.5, slow_delay=5.0) as site:
            async with await open_demo(tmp_path, site) as session:
                session.crawler.start()
                pool = session.frontier
                # A page, not a hub (hubs come first and are never "waiting"), in flight for
                # long enough to be one of the slow ones (5 s): the stop cuts it off for sure.
                slow: list[str] = []
                for _ in range(3000):
                    await asyncio.sleep(0.01)
                    now = time.time()
                    slow = [
                        p.url
                        for p in (await pool.snapshot()).pending
                        if not p.is_hub and now - p.started > 1.0
                    ]
                    if slow:
                        break
                assert slow, "no page stayed in flight"
                await session.crawler.stop(wait_in_flight=False)
                assert session.crawler.state is CrawlState.STOPPED
                totals = (await pool.snapshot()).totals
                assert totals.pending == 0
                assert totals.waiting > 0
                # the page cut off went back to its queue
                assert pool.url_state(slow[0]) == "waiting"
            fast = DemoSite(hosts=4, articles_per_host=16, port=site.port, slow_share=0.0)
        async with (
            fast,
            await CrawlSession.open(tmp_path / "pool", FAST, demo_site=None) as session,
        ):
            session.crawler.start()
            assert await session.crawler.wait() is CrawlState.FINISHED
            assert set(fetched_final_urls(session)) == fast.expected_urls()

    run(main)


def test_max_pages_stops_the_crawl(tmp_path: Path) -> None:
    async def main() -> None:
        async with DemoSite(hosts=3, articles_per_host=12) as site:
            settings = replace(FAST, max_pages=7)
            async with await open_demo(tmp_path, site, settings) as session:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.STOPPED
                assert site.total_requests - _robots(site) == 7

    run(main)


async def until(cond: Callable[[], Coroutine[Any, Any, bool]], what: str) -> None:
    """Wait (on the loop, bounded by run()) until ``cond()`` holds."""
    while not await cond():
        await asyncio.sleep(0.02)


async def waits_for_the_clock(session: CrawlSession, clock: ManualClock) -> bool:
    """The crawl has nothing in flight and nothing due before the clock moves."""
    totals = await session.frontier.totals()
    due = await session.frontier.next_due()
    return totals.pending == 0 and (due is None or due > clock.now())


def test_continuous_mode_refreshes_hubs_on_their_span_of_the_crawls_clock(
    tmp_path: Path,
) -> None:
    """Hub timing on a fake clock, without sleeping: the hub is refreshed when its span has
    passed on the crawl's clock, and not before, however long the loop runs meanwhile."""

    async def main() -> None:
        clock = ManualClock()
        async with DemoSite(hosts=2, articles_per_host=8) as site:
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS, hub_refresh="fixed")
            async with await CrawlSession.open(
                tmp_path / "pool", settings, demo_site=site, clock=clock
            ) as session:
                hub = site.hub_urls()[0]
                await session.crawler.set_hubs([HubSpec(hub, 300.0)])
                session.crawler.start()
                for fetches in (1, 2, 3):
                    await until(lambda: waits_for_the_clock(session, clock), "quiet")
                    assert site.fetch_counts.get(hub, 0) == fetches
                    (row,) = (await session.frontier.snapshot()).hubs
                    assert row.last_refresh == clock.now()  # (the clock has not moved)
                    assert row.next_due == clock.now() + 300.0  # its span, on this clock
                    assert session.crawler.state is CrawlState.RUNNING
                    clock.advance(300.0)
                    session.crawler.wake()
                    await until(lambda n=fetches: _true(site.fetch_counts[hub] > n), "the refresh")
                await session.crawler.stop()
                refreshes = [r for r in session.store.iter_records() if r.url == hub]
                # The first fetch is stored; the demo's hub never changes, so every refresh
                # after it is a conditional request answered 304: counted, not stored.
                assert len(refreshes) == 1
                state = session.store.hub_state(hub)
                assert state["not_modified"] >= 2 and state["etag"]
                assert site.not_modified >= 2

    run(main)


async def _true(value: bool) -> bool:
    return value


def test_retries_wait_for_their_backoff_on_the_crawls_clock(tmp_path: Path) -> None:
    """The demo's recovering articles fail first: their retries come due when the backoff
    (or Retry-After) has passed on the crawl's clock, and the crawl, busy until then, waits
    for the clock without sleeping."""

    async def main() -> None:
        clock = ManualClock()
        async with DemoSite(hosts=6, articles_per_host=24) as site:
            recovering = site.recovering_urls()
            assert recovering
            settings = replace(FAST, retry_base=3600.0)
            async with await CrawlSession.open(
                tmp_path / "pool", settings, demo_site=site, clock=clock
            ) as session:
                session.crawler.start()
                for _ in range(max(recovering.values()) + 1):
                    await until(lambda: waits_for_the_clock(session, clock), "quiet")
                    totals = await session.frontier.totals()
                    if not totals.retrying:
                        break
                    assert session.crawler.state is CrawlState.RUNNING  # busy: retries due
                    due = [r.next_try for r in (await session.frontier.snapshot()).retrying]
                    assert min(due) > clock.now()  # not before the clock moves
                    clock.set(max(due))
                    session.crawler.wake()
                assert await session.crawler.wait() is CrawlState.FINISHED
                assert set(fetched_final_urls(session)) == site.expected_urls()
                for url, failures in recovering.items():
                    assert site.fetch_counts[url] == failures + 1, url

    run(main)


def test_politeness_delay_is_kept_on_the_crawls_clock(tmp_path: Path) -> None:
    """One host, a 10-minute politeness delay on a fake clock: one fetch of the host per
    delay, each after the clock has moved by it (and none while it stands still)."""

    async def main() -> None:
        clock = ManualClock()
        async with DemoSite(hosts=1, articles_per_host=8, slow_share=0.0) as site:
            settings = replace(FAST, min_delay=600.0)
            # (not as the demo's crawl, whose settings keep their own short delay; no hubs)
            async with await CrawlSession.open(tmp_path / "pool", settings, clock=clock) as session:
                await session.crawler.add_seeds(site.seed_urls())
                crawler = session.crawler

                async def host_served_since(allowed: float) -> bool:
                    (row,) = (await session.frontier.snapshot()).hosts
                    return row.next_allowed > allowed or crawler.state is not CrawlState.RUNNING

                crawler.start()
                per_round: list[int] = []
                for _ in range(200):
                    await until(lambda: waits_for_the_clock(session, clock), "quiet")
                    if crawler.state is CrawlState.FINISHED:
                        break
                    (host,) = (await session.frontier.snapshot()).hosts
                    assert host.delay == 600.0 and host.next_allowed == clock.now() + 600.0
                    before = crawler.stats().pages
                    clock.advance(600.0)
                    crawler.wake()
                    allowed = host.next_allowed
                    await until(lambda a=allowed: host_served_since(a), "the next fetch")
                    await until(lambda: waits_for_the_clock(session, clock), "quiet")
                    per_round.append(crawler.stats().pages - before)
                assert await crawler.wait() is CrawlState.FINISHED
                assert len(per_round) > 8 and max(per_round) == 1  # one fetch per delay
                assert len(fetched_final_urls(session)) > 8

    run(main)


def _robots(site: DemoSite) -> int:
    return sum(n for url, n in site.fetch_counts.items() if url.endswith("/robots.txt"))


def test_unreachable_robots_txt_retries_pages_instead_of_failing_them(tmp_path: Path) -> None:
    from aiohttp import web

    from tests.engine.conftest import serve

    async def robots(_request: web.Request) -> web.Response:
        return web.Response(status=503)

    async def page(_request: web.Request) -> web.Response:
        return web.Response(text="<title>x</title>", content_type="text/html")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/robots.txt", robots)
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            settings = replace(FAST, obey_robots=True, max_pages=1)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                await session.crawler.add_seeds([base + "/story.html"])
                session.crawler.start()
                await session.crawler.wait()
                pool = session.frontier
                assert pool.url_state(base + "/story.html") == "retrying"
                (row,) = (await pool.snapshot()).retrying
                assert "robots.txt unreachable" in row.last_error
                assert row.kind == "robots_unreachable"  # the Why: "robots.txt unreachable..."
                host = base.split("://", 1)[1]
                kept = await session.crawler.host_robots(host)  # as fetched, for the detail
                assert kept is not None and kept.status == 503 and kept.unreachable

    run(main)


def test_refusals_are_final_and_come_back_when_the_policy_widens(tmp_path: Path) -> None:
    """A refused URL (address, scope) is decided once: no retry, no error, the until-idle
    crawl ends at once. Allowing private addresses, then the redirect's domain, brings each
    refusal back exactly when it is covered."""
    from aiohttp import web

    from tests.engine.conftest import serve

    async def main() -> None:
        other: list[str] = []

        async def page(request: web.Request) -> web.Response:
            if request.path == "/away":
                raise web.HTTPFound(other[0] + "/there")
            return web.Response(text="<title>x</title>", content_type="text/html")

        app, app2 = web.Application(), web.Application()
        app.router.add_get("/{tail:.*}", page)
        app2.router.add_get("/{tail:.*}", page)
        async with serve(app) as base, serve(app2, "127.0.0.2") as base2:
            other.append(base2)
            settings = replace(FAST, allow_private=False, retry_base=600.0)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                crawler, pool = session.crawler, session.frontier
                await crawler.add_seeds([base + "/story", base + "/away"])
                crawler.start()
                # retried, the refusals would keep the crawl waiting for 10 minutes
                assert await asyncio.wait_for(crawler.wait(), 30) is CrawlState.FINISHED
                totals = (await pool.snapshot()).totals
                assert (totals.refused_urls, totals.failed, totals.retrying) == (2, 2, 0)
                assert crawler.stats().errors == 0 and crawler.stats().refused == 2

                settings = replace(settings, allow_private=True)
                crawler.apply_settings(settings)
                crawler.start()
                assert await asyncio.wait_for(crawler.wait(), 30) is CrawlState.FINISHED
                assert pool.url_state(base + "/story") == "done"
                # the redirect leaves the seeds' domain: refused, with its target kept
                assert pool.url_state(base + "/away") == "failed"
                assert pool.url_state(base2 + "/there") is None
                assert (await pool.snapshot()).totals.refused_urls == 1

                crawler.apply_settings(replace(settings, allow_domains=("127.0.0.2",)))
                crawler.start()
                assert await asyncio.wait_for(crawler.wait(), 30) is CrawlState.FINISHED
                assert pool.url_state(base + "/away") == "redirected"
                assert pool.url_state(base2 + "/there") == "done"
                assert (await pool.snapshot()).totals.refused_urls == 0

    run(main)


def test_a_pooled_url_outside_the_scope_is_a_refusal_not_an_error(tmp_path: Path) -> None:
    """A URL that reached the pool without the links' scope check (a loaded snapshot) is
    refused before any request: counted as refused, not as a failed fetch."""
    from aiohttp import web

    from tests.engine.conftest import serve

    async def main() -> None:
        async def page(request: web.Request) -> web.Response:
            return web.Response(text="<title>x</title>", content_type="text/html")

        app, app2 = web.Application(), web.Application()
        app.router.add_get("/{tail:.*}", page)
        app2.router.add_get("/{tail:.*}", page)
        async with (
            serve(app) as base,
            serve(app2, "127.0.0.2") as base2,
            await CrawlSession.open(tmp_path / "pool", FAST) as session,
        ):
            crawler, pool = session.crawler, session.frontier
            await crawler.add_seeds([base + "/story"])
            await pool.add_many([base2 + "/elsewhere"])  # as a snapshot brings it
            crawler.start()
            assert await asyncio.wait_for(crawler.wait(), 30) is CrawlState.FINISHED
            assert pool.url_state(base2 + "/elsewhere") == "failed"
            stats = crawler.stats()
            assert (stats.pages, stats.errors, stats.refused) == (1, 0, 1)

    run(main)


def test_settings_changed_mid_crawl_keep_the_crawl_going(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            DemoSite(hosts=4, articles_per_host=16) as site,
            await open_demo(tmp_path, site) as session,
        ):
            crawler = session.crawler
            crawler.start()
            while crawler.stats().pages < 5:
                await asyncio.sleep(0.01)
            new = replace(FAST, user_agent="changed-agent/2.0", concurrency=3)
            crawler.apply_settings(new)
            assert await crawler.wait() is CrawlState.FINISHED
            assert set(fetched_final_urls(session)) == site.expected_urls()
            assert crawler.stats().error_counts.get("internal", 0) == 0
            assert crawler.fetcher.settings.user_agent == "changed-agent/2.0"

    run(main)


def test_start_again_after_stop_finishes_the_crawl(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            DemoSite(hosts=3, articles_per_host=12) as site,
            await open_demo(tmp_path, site) as session,
        ):
            crawler = session.crawler
            crawler.start()
            while crawler.stats().pages < 5:
                await asyncio.sleep(0.01)
            await crawler.stop()
            assert crawler.state is CrawlState.STOPPED
            crawler.start()  # the same crawler, again
            assert await crawler.wait() is CrawlState.FINISHED
            assert set(fetched_final_urls(session)) == site.expected_urls()

    run(main)


def test_a_big_sitemap_is_parsed_and_scope_checked_off_the_loop(tmp_path: Path) -> None:
    """A hub sitemap over the thread threshold: its items are checked against the scope in
    the worker thread that parses it (none on the loop), and those in scope are queued."""
    import threading

    from aiohttp import web

    from crawler_gui.engine import pipeline as pipeline_module
    from tests.engine.conftest import serve

    n_items = 2000
    urls: list[str] = []

    async def page(request: web.Request) -> web.Response:
        if request.path == "/sitemap.xml":
            locs = "".join(f"<url><loc>{u}</loc></url>" for u in urls)
            body = (
                '<?xml version="1.0"?><urlset '
                f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'
            )
            assert len(body) > pipeline_module.THREAD_PARSE_BYTES
            return web.Response(text=body, content_type="application/xml")
        return web.Response(status=404)

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            for i in range(n_items):
                urls.append(f"{base}/news/story-{i}.html")
                urls.append(f"http://elsewhere.example.org/story-{i}.html")
            settings = replace(FAST, obey_robots=False, max_pages=1, discover_feeds=False)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                crawler = session.crawler
                await crawler.set_hubs([HubSpec(base + "/sitemap.xml", 3600.0)])
                loop_thread = threading.get_ident()
                on_loop: list[str] = []
                real_check = crawler.scope.check

                def check(url: str) -> str | None:
                    if threading.get_ident() == loop_thread:
                        on_loop.append(url)
                    return real_check(url)

                crawler.scope.check = check  # type: ignore[method-assign]
                crawler.start()
                await crawler.wait()
                assert [u for u in on_loop if "/story-" in u] == []
                totals = (await session.frontier.snapshot()).totals
                assert totals.waiting == n_items
                assert session.frontier.url_state(urls[0]) == "waiting"

    run(main)


def test_a_big_page_of_links_is_taken_in_without_holding_the_loop(tmp_path: Path) -> None:
    """A page over the thread threshold is parsed and scope-checked off the loop; its links
    reach the pool in slices with the loop free in between (counted by a ticker coroutine:
    the slices, not a timer, so load on the machine cannot change the verdict)."""
    from aiohttp import web

    from crawler_gui.engine import pipeline as pipeline_module
    from tests.engine.conftest import serve

    n_links = 6000
    body = "<title>many</title>" + "".join(
        f'<a href="/s/{i}.html">{i}</a><a href="http://elsewhere.example.org/{i}">x</a>'
        for i in range(n_links)
    )
    assert len(body) > pipeline_module.THREAD_PARSE_BYTES

    async def page(request: web.Request) -> web.Response:
        if request.path == "/big.html":
            return web.Response(text=body, content_type="text/html")
        return web.Response(status=404)

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            settings = replace(FAST, obey_robots=False, max_pages=1)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                crawler = session.crawler
                await crawler.add_seeds([base + "/big.html"])
                ticks = 0
                adding = False
                real_add_links = crawler.pipeline.add_links

                async def add_links(*args: Any) -> None:
                    nonlocal adding
                    adding = True
                    try:
                        await real_add_links(*args)
                    finally:
                        adding = False

                crawler.pipeline.add_links = add_links  # type: ignore[method-assign]

                async def ticker() -> None:
                    nonlocal ticks
                    while True:
                        ticks += adding  # the loop ran something else while links went in
                        await asyncio.sleep(0)

                tick_task = asyncio.get_running_loop().create_task(ticker())
                crawler.start()
                await crawler.wait()
                tick_task.cancel()
                totals = (await session.frontier.snapshot()).totals
                # every in-scope link queued once, none of the off-domain ones
                assert totals.waiting == n_links
                assert session.frontier.url_state(base + "/s/5999.html") == "waiting"
                assert ticks >= n_links // pipeline_module.LINK_SLICE - 1, ticks

    run(main)


def test_garbage_collection_is_paused_only_while_big_pages_parse() -> None:
    import gc

    from crawler_gui.engine.parsing import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # a second page parsing at the same time
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left as the program had it
    finally:
        gc.enable()


def test_closing_ends_robots_fetches_of_replaced_caches_before_the_http_session(
    tmp_path: Path,
) -> None:
    """robots.txt fetches are shielded from their callers' cancellation. One still running when
    the user agent changes (a new robots cache) ends with the run that replaced it; one of the
    current cache ends when the session closes, before the HTTP session it uses closes
    (nothing is left to the loop's teardown)."""
    from aiohttp import web

    from tests.engine.conftest import serve

    asked = 0
    asked_event = asyncio.Event()

    async def robots(_request: web.Request) -> web.Response:
        nonlocal asked
        asked += 1
        asked_event.set()
        await asyncio.sleep(30)
        return web.Response(text="")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/robots.txt", robots)
        async with serve(app) as base:
            session = await CrawlSession.open(tmp_path / "pool", replace(FAST, obey_robots=True))
            crawler = session.crawler
            await crawler.add_seeds([base + "/story.html"])
            crawler.start()
            await asyncio.wait_for(asked_event.wait(), 30)
            first = crawler.robots
            (old_fetch,) = first._inflight.values()
            crawler.apply_settings(replace(crawler.settings, user_agent="other/1.0"))
            await crawler.stop(wait_in_flight=False)
            assert old_fetch.done() and not first._inflight  # ended with the run

            asked_event.clear()
            crawler.start()  # the new cache fetches robots.txt again
            await asyncio.wait_for(asked_event.wait(), 30)
            (fetch,) = crawler.robots._inflight.values()
            await crawler.stop(wait_in_flight=False)
            assert not fetch.done()  # shielded: the stop does not end it
            fetcher = crawler.fetcher
            done_when_closed: list[bool] = []
            real_close = fetcher.close

            async def close() -> None:
                done_when_closed.append(fetch.done())
                await real_close()

            fetcher.close = close  # type: ignore[method-assign]
            await session.close()
            assert done_when_closed == [True]
            assert asked == 2

    run(main)


def test_a_seed_on_a_denied_domain_is_refused_with_its_reason(tmp_path: Path) -> None:
    async def main() -> None:
        settings = replace(FAST, deny_domains=("blocked.example.com",), deny_patterns=(r"/ads/",))
        async with await CrawlSession.open(tmp_path / "pool", settings) as session:
            report = await session.crawler.add_seeds(
                [
                    "http://news.blocked.example.com/",
                    "http://ok.example.com/ads/1",
                    "http://ok.example.com/",
                ]
            )
            assert report.added == 1
            assert sorted(report.refused) == [
                ("http://news.blocked.example.com/", "denied_domain"),
                ("http://ok.example.com/ads/1", "denied_pattern"),
            ]
            assert session.frontier.url_state("http://news.blocked.example.com/") is None
            assert session.crawler.scope.seed_domains == {"example.com"}

    run(main)


def test_raising_the_depth_limit_follows_the_links_of_pages_at_the_old_limit(
    tmp_path: Path,
) -> None:
    """Pages at the depth limit keep their links to themselves; a later run with a higher
    limit (or none) takes them from the stored pages, without fetching those pages again."""
    from aiohttp import web

    from tests.engine.conftest import serve

    chain = {"/": "/a", "/a": "/b", "/b": "/c", "/c": "/d"}

    async def page(request: web.Request) -> web.Response:
        link = chain.get(request.path, "")
        return web.Response(
            text=f'<title>{request.path}</title><a href="{link}">next</a>',
            content_type="text/html",
        )

    async def crawl(base: str, max_depth: int | None, seed: bool = False) -> CrawlSession:
        settings = replace(FAST, obey_robots=False, max_depth=max_depth)
        session = await CrawlSession.open(tmp_path / "pool", settings)
        if seed:
            await session.crawler.add_seeds([base + "/"])
        session.crawler.start()
        assert await session.crawler.wait() is CrawlState.FINISHED
        return session

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            session = await crawl(base, 1, seed=True)
            pool = session.frontier
            assert [pool.url_state(base + p) for p in ("/", "/a", "/b")] == ["done", "done", None]
            await session.close()

            session = await crawl(base, 2)  # the next run, with a higher limit
            pool = session.frontier
            assert pool.url_state(base + "/b") == "done"
            assert pool.url_state(base + "/c") is None
            fetched = [r.url for r in session.store.iter_records()]
            assert sorted(fetched) == sorted(base + p for p in ("/", "/a", "/b"))  # /a once

            session.crawler.apply_settings(replace(session.crawler.settings, max_depth=None))
            session.crawler.start()  # no limit at all now, in the same session
            assert await session.crawler.wait() is CrawlState.FINISHED
            assert pool.url_state(base + "/d") == "done"
            await session.close()

    run(main)


def test_opening_a_session_moves_what_lives_for_the_run_out_of_the_collectors_reach(
    tmp_path: Path,
) -> None:
    """A full collection over every module and object of the open session held the loop for
    40-185 ms in the middle of a crawl; what exists at open is frozen so it is never scanned."""
    import gc

    async def main() -> None:
        gc.unfreeze()
        assert gc.get_freeze_count() == 0
        async with await CrawlSession.open(tmp_path / "pool", FAST) as session:
            frozen = gc.get_freeze_count()
            assert frozen > 10_000  # the modules, the pool, the crawler: all of it
            assert gc.is_tracked(session.crawler.__dict__)
            assert len(gc.get_objects(2)) < frozen  # the full collections skip them

    run(main)


def test_each_page_records_its_headers_decode_decision_and_out_links(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            DemoSite(hosts=6, articles_per_host=12) as site,
            await open_demo(tmp_path, site) as session,
        ):
            session.crawler.start()
            assert await session.crawler.wait() is CrawlState.FINISHED
            store = session.store
            assert store is not None
            details = {}
            for seq, record in store.iter_seq_records(with_body=False):
                detail = store.detail(seq)
                assert detail is not None, record.url
                details[record.final_url] = (record, detail)
            gbk_hosts = set(site.gbk_hosts())
            gbk = [d for r, d in details.values() if any(h in r.final_url for h in gbk_hosts)]
            assert gbk and all(d["decided_by"] == "meta" for d in gbk)
            for _record, detail in details.values():
                names = {k.lower() for k, _ in detail["response_headers"]}
                assert "content-type" in names
                assert ["User-Agent", FAST.user_agent] in detail["request_headers"]
            outcomes = {o for _r, d in details.values() for _u, o, _w in d["links"]}
            assert "queued" in outcomes or "queued_or_known" in outcomes
            assert "known" in outcomes
            private = site.private_urls()
            robots = [
                (u, why) for _r, d in details.values() for u, o, why in d["links"] if o == "robots"
            ]
            assert robots and all(u in private for u, _ in robots)
            # every stored page but the seeds was linked from a page that is stored too
            seeds = set(site.seed_urls())
            for url, (record, _d) in details.items():
                if record.url in seeds or record.url != url:
                    continue
                refs = store.referrers(url)
                assert refs, url
                assert all(store.record_at(s, with_body=False) is not None for s in refs)

    run(main)


def test_a_hub_refresh_reports_its_new_links_and_listed_items_to_the_pool(
    tmp_path: Path,
) -> None:
    """What each refresh found (links the pool had not seen, items the list shows: not the
    home page nor the hubs) reaches the hub's learned state."""
    from aiohttp import web

    from tests.engine.conftest import serve

    fetches = {"hub": 0}

    async def hub(_request: web.Request) -> web.Response:
        fetches["hub"] += 1
        shown = 3 if fetches["hub"] == 1 else 8  # 5 new articles at the second refresh
        items = "".join(f'<li><a href="/a/{n}.html">{n}</a></li>' for n in range(shown))
        nav = '<a href="/">home</a> <a href="/news/">news</a> <a href="/sport/">sport</a>'
        return web.Response(
            text=f"<title>news</title>{nav}<ul>{items}</ul>", content_type="text/html"
        )

    async def page(_request: web.Request) -> web.Response:
        return web.Response(text="<title>x</title>", content_type="text/html")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/news/", hub)
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS, hub_span_min=0.1)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                hubs = [HubSpec(f"{base}/news/", 0.5), HubSpec(f"{base}/sport/", 600)]
                await session.crawler.set_hubs(hubs)
                session.crawler.start()
                while fetches["hub"] < 2:
                    await asyncio.sleep(0.05)
                url = (await session.crawler.hubs())[0].url
                while True:  # the second refresh's result reaches the pool with a commit
                    row = next(r for r in (await session.frontier.snapshot()).hubs if r.url == url)
                    if row.yielded == 8:
                        break
                    await asyncio.sleep(0.05)
                await session.crawler.stop()
                assert (row.last_new, row.listed, row.kind) == (5, 8, "page")
                assert row.rate > 0 and row.reason != "new"

    run(main)


@pytest.mark.parametrize("thread_from", [None, 2], ids=["on the loop", "on a thread"])
def test_a_hub_refresh_reports_its_list_so_the_hub_counts_links_a_feed_found_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_from: int | None
) -> None:
    """A list whose new articles the pool already knows (a feed on the host found them first):
    nothing new to the pool, but the refresh reports its list, and the hub counts the links
    new to *its* list for its own publication rate (docs/freshness.md). A long list is hashed
    on a worker thread (``thread_from``: lowered so this one is), to the same result."""
    from aiohttp import web

    from crawler_gui.engine import pipeline as pipeline_module
    from tests.engine.conftest import serve

    if thread_from is not None:
        monkeypatch.setattr(pipeline_module, "THREAD_SAMPLE_LINKS", thread_from)

    fetches = {"hub": 0}

    async def hub(_request: web.Request) -> web.Response:
        fetches["hub"] += 1
        shown = 3 if fetches["hub"] == 1 else 8  # 5 more at the second refresh
        items = "".join(f'<li><a href="/a/{n}.html">{n}</a></li>' for n in range(shown))
        return web.Response(
            text=f'<title>news</title><a href="/">home</a><ul>{items}</ul>',
            content_type="text/html",
        )

    async def page(_request: web.Request) -> web.Response:
        return web.Response(text="<title>x</title>", content_type="text/html")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/news/", hub)
        app.router.add_get("/{tail:.*}", page)
        async with serve(app) as base:
            settings = replace(FAST, mode=CrawlMode.CONTINUOUS, hub_span_min=0.1)
            async with await CrawlSession.open(tmp_path / "pool", settings) as session:
                # The feed found the next five first.
                await session.frontier.add_many([f"{base}/a/{n}.html" for n in range(3, 8)])
                await session.crawler.set_hubs([HubSpec(f"{base}/news/", 0.5)])
                session.crawler.start()
                url = (await session.crawler.hubs())[0].url
                while True:
                    state = session.frontier._sched.hubs[url].rate  # the pool's learned state
                    if state.refreshes >= 1:
                        break
                    await asyncio.sleep(0.05)
                await session.crawler.stop()
                assert (state.last_new, state.observed) == (0, 3)  # nothing new to the pool
                assert state.own_observed == 5  # ... five new to its list
                assert state.own_rate(1 / 0.5) > 0
                assert len(state.seen) == 8 * 12

    run(main)
