"""Several crawl worker *processes* share one Redis pool and crawl the demo site together.

Real redis-server (the session's ``redis_server`` fixture), the real demo site served from this
test's event loop on loopback, and ``python -m crawler_gui crawl redis://...`` workers.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
import redis
import redis.cluster

from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.crawler import pool_config
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings
from crawler_gui.engine.store import AUTO_FLUSH_RECORDS, PageStore

pytestmark = pytest.mark.slow

SETTINGS = CrawlSettings(
    concurrency=4,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    retry_base=0.2,
    allow_private=True,
)
WORKERS = 3


def pool_url(server: str) -> str:
    return f"{server}?name=crawl-{uuid.uuid4().hex[:10]}"


async def seed_pool(url: str, site: DemoSite, store_dir: Path) -> None:
    """Seed the shared pool through the public session API (which also publishes the seeds'
    domains to the pool-wide scope), then leave."""
    session = await CrawlSession.open(url, SETTINGS, store_dir=store_dir, worker="seeder")
    try:
        report = await session.crawler.add_seeds(site.seed_urls())
        assert report.added == len(site.seed_urls())
    finally:
        await session.close()


async def start_worker(
    url: str, index: int, tmp: Path, *extra: str
) -> tuple[asyncio.subprocess.Process, Path]:
    store = tmp / f"w{index}"
    log = open(tmp / f"w{index}.log", "wb")  # noqa: SIM115 - handed to the child
    try:
        proc = await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "crawler_gui", "crawl", url, "--until-idle"),
            *("--allow-private", "--concurrency", "4", "--delay", "0", "--retry-base", "0.2"),
            *("--store-dir", str(store), "--worker", f"w{index}", "--no-progress", *extra),
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
    finally:
        log.close()
    return proc, store


def worker_log(tmp: Path, index: int) -> str:
    return (tmp / f"w{index}.log").read_text("utf-8", "replace")


async def wait_all(procs: list[asyncio.subprocess.Process], timeout: float) -> list[int]:
    try:
        return list(await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), timeout))
    except TimeoutError:
        for p in procs:
            if p.returncode is None:
                p.kill()
        await asyncio.gather(*(p.wait() for p in procs))
        raise


def stored_final_urls(store_dir: Path) -> list[str]:
    store = PageStore.open_in_pool(store_dir)
    try:
        return [r.final_url for r in store.iter_records()]
    finally:
        store.close()


def check_fetch_counts(site: DemoSite) -> None:
    """Each URL fetched exactly once over the wire, apart from the 500s that recover (one more
    fetch per 500). robots.txt: once per host per worker that touched the host (each worker
    process keeps its own robots cache), so at most WORKERS times."""
    recovering = site.recovering_urls()
    for url, count in site.fetch_counts.items():
        if url.endswith("/robots.txt"):
            assert 1 <= count <= WORKERS, url
        else:
            assert count == 1 + recovering.get(url, 0), (url, count)


def test_three_worker_processes_share_one_pool(any_redis: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with DemoSite(hosts=8, articles_per_host=24) as site:
            url = pool_url(any_redis)
            await seed_pool(url, site, tmp_path / "seeder")
            started = [await start_worker(url, i, tmp_path) for i in range(WORKERS)]
            codes = await wait_all([p for p, _ in started], 50)
            assert codes == [0] * WORKERS, [worker_log(tmp_path, i) for i in range(WORKERS)]
            assert "crawl finished" in worker_log(tmp_path, 0)

            per_worker = [stored_final_urls(store) for _, store in started]
            finals = [u for urls in per_worker for u in urls]
            expected = site.expected_urls()
            assert set(finals) == expected  # full coverage
            assert len(finals) == len(expected)  # no page stored twice, not even by two workers
            assert sum(1 for urls in per_worker if urls) >= 2  # the work really was shared
            check_fetch_counts(site)
            assert max(site.max_concurrent_by_host.values()) == 1  # one connection per host
            assert not (set(finals) & site.private_urls())  # robots.txt obeyed

            pool = await RedisPool.open(url, pool_config(SETTINGS), worker="checker")
            try:
                t = (await pool.snapshot()).totals
                assert t.waiting == t.pending == t.retrying == 0
                assert t.done >= len(expected)
            finally:
                await pool.close()

    asyncio.run(asyncio.wait_for(main(), 58))


def test_a_killed_worker_s_leases_come_back(any_redis: str, tmp_path: Path) -> None:
    lease = 2.0

    async def main() -> None:
        # Some latency, so that the killed worker certainly has fetches in flight.
        async with DemoSite(hosts=8, articles_per_host=16, latency=0.05) as site:
            url = pool_url(any_redis)
            await seed_pool(url, site, tmp_path / "seeder")
            extra = ("--lease", str(lease))
            started = [await start_worker(url, i, tmp_path, *extra) for i in range(WORKERS)]
            victim, _victim_store = started[0]
            pool = await RedisPool.open(url, pool_config(SETTINGS), worker="checker")
            try:
                kind = redis.cluster.RedisCluster if pool.cluster else redis.Redis
                client = kind.from_url(any_redis, decode_responses=True)
                try:

                    def victim_leases() -> list[str]:
                        return [
                            url
                            for group in pool.groups  # a lease record ends with its worker id
                            for url, rec in client.hgetall(group + "ldata").items()
                            if rec.rsplit("\t", 1)[1] == "w0"
                        ]

                    held: list[str] = []
                    for _ in range(400):
                        done = (await pool.snapshot(retry_limit=0)).totals.done
                        if done >= 30:
                            # Frozen, then read: the leases it holds at its death (read
                            # while it runs, it could commit them all before the kill).
                            victim.send_signal(signal.SIGSTOP)
                            held = sorted(victim_leases())
                            if held:
                                break
                            victim.send_signal(signal.SIGCONT)  # (between two leases)
                        await asyncio.sleep(0.01)
                    else:
                        pytest.fail("the crawl did not get going")
                    victim.send_signal(signal.SIGKILL)
                    assert await asyncio.wait_for(victim.wait(), 10) == -signal.SIGKILL
                    assert sorted(victim_leases()) == held

                    codes = await wait_all([p for p, _ in started[1:]], 45)
                    assert codes == [0] * (WORKERS - 1), [
                        worker_log(tmp_path, i) for i in range(1, WORKERS)
                    ]
                    assert not victim_leases()
                finally:
                    client.close()
                t = (await pool.snapshot()).totals
                assert t.waiting == t.pending == t.retrying == 0
                expected = site.expected_urls()
                # Pool-wide, nothing is lost: every page ended done.
                assert {u for u in expected if pool.url_state(u) != "done"} == set()
                # The dead worker's leases came back (one attempt counted) and were fetched
                # again by the others.
                survivors = {u for _, s in started[1:] for u in stored_final_urls(s)}
                assert {u for u in held if u in expected} <= survivors
                assert all(pool.url_attempts(u) >= 1 for u in held)
            finally:
                await pool.close()
            # Full coverage over the three page stores, except what the killed worker had
            # fetched, marked done, but not yet flushed to its store (its last <= 200 records,
            # lost with the process: docs/redis.md).
            victim_records = stored_final_urls(started[0][1])
            everything = survivors | set(victim_records)
            missing = expected - everything
            assert len(missing) < AUTO_FLUSH_RECORDS
            assert not (missing & set(held))
            # No duplicates apart from the killed worker's leases (fetched again on purpose).
            assert max(site.max_concurrent_by_host.values()) == 1
            recovering = site.recovering_urls()
            for page, count in site.fetch_counts.items():
                if not page.endswith("/robots.txt") and page not in held:
                    assert count == 1 + recovering.get(page, 0), (page, count)

    asyncio.run(asyncio.wait_for(main(), 58))


def test_stats_of_a_redis_pool_from_the_command_line(redis_server: str) -> None:
    import asyncio
    import json
    import subprocess
    import sys

    from crawler_gui.core.redis.pool import RedisPool

    url = pool_url(redis_server)

    async def fill() -> None:
        pool = await RedisPool.open(url, worker="filler")
        try:
            await pool.add_many(["http://a.example.com/1", "http://b.example.com/2", "ftp://x/"])
            await pool.set_paused(True)
        finally:
            await pool.close()

    asyncio.run(fill())
    out = subprocess.run(
        [sys.executable, "-m", "crawler_gui", "stats", url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    totals = json.loads(out.stdout)
    assert totals["waiting"] == 2 and totals["paused"] is True and "pages_stored" not in totals
    bad = subprocess.run(
        [sys.executable, "-m", "crawler_gui", "stats", "redis://127.0.0.1:1/0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1 and "Traceback" not in bad.stderr


def test_three_workers_started_in_one_folder_each_get_a_store_and_a_restart_finds_one(
    redis_server: str, tmp_path: Path
) -> None:
    """No --store-dir, no --worker: as the README starts N workers. Each gets a page store of
    its own under ./crawler-gui-NAME/ (before: two of three exited "page store in use"), and a
    worker started again later resumes one of them instead of making a new one."""
    folder = tmp_path / "here"
    folder.mkdir()

    async def worker(url: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "crawler_gui", "crawl", url, "--until-idle"),
            *("--allow-private", "--concurrency", "4", "--delay", "0", "--no-progress"),
            *("--retry-base", "0.2"),
            cwd=folder,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )

    async def main() -> None:
        async with DemoSite(hosts=6, articles_per_host=12, latency=0.02) as site:
            url = pool_url(redis_server)
            name = url.rsplit("name=", 1)[1]
            await seed_pool(url, site, tmp_path / "seeder")
            procs = [await worker(url) for _ in range(WORKERS)]
            results = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in procs)), 50)
            errs = [err.decode() for _out, err in results]
            assert [p.returncode for p in procs] == [0] * WORKERS, errs
            base = folder / f"crawler-gui-{name}"
            stores = sorted(p.name for p in base.iterdir())
            assert stores == ["auto-1", "auto-2", "auto-3"]
            for err in errs:  # each says where its pages went
                assert f"pages in {base}{os.sep}auto-" in err
            stored = {s: stored_final_urls(base / s) for s in stores}
            finals = [u for urls in stored.values() for u in urls]
            assert set(finals) == site.expected_urls() and len(finals) == len(set(finals))

            # A restart (new pid, so a new default worker id) finds the first free store again.
            before = len(stored["auto-1"])
            async with DemoSite(hosts=1, articles_per_host=8) as more:
                await seed_pool(url, more, tmp_path / "seeder")
                again = await worker(url)
                _out, err = await asyncio.wait_for(again.communicate(), 30)
                assert again.returncode == 0, err.decode()
                assert f"pages in {base / 'auto-1'}" in err.decode()
            assert sorted(p.name for p in base.iterdir()) == stores  # no fourth store
            assert len(stored_final_urls(base / "auto-1")) > before

    asyncio.run(asyncio.wait_for(main(), 100))


def test_a_resume_is_not_undone_by_a_read_of_the_flag_before_it_landed(
    redis_server: str, tmp_path: Path
) -> None:
    """The window's Resume flicked back to Paused when the crawl read the pool's flag while
    its own write of "resumed" was still on its way."""
    url = pool_url(redis_server)

    async def main() -> None:
        settings = replace(SETTINGS, mode=CrawlMode.CONTINUOUS)
        session = await CrawlSession.open(url, settings, store_dir=tmp_path / "w", worker="gui")
        pool = session.frontier
        crawler = session.crawler
        try:
            crawler.start()
            crawler.pause()
            for _ in range(100):
                if await pool.paused():
                    break
                await asyncio.sleep(0.02)
            assert await pool.paused()
            landed = asyncio.Event()
            real = pool.set_paused

            async def slow_set_paused(paused: bool) -> int:  # a slow link to the server
                await landed.wait()
                return await real(paused)

            pool.set_paused = slow_set_paused
            crawler.resume()
            assert crawler.state.value == "running"
            crawler.shared_pause.last_poll = 0.0
            await crawler.shared_pause.poll()  # the pool still says "paused"
            assert crawler.state.value == "running"
            landed.set()
            for _ in range(100):
                if not await pool.paused():
                    break
                await asyncio.sleep(0.02)
            crawler.shared_pause.last_poll = 0.0
            await crawler.shared_pause.poll()
            assert crawler.state.value == "running"
            # a pause set elsewhere still reaches it
            await RedisPool.set_paused(pool, True)
            crawler.shared_pause.last_poll = 0.0
            await crawler.shared_pause.poll()
            assert crawler.state.value == "paused"
        finally:
            await crawler.stop(wait_in_flight=False)
            await session.close()

    asyncio.run(main())
