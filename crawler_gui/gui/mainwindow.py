"""The main window: wires widgets to the crawler's run-control API and shows snapshots.

It holds no crawl logic. One QTimer drives every refresh: ``frontier.snapshot(since=...)`` and
``crawler.stats()``, then each model merges its rows (batched, ranged signals).

This module holds the window's layout, the panes' wiring, the session and the refresh tick; its
other parts are mixins in their own modules (``windowbase`` lists them): the actions and menus,
what the Crawl and File menus do, the detail windows.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from crawler_gui.core.frontier import PoolSnapshot
from crawler_gui.engine.faults import damaged_storage
from crawler_gui.engine.settings import CrawlMode, CrawlState
from crawler_gui.engine.turns import after_due_timers
from crawler_gui.errors import CrawlerGuiError
from crawler_gui.gui import fmt, prefs
from crawler_gui.gui.detailwindows import DetailWindows
from crawler_gui.gui.dialogs.article import ArticleDialog
from crawler_gui.gui.dialogs.running import show_message
from crawler_gui.gui.hostdetail import HostDetailDialog
from crawler_gui.gui.mainmenu import (
    COMPACT_KEY,
    DEFAULT_REFRESH_MS,
    REFRESH_KEY,
    REFRESH_SPEEDS,
    MainMenu,
)
from crawler_gui.gui.models import (
    ArticlesModel,
    HostsModel,
    HubsModel,
    InFlightModel,
    LogBuffer,
    LogModel,
    RetriesModel,
    WorkersModel,
)
from crawler_gui.gui.notify import FailingHosts, Notifier
from crawler_gui.gui.pagedetail import PageDetailDialog
from crawler_gui.gui.pages import PagesPane
from crawler_gui.gui.protocols import SessionLike, SessionOpener, is_attached, is_local, is_shared
from crawler_gui.gui.tasks import Tasks
from crawler_gui.gui.widgets import OverviewWidget, TablePane

log = logging.getLogger(__name__)

#: Seconds between two reads of the workers' heartbeats (the Workers pane of a shared pool);
#: their leases are counted from every tick's snapshot.
WORKERS_SECONDS = 2.0
#: A refresh yields to the loop after a pane merged at least this many rows (``_pane_done``).
YIELD_AFTER_ROWS = 500


class MainWindow(MainMenu, DetailWindows, QMainWindow):
    #: Emitted once the window has shut down (session closed, timer stopped).
    closed = Signal()

    def __init__(
        self,
        session: SessionLike | None,
        *,
        qsettings: QSettings | None = None,
        open_session: SessionOpener | None = None,
        refresh_ms: int | None = None,
        log_buffer: LogBuffer | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("main-window")
        self.setWindowTitle(self.tr("Crawler GUI"))
        self.qsettings = qsettings if qsettings is not None else QSettings()
        self._open_session = open_session
        self.session: SessionLike | None = None
        self.settings = (
            session.settings if session is not None else prefs.load_settings(self.qsettings)
        )
        self.tasks = Tasks(on_error=self._task_failed)
        #: Tray messages (or the status bar): crawl finished or stopped, a host failing.
        self.notifier = Notifier(self)
        self.failing_hosts = FailingHosts()
        self._version: int | None = None
        self._refresh_task: asyncio.Task[None] | None = None
        self._shutdown_task: asyncio.Task[None] | None = None
        self._closed = False
        self.skipped_ticks = 0
        self.ticks = 0
        self.last_snapshot: PoolSnapshot | None = None
        self.last_stats: Any = None

        # models and panes
        self.hosts_model = HostsModel(self)
        self.inflight_model = InFlightModel(self)
        self.retries_model = RetriesModel(self)
        self.hubs_model = HubsModel(self)
        self.workers_model = WorkersModel(self)
        self.log_model = LogModel(self)
        self.articles_model = ArticlesModel(self)
        self.log_buffer = log_buffer or LogBuffer()
        self._own_log_handler = log_buffer is None
        if self._own_log_handler:
            logging.getLogger("crawler_gui").addHandler(self.log_buffer)

        self.overview = OverviewWidget(self)
        self.setCentralWidget(self.overview)
        self.hosts_pane = TablePane(
            self.hosts_model,
            name="hosts",
            # host names are short; the reason it waits is the long text
            stretch_column=self.hosts_model.columnCount() - 1,
            actions=[
                (
                    self.tr("Host detail…"),
                    lambda host: self.tasks.spawn(self.show_host(host), "host detail"),
                ),
                (
                    self.tr("Pause host"),
                    lambda host: self.tasks.spawn(self.pause_host(host, True), "pause host"),
                ),
                (
                    self.tr("Resume host"),
                    lambda host: self.tasks.spawn(self.pause_host(host, False), "resume host"),
                ),
            ],
        )
        self.hosts_pane.view.doubleClicked.connect(self._host_double_clicked)
        #: Open Host detail windows, by host (fed each refresh's row).
        self.host_dialogs: dict[str, HostDetailDialog] = {}
        self.busiest = QCheckBox(self.tr("Busiest first"), self.hosts_pane)
        self.busiest.setToolTip(self.tr("Sort by waiting URLs, most first"))
        self.busiest.toggled.connect(self._busiest_first)
        self.hosts_pane.top.insertWidget(1, self.busiest)
        self.inflight_pane = TablePane(self.inflight_model, name="inflight", progress_columns=[5])
        # the worker holding each lease: shown for a shared pool only (``set_session``)
        self.inflight_pane.view.setColumnHidden(InFlightModel.WORKER_COLUMN, True)
        self.retries_pane = TablePane(
            self.retries_model,
            name="retries",
            actions=[
                (self.tr("Retry now"), lambda url: self.tasks.spawn(self.retry_now(url), "retry")),
                (self.tr("Give up"), lambda url: self.tasks.spawn(self.give_up(url), "give up")),
            ],
        )
        self.hubs_pane = TablePane(
            self.hubs_model,
            name="hubs",
            progress_columns=[4],
            actions=[
                (
                    self.tr("Refresh now"),
                    lambda url: self.tasks.spawn(self.refresh_hub(url), "refresh hub"),
                ),
            ],
        )
        self.log_pane = TablePane(self.log_model, name="log", stretch_column=None)
        # Articles found (the engine's extraction results; nothing is extracted here).
        self.articles_pane = TablePane(self.articles_model, name="articles", stretch_column=4)
        self.articles_pane.view.doubleClicked.connect(self._show_article)
        self.article_dialog: ArticleDialog | None = None
        # Pages fetched (the page store, read off the GUI thread) and searched.
        self.pages_pane = PagesPane(self)
        self.pages_pane.detail_requested.connect(
            lambda seq: self.tasks.spawn(self.show_page(seq), "page detail")
        )
        self.pages_pane.read_failed.connect(self._pages_failed)
        self.page_dialog: PageDetailDialog | None = None
        #: What the damage dialogs said (each damaged block once, not at every refresh).
        self._damage_said: set[str] = set()
        self.docks: dict[str, QDockWidget] = {}
        first: QDockWidget | None = None
        for key, title, pane in (
            ("hosts", self.tr("Hosts"), self.hosts_pane),
            ("inflight", self.tr("In flight"), self.inflight_pane),
            ("retries", self.tr("Retries"), self.retries_pane),
            ("hubs", self.tr("Hubs"), self.hubs_pane),
            ("articles", self.tr("Articles"), self.articles_pane),
            ("pages", self.tr("Pages"), self.pages_pane),
            ("log", self.tr("Log"), self.log_pane),
        ):
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock-{key}")
            dock.setWidget(pane)
            self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
            if first is None:
                first = dock
            else:
                self.tabifyDockWidget(first, dock)
            self.docks[key] = dock
        if first is not None:
            first.raise_()
        # The Workers pane: only while a shared (Redis) pool is open (``_show_workers_pane``).
        self.workers_pane = TablePane(
            self.workers_model,
            name="workers",
            actions=[
                (
                    self.tr("Reclaim leases"),
                    lambda worker: self.tasks.spawn(self.reclaim_worker(worker), "reclaim"),
                ),
            ],
        )
        self.workers_pane.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.workers_dock = QDockWidget(self.tr("Workers"), self)
        self.workers_dock.setObjectName("dock-workers")
        self.workers_dock.setWidget(self.workers_pane)
        self._shared = False
        self._workers_due = 0.0  # time.monotonic() of the next read of the heartbeats

        self.timer = QTimer(self)
        self.timer.setObjectName("refresh-timer")
        self.timer.setInterval(refresh_ms if refresh_ms is not None else self._saved_refresh())
        self.timer.timeout.connect(self._tick)

        self._build_actions()
        self.state_label = QLabel(self)
        self.state_label.setTextFormat(Qt.TextFormat.PlainText)
        self.pool_label = QLabel(self)
        self.pool_label.setTextFormat(Qt.TextFormat.PlainText)
        # the rate line is a normal widget of the status bar, not a message: the window's
        # messages (a notification, a save that finished) show over it for their time instead
        # of being replaced by the next refresh
        self.rate_label = QLabel(self)
        self.rate_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addWidget(self.state_label)
        self.statusBar().addWidget(self.rate_label, 1)
        self.statusBar().addPermanentWidget(self.pool_label)

        geometry, state = prefs.window_state(self.qsettings)
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:  # 1200 x 800, or what the screen has room for (a 1366 x 768 laptop)
            screen = self.screen()
            room = screen.availableGeometry().size() if screen is not None else None
            width, height = 1200, 800
            if room is not None:
                width, height = min(width, room.width()), min(height, room.height() * 92 // 100)
            self.resize(width, height)
        if state is not None:
            self.restoreState(state)  # may place the Workers pane where it was last time
        compact = self.qsettings.value(COMPACT_KEY)
        if compact is None:  # not chosen yet: compact on a screen under 900 pixels high
            screen = self.screen()
            compact = screen is not None and screen.availableGeometry().height() < 900
        self.act_compact.setChecked(str(compact).lower() in ("true", "1"))
        self.overview.set_compact(self.act_compact.isChecked())
        self._show_workers_pane(session is not None and is_shared(session.frontier))
        if session is not None:
            self.set_session(session)
        self._update_actions()

    def _saved_refresh(self) -> int:
        """The update speed chosen before (View -> Update speed), or the default."""
        try:
            ms = int(str(self.qsettings.value(REFRESH_KEY, DEFAULT_REFRESH_MS)))
        except ValueError:
            return DEFAULT_REFRESH_MS
        return ms if ms in REFRESH_SPEEDS else DEFAULT_REFRESH_MS

    def state(self) -> CrawlState | None:
        if self.session is None:
            return None
        return CrawlState(self.session.crawler.state)

    def state_text(self, state: CrawlState | None) -> str:
        names = {
            None: self.tr("No pool"),
            CrawlState.IDLE: self.tr("Ready"),
            CrawlState.RUNNING: self.tr("Running"),
            CrawlState.PAUSED: self.tr("Paused"),
            CrawlState.STOPPING: self.tr("Stopping…"),
            CrawlState.STOPPED: self.tr("Stopped"),
            CrawlState.FINISHED: self.tr("Finished"),
            CrawlState.FAILED: self.tr("Failed (see the log)"),
        }
        return names.get(state, str(state))

    # -- session --------------------------------------------------------------------------
    def _listeners(self, session: SessionLike) -> list[tuple[list[Any], Callable[..., None]]]:
        """The session's listener lists this window joins, each with its handler."""
        joined: list[tuple[list[Any], Callable[..., None]]] = [
            (session.crawler.state_listeners, self._on_state)  # buttons follow the state at once
        ]
        if is_attached(session):  # its crawl may end in the other process
            joined.append((session.end_listeners, self._on_session_end))
        elif is_local(session):  # our own crawl pauses when its storage fails
            joined.append((session.crawler.storage_listeners, self._on_storage_full))
        return joined

    def set_session(self, session: SessionLike | None) -> None:
        if self.session is not None:
            for listeners, handler in self._listeners(self.session):
                if handler in listeners:
                    listeners.remove(handler)
        self.session = session
        dialogs, self.host_dialogs = list(self.host_dialogs.values()), {}
        for dlg in dialogs:  # they steer the crawl they were opened on
            dlg.close()
        if session is not None:
            for listeners, handler in self._listeners(session):
                listeners.append(handler)
        self._version = None
        self.failing_hosts.reset()
        for model in (
            self.hosts_model,
            self.inflight_model,
            self.retries_model,
            self.hubs_model,
            self.workers_model,
        ):
            model.clear()
        self.articles_model.reset()
        self._set_pages_source(session)
        self._shared = session is not None and is_shared(session.frontier)
        self._workers_due = 0.0
        self.workers_model.own_worker = (
            session.frontier.worker if session is not None and is_shared(session.frontier) else ""
        )
        if session is not None:  # (None: between two pools; the panes stay as they are)
            self._show_workers_pane(self._shared)
            self.inflight_pane.view.setColumnHidden(InFlightModel.WORKER_COLUMN, not self._shared)
            self.settings = session.settings
            shown = session.display_name
            if is_attached(session):
                shown = self.tr("%1 (attached to a running crawl)").replace("%1", shown)
            self.pool_label.setText(shown)
            self.setWindowTitle(self.tr("Crawler GUI — %1").replace("%1", shown))
        else:
            self.pool_label.setText("")
        self._update_actions()

    def _set_pages_source(self, session: SessionLike | None) -> None:
        """The Pages pane reads the page store of a pool open in this window (an attached
        window's crawl holds its store in the other process)."""
        store = session.store if is_local(session) else None
        if not is_local(session) or store is None:
            if session is not None or self.pages_pane.store is not None:
                self.tasks.spawn(self.pages_pane.set_source(None, None), "pages")
            return
        self.tasks.spawn(self.pages_pane.set_source(store, session.indexer), "pages")

    def _show_workers_pane(self, shared: bool) -> None:
        """Put the Workers pane in the window for a shared pool (tabbed with the first pane
        shown, unless it is there already, where the user left it); take it out for a local
        pool. Its View menu entry follows."""
        dock = self.workers_dock
        placed = self.dockWidgetArea(dock) != Qt.DockWidgetArea.NoDockWidgetArea
        if shared and not placed:
            bottom = Qt.DockWidgetArea.BottomDockWidgetArea
            self.addDockWidget(bottom, dock)
            anchor = next(
                (
                    d
                    for d in self.docks.values()
                    if not d.isHidden() and not d.isFloating() and self.dockWidgetArea(d) == bottom
                ),
                None,
            )
            if anchor is not None:
                self.tabifyDockWidget(anchor, dock)
            dock.show()
        elif not shared:
            if placed:
                self.removeDockWidget(dock)
            # A dock that is in no dock area is still a child widget: hidden, or it would be
            # drawn as a stray box in the window's top-left corner.
            dock.hide()
        dock.toggleViewAction().setVisible(shared)

    @property
    def workers_pane_shown(self) -> bool:
        """The Workers pane is in the window (it may still be closed by the user)."""
        return self.dockWidgetArea(self.workers_dock) != Qt.DockWidgetArea.NoDockWidgetArea

    def _on_state(self, state: CrawlState) -> None:
        if self._closed:
            return
        self._update_actions()
        session = self.session
        if session is None:
            return
        self._notify_state(session, state)
        if state is not CrawlState.FAILED or not is_local(session):
            return
        failure = session.crawler.failure
        if isinstance(failure, CrawlerGuiError):
            self.tasks.spawn(
                self.error(self.tr("Crawl stopped"), self.tr("The crawl stopped."), failure),
                "crawl failed",
            )

    def _notify_state(self, session: SessionLike, state: CrawlState) -> None:
        """A tray message when an until-idle crawl has finished or a crawl stopped on an
        error: the window is often in the background by then."""
        if state is CrawlState.FINISHED and session.settings.mode is CrawlMode.UNTIL_IDLE:
            stats = session.crawler.stats()
            self.notifier.notify(
                self.tr("Crawl finished"),
                self.tr("%1: nothing left to crawl; %2 pages, %3 articles.")
                .replace("%1", session.display_name)
                .replace("%2", fmt.count(stats.pages))
                .replace("%3", fmt.count(stats.articles_found)),
            )
        elif state is CrawlState.FAILED:
            failure = session.crawler.failure if is_local(session) else None
            self.notifier.notify(
                self.tr("Crawl stopped"),
                self.tr("%1 stopped on an error: %2")
                .replace("%1", session.display_name)
                .replace("%2", str(failure) if failure else self.tr("see the log")),
                warning=True,
            )

    def _notify_failing_hosts(self, snap: PoolSnapshot) -> None:
        for h in self.failing_hosts.update(snap.hosts):
            self.notifier.notify(
                self.tr("A host keeps failing"),
                self.tr("%1: %2 URLs failed for good since its last success (last: %3).")
                .replace("%1", h.host)
                .replace("%2", fmt.count(self.failing_hosts.threshold))
                .replace("%3", h.last_status or "–"),
                warning=True,
            )

    def _on_storage_full(self, message: str) -> None:
        """The crawl paused itself: our disk is full (or failed a write). Say so."""
        if self._closed:
            return
        self.statusBar().showMessage(message, 30000)
        self.tasks.spawn(
            self.error(
                self.tr("Crawl paused"),
                self.tr(
                    "The crawl is paused: its data could not be written. Nothing was lost. "
                    "Free some space on the disk, then press Resume."
                ),
                RuntimeError(message),
            ),
            "disk full",
        )

    def _on_session_end(self, state: str | None) -> None:
        if not self._closed and self.session is not None:
            self.tasks.spawn(self._session_ended(self.session, state), "crawl ended")

    async def _session_ended(self, session: SessionLike, state: str | None) -> bool:
        """The crawl this window is attached to ended (``state``), or the connection to it was
        lost (None): say so, and offer to open the pool (free now) in this window."""
        where = session.display_name
        if state is None:
            text = self.tr(
                "The connection to the crawl of %1 was lost: the crawl was killed, or it "
                "dropped this window."
            ).replace("%1", where)
        else:
            text = (
                self.tr("The crawl of %1 has ended (%2).")
                .replace("%1", where)
                .replace("%2", self.state_text(CrawlState(state)))
            )
        log.warning("%s", text)
        self.pool_label.setText(text)  # (the status line shows each refresh's totals)
        self._update_actions()
        if self._open_session is None:
            return False
        answer = await show_message(
            self,
            QMessageBox.Icon.Information,
            self.tr("Crawl ended"),
            text + "\n\n" + self.tr("Open the pool in this window?"),
            buttons=QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close,
            default=QMessageBox.StandardButton.Open,
        )
        if answer != QMessageBox.StandardButton.Open or self.session is not session:
            return False
        return await self.open_pool(Path(session.location))

    def start_refresh(self) -> None:
        if not self._closed:
            self.timer.start()
            self._tick()

    def _tick(self) -> None:
        try:
            running = asyncio.get_event_loop().is_running()
        except RuntimeError:
            running = False
        if not running:
            return  # Qt processed events outside the asyncio loop (tests); nothing to do
        if self._refresh_task is not None and not self._refresh_task.done():
            self.skipped_ticks += 1  # the last refresh is still running: never overlap
            return
        self._refresh_task = asyncio.ensure_future(self.refresh())
        self._refresh_task.add_done_callback(self._refresh_done)

    def _refresh_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("refresh failed", exc_info=task.exception())

    async def refresh(self) -> None:
        """One refresh: read the pool and the stats, update every model and the overview."""
        self.ticks += 1
        self.log_model.append(self.log_buffer.drain())
        session = self.session
        if session is None:
            self.overview.update_from(None, None, self.state_text(None))
            return
        snap: PoolSnapshot = await session.frontier.snapshot(since=self._version)
        if session is not self.session:
            return  # the pool was switched while we waited
        workers = None
        frontier = session.frontier
        if is_shared(frontier) and time.monotonic() >= self._workers_due:
            # the heartbeats change every few seconds: read them every WORKERS_SECONDS
            self._workers_due = time.monotonic() + WORKERS_SECONDS
            workers = await frontier.workers()
            if session is not self.session:
                return
        stats = session.crawler.stats()
        articles = session.crawler.articles if is_local(session) else None
        if articles is not None:
            self.articles_model.update_from(articles.recent, articles.found)
        self._version = snap.version
        self.last_snapshot, self.last_stats = snap, stats
        # Reading a big pool's snapshot, merging its hosts and re-sorting them take a loop
        # turn each (``_pane_done``), so that no turn holds the loop for all of them.
        if not await self._pane_done(
            session, len(snap.hosts) + len(snap.pending) + len(snap.retrying)
        ):
            return
        self.hosts_model.max_in_flight = self.settings.per_host
        self.hosts_model.update(
            snap.hosts, now=snap.time, complete=snap.hosts_complete, relayout=False
        )
        if not await self._pane_done(session, len(snap.hosts)):
            return
        if self.hosts_model.relayout_if_due() and not await self._pane_done(
            session, self.hosts_model.rowCount()
        ):
            return
        self._update_host_dialogs(snap.time)
        self._notify_failing_hosts(snap)
        if snap.hosts_complete:
            # The objects alive after a full load (Qt wrappers, one row per host, the pool's
            # per-host state) live as long as the window: keep the cycle collector from
            # scanning them on every full collection (tens of ms with 10,000 hosts).
            gc.freeze()
        # On a big pool, one big pane per loop turn: each merge of thousands of rows takes
        # milliseconds; in between, the crawl's callbacks and Qt's paint get their turn, so a
        # refresh never holds the loop for the sum of them all. Small ones stay in one turn.
        self.inflight_model.update(snap.pending, now=snap.time)
        if not await self._pane_done(session, len(snap.pending)):
            return
        self.retries_model.threshold = snap.totals.failure_threshold
        self.retries_model.update(snap.retrying, now=snap.time)
        if not await self._pane_done(session, len(snap.retrying)):
            return
        self.hubs_model.update(snap.hubs, now=snap.time)
        if self._shared:
            if workers is not None:
                self.workers_model.set_workers(workers, now=snap.time)
            self.workers_model.set_pending(snap.pending, now=snap.time)
        self.overview.update_from(snap, stats, self.state_text(self.state()))
        if articles is not None:
            self.overview.set_freshness(*articles.freshness.summary(snap.time))
        else:
            self.overview.set_freshness(None, None)
        self._update_actions()
        if self.pages_pane.isVisible() and not self.pages_pane.visibleRegion().isEmpty():
            await self.pages_pane.refresh()
        self.rate_label.setText(
            self.tr("%1 pages/s · %2 done · %3 waiting")
            .replace("%1", fmt.rate(stats.pages_per_s_10s))
            .replace("%2", fmt.count(snap.totals.done))
            .replace("%3", fmt.count(snap.totals.waiting))
        )

    async def _pane_done(self, session: SessionLike, rows: int) -> bool:
        """After a pane merged ``rows`` rows: if that was a big merge, yield to the loop before
        the next pane. False if the pool was switched meanwhile (the rest of this refresh
        belongs to the old pool)."""
        if rows < YIELD_AFTER_ROWS:
            return True
        await after_due_timers()
        return session is self.session

    def _busiest_first(self, on: bool) -> None:
        view = self.hosts_pane.view
        if on:
            view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        else:
            view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            self.hosts_model.sort(-1)

    async def error(self, title: str, text: str, exc: BaseException) -> None:
        log.error("%s: %s", text, exc)
        self.last_error = f"{text}\n{exc}"
        await show_message(self, QMessageBox.Icon.Warning, title, text, detail=str(exc))

    def _task_failed(self, exc: BaseException) -> None:
        if damaged_storage(exc):
            self.say_damaged(exc)
        elif isinstance(exc, CrawlerGuiError) and not self._closed:
            self.statusBar().showMessage(str(exc), 15000)

    def _pages_failed(self, exc: BaseException, asked: bool) -> None:
        if damaged_storage(exc):
            self.say_damaged(exc, again=asked)

    def say_damaged(self, exc: BaseException, *, again: bool = True) -> None:
        """A read of the window met a damaged block of the pool or the page store: a dialog
        that names it and ``crawler-gui repair``; the window goes on, without what the block
        held. What the user asked for says so each time; a live refresh that meets the same
        block again (``again`` False) says it once."""
        text = str(exc)
        if self._closed or (not again and text in self._damage_said):
            return
        self._damage_said.add(text)
        self.tasks.spawn(
            self.error(
                self.tr("Damaged files"),
                self.tr(
                    "Part of the pool's files is damaged and cannot be read. The window goes "
                    "on without it; nothing was changed."
                ),
                exc,
            ),
            "damaged files",
        )

    # -- closing --------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closed:
            event.accept()
            return
        event.ignore()
        if self._shutdown_task is None:
            self._shutdown_task = asyncio.ensure_future(self.shutdown())

    async def shutdown(self) -> None:
        """Stop the timer and every task, close the session (stops the crawl, flushes the pool),
        remember the layout, then close the window."""
        if self._closed:
            return
        self.timer.stop()
        if self._refresh_task is not None and not self._refresh_task.done():
            self._refresh_task.cancel()
            await asyncio.gather(self._refresh_task, return_exceptions=True)
        await self.tasks.cancel_all()
        self.notifier.close()
        prefs.save_window_state(self.qsettings, self.saveGeometry(), self.saveState())
        session, self.session = self.session, None
        try:
            await self.pages_pane.close_source()
            if session is not None:
                self.state_label.setText(self.state_text(CrawlState.STOPPING))
                await session.close()
        finally:
            if self._own_log_handler:
                logging.getLogger("crawler_gui").removeHandler(self.log_buffer)
            self.qsettings.sync()
            self._closed = True
            self.close()
            self.closed.emit()

    async def wait_closed(self) -> None:
        if self._shutdown_task is not None:
            await asyncio.shield(self._shutdown_task)

    @property
    def is_closed(self) -> bool:
        return self._closed
