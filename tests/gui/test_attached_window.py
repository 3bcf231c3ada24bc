"""The window's key controls, run twice: over a local session, and attached to a crawl through
its control channel (``engine.control``: a real Unix socket, served in this process over a
real LevelDB pool). The window has one code path; these tests hold it to both modes."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from crawler_gui.core import snapshot_file
from crawler_gui.core.frontier import HubSpec
from crawler_gui.engine.control.attached import AttachedSession
from crawler_gui.engine.control.server import ControlServer
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.gui.dialogs.hubs import HubsDialog
from crawler_gui.gui.dialogs.seeds import AddSeedsDialog
from crawler_gui.gui.dialogs.settings import SettingsDialog
from crawler_gui.gui.mainwindow import MainWindow
from tests.gui.conftest import assert_no_active_timers, delete_now, shown_window
from tests.gui.gui_helpers import PoolSession, run, wait_for, with_dialog

pytestmark = pytest.mark.gui


class Setup:
    """The crawl behind the window (``backing``), and for the attached mode its server."""

    def __init__(self, mode: str, backing: PoolSession, server: ControlServer | None) -> None:
        self.mode = mode
        self.backing = backing
        self.server = server

    @property
    def attached(self) -> bool:
        return self.server is not None

    async def end_crawl(self) -> None:
        """What ``crawler-gui crawl`` does at its end: close the crawl, then the channel."""
        if self.server is not None:
            self.server.ending()
        await self.backing.close()
        if self.server is not None:
            await self.server.close(self.backing.crawler.state)


async def opener(path: Path | str, settings: CrawlSettings) -> PoolSession:
    return await PoolSession.open(Path(path), settings)


@pytest.fixture(params=["local", "attached"])
def setup(request, aloop, tmp_path):
    pool = tmp_path / "pool"
    backing = run(aloop, PoolSession.open(pool, CrawlSettings()))
    server = None
    if request.param == "attached":
        server = run(aloop, ControlServer.start(backing, pool))
    s = Setup(request.param, backing, server)
    yield s
    run(aloop, s.end_crawl())


@pytest.fixture
def window(setup, aloop, qtbot, qsettings, gui_log):
    session: Any = setup.backing
    if setup.attached:
        session = run(aloop, AttachedSession.attach(setup.backing.location))
    yield from shown_window(aloop, session, qsettings, opener)


def test_title_and_load_action_say_which_mode(window, setup):
    attached = "attached to a running crawl" in window.windowTitle()
    assert attached == setup.attached
    assert window.act_load.isEnabled() == (not setup.attached)


def test_add_seeds_through_the_dialog_reaches_the_crawl(window, setup, aloop):
    async def scenario():
        def fill(d):
            d.editor.setPlainText("http://a.example.com/\nhttp://b.example.com/x")
            d.validate()
            d.accept()

        window.act_add.trigger()
        await with_dialog(AddSeedsDialog, fill)
        await wait_for(lambda: window.hosts_model.rowCount() == 2)
        assert setup.backing.frontier.totals_sync().waiting == 2
        assert window.overview.value("waiting") == "2"

    run(aloop, scenario())


def test_hubs_dialog_sets_the_crawls_hubs_and_hub_percent(window, setup, aloop):
    async def scenario():
        def fill(d):
            d.load_preset()
            d.percent.setValue(25)
            d.accept()

        window.act_hubs.trigger()
        await with_dialog(HubsDialog, fill)
        await wait_for(lambda: window.hubs_model.rowCount() >= 15)
        await wait_for(lambda: setup.backing.crawler.settings.hub_percent == 25)
        assert any(h.url == "http://news.sina.com.cn/" for h in setup.backing.frontier.hubs_sync())

    run(aloop, scenario())


def test_start_pause_resume_stop_steer_the_crawl(window, setup, aloop):
    crawler = setup.backing.crawler

    async def scenario():
        await setup.backing.frontier.add_many(
            [f"http://h{i}.example.com/p{j}" for i in range(5) for j in range(40)]
        )
        window.act_start.trigger()
        await wait_for(lambda: crawler.state == CrawlState.RUNNING)
        await wait_for(lambda: len(crawler.fetched) >= 10)
        await wait_for(window.act_pause.isEnabled)
        window.act_pause.trigger()
        await wait_for(lambda: crawler.state == CrawlState.PAUSED)
        await wait_for(lambda: window.act_pause.text() == "&Resume")
        await wait_for(lambda: not crawler.in_batch)  # a batch in flight finishes
        count = len(crawler.fetched)
        await asyncio.sleep(0.3)
        assert len(crawler.fetched) == count  # no new fetch while paused
        window.act_pause.trigger()
        await wait_for(lambda: crawler.state == CrawlState.RUNNING)
        await wait_for(lambda: len(crawler.fetched) > count + 5)
        await wait_for(lambda: int(window.overview.value("done").replace(",", "")) > count)
        window.act_stop.trigger()
        await wait_for(lambda: crawler.state == CrawlState.STOPPED)
        await wait_for(lambda: window.state() == CrawlState.STOPPED)

    run(aloop, scenario())


def test_save_snapshot_and_row_actions_reach_the_crawl(window, setup, aloop, tmp_path, monkeypatch):
    frontier = setup.backing.frontier
    calls = []

    async def fake(name, url):
        calls.append((name, url))
        return True

    monkeypatch.setattr(frontier, "retry_now", lambda u: fake("retry_now", u))
    monkeypatch.setattr(frontier, "refresh_hub", lambda u: fake("refresh_hub", u))

    async def scenario():
        await frontier.add_many([f"http://h{i}.example.com/" for i in range(30)])
        await frontier.set_hubs([HubSpec("http://news.example.com/", 600)])
        await setup.backing.crawler.add_scope_domains(["example.com"])
        n = await window.save_snapshot(tmp_path / "s.cgpool")
        assert n and n >= 31 and (tmp_path / "s.cgpool").exists()
        # the crawl's scope travels in the snapshot, attached or not
        assert "example.com" in snapshot_file.read_scope(tmp_path / "s.cgpool")
        await wait_for(lambda: window.hubs_model.rowCount() == 1)
        await window.refresh_hub("http://news.example.com/")
        await window.retry_now("http://x.example.com/")
        assert calls == [
            ("refresh_hub", "http://news.example.com/"),
            ("retry_now", "http://x.example.com/"),
        ]

    run(aloop, scenario())


def test_save_report_reads_the_crawls_counters(window, setup, aloop, tmp_path):
    """File → Save report, local or attached: the report holds the pool's counters (attached:
    sent by the crawl through its control channel)."""
    from crawler_gui.core.counters import Counters

    counts = Counters()
    for _ in range(7):
        counts.fetch(1_700_000_000.0, "news.example.com", 200, None, 100)
    counts.fetch(1_700_000_000.0, "bad.example.com", None, "timeout", 0)

    async def scenario():
        await setup.backing.frontier.add_counters(counts)
        target = tmp_path / "report.html"
        assert await window.save_report(target) == target
        page = target.read_text(encoding="utf-8")
        assert '<th scope="row">Pages fetched (with an HTTP status)</th><td>7</td>' in page
        assert "bad.example.com" in page and "timeout × 1" in page

    run(aloop, scenario())


def test_closing_the_window(window, setup, aloop):
    """Local: closing stops the crawl and closes the pool. Attached: the crawl runs on."""
    crawler = setup.backing.crawler

    async def scenario():
        await setup.backing.frontier.add_many([f"http://h{i}.example.com/" for i in range(50)])
        crawler.start()
        await wait_for(lambda: len(crawler.fetched) >= 3)
        window.close()
        await window.wait_closed()
        if setup.attached:
            count = len(crawler.fetched)
            await wait_for(lambda: len(crawler.fetched) > count)
            assert crawler.state == CrawlState.RUNNING and not setup.backing.closed
            await wait_for(lambda: not setup.server.clients)
        else:
            assert setup.backing.closed and crawler.state == CrawlState.STOPPED

    run(aloop, scenario())


@pytest.fixture
def attached_setup(aloop, tmp_path):
    pool = tmp_path / "pool"
    backing = run(aloop, PoolSession.open(pool, CrawlSettings()))
    s = Setup("attached", backing, run(aloop, ControlServer.start(backing, pool)))
    yield s
    run(aloop, s.end_crawl())


def test_two_windows_attach_and_the_crawls_end_offers_to_open_the_pool(
    attached_setup, aloop, qtbot, qsettings, gui_log
):
    setup = attached_setup
    crawler = setup.backing.crawler
    windows = []
    for _ in range(2):
        session = run(aloop, AttachedSession.attach(setup.backing.location))
        w = MainWindow(session, qsettings=qsettings, open_session=opener, refresh_ms=50)
        w.show()
        w.start_refresh()
        windows.append(w)
    first, second = windows

    async def scenario():
        await setup.backing.frontier.add_many([f"http://h{i}.example.com/" for i in range(50)])
        crawler.start()
        await wait_for(lambda: first.state() == CrawlState.RUNNING)
        first.act_pause.trigger()
        await wait_for(lambda: second.act_pause.text() == "&Resume")  # the other window follows
        assert crawler.state == CrawlState.PAUSED
        # settings changed in one window reach the crawl, and the other window's dialog
        first._apply_settings(dataclasses.replace(first.settings, concurrency=7))
        await wait_for(lambda: crawler.settings.concurrency == 7)
        await wait_for(lambda: second.session.settings.concurrency == 7)
        second.act_settings.trigger()

        def look(d):
            assert d.concurrency.value() == 7
            d.reject()

        await with_dialog(SettingsDialog, look)
        seen = []

        def answer(box):
            seen.append(box.text())
            if box.parent() is first:
                box.button(QMessageBox.StandardButton.Open).click()
            else:
                box.button(QMessageBox.StandardButton.Close).click()

        await setup.end_crawl()  # the crawl ends: both windows hear it
        await with_dialog(QMessageBox, answer)
        await with_dialog(QMessageBox, answer)
        assert len(seen) == 2 and all("has ended (Stopped)" in t for t in seen)
        # the first window opened the pool itself (free now); the second still shows the end
        await wait_for(lambda: isinstance(first.session, PoolSession))
        assert "attached" not in first.windowTitle() and first.act_load.isEnabled()
        assert second.state() == CrawlState.STOPPED and not second.act_start.isEnabled()
        assert "has ended" in second.pool_label.text()

    try:
        run(aloop, scenario())
    finally:
        for w in windows:
            if not w.is_closed:
                w.close()
                run(aloop, w.wait_closed())
            assert_no_active_timers(w)
            delete_now(w)


def test_the_attach_strings_are_translated(qapp):
    from PySide6.QtCore import QCoreApplication, QLocale

    from crawler_gui.gui.app import install_translators

    translators = install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        assert QCoreApplication.translate("MainWindow", "Crawl ended") == "抓取已结束"
        assert "%1" in QCoreApplication.translate("MainWindow", "%1 (attached to a running crawl)")
    finally:
        for t in translators:
            qapp.removeTranslator(t)


def test_host_detail_pauses_a_host_and_lists_its_queue(window, setup, aloop):
    pool = setup.backing.frontier

    async def scenario():
        await pool.add_many([f"http://h{i}.example.com/p{j}" for i in range(2) for j in range(60)])
        await wait_for(lambda: window.hosts_model.rowCount() == 2)
        pane = window.hosts_pane
        index = pane.view_index(
            window.hosts_model.index(window.hosts_model.find("h0.example.com"), 0)
        )
        pane.view.customContextMenuRequested.emit(pane.view.visualRect(index).center())
        menu = pane.last_menu
        assert menu is not None
        next(a for a in menu.actions() if a.text() == "Pause host").trigger()
        menu.close()
        await wait_for(lambda: pool.snapshot_sync().hosts[0].paused)
        next(a for a in menu.actions() if a.text() == "Host detail…").trigger()
        await wait_for(lambda: "h0.example.com" in window.host_dialogs)
        dlg = window.host_dialogs["h0.example.com"]
        await wait_for(lambda: dlg.waiting_table.rowCount() == 50)
        assert dlg.page_label.text() == "page 1 of 2 (60 waiting)"
        dlg.next_button.click()
        await wait_for(lambda: dlg.waiting_table.rowCount() == 10)
        await wait_for(lambda: dlg.why_label.text() == "Why: host paused by you")
        dlg.delay_spin.setValue(3.0)
        dlg.delay_button.click()
        await wait_for(lambda: pool.snapshot_sync().hosts[0].user_delay == 3.0)
        dlg.pause_button.click()
        await wait_for(lambda: not pool.snapshot_sync().hosts[0].paused)
        dlg.close()

    run(aloop, scenario())
