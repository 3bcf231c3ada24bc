from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QMessageBox

from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.gui.dialogs.hubs import HubsDialog, HubsResult
from crawler_gui.gui.dialogs.running import show_message
from crawler_gui.gui.dialogs.seeds import AddSeedsDialog
from crawler_gui.gui.mainwindow import MainWindow
from tests.gui.conftest import assert_no_active_timers, shown_window
from tests.gui.gui_helpers import PoolSession, find_top, run, wait_for, with_dialog

pytestmark = pytest.mark.gui


@pytest.fixture
def window(aloop, qtbot, qsettings, tmp_path, gui_log):
    session = run(aloop, PoolSession.open(tmp_path / "pool", CrawlSettings()))

    async def opener(path: Path, settings: CrawlSettings):
        return await PoolSession.open(path, settings)

    yield from shown_window(aloop, session, qsettings, opener)
    assert session.closed


async def ticks(w: MainWindow, n: int = 2) -> None:
    start = w.ticks
    await wait_for(
        lambda: w.ticks >= start + n and (w._refresh_task is None or w._refresh_task.done())
    )


def test_add_seeds_through_the_dialog_changes_the_pool(window, aloop):
    async def scenario():
        def fill(d):
            d.editor.setPlainText(
                "http://a.example.com/\nhttp://b.example.com/x\ngopher://c.example.com/"
            )
            d.validate()
            assert [r for _, _, r in d.refused()] == ["scheme"]
            d.accept()

        window.act_add.trigger()
        await with_dialog(AddSeedsDialog, fill)
        await wait_for(lambda: window.hosts_model.rowCount() == 2)
        assert window.session.frontier.totals_sync().waiting == 2
        assert {r.host for r in window.hosts_model.rows()} == {"a.example.com", "b.example.com"}
        assert window.overview.value("waiting") == "2"

    run(aloop, scenario())


def test_hubs_dialog_sets_hubs_and_hub_percent(window, aloop, qsettings):
    async def scenario():
        def fill(d):
            d.load_preset()
            d.percent.setValue(25)
            d.accept()

        window.act_hubs.trigger()
        await with_dialog(HubsDialog, fill)
        await wait_for(lambda: window.hubs_model.rowCount() >= 15)
        assert window.session.crawler.settings.hub_percent == 25
        assert any(h.url == "http://news.sina.com.cn/" for h in window.session.frontier.hubs_sync())
        assert '"hub_percent": 25' in str(qsettings.value("crawl/settings"))

    run(aloop, scenario())


def test_pause_stops_new_fetches_and_resume_continues(window, aloop):
    crawler = window.session.crawler

    async def scenario():
        await crawler.add_seeds(
            [f"http://h{i}.example.com/p{j}" for i in range(5) for j in range(40)]
        )
        window.act_start.trigger()
        assert crawler.state == CrawlState.RUNNING
        await wait_for(lambda: len(crawler.fetched) >= 10)
        assert window.act_pause.text() == "&Pause"
        window.act_pause.trigger()
        assert crawler.state == CrawlState.PAUSED
        await ticks(window)
        assert window.act_pause.text() == "&Resume"
        await wait_for(lambda: not crawler.in_batch)  # a batch in flight finishes
        count = len(crawler.fetched)
        await asyncio.sleep(0.3)
        assert len(crawler.fetched) == count  # no new fetch while paused
        window.act_pause.trigger()
        assert crawler.state == CrawlState.RUNNING
        await wait_for(lambda: len(crawler.fetched) > count + 5)
        await ticks(window)
        assert int(window.overview.value("done").replace(",", "")) > 0
        window.act_stop.trigger()
        await wait_for(lambda: crawler.state == CrawlState.STOPPED)

    run(aloop, scenario())


def test_save_then_load_round_trips_the_pool(window, aloop, tmp_path):
    frontier = window.session.frontier
    snap_file = tmp_path / "pool.cgpool"

    async def scenario():
        await frontier.add_many([f"http://h{i}.example.com/" for i in range(30)])
        await frontier.set_hubs([HubSpec("http://news.example.com/", 600)])
        before = frontier.totals_sync()
        n = await window.save_snapshot(snap_file)
        assert n and snap_file.exists()
        await frontier.add_many([f"http://extra{i}.example.com/" for i in range(10)])
        assert frontier.totals_sync().waiting == before.waiting + 10
        assert await window.load_snapshot(snap_file) == n
        after = frontier.totals_sync()
        assert (after.waiting, after.hubs, after.hosts) == (
            before.waiting,
            before.hubs,
            before.hosts,
        )
        await ticks(window)
        assert window.hosts_model.rowCount() == before.hosts

    run(aloop, scenario())


