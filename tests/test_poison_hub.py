"""A hub page that kills the crawler process: after as many lost fetches as a page may have, the
hub is parked (and shown as such) instead of crash-looping the crawl forever. Real crawler
processes, killed for real by the test's web server when they ask for the hub."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from aiohttp import web

from crawler_gui.core.frontier import PARKED_CRASHED
from crawler_gui.core.leveldb import LevelDBPool

pytestmark = pytest.mark.slow

THRESHOLD = 3  # CrawlSettings.failure_threshold, the default


def test_a_poison_hub_is_parked_after_it_killed_the_crawler_enough_times(tmp_path: Path) -> None:
    asyncio.run(_scenario(tmp_path))


async def _scenario(tmp_path: Path) -> None:
    victim: list[int] = []  # the pid of the crawler running now
    hub_requests = 0

    async def poison(_request: web.Request) -> web.Response:
        nonlocal hub_requests
        hub_requests += 1
        os.kill(victim[-1], signal.SIGKILL)  # the page "kills the process"
        await asyncio.sleep(5)
        return web.Response(text="never seen")

    app = web.Application()
    app.router.add_get("/hub", poison)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    hubs = tmp_path / "hubs.txt"
    hubs.write_text(f"http://127.0.0.1:{port}/hub 60\n")
    pool = tmp_path / "pool"
    try:
        codes = []
        for _run in range(THRESHOLD + 2):
            proc = await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "crawler_gui", "crawl", str(pool)),
                *("--hubs-file", str(hubs), "--allow-private", "--ignore-robots"),
                *("--until-idle", "--no-progress", "--delay", "0"),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            victim.append(proc.pid)
            _out, err = await asyncio.wait_for(proc.communicate(), 60)
            codes.append(proc.returncode)
            if proc.returncode == 0:
                break
        # Killed THRESHOLD + 1 times (the last lost fetch parks it), then a clean run that
        # finds nothing to do and ends by itself instead of fetching the poison again.
        assert codes == [-signal.SIGKILL] * (THRESHOLD + 1) + [0], err.decode()
        assert hub_requests == THRESHOLD + 1
        assert b"parked" in err
    finally:
        await runner.cleanup()
    held = LevelDBPool.open(pool)
    try:
        (row,) = (await held.snapshot()).hubs
    finally:
        held.close_sync()
    assert row.parked == PARKED_CRASHED and row.crashes == THRESHOLD + 1
    stats = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "crawler_gui", "stats", str(pool)),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await stats.communicate()
    assert json.loads(out)["hubs"] == 1
