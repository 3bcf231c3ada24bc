"""The session keeps the pages' search index up to date beside the crawl, headless or not: a
window that opens the pool later finds it ready, and the window only searches it."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from crawler_gui.demo.site import DemoSite
from crawler_gui.engine import indexer as indexer_mod
from crawler_gui.engine.indexer import INDEX_DIRNAME
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlState
from tests.engine.test_crawler import FAST as CRAWLER_FAST

#: A fast demo crawl (robots.txt off: every request is a page).
FAST = replace(CRAWLER_FAST, concurrency=8, obey_robots=False)


def _index_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("search-index")]


async def _until(test, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not test():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


def test_a_headless_crawl_keeps_the_search_index_and_a_later_session_finds_it_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexer_mod, "COMMIT_SECONDS", 0.2)
    pool = tmp_path / "pool"

    async def main() -> None:
        async with DemoSite(hosts=2, articles_per_host=8) as site:
            session = await CrawlSession.open(pool, FAST)
            try:
                assert session.indexer is not None
                await session.crawler.add_seeds(site.seed_urls())
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                records = list(session.store.iter_records())
                assert len(records) >= 12
                indexer = session.indexer
                await _until(lambda: indexer.pending() == 0)
                url = records[-1].final_url
                hits = await asyncio.to_thread(indexer.search, records[-1].title)
                assert url in {h.url for h in hits}
                last = session.store.last_written_seq()
            finally:
                await session.close()
            assert session.store.closed
            await _until(lambda: not _index_threads())  # nothing of it runs on
            # A session opened on the pool later (a window) finds every page indexed.
            again = await CrawlSession.open(pool, FAST)
            try:
                assert again.indexer is not None
                assert again.indexer.index.last_seq() == last
                assert again.indexer.pending() == 0
            finally:
                await again.close()

    asyncio.run(main())


def test_with_the_search_index_off_no_index_is_made(tmp_path: Path) -> None:
    async def main() -> None:
        session = await CrawlSession.open(tmp_path / "pool", replace(FAST, search_index=False))
        try:
            assert session.indexer is None
        finally:
            await session.close()

    asyncio.run(main())
    assert not (tmp_path / "pool" / INDEX_DIRNAME).exists()


def test_an_index_that_cannot_be_opened_leaves_the_crawl_without_search(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / INDEX_DIRNAME).write_text("not an index")  # a file where the folder goes

    async def main() -> None:
        session = await CrawlSession.open(pool, FAST)
        try:
            assert session.indexer is None
            assert session.crawler.state is CrawlState.IDLE
        finally:
            await session.close()

    with caplog.at_level(logging.WARNING, logger="crawler_gui.engine.session"):
        asyncio.run(main())
    assert "the search index is not kept up to date" in caplog.text
    assert "not a crawler-gui search index" in caplog.text
    assert (pool / INDEX_DIRNAME).read_text() == "not an index"  # nothing lost
