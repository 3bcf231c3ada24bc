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

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QObject,
    QPersistentModelIndex,
    Qt,
)

log = logging.getLogger(__name__)

#: Role giving a value to sort by (numbers sort as numbers).
SortRole = Qt.ItemDataRole.UserRole + 1
#: Role giving a fraction 0..1 for a progress-bar delegate (None: draw as text).
ProgressRole = Qt.ItemDataRole.UserRole + 2
#: Role giving the row's key (host or URL).
KeyRole = Qt.ItemDataRole.UserRole + 3
#: Role giving the URL of the row when it has one.
UrlRole = Qt.ItemDataRole.UserRole + 4

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_SORT = int(SortRole)
_PROGRESS = int(ProgressRole)
_KEY = int(KeyRole)
_URL = int(UrlRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_ROLES = frozenset((_DISPLAY, _TOOLTIP, _ALIGN, _SORT, _PROGRESS, _KEY, _URL))

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
        #: each row's texts as last computed, for a view or a change (row, now, texts): what
        #: changed since is repainted
        self._texts: dict[str, tuple[Any, float, tuple[str, ...]]] = {}
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

    # (no ``flags``: QAbstractTableModel's own gives a valid index the flags every row has --
    # enabled, selectable, never with children -- without a call into Python per cell; the
    # view asks twice for each cell it paints)

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
                if not self._stale and self._may_move(k, old, r):
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

    def _may_move(self, k: str, old: Any, new: Any) -> bool:
        """Whether a row that changed from ``old`` to ``new`` may have to move or show or
        hide: its match of the filter changed, or its sort value did (a time-dependent sort
        column always may). A tick whose changed rows all keep their place then skips the
        re-sort and re-filter of the whole table (10,000 hosts: tens of ms of the loop)."""
        if self._needle and (k in self._index) != self._passes(new):
            return True
        c = self._sort_column
        if c < 0:
            return False
        col = self._columns[c]
        if col.live:
            return True
        value = col.sort or col.display
        return bool(value(old, self._now) != value(new, self._now))

    def _repaint_ranges(self, changed: list[int]) -> list[tuple[int, int, int, int]]:
        """The cells to repaint, as (first row, last row, first column, last column): for the
        changed rows, the columns whose text changed (a table repaints only those cells: on a
        crawl a host's counts and reason change, its name and delays seldom do); in a
        ``LIVE`` model, the live columns of every row too.

        A column's text is computed only until the column is known to repaint, and the texts
        are not kept: on a crawl thousands of hosts change per tick, a view shows a few dozen
        of them (and computes those when it paints), and the Why column takes formatting. A
        row's cached texts stay the ones last shown, so the comparison is with what is on
        screen. A row never shown repaints whole, and so ends the search at once."""
        out: list[tuple[int, int, int, int]] = []
        n = len(self._rows)
        if changed:
            columns, now, key, texts = self._columns, self._now, self.key, self._texts
            cols: set[int] = set(self._progress_columns)
            todo = [c for c in range(len(columns)) if c not in cols]
            rows = self._rows
            for i in changed:
                if not todo:
                    break
                row = rows[i]
                hit = texts.get(key(row))
                if hit is None:
                    cols.update(todo)
                    break
                before = hit[2]
                found = [c for c in todo if columns[c].display(row, now) != before[c]]
                if found:
                    cols.update(found)
                    todo = [c for c in todo if c not in cols]
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
        return texts
