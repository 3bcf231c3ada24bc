"""Why things wait, and one host's detail and control, driven as a user would: a real crawl of
the demo site on loopback over a real LevelDB pool, in the real window (offscreen)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from urllib.parse import urlsplit

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QMenu, QMessageBox

from crawler_gui.core.frontier import HostRow, PendingRow, RetryRow
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui import fmt, why
from crawler_gui.gui.app import open_and_show
from crawler_gui.gui.models import HostsModel, InFlightModel, RetriesModel
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import T0, host, run, wait_for, with_dialog

pytestmark = [pytest.mark.gui]

#: Slow enough that hosts keep a queue (and a politeness wait to show) for a while.
SETTINGS = CrawlSettings(concurrency=4, min_delay=0.4, delay_factor=0.0)


@pytest.fixture(autouse=True)
def _logging(gui_log):
    yield


@contextlib.asynccontextmanager
async def demo_window(qsettings, tmp_path):
    w = await open_and_show(tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings)
    assert w is not None
    w.timer.setInterval(100)
    try:
        yield w
    finally:
        if not w.is_closed:
            w.close()
            await w.wait_closed()
        assert_no_active_timers(w)


def host_of(url: str) -> str:
    return urlsplit(url).hostname or ""


def action(menu: QMenu, text: str) -> QAction:
    return next(a for a in menu.actions() if a.text() == text)


def row_of(w, name: str) -> HostRow:
    i = w.hosts_model.find(name)
    assert i is not None
    return w.hosts_model.row(i)


def why_of(w, name: str) -> str:
    i = w.hosts_model.find(name)
    col = len(w.hosts_model.columns()) - 1
    return str(w.hosts_model.index(i, col).data())


class Browser(QObject):
    """Stands where the desktop's browser would: QDesktopServices hands it the URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


def test_why_columns_and_host_detail_against_a_real_crawl(aloop, qsettings, tmp_path):
    browser = Browser()
    QDesktopServices.setUrlHandler("http", browser, "open")

    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            pool = w.session.frontier
            # Why, in the Hosts pane: the politeness wait, in words, with its time
            await wait_for(
                lambda: any(
                    why_of(w, r.host).startswith("politeness: next request at")
                    and "the configured minimum" in why_of(w, r.host)
                    for r in w.hosts_model.rows()
                ),
                timeout=60,
            )
            # Why, in the Retries pane: an article that answered 500 waits for its backoff
            rm = w.retries_model
            await wait_for(lambda: rm.rowCount() > 0, timeout=60)
            cols = len(rm.columns())
            assert rm.index(0, RetriesModel.ERROR_COLUMN).data() == "HTTP 500"
            shown = re.fullmatch(
                r"retry at \S+ \(backoff (\d+) s after HTTP 500\)", rm.index(0, cols - 1).data()
            )
            assert shown and int(shown[1]) == round(rm.row(0).backoff)

            # right-click a host with a queue: Pause host
            await wait_for(lambda: any(r.waiting > 3 for r in w.hosts_model.rows()), timeout=30)
            name = max(w.hosts_model.rows(), key=lambda r: r.waiting).host
            pane = w.hosts_pane
            index = pane.view_index(w.hosts_model.index(w.hosts_model.find(name), 0))
            pane.view.customContextMenuRequested.emit(pane.view.visualRect(index).center())
            menu = pane.last_menu
            assert menu is not None and not menu.isEmpty()
            action(menu, "Pause host").trigger()
            menu.close()
            await wait_for(lambda: row_of(w, name).paused, timeout=10)
            assert why_of(w, name) == "host paused by you"
            await wait_for(lambda: row_of(w, name).in_flight == 0, timeout=30)
            done = row_of(w, name).done
            waiting = row_of(w, name).waiting
            await asyncio.sleep(1.5)  # four politeness delays: nothing goes to it
            assert (row_of(w, name).done, row_of(w, name).waiting) == (done, waiting)

            # double-click: the host detail, its queue page by page
            pane.view.doubleClicked.emit(index)
            await wait_for(lambda: name in w.host_dialogs, timeout=10)
            dlg = w.host_dialogs[name]
            await wait_for(lambda: dlg.waiting_table.rowCount() == min(waiting, 50), timeout=10)
            assert dlg.why_label.text() == "Why: host paused by you"
            assert dlg.pause_button.text() == "Resume this host"
            first = dlg.waiting_table.item(0, 0).text()
            assert first.startswith("http://") and f"//{name}/" in first
            assert dlg.page_label.text().startswith("page 1 of ")
            if waiting > 50:
                dlg.next_button.click()
                await wait_for(lambda: dlg.page == 1, timeout=10)
                assert dlg.waiting_table.item(0, 0).text() != first
            # its robots.txt as fetched, and opened in the browser
            assert "User-agent" in dlg.robots_text.toPlainText()
            dlg.robots_button.click()
            assert browser.opened == [f"http://{name}/robots.txt"]
            # its results: its pages in the Pages pane
            assert dlg.pages_button.isVisible()
            dlg.pages_button.click()
            assert w.pages_pane.host_filter.text() == name
            assert "; last result " in dlg.counts_label.text()

            # its own delay, kept in the pool
            dlg.delay_spin.setValue(7.5)
            dlg.delay_button.click()
            await wait_for(lambda: row_of(w, name).user_delay == 7.5, timeout=10)
            assert "7.5 s" in dlg.status_label.text()

            # forget its waiting URLs: asked first; Cancel changes nothing
            dlg.forget_button.click()
            await with_dialog(
                QMessageBox, lambda box: box.button(QMessageBox.StandardButton.Cancel).click()
            )
            await asyncio.sleep(0.3)
            assert row_of(w, name).waiting == waiting
            dlg.forget_button.click()
            await with_dialog(
                QMessageBox, lambda box: box.button(QMessageBox.StandardButton.Yes).click()
            )
            await wait_for(lambda: row_of(w, name).waiting == 0, timeout=10)
            await wait_for(lambda: dlg.waiting_table.rowCount() == 0, timeout=10)
            assert dlg.status_label.text() == f"{waiting} waiting URLs forgotten."

            # resume from the detail; the host is dispatched again
            dlg.pause_button.click()
            await wait_for(lambda: not row_of(w, name).paused, timeout=10)
            assert dlg.pause_button.text() == "Pause this host"
            dlg.close()
            await wait_for(lambda: name not in w.host_dialogs, timeout=10)

            # a host with failures: retry them from its detail
            await wait_for(lambda: any(r.failed > 0 for r in w.hosts_model.rows()), timeout=60)
            failing = next(r.host for r in w.hosts_model.rows() if r.failed > 0)
            dlg = await w.show_host(failing)
            assert dlg is not None
            t = dlg.failed_table
            assert t.rowCount() > 0
            errors = {t.item(i, 1).text() for i in range(t.rowCount())}
            retryable = sum(1 for e in errors if not e.startswith("refused"))
            dlg.retry_button.click()
            await wait_for(lambda: dlg.status_label.text().endswith("failed URLs queued again."))
            n = int(dlg.status_label.text().split()[0])
            assert (n > 0) == (retryable > 0)
            assert await pool.failed_urls(failing) is not None
            dlg.close()
            return w

    try:
        delete_now(run(aloop, scenario(), timeout=240))
    finally:
        QDesktopServices.unsetUrlHandler("http")


