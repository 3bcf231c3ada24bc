"""Tables of records that only grow at one end: the log and the articles found."""

from __future__ import annotations

import bisect
import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    Qt,
)

from crawler_gui.engine.extract.service import delay_seconds
from crawler_gui.gui import fmt
from crawler_gui.gui.models.keyed import (
    _ROW_FLAGS,
    SortRole,
    UrlRole,
    _Index,
)

# -- the log ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LogEntry:
    time: float
    level: int
    logger: str
    message: str


class LogBuffer(logging.Handler):
    """A logging handler that only queues records (any thread); the GUI drains it per tick."""

    def __init__(self, level: int = logging.INFO, maxlen: int = 5000) -> None:
        super().__init__(level)
        self._pending: deque[LogEntry] = deque(maxlen=maxlen)
        self._guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                msg = f"{msg} ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            entry = LogEntry(record.created, record.levelno, record.name, msg)
        except Exception:
            self.handleError(record)
            return
        with self._guard:
            self._pending.append(entry)

    def drain(self) -> list[LogEntry]:
        with self._guard:
            out = list(self._pending)
            self._pending.clear()
        return out


class RecordTableModel(QAbstractTableModel):
    """A bounded list of plain records, one column per header, no keys (the Log and Articles
    panes: rows only arrive and age out). Subclasses set ``_headers`` and give ``cell``."""

    def __init__(self, parent: QObject | None = None, maxlen: int = 2000) -> None:
        super().__init__(parent)
        self.maxlen = maxlen
        self._rows: list[Any] = []
        self._headers: tuple[str, ...] = ()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self._headers)
        ):
            return self._headers[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _ROW_FLAGS

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < len(self._rows) and 0 <= c < len(self._headers)):
            return None
        return self.cell(self._rows[r], c, role)

    def cell(self, row: Any, column: int, role: int) -> Any:
        """The value of ``row``'s ``column`` for ``role`` (None: nothing)."""
        raise NotImplementedError

    def column_texts(self, rows: int) -> list[list[str]]:
        """Each column's display texts in the first ``rows`` rows (to size columns)."""
        display = int(Qt.ItemDataRole.DisplayRole)
        first = self._rows[:rows]
        return [
            [str(v) for r in first if (v := self.cell(r, c, display)) is not None]
            for c in range(len(self._headers))
        ]


class LogModel(RecordTableModel):
    """Recent log records, bounded: the oldest rows are removed in one range."""

    def __init__(self, parent: QObject | None = None, maxlen: int = 2000) -> None:
        super().__init__(parent, maxlen)
        self._headers = (self.tr("Time"), self.tr("Level"), self.tr("Source"), self.tr("Message"))

    def cell(self, e: LogEntry, c: int, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if c == 0:
                return fmt.clock(e.time)
            if c == 1:
                return logging.getLevelName(e.level)
            if c == 2:
                return e.logger
            return e.message
        if role == SortRole:
            return (e.time, e.level, e.logger, e.message)[c]
        return None

    def entries(self) -> list[LogEntry]:
        return list(self._rows)

    def append(self, entries: Sequence[LogEntry]) -> None:
        if not entries:
            return
        entries = list(entries)[-self.maxlen :]
        overflow = len(self._rows) + len(entries) - self.maxlen
        if overflow > 0:
            self.beginRemoveRows(QModelIndex(), 0, overflow - 1)
            del self._rows[:overflow]
            self.endRemoveRows()
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(entries) - 1)
        self._rows.extend(entries)
        self.endInsertRows()


class ArticlesModel(RecordTableModel):
    """Articles found by the crawl, newest first, bounded (the engine's
    ``Articles.recent``, read on each refresh: plain data, no extraction here)."""

    def __init__(self, parent: QObject | None = None, maxlen: int = 2000) -> None:
        super().__init__(parent, maxlen)
        self._seen = 0  # how many of the engine's articles were taken so far
        self._headers = (
            self.tr("Found"),
            self.tr("Published"),
            self.tr("Delay"),
            self.tr("Host"),
            self.tr("Headline"),
            self.tr("Words"),
        )

    @staticmethod
    def delay_seconds(a: Any) -> float | None:
        """Seconds from publication to first fetch (None when the time or zone is unknown)."""
        return delay_seconds(a.published, a.found_at)

    def cell(self, a: Any, c: int, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if c == 0:
                return fmt.clock(a.found_at)
            if c == 1:
                return a.published or ""
            if c == 2:
                delay = self.delay_seconds(a)
                return fmt.duration(delay) if delay is not None else ""
            if c == 3:
                return a.host
            if c == 4:
                return a.title if role == Qt.ItemDataRole.DisplayRole else a.url
            return fmt.count(a.words)
        if role == SortRole:
            if c == 2:
                return self.delay_seconds(a) or 0.0
            return (a.found_at, a.published or "", None, a.host, a.title, a.words)[c]
        if role == UrlRole:
            return a.url
        return None

    def update_from(self, recent: Sequence[Any], total: int) -> None:
        """Take the articles found since the last call (``recent``: the engine's newest
        articles, oldest first; ``total``: how many it has found in all)."""
        new = min(total - self._seen, len(recent))
        self._seen = total
        if new <= 0:
            return
        # Newest first by the time each was found. Pages are extracted by several workers, so
        # one found earlier may come after one found later: it goes in its place.
        fresh = sorted(list(recent)[-new:], key=lambda a: a.found_at, reverse=True)
        rows = self._rows
        top = rows[0].found_at if rows else float("-inf")
        k = next((i for i, a in enumerate(fresh) if a.found_at < top), len(fresh))
        if k:
            self.beginInsertRows(QModelIndex(), 0, k - 1)
            rows[:0] = fresh[:k]
            self.endInsertRows()
        for a in fresh[k:]:
            i = bisect.bisect_right([-r.found_at for r in rows], -a.found_at)
            self.beginInsertRows(QModelIndex(), i, i)
            rows.insert(i, a)
            self.endInsertRows()
        if len(self._rows) > self.maxlen:
            self.beginRemoveRows(QModelIndex(), self.maxlen, len(self._rows) - 1)
            del self._rows[self.maxlen :]
            self.endRemoveRows()

    def reset(self) -> None:
        self.beginResetModel()
        self._rows = []
        self._seen = 0
        self.endResetModel()

    def article(self, row: int) -> Any:
        return self._rows[row]
