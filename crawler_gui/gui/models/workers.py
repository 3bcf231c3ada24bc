"""The Workers pane of a shared pool: heartbeats and leases per worker id."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QObject,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from crawler_gui.core.frontier import (
    HEARTBEAT_SECONDS,
    SILENT_AFTER,
    PendingRow,
    WorkerRow,
)
from crawler_gui.gui import fmt
from crawler_gui.gui.models.keyed import (
    _FONT,
    _FOREGROUND,
    _TOOLTIP,
    Column,
    KeyedTableModel,
    _Index,
)


class WorkerEntry(NamedTuple):
    """A row of the Workers pane: a worker's last heartbeat and the leases it holds now."""

    worker: str
    machine: str
    pid: int
    state: str
    started: float
    last_seen: float
    pages: int
    rate: float
    in_flight: int  #: leases it holds in the last snapshot
    heard: bool  #: False: it holds leases but sent no heartbeat (an older version, or gone)


#: The warning colour of a silent worker's row: readable on light and dark palettes.
SILENT_COLOR = QColor(214, 92, 0)


class WorkersModel(KeyedTableModel):
    """The workers of a shared pool, one row per worker id: their heartbeats (read every few
    seconds, :meth:`set_workers`) and how many leases each holds (every tick,
    :meth:`set_pending`). A worker not heard from for ``SILENT_AFTER`` seconds is "silent",
    whatever it last reported, and drawn in a warning colour."""

    URL_FIELD = None
    LIVE = True  # "3 s ago" and silence depend on the time
    PLAIN_CELLS = False  # a silent worker's row has a colour and a bold state

    STATE_COLUMN = 2
    SEEN_COLUMN = 3

    def __init__(self, parent: QObject | None = None) -> None:
        self._workers: tuple[WorkerRow, ...] = ()
        self._leases: dict[str, int] = {}
        self._bold: QFont | None = None
        #: The worker id of this window's own pool client (marked in the Worker column).
        self.own_worker = ""
        super().__init__(parent)
        self._states = {
            "running": self.tr("running"),
            "paused": self.tr("paused"),
            "stopping": self.tr("stopping"),
            "stopped": self.tr("stopped"),
            "finished": self.tr("finished"),
            "failed": self.tr("failed"),
            "idle": self.tr("idle"),
        }

    def key(self, row: WorkerEntry) -> str:
        return row.worker

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("Worker"), self._worker_text),
            Column(self.tr("Machine"), lambda r, n: r.machine),
            Column(
                self.tr("State"),
                self.state_text,
                tooltip=self.tr(
                    "What the worker last reported; silent: no heartbeat for %1"
                ).replace("%1", fmt.duration(SILENT_AFTER)),
                live=True,
            ),
            Column(
                self.tr("Last seen"),
                self._seen_text,
                lambda r, n: n - r.last_seen if r.heard else float("inf"),
                True,
                tooltip=self.tr("Time since its last heartbeat (one every %1)").replace(
                    "%1", fmt.duration(HEARTBEAT_SECONDS)
                ),
                live=True,
            ),
            Column(
                self.tr("Pages fetched"),
                lambda r, n: fmt.count(r.pages) if r.heard else "",
                lambda r, n: r.pages,
                True,
                tooltip=self.tr("Pages it fetched since it started"),
            ),
            Column(
                self.tr("Pages/s"),
                lambda r, n: fmt.rate(r.rate) if r.heard else "",
                lambda r, n: r.rate,
                True,
                tooltip=self.tr("Its pages per second over the last seconds"),
            ),
            Column(
                self.tr("In flight"),
                lambda r, n: fmt.count(r.in_flight),
                lambda r, n: r.in_flight,
                True,
                tooltip=self.tr("URLs it holds leases on now"),
            ),
        )

    # -- texts --------------------------------------------------------------------------------
    @staticmethod
    def is_silent(row: WorkerEntry, now: float) -> bool:
        """No heartbeat for more than ``SILENT_AFTER`` seconds: dead, hung or cut off."""
        return row.heard and now - row.last_seen > SILENT_AFTER

    def state_text(self, row: WorkerEntry, now: float) -> str:
        if not row.heard:
            return self.tr("no heartbeat")
        if self.is_silent(row, now):
            return self.tr("silent")
        return self._states.get(row.state, row.state)

    def _worker_text(self, row: WorkerEntry, now: float) -> str:
        if row.worker and row.worker == self.own_worker:
            return self.tr("%1 (this window)").replace("%1", row.worker)
        return row.worker

    def _seen_text(self, row: WorkerEntry, now: float) -> str:
        if not row.heard:
            return ""
        return self.tr("%1 ago").replace("%1", fmt.duration(now - row.last_seen))

    def search_text(self, row: WorkerEntry) -> str:
        """Id, machine and state as shown ("silent" finds the silent ones)."""
        return f"{row.worker}\n{row.machine}\n{self.state_text(row, self._now)}".lower()

    def tooltip(self, row: WorkerEntry, column: int, now: float) -> str | None:
        if not row.heard:
            return self.tr(
                "This worker holds leases but sent no heartbeat: a worker of an older "
                "version, or one gone for more than a day."
            )
        if column == self.STATE_COLUMN and self.is_silent(row, now):
            return (
                self.tr(
                    "No heartbeat for %1: the worker may be dead, hung or cut off from the "
                    "pool. It last reported: %2."
                )
                .replace("%1", fmt.duration(now - row.last_seen))
                .replace("%2", self._states.get(row.state, row.state))
            )
        if column == self.SEEN_COLUMN:
            return fmt.clock(row.last_seen)
        return (
            self.tr("Process %1 on %2, started %3")
            .replace("%1", str(row.pid))
            .replace("%3", fmt.clock(row.started))
            .replace("%2", row.machine)
        )

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role in (_FOREGROUND, _FONT, _TOOLTIP):
            r, c = index.row(), index.column()
            if not (0 <= r < len(self._rows) and 0 <= c < len(self._columns)):
                return None
            row, now = self._rows[r], self._now
            if role == _TOOLTIP:
                return self.tooltip(row, c, now)
            if not self.is_silent(row, now):
                return None
            if role == _FOREGROUND:
                return QBrush(SILENT_COLOR)
            if c != self.STATE_COLUMN:
                return None
            if self._bold is None:
                self._bold = QFont()
                self._bold.setBold(True)
            return self._bold
        return super().data(index, role)

    # -- updating -----------------------------------------------------------------------------
    def set_workers(self, workers: Iterable[WorkerRow], *, now: float) -> None:
        """The heartbeats just read (``RedisPool.workers()``): every worker, complete."""
        self._workers = tuple(workers)
        self._merge(now)

    def set_pending(self, pending: Iterable[PendingRow], *, now: float) -> None:
        """A snapshot's leases: counted per worker for the In flight column."""
        leases: dict[str, int] = {}
        for p in pending:
            if p.worker:
                leases[p.worker] = leases.get(p.worker, 0) + 1
        self._leases = leases
        self._merge(now)

    def _merge(self, now: float) -> None:
        leases = self._leases
        rows = [WorkerEntry(*w, leases.get(w.worker, 0), True) for w in self._workers]
        heard = {w.worker for w in self._workers}
        rows += [
            WorkerEntry(worker, "", 0, "", 0.0, 0.0, 0, 0.0, n, False)
            for worker, n in sorted(leases.items())
            if worker not in heard
        ]
        self.update(rows, now=now)

    def clear(self) -> None:
        self._workers = ()
        self._leases = {}
        super().clear()
