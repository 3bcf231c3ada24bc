"""The Host detail window: one host's waiting URLs, its recent results (from the page store), its
failures, its robots.txt, why it waits, and what the user may do to it (pause, a delay of its
own, retry its failures, forget its queue, open its robots.txt).

Everything goes through the crawl's run-control API (``engine.crawler.Crawler``: ``pause_host``,
``set_host_delay``, ``host_waiting``...), never the pool directly: the pool reads a page of a
host's queue in a worker thread (LevelDB) or over the network (Redis), so the window never
waits on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.frontier import FailedRow, HostRow, WaitingPage
from crawler_gui.engine.store import PageRow
from crawler_gui.gui import fmt, why
from crawler_gui.gui.dialogs.running import show_message

__all__ = ["HostControl", "HostDetailDialog"]


Spawn = Callable[[Coroutine[Any, Any, Any], str], Any]
#: Reads a host's newest fetched pages (the window's page store and search index).
Results = Callable[[str], Awaitable[list[PageRow]]]


class HostControl(Protocol):
    """The per-host part of the crawl's run-control API (``engine.crawler.Crawler``)."""

    async def pause_host(self, host: str, paused: bool) -> None: ...
    async def set_host_delay(self, host: str, seconds: float | None) -> None: ...
    async def retry_failed_host(self, host: str) -> int: ...
    async def forget_host_waiting(self, host: str) -> int: ...
    async def host_waiting(self, host: str, page: int, page_size: int = 50) -> WaitingPage: ...
    async def host_failed(self, host: str, limit: int = 200) -> list[FailedRow]: ...
    async def host_robots(self, host: str) -> Any: ...


def _item(text: str) -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    it.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if len(text) > 30:
        it.setToolTip(text)
    return it


def _table(parent: QWidget, name: str, headers: list[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers), parent)
    t.setObjectName(name)
    t.setHorizontalHeaderLabels(headers)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setStretchLastSection(False)
    t.horizontalHeader().setSectionResizeMode(0, t.horizontalHeader().ResizeMode.Stretch)
    return t


