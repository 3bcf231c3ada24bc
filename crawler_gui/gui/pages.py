"""The Pages pane: the fetched pages of the page store, newest first, filtered and searched.

Nothing is read on the GUI thread: the page store (LevelDB) and the search index (tantivy) are
read in worker threads (``asyncio.to_thread``) and the model gets plain rows. The pane shows the
newest :data:`PAGE_ROWS` pages matching its filters and pages on with "Show more"; it refreshes
only while visible, and only inserts the pages fetched since its last look. The session keeps
the search index up to date (``CrawlSession.indexer``); the pane searches it and can rebuild it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QDesktopServices, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressDialog,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.engine.indexer import SearchIndexer
from crawler_gui.engine.store import PageRow, PageStore
from crawler_gui.gui import fmt
from crawler_gui.gui.models import RecordTableModel
from crawler_gui.gui.widgets import style_table_view

__all__ = ["PAGE_ROWS", "PagesModel", "PagesPane", "load_rows", "search_rows"]

log = logging.getLogger(__name__)

_Index = QModelIndex | QPersistentModelIndex
#: Rows read per page of the pane.
PAGE_ROWS = 200
#: Records a live refresh reads at most (a filter that matches little: "Show more" goes on).
LIVE_SCAN = 5_000
#: The kinds a page can be filtered by ("" = not extracted).
KINDS = ("article", "list", "other", "")


class PagesModel(RecordTableModel):
    """Rows of the Pages pane (plain ``PageRow`` values, newest first)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[PageRow] = []
        self._headers = (
            self.tr("Time"),
            self.tr("URL"),
            self.tr("Status"),
            self.tr("Kind"),
            self.tr("Title"),
            self.tr("Size"),
            self.tr("Response time"),
            self.tr("Depth"),
        )

    def kind_text(self, kind: str) -> str:
        return {
            "article": self.tr("article"),
            "list": self.tr("list"),
            "other": self.tr("other"),
        }.get(kind, kind or "—")

    def cell(self, row: PageRow, c: int, role: int) -> Any:
        rec = row.record
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if c == 0:
                return fmt.clock(rec.fetched_at)
            if c == 1:
                return rec.final_url
            if c == 2:
                return str(rec.status)
            if c == 3:
                return self.kind_text(row.kind)
            if c == 4:
                return rec.title
            if c == 5:
                return fmt.data_size(rec.size)
            if c == 6:
                return fmt.seconds(rec.elapsed)
            return str(rec.depth)
        if role == Qt.ItemDataRole.TextAlignmentRole and c in (2, 5, 6, 7):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def set_rows(self, rows: list[PageRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def append_rows(self, rows: list[PageRow]) -> None:
        if not rows:
            return
        start = len(self._rows)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def merge_rows(self, rows: list[PageRow]) -> None:
        """Show ``rows`` (the newest, newest first) keeping what can be kept: new rows are
        inserted on top, and the oldest dropped or new ones added at the bottom (the selection
        and the scroll position stay), rows whose extraction arrived since are updated in
        place; anything else resets."""
        old = [r.seq for r in self._rows]
        new = [r.seq for r in rows]
        if not old or not new:
            self.set_rows(rows)
            return
        try:
            k = new.index(old[0])
        except ValueError:
            self.set_rows(rows)
            return
        n = min(len(old), len(new) - k)
        if new[k : k + n] != old[:n]:
            self.set_rows(rows)
            return
        if k:
            self.beginInsertRows(QModelIndex(), 0, k - 1)
            self._rows[:0] = rows[:k]
            self.endInsertRows()
        if len(self._rows) > len(rows):
            self.beginRemoveRows(QModelIndex(), len(rows), len(self._rows) - 1)
            del self._rows[len(rows) :]
            self.endRemoveRows()
        elif len(self._rows) < len(rows):
            # Rows below the ones shown now pass the filter (an older page's extraction came
            # in: it is an article now): they join at the bottom.
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, len(rows) - 1)
            self._rows.extend(rows[start:])
            self.endInsertRows()
        changed = [i for i in range(k, len(rows)) if self._rows[i] != rows[i]]
        if changed:
            for i in changed:
                self._rows[i] = rows[i]
            last = len(self._headers) - 1
            self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], last))

    def row_at(self, row: int) -> PageRow:
        return self._rows[row]

    def top_seq(self) -> int:
        return self._rows[0].seq if self._rows else 0

    def last_seq(self) -> int | None:
        return self._rows[-1].seq if self._rows else None