def test_host_detail_shows_the_hosts_recent_results_from_the_page_store(aloop, qsettings, tmp_path):
    """The Results tab: the host's newest fetched pages (URL, status, kind, time), each URL
    once, newest first, from the page store (those the search index has, and the newest it has
    not reached yet); only that host's; a double-click opens the page's detail."""

    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            pane = w.pages_pane
            await wait_for(lambda: pane.store is not None and pane.indexer is not None, 30)
            store = pane.store

            def fetched_hosts() -> dict[str, int]:
                counts: dict[str, int] = {}
                for r in store.newest(500)[0]:
                    h = host_of(r.record.final_url)
                    counts[h] = counts.get(h, 0) + 1
                return counts

            await wait_for(lambda: max(fetched_hosts().values(), default=0) >= 3, timeout=60)
            name = max(fetched_hosts().items(), key=lambda kv: kv[1])[0]
            dlg = await w.show_host(name)
            assert dlg is not None
            t = dlg.results_table
            assert t.rowCount() >= 3
            tab = dlg.tabs.indexOf(t)
            assert dlg.tabs.tabText(tab) == f"Results ({t.rowCount()})"
            shown = [t.item(i, 0).text() for i in range(t.rowCount())]
            assert all(host_of(u) == name for u in shown)
            assert len(set(shown)) == len(shown)  # each URL once
            assert dlg._result_seqs == sorted(dlg._result_seqs, reverse=True)  # newest first
            first = store.record_at(dlg._result_seqs[0], with_body=False)
            assert first is not None and shown[0] == first.final_url
            assert t.item(0, 1).text() == str(first.status)
            assert t.item(0, 2).text() in {"article", "list", "other", "—"}
            assert t.item(0, 3).text() == fmt.clock(first.fetched_at)
            # the index catches up: the results are then the index's, and the same kind
            await wait_for(lambda: w.pages_pane.indexer.pending() == 0, timeout=60)
            await dlg.load_results()
            assert all(host_of(t.item(i, 0).text()) == name for i in range(t.rowCount()))
            # a double-click opens the page's detail
            dlg.tabs.setCurrentIndex(tab)
            w.page_dialog = None
            t.doubleClicked.emit(t.model().index(0, 0))
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            assert w.page_dialog.page.seq == dlg._result_seqs[0]
            w.page_dialog.close()
            dlg.close()
            return w

    delete_now(run(aloop, scenario(), timeout=180))


