"""Notifications: an until-idle crawl that finishes, a host that keeps failing (a real crawl in
the real window, offscreen: no system tray there, so they go to the status bar and
``Notifier.sent``)."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.gui.mainwindow import MainWindow
from crawler_gui.gui.notify import FailingHosts
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import host, run, wait_for

pytestmark = pytest.mark.gui

UNTIL_IDLE = CrawlSettings(
    concurrency=8,
    min_delay=0.0,
    delay_factor=0.0,
    obey_robots=False,
    allow_private=True,
    mode=CrawlMode.UNTIL_IDLE,
    idle_span=0.5,
    hub_span=3600.0,
    retry_base=0.05,
    failure_threshold=1,
    connect_timeout=1.0,
    extract="off",
)


def test_a_host_is_reported_once_per_run_of_failures():
    failing = FailingHosts(threshold=3)
    assert failing.update([host("a.example.com", done=5, failed=0)]) == []
    assert failing.update([host("a.example.com", done=5, failed=2)]) == []
    [row] = failing.update([host("a.example.com", done=5, failed=3)])
    assert row.host == "a.example.com"
    assert failing.update([host("a.example.com", done=5, failed=9)]) == []  # once
    # a success starts the count again, and the host can be reported again
    assert failing.update([host("a.example.com", done=6, failed=9)]) == []
    assert failing.update([host("a.example.com", done=6, failed=11)]) == []
    assert [r.host for r in failing.update([host("a.example.com", done=6, failed=12)])] == [
        "a.example.com"
    ]
    # hosts that fail while others succeed are told apart
    assert failing.update([host("b.example.com", done=1, failed=0)]) == []
    assert failing.update([host("b.example.com", done=2, failed=5)]) == []


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.9", 0))
        return int(s.getsockname()[1])  # closed again: connections to it are refused


def test_finished_crawl_and_failing_host_are_notified(aloop, qsettings, tmp_path, gui_log):
    dead = f"http://127.0.0.9:{closed_port()}"

    async def scenario():
        async with DemoSite(hosts=2, articles_per_host=8, slow_share=0.0) as site:
            session = await CrawlSession.open(tmp_path / "pool", UNTIL_IDLE, demo_site=site)
            await session.crawler.add_seeds([f"{dead}/news/{i}.html" for i in range(12)])
            w = MainWindow(session, qsettings=qsettings, refresh_ms=50)
            w.show()
            w.start_refresh()
            try:
                w.act_start.trigger()
                await wait_for(lambda: session.crawler.state is CrawlState.FINISHED, timeout=60)
                await wait_for(lambda: len(w.notifier.sent) >= 2, timeout=10)
                titles = sorted(t for t, _ in w.notifier.sent)
                assert titles == ["A host keeps failing", "Crawl finished"]  # each once
                failing = dict(w.notifier.sent)["A host keeps failing"]
                assert failing.startswith("127.0.0.9:")
                done = dict(w.notifier.sent)["Crawl finished"]
                assert f"{session.crawler.stats().pages} pages" in done
                assert w.notifier.tray is None  # no system tray offscreen: the status bar
                # ... where the next refreshes do not replace it (they write the rate line)
                ticks = w.ticks
                await wait_for(lambda: w.ticks >= ticks + 3, timeout=10)
                assert w.statusBar().currentMessage().startswith(w.notifier.sent[-1][0])
            finally:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
            return w

    delete_now(run(aloop, scenario(), timeout=90))


def test_a_continuous_crawl_that_stops_says_nothing(aloop, qsettings, tmp_path):
    settings = replace(UNTIL_IDLE, mode=CrawlMode.CONTINUOUS, max_pages=3)

    async def scenario():
        async with DemoSite(hosts=1, articles_per_host=8, slow_share=0.0) as site:
            session = await CrawlSession.open(tmp_path / "pool", settings, demo_site=site)
            w = MainWindow(session, qsettings=qsettings, refresh_ms=50)
            w.show()
            try:
                w.act_start.trigger()
                await wait_for(lambda: session.crawler.state is CrawlState.STOPPED, timeout=60)
                assert w.notifier.sent == []
            finally:
                w.close()
                await w.wait_closed()
            return w

    delete_now(run(aloop, scenario(), timeout=90))
