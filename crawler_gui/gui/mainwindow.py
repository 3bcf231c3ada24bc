"""The main window: wires widgets to the crawler's run-control API and shows snapshots.

It holds no crawl logic. One QTimer drives every refresh: ``frontier.snapshot(since=...)`` and
``crawler.stats()``, then each model merges its rows (batched, ranged signals).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, runtime_checkable

from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QStyle,
    QWidget,
)

from crawler_gui.core import snapshot_file
from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import Frontier, PoolSnapshot, PoolTotals, SharedFrontier
from crawler_gui.core.redact import redact_url
from crawler_gui.engine.control.attached import AttachedSession
from crawler_gui.engine.control.server import RunControl as CrawlerView
from crawler_gui.engine.report import save_report
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.store import PageStore
from crawler_gui.engine.turns import after_due_timers
from crawler_gui.errors import CrawlerGuiError
from crawler_gui.gui import dialogs, fmt, prefs
from crawler_gui.gui.exporting import ExportDialog, export_to_file, inside
from crawler_gui.gui.hostdetail import HostDetailDialog
from crawler_gui.gui.models import (
    ArticlesModel,
    HostsModel,
    HubsModel,
    InFlightModel,
    KeyRole,
    LogBuffer,
    LogModel,
    RetriesModel,
    WorkersModel,
)
from crawler_gui.gui.notify import FailingHosts, Notifier
from crawler_gui.gui.pagedetail import PageDetailDialog, load_page
from crawler_gui.gui.pages import PagesPane
from crawler_gui.gui.tasks import Tasks
from crawler_gui.gui.widgets import OverviewWidget, TablePane

log = logging.getLogger(__name__)

SNAPSHOT_FILTER = "crawler-gui pool snapshots (*.cgpool *.jsonl.gz *.gz);;All files (*)"


if TYPE_CHECKING:
    from crawler_gui.engine.extract.service import Articles


@runtime_checkable
class PoolView(Protocol):
    """What the window asks of a pool: a :class:`~crawler_gui.core.frontier.Frontier` in this
    process, or an attached crawl's (``engine.control.attached.AttachedFrontier``). A shared pool's
    workers are asked of a :class:`~crawler_gui.core.frontier.SharedFrontier`."""

    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot: ...

    async def retry_now(self, url: str) -> bool: ...

    async def give_up(self, url: str) -> bool: ...

    async def refresh_hub(self, url: str) -> bool: ...

    async def counters(self) -> Counters: ...

    async def totals(self) -> PoolTotals: ...

    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int: ...

    async def load_snapshot(self, path: str | Path) -> int: ...


@runtime_checkable
class LocalCrawlerView(CrawlerView, Protocol):
    """What only a crawl in this process has: its failure, its storage pauses, its
    articles, and a scope the window may widen."""

    storage_listeners: list[Callable[[str], None]]
    failure: Exception | None
    articles: Articles | None

    async def add_scope_domains(self, domains: Iterable[str]) -> None: ...


@runtime_checkable
class SessionLike(Protocol):
    """What the window needs of a session: ``crawler_gui.engine.session.CrawlSession`` (a
    crawl in this process, :class:`LocalSessionLike`) or
    ``crawler_gui.engine.control.attached.AttachedSession`` (one running in another process, with
    ``ended`` and ``end_listeners``); ``is_attached`` / ``is_local`` tell which."""

    #: The pool directory, or a Redis pool URL.
    location: Path | str
    display_name: str
    demo_site: object
    frontier: PoolView
    crawler: CrawlerView
    settings: CrawlSettings

    async def close(self) -> None: ...


@runtime_checkable
class LocalSessionLike(SessionLike, Protocol):
    """A crawl in this process: its page store (None when pages are not kept) in
    ``store_dir`` (the pool directory, or a Redis worker's own folder)."""

    frontier: Frontier
    crawler: LocalCrawlerView
    store: PageStore | None
    store_dir: Path


SessionOpener = Callable[[Path | str, CrawlSettings], Awaitable[SessionLike]]

_RESTARTABLE = (CrawlState.STOPPED, CrawlState.FINISHED, CrawlState.FAILED)
#: QSettings key of the last Redis pool URL opened (only kept when it holds no password).
LAST_REDIS_KEY = "pool/last_redis"
#: Whether the overview shows totals and rates only (``MainWindow.act_compact``).
COMPACT_KEY = "view/compact_overview"
#: Seconds between two reads of the workers' heartbeats (the Workers pane of a shared pool);
#: their leases are counted from every tick's snapshot.
WORKERS_SECONDS = 2.0


def is_attached(session: object) -> TypeGuard[AttachedSession]:
    """A session attached to a crawl running in another process (``engine.control``)."""
    return isinstance(session, AttachedSession)


def is_local(session: SessionLike | None) -> TypeGuard[LocalSessionLike]:
    """A session whose crawl runs in this process (not attached to another one)."""
    return session is not None and not isinstance(session, AttachedSession)


def is_shared(frontier: PoolView) -> TypeGuard[SharedFrontier]:
    """A pool shared by many workers (Redis): it has heartbeats to show."""
    return isinstance(frontier, SharedFrontier)


#: A refresh yields to the loop after a pane merged at least this many rows (``_pane_done``).
YIELD_AFTER_ROWS = 500


class MainWindow(QMainWindow):
    #: Emitted once the window has shut down (session closed, timer stopped).
    closed = Signal()

    def __init__(
        self,
        session: SessionLike | None,
        *,
        qsettings: QSettings | None = None,
        open_session: SessionOpener | None = None,
        refresh_ms: int = 400,
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
        self.article_dialog: dialogs.ArticleDialog | None = None
        # Pages fetched (the page store, read off the GUI thread) and searched.
        self.pages_pane = PagesPane(self)
        self.pages_pane.detail_requested.connect(
            lambda seq: self.tasks.spawn(self.show_page(seq), "page detail")
        )
        self.page_dialog: PageDetailDialog | None = None
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

        self.timer = QTimer(self)
        self.timer.setObjectName("refresh-timer")
        self.timer.setInterval(refresh_ms)
        self.timer.timeout.connect(self._tick)

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

    # -- actions --------------------------------------------------------------------------
    def _set_compact(self) -> None:
        compact = self.act_compact.isChecked()
        self.overview.set_compact(compact)
        self.qsettings.setValue(COMPACT_KEY, compact)

    def _action(
        self,
        text: str,
        slot: Callable[[], Any],
        shortcut: Any = None,
        icon: QStyle.StandardPixmap | None = None,
        tip: str = "",
    ) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        if icon is not None:
            act.setIcon(self.style().standardIcon(icon))
        if tip or shortcut is not None:
            key = act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            act.setToolTip(f"{tip or text.replace('…', '')} ({key})" if key else tip or text)
        act.triggered.connect(slot)
        return act

    def _build_actions(self) -> None:
        sp = QStyle.StandardPixmap
        spawn = self.tasks.spawn
        self.act_start = self._action(
            self.tr("&Start"), self.start, "F5", sp.SP_MediaPlay, self.tr("Start crawling")
        )
        self.act_pause = self._action(
            self.tr("&Pause"),
            self.toggle_pause,
            "F6",
            sp.SP_MediaPause,
            self.tr("Pause: no new fetches"),
        )
        self.act_stop = self._action(
            self.tr("S&top"),
            lambda: spawn(self.stop(), "stop"),
            "Shift+F5",
            sp.SP_MediaStop,
            self.tr("Stop: in-flight fetches finish or go back"),
        )
        self.act_add = self._action(
            self.tr("&Add seeds…"),
            lambda: spawn(self.add_seeds(), "add seeds"),
            "Ctrl+N",
            sp.SP_FileDialogNewFolder,
        )
        self.act_hubs = self._action(
            self.tr("&Hubs…"),
            lambda: spawn(self.edit_hubs(), "hubs"),
            "Ctrl+H",
            sp.SP_FileDialogListView,
        )
        self.act_settings = self._action(
            self.tr("Se&ttings…"),
            lambda: spawn(self.edit_settings(), "settings"),
            "Ctrl+,",
            sp.SP_FileDialogDetailedView,
        )
        self.act_open = self._action(
            self.tr("&Open pool…"),
            lambda: spawn(self.open_pool(), "open pool"),
            QKeySequence.StandardKey.Open,
            sp.SP_DirOpenIcon,
        )
        self.act_open_redis = self._action(
            self.tr("Open &Redis pool…"),
            lambda: spawn(self.open_redis_pool(), "open redis pool"),
            "Ctrl+Shift+O",
            sp.SP_DriveNetIcon,
            self.tr("Join a shared URL pool on a Redis server"),
        )
        self.act_save = self._action(
            self.tr("&Save snapshot…"),
            lambda: spawn(self.save_snapshot(), "save snapshot"),
            QKeySequence.StandardKey.Save,
            sp.SP_DialogSaveButton,
        )
        self.act_load = self._action(
            self.tr("&Load snapshot…"),
            lambda: spawn(self.load_snapshot(), "load snapshot"),
            "Ctrl+L",
            sp.SP_DialogOpenButton,
        )
        self.act_export = self._action(
            self.tr("&Export…"),
            lambda: spawn(self.export_records(), "export"),
            "Ctrl+E",
            sp.SP_FileDialogContentsView,
            self.tr("Export pages, articles or URL outcomes as JSON Lines, CSV or WARC"),
        )
        self.act_report = self._action(
            self.tr("Save &report…"),
            lambda: spawn(self.save_report(), "report"),
            None,
            None,
            self.tr(
                "Save the crawl report: one HTML file with totals, throughput, status codes, "
                "failing hosts, articles per host and freshness"
            ),
        )
        self.act_quit = self._action(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)
        self.act_about = self._action(self.tr("&About"), lambda: spawn(self.about(), "about"))
        self.act_compact = self._action(self.tr("Compact overview"), self._set_compact)
        self.act_compact.setCheckable(True)
        self.act_compact.setToolTip(
            self.tr("Totals and rates only: the chart, status codes and estimate make room")
        )

        m = self.menuBar()
        file_menu = m.addMenu(self.tr("&File"))
        for a in (
            self.act_open,
            self.act_open_redis,
            None,
            self.act_save,
            self.act_load,
            self.act_export,
            self.act_report,
            None,
            self.act_quit,
        ):
            file_menu.addSeparator() if a is None else file_menu.addAction(a)
        crawl_menu = m.addMenu(self.tr("&Crawl"))
        for a in (
            self.act_start,
            self.act_pause,
            self.act_stop,
            None,
            self.act_add,
            self.act_hubs,
            None,
            self.act_settings,
        ):
            crawl_menu.addSeparator() if a is None else crawl_menu.addAction(a)
        view_menu = m.addMenu(self.tr("&View"))
        for dock in (*self.docks.values(), self.workers_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        view_menu.addAction(self.act_compact)
        help_menu = m.addMenu(self.tr("&Help"))
        help_menu.addAction(self.act_about)

        tb = self.addToolBar(self.tr("Crawl"))
        tb.setObjectName("toolbar-crawl")
        for a in (
            self.act_start,
            self.act_pause,
            self.act_stop,
            None,
            self.act_add,
            self.act_hubs,
            self.act_settings,
            None,
            self.act_save,
            self.act_load,
        ):
            tb.addSeparator() if a is None else tb.addAction(a)

    def _update_actions(self) -> None:
        state = self.state()
        has = self.session is not None
        self.act_start.setEnabled(has and state in (CrawlState.IDLE, *_RESTARTABLE))
        self.act_pause.setEnabled(has and state in (CrawlState.RUNNING, CrawlState.PAUSED))
        paused = state == CrawlState.PAUSED
        self.act_pause.setText(self.tr("&Resume") if paused else self.tr("&Pause"))
        self.act_pause.setIcon(
            self.style().standardIcon(
                QStyle.StandardPixmap.SP_MediaPlay
                if paused
                else QStyle.StandardPixmap.SP_MediaPause
            )
        )
        self.act_stop.setEnabled(has and state in (CrawlState.RUNNING, CrawlState.PAUSED))
        for a in (
            self.act_add,
            self.act_hubs,
            self.act_save,
            self.act_load,
            self.act_export,
            self.act_report,
            self.act_settings,
        ):
            a.setEnabled(has and state != CrawlState.STOPPING)
        if is_attached(self.session):
            # A crawl in another process: it is started there, it cannot restart once it has
            # ended, and a snapshot load (which replaces the whole pool) needs the pool itself.
            live = self.session.ended is None
            self.act_start.setEnabled(self.act_start.isEnabled() and live)
            for a in (self.act_add, self.act_hubs, self.act_save, self.act_settings):
                a.setEnabled(a.isEnabled() and live)
            self.act_load.setEnabled(False)
            self.act_export.setEnabled(False)  # its pool and pages are the other process's
        self.state_label.setText(self.state_text(state))

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
                self.tasks.spawn(self.pages_pane.set_source(None, None, extracting=False), "pages")
            return
        extracting = session.settings.extract == "on"
        self.tasks.spawn(
            self.pages_pane.set_source(store, session.store_dir, extracting=extracting), "pages"
        )

    # ---- one host: detail and control (through the crawl's run-control API) -------------------
    def _host_double_clicked(self, index: QModelIndex) -> None:
        host = index.data(KeyRole)
        if host:
            self.tasks.spawn(self.show_host(str(host)), "host detail")

    async def show_host(self, host: str) -> HostDetailDialog | None:
        """The Host detail of ``host`` (one window per host; a second ask raises it)."""
        if self.session is None:
            return None
        dlg = self.host_dialogs.get(host)
        if dlg is None:
            dlg = HostDetailDialog(
                host,
                self.session.crawler,
                self.tasks.spawn,
                self,
                max_in_flight=self.settings.per_host,
            )
            dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dlg.pages_button.setVisible(self.pages_pane.store is not None)
            dlg.pages_requested.connect(self._show_host_pages)
            if self.pages_pane.store is not None:
                dlg.results = self.pages_pane.host_results
            dlg.page_requested.connect(
                lambda seq: self.tasks.spawn(self.show_page(seq), "page detail")
            )
            ident = id(dlg)
            dlg.finished.connect(lambda _r=0, h=host, i=ident: self._host_dialog_closed(h, i))
            self.host_dialogs[host] = dlg
            row = self.hosts_model.get(host)
            if row is not None:
                dlg.update_row(row, self.hosts_model.now)
        dlg.show()
        dlg.raise_()
        await dlg.loaded()
        return dlg

    def _host_dialog_closed(self, host: str, ident: int) -> None:
        if id(self.host_dialogs.get(host)) == ident:
            del self.host_dialogs[host]

    def _update_host_dialogs(self, now: float) -> None:
        for host, dlg in self.host_dialogs.items():
            row = self.hosts_model.get(host)
            if row is not None:
                dlg.update_row(row, now)

    def _show_host_pages(self, host: str) -> None:
        """The Pages pane, filtered to one host: its results, newest first."""
        self.pages_pane.host_filter.setText(host)
        dock = self.docks.get("pages")
        if dock is not None:
            dock.show()
            dock.raise_()

    async def pause_host(self, host: str, paused: bool) -> None:
        if self.session is not None:
            await self.session.crawler.pause_host(host, paused)

    async def show_page(self, seq: int) -> PageDetailDialog | None:
        """The Page detail of the fetch ``seq`` (read in a worker thread)."""
        store = self.pages_pane.store
        if store is None:
            return None
        view = await asyncio.to_thread(load_page, store, seq)
        if view is None or self._closed:
            return None
        dlg = PageDetailDialog(view, self)
        self.page_dialog = dlg
        dlg.show()
        return dlg

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
        answer = await dialogs.show_message(
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

    def _show_article(self, index: Any) -> None:
        """Double-click in the Articles pane: the extracted text beside the URL and kind."""
        src = self.articles_pane.source_index(index)
        if not src.isValid():
            return
        dlg = dialogs.ArticleDialog(self.articles_model.article(src.row()), self)
        self.article_dialog = dlg
        dlg.show()

    def _busiest_first(self, on: bool) -> None:
        view = self.hosts_pane.view
        if on:
            view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        else:
            view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            self.hosts_model.sort(-1)

    # -- run control ----------------------------------------------------------------------
    def start(self) -> None:
        if self.session is None:
            return
        try:
            self.session.crawler.start()
        except (CrawlerGuiError, RuntimeError) as exc:
            self._task_failed(exc)
        log.info("crawl started")
        self._update_actions()

    def toggle_pause(self) -> None:
        if self.session is None:
            return
        crawler = self.session.crawler
        if crawler.state == CrawlState.PAUSED:
            crawler.resume()
            log.info("crawl resumed")
        elif crawler.state == CrawlState.RUNNING:
            crawler.pause()
            log.info("crawl paused")
        self._update_actions()

    async def stop(self) -> None:
        if self.session is None:
            return
        self._update_actions()
        self.state_label.setText(self.state_text(CrawlState.STOPPING))
        await self.session.crawler.stop()
        log.info("crawl stopped")
        self._update_actions()

    async def add_seeds(self) -> None:
        if self.session is None:
            return
        urls = await dialogs.AddSeedsDialog.ask(self)
        if not urls or self.session is None:
            return
        report = await self.session.crawler.add_seeds(urls)
        self._report(self.tr("Seeds"), report)

    async def edit_hubs(self) -> None:
        if self.session is None:
            return
        crawler = self.session.crawler
        self.settings = self.session.settings  # (another window attached may have changed them)
        result = await dialogs.HubsDialog.ask(
            self, await crawler.hubs(), self.settings.hub_percent, self.settings.hub_span
        )
        if result is None or self.session is None:
            return
        report = await crawler.set_hubs(result.hubs)
        if result.hub_percent != self.settings.hub_percent:
            import dataclasses

            self._apply_settings(dataclasses.replace(self.settings, hub_percent=result.hub_percent))
        self._report(self.tr("Hubs"), report)

    async def edit_settings(self) -> None:
        if self.session is not None:
            self.settings = self.session.settings  # (another window attached may have changed them)
        new = await dialogs.SettingsDialog.ask(self, self.settings)
        if new is not None:
            self._apply_settings(new)

    def _apply_settings(self, new: CrawlSettings) -> None:
        self.settings = new
        if self.session is None or self.session.demo_site is None:
            prefs.save_settings(self.qsettings, new)  # the demo's tweaks are not remembered
        if self.session is not None:
            self.session.crawler.apply_settings(new)
            self.session.settings = new
        log.info("settings applied")

    def _report(self, what: str, report: Any) -> None:
        msg = (
            self.tr("%1: %2 added, %3 already known, %4 refused")
            .replace("%1", what)
            .replace("%2", str(report.added))
            .replace("%3", str(report.duplicate))
            .replace("%4", str(len(report.refused)))
        )
        self.statusBar().showMessage(msg, 10000)
        log.info("%s", msg)
        for url, reason in report.refused[:50]:
            log.warning("refused %s: %s", url, dialogs.reason_text(reason))

    async def retry_now(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.retry_now(url):
            log.warning("%s is no longer retrying", url)

    async def give_up(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.give_up(url):
            log.warning("%s is no longer retrying", url)

    async def refresh_hub(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.refresh_hub(url):
            log.warning("%s is not a hub", url)

    async def reclaim_worker(self, worker: str, *, confirm: bool = True) -> int | None:
        """Put every lease of ``worker`` back into the shared pool now (one attempt counted
        each), after asking: a worker still alive would fetch those URLs a second time.
        Returns how many came back (None when not done)."""
        session = self.session
        if session is None or not is_shared(session.frontier):
            return None
        if confirm:
            model = self.workers_model
            row = model.get(worker)
            text = (
                self.tr(
                    "Put the %1 URLs leased by worker %2 back into the pool now? Each counts "
                    "as one failed attempt.\n\nDo this only for a worker that is dead: a "
                    "worker that is still alive would fetch these URLs a second time."
                )
                .replace("%1", fmt.count(row.in_flight if row is not None else 0))
                .replace("%2", worker)
            )
            if worker == model.own_worker:
                text += "\n\n" + self.tr("This is this window's own worker.")
            elif row is not None and row.heard and not model.is_silent(row, model.now):
                text += "\n\n" + self.tr(
                    "This worker sent a heartbeat %1 ago: it looks alive."
                ).replace("%1", fmt.duration(model.now - row.last_seen))
            answer = await dialogs.show_message(
                self,
                QMessageBox.Icon.Warning,
                self.tr("Reclaim leases"),
                text,
                buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                default=QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes or self.session is not session:
                return None
        frontier = session.frontier
        if not is_shared(frontier):
            return None
        n = await frontier.reclaim_worker(worker)
        log.info("reclaimed %d leases of worker %s", n, worker)
        self.statusBar().showMessage(
            self.tr("%1 URLs of worker %2 went back to the pool")
            .replace("%1", fmt.count(n))
            .replace("%2", worker),
            10000,
        )
        self._workers_due = 0.0
        return n

    # -- snapshots and pools --------------------------------------------------------------
    async def save_snapshot(self, path: Path | None = None) -> int | None:
        if self.session is None:
            return None
        if path is None:
            path = await dialogs.ask_file(
                self,
                self.tr("Save pool snapshot"),
                save=True,
                name_filter=self.tr(SNAPSHOT_FILTER),
                suffix="cgpool",
            )
        if path is None or self.session is None:
            return None
        try:
            # The crawl's scope travels with the pool, so that the snapshot crawls on elsewhere
            # (an attached crawl adds its own).
            scope = self.session.crawler.scope.seed_domains
            n = int(
                await dialogs.run_busy(
                    self,
                    self.tr("Save snapshot"),
                    self.tr("Saving the pool to %1…").replace("%1", str(path)),
                    self.session.frontier.save_snapshot(path, scope=scope),
                    cancel=True,  # the save stops at its next record and removes its file
                )
            )
        except dialogs.Cancelled:
            self.statusBar().showMessage(self.tr("The snapshot was not saved (cancelled)."), 10000)
            log.info("snapshot save to %s cancelled", path)
            return None
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Save snapshot"), self.tr("The snapshot was not saved."), exc)
            return None
        self.statusBar().showMessage(
            self.tr("Saved %1 records to %2").replace("%1", fmt.count(n)).replace("%2", str(path)),
            10000,
        )
        log.info("saved %d records to %s", n, path)
        return n

    async def export_records(
        self, kind: str | None = None, file_format: str | None = None, path: Path | None = None
    ) -> int | None:
        """File → Export…: the records of ``crawler-gui export`` (asked for when not given)
        to a file, written in a worker thread with a progress dialog that can cancel."""
        session = self.session
        if not is_local(session):
            return None
        store = session.store
        if kind is None or file_format is None:
            choice = await ExportDialog.ask(self, pages=store is not None)
            if choice is None:
                return None
            kind, file_format = choice
        if path is None:
            path = await dialogs.ask_file(
                self,
                self.tr("Export"),
                save=True,
                name_filter={
                    "jsonl": self.tr("JSON Lines (*.jsonl)"),
                    "csv": self.tr("CSV (*.csv)"),
                    "warc": self.tr("WARC (*.warc.gz)"),
                }[file_format],
                suffix="warc.gz" if file_format == "warc" else file_format,
            )
        if path is None or self.session is not session:
            return None
        if inside(path, session.store_dir):
            await self.error(
                self.tr("Export"),
                self.tr("The file is inside the pool: write the export somewhere else."),
                ValueError(str(path)),
            )
            return None
        progress = QProgressDialog(self.tr("Exporting…"), self.tr("Cancel"), 0, 0, self)
        progress.setObjectName("export-progress")
        progress.setWindowTitle(self.tr("Export"))
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        if kind != "outcomes" and store is not None:
            progress.setMaximum(max(1, store.count()))
        self.export_progress = progress
        progress.show()
        try:
            n = await export_to_file(
                path, kind, file_format, store=store, frontier=session.frontier, progress=progress
            )
        except (CrawlerGuiError, OSError, ValueError) as exc:
            await self.error(self.tr("Export"), self.tr("The export was not written."), exc)
            return None
        finally:
            progress.close()
            progress.deleteLater()
        if n is None:
            self.statusBar().showMessage(self.tr("Export cancelled: nothing was written."), 10000)
            return None
        self.statusBar().showMessage(
            self.tr("Exported %1 records to %2")
            .replace("%1", fmt.count(n))
            .replace("%2", str(path)),
            10000,
        )
        log.info("exported %d %s records to %s", n, kind, path)
        return n

    async def save_report(self, path: Path | None = None) -> Path | None:
        """File → Save report…: the crawl report of ``crawler-gui report`` (one HTML file),
        gathered and written off the GUI thread behind a busy dialog. Attached to a crawl in
        another process, the crawl sends its counters (its page store is its own)."""
        session = self.session
        if session is None:
            return None
        if path is None:
            path = await dialogs.ask_file(
                self,
                self.tr("Save report"),
                save=True,
                name_filter=self.tr("HTML (*.html)"),
                suffix="html",
            )
        if path is None or self.session is not session:
            return None
        where = session.store_dir if is_local(session) else session.location
        if isinstance(where, Path) and inside(path, where):
            await self.error(
                self.tr("Save report"),
                self.tr("The file is inside the pool: write the report somewhere else."),
                ValueError(str(path)),
            )
            return None
        try:
            await dialogs.run_busy(
                self,
                self.tr("Save report"),
                self.tr("Writing the crawl report to %1…").replace("%1", str(path)),
                save_report(
                    session.frontier,
                    session.display_name,
                    path,
                    store=session.store if is_local(session) else None,
                    pending=session.crawler.pending_counters(),
                    state=session.crawler.state.value,
                ),
                cancel=False,
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Save report"), self.tr("The report was not saved."), exc)
            return None
        self.statusBar().showMessage(self.tr("Report saved to %1").replace("%1", str(path)), 10000)
        log.info("crawl report saved to %s", path)
        return path

    async def load_snapshot(self, path: Path | None = None, *, confirm: bool = True) -> int | None:
        if self.session is None:
            return None
        if path is None:
            path = await dialogs.ask_file(
                self,
                self.tr("Load pool snapshot"),
                save=False,
                name_filter=self.tr(SNAPSHOT_FILTER),
            )
        if path is None or self.session is None:
            return None
        crawler = self.session.crawler
        if crawler.state in (CrawlState.RUNNING, CrawlState.PAUSED):
            if confirm:
                answer = await dialogs.show_message(
                    self,
                    QMessageBox.Icon.Question,
                    self.tr("Load snapshot"),
                    self.tr(
                        "Loading a snapshot replaces the whole pool. The crawl is stopped "
                        "first. Continue?"
                    ),
                    buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                    default=QMessageBox.StandardButton.Cancel,
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return None
            await self.stop()
        if self.session is None:
            return None
        try:
            loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(path))
            n = int(
                await dialogs.run_busy(
                    self,
                    self.tr("Load snapshot"),
                    self.tr("Loading %1 into the pool…").replace("%1", str(path)),
                    self.session.frontier.load_snapshot(path),
                    cancel=False,  # the database swap runs to its end
                )
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(
                self.tr("Load snapshot"),
                self.tr("The snapshot was not loaded; the pool is unchanged."),
                exc,
            )
            return None
        self._version = None
        await self._offer_snapshot_scope(loaded, confirm=confirm)
        self.statusBar().showMessage(
            self.tr("Loaded %1 records from %2")
            .replace("%1", fmt.count(n))
            .replace("%2", str(path)),
            10000,
        )
        log.info("loaded %d records from %s", n, path)
        return n

    async def _offer_snapshot_scope(self, loaded: frozenset[str], *, confirm: bool) -> None:
        """A loaded snapshot's crawl covers sites this crawl does not: ask whether they join
        its scope (without them, every link of those sites' pages would be refused as
        off-site). Without ``confirm`` they join."""
        session = self.session
        if not is_local(session):  # (an attached crawl loads no snapshot)
            return
        new = sorted(loaded - session.crawler.scope.seed_domains)
        if not new:
            return
        if confirm:
            shown = ", ".join(new[:5]) + (", …" if len(new) > 5 else "")
            answer = await dialogs.show_message(
                self,
                QMessageBox.Icon.Question,
                self.tr("Load snapshot"),
                self.tr(
                    "The snapshot's crawl covers %1 site(s) this crawl does not: %2. Add them "
                    "to the crawl's scope, so that their links are followed?"
                )
                .replace("%1", fmt.count(len(new)))
                .replace("%2", shown),
                buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                default=QMessageBox.StandardButton.Yes,
            )
            if answer != QMessageBox.StandardButton.Yes or self.session is not session:
                return
        try:
            await session.crawler.add_scope_domains(new)
        except (CrawlerGuiError, OSError) as exc:
            await self.error(
                self.tr("Load snapshot"), self.tr("The crawl's scope was not changed."), exc
            )
            return
        log.info("%d site(s) of the snapshot joined the crawl's scope", len(new))

    async def open_redis_pool(self, url: str | None = None) -> bool:
        """Ask for a Redis pool URL (unless given) and open it like a pool directory."""
        if self._open_session is None:
            return False
        if url is None:
            current = self.session.location if self.session is not None else ""
            last = (
                current
                if isinstance(current, str)
                else str(self.qsettings.value(LAST_REDIS_KEY, "") or "")
            )
            url = await dialogs.RedisUrlDialog.ask(self, last)
        if url is None:
            return False
        problem = dialogs.redis_url_problem(url)
        if problem is not None:
            await self.error(
                self.tr("Open Redis pool"),
                self.tr("The pool could not be opened."),
                ValueError(problem),
            )
            return False
        return await self.open_pool(url.strip())

    async def open_pool(self, path: Path | str | None = None) -> bool:
        """Open a pool directory, or a Redis pool URL (``str`` starting with redis://)."""
        if self._open_session is None:
            return False
        if path is None:
            path = await dialogs.ask_directory(
                self, self.tr("Open URL pool"), str(self.session.location) if self.session else ""
            )
        if path is None:
            return False
        old = self.session
        if old is not None:
            self.set_session(None)
            await self.pages_pane.close_source()  # the index stops reading the store first
            await old.close()
        try:
            new = await dialogs.run_busy(
                self,
                self.tr("Open pool"),
                self.tr("Opening %1…").replace("%1", redact_url(str(path))),
                self._open_session(path, self.settings),
                cancel=False,  # a half-opened pool would have to be closed again
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Open pool"), self.tr("The pool could not be opened."), exc)
            if old is not None:
                again = old.location if isinstance(old.location, str) else Path(old.location)
                try:
                    self.set_session(await self._open_session(again, self.settings))
                except (CrawlerGuiError, OSError):
                    log.exception("could not reopen %s", redact_url(str(old.location)))
            return False
        self.set_session(new)
        if isinstance(path, str):
            # Never remember a secret in the settings (user:pass@, ?password=, ...): a URL
            # with one is not remembered, and one remembered before is forgotten.
            if redact_url(path) == path:
                self.qsettings.setValue(LAST_REDIS_KEY, path)
            else:
                self.qsettings.remove(LAST_REDIS_KEY)
        else:
            prefs.set_last_pool(self.qsettings, Path(path))
        log.info("opened pool %s", new.display_name)
        return True

    async def about(self) -> None:
        from crawler_gui import __version__

        await dialogs.show_message(
            self,
            QMessageBox.Icon.Information,
            self.tr("About Crawler GUI"),
            self.tr(
                "Crawler GUI %1\nA desktop monitor for long-running, polite news crawls "
                "over a durable URL pool."
            ).replace("%1", __version__),
        )

    async def error(self, title: str, text: str, exc: BaseException) -> None:
        log.error("%s: %s", text, exc)
        self.last_error = f"{text}\n{exc}"
        await dialogs.show_message(self, QMessageBox.Icon.Warning, title, text, detail=str(exc))

    def _task_failed(self, exc: BaseException) -> None:
        if isinstance(exc, CrawlerGuiError) and not self._closed:
            self.statusBar().showMessage(str(exc), 15000)

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


def app_icon() -> QIcon:
    """The application icon from ``crawler_gui.resources`` (SVG, drawn at any size)."""
    from importlib import resources

    ref = resources.files("crawler_gui.resources").joinpath("crawler-gui.svg")
    if isinstance(ref, Path) and ref.is_file():
        return QIcon(str(ref))
    try:
        pix = QPixmap()
        if pix.loadFromData(ref.read_bytes(), "SVG"):
            return QIcon(pix)
    except OSError:
        log.warning("application icon not found")
    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)