def _status_ok(status_class: int | None) -> Callable[[int], bool]:
    if status_class is None:
        return lambda _s: True
    return lambda s: s // 100 == status_class


def make_filter(
    status_class: int | None, kind: str | None, host: str
) -> Callable[[PageRow], bool] | None:
    """The row test of the pane's filters (None when nothing is filtered)."""
    if status_class is None and kind is None and not host:
        return None
    status_ok = _status_ok(status_class)
    host = host.strip().lower()

    def accept(row: PageRow) -> bool:
        if not status_ok(row.record.status):
            return False
        if kind is not None and row.kind != kind:
            return False
        if host:
            h = (urlsplit(row.record.final_url).hostname or "").lower()
            if h != host and not h.endswith("." + host):
                return False
        return True

    return accept


def load_rows(
    store: PageStore,
    limit: int,
    before: int | None,
    accept: Callable[[PageRow], bool] | None,
    after: int = 0,
    scan_limit: int = 50_000,
) -> tuple[list[PageRow], int | None, int]:
    """A page of the newest rows (worker thread); ``after``: only rows newer than that. Also
    returns the newest sequence number the read covered (filtered-out rows included)."""
    last = store.last_written_seq()
    if before is None or before > last + 1:
        before = last + 1
    rows, more = store.newest(
        limit, before=before, accept=accept, after=after, scan_limit=scan_limit
    )
    return rows, more, last


def search_rows(
    store: PageStore,
    indexer: SearchIndexer,
    query: str,
    limit: int,
    before: int | None,
    filters: tuple[int | None, str | None, str],
) -> tuple[list[PageRow], int | None]:
    """Search hits as rows, newest first (worker thread); where to go on from. The pane's
    ``filters`` (status class, kind, host) narrow the search itself: applied to the newest
    ``limit`` hits afterwards, they left nothing of a host whose hits are all older."""
    status_class, kind, host = filters
    hits = indexer.search(
        query,
        limit=limit,
        before=before,
        kinds=(kind,) if kind is not None else (),
        host=host,
        status_class=status_class,
    )
    rows: list[PageRow] = []
    for hit in hits:
        rec = store.record_at(hit.seq, with_body=False)
        if rec is not None:
            rows.append(PageRow(hit.seq, rec, hit.kind))
    more = hits[-1].seq if len(hits) >= limit else None
    return rows, more


def host_rows(
    store: PageStore, indexer: SearchIndexer | None, host: str, limit: int
) -> list[PageRow]:
    """The newest fetched pages of ``host`` and its subdomains, each URL once (worker thread).

    The page store has no order by host, so the search index answers (its host terms), after
    the pages it has not reached yet, read from the store; without an index, the newest
    :data:`LIVE_SCAN` pages of the store are looked through."""
    accept = make_filter(None, None, host)
    if indexer is None:
        rows, _more = store.newest(limit, accept=accept, scan_limit=LIVE_SCAN)
        return rows
    rows, _more = store.newest(limit, accept=accept, after=indexer.index.last_seq())
    urls = {r.record.final_url for r in rows}
    for hit in indexer.index.newest(host=host, limit=limit):
        if len(rows) >= limit:
            break
        if hit.url in urls:
            continue  # fetched again since it was indexed: shown at that fetch
        rec = store.record_at(hit.seq, with_body=False)
        if rec is not None:
            rows.append(PageRow(hit.seq, rec, hit.kind))
    return rows


class _PagesView(QTableView):
    """Enter opens the page's detail like a double-click."""

    activated_row = Signal(int)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.activated_row.emit(self.currentIndex().row())
            return
        super().keyPressEvent(event)


