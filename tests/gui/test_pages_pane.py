"""The Pages pane and the Page detail window, driven as a user would, over a real pool and a
real crawl of the demo site (and a real page store for pages stored before schema 4)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLineEdit,
    QMessageBox,
    QPushButton,
)

from crawler_gui.engine import indexer as indexer_mod
from crawler_gui.engine.indexer import INDEX_NICE
from crawler_gui.engine.search import WRITER_THREADS
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.engine.store import PageRecord, PageRow, PageStore
from crawler_gui.gui import pages as pages_mod
from crawler_gui.gui.app import open_and_show
from crawler_gui.gui.exporting import ExportDialog
from crawler_gui.gui.pagedetail import PageDetailDialog, load_page
from crawler_gui.gui.pages import PagesModel
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import run, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.slow]

SETTINGS = CrawlSettings(
    concurrency=8, min_delay=0.05, delay_factor=0.0, extract="on", extract_workers=1
)


@pytest.fixture(autouse=True)
def _logging(gui_log):
    yield


def _menu_action(menu, text):
    return next(a for a in menu.actions() if a.text() == text)


def test_pages_pane_lists_filters_searches_and_opens_the_detail(
    aloop, qsettings, tmp_path, qtmodeltester, monkeypatch
):
    monkeypatch.setattr(pages_mod, "PAGE_ROWS", 10)
    monkeypatch.setattr(indexer_mod, "COMMIT_SECONDS", 1.0)  # (the pane's reads are tested)

    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings
        )
        assert w is not None
        w.timer.setInterval(100)
        try:
            dock = w.docks["pages"]
            dock.show()
            dock.raise_()
            pane = w.pages_pane
            model = pane.model
            hubs = {h.url for h in await w.session.crawler.hubs()}
            await wait_for(lambda: model.rowCount() >= 10, timeout=60)
            qtmodeltester.check(model)
            seqs = [model.row_at(r).seq for r in range(model.rowCount())]
            assert seqs == sorted(seqs, reverse=True)  # newest first
            # more pages stored than listed (on a slow machine the crawl may not be there yet)
            await wait_for(pane.more_button.isEnabled, timeout=30)
            await wait_for(lambda: model.top_seq() > seqs[0], timeout=30)  # live
            # page on: "Show more" adds older rows below; the list then stays put
            w.timer.stop()
            before = model.rowCount()
            QTest.mouseClick(pane.more_button, Qt.MouseButton.LeftButton)
            await wait_for(lambda: model.rowCount() > before, timeout=10)
            older = [model.row_at(r).seq for r in range(model.rowCount())]
            assert older == sorted(older, reverse=True)
            w.timer.start()

            # filter by kind: only articles
            idx = pane.kind_filter.findData("article")
            pane.kind_filter.setCurrentIndex(idx)
            await wait_for(
                lambda: (
                    model.rowCount() > 0
                    and all(model.row_at(r).kind == "article" for r in range(model.rowCount()))
                ),
                timeout=60,
            )
            qtmodeltester.check(model)
            # (not a hub: a hub is fetched again, and its new title may differ; a search
            # shows each URL at its newest fetch)
            await wait_for(
                lambda: any(
                    model.row_at(r).record.depth > 0 and model.row_at(r).record.url not in hubs
                    for r in range(model.rowCount())
                ),
                timeout=60,
            )
            art = next(
                model.row_at(r)
                for r in range(model.rowCount())
                if model.row_at(r).record.depth > 0 and model.row_at(r).record.url not in hubs
            )
            # search the title of an article (Chinese or English); the index catches up
            pane.kind_filter.setCurrentIndex(0)
            pane.search.setText(art.record.title)  # (keyClicks types ASCII only)
            QTest.keyClick(pane.search, Qt.Key.Key_Return)
            await wait_for(
                lambda: any(model.row_at(r).seq == art.seq for r in range(model.rowCount())),
                timeout=60,
            )
            # keyboard: Enter on the selected row opens its detail
            row = next(r for r in range(model.rowCount()) if model.row_at(r).seq == art.seq)
            pane.view.setFocus()
            pane.view.setCurrentIndex(model.index(row, 1))
            QTest.keyClick(pane.view, Qt.Key.Key_Return)
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            dlg = w.page_dialog
            assert dlg.page.seq == art.seq
            assert dlg.fields[dlg.tr("Final URL")].text() == art.record.final_url
            assert "Content-Type" in dlg.headers.toPlainText()
            assert "User-Agent: " in dlg.headers.toPlainText()
            assert dlg.links.rowCount() > 0
            assert art.record.title in dlg.article.toPlainText()
            assert "<html" in dlg.body.toPlainText().lower()
            assert dlg.page.referrers  # an article is linked from a section or a home page
            assert dlg.open_button.isEnabled()
            QTest.mouseClick(dlg.copy_button, Qt.MouseButton.LeftButton)
            assert QGuiApplication.clipboard().text() == art.record.final_url
            dlg.close()

            # the context menu: Copy URL, and Details… like a double-click
            pane.search.clear()
            pane.host_filter.setText("nowhere.invalid")  # matches nothing: an empty list
            await wait_for(lambda: model.rowCount() == 0, timeout=30)
            pane.host_filter.clear()
            await wait_for(lambda: model.rowCount() > 0, timeout=30)
            first = model.row_at(0)
            pos = pane.view.visualRect(model.index(0, 1)).center()
            pane.view.customContextMenuRequested.emit(pos)
            menu = pane.last_menu
            _menu_action(menu, "Copy URL").trigger()
            assert QGuiApplication.clipboard().text() == first.record.final_url
            w.page_dialog = None
            _menu_action(menu, "Details…").trigger()
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            assert w.page_dialog.page.seq == first.seq
            w.page_dialog.close()
            menu.close()
            w.page_dialog = None
            pane.view.doubleClicked.emit(model.index(0, 0))
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            w.page_dialog.close()

            # rebuild on demand, with progress: beside the running crawl a polite one (one
            # indexing thread, at a low priority), said in the button's tooltip
            rebuilds: list[tuple[bool, int, int]] = []
            real_rebuild = pane.indexer.rebuild

            def rebuild(*args, polite=False):
                tid = threading.get_native_id()
                nice = os.getpriority(os.PRIO_PROCESS, tid) if hasattr(os, "getpriority") else 0
                done = real_rebuild(*args, polite=polite)
                rebuilds.append((polite, nice, pane.indexer.index.writer_threads))
                return done

            pane.indexer.rebuild = rebuild
            assert w.state() == CrawlState.RUNNING
            await wait_for(lambda: pane.crawling)
            assert "beside the crawl" in pane.rebuild_button.toolTip()
            done = await pane.rebuild_index()
            assert done is not None and done > 0
            assert pane.last_rebuild == (done, False)
            polite, nice, threads = rebuilds[-1]
            assert polite and threads == WRITER_THREADS
            if hasattr(os, "getpriority"):
                assert nice >= INDEX_NICE
            # the crawl stopped: a rebuild takes what it can again
            w.act_stop.trigger()
            await wait_for(lambda: not pane.crawling, timeout=60)
            assert "beside the crawl" not in pane.rebuild_button.toolTip()
            done = await pane.rebuild_index()
            assert done is not None and done > 0 and rebuilds[-1][0] is False
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    delete_now(run(aloop, scenario(), timeout=180))


def test_a_page_stored_before_schema_4_shows_not_recorded(qapp, tmp_path: Path) -> None:
    """A store of schema 3 (no ``fx/`` records) opened by this program: its pages show
    "not recorded" where the fetch detail would be."""
    import plyvel

    url = "http://127.0.0.1:8631/old.html"
    with PageStore.open(tmp_path / "pages") as store:
        seq = store.add(
            PageRecord(
                url=url,
                final_url=url,
                status=200,
                fetched_at=1_700_000_000.0,
                content_type="text/html; charset=utf-8",
                encoding="utf-8",
                title="旧页面",
                depth=0,
                size=40,
                elapsed=0.2,
                referrer=None,
                redirect_chain=(),
                body=b"<html><script>alert(1)</script>old</html>",
            )
        )
    db = plyvel.DB(str(tmp_path / "pages"))
    db.put(b"meta/schema_version", b"3")
    db.close()
    with PageStore.open(tmp_path / "pages") as store:
        view = load_page(store, seq)
    assert view is not None and view.detail is None
    dlg = PageDetailDialog(view)
    try:
        assert "not recorded" in dlg.headers.toPlainText()
        assert "not recorded" in dlg.links_note.text()
        assert "not recorded" in dlg.fields[dlg.tr("Encoding")].text()
        assert dlg.links.rowCount() == 0
        assert dlg.body.toPlainText() == "<html><script>alert(1)</script>old</html>"  # as text
    finally:
        delete_now(dlg)


def test_an_unchanged_hub_refresh_shows_the_body_it_found(qapp, tmp_path: Path) -> None:
    """A hub refreshed with the same body stores no body again; its detail shows the body it
    found (the last one stored before it), not "not stored"."""
    hub = "http://127.0.0.1:8631/news/"
    with PageStore.open(tmp_path / "pages") as store:
        seqs = []
        for i in range(2):
            record = PageRecord(
                hub, hub, 200, 1_700_000_000.0 + i, "text/html", "utf-8", "新闻", 0, 30, 0.1,
                None, (), body=b"<html><ul><li>a</li></ul></html>",
            )  # fmt: skip
            seqs.append(store.add_hub_fetch(record, {}))
        store.flush_sync()
        assert store.record_at(seqs[1]).body is None
        view = load_page(store, seqs[1])
    assert view is not None
    dlg = PageDetailDialog(view)
    try:
        assert dlg.body.toPlainText() == "<html><ul><li>a</li></ul></html>"
    finally:
        delete_now(dlg)


def test_a_failed_read_is_said_in_the_pane_not_raised_into_the_window(aloop, tmp_path):
    """The window's refresh awaits the pane's: a read that fails (here the store closed under
    the pane) is shown in the pane, the refresh goes on."""
    from crawler_gui.gui.pages import PagesPane

    store = PageStore.open(tmp_path / "pages")
    u = "http://127.0.0.1:8631/p"
    store.add(PageRecord(u, u, 200, 1.0, "text/html", "utf-8", "t", 0, 1, 0.1, None, ()))
    store.flush_sync()
    pane = PagesPane()

    async def scenario():
        # (no search index: nothing else reads the store when it closes; a store closed
        # under a read in a worker thread crashes, the window closes the pane's source first)
        await pane.set_source(store, None)
        try:
            assert pane.indexer is None
            await pane.refresh(force=True)
            assert pane.model.rowCount() == 1, pane.info.text()
            store.close()
            await pane.refresh(force=True)  # (raised out of the window's refresh before)
            assert pane.info.text().startswith("Cannot read the pages")
        finally:
            await pane.close_source()

    try:
        run(aloop, scenario(), timeout=30)
    finally:
        delete_now(pane)


def test_closing_the_source_waits_for_a_read_in_a_worker_thread(aloop, tmp_path, monkeypatch):
    """The window closes the page store once the pane's source is closed: a read still
    running in a worker thread then would crash on the closed LevelDB, so closing waits."""
    import threading

    from crawler_gui.gui.pages import PagesPane

    store = PageStore.open(tmp_path / "pages")
    u = "http://127.0.0.1:8631/p"
    store.add(PageRecord(u, u, 200, 1.0, "text/html", "utf-8", "t", 0, 1, 0.1, None, ()))
    store.flush_sync()
    release, read = threading.Event(), []
    real = pages_mod.load_rows

    def slow_load_rows(*args, **kwargs):  # a read that takes its time (a slow disk)
        release.wait(10)
        rows = real(*args, **kwargs)
        read.append(store.closed)
        return rows

    monkeypatch.setattr(pages_mod, "load_rows", slow_load_rows)
    pane = PagesPane()

    async def scenario():
        await pane.set_source(store, None)
        loading = asyncio.ensure_future(pane.refresh(force=True))
        await wait_for(lambda: pane._loading)
        closing = asyncio.ensure_future(pane.close_source())
        for _ in range(5):
            await asyncio.sleep(0.02)
        assert not closing.done()  # the read is still on
        release.set()
        await closing
        store.close()
        await loading
        assert read == [False]  # the read ended before the store closed

    try:
        run(aloop, scenario(), timeout=30)
    finally:
        release.set()
        if not store.closed:
            store.close()
        delete_now(pane)


def test_pages_model_passes_the_model_tester(qtmodeltester, tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        for i in range(5):
            u = f"http://127.0.0.1:8631/p{i}"
            store.add(
                dataclasses.replace(
                    PageRecord(
                        u, u, 200, 1.0 + i, "text/html", "utf-8", f"t{i}", i, 1, 0.1, None, ()
                    ),
                )
            )
        store.flush_sync()
        rows, _ = store.newest(10)
    model = PagesModel()
    model.set_rows(rows[1:4])  # 4, 3, 2
    qtmodeltester.check(model)
    extracted = dataclasses.replace(rows[2], kind="article")  # 3, extracted since
    changed: list[int] = []
    model.dataChanged.connect(lambda a, b: changed.extend((a.row(), b.row())))
    model.merge_rows([rows[0], rows[1], extracted])  # 5 is new on top; 2 drops out
    assert [model.row_at(r).seq for r in range(model.rowCount())] == [5, 4, 3]
    assert model.row_at(2).kind == "article" and changed == [2, 2]
    assert model.index(2, 3).data() == "article"
    model.merge_rows([rows[4]])  # nothing in common: a reset
    assert [model.row_at(r).seq for r in range(model.rowCount())] == [1]
    model.append_rows(rows[:1])
    qtmodeltester.check(model)
    assert [model.row_at(r).seq for r in range(model.rowCount())] == [1, 5]


def _rows(n: int):
    out = []
    for i in range(n, 0, -1):
        u = f"http://127.0.0.1:8631/p{i}"
        record = PageRecord(u, u, 200, 1.0 + i, "text/html", "utf-8", f"t{i}", 1, 1, 0.1, None, ())
        out.append(PageRow(i, record, "article"))
    return out


def test_a_live_merge_that_grows_at_the_bottom_keeps_every_row(qtmodeltester) -> None:
    """Filtered by kind, an older page whose extraction arrived since joins the list below the
    rows shown while new pages arrive on top: the merge inserts at both ends (it indexed past
    the end of its rows and failed the refresh)."""
    by_seq = {r.seq: r for r in _rows(8)}
    model = PagesModel()
    qtmodeltester.check(model)  # (the tester stays on the model and checks every change)
    model.set_rows([by_seq[s] for s in (5, 4, 3)])
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    model.merge_rows([by_seq[s] for s in (7, 6, 5, 4, 3, 1)])
    assert [model.row_at(r).seq for r in range(model.rowCount())] == [7, 6, 5, 4, 3, 1]
    assert inserted == [(0, 1), (5, 5)]
    # the same rows with nothing new on top, and one more at the bottom
    model.merge_rows([by_seq[s] for s in (7, 6, 5, 4, 3, 2, 1)])
    assert [model.row_at(r).seq for r in range(model.rowCount())] == [7, 6, 5, 4, 3, 2, 1]
    qtmodeltester.check(model)


def test_export_from_the_window_with_progress_and_cancel(aloop, qsettings, tmp_path):
    import csv
    import json

    from crawler_gui.engine.export import CSV_FIELDS
    from crawler_gui.gui.exporting import ExportDialog

    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings
        )
        assert w is not None
        try:
            await wait_for(lambda: w.session.store.count() >= 20, timeout=60)
            w.session.crawler.pause()
            assert w.act_export.isEnabled()
            # the dialog offers the command line's record types and both formats
            dlg = ExportDialog(w, pages=True)
            kinds = [dlg.records.itemData(i) for i in range(dlg.records.count())]
            assert kinds == ["pages", "articles", "outcomes"]
            dlg.format.setCurrentIndex(1)
            dlg.records.setCurrentIndex(2)
            assert dlg.choice() == ("outcomes", "csv")
            # WARC carries bodies: offered for pages, greyed out (and left) for URL outcomes
            warc = dlg.format.findData("warc")
            assert not dlg.format.model().item(warc).isEnabled()
            dlg.records.setCurrentIndex(0)
            assert dlg.format.model().item(warc).isEnabled()
            dlg.format.setCurrentIndex(warc)
            dlg.records.setCurrentIndex(2)
            assert dlg.choice() == ("outcomes", "jsonl")
            delete_now(dlg)

            from warcio.archiveiterator import ArchiveIterator

            warc_file = tmp_path / "pages.warc.gz"
            k = await w.export_records("pages", "warc", warc_file)
            with open(warc_file, "rb") as fh:
                types = [r.rec_type for r in ArchiveIterator(fh)]
            assert k is not None and k >= 20 and types.count("response") == k
            assert types[0] == "warcinfo"

            pages = tmp_path / "pages.csv"
            n = await w.export_records("pages", "csv", pages)
            assert n is not None and n >= 20
            rows = list(csv.DictReader(io.StringIO(pages.read_text(encoding="utf-8"), newline="")))
            assert len(rows) == n and tuple(rows[0]) == CSV_FIELDS["pages"]
            outcomes = tmp_path / "outcomes.jsonl"
            m = await w.export_records("outcomes", "jsonl", outcomes)
            lines = [json.loads(x) for x in outcomes.read_text(encoding="utf-8").splitlines()]
            assert m == len(lines) and all(x["kind"] == "outcome" for x in lines)
            # inside the pool: refused with a message, nothing written
            inside = w.session.location / "x.jsonl"
            task = asyncio.ensure_future(w.export_records("pages", "jsonl", inside))
            box = await wait_top(QMessageBox)
            box.close()
            assert await task is None and not inside.exists()
            # cancel: the old file stays as it was
            pages.write_text("old", encoding="utf-8")
            w.export_progress = None
            store = w.session.store
            store._write_lock.acquire()  # the export waits at its first read (a flush)
            try:
                task = asyncio.ensure_future(w.export_records("pages", "jsonl", pages))
                await wait_for(lambda: getattr(w, "export_progress", None) is not None)
                QTest.mouseClick(
                    w.export_progress.findChild(QPushButton), Qt.MouseButton.LeftButton
                )
            finally:
                store._write_lock.release()
            assert await task is None
            assert pages.read_text(encoding="utf-8") == "old"
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    delete_now(run(aloop, scenario(), timeout=180))


async def wait_top(cls):
    found = []

    def look():
        found[:] = [
            x for x in QApplication.topLevelWidgets() if isinstance(x, cls) and x.isVisible()
        ]
        return found

    await wait_for(look, timeout=10)
    return found[0]


def _hosts_shown(model) -> set[str]:
    return {urlsplit(model.row_at(r).record.final_url).hostname for r in range(model.rowCount())}


def test_a_search_narrowed_to_a_host_and_widened_again(
    aloop, qsettings, tmp_path, qtmodeltester, monkeypatch
):
    """Search, narrow the hits to a host whose pages are not among the newest hits, clear
    the host filter: the host's hits are found (the filter was applied to the newest hits
    only, so the list came back empty), then every host's hits come back."""
    monkeypatch.setattr(pages_mod, "PAGE_ROWS", 10)

    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings
        )
        assert w is not None
        try:
            dock = w.docks["pages"]
            dock.show()
            dock.raise_()
            pane = w.pages_pane
            model = pane.model
            store = w.session.store
            await wait_for(lambda: pane.indexer is not None, timeout=30)
            await wait_for(lambda: store.count() >= 150, timeout=60)
            w.session.crawler.pause()  # the hits stay put
            await wait_for(lambda: w.session.crawler.in_flight == 0, timeout=30)
            await wait_for(lambda: pane.indexer.pending() == 0, timeout=60)
            # every demo page's URL ends in .html: a term with hits on every host
            pane.search.setFocus()
            QTest.keyClicks(pane.search, "html")
            QTest.keyClick(pane.search, Qt.Key.Key_Return)
            await wait_for(lambda: model.rowCount() == 10, timeout=30)
            qtmodeltester.check(model)
            newest = _hosts_shown(model)
            stored = await asyncio.to_thread(
                lambda: {
                    urlsplit(r.final_url).hostname
                    for r in store.iter_records()
                    if r.final_url.endswith(".html")
                }
            )
            host = sorted(stored - newest)[0]  # 12 hosts, at most 10 among the newest hits
            # type the host: the search finds its pages, and only them
            pane.host_filter.setFocus()
            QTest.keyClicks(pane.host_filter, host)
            await wait_for(lambda: model.rowCount() > 0 and _hosts_shown(model) == {host}, 30)
            qtmodeltester.check(model)
            # clear the host filter as a user does: select all, delete
            QTest.keyClick(pane.host_filter, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            QTest.keyClick(pane.host_filter, Qt.Key.Key_Delete)
            assert pane.host_filter.text() == ""
            await wait_for(lambda: model.rowCount() == 10 and _hosts_shown(model) == newest, 30)
            assert pane.search.text() == "html"
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    delete_now(run(aloop, scenario(), timeout=180))


class _UrlCatcher(QObject):
    """Stands in for the browser: QDesktopServices hands it the http(s) URLs it opens."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def test_pages_pane_and_detail_by_mouse_and_keyboard(aloop, qsettings, tmp_path, monkeypatch):
    """A real double-click, a right-click menu worked with the keyboard, the status filter
    and the detail's tabs by keyboard, Escape, "Open in browser" (caught before any browser),
    Rebuild index clicked and cancelled (the index then catches up again by itself), and
    File → Export… from the menu bar, its dialog and the file dialog."""
    import json

    monkeypatch.setattr(pages_mod, "PAGE_ROWS", 20)
    monkeypatch.setattr(indexer_mod, "COMMIT_SECONDS", 1.0)  # (the pane's reads are tested)
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("http", catcher, "open")

    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings
        )
        assert w is not None
        try:
            dock = w.docks["pages"]
            dock.show()
            dock.raise_()
            pane = w.pages_pane
            model, view = pane.model, pane.view
            await wait_for(lambda: pane.indexer is not None and model.rowCount() >= 10, 60)
            w.session.crawler.pause()
            await wait_for(lambda: w.session.crawler.in_flight == 0, timeout=30)
            articles = w.session.crawler.articles
            await wait_for(lambda: articles.backlog == 0, timeout=60)  # the rows stay put

            # double-click a row: its detail opens
            first = model.row_at(0)
            # (a double-click is a click, then a double-click event: the view opens the
            # index the press was on)
            at = view.visualRect(model.index(0, 1)).center()
            no = Qt.KeyboardModifier.NoModifier
            QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, no, at)
            QTest.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, no, at)
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            dlg = w.page_dialog
            assert dlg.page.seq == first.seq
            # the tabs by keyboard, "Open in browser", Escape closes
            QTest.keyClick(dlg.tabs, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
            assert dlg.tabs.currentWidget() is dlg.headers
            QTest.mouseClick(dlg.open_button, Qt.MouseButton.LeftButton)
            assert catcher.urls == [QUrl(first.record.final_url).toString()]
            QTest.keyClick(dlg, Qt.Key.Key_Escape)
            await wait_for(lambda: not dlg.isVisible())

            # right-click the second row; the menu by keyboard: down, down (Open in browser)
            second = model.row_at(1)
            pos = view.visualRect(model.index(1, 1)).center()
            QApplication.sendEvent(
                view.viewport(),
                QContextMenuEvent(
                    QContextMenuEvent.Reason.Mouse, pos, view.viewport().mapToGlobal(pos)
                ),
            )
            menu = pane.last_menu
            await wait_for(menu.isVisible)
            QTest.keyClick(menu, Qt.Key.Key_Down)
            QTest.keyClick(menu, Qt.Key.Key_Down)
            assert menu.activeAction().text() == "Open in browser"
            QTest.keyClick(menu, Qt.Key.Key_Return)
            await wait_for(lambda: len(catcher.urls) == 2)
            assert catcher.urls[1] == QUrl(second.record.final_url).toString()

            # the status filter by keyboard: 2xx only
            pane.status_filter.setFocus()
            QTest.keyClick(pane.status_filter, Qt.Key.Key_Down)
            assert pane.status_filter.currentData() == 2
            await wait_for(
                lambda: (
                    model.rowCount() > 0
                    and all(
                        model.row_at(r).record.status // 100 == 2 for r in range(model.rowCount())
                    )
                )
            )
            # arrow keys and Enter on the list
            view.setFocus()
            QTest.keyClick(view, Qt.Key.Key_Home)
            QTest.keyClick(view, Qt.Key.Key_Down)
            w.page_dialog = None
            QTest.keyClick(view, Qt.Key.Key_Return)
            await wait_for(lambda: w.page_dialog is not None and w.page_dialog.isVisible())
            assert w.page_dialog.page.seq == model.row_at(view.currentIndex().row()).seq
            w.page_dialog.close()

            # Rebuild index, clicked and cancelled while it waits to start
            indexer = pane.indexer
            await asyncio.to_thread(indexer._lock.acquire)
            try:
                QTest.mouseClick(pane.rebuild_button, Qt.MouseButton.LeftButton)
                await wait_for(lambda: getattr(pane, "progress_dialog", None) is not None)
                await wait_for(pane.progress_dialog.isVisible)
                QTest.mouseClick(
                    pane.progress_dialog.findChild(QPushButton), Qt.MouseButton.LeftButton
                )
            finally:
                indexer._lock.release()
            await wait_for(lambda: not pane.rebuilding, timeout=30)
            assert pane.last_rebuild == (0, True)
            assert pane.rebuild_button.isEnabled()
            # the index catches up again by itself: a search finds the pages
            await wait_for(lambda: indexer.pending() == 0, timeout=60)
            pane.search.setFocus()
            QTest.keyClicks(pane.search, "html")
            QTest.keyClick(pane.search, Qt.Key.Key_Return)
            await wait_for(lambda: model.rowCount() > 0 and "html" in model.row_at(0).record.url)

            # File → Export… clicked in the menu bar; records and format by keyboard, a file
            bar = w.menuBar()
            file_menu = bar.actions()[0].menu()
            QTest.mouseClick(
                bar,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
                bar.actionGeometry(bar.actions()[0]).center(),
            )
            await wait_for(file_menu.isVisible)
            QTest.mouseClick(
                file_menu,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
                file_menu.actionGeometry(w.act_export).center(),
            )
            box = await wait_top(ExportDialog)
            box.records.setFocus()
            QTest.keyClick(box.records, Qt.Key.Key_Down)  # Articles
            QTest.keyClick(box, Qt.Key.Key_Return)
            files = await wait_top(QFileDialog)
            target = tmp_path / "articles.jsonl"
            name = files.findChild(QLineEdit, "fileNameEdit")  # Qt's own dialog offscreen
            name.setFocus()
            name.clear()
            QTest.keyClicks(name, str(target))
            QTest.keyClick(name, Qt.Key.Key_Return)
            await wait_for(target.exists, timeout=60)
            lines = [json.loads(x) for x in target.read_text(encoding="utf-8").splitlines()]
            from crawler_gui.engine.export import article_records

            store = w.session.store
            assert lines == await asyncio.to_thread(lambda: list(article_records(store)))
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    try:
        delete_now(run(aloop, scenario(), timeout=180))
    finally:
        QDesktopServices.unsetUrlHandler("http")
