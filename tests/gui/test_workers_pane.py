"""The Workers pane of a shared pool: heartbeats of other workers (real RedisPool clients on
a real redis-server) appear as rows, silence shows, leases are counted per worker, and a dead
worker's leases can be reclaimed; a LevelDB pool has no such pane."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QMessageBox

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import SILENT_AFTER, PendingRow, WorkerRow
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui import mainwindow
from crawler_gui.gui.mainwindow import MainWindow
from crawler_gui.gui.models import InFlightModel, SortRole, WorkersModel
from tests.gui.conftest import delete_now, shown_window
from tests.gui.gui_helpers import (
    T0,
    PoolSession,
    RedisSession,
    gathered,
    pending,
    run,
    wait_for,
    with_dialog,
)

pytestmark = pytest.mark.gui

FOREGROUND = Qt.ItemDataRole.ForegroundRole
FONT = Qt.ItemDataRole.FontRole
STATE, SEEN, IN_FLIGHT = 2, 3, 6


def worker_row(worker: str, state: str = "running", seen: float = T0, pages: int = 10) -> WorkerRow:
    return WorkerRow(worker, "box-1", 4242, state, T0 - 600, seen, pages, 1.25)


def leased(url: str, worker: str) -> PendingRow:
    return pending(url)._replace(worker=worker)


def cell(model, worker: str, column: int, role=Qt.ItemDataRole.DisplayRole):
    i = model.find(worker)
    assert i is not None, f"no row for {worker}"
    return model.data(model.index(i, column), role)


# -- the model alone ------------------------------------------------------------------------


def test_qtmodeltester_on_workers_model(qtmodeltester) -> None:
    model = WorkersModel()
    model.set_workers([worker_row(f"w{i}", seen=T0 - 7 * i) for i in range(6)], now=T0)
    model.set_pending(
        [leased(f"http://h{i}.example.com/", f"w{i % 3}") for i in range(7)]
        + [leased("http://old.example.com/", "ghost")],
        now=T0,
    )
    qtmodeltester.check(model)
    model.set_workers([worker_row(f"w{i}", seen=T0 - 7 * i) for i in range(2, 6)], now=T0 + 1)
    qtmodeltester.check(model)
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SortRole)
    proxy.sort(SEEN, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(proxy)
    model.clear()
    qtmodeltester.check(model)


def test_workers_model_texts_silence_and_leases(qapp) -> None:
    model = WorkersModel()
    model.own_worker = "gui"
    model.set_workers(
        [
            worker_row("alive", seen=T0 - 3, pages=1234),
            worker_row("quiet", state="running", seen=T0 - SILENT_AFTER - 1),
            worker_row("gui", state="paused", seen=T0),
        ],
        now=T0,
    )
    model.set_pending(
        [
            leased("http://a.example.com/", "alive"),
            leased("http://b.example.com/", "alive"),
            leased("http://c.example.com/", "quiet"),
            leased("http://d.example.com/", "ghost"),  # leases, but never a heartbeat
            pending("http://e.example.com/"),  # a local pool's lease: nobody's
        ],
        now=T0,
    )
    assert [r.worker for r in model.rows()] == ["alive", "quiet", "gui", "ghost"]
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)] == [
        "Worker",
        "Machine",
        "State",
        "Last seen",
        "Pages fetched",
        "Pages/s",
        "In flight",
    ]
    assert [cell(model, "alive", c) for c in range(7)] == [
        "alive",
        "box-1",
        "running",
        "3 s ago",
        "1,234",
        "1.25",
        "2",
    ]
    assert cell(model, "gui", 0) == "gui (this window)"
    assert cell(model, "gui", STATE) == "paused"
    # older than SILENT_AFTER: silent whatever it last said, in a warning colour
    assert cell(model, "quiet", STATE) == "silent"
    assert cell(model, "quiet", IN_FLIGHT) == "1"
    assert isinstance(cell(model, "quiet", 0, FOREGROUND), QBrush)
    assert cell(model, "quiet", STATE, FONT).bold()
    assert "It last reported: running" in cell(model, "quiet", STATE, Qt.ItemDataRole.ToolTipRole)
    assert cell(model, "alive", 0, FOREGROUND) is None
    assert cell(model, "alive", STATE, FONT) is None
    assert cell(model, "ghost", STATE) == "no heartbeat"
    assert cell(model, "ghost", IN_FLIGHT) == "1"
    # time passes without a heartbeat: "alive" turns silent at the next tick
    model.set_pending([], now=T0 + SILENT_AFTER)
    assert cell(model, "alive", STATE) == "silent" and cell(model, "alive", IN_FLIGHT) == "0"
    assert "silent" in model.search_text(model.get("alive"))
    assert model.find("ghost") is None  # no leases and no heartbeat: no row


def test_inflight_model_keeps_its_columns_and_adds_the_worker_last(qapp) -> None:
    model = InFlightModel()
    assert model.columnCount() == 8 and model.WORKER_COLUMN == 6
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(8)]
    # (the Why column, after the worker, came later: the others keep their numbers)
    assert headers == ["URL", "Host", "Depth", "Hub", "Elapsed", "Lease", "Worker", "Why"]
    model.update(
        [leased("http://a.example.com/", "crawl-1"), pending("http://b.example.com/")], now=T0
    )
    assert model.data(model.index(0, 6)) == "crawl-1"
    assert model.data(model.index(1, 6)) == ""  # a local pool's lease
    assert model.data(model.index(0, 5), Qt.ItemDataRole.UserRole + 2) is not None  # progress
    assert "crawl-1" in model.search_text(model.row(0))


# -- the window over a real Redis pool ----------------------------------------------------------


@pytest.fixture
def pool_url(redis_server: str) -> str:
    return f"{redis_server}?name=gw{uuid.uuid4().hex[:10]}"


@pytest.fixture
def clock() -> ManualClock:
    """One clock for the window's pool and the fake workers (heartbeats carry its time)."""
    return ManualClock()


