"""The window opens a shared Redis pool (real redis-server, real demo site, real crawler) and
its pause/resume reach every worker through the pool-wide flag."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.gui.dialogs.redis_url import RedisUrlDialog, redis_url_problem
from crawler_gui.gui.mainwindow import MainWindow
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import run, wait_for, with_dialog

pytestmark = pytest.mark.gui

SETTINGS = CrawlSettings(
    concurrency=2,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.CONTINUOUS,
    retry_base=0.2,
    allow_private=True,
)


def test_redis_url_validation() -> None:
    assert redis_url_problem("redis://127.0.0.1:6379/0?name=news") is None
    assert redis_url_problem("rediss://user:pw@cache.example.com/3?name=a.b-c_d") is None
    for bad in (
        "",
        "http://127.0.0.1:6379/0",
        "/var/pools/news",
        "redis://:6379/0",
        "redis://h:99999/0",
        "redis://h:6379/x",
        "redis://h/0?name=bad/name",
        "unix://",
        "redis://h/0?name=news&colour=blue",  # an option neither we nor redis-py know
    ):
        assert redis_url_problem(bad) is not None, bad
    # the dialog accepts what the core accepts: a Unix socket too
    assert redis_url_problem("unix:///run/redis/redis.sock?db=2&name=news") is None
    assert "unknown option" in (redis_url_problem("redis://h/0?colour=blue") or "")
    assert redis_url_problem("redis://:6379/0") == "The URL has no host."


def test_window_opens_a_redis_pool_and_pause_reaches_every_worker(
    aloop, qtbot, qsettings, tmp_path: Path, gui_log, redis_server: str
) -> None:
    url = f"{redis_server}?name=gui{uuid.uuid4().hex[:10]}"
    store = tmp_path / "store"
    site = DemoSite(hosts=3, articles_per_host=8, latency=0.2)

    async def opener(location: Path | str, settings: CrawlSettings):
        return await CrawlSession.open(location, settings, store_dir=store, worker="gui")

    w = MainWindow(None, qsettings=qsettings, open_session=opener, refresh_ms=50)
    w.show()
    w.start_refresh()

    async def scenario() -> None:
        await site.start()
        other = await RedisPool.open(url, worker="other")  # another worker of the cluster
        try:
            await other.add_many(site.seed_urls())
            await other.add_scope_domains(["127.0.0.1", "127.0.0.2", "127.0.0.3"])

            def fill(d: RedisUrlDialog) -> None:
                d.edit.setText("http://127.0.0.1/")
                assert not d.ok_button().isEnabled() and d.problem.text()
                d.edit.setText(url)
                assert d.ok_button().isEnabled() and not d.problem.text()
                d.accept()

            w.settings = SETTINGS
            w.act_open_redis.trigger()
            await with_dialog(RedisUrlDialog, fill)
            await wait_for(lambda: w.session is not None)
            session = w.session
            assert session.location == url and session.store_dir == store
            assert w.pool_label.text() == url
            # The window shows the whole pool: the seeds another worker added.
            await wait_for(lambda: w.hosts_model.rowCount() == 3)

            w.start()
            await wait_for(lambda: w.state() is CrawlState.RUNNING)
            w.toggle_pause()
            assert w.state() is CrawlState.PAUSED
            for _ in range(100):
                if await other.paused():
                    break
                await asyncio.sleep(0.02)
            assert await other.paused()  # the shared flag every worker follows

            w.toggle_pause()
            assert w.state() is CrawlState.RUNNING
            for _ in range(100):
                if not await other.paused():
                    break
                await asyncio.sleep(0.02)
            assert not await other.paused()

            # A pause set elsewhere (another worker, another window) reaches this one too.
            await other.set_paused(True)
            await wait_for(lambda: w.state() is CrawlState.PAUSED, timeout=5)
            await other.set_paused(False)
            await wait_for(lambda: w.state() is CrawlState.RUNNING, timeout=5)
            await wait_for(
                lambda: w.last_snapshot is not None and w.last_snapshot.totals.done >= 1, timeout=10
            )
            assert qsettings.value("pool/last_redis") == url
        finally:
            await other.close()

    try:
        run(aloop, scenario(), timeout=45)
    finally:
        if not w.is_closed:
            w.close()
            run(aloop, w.wait_closed())
        run(aloop, site.stop())
    assert_no_active_timers(w)
    delete_now(w)
