"""Table models: thin adapters from the pool's snapshot rows to Qt views.

Each model keeps its rows in a stable order keyed by host or URL (new rows are appended,
removed rows are removed in contiguous ranges), so rows never jump under the cursor. One call of
:meth:`KeyedTableModel.update` per refresh tick emits at most one ranged ``dataChanged``, one
``rowsInserted`` and one ``rowsRemoved`` per contiguous removed range -- never one signal per URL.

Sorting and filtering are done here, in Python, and the views show these models directly, with
no ``QSortFilterProxyModel`` in between (it would call :meth:`KeyedTableModel.data` from C++ once
per comparison, once per row at every change of the layout and once per painted cell: tens of
milliseconds per tick on 10,000 hosts). :meth:`KeyedTableModel.sort` and
:meth:`KeyedTableModel.set_filter` keep the shown rows filtered and in the asked order (one
``layoutChanged`` per tick when the order moved, instead of the ``dataChanged``).
"""

from __future__ import annotations

import bisect
import heapq
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from crawler_gui.core.frontier import (
    HEARTBEAT_SECONDS,
    SILENT_AFTER,
    HostRow,
    HubRow,
    PendingRow,
    WorkerRow,
)
from crawler_gui.engine.extract.service import delay_seconds
from crawler_gui.gui import fmt, why

log = logging.getLogger(__name__)

#: Role giving a value to sort by (numbers sort as numbers).
SortRole = Qt.ItemDataRole.UserRole + 1
#: Role giving a fraction 0..1 for a progress-bar delegate (None: draw as text).
ProgressRole = Qt.ItemDataRole.UserRole + 2
#: Role giving the row's key (host or URL).
KeyRole = Qt.ItemDataRole.UserRole + 3
#: Role giving the URL of the row when it has one.
UrlRole = Qt.ItemDataRole.UserRole + 4
#: Role giving the text a filter searches (the row's non-live columns, lower case, one per line).
SearchRole = Qt.ItemDataRole.UserRole + 5

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_SORT = int(SortRole)
_PROGRESS = int(ProgressRole)
_KEY = int(KeyRole)
_URL = int(UrlRole)
_SEARCH = int(SearchRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_ROLES = frozenset((_DISPLAY, _TOOLTIP, _ALIGN, _SORT, _PROGRESS, _KEY, _URL, _SEARCH))

_Index = QModelIndex | QPersistentModelIndex
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
)


#: A sorted table with more rows than this re-sorts at most once per RESORT_SECONDS.
RESORT_LARGE = 2000
RESORT_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    display: Callable[[Any, float], str]
    sort: Callable[[Any, float], Any] | None = None
    numeric: bool = False
    progress: Callable[[Any, float], float | None] | None = None
    tooltip: str = ""
    #: The text depends on the current time (countdowns): not searched by the filter.
    live: bool = False


