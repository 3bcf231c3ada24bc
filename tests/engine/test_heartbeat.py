"""A worker of a shared pool beats while its session is open, says goodbye when it closes, and
keeps beating (and crawling) through a failing beat. Real redis-server, real sessions."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Any

from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.heartbeat import Heartbeat
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings

SETTINGS = CrawlSettings(
    concurrency=4, min_delay=0.0, delay_factor=0.0, mode=CrawlMode.UNTIL_IDLE, allow_private=True
)


async def _rows(url: str) -> dict[str, Any]:
    pool = await RedisPool.open(url, worker="observer")
    try:
        return {row.worker: row for row in await pool.workers()}
    finally:
        await pool.close()


def test_a_session_on_a_redis_pool_beats_until_it_closes(redis_server: str, tmp_path: Path) -> None:
    url = f"{redis_server}?name=hb{uuid.uuid4().hex[:10]}"

    async def main() -> None:
        async with DemoSite(hosts=2, articles_per_host=8) as site:
            session = await CrawlSession.open_redis(
                url, SETTINGS, store_dir=tmp_path / "w", worker="crawl-7", demo_site=site
            )
            try:
                assert session.heartbeat is not None
                for _ in range(200):  # the first beat goes out at once
                    if "crawl-7" in await _rows(url):
                        break
                    await asyncio.sleep(0.01)
                row = (await _rows(url))["crawl-7"]
                assert (row.state, row.pid, row.pages) == ("idle", os.getpid(), 0)
                await session.crawler.add_seeds(site.seed_urls())
                assert await session.crawler.run() == "finished"
                await session.heartbeat.beat()
                row = (await _rows(url))["crawl-7"]
                assert row.state == "finished" and row.pages >= len(site.expected_urls())
            finally:
                await session.close()
            assert "crawl-7" not in await _rows(url)  # a clean exit says goodbye

    asyncio.run(asyncio.wait_for(main(), 50))


class _FlakyPool:
    """A real pool whose second heartbeat fails (the network blinks)."""

    def __init__(self, pool: RedisPool) -> None:
        self.pool = pool
        self.calls = 0

    async def heartbeat(self, state: str, pages: int, rate: float, started: float) -> None:
        self.calls += 1
        if self.calls == 2:
            raise ConnectionError("the network blinked")
        await self.pool.heartbeat(state, pages, rate, started)

    async def forget_worker(self, worker: str | None = None) -> None:
        await self.pool.forget_worker(worker)


def test_beats_repeat_and_survive_a_failing_one(redis_server: str, tmp_path: Path) -> None:
    url = f"{redis_server}?name=hb{uuid.uuid4().hex[:10]}"

    async def main() -> None:
        async with await CrawlSession.open_redis(
            url, SETTINGS, store_dir=tmp_path / "w", worker="w1"
        ) as session:
            pool = session.frontier
            assert isinstance(pool, RedisPool)
            flaky = _FlakyPool(pool)
            beat = Heartbeat(flaky, session.crawler, interval=0.02)
            beat.start()
            seen: list[float] = []
            for _ in range(300):
                await asyncio.sleep(0.01)
                rows = {r.worker: r for r in await pool.workers()}
                if "w1" in rows and rows["w1"].last_seen not in seen:
                    seen.append(rows["w1"].last_seen)
                if flaky.calls >= 5 and len(seen) >= 3:
                    break
            await beat.close(goodbye=False)
            assert flaky.calls >= 5  # the failed beat did not stop the beating
            assert len(seen) >= 3 and seen == sorted(seen)
            calls = flaky.calls
            await asyncio.sleep(0.1)
            assert flaky.calls == calls  # closed: no more beats

    asyncio.run(asyncio.wait_for(main(), 30))
