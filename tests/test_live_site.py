"""The live news site (demo/live.py), served for real on loopback, on a fake clock."""

from __future__ import annotations

import asyncio
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import aiohttp

from crawler_gui.demo.live import (
    BURST_PERIOD,
    BURST_RATES,
    BURSTY_HUB,
    FEED_HOSTS,
    FEED_SIZE,
    HOSTS,
    LIST_SIZE,
    RATE_MAX,
    RATE_MIN,
    RECORD_SECONDS,
    SILENT_HUB,
    LiveNewsSite,
)

T = TypeVar("T")
START = 1_800_000_000.0
ARTICLE = re.compile(r'<a href="(/[a-z]+/(\d+)\.html)">')


class FakeClock:
    def __init__(self) -> None:
        self.t = START

    def __call__(self) -> float:
        return self.t


def run(body: Callable[[LiveNewsSite, FakeClock, aiohttp.ClientSession], Awaitable[T]]) -> T:
    async def main() -> T:
        clock = FakeClock()
        async with LiveNewsSite(clock=clock) as site, aiohttp.ClientSession() as http:
            return await body(site, clock, http)

    return asyncio.run(main())


async def text(http: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with http.get(url) as resp:
        return resp.status, await resp.text()


def test_fixed_parameters() -> None:
    site = LiveNewsSite()
    rates = site._hubs
    assert len(rates) >= 20
    assert len({h.host for h in rates}) >= 10 and HOSTS >= 10
    silent = [h for h in rates if h.rate == 0]
    assert [h.index for h in silent] == [SILENT_HUB]
    bursty = [h for h in rates if h.bursty]
    assert [h.index for h in bursty] == [BURSTY_HUB]
    steady = [h.rate for h in rates if h.rate and not h.bursty]
    assert all(RATE_MIN <= r <= RATE_MAX for r in steady)
    assert max(steady) / min(steady) > 10  # spread over the log-uniform range
    # The same seed gives the same site; another seed another one.
    again = LiveNewsSite()
    assert [h.rate for h in again._hubs] == [h.rate for h in rates]
    assert [h.next_at for h in again._hubs] == [h.next_at for h in rates]
    other = LiveNewsSite(seed=99)
    assert [h.rate for h in other._hubs] != [h.rate for h in rates]


def test_publication_rates_follow_the_schedule() -> None:
    clock = FakeClock()
    site = LiveNewsSite(clock=clock, epoch=START)
    site.recording_since = START
    hours = 2.0
    clock.t = START + hours * 3600
    site.advance()
    for hub in site._hubs:
        if hub.bursty:
            continue
        expected = hub.rate * 60 * hours
        # Poisson: within 5 standard deviations (and exactly 0 for the silent hub)
        assert abs(hub.count - expected) <= 5 * math.sqrt(expected) + 1, (hub.index, hub.count)
    bursty = site._hubs[BURSTY_HUB]
    slow = fast = 0
    for _n, t in bursty.recent:  # the newest 50: mostly from a fast period
        if int(t // BURST_PERIOD) % 2:
            fast += 1
        else:
            slow += 1
    assert fast > slow
    mean = sum(BURST_RATES) / 2 * 60 * hours
    assert abs(bursty.count - mean) <= 5 * math.sqrt(mean)
    assert site._hubs[SILENT_HUB].count == 0


def test_list_pages_feeds_articles_and_the_report() -> None:
    async def body(site: LiveNewsSite, clock: FakeClock, http: aiohttp.ClientSession) -> None:
        clock.t += 30 * 60
        busiest = max(site._hubs, key=lambda h: h.rate if not h.bursty else 0)
        url = site.hub_url(busiest)
        status, page = await text(http, url)
        assert status == 200
        numbers = [int(n) for _path, n in ARTICLE.findall(page)]
        assert len(numbers) == LIST_SIZE  # only the newest 20
        assert numbers == sorted(numbers, reverse=True) and numbers[0] == busiest.count - 1
        # An article on the list: served, and its first fetch recorded with its delay.
        fetch_at = clock.t
        newest = busiest.count - 1
        status, article = await text(http, f"{url}{newest}.html")
        assert status == 200 and f"({newest})" in article
        # Not published yet: 404.
        assert (await text(http, f"{url}{busiest.count + 5}.html"))[0] == 404
        # A feed: the host's newest 50, newest first, as RSS 2.0.
        feed_host = FEED_HOSTS[0]
        status, feed = await text(http, site.feed_urls()[0])
        assert status == 200
        items = ET.fromstring(feed).findall("./channel/item")
        host_hubs = [h for h in site._hubs if h.host == feed_host]
        assert len(items) == min(FEED_SIZE, sum(h.count for h in host_hubs))
        assert all(i.findtext("link", "").startswith(f"http://127.0.0.{feed_host}:") for i in items)
        # Conditional refresh: the same version answers 304 and counts as a hub fetch.
        async with http.get(url) as resp:
            etag = resp.headers["ETag"]
        async with http.get(url, headers={"If-None-Match": etag}) as resp:
            assert resp.status == 304
        report = site.report()
        row = next(h for h in report["hubs"] if h["url"] == url)
        assert row["fetches"] == 3 and row["not_modified"] == 1 and row["found"] == 1
        pub = busiest.published_at[newest - busiest.base]
        assert row["mean_delay"] == fetch_at - pub
        arts = report["articles"]
        assert arts["found"] == 1
        assert arts["published"] == sum(h.count for h in site._hubs)
        assert arts["found"] + arts["lost"] + arts["pending"] == arts["published"]
        # The busiest hub has published far more than 20 (and its host has no feed or a
        # feed of 50): most of its articles are lost, none fetched.
        assert row["lost"] >= busiest.count - FEED_SIZE - 1
        assert report["hub_fetches"] == 3 and report["feed_fetches"] == 1
        assert report["oracle_mean_delay"] > 0
        # The report is also served as JSON, and the hub list as text.
        async with http.get(site.report_url()) as resp:
            assert (await resp.json())["articles"]["found"] == 1
        status, hubs = await text(http, site.seed_urls()[0] + "_live/hubs.txt")
        assert hubs.split() == site.hub_urls()
        status, robots = await text(http, site.seed_urls()[0] + "robots.txt")
        assert "Disallow: /_live/" in robots

    run(body)


def test_articles_are_linked_only_from_hubs_and_feeds() -> None:
    async def body(site: LiveNewsSite, clock: FakeClock, http: aiohttp.ClientSession) -> None:
        clock.t += 600
        hub = max(site._hubs, key=lambda h: h.count)
        _status, article = await text(http, f"{site.hub_url(hub)}0.html")
        assert not ARTICLE.findall(article)  # no links to other articles
        _status, home = await text(http, site.seed_urls()[hub.host - 1])
        assert hub.path in home and not ARTICLE.findall(home)

    run(body)


def test_records_stay_bounded_over_days() -> None:
    async def body(site: LiveNewsSite, clock: FakeClock, http: aiohttp.ClientSession) -> None:
        hub = max(site._hubs, key=lambda h: h.rate if not h.bursty else 0)
        clock.t += 600
        await text(http, f"{site.hub_url(hub)}0.html")  # one found, early
        before = site.report()["articles"]
        for _ in range(48):  # two days, an hour at a time
            clock.t += 3600
            site.advance()
        held = sum(len(h.published_at) for h in site._hubs)
        total_rate = sum(h.rate for h in site._hubs) * 60  # articles an hour
        assert held <= total_rate * RECORD_SECONDS / 3600 * 1.3
        assert all(len(h.recent) <= FEED_SIZE for h in site._hubs)
        report = site.report()["articles"]
        assert report["found"] == before["found"] == 1  # folded into the totals, not lost
        assert report["published"] == sum(h.count for h in site._hubs)
        assert report["found"] + report["lost"] + report["pending"] == report["published"]

    run(body)


def test_a_restarted_site_goes_on_with_the_same_articles() -> None:
    async def body(site: LiveNewsSite, clock: FakeClock, http: aiohttp.ClientSession) -> None:
        clock.t += 900
        page = (await text(http, site.list_urls()[0]))[1]
        epoch = site.epoch
        await site.stop()
        again = LiveNewsSite(clock=clock, epoch=epoch)
        async with again:
            same = (await text(http, again.list_urls()[0]))[1]
            assert ARTICLE.findall(same) == ARTICLE.findall(page)
            # Published before the restart: not in the new report.
            assert again.report()["articles"]["published"] == 0
            clock.t += 600
            assert again.report()["articles"]["published"] > 0

    run(body)


def test_a_live_demo_crawl_resumes_with_the_same_site(tmp_path: Path) -> None:
    from crawler_gui.engine.session import CrawlSession
    from crawler_gui.engine.settings import CrawlSettings

    async def main() -> None:
        first = await CrawlSession.open(tmp_path / "pool", CrawlSettings(), demo=True, live=True)
        try:
            site = first.demo_site
            assert isinstance(site, LiveNewsSite)
            epoch, port = site.epoch, site.port
            hubs = {h.url for h in await first.crawler.hubs()}
            assert hubs == set(site.hub_urls()) and len(hubs) == 28
            assert first.settings.hub_span == 60.0  # the demo's span
        finally:
            await first.close()
        again = await CrawlSession.open(tmp_path / "pool", CrawlSettings(), demo=True, live=True)
        try:
            site = again.demo_site
            assert isinstance(site, LiveNewsSite)
            assert (site.epoch, site.port) == (epoch, port)  # the same articles, same URLs
        finally:
            await again.close()

    asyncio.run(main())
