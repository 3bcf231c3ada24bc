"""A full disk during a crawl, on a real small tmpfs (mounted by the test: needs root, as in
CI). The crawl pauses (window) or stops (command line) with one clear line, charges no attempt
for our own disk, and goes on once there is room again."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.store import PageStore
from tests.mounts import tmpfs
from tests.test_cli import cli

pytestmark = pytest.mark.slow

#: The test disk: room for a whole demo crawl (pages, articles, both databases' logs and
#: compactions) once the ballast is gone, with a margin for a loaded machine's timing.
DISK_MB = 64


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    where = tmp_path / "disk"
    where.mkdir()
    with tmpfs(where, f"size={DISK_MB}m"):
        yield where


def fill(disk: Path, leave_kb: int) -> Path:
    """A ballast file that leaves about ``leave_kb`` KB free."""
    free = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    ballast = disk / "ballast"
    with open(ballast, "wb") as f:
        f.write(bytes(max(0, free - leave_kb * 1024)))
    return ballast


def test_cli_stops_with_one_line_and_resumes_without_charging(small_disk: Path) -> None:
    pool = small_disk / "pool"
    ballast = fill(small_disk, 1200)
    full = cli("crawl", str(pool), "--demo", "--min-free", "0", "--no-progress")
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith("crawler-gui: ") and "disk is full" in last, full.stderr
    assert "run the same command again" in last
    ballast.unlink()
    again = cli("crawl", str(pool), "--demo", "--min-free", "0", "--no-progress")
    assert again.returncode == 0, again.stderr
    totals = json.loads(cli("stats", str(pool)).stdout)
    assert totals["waiting"] == 0 and totals["pending"] == 0 and totals["done"] > 100


def test_cli_stops_before_the_disk_is_full(small_disk: Path) -> None:
    pool = small_disk / "pool"
    first = cli("crawl", str(pool), "--demo", "--min-free", str(DISK_MB - 1), "--no-progress")
    assert first.returncode == 1, first.stderr
    assert "Traceback" not in first.stderr
    lines = [line for line in first.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("crawler-gui: only ") and "MB left" in lines[-1], first.stderr
    # The stop was clean: nothing left leased, so nothing is charged when it resumes.
    again = cli("crawl", str(pool), "--demo", "--min-free", "0", "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "reclaimed" not in again.stderr, again.stderr


@pytest.mark.timeout(300)  # a demo crawl on a loaded machine
def test_the_crawl_pauses_and_goes_on_once_there_is_room(small_disk: Path) -> None:
    """In process (as in the window): paused with the message, nothing charged; after
    resume the same crawl finishes and no URL was charged an attempt for our disk."""
    pool_dir = small_disk / "pool"
    settings = CrawlSettings(
        concurrency=8, min_delay=0.02, delay_factor=0.0, min_free_mb=0, mode=CrawlMode.UNTIL_IDLE
    )

    async def scenario() -> None:
        session = await CrawlSession.open(pool_dir, settings, demo=True)
        messages: list[str] = []
        crawler = session.crawler
        crawler.storage_listeners.append(messages.append)
        ballast = fill(small_disk, 1200)
        try:
            crawler.start()
            for _ in range(600):
                if crawler.state is CrawlState.PAUSED:
                    break
                await asyncio.sleep(0.05)
            assert crawler.state is CrawlState.PAUSED, crawler.state
            assert messages and "disk is full" in messages[0]
            while crawler.in_flight:
                await asyncio.sleep(0.05)
            ballast.unlink()
            crawler.resume()
            state = await asyncio.wait_for(crawler.wait(), 240)
            assert state is CrawlState.FINISHED, (state, crawler.last_error)
            totals = (await session.frontier.snapshot()).totals
            assert totals.waiting == 0 and totals.pending == 0
            assert crawler.storage_error is None
        finally:
            if ballast.exists():
                ballast.unlink()
            await session.close()

    asyncio.run(scenario())
    # Both databases open again with paranoid checks: no write landed after a half-written
    # record of a log (which a reopen would report as corruption).
    LevelDBPool.open(pool_dir, create=False).close_sync()
    PageStore.open_in_pool(pool_dir, create=False).close()


def test_an_export_on_a_full_disk_keeps_the_previous_one(small_disk: Path, tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    done = cli("crawl", str(pool), "--demo", "--no-progress", "--max-pages", "60")
    assert done.returncode == 0, done.stderr
    out = small_disk / "pages.jsonl"
    out.write_text("the previous export\n")
    fill(small_disk, 2)
    result = cli("export", str(pool), "-o", str(out))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"crawler-gui: cannot write {out}: the disk is full"
    ], result.stderr
    assert out.read_text() == "the previous export\n"
    assert sorted(p.name for p in small_disk.iterdir()) == ["ballast", "pages.jsonl"]