def test_loading_a_corrupt_file_shows_an_error_and_changes_nothing(window, aloop, tmp_path):
    frontier = window.session.frontier
    bad = tmp_path / "bad.cgpool"
    bad.write_bytes(gzip.compress(b'{"not": "a snapshot"}\n') + b"garbage")

    async def scenario():
        await frontier.add_many([f"http://h{i}.example.com/" for i in range(5)])
        before = frontier.totals_sync()
        shown: list[str] = []

        def ok(box):
            shown.append(box.text() + "\n" + box.informativeText())
            box.accept()

        task = asyncio.ensure_future(window.load_snapshot(bad))
        await with_dialog(QMessageBox, ok)
        assert await task is None
        assert "pool is unchanged" in shown[0]
        assert frontier.totals_sync() == before

    run(aloop, scenario())


def test_load_asks_before_stopping_a_running_crawl(window, aloop, tmp_path, monkeypatch):
    crawler = window.session.crawler

    async def scenario():
        await crawler.add_seeds(["http://a.example.com/"])
        n = await window.save_snapshot(tmp_path / "s.cgpool")
        assert n
        window.start()
        task = asyncio.ensure_future(window.load_snapshot(tmp_path / "s.cgpool"))
        await with_dialog(
            QMessageBox, lambda b: b.button(QMessageBox.StandardButton.Cancel).click()
        )
        assert await task is None and crawler.state == CrawlState.RUNNING
        task = asyncio.ensure_future(window.load_snapshot(tmp_path / "s.cgpool"))
        await with_dialog(QMessageBox, lambda b: b.button(QMessageBox.StandardButton.Yes).click())
        assert await task == n and crawler.state == CrawlState.STOPPED

    run(aloop, scenario())


@pytest.mark.parametrize("answer", ["Yes", "No"])
def test_loading_a_snapshot_of_another_crawl_asks_to_add_its_scope(window, aloop, tmp_path, answer):
    crawler = window.session.crawler
    other = tmp_path / "other"
    snap_file = tmp_path / "other.cgpool"

    async def scenario():
        await crawler.add_seeds(["http://here.example.com/"])
        pool = await LevelDBPool.open_async(other)
        try:
            await pool.add_many(["http://news.example.org/a", "http://here.example.com/b"])
            await pool.save_snapshot(snap_file, scope=["example.org", "example.com"])
        finally:
            await pool.close()
        shown = []

        def reply(box):
            shown.append(box.text())
            box.button(getattr(QMessageBox.StandardButton, answer)).click()

        task = asyncio.ensure_future(window.load_snapshot(snap_file))
        await with_dialog(QMessageBox, reply)
        assert await task == 4  # two scope records, two URLs
        assert "example.org" in shown[0] and "example.com" not in shown[0]
        assert ("example.org" in crawler.scope.seed_domains) == (answer == "Yes")

    run(aloop, scenario())


def test_retry_and_hub_actions_reach_the_pool(window, aloop, monkeypatch):
    calls = []
    frontier = window.session.frontier

    async def fake(name, url):
        calls.append((name, url))
        return True

    monkeypatch.setattr(frontier, "retry_now", lambda u: fake("retry_now", u))
    monkeypatch.setattr(frontier, "give_up", lambda u: fake("give_up", u))
    monkeypatch.setattr(frontier, "refresh_hub", lambda u: fake("refresh_hub", u))

    async def scenario():
        await frontier.set_hubs([HubSpec("http://news.example.com/", 600)])
        await wait_for(lambda: window.hubs_model.rowCount() == 1)
        pane = window.hubs_pane
        pane.view.selectRow(0)
        menu = pane.build_menu(pane.shown.index(0, 0))
        labels = [a.text() for a in menu.actions()]
        assert labels[:2] == ["Open in browser", "Copy URL"] and "Refresh now" in labels
        [refresh] = [a for a in menu.actions() if a.text() == "Refresh now"]
        refresh.trigger()
        await window.retry_now("http://x.example.com/")
        await window.give_up("http://x.example.com/")
        await wait_for(lambda: len(calls) == 3)
        assert ("refresh_hub", "http://news.example.com/") in calls

    run(aloop, scenario())