@pytest.fixture
def window(aloop, qtbot, qsettings, tmp_path, gui_log, pool_url, clock):
    async def opener(location: Path | str, settings: CrawlSettings):
        if isinstance(location, str):
            return await RedisSession.open_redis(location, settings, clock=clock)
        return await PoolSession.open(location, settings)

    session = run(aloop, opener(pool_url, CrawlSettings()))
    yield from shown_window(aloop, session, qsettings, opener)


async def open_workers(url: str, clock: ManualClock, *names: str) -> list[RedisPool]:
    return [await RedisPool.open(url, clock=clock, worker=name) for name in names]


async def close_all(pools: list[RedisPool]) -> None:
    for pool in pools:
        await pool.close()


def test_heartbeats_show_as_rows_silence_shows_and_leases_count(
    window, aloop, pool_url, clock, monkeypatch
) -> None:
    monkeypatch.setattr(mainwindow, "WORKERS_SECONDS", 0.2)
    model = window.workers_model

    async def scenario() -> None:
        w1, w2 = workers = await open_workers(pool_url, clock, "crawl-1", "crawl-2")
        try:
            assert window.workers_pane_shown and window.workers_dock.isVisible()
            assert window.workers_dock.toggleViewAction().isVisible()
            assert not window.inflight_pane.view.isColumnHidden(InFlightModel.WORKER_COLUMN)
            started = clock.now()
            await w1.heartbeat("running", 120, 2.5, started)
            await w2.heartbeat("paused", 7, 0.0, started)
            await w1.add_many([f"http://h{i}.example.com/" for i in range(5)])
            assert len(await w1.pop(2, 0)) == 2
            assert len(await w2.pop(1, 0)) == 1
            await wait_for(lambda: model.rowCount() == 2 and model.find("crawl-2") is not None)
            # Heartbeats and leases are read on beats of their own: wait for both.
            await wait_for(
                lambda: (
                    cell(model, "crawl-1", IN_FLIGHT) == "2"
                    and cell(model, "crawl-1", STATE) == "running"
                    and cell(model, "crawl-2", STATE) == "paused"
                    and cell(model, "crawl-2", IN_FLIGHT) == "1"
                )
            )
            assert [cell(model, "crawl-1", c) for c in range(7)][2:] == [
                "running",
                "0 s ago",
                "120",
                "2.50",
                "2",
            ]
            assert cell(model, "crawl-2", STATE) == "paused"
            assert cell(model, "crawl-2", IN_FLIGHT) == "1"
            inflight = window.inflight_model
            await wait_for(lambda: inflight.rowCount() == 3)
            assert sorted(inflight.data(inflight.index(i, 6)) for i in range(3)) == [
                "crawl-1",
                "crawl-1",
                "crawl-2",
            ]

            # crawl-2 goes quiet; crawl-1 keeps beating
            clock.advance(SILENT_AFTER + 5)
            await w1.heartbeat("running", 150, 3.0, started)
            # (until the next read of the heartbeats both look silent: the clock jumped)
            await wait_for(
                lambda: (
                    cell(model, "crawl-2", STATE) == "silent"
                    and cell(model, "crawl-1", STATE) == "running"
                )
            )
            assert cell(model, "crawl-1", SEEN) == "0 s ago"
            assert cell(model, "crawl-2", SEEN) == "25 s ago"
            assert isinstance(cell(model, "crawl-2", STATE, FOREGROUND), QBrush)
            assert cell(model, "crawl-1", STATE, FOREGROUND) is None
            assert isinstance(cell(model, "crawl-2", STATE, FONT), QFont)
            # a worker that comes back is no longer silent
            await w2.heartbeat("running", 8, 0.5, started)
            await wait_for(lambda: cell(model, "crawl-2", STATE) == "running")
        finally:
            await close_all(workers)

    run(aloop, scenario())


