"""``crawler-gui stats`` and attaching while ``crawler-gui crawl`` runs, as real processes;
and what a crawl killed with SIGKILL leaves behind (a stale socket), then a restart."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from crawler_gui.engine.control.attached import AttachedSession
from crawler_gui.engine.control.wire import ControlError
from crawler_gui.engine.settings import CrawlState
from tests.crawl_procs import Crawl, cli, demo_site


async def _attach_and_look(pool: Path) -> tuple[CrawlState, int]:
    session = await AttachedSession.attach(pool)
    try:
        snap = await session.frontier.snapshot()
        return session.crawler.state, snap.totals.hosts
    finally:
        await session.close()


def test_stats_of_a_running_crawl_then_kill_9_restart_and_reattach(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    with demo_site(tmp_path) as port:
        crawl = Crawl(pool, port).start()
        try:
            live = cli("stats", str(pool))
            assert live.returncode == 0, live.stderr
            totals = json.loads(live.stdout)
            assert totals["crawl"]["state"] == "running"
            assert totals["hosts"] == 1 and "pages_stored" in totals
            assert totals["crawl"]["attached_windows"] == 0
            assert asyncio.run(_attach_and_look(pool)) == (CrawlState.RUNNING, 1)

            crawl.kill9()
            assert crawl.socket.is_socket()  # left behind: nobody listens on it
            try:
                asyncio.run(_attach_and_look(pool))
            except ControlError as exc:
                assert "no crawl" in str(exc)
            else:
                raise AssertionError("attached to a killed crawl")
            # the next crawl of the pool finds it stale, replaces it, and serves again
            crawl = Crawl(pool, port).start()
            assert "removed the stale control socket" in crawl.text()
            assert asyncio.run(_attach_and_look(pool)) == (CrawlState.RUNNING, 1)
            again = cli("stats", str(pool))
            assert again.returncode == 0 and json.loads(again.stdout)["crawl"]["state"] == "running"
        finally:
            code = crawl.stop()
        assert code == 0, crawl.text()
        assert not crawl.socket.exists()  # an orderly end removes its socket
        # with the crawl gone, stats reads the pool itself (no "crawl" part)
        after = cli("stats", str(pool))
        assert after.returncode == 0 and "crawl" not in json.loads(after.stdout)


def test_stats_removes_the_socket_of_a_killed_crawl(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    with demo_site(tmp_path) as port:
        crawl = Crawl(pool, port).start()
        # Kill it once its seed is in the pool (serving the channel comes first).
        deadline = time.monotonic() + 60
        while json.loads(cli("stats", str(pool)).stdout or "{}").get("hosts") != 1:
            assert time.monotonic() < deadline, crawl.text()
            time.sleep(0.1)
        crawl.kill9()
    assert crawl.socket.is_socket()
    result = cli("--log-level", "INFO", "stats", str(pool))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["hosts"] == 1
    assert not crawl.socket.exists() and "removed the stale control socket" in result.stderr