def test_open_in_browser_only_for_http_urls(window):
    from crawler_gui.gui import fmt

    assert fmt.web_url("https://news.sina.com.cn/a?b=1") is not None
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "ftp://a.example.com/", "x"):
        assert fmt.web_url(bad) is None


def test_open_pool_switches_session(window, aloop, tmp_path):
    old = window.session

    async def scenario():
        assert await window.open_pool(tmp_path / "other")
        assert old.closed and window.session is not old
        await window.session.crawler.add_seeds(["http://z.example.com/"])
        await wait_for(lambda: window.hosts_model.rowCount() == 1)
        assert window.qsettings.value("pool/last") == str(tmp_path / "other")

    run(aloop, scenario())


def test_a_slow_open_shows_it_runs_without_a_cancel_button(window, aloop, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QProgressDialog, QPushButton

    opener = window._open_session

    async def slow(path, settings):  # a pool on a slow disk, a Redis server far away
        await asyncio.sleep(1.0)
        return await opener(path, settings)

    monkeypatch.setattr(window, "_open_session", slow)

    async def scenario():
        task = asyncio.ensure_future(window.open_pool(tmp_path / "slow"))
        seen = []

        def look(dlg):
            seen.append(dlg.labelText())
            seen.append([b for b in dlg.findChildren(QPushButton) if b.isVisible()])

        await with_dialog(QProgressDialog, look, timeout=10)
        assert await task
        assert seen == [f"Opening {tmp_path / 'slow'}…", []]
        await wait_for(lambda: find_top(QProgressDialog) is None)
        assert window.session.location == tmp_path / "slow"

    run(aloop, scenario())


def test_closing_mid_crawl_stops_everything_and_loses_nothing(window, aloop, tmp_path):
    session = window.session
    crawler = session.crawler
    urls = [f"http://h{i}.example.com/p{j}" for i in range(4) for j in range(30)]

    async def scenario():
        await crawler.add_seeds(urls)
        window.start()
        await wait_for(lambda: len(crawler.fetched) >= 10)
        window.close()  # asks for an orderly shutdown
        await window.wait_closed()

    run(aloop, scenario())
    assert window.is_closed and not window.isVisible()
    assert session.closed
    assert_no_active_timers(window)
    pool = LevelDBPool.open(tmp_path / "pool")
    try:
        t = pool.totals_sync()
        assert t.pending == 0
        assert t.done == len(crawler.fetched)
        assert t.done + t.waiting == len(urls)
    finally:
        run(aloop, pool.close())
    assert window.qsettings.value("window/geometry") is not None


def test_refreshes_never_overlap(window, aloop, monkeypatch):
    frontier = window.session.frontier
    real = frontier.snapshot
    active = 0
    peak = 0

    async def slow(*a, **kw):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.2)
        active -= 1
        return await real(*a, **kw)

    monkeypatch.setattr(frontier, "snapshot", slow)

    async def scenario():
        await asyncio.sleep(0.6)
        assert peak == 1 and window.skipped_ticks > 0

    run(aloop, scenario())


def test_error_dialog_helper_is_plain_text(aloop):
    async def scenario():
        task = asyncio.ensure_future(show_message(None, QMessageBox.Icon.Warning, "t", "<b>x</b>"))
        seen = []

        def check(box):
            seen.append(box.textFormat())
            box.accept()

        await with_dialog(QMessageBox, check)
        await task
        from PySide6.QtCore import Qt

        assert seen == [Qt.TextFormat.PlainText]

    run(aloop, scenario())


def test_hubs_result_type():
    assert HubsResult([], 10).hub_percent == 10