class PagesPane(QWidget):
    """Filters, a search box and the table of pages; "Show more" pages on."""

    #: The user asked for a page's detail (its sequence number).
    detail_requested = Signal(int)
    #: A read of the pages failed: the error, and whether the user asked for it ("Show more",
    #: a search, a filter, a rebuild) or the live refresh did (again at every refresh).
    read_failed = Signal(object, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pages")
        self.model = PagesModel(self)
        self.store: PageStore | None = None
        self.indexer: SearchIndexer | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._more: int | None = None  # where "Show more" goes on from
        self._paged = False  # the user paged on: no live inserts
        self._loading = False
        self._host_reads = 0  # host_results reads running
        self.rebuilding = False
        self.crawling = False  # a crawl runs (or is paused) on this pool: rebuild politely
        self._generation = 0
        self._reload = False

        self.search = QLineEdit(self)
        self.search.setObjectName("pages-search")
        self.search.setPlaceholderText(self.tr("Search URL, title and article text…"))
        self.search.setClearButtonEnabled(True)
        self.status_filter = QComboBox(self)
        self.status_filter.setObjectName("pages-status")
        self.status_filter.addItem(self.tr("All statuses"), None)
        for cls in (2, 3, 4, 5):
            self.status_filter.addItem(f"{cls}xx", cls)
        self.kind_filter = QComboBox(self)
        self.kind_filter.setObjectName("pages-kind")
        self.kind_filter.addItem(self.tr("All kinds"), None)
        for kind in KINDS:
            self.kind_filter.addItem(
                self.model.kind_text(kind) if kind else self.tr("not extracted"), kind
            )
        self.host_filter = QLineEdit(self)
        self.host_filter.setObjectName("pages-host")
        self.host_filter.setPlaceholderText(self.tr("Host…"))
        self.host_filter.setClearButtonEnabled(True)
        self.rebuild_button = QPushButton(self.tr("Rebuild index"), self)
        self.rebuild_button.setObjectName("pages-rebuild")
        self._rebuild_tip()
        self.rebuild_button.clicked.connect(self._rebuild_clicked)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.search, 3)
        top.addWidget(self.status_filter)
        top.addWidget(self.kind_filter)
        top.addWidget(self.host_filter, 1)
        top.addWidget(self.rebuild_button)

        self.view = _PagesView(self)
        self.view.setObjectName("pages-view")
        self.view.setModel(self.model)
        style_table_view(self.view, QAbstractItemView.SelectionMode.SingleSelection)
        header = self.view.horizontalHeader()
        header.resizeSection(1, 360)
        header.resizeSection(4, 300)
        header.setStretchLastSection(True)
        self.view.doubleClicked.connect(lambda index: self._ask_detail(index.row()))
        self.view.activated_row.connect(self._ask_detail)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)

        self.info = QLabel(self)
        self.info.setObjectName("pages-info")
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.more_button = QPushButton(self.tr("Show more"), self)
        self.more_button.setObjectName("pages-more")
        self.more_button.setEnabled(False)
        self.more_button.clicked.connect(self._more_clicked)
        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.info, 1)
        bottom.addWidget(self.more_button)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(top)
        lay.addWidget(self.view, 1)
        lay.addLayout(bottom)

        # Typing waits for a pause before it searches.
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(300)
        self._search_timer.timeout.connect(self._filters_changed)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self._filters_changed)
        self.host_filter.textChanged.connect(lambda _t: self._search_timer.start())
        self.status_filter.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.kind_filter.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self._set_enabled(False)

    # -- source ---------------------------------------------------------------------------
    def _set_enabled(self, on: bool) -> None:
        for w in (self.search, self.status_filter, self.kind_filter, self.host_filter):
            w.setEnabled(on)
        self.rebuild_button.setEnabled(on and not self.rebuilding)
        if not on:
            self.more_button.setEnabled(False)

    async def set_source(self, store: PageStore | None, indexer: SearchIndexer | None) -> None:
        """Show the pages of ``store`` and search them with ``indexer`` (the session's, which
        keeps it up to date and closes it; None: no search). ``store`` None: no pool, or a pool
        whose page store this window cannot read."""
        self._generation += 1
        generation = self._generation
        await self.close_source()
        if generation != self._generation:
            return  # a later call took over
        self.model.set_rows([])
        self._more, self._paged = None, False
        if store is None:
            self.info.setText(self.tr("No page store: pages are shown for a pool open here."))
            self._set_enabled(False)
            return
        self.store, self.indexer = store, indexer
        self._set_enabled(True)
        self.search.setEnabled(indexer is not None)
        self.rebuild_button.setEnabled(indexer is not None)

    async def close_source(self) -> None:
        """Let go of the store and the index, and let a read of them in a worker thread end:
        the session closes them after this (a LevelDB closed under a read crashes)."""
        self.store, self.indexer = None, None
        while self._loading or self._host_reads:  # a short read: the rows of one page
            await asyncio.sleep(0.01)
        self._set_enabled(False)

    # -- loading ----------------------------------------------------------------------------
    def _filters(self) -> tuple[int | None, str | None, str]:
        return (
            self.status_filter.currentData(),
            self.kind_filter.currentData(),
            self.host_filter.text().strip(),
        )

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        if not task.cancelled():
            exc = task.exception()
            if exc is not None:
                self._read_failed(exc, asked=True)

    def _read_failed(self, exc: BaseException, *, asked: bool) -> None:
        log.warning("the Pages pane could not read the pages: %s", exc)
        self.info.setText(self.tr("Cannot read the pages: %1").replace("%1", str(exc)))
        self.read_failed.emit(exc, asked)  # (the window says a damaged store in a dialog)

    def _filters_changed(self) -> None:
        self._paged = False
        self._spawn(self.refresh(force=True))

    def _more_clicked(self) -> None:
        self._paged = True  # no live inserts from now on (a search or filter change resets)
        self._spawn(self._show_more())

    async def _show_more(self) -> None:
        while self._loading:  # a refresh is reading: page on after it
            await asyncio.sleep(0.02)
        await self._load(more=True)

    async def refresh(self, *, force: bool = False) -> None:
        """Called on each window refresh while the pane is visible (and when a filter
        changes): new pages go on top; a search or a paged-on list stays as it is."""
        if self.store is None:
            return
        if self._loading:
            if force:
                self._reload = True  # the filters changed during a load: load again after
            return
        if not force and (self._paged or self.search.text().strip()):
            return
        try:
            await self._load(more=False)
        except Exception as exc:  # a failed read (the store closed under it, the disk)
            # Said in the pane: the window's refresh, which awaits this one, goes on.
            self._read_failed(exc, asked=force)

    async def _load(self, *, more: bool) -> None:
        store, indexer = self.store, self.indexer
        if store is None:
            return
        self._loading = True
        try:
            filters = self._filters()
            accept = make_filter(*filters)
            query = self.search.text().strip()
            before = self._more if more else None
            if query and indexer is not None:
                rows, nxt = await asyncio.to_thread(
                    search_rows, store, indexer, query, PAGE_ROWS, before, filters
                )
                if store is not self.store:
                    return
                if more:
                    self.model.append_rows(rows)
                else:
                    self.model.set_rows(rows)
                self._more = nxt
            elif more:
                rows, nxt, _last = await asyncio.to_thread(
                    load_rows, store, PAGE_ROWS, before, accept
                )
                if store is not self.store:
                    return
                self.model.append_rows(rows)
                self._more = nxt
            else:
                # Live: the newest rows again (an extraction may have changed a row's kind
                # since), merged into what is shown.
                rows, nxt, _last = await asyncio.to_thread(
                    load_rows, store, PAGE_ROWS, None, accept, 0, LIVE_SCAN
                )
                if store is not self.store:
                    return
                # (after a filter change too: a reload that finds the rows shown keeps the
                # selection; other rows replace them)
                self.model.merge_rows(rows)
                self._more = nxt
            self.more_button.setEnabled(self._more is not None)
            await self._show_info()
        finally:
            self._loading = False
            if self._reload:
                self._reload = False
                self._spawn(self.refresh(force=True))

    async def _show_info(self) -> None:
        indexer = self.indexer
        shown = fmt.count(self.model.rowCount())
        if indexer is None:
            self.info.setText(self.tr("%1 pages shown").replace("%1", shown))
            return
        behind = await asyncio.to_thread(indexer.pending)
        text = self.tr("%1 pages shown").replace("%1", shown)
        if behind:
            text += " · " + self.tr("search index: %1 pages to go").replace("%1", fmt.count(behind))
        self.info.setText(text)

    async def host_results(self, host: str, limit: int = 100) -> list[PageRow]:
        """The newest fetched pages of ``host`` (for its Host detail); none without a store."""
        store, indexer = self.store, self.indexer
        if store is None:
            return []
        self._host_reads += 1  # (the store closes only after this read)
        try:
            return await asyncio.to_thread(host_rows, store, indexer, host, limit)
        finally:
            self._host_reads -= 1

    # -- rows -------------------------------------------------------------------------------
    def _ask_detail(self, row: int) -> None:
        if 0 <= row < self.model.rowCount():
            self.detail_requested.emit(self.model.row_at(row).seq)

    def _context_menu(self, pos: Any) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        row = self.model.row_at(index.row())
        menu = QMenu(self)
        menu.setObjectName("pages-menu")
        menu.addAction(self.tr("Details…"), lambda: self.detail_requested.emit(row.seq))
        target = fmt.web_url(row.record.final_url)
        act = menu.addAction(
            self.tr("Open in browser"),
            lambda: QDesktopServices.openUrl(target) if target is not None else None,
        )
        act.setEnabled(target is not None)
        menu.addAction(
            self.tr("Copy URL"),
            lambda: QGuiApplication.clipboard().setText(row.record.final_url),
        )
        self.last_menu = menu
        menu.popup(self.view.viewport().mapToGlobal(pos))

    # -- rebuilding -------------------------------------------------------------------------
    def set_crawling(self, on: bool) -> None:
        """Whether a crawl runs on this pool (paused included: it may resume at any time): a
        rebuild started then is polite (one indexing thread at a low CPU priority, resting
        between chunks), so the crawl and the window keep their pace."""
        if on != self.crawling:
            self.crawling = on
            self._rebuild_tip()

    def _rebuild_tip(self) -> None:
        if self.crawling:
            tip = self.tr(
                "Index every stored page again, beside the crawl: one indexing thread at a low "
                "priority, so the crawl keeps its pace (slower than without a crawl)"
            )
        else:
            tip = self.tr(
                "Index every stored page again (the search index is kept up to date by itself)"
            )
        self.rebuild_button.setToolTip(tip)

    def _rebuild_clicked(self) -> None:
        self._spawn(self.rebuild_index())

    async def rebuild_index(self) -> int | None:
        """Index every stored page again, with a progress dialog that can cancel it."""
        indexer = self.indexer
        if indexer is None or self.rebuilding:
            return None
        self.rebuilding = True
        self.rebuild_button.setEnabled(False)
        dlg = QProgressDialog(
            self.tr("Rebuilding the search index…"), self.tr("Cancel"), 0, 0, self
        )
        dlg.setObjectName("rebuild-progress")
        dlg.setWindowTitle(self.tr("Search index"))
        dlg.setMinimumDuration(0)
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        self.progress_dialog = dlg
        cancelled = False
        loop = asyncio.get_running_loop()

        def progress(done: int, total: int) -> None:  # worker thread: hand it to the loop
            loop.call_soon_threadsafe(self._rebuild_progress, dlg, done, total)

        def is_cancelled() -> bool:
            return cancelled

        def cancel() -> None:
            nonlocal cancelled
            cancelled = True

        dlg.canceled.connect(cancel)
        dlg.show()
        try:
            done = await indexer.rebuild_in_thread(progress, is_cancelled, polite=self.crawling)
            stopped = cancelled
        finally:
            dlg.canceled.disconnect(cancel)  # closing the dialog below emits it
            self.rebuilding = False
            self.rebuild_button.setEnabled(self.indexer is not None)
            dlg.close()
            dlg.deleteLater()
        self.last_rebuild = (done, stopped)
        await self._show_info()
        return done

    @staticmethod
    def _rebuild_progress(dlg: QProgressDialog, done: int, total: int) -> None:
        try:
            dlg.setMaximum(max(total, 1))
            dlg.setValue(done)
        except RuntimeError:  # the dialog is gone
            pass