def test_heartbeats_are_read_every_few_seconds_not_every_tick(window, aloop, pool_url, clock):
    frontier = window.session.frontier
    reads = []
    real = frontier.workers

    async def counted():
        reads.append(window.ticks)
        return await real()

    frontier.workers = counted  # a spy: the real pool answers

    async def scenario() -> float:
        (w1,) = workers = await open_workers(pool_url, clock, "crawl-1")
        try:
            await w1.heartbeat("running", 1, 0.1, clock.now())
            t0 = aloop.time()
            start = window.ticks
            await wait_for(lambda: window.ticks >= start + 30, timeout=15)
            await wait_for(lambda: window.workers_model.find("crawl-1") is not None)
            return aloop.time() - t0
        finally:
            await close_all(workers)

    elapsed = run(aloop, scenario(), timeout=30)
    # 30 ticks of 50 ms or more: one read at the start, then one per WORKERS_SECONDS (2 s)
    assert mainwindow.WORKERS_SECONDS == 2.0
    assert 1 <= len(reads) <= elapsed / mainwindow.WORKERS_SECONDS + 2, (reads, elapsed)
    assert len(reads) < 10


def reclaim_action(window: MainWindow, worker: str):
    pane = window.workers_pane
    i = window.workers_model.find(worker)
    assert i is not None
    index = pane.view_index(window.workers_model.index(i, 0))
    pane.view.selectRow(index.row())
    menu = pane.build_menu(index)
    acts = {a.text(): a for a in menu.actions()}
    assert "Open in browser" not in acts  # a worker is not a URL
    return menu, acts["Reclaim leases"]


def test_reclaim_action_returns_a_dead_workers_leases(
    window, aloop, pool_url, clock, monkeypatch
) -> None:
    monkeypatch.setattr(mainwindow, "WORKERS_SECONDS", 0.2)
    model = window.workers_model
    frontier = window.session.frontier
    texts: list[str] = []

    def click(button: QMessageBox.StandardButton):
        def act(box: QMessageBox) -> None:
            texts.append(box.text())
            box.button(button).click()

        return act

    async def scenario() -> None:
        w1, w2 = workers = await open_workers(pool_url, clock, "crawl-1", "crawl-2")
        try:
            await w1.heartbeat("running", 1, 0.1, clock.now())
            await w2.heartbeat("running", 1, 0.1, clock.now())
            await w1.add_many([f"http://h{i}.example.com/" for i in range(5)])
            await w1.pop(1, 0)
            await w2.pop(3, 0)
            await wait_for(lambda: model.find("crawl-2") is not None)
            await wait_for(lambda: cell(model, "crawl-2", IN_FLIGHT) == "3")
            clock.advance(SILENT_AFTER + 1)  # crawl-2 dies (crawl-1 too, but it is not asked)
            await wait_for(lambda: cell(model, "crawl-2", STATE) == "silent")

            # Cancel: nothing changes
            menu, act = reclaim_action(window, "crawl-2")
            act.trigger()
            await with_dialog(QMessageBox, click(QMessageBox.StandardButton.Cancel))
            await wait_for(lambda: not window.tasks.running())
            menu.deleteLater()
            snap = await frontier.snapshot()
            assert sorted(p.worker for p in snap.pending) == ["crawl-1", *["crawl-2"] * 3]
            assert "3 URLs leased by worker crawl-2" in texts[0]
            assert "fetch these URLs a second time" in texts[0]

            # Yes: crawl-2's leases go back, crawl-1's stay
            menu, act = reclaim_action(window, "crawl-2")
            act.trigger()
            await with_dialog(QMessageBox, click(QMessageBox.StandardButton.Yes))
            await wait_for(lambda: not window.tasks.running())
            menu.deleteLater()
            snap = await frontier.snapshot()
            assert [p.worker for p in snap.pending] == ["crawl-1"]
            assert snap.totals.waiting == 4  # 1 never popped + 3 back
            assert any("reclaimed 3 leases of worker crawl-2" in e.message for e in entries())
            await wait_for(lambda: cell(model, "crawl-2", IN_FLIGHT) == "0")
            # the URLs are poppable again, by anyone
            assert len(await w1.pop(5, 0)) == 4

            # a worker that still beats: the question says so
            await w1.heartbeat("running", 2, 0.1, clock.now())
            await wait_for(lambda: cell(model, "crawl-1", STATE) == "running")
            async with gathered(window.reclaim_worker("crawl-1")) as task:
                await with_dialog(QMessageBox, click(QMessageBox.StandardButton.Cancel))
                assert await task is None
            assert "it looks alive" in texts[-1]
        finally:
            await close_all(workers)

    def entries():
        return window.log_model.entries() + window.log_buffer.drain()

    run(aloop, scenario())