def test_a_big_refresh_yields_to_the_loop_between_panes(window, aloop):
    """With thousands of rows a refresh merges one big pane per loop turn (others' callbacks
    run in between); a small pool's refresh stays in one turn, every pane from one snapshot."""
    frontier = window.session.frontier
    order: list[str] = []
    real_update = window.inflight_model.update

    def update(*a, **kw):
        order.append("in-flight pane")
        real_update(*a, **kw)

    window.inflight_model.update = update  # type: ignore[method-assign]

    async def one_refresh() -> list[str]:
        order.clear()
        asyncio.get_running_loop().call_soon(order.append, "other callback")
        await window.refresh()
        await asyncio.sleep(0)  # (the snapshot of a LevelDB pool does not yield)
        return list(order)

    async def scenario():
        await ticks(window, 1)
        window.timer.stop()  # refreshes from here on are this test's own
        await frontier.add_many([f"http://h{i}.example.com/" for i in range(10)])
        assert await one_refresh() == ["in-flight pane", "other callback"]
        await frontier.add_many([f"http://big{i}.example.com/" for i in range(600)])
        assert await one_refresh() == ["other callback", "in-flight pane"]
        assert window.hosts_model.rowCount() == 610

    run(aloop, scenario())


def test_a_compact_overview_leaves_a_small_screen_to_the_panes(window, aloop, qsettings):
    """On a screen under 900 pixels high (the offscreen one is 800 x 600) the overview starts
    compact: totals and rates only; the View menu switches it, and the choice is kept."""

    async def scenario():
        room = window.screen().availableGeometry()
        assert room.height() < 900
        # a first start fits the screen (1200 x 800 was cut off at the bottom of a laptop's)
        assert window.width() <= room.width() and window.height() <= room.height()
        assert window.act_compact.isChecked() and window.overview.is_compact()
        window.resize(1366, 768)
        await asyncio.sleep(0.05)
        compact_height = window.overview.height()
        docks = window.docks["hosts"].height()
        assert compact_height < docks  # the panes get most of the room
        window.act_compact.trigger()
        await asyncio.sleep(0.05)
        assert not window.overview.is_compact()
        assert window.overview.height() > compact_height
        assert str(qsettings.value("view/compact_overview")).lower() == "false"
        print("overview", compact_height, "docks", docks, "full", window.overview.height())

    run(aloop, scenario())
    again = MainWindow(None, qsettings=qsettings)
    try:
        assert not again.act_compact.isChecked() and not again.overview.is_compact()
    finally:
        again.close()
        again.deleteLater()


def test_the_update_speed_is_chosen_in_the_view_menu_and_kept(aloop, qsettings):
    """A new user's window reads the pool every second; View -> Update speed makes it faster
    or slower (the refresh timer), and the next window starts with the choice. A value that
    is not one of the speeds offered falls back to the default."""
    from crawler_gui.gui.mainmenu import DEFAULT_REFRESH_MS, REFRESH_KEY

    first = MainWindow(None, qsettings=qsettings)
    assert first.timer.interval() == DEFAULT_REFRESH_MS == 1000
    assert first.act_speeds[1000].isChecked()
    speed_menu = first.menuBar().findChild(QMenu, "menu-update-speed")
    assert speed_menu is not None and speed_menu.actions() == list(first.act_speeds.values())
    first.act_speeds[3000].trigger()
    assert first.timer.interval() == 3000
    assert first.act_speeds[3000].isChecked() and not first.act_speeds[1000].isChecked()
    first.act_speeds[500].trigger()
    assert first.timer.interval() == 500
    again = MainWindow(None, qsettings=qsettings)
    assert again.timer.interval() == 500 and again.act_speeds[500].isChecked()
    qsettings.setValue(REFRESH_KEY, "7")
    odd = MainWindow(None, qsettings=qsettings)
    assert odd.timer.interval() == DEFAULT_REFRESH_MS
    for w in (first, again, odd):
        aloop.run_until_complete(w.shutdown())


