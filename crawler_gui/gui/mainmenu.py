"""The window's actions, its menus and toolbar, which of them are enabled in each crawl state,
and Help → About. A mixin of :class:`~crawler_gui.gui.mainwindow.MainWindow`; the handlers
the actions call are in ``crawlactions`` and ``fileactions``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QStyle

from crawler_gui.engine.settings import CrawlState
from crawler_gui.gui.dialogs.running import show_message
from crawler_gui.gui.fileactions import FileActions
from crawler_gui.gui.protocols import is_attached

log = logging.getLogger(__name__)

_RESTARTABLE = (CrawlState.STOPPED, CrawlState.FINISHED, CrawlState.FAILED)
#: Whether the overview shows totals and rates only (``MainWindow.act_compact``).
COMPACT_KEY = "view/compact_overview"
#: How often the window reads the pool and repaints (``MainWindow.act_speeds``), in ms.
REFRESH_KEY = "view/refresh_ms"
#: The update speeds offered (View -> Update speed), as a task manager offers them: each
#: refresh reads the pool's snapshot and repaints every pane that changed, on the crawl's own
#: thread, so a slower speed leaves the crawl more of a small machine.
REFRESH_SPEEDS = (500, 1000, 3000)
#: The speed a new user gets: in-flight timers and countdowns count whole seconds.
DEFAULT_REFRESH_MS = 1000


class MainMenu(FileActions):
    """Builds and updates the window's actions (``act_*``), menus and toolbar."""

    def _set_compact(self) -> None:
        compact = self.act_compact.isChecked()
        self.overview.set_compact(compact)
        self.qsettings.setValue(COMPACT_KEY, compact)

    def _set_refresh(self, ms: int) -> None:
        self.timer.setInterval(ms)
        self.qsettings.setValue(REFRESH_KEY, ms)

    def _build_speed_menu(self, menu: QMenu) -> None:
        labels = {
            500: self.tr("Fast: twice a second"),
            1000: self.tr("Normal: every second"),
            3000: self.tr("Slow: every 3 seconds"),
        }
        group = QActionGroup(self)
        group.setExclusive(True)
        self.act_speeds: dict[int, QAction] = {}
        for ms in REFRESH_SPEEDS:
            act = QAction(labels[ms], self)
            act.setCheckable(True)
            act.setChecked(ms == self.timer.interval())
            act.triggered.connect(lambda _checked=False, ms=ms: self._set_refresh(ms))
            group.addAction(act)
            menu.addAction(act)
            self.act_speeds[ms] = act

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
        speed_menu = view_menu.addMenu(self.tr("Update speed"))
        speed_menu.setObjectName("menu-update-speed")
        speed_menu.setToolTipsVisible(True)
        self._build_speed_menu(speed_menu)
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
        # (an attached window's pages pane has no store: nothing to rebuild there)
        self.pages_pane.set_crawling(
            has and state in (CrawlState.RUNNING, CrawlState.PAUSED, CrawlState.STOPPING)
        )

    async def about(self) -> None:
        from crawler_gui import __version__

        await show_message(
            self,
            QMessageBox.Icon.Information,
            self.tr("About Crawler GUI"),
            self.tr(
                "Crawler GUI %1\nA desktop monitor for long-running, polite news crawls "
                "over a durable URL pool."
            ).replace("%1", __version__),
        )