def test_pane_is_absent_for_a_leveldb_pool_and_comes_back_for_redis(
    window, aloop, pool_url, tmp_path, qsettings, clock
) -> None:
    async def scenario() -> None:
        assert window.workers_pane_shown
        assert await window.open_pool(tmp_path / "local")
        assert not window.workers_pane_shown and not window.workers_dock.isVisible()
        assert not window.workers_dock.toggleViewAction().isVisible()
        assert window.inflight_pane.view.isColumnHidden(InFlightModel.WORKER_COLUMN)
        assert window.workers_model.rowCount() == 0
        start = window.ticks
        await wait_for(lambda: window.ticks >= start + 3)  # refreshes run without workers()
        assert await window.open_pool(pool_url)
        assert window.workers_pane_shown and window.workers_dock.isVisible()
        assert window.workers_dock.toggleViewAction().isVisible()
        assert not window.inflight_pane.view.isColumnHidden(InFlightModel.WORKER_COLUMN)

    run(aloop, scenario())


def test_a_window_opened_on_leveldb_has_no_workers_pane_even_after_a_redis_run(
    aloop, qtbot, qsettings, tmp_path, gui_log, pool_url, clock
) -> None:
    # A window on a Redis pool saves its layout, Workers pane included ...
    first = MainWindow(
        run(aloop, RedisSession.open_redis(pool_url, CrawlSettings(), clock=clock)),
        qsettings=qsettings,
        refresh_ms=50,
    )
    first.show()
    assert first.workers_pane_shown
    first.close()
    run(aloop, first.wait_closed())
    delete_now(first)
    # ... and the next window, on a LevelDB pool, restores that layout without the pane.
    session = run(aloop, PoolSession.open(tmp_path / "pool", CrawlSettings()))
    w = MainWindow(session, qsettings=qsettings, refresh_ms=50)
    w.show()
    w.start_refresh()
    try:
        assert not w.workers_pane_shown and not w.workers_dock.isVisible()
        assert not w.workers_dock.toggleViewAction().isVisible()
        run(aloop, asyncio.sleep(0.2))
        assert w.workers_model.rowCount() == 0
    finally:
        w.close()
        run(aloop, w.wait_closed())
    delete_now(w)


def test_the_workers_pane_speaks_simplified_chinese(qapp) -> None:
    from PySide6.QtCore import QLocale

    from crawler_gui.gui import app as gui_app

    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        model = WorkersModel()
        model.set_workers([worker_row("w1", seen=T0 - SILENT_AFTER - 1)], now=T0)
        headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(7)]
        assert headers == ["工作进程", "机器", "状态", "最近心跳", "已抓取页面", "页/秒", "进行中"]
        assert cell(model, "w1", STATE) == "失联"
        inflight = InFlightModel()
        assert inflight.headerData(6, Qt.Orientation.Horizontal) == "工作进程"
        for text in ("Workers", "Reclaim leases"):
            assert QCoreApplication.translate("MainWindow", text) != text
    finally:
        for t in translators:
            qapp.removeTranslator(t)


def test_a_fresh_window_on_a_leveldb_pool_draws_no_stray_workers_dock(
    aloop, qtbot, qsettings, tmp_path, gui_log
) -> None:
    # The dock exists from the start; outside any dock area it must stay hidden, or Qt draws
    # it as a child widget in the window's top-left corner.
    session = run(aloop, PoolSession.open(tmp_path / "pool", CrawlSettings()))
    w = MainWindow(session, qsettings=qsettings, refresh_ms=50)
    w.show()
    try:
        assert not w.workers_pane_shown
        assert not w.workers_dock.isVisible()
    finally:
        w.close()
        run(aloop, w.wait_closed())
    delete_now(w)