def test_a_long_snapshot_save_shows_it_runs_and_can_be_cancelled(window, aloop, tmp_path):
    from PySide6.QtWidgets import QProgressDialog

    frontier = window.session.frontier
    frontier.add_many_sync(
        [f"http://h{i % 500}.example.com/a/{i}" for i in range(150_000)], always=True
    )
    target = tmp_path / "big.cgpool"

    async def scenario():
        task = asyncio.ensure_future(window.save_snapshot(target))
        shown = []

        def cancel(dlg):
            from PySide6.QtWidgets import QPushButton

            shown.append(dlg.labelText())
            [button] = dlg.findChildren(QPushButton)
            assert button.text() == "Cancel"
            button.click()  # as the user does

        await with_dialog(QProgressDialog, cancel, timeout=10)
        assert await task is None
        assert "big.cgpool" in shown[0]
        assert not target.exists()
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".big")] == []
        assert "cancelled" in window.statusBar().currentMessage()
        # not cancelled: the same save runs to its end and its dialog goes away
        n = await window.save_snapshot(target)
        assert n >= 150_000 and target.exists()
        await wait_for(lambda: find_top(QProgressDialog) is None)
        assert not window.session.closed

    run(aloop, scenario(), timeout=120)


def test_hubs_pane_shows_what_each_hub_learned_and_the_overview_its_freshness(window, aloop):
    """A hub refresh that reports its new links shows in the Hubs pane (kind, rate, new items,
    span and why, articles yielded); extracted articles show in the overview's freshness."""
    import time

    from crawler_gui.core.policy import FetchResult
    from crawler_gui.engine.extract.model import Article, Extraction
    from crawler_gui.engine.extract.service import Articles

    frontier = window.session.frontier
    busy, quiet = "http://busy.example.com/news/", "http://quiet.example.com/news/"
    columns = {
        window.hubs_model.headerData(i, Qt.Orientation.Horizontal): i
        for i in range(window.hubs_model.columnCount())
    }

    def cell(url: str, name: str) -> str:
        row = next(i for i, r in enumerate(window.hubs_model.rows()) if r.url == url)
        return window.hubs_model.index(row, columns[name]).data()

    async def scenario():
        await frontier.set_hubs([HubSpec(busy, 600), HubSpec(quiet, 600)])
        await wait_for(lambda: window.hubs_model.rowCount() == 2)
        assert cell(busy, "Kind") == "page" and cell(busy, "Articles") == "0"
        assert cell(busy, "Span") == "10 min"
        for first, counts in ((True, (20, 20)), (False, (18, 0))):
            if not first:  # the second refresh, at once: the first one only counted its list
                assert await frontier.refresh_hub(busy) and await frontier.refresh_hub(quiet)
            leases = await frontier.pop(2, 100)
            while len(leases) < 2:  # (the hosts' politeness delay after the first refresh)
                await asyncio.sleep(0.05)
                leases += await frontier.pop(2, 100)
            for lease, new in zip(sorted(leases, key=lambda x: x.url), counts, strict=True):
                await frontier.set_status(
                    lease.url, FetchResult(status=200, elapsed=0.1, hub_new=new, hub_listed=20)
                )
            if first:
                await wait_for(lambda: cell(busy, "Articles") == "20")
                assert cell(busy, "Why") == "learning: its own span until it is known"
                assert cell(busy, "New/h") == ""
        await wait_for(lambda: cell(busy, "Articles") == "38")
        assert cell(busy, "New") == "18 / 20"
        assert cell(quiet, "New") == "0 / 20"
        assert float(cell(busy, "New/h")) > float(cell(quiet, "New/h"))
        # The budget of two 10 min spans, for a reason shown. (Neither is slowed beyond its
        # own span yet: the second refresh covered a moment, and a hub slows down step by
        # step; the sharing over real intervals is the pool contract tests', on a fake clock.)
        rows = {r.url: r for r in window.hubs_model.rows()}
        assert rows[busy].planned <= 600 <= rows[quiet].planned
        assert cell(quiet, "Why") == "at the maximum span: it publishes little"

        assert window.overview.value("fresh_found") == "–"  # no extraction: nothing to say
        articles = Articles(None, None)  # type: ignore[arg-type]  # its pool is not used here
        now = float(int(time.time()))
        for i, age in enumerate((90.0, 30.0, 60.0)):
            published = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(now - age))
            article = Article(f"t{i}", published, None, [], "en", "text")
            articles._record(
                i, f"http://busy.example.com/{i}.html", Extraction("article", "test", article), now
            )
        window.session.crawler.articles = articles
        await wait_for(lambda: window.overview.value("fresh_found") == "3")
        assert window.overview.value("fresh_delay") == "1 min"

    run(aloop, scenario())