class HostDetailDialog(QDialog):
    """One host, live: the window feeds it the host's row at every refresh (:meth:`update_row`)."""

    PAGE_SIZE = 50
    #: "Its pages": the host's fetched pages, newest first, in the Pages pane (its results).
    pages_requested = Signal(str)
    #: A recent result was double-clicked: its Page detail (the fetch's sequence number).
    page_requested = Signal(int)

    def __init__(
        self,
        host: str,
        control: HostControl,
        spawn: Spawn,
        parent: QWidget | None = None,
        *,
        max_in_flight: int = 1,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("host-detail")
        self.host = host
        self.control = control
        self._spawn = spawn
        self.max_in_flight = max_in_flight
        self.row: HostRow | None = None
        #: Where the Results tab reads from (set by the window when it has a page store).
        self.results: Results | None = None
        self._result_seqs: list[int] = []
        self.page = 0
        self.total = 0
        self.setWindowTitle(self.tr("Host %1").replace("%1", host))
        self.resize(900, 600)

        self.why_label = QLabel(self)
        self.why_label.setObjectName("host-why")
        self.why_label.setWordWrap(True)
        self.why_label.setTextFormat(Qt.TextFormat.PlainText)
        self.counts_label = QLabel(self)
        self.counts_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("host-status")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)

        self.pause_button = QPushButton(self.tr("Pause this host"), self)
        self.pause_button.setObjectName("host-pause")
        self.pause_button.setToolTip(
            self.tr("No request goes to this host until it is resumed (kept in the pool)")
        )
        self.pause_button.clicked.connect(self._toggle_pause)
        self.delay_spin = QDoubleSpinBox(self)
        self.delay_spin.setObjectName("host-delay")
        self.delay_spin.setRange(0.0, 3600.0)
        self.delay_spin.setDecimals(1)
        self.delay_spin.setSuffix(self.tr(" s"))
        self.delay_spin.setToolTip(
            self.tr(
                "Minimum seconds between two requests to this host, in place of the crawl's "
                "minimum (robots.txt's Crawl-delay still holds)"
            )
        )
        self.delay_button = QPushButton(self.tr("Set delay"), self)
        self.delay_button.setObjectName("host-set-delay")
        self.delay_button.clicked.connect(
            lambda: self._run(self._set_delay(self.delay_spin.value()), "host delay")
        )
        self.default_delay_button = QPushButton(self.tr("Default delay"), self)
        self.default_delay_button.setObjectName("host-default-delay")
        self.default_delay_button.clicked.connect(
            lambda: self._run(self._set_delay(None), "host delay")
        )
        self.retry_button = QPushButton(self.tr("Retry failed URLs"), self)
        self.retry_button.setObjectName("host-retry-failed")
        self.retry_button.clicked.connect(lambda: self._run(self._retry_failed(), "retry failed"))
        self.forget_button = QPushButton(self.tr("Forget waiting URLs…"), self)
        self.forget_button.setObjectName("host-forget")
        self.forget_button.clicked.connect(lambda: self._run(self._forget(), "forget waiting"))
        self.robots_button = QPushButton(self.tr("Open robots.txt"), self)
        self.robots_button.setObjectName("host-open-robots")
        self.robots_button.clicked.connect(self.open_robots)
        self.pages_button = QPushButton(self.tr("Its pages"), self)
        self.pages_button.setObjectName("host-pages")
        self.pages_button.setToolTip(
            self.tr("Its fetched pages, newest first, with their status, in the Pages pane")
        )
        self.pages_button.clicked.connect(lambda: self.pages_requested.emit(self.host))
        self.pages_button.setVisible(False)  # shown by the window when it has a page store

        actions = QHBoxLayout()
        for w in (
            self.pause_button,
            self.delay_spin,
            self.delay_button,
            self.default_delay_button,
            self.retry_button,
            self.forget_button,
            self.robots_button,
            self.pages_button,
        ):
            actions.addWidget(w)
        actions.addStretch(1)

        self.tabs = QTabWidget(self)
        waiting = QWidget(self.tabs)
        self.waiting_table = _table(
            waiting,
            "host-waiting",
            [self.tr("URL"), self.tr("Depth"), self.tr("Added"), self.tr("Attempts")],
        )
        self.prev_button = QPushButton(self.tr("Previous"), waiting)
        self.prev_button.setObjectName("host-prev")
        self.prev_button.clicked.connect(lambda: self.load_waiting(self.page - 1))
        self.next_button = QPushButton(self.tr("Next"), waiting)
        self.next_button.setObjectName("host-next")
        self.next_button.clicked.connect(lambda: self.load_waiting(self.page + 1))
        self.page_label = QLabel(waiting)
        self.page_label.setObjectName("host-page")
        paging = QHBoxLayout()
        paging.addWidget(self.prev_button)
        paging.addWidget(self.page_label)
        paging.addWidget(self.next_button)
        paging.addStretch(1)
        wl = QVBoxLayout(waiting)
        wl.addWidget(self.waiting_table, 1)
        wl.addLayout(paging)
        self.tabs.addTab(waiting, self.tr("Waiting URLs"))
        self.results_table = _table(
            self.tabs,
            "host-results",
            [self.tr("URL"), self.tr("Status"), self.tr("Kind"), self.tr("Fetched")],
        )
        self.results_table.setToolTip(
            self.tr("Its newest fetched pages, each URL once; double-click for the page's detail")
        )
        self.results_table.doubleClicked.connect(
            lambda index: (
                self.page_requested.emit(self._result_seqs[index.row()])
                if 0 <= index.row() < len(self._result_seqs)
                else None
            )
        )
        self.tabs.addTab(self.results_table, self.tr("Results"))
        self.failed_table = _table(
            self.tabs,
            "host-failed",
            [self.tr("URL"), self.tr("Error"), self.tr("Attempts"), self.tr("When")],
        )
        self.tabs.addTab(self.failed_table, self.tr("Failures"))
        self.robots_text = QPlainTextEdit(self.tabs)
        self.robots_text.setObjectName("host-robots")
        self.robots_text.setReadOnly(True)
        self.tabs.addTab(self.robots_text, self.tr("robots.txt"))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.why_label)
        lay.addWidget(self.counts_label)
        lay.addLayout(actions)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(self.status_label)
        lay.addWidget(buttons)
        self._show_paused(False)
        self._robots: Any = None  #: the robots.txt the crawl last fetched (RobotsText)

    # ---- live state ---------------------------------------------------------------------
    def update_row(self, row: HostRow | None, now: float) -> None:
        """The host's row of the latest snapshot (None while the pool has not shown it)."""
        if row is None:
            return
        self.row = row
        self.why_label.setText(
            self.tr("Why: %1").replace("%1", why.host(row, now, self.max_in_flight) or "–")
        )
        self.counts_label.setText(
            self.tr("%1 waiting, %2 in flight, %3 done, %4 failed, %5 retrying")
            .replace("%1", fmt.count(row.waiting))
            .replace("%2", fmt.count(row.in_flight))
            .replace("%3", fmt.count(row.done))
            .replace("%4", fmt.count(row.failed))
            .replace("%5", fmt.count(row.retrying))
            + (
                self.tr("; last result %1").replace("%1", row.last_status)
                if row.last_status
                else ""
            )
        )
        self._show_paused(row.paused)

    def _show_paused(self, paused: bool) -> None:
        self._paused = paused
        self.pause_button.setText(
            self.tr("Resume this host") if paused else self.tr("Pause this host")
        )

    def _run(self, coro: Coroutine[Any, Any, Any], name: str) -> Any:
        return self._spawn(coro, name)

    # ---- reading ------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the host's queue page, results, failures and robots.txt again."""
        self.load_waiting(self.page)
        self._run(self.load_results(), "host results")
        self._run(self._load_failed(), "host failures")
        self._run(self.show_robots(), "host robots.txt")

    def load_waiting(self, page: int) -> Any:
        return self._run(self._load_waiting(max(0, page)), "host waiting URLs")

    async def _load_waiting(self, page: int) -> None:
        result = await self.control.host_waiting(self.host, page, self.PAGE_SIZE)
        if page > 0 and not result.rows and result.total:  # the queue shrank: its last page
            page = max(0, (result.total - 1) // self.PAGE_SIZE)
            result = await self.control.host_waiting(self.host, page, self.PAGE_SIZE)
        self.page, self.total = page, result.total
        t = self.waiting_table
        t.setRowCount(len(result.rows))
        for i, r in enumerate(result.rows):
            t.setItem(i, 0, _item(r.url))
            t.setItem(i, 1, _item(str(r.depth)))
            t.setItem(i, 2, _item(fmt.clock(r.added)))
            t.setItem(i, 3, _item(str(r.attempts)))
        self._show_page_label()

    def _pages(self) -> int:
        return max(1, -(-self.total // self.PAGE_SIZE))

    def _show_page_label(self) -> None:
        self.page_label.setText(
            self.tr("page %1 of %2 (%3 waiting)")
            .replace("%1", str(self.page + 1))
            .replace("%2", str(self._pages()))
            .replace("%3", fmt.count(self.total))
        )
        self.prev_button.setEnabled(self.page > 0)
        self.next_button.setEnabled(self.page + 1 < self._pages())

    def _kind_text(self, kind: str) -> str:
        return {
            "article": self.tr("article"),
            "list": self.tr("list"),
            "other": self.tr("other"),
        }.get(kind, kind or "—")

    async def load_results(self) -> None:
        """The host's newest fetched pages: URL, status, kind, when (none without a store)."""
        rows = await self.results(self.host) if self.results is not None else []
        t = self.results_table
        t.setRowCount(len(rows))
        self._result_seqs = [r.seq for r in rows]
        for i, r in enumerate(rows):
            rec = r.record
            t.setItem(i, 0, _item(rec.final_url))
            status = _item(str(rec.status) if rec.status else self.tr("no response"))
            t.setItem(i, 1, status)
            t.setItem(i, 2, _item(self._kind_text(r.kind)))
            t.setItem(i, 3, _item(fmt.clock(rec.fetched_at)))
        self.tabs.setTabText(
            self.tabs.indexOf(self.results_table),
            self.tr("Results (%1)").replace("%1", fmt.count(len(rows))),
        )

    async def _load_failed(self) -> None:
        rows = await self.control.host_failed(self.host)
        t = self.failed_table
        t.setRowCount(len(rows))
        for i, r in enumerate(rows):
            what = why.error(r.reason, r.status, r.message)
            if r.refused:
                what = self.tr("refused: %1").replace("%1", what)
            item = _item(what)
            item.setToolTip(r.message)
            t.setItem(i, 0, _item(r.url))
            t.setItem(i, 1, item)
            t.setItem(i, 2, _item(str(r.attempts)))
            t.setItem(i, 3, _item(fmt.clock(r.changed)))

    async def show_robots(self) -> None:
        kept = self._robots = await self.control.host_robots(self.host)
        if kept is None:
            self.robots_text.setPlainText(
                self.tr("This crawl has not fetched robots.txt of this host lately.")
            )
            return
        head = (
            self.tr("robots.txt unreachable (status %1): every page of the host waits")
            if kept.unreachable
            else self.tr("status %1")
        ).replace("%1", str(kept.status) if kept.status is not None else self.tr("none"))
        lines = [kept.url, head, self.tr("fetched at %1").replace("%1", fmt.clock(kept.fetched))]
        if kept.crawl_delay is not None:
            lines.append(self.tr("Crawl-delay: %1").replace("%1", fmt.seconds(kept.crawl_delay)))
        self.robots_text.setPlainText("\n".join(lines) + "\n\n" + kept.text)

    def robots_url(self) -> str:
        """The host's robots.txt URL: as fetched, else by the scheme of its URLs (http)."""
        kept = self._robots
        if kept is not None:
            return str(kept.url)
        scheme = "http"
        first = self.waiting_table.item(0, 0) if self.waiting_table.rowCount() else None
        if first is not None:
            scheme = first.text().split("://", 1)[0]
        return f"{scheme}://{self.host}/robots.txt"

    def open_robots(self) -> None:
        target = fmt.web_url(self.robots_url())  # http and https only
        if target is not None:
            QDesktopServices.openUrl(target)

    # ---- actions ------------------------------------------------------------------------
    def _toggle_pause(self) -> None:
        self._run(self._pause(not self._paused), "pause host")

    async def _pause(self, paused: bool) -> None:
        await self.control.pause_host(self.host, paused)
        self._show_paused(paused)
        self.status_label.setText(self.tr("Host paused.") if paused else self.tr("Host resumed."))

    async def _set_delay(self, seconds: float | None) -> None:
        await self.control.set_host_delay(self.host, seconds)
        if seconds is None:
            self.status_label.setText(self.tr("The crawl's own delay again."))
        else:
            self.status_label.setText(
                self.tr("At least %1 between two requests.").replace("%1", fmt.seconds(seconds))
            )

    async def _retry_failed(self) -> None:
        n = await self.control.retry_failed_host(self.host)
        self.status_label.setText(self.tr("%1 failed URLs queued again.").replace("%1", str(n)))
        await self._load_failed()
        await self._load_waiting(self.page)

    async def _forget(self) -> None:
        waiting = self.row.waiting if self.row is not None else self.total
        answer = await show_message(
            self,
            QMessageBox.Icon.Question,
            self.tr("Forget waiting URLs"),
            self.tr(
                "Forget the %1 URLs waiting for %2? They leave the pool; a link found later "
                "queues one again."
            )
            .replace("%1", fmt.count(waiting))
            .replace("%2", self.host),
            buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            default=QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        n = await self.control.forget_host_waiting(self.host)
        self.status_label.setText(self.tr("%1 waiting URLs forgotten.").replace("%1", str(n)))
        await self._load_waiting(0)

    async def loaded(self) -> None:
        """Read everything once (the window awaits it when it opens the dialog)."""
        await asyncio.gather(
            self._load_waiting(0), self.load_results(), self._load_failed(), self.show_robots()
        )