def test_why_texts_for_every_wait() -> None:
    now = T0
    base = host("a.example.com", waiting=3)
    assert why.host(base._replace(paused=True, backoff_until=now + 9), now) == "host paused by you"
    assert why.host(base._replace(waiting=0), now) == ""
    text = why.host(
        base._replace(backoff_until=now + 60, backoff_status="503", retry_after=True), now
    )
    assert text.startswith("backing off until ") and text.endswith(" after 503 (Retry-After)")
    assert why.host(base._replace(in_flight=1), now) == "per-host cap reached: 1 in flight"
    assert why.host(base._replace(in_flight=1), now, max_in_flight=2).startswith("ready")
    wait = base._replace(next_allowed=now + 2, delay=2.0, last_elapsed=1.0, delay_basis="f")
    assert why.host(wait, now).endswith("(delay 2.0 s = 2 × last response time 1.0 s)")
    crawl = base._replace(next_allowed=now + 10, delay=10.0, delay_basis="c", crawl_delay=10.0)
    assert why.host(crawl, now).startswith("robots.txt Crawl-delay 10 s: next request at ")
    mine = base._replace(next_allowed=now + 5, delay=5.0, delay_basis="u", user_delay=5.0)
    assert why.host(mine, now).endswith("(delay 5.0 s, set by you for this host)")
    lease = PendingRow("http://a.example.com/1", "a.example.com", 0, False, now - 40, now + 260)
    assert (
        why.lease(lease._replace(worker="crawl-2"), now) == "lease held by worker crawl-2 for 40 s"
    )
    assert why.lease(lease, now) == "being fetched by this crawl for 40 s"
    r = RetryRow("http://a.example.com/1", "a.example.com", 0, 1, "x", now + 60)
    robots = r._replace(kind="robots_unreachable")
    assert why.retry(robots, now).startswith("robots.txt unreachable, retry at ")
    timeout = r._replace(kind="timeout", backoff=60.0)
    assert why.retry(timeout, now).endswith("(backoff 1 min after timed out)")
    assert why.retry(r._replace(status=429), now).endswith(
        "after 429 (no Retry-After: the default wait)"
    )
    assert why.error("", None, "an old record's message") == "an old record's message"


def test_why_columns_pass_the_model_tester(qtmodeltester) -> None:
    for model, rows in (
        (HostsModel(), [host(f"h{i}.example.com", i, paused=i % 2 == 0) for i in range(6)]),
        (
            InFlightModel(),
            [
                PendingRow(f"http://h{i}.example.com/", f"h{i}.example.com", 0, False, T0, T0 + 9)
                for i in range(3)
            ],
        ),
        (
            RetriesModel(),
            [
                RetryRow(f"http://h{i}.example.com/", f"h{i}.example.com", 0, 1, "x", T0 + i)
                for i in range(3)
            ],
        ),
    ):
        model.update(rows, now=T0)
        qtmodeltester.check(model)
        last = model.columnCount() - 1
        assert model.headerData(last, Qt.Orientation.Horizontal) == "Why"


def test_a_hosts_why_is_repainted_when_its_wait_ends_without_repainting_every_row() -> None:
    model = HostsModel()
    rows = [host(f"h{i}.example.com", 2) for i in range(100)]
    rows[40] = rows[40]._replace(next_allowed=T0 + 5, delay=5.0, delay_basis="m")
    model.update(rows, now=T0)
    changed: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, _roles: changed.append((a.row(), a.column(), b.row(), b.column()))
    )
    why_col = model.columnCount() - 1
    assert model.index(40, why_col).data().startswith("politeness: next request at ")
    model.update([], now=T0 + 1, complete=False)
    assert changed == []  # nothing changed, nothing ended: no repaint
    model.update([], now=T0 + 6, complete=False)
    assert changed == [(40, why_col, 40, why_col)]
    assert model.index(40, why_col).data() == "ready: next free fetch slot"


def test_why_and_retry_errors_read_in_chinese(qapp) -> None:
    from PySide6.QtCore import QLocale

    from crawler_gui.core.policy import ErrorKind
    from crawler_gui.gui import app as gui_app

    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        now = T0
        base = host("a.example.com", waiting=3)
        assert why.host(base._replace(paused=True), now) == "主机已被你暂停"
        wait = base._replace(next_allowed=now + 2, delay=2.0, last_elapsed=1.0, delay_basis="f")
        assert why.host(wait, now).startswith("礼貌策略：下次请求于 ")
        # every error kind a retry or a failure can show is worded, none left in English
        for kind in ErrorKind:
            assert not why.error(kind.value, None, "x").isascii(), kind
        r = RetryRow("http://a.example.com/1", "a.example.com", 0, 1, "x", now + 60, "dns")
        assert why.retry(r._replace(backoff=60.0), now).startswith("于 ")
    finally:
        for t in translators:
            qapp.removeTranslator(t)
