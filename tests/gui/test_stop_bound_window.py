"""The window's Quit held to the stop's stated bound (``docs/server.md``), in the worst case:
fetches in flight that never finish arriving, an extraction queue full of pages whose
extraction takes all it may, the search index kept by the session."""

from __future__ import annotations

import asyncio
import time

import pytest

from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.gui.app import open_and_show
from tests.gui.gui_helpers import run, wait_for
from tests.stop_site import slow_extraction, stop_site
from tests.test_stop_bound import BOUND, QUEUE_FULL, TIMEOUT

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.mark.timeout(240)
def test_quit_stops_the_crawl_within_the_stated_bound(aloop, qsettings, tmp_path):
    settings = CrawlSettings(
        allow_private=True,
        min_delay=0.0,
        delay_factor=0.0,
        total_timeout=TIMEOUT,
        extract="on",
        extract_workers=1,
        concurrency=16,
    )
    took: list[float] = []
    old = slow_extraction()

    async def scenario(urls: list[str], trickling) -> None:
        w = await open_and_show(tmp_path / "pool", settings=settings, qsettings=qsettings)
        assert w is not None
        articles = w.session.crawler.articles
        try:
            await w.session.crawler.add_seeds(urls)
            w.start()
            await wait_for(lambda: w.state() is CrawlState.RUNNING, timeout=20)
            await wait_for(lambda: articles.backlog >= QUEUE_FULL and trickling() >= 2, timeout=90)
            asked = time.monotonic()
            w.act_quit.trigger()  # File → Quit
            await w.wait_closed()
            took.append(time.monotonic() - asked)
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            # The workers the stop left end after their page (the test's own cleanup).
            await asyncio.wait_for(articles.pool.close(), 60)

    try:
        with stop_site() as site:
            run(aloop, scenario(site.urls, lambda: site.trickling), timeout=200)
    finally:
        slow_extraction(**old)
    assert took and took[0] <= BOUND, f"Quit took {took[0]:.1f} s, over its bound of {BOUND:g} s"