def ranges(indices: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted indices -> contiguous ``(first, last)`` ranges."""
    out: list[tuple[int, int]] = []
    for i in indices:
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


class KeyedTableModel(QAbstractTableModel):
    """Rows keyed by a string. Every row the pool gave is kept (:meth:`get`, :meth:`total`);
    the view is shown the rows that pass the filter (:meth:`set_filter`), in the sort order
    (:meth:`sort`), or in first-seen order when unsorted. Subclasses give columns and the key.

    The view reads this model directly: filtering and sorting here, over Python lists, cost
    milliseconds for 10,000 rows; a ``QSortFilterProxyModel`` in between would call into
    Python once per row on every change of the layout and once per painted cell."""

    #: True when some column depends on the current time (elapsed, countdowns): every tick then
    #: repaints all rows with one ranged ``dataChanged``.
    LIVE: ClassVar[bool] = False
    URL_FIELD: ClassVar[str | None] = "url"
    #: The row fields the filter box searches; empty: every non-live column as displayed.
    SEARCH_FIELDS: ClassVar[tuple[str, ...]] = ()
    #: A cell shows its text and nothing more (no colour or font of its own): a view may
    #: paint it from :meth:`cell_text` (``widgets.TextDelegate``).
    PLAIN_CELLS: ClassVar[bool] = True

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: every row by key, in first-seen order (a key removed and seen again is new)
        self._all: dict[str, Any] = {}
        #: the rows shown: those that pass the filter, in the view's order
        self._rows: list[Any] = []
        self._index: dict[str, int] = {}
        self._now = 0.0
        self._columns: tuple[Column, ...] = self.columns()
        self._align = tuple(int(_RIGHT if c.numeric else _LEFT) for c in self._columns)
        self._search: dict[str, tuple[Any, str]] = {}
        #: each shown row's texts at the time they were last computed (row, now, texts), and
        #: the texts last given to a view (what changed since then is repainted)
        self._texts: dict[str, tuple[Any, float, tuple[str, ...]]] = {}
        self._painted: dict[str, tuple[str, ...]] = {}
        self._live_columns = [i for i, c in enumerate(self._columns) if c.live]
        self._progress_columns = [i for i, c in enumerate(self._columns) if c.progress]
        self._needle = ""
        #: a row changed since the last re-sort or re-filter (its place or its match may too)
        self._stale = False
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._last_resort = 0.0

    # -- subclass hooks -------------------------------------------------------------------
    def columns(self) -> tuple[Column, ...]:
        raise NotImplementedError

    def key(self, row: Any) -> str:
        return str(row.url)

    # -- Qt model API ---------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        col = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.header
        if role == Qt.ItemDataRole.ToolTipRole and col.tooltip:
            return col.tooltip
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called from C++ for every painted cell and every role the delegate asks for: the
        # roles this model has no answer for leave before touching the index.
        if role not in _ROLES:
            return None
        r, c = index.row(), index.column()  # -1 for an invalid index; a table has no children
        rows = self._rows
        if not (0 <= r < len(rows) and 0 <= c < len(self._columns)):
            return None
        if role == _SEARCH:
            return self.search_text(rows[r])
        row, col = rows[r], self._columns[c]
        if role == _DISPLAY:
            return self._texts_of(row)[c]
        if role == _ALIGN:
            return self._align[c]
        if role == _SORT:
            return (col.sort or col.display)(row, self._now)
        if role == _PROGRESS:
            return col.progress(row, self._now) if col.progress else None
        if role == _TOOLTIP:
            text = col.display(row, self._now)
            return text if len(text) > 30 else None
        if role == _KEY:
            return self.key(row)
        if role == _URL:
            return getattr(row, self.URL_FIELD, None) if self.URL_FIELD else None
        return None

    def multiData(self, index: _Index, roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:
        """Every role a delegate asks to paint one cell (font, alignment, colours, check
        state, icon, text, background) in one call from Qt into Python, instead of one call
        per role: a table repaint makes about a fifth of the calls."""
        self.fill_roles(index, roleDataSpan)

    def fill_roles(self, index: _Index, span: QModelRoleDataSpan | QModelRoleData) -> None:
        """:meth:`data` for each role of ``span``. A subclass with its own ``data`` gets it
        asked role by role; otherwise the cell's row and column are looked up once for all
        roles (a view asks seven per painted cell, and answers two of them)."""
        cells = [span] if isinstance(span, QModelRoleData) else span
        r, c = index.row(), index.column()
        rows = self._rows
        if type(self).data is not KeyedTableModel.data or not (
            0 <= r < len(rows) and 0 <= c < len(self._columns)
        ):
            data = self.data
            for role_data in cells:  # type: ignore[union-attr]  # (the stubs lack __iter__)
                value = data(index, role_data.role())
                if value is None:
                    role_data.clearData()
                else:
                    role_data.setData(value)
            return
        row, col, now = rows[r], self._columns[c], self._now
        for role_data in cells:  # type: ignore[union-attr]
            role = role_data.role()
            if role == _DISPLAY:
                role_data.setData(self._texts_of(row)[c])
            elif role == _ALIGN:
                role_data.setData(self._align[c])
            elif role == _PROGRESS and col.progress is not None:
                value = col.progress(row, now)
                if value is None:
                    role_data.clearData()
                else:
                    role_data.setData(value)
            elif role in _ROLES and role != _PROGRESS:
                value = self.data(index, role)
                if value is None:
                    role_data.clearData()
                else:
                    role_data.setData(value)
            else:
                role_data.clearData()

    def search_text_at(self, r: int) -> str:
        """The filter's text for shown row number ``r`` ("" outside the table)."""
        rows = self._rows
        return self.search_text(rows[r]) if 0 <= r < len(rows) else ""

    def search_text(self, row: Any) -> str:
        """The filter's text for ``row``: its ``SEARCH_FIELDS`` (names, URLs, statuses, errors:
        what one types in a filter box), else its non-live columns; cached while the row is
        the same object (a re-filter of 10,000 rows then reads 10,000 cached texts)."""
        k = self.key(row)
        hit = self._search.get(k)
        if hit is not None and hit[0] is row:
            return hit[1]
        if self.SEARCH_FIELDS:
            text = "\n".join([str(getattr(row, f)) for f in self.SEARCH_FIELDS]).lower()
        else:
            text = "\n".join(c.display(row, self._now) for c in self._columns if not c.live)
            text = text.lower()
        self._search[k] = (row, text)
        return text

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _ROW_FLAGS

    # -- reading --------------------------------------------------------------------------
    def row(self, i: int) -> Any:
        """Shown row number ``i``."""
        return self._rows[i]

    def rows(self) -> list[Any]:
        """The rows shown, in the view's order."""
        return list(self._rows)

    def cell_text(self, r: int, c: int) -> str:
        """The text of shown row ``r``, column ``c`` ("" outside the table)."""
        rows = self._rows
        if 0 <= r < len(rows) and 0 <= c < len(self._columns):
            return self._texts_of(rows[r])[c]
        return ""

    def alignment(self, c: int) -> int:
        """Column ``c``'s text alignment (numbers to the right)."""
        return self._align[c]

    def column_texts(self, rows: int) -> list[list[str]]:
        """Each column's display texts in the first ``rows`` shown rows (to size columns)."""
        now, shown = self._now, self._rows[:rows]
        return [[col.display(r, now) for r in shown] for col in self._columns]

    def all_rows(self) -> list[Any]:
        """Every row, shown or filtered out, in first-seen order."""
        return list(self._all.values())

    def get(self, key: str) -> Any | None:
        """The row of ``key``, shown or filtered out (None: the pool gave none)."""
        return self._all.get(key)

    def total(self) -> int:
        """How many rows there are, shown or filtered out."""
        return len(self._all)

    def find(self, key: str) -> int | None:
        """The shown row number of ``key`` (None: no such row, or filtered out)."""
        return self._index.get(key)

    @property
    def now(self) -> float:
        return self._now

    # -- updating -------------------------------------------------------------------------
    def clear(self) -> None:
        self._all.clear()
        self._search.clear()
        self._texts.clear()
        self._painted.clear()
        self._stale = False
        if self._rows:
            self.beginResetModel()
            self._rows.clear()
            self._index.clear()
            self.endResetModel()

    # -- filtering and sorting ------------------------------------------------------------
    @property
    def filter_text(self) -> str:
        return self._needle

    def set_filter(self, text: str) -> None:
        """Show only the rows whose search text holds ``text`` (case-insensitive; "" shows
        every row). Applied at once; rows that change later are re-checked when the table is
        next re-sorted (at most once a second on a big table)."""
        needle = text.strip().lower()
        if needle == self._needle:
            return
        self._needle = needle
        self._relayout()

    def _passes(self, row: Any) -> bool:
        needle = self._needle
        return not needle or needle in self.search_text(row)

    @property
    def sort_column(self) -> int:
        return self._sort_column

    @property
    def sort_order(self) -> Qt.SortOrder:
        return self._sort_order

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Keep the rows sorted by ``column`` (by its ``SortRole`` value; ties and ``-1``: the
        first-seen order) from now on, through every :meth:`update`."""
        self._sort_column = column if 0 <= column < len(self._columns) else -1
        self._sort_order = order
        self._relayout()

    def _shown_rows(self) -> list[Any]:
        """The rows to show: those passing the filter, sorted (stable on first-seen order)."""
        needle = self._needle
        if needle:
            search, text_of = self._search, self.search_text
            rows = []
            for k, r in self._all.items():  # 10,000 rows: the cached texts, read inline
                hit = search.get(k)
                if needle in (hit[1] if hit is not None and hit[0] is r else text_of(r)):
                    rows.append(r)
        else:
            rows = list(self._all.values())
        c = self._sort_column
        if c < 0:
            return rows
        col, now = self._columns[c], self._now
        value = col.sort or col.display

        def sort_key(r: Any) -> Any:
            v = value(r, now)
            return v.casefold() if isinstance(v, str) else v

        try:  # stable: ties keep the first-seen order, descending too
            rows.sort(key=sort_key, reverse=self._sort_order == Qt.SortOrder.DescendingOrder)
        except TypeError:  # mixed types in one column: compare as text
            rows.sort(
                key=lambda r: str(sort_key(r)),
                reverse=self._sort_order == Qt.SortOrder.DescendingOrder,
            )
        return rows

    def _relayout_due(self) -> bool:
        """Re-sort and re-filter after rows changed, but a big table at most once per
        ``RESORT_SECONDS``: rows that move less often are easier to click. Returns whether
        the layout changed."""
        if not self._stale or (self._sort_column < 0 and not self._needle):
            return False  # unsorted and unfiltered: appending kept the order
        if len(self._all) > RESORT_LARGE:
            t = time.monotonic()
            if t - self._last_resort < RESORT_SECONDS:
                return False
            self._last_resort = t
        return self._relayout()

    def _relayout(self) -> bool:
        """Show :meth:`_shown_rows`: one layout change (the views keep their selection and
        current row by key; rows filtered out leave them). Returns whether anything moved."""
        self._stale = False
        rows = self._shown_rows()
        if rows == self._rows:  # identity compare per element: cheap when nothing moved
            return False
        self.layoutAboutToBeChanged.emit()
        old_rows, key = self._rows, self.key
        self._rows = rows
        self._index = {key(r): i for i, r in enumerate(rows)}
        old = self.persistentIndexList()  # the views' selection and current index: a few
        if old:
            new = []
            for idx in old:
                r = idx.row()
                i = self._index.get(key(old_rows[r])) if 0 <= r < len(old_rows) else None
                new.append(QModelIndex() if i is None else self.index(i, idx.column()))
            self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()
        return True

    def relayout_if_due(self) -> bool:
        """The re-sort and re-filter an ``update(..., relayout=False)`` left, if it is due.
        Returns whether the layout changed."""
        return self._relayout_due()

    def update(
        self, rows: Iterable[Any], *, now: float, complete: bool = True, relayout: bool = True
    ) -> None:
        """Merge a snapshot's rows. ``complete``: ``rows`` is every row (others are removed);
        otherwise ``rows`` are only the changed ones (incremental ``since=`` snapshots).
        ``relayout=False``: leave the re-sort and re-filter to :meth:`relayout_if_due` (a
        window with 10,000 rows runs it in a loop turn of its own)."""
        self._now = now
        key = self.key
        incoming: dict[str, Any] = {}
        for r in rows:
            incoming[key(r)] = r
        everything = self._all
        if complete:
            gone_keys = [k for k in everything if k not in incoming]
            for k in gone_keys:
                del everything[k]
                self._search.pop(k, None)
                self._texts.pop(k, None)
                self._painted.pop(k, None)
            gone = sorted(i for i in (self._index.get(k) for k in gone_keys) if i is not None)
            if gone:
                for first, last in reversed(ranges(gone)):
                    self.beginRemoveRows(QModelIndex(), first, last)
                    del self._rows[first : last + 1]
                    self.endRemoveRows()
                self._index = {key(r): i for i, r in enumerate(self._rows)}
        new: list[Any] = []
        changed: list[int] = []
        index, cur = self._index, self._rows
        for k, r in incoming.items():
            old = everything.get(k)
            if old is None:
                everything[k] = r
                if self._passes(r):
                    new.append(r)
            elif old != r:
                everything[k] = r
                self._stale = True
                i = index.get(k)
                if i is not None:
                    cur[i] = r
                    changed.append(i)
        repaint = self._repaint_ranges(changed)
        existing = len(self._rows)
        ordered = self._sort_column >= 0 or bool(self._needle)
        if not ordered:
            self._emit_changed(repaint)
        if new:
            self.beginInsertRows(QModelIndex(), existing, existing + len(new) - 1)
            for r in new:
                self._index[key(r)] = len(self._rows)
                self._rows.append(r)
            self.endInsertRows()
            if self._sort_column >= 0:
                self._stale = True  # new rows were appended: their place comes with the sort
        if ordered and not (relayout and self._relayout_due()):
            # nothing moved: repaint the changed cells (a layout change repaints everything)
            self._emit_changed(repaint)

    def _repaint_ranges(self, changed: list[int]) -> list[tuple[int, int, int, int]]:
        """The cells to repaint, as (first row, last row, first column, last column): for the
        changed rows, the columns whose text changed (a table repaints only those cells: on a
        crawl a host's counts and reason change, its name and delays seldom do); in a
        ``LIVE`` model, the live columns of every row too."""
        out: list[tuple[int, int, int, int]] = []
        n = len(self._rows)
        if changed:
            cols: set[int] = set()
            rows, texts_of, every = self._rows, self._texts_of, range(len(self._columns))
            for i in changed:
                before = self._painted.get(self.key(rows[i]))
                after = texts_of(rows[i])
                if before is None:
                    cols.update(every)
                else:
                    cols.update(c for c in every if before[c] != after[c])
            cols.update(self._progress_columns)
            lo, hi = min(changed), max(changed)
            out += [(lo, hi, c0, c1) for c0, c1 in ranges(sorted(cols))]
        if self.LIVE and n:
            out += [(0, n - 1, c0, c1) for c0, c1 in ranges(self._live_columns)]
        return out

    def _emit_changed(self, cells: list[tuple[int, int, int, int]]) -> None:
        roles = [Qt.ItemDataRole.DisplayRole, SortRole, ProgressRole]
        for r0, r1, c0, c1 in cells:
            self.dataChanged.emit(self.index(r0, c0), self.index(r1, c1), roles)

    def _texts_of(self, row: Any) -> tuple[str, ...]:
        """Every column's text of ``row`` now: computed once a tick and kept for painting
        (a view asks for each cell; the Why column's text takes some formatting)."""
        k, now = self.key(row), self._now
        hit = self._texts.get(k)
        if hit is not None and hit[0] is row and hit[1] == now:
            return hit[2]
        texts = tuple(col.display(row, now) for col in self._columns)
        self._texts[k] = (row, now, texts)
        self._painted[k] = texts
        return texts


def _elapsed_progress(row: PendingRow, now: float) -> float | None:
    span = row.expires - row.started
    if span <= 0:
        return 1.0
    return min(1.0, max(0.0, (now - row.started) / span))


class HostsModel(KeyedTableModel):
    """One row per host; updated incrementally from ``snapshot(since=...)``."""

    SEARCH_FIELDS = ("host", "last_status")

    URL_FIELD = None

    def __init__(self, parent: QObject | None = None) -> None:
        #: URLs one host may have in flight (the crawl's politeness), for the Why column.
        self.max_in_flight = 1
        #: (end of a host's wait, host): the Why column of a host whose politeness wait or
        #: backoff ended since the last tick is repainted, not every row at every tick.
        self._ends: list[tuple[float, str]] = []
        super().__init__(parent)
        self.why_column = len(self._columns) - 1

    def update(
        self, rows: Iterable[Any], *, now: float, complete: bool = True, relayout: bool = True
    ) -> None:
        rows = list(rows)
        super().update(rows, now=now, complete=complete, relayout=relayout)
        ends = self._ends
        for r in rows:
            end = r.next_allowed if r.next_allowed > r.backoff_until else r.backoff_until
            if end > now:
                heapq.heappush(ends, (end, r.host))
        ended: list[int] = []
        while ends and ends[0][0] <= now:
            i = self._index.get(heapq.heappop(ends)[1])
            if i is not None:
                ended.append(i)
        if ended:
            col = self.why_column
            self.dataChanged.emit(
                self.index(min(ended), col), self.index(max(ended), col), [_DISPLAY]
            )

    def clear(self) -> None:
        self._ends.clear()
        super().clear()

    def key(self, row: HostRow) -> str:
        return row.host

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(
                self.tr("Waiting"), lambda r, n: fmt.count(r.waiting), lambda r, n: r.waiting, True
            ),
            Column(
                self.tr("In flight"),
                lambda r, n: fmt.count(r.in_flight),
                lambda r, n: r.in_flight,
                True,
            ),
            Column(self.tr("Done"), lambda r, n: fmt.count(r.done), lambda r, n: r.done, True),
            Column(
                self.tr("Failed"), lambda r, n: fmt.count(r.failed), lambda r, n: r.failed, True
            ),
            Column(
                self.tr("Retrying"),
                lambda r, n: fmt.count(r.retrying),
                lambda r, n: r.retrying,
                True,
            ),
            Column(self.tr("Last status"), lambda r, n: r.last_status),
            Column(
                self.tr("Next allowed"),
                lambda r, n: fmt.clock(r.next_allowed),
                lambda r, n: r.next_allowed,
                tooltip=self.tr("Earliest time of the next request to this host"),
            ),
            Column(
                self.tr("Delay"),
                lambda r, n: fmt.seconds(r.delay),
                lambda r, n: r.delay,
                True,
                tooltip=self.tr("Current politeness delay between two requests"),
            ),
            Column(
                self.tr("Backoff until"),
                lambda r, n: fmt.clock(r.backoff_until),
                lambda r, n: r.backoff_until,
                tooltip=self.tr("End of a 429/503 backoff for this host"),
            ),
            Column(
                self.tr("Why"),
                lambda r, n: why.host(r, n, self.max_in_flight),
                tooltip=self.tr("What holds the host back now, from the pool's own records"),
                live=True,
            ),
        )


class InFlightModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "worker")
    #: The column of the worker holding the lease (last: the other columns keep their
    #: numbers; empty, and hidden by the window, for a local pool).
    WORKER_COLUMN = 6
    LIVE = True

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(self.tr("Depth"), lambda r, n: str(r.depth), lambda r, n: r.depth, True),
            Column(
                self.tr("Hub"),
                lambda r, n: self.tr("hub") if r.is_hub else "",
                lambda r, n: int(r.is_hub),
            ),
            Column(
                self.tr("Elapsed"),
                lambda r, n: fmt.duration(n - r.started),
                lambda r, n: n - r.started,
                True,
                live=True,
            ),
            Column(
                self.tr("Lease"),
                lambda r, n: self.tr("expires %1").replace("%1", fmt.countdown(r.expires, n)),
                lambda r, n: r.expires,
                progress=_elapsed_progress,
                tooltip=self.tr("Time until the pool takes the URL back"),
                live=True,
            ),
            Column(
                self.tr("Worker"),
                lambda r, n: r.worker,
                tooltip=self.tr("The worker fetching the URL (shared pools)"),
            ),
            Column(
                self.tr("Why"),
                why.lease,
                lambda r, n: r.started,
                tooltip=self.tr("Who holds the URL's lease, and since when"),
                live=True,
            ),
        )


class RetriesModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "last_error")
    LIVE = True

    def __init__(self, parent: QObject | None = None) -> None:
        self.threshold = 0
        super().__init__(parent)

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(
                self.tr("Attempts"),
                lambda r, n: f"{r.attempts} / {self.threshold}",
                lambda r, n: r.attempts,
                True,
                tooltip=self.tr("Failed attempts so far / attempts allowed"),
            ),
            Column(
                self.tr("Last error"),
                lambda r, n: why.error(r.kind, r.status, r.last_error),
                tooltip=self.tr("The last attempt's error (the fetcher's own words: hover)"),
            ),
            Column(
                self.tr("Next try"),
                lambda r, n: fmt.countdown(r.next_try, n),
                lambda r, n: r.next_try,
                True,
                live=True,
            ),
            Column(
                self.tr("Why"),
                why.retry,
                lambda r, n: r.next_try,
                tooltip=self.tr("Why the URL waits and until when"),
                live=True,
            ),
        )

    #: The column of the last error (its tooltip is the fetcher's own message).
    ERROR_COLUMN = 3

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == _TOOLTIP and index.column() == self.ERROR_COLUMN and index.isValid():
            r = index.row()
            if 0 <= r < len(self._rows):
                return self._rows[r].last_error or None
        return super().data(index, role)


class HubsModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "last_result")
    LIVE = True

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(
                self.tr("Span"),
                lambda r, n: fmt.duration(_span_of(r)),
                lambda r, n: _span_of(r),
                True,
                tooltip=self.tr(
                    "How often the hub is refreshed now; with adaptive refresh the hubs share "
                    "the budget of their own spans by how often each publishes (Why says why)"
                ),
            ),
            Column(
                self.tr("Last refresh"),
                lambda r, n: fmt.clock(r.last_refresh) if r.last_refresh else self.tr("never"),
                lambda r, n: r.last_refresh,
            ),
            Column(self.tr("Result"), lambda r, n: r.last_result),
            Column(
                self.tr("Next refresh"),
                self._next_text,
                lambda r, n: float("inf") if r.parked else r.next_due,
                progress=self._next_progress,
                live=True,
            ),
            Column(
                self.tr("Why"),
                self._why_text,
                tooltip=self.tr(
                    "Why the hub has its span, or why it is not refreshed by itself "
                    "(Refresh now resumes it)"
                ),
            ),
            Column(self.tr("Kind"), lambda r, n: self._kind_text(r.kind)),
            Column(
                self.tr("New/h"),
                lambda r, n: f"{r.rate * 3600:.1f}" if r.reason not in ("", "new") else "",
                lambda r, n: r.rate,
                True,
                tooltip=self.tr("Its learned rate: new articles an hour"),
            ),
            Column(
                self.tr("New"),
                lambda r, n: f"{r.last_new} / {r.listed}" if r.listed else str(r.last_new),
                lambda r, n: r.last_new,
                True,
                tooltip=self.tr(
                    "New articles at its last refresh / items its list showed (all new: "
                    "some may have scrolled off unseen)"
                ),
            ),
            Column(
                self.tr("Articles"),
                lambda r, n: str(r.yielded),
                lambda r, n: r.yielded,
                True,
                tooltip=self.tr("New articles it has yielded in all"),
            ),
        )

    def _kind_text(self, kind: str) -> str:
        return {
            "page": self.tr("page"),
            "feed": self.tr("feed"),
            "sitemap": self.tr("sitemap"),
        }.get(kind, kind)

    def _next_text(self, r: HubRow, now: float) -> str:
        if r.in_flight:
            return self.tr("refreshing")
        if r.parked:
            return self.tr("parked")
        return fmt.countdown(r.next_due, now)

    def _why_text(self, r: HubRow, _now: float) -> str:
        return why.hub(r)  # the one way every pane words its reasons

    @staticmethod
    def _next_progress(r: HubRow, now: float) -> float | None:
        if r.parked:
            return None
        span = _span_of(r)
        if r.in_flight or span <= 0:
            return 1.0
        return min(1.0, max(0.0, 1.0 - (r.next_due - now) / span))


def _span_of(r: HubRow) -> float:
    """A hub's current span: the plan's (0 before the pool planned it: its own)."""
    return r.planned if r.planned > 0 else r.span


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
