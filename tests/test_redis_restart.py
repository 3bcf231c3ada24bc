"""A Redis worker survives a redis-server restart: it retries with backoff for a bounded time
(``--redis-retry``) and keeps going with its leases. Real redis-server stopped and started again
mid-crawl, a real worker process, the demo site served from this test's loop."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from pathlib import Path

import pytest

from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.crawler import pool_config
from tests.conftest import RestartableRedis
from tests.test_redis_crawl import SETTINGS, seed_pool, stored_final_urls

pytestmark = pytest.mark.slow


async def start_worker(url: str, tmp: Path, *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "crawler_gui", "crawl", url, "--until-idle"),
        *("--allow-private", "--concurrency", "4", "--delay", "0", "--retry-base", "0.2"),
        *("--store-dir", str(tmp / "store"), "--worker", "w1", "--no-progress", *extra),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


def test_a_worker_keeps_going_through_a_redis_server_restart(
    restartable_redis: RestartableRedis, tmp_path: Path
) -> None:
    async def main() -> None:
        async with DemoSite(hosts=4, articles_per_host=16, latency=0.1) as site:
            url = f"{restartable_redis.url}?name=r{uuid.uuid4().hex[:8]}"
            await seed_pool(url, site, tmp_path / "seeder")
            proc = await start_worker(url, tmp_path, "--redis-retry", "60")
            while site.total_requests < 15:
                assert proc.returncode is None
                await asyncio.sleep(0.02)
            await asyncio.to_thread(restartable_redis.stop)  # fetches are in flight now
            await asyncio.sleep(2.0)
            await asyncio.to_thread(restartable_redis.start)
            _out, err_raw = await asyncio.wait_for(proc.communicate(), 60)
            err = err_raw.decode()
            assert proc.returncode == 0, err
            assert "lost the Redis server" in err and "is back after" in err
            assert "Traceback" not in err
            assert "reclaimed" not in err  # its leases were kept, not taken back
            finals = stored_final_urls(tmp_path / "store")
            assert set(finals) == site.expected_urls()
            assert len(finals) == len(set(finals))
            pool = await RedisPool.open(url, pool_config(SETTINGS), worker="checker")
            try:
                t = (await pool.snapshot()).totals
                assert t.waiting == t.pending == t.retrying == 0
            finally:
                await pool.close()

    asyncio.run(asyncio.wait_for(main(), 110))


def test_a_worker_gives_up_after_its_retry_time_with_one_clear_line(
    restartable_redis: RestartableRedis, tmp_path: Path
) -> None:
    async def main() -> None:
        async with DemoSite(hosts=2, articles_per_host=8, latency=0.2) as site:
            url = f"{restartable_redis.url}?name=g{uuid.uuid4().hex[:8]}"
            await seed_pool(url, site, tmp_path / "seeder")
            proc = await start_worker(url, tmp_path, "--redis-retry", "3")
            while site.total_requests < 3:
                await asyncio.sleep(0.02)
            await asyncio.to_thread(restartable_redis.stop)  # and it does not come back
            gone = time.monotonic()
            _out, err_raw = await asyncio.wait_for(proc.communicate(), 60)
            waited = time.monotonic() - gone
            err = err_raw.decode()
            assert proc.returncode == 1, err
            assert 3 <= waited < 40, waited
            assert "retrying for up to 3 s" in err
            assert "Traceback" not in err
            last = err.strip().splitlines()[-1]
            assert last.startswith("crawler-gui: the Redis pool at ") and "failed" in last

    asyncio.run(asyncio.wait_for(main(), 90))
