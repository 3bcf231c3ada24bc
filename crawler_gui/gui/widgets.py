"""The panes' widgets: a filterable sortable table, a progress-bar delegate, the throughput
chart (QPainter; QtCharts is not shipped with PySide6-Essentials) and the overview."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Sequence
from typing import Any, cast

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QDesktopServices,
    QGuiApplication,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QShowEvent,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.frontier import PoolSnapshot
from crawler_gui.engine.stats import StatsSnapshot
from crawler_gui.gui import fmt
from crawler_gui.gui.models import (
    KeyedTableModel,
    KeyRole,
    ProgressRole,
    SortRole,
    UrlRole,
)

log = logging.getLogger(__name__)


class ProgressDelegate(QStyledItemDelegate):
    """Draws a cell as a progress bar when the model gives a ``ProgressRole`` fraction."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        value = index.data(ProgressRole)
        if value is None:
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(2, 2, -2, -2)
        bar.minimum = 0
        bar.maximum = 1000
        bar.progress = round(float(value) * 1000)
        bar.text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        bar.textVisible = True
        bar.state = option.state
        bar.palette = option.palette
        bar.fontMetrics = option.fontMetrics
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)


class TextDelegate(QStyledItemDelegate):
    """Paints a ``KeyedTableModel``'s cell as its text, elided in the middle, with the
    selection's colours: one call into the model for the text, and one ``drawText``.

    Qt's own item delegate asks the model for seven roles per cell and lays the text out
    with a ``QTextLayout`` (about 60 microseconds a cell here); a window repaints a table of
    hosts or fetches several times a second while the crawl runs on the same thread. What is
    the same for every cell of a paint (the colours, the font's metrics, the selected rows,
    the columns' alignments) is read once when the viewport's paint event comes in
    (:meth:`eventFilter`), not from each cell's style option: each read is a call through the
    binding, and they were most of a cell's cost (a 50-host table painted in 14.4 ms, 11.4 of
    them in this method). The view has drawn the row's alternating background before
    (``PE_PanelItemViewRow``)."""

    MARGIN = 4
    #: Texts whose widths are remembered (counts, host names and times repeat from one paint
    #: to the next); forgotten all at once when there are more.
    WIDTHS_KEPT = 20_000
    #: Texts kept laid out for drawing (``QStaticText``: its glyphs found once, not at every
    #: paint); forgotten all at once when there are more.
    TEXTS_KEPT = 2_000

    def __init__(self, model: KeyedTableModel, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._model = model
        self._view = view
        self._widths: dict[str, int] = {}
        self._statics: dict[str, QStaticText] = {}  # the texts drawn, laid out once
        self._font_key = ""
        self._font = view.font()
        self._line = view.fontMetrics().height()
        self._pen = QColor()
        self._selected_brush = QBrush()
        self._selected_pen = QColor()
        self._metrics = view.fontMetrics()
        self._selected: list[tuple[int, int]] = []  # (first row, last row) of each range
        self._align: list[int] = []
        view.viewport().installEventFilter(self)
        self.begin_paint()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == _PAINT:
            self.begin_paint()
        return False

    def begin_paint(self) -> None:
        """Read what every cell of the next paint shares (the viewport is about to paint)."""
        view = self._view
        palette = view.palette()
        group = _ACTIVE_GROUP if view.isActiveWindow() else _INACTIVE_GROUP
        self._pen = palette.color(_TEXT)
        self._selected_brush = palette.brush(group, _HIGHLIGHT)
        self._selected_pen = palette.color(group, _HIGHLIGHTED_TEXT)
        font_key = view.font().key()
        if font_key != self._font_key or len(self._widths) > self.WIDTHS_KEPT:
            self._widths.clear()
        if font_key != self._font_key or len(self._statics) > self.TEXTS_KEPT:
            self._statics.clear()
            self._font_key = font_key
            self._font = view.font()
            self._metrics = view.fontMetrics()
            self._line = self._metrics.height()
        model_selection = view.selectionModel()
        ranges = model_selection.selection() if model_selection is not None else None
        self._selected = (
            [(ranges.at(i).top(), ranges.at(i).bottom()) for i in range(ranges.count())]
            if ranges is not None
            else []
        )
        model = self._model
        self._align = [int(model.alignment(c)) for c in range(model.columnCount())]

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        r = index.row()
        c = index.column()
        text = self._model.cell_text(r, c)
        rect = option.rect
        for top, bottom in self._selected:
            if top <= r <= bottom:
                painter.fillRect(rect, self._selected_brush)
                painter.setPen(self._selected_pen)
                break
        else:
            painter.setPen(self._pen)
        if not text:
            return
        x, y, w, h = cast("tuple[int, int, int, int]", rect.getRect())  # (one call, not four)
        room = w - 2 * self.MARGIN
        widths = self._widths
        width = widths.get(text)
        if width is None:
            width = widths[text] = self._metrics.horizontalAdvance(text)
        if width > room:
            text = self._metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, room)
            width = widths.get(text)
            if width is None:
                width = widths[text] = self._metrics.horizontalAdvance(text)
        static = self._statics.get(text)
        if static is None:
            static = self._statics[text] = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(_NO_TRANSFORM, self._font)
        align = self._align
        if c < len(align) and align[c] & _RIGHT:
            x += w - self.MARGIN - width
        else:
            x += self.MARGIN
        painter.drawStaticText(x, y + (h - self._line + 1) // 2, static)


_PAINT = QEvent.Type.Paint
_RIGHT = int(Qt.AlignmentFlag.AlignRight)
_NO_TRANSFORM = QTransform()
_ACTIVE_GROUP = QPalette.ColorGroup.Active
_INACTIVE_GROUP = QPalette.ColorGroup.Inactive
_HIGHLIGHT = QPalette.ColorRole.Highlight
_HIGHLIGHTED_TEXT = QPalette.ColorRole.HighlightedText
_TEXT = QPalette.ColorRole.Text


class FilterProxy(QSortFilterProxyModel):
    """Case-insensitive substring filter over all columns; numbers sort as numbers. For the
    short tables of records (the log, the articles); a ``KeyedTableModel`` filters and sorts
    itself and is shown without a proxy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SortRole)
        self.setFilterKeyColumn(-1)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterRole(Qt.ItemDataRole.DisplayRole)
        self.setDynamicSortFilter(True)

    def set_filter_text(self, text: str) -> None:
        """The filter box's text: a case-insensitive substring."""
        self.setFilterFixedString(text)


#: An extra context-menu action: (label, callback(url_or_key)).
RowAction = tuple[str, Callable[[str], Any]]


def style_table_view(view: QTableView, selection: QAbstractItemView.SelectionMode) -> None:
    """The look every pane's table shares: whole rows selected, one line a row of a fixed
    height (no per-row measuring), long texts elided in the middle, alternating rows, no row
    numbers, columns the user can resize."""
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(selection)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    view.setAlternatingRowColors(True)
    vh = view.verticalHeader()
    vh.setVisible(False)
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)


#: Qt's QWIDGETSIZE_MAX: no maximum size.
_NO_LIMIT = 16_777_215


class TablePane(QWidget):
    """A filter box over a sortable table view of one model."""

    def __init__(
        self,
        model: Any,
        *,
        name: str,
        actions: Sequence[RowAction] = (),
        progress_columns: Sequence[int] = (),
        stretch_column: int | None = 0,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.model = model
        #: What the view shows: the model itself when it filters and sorts its own rows (a
        #: ``KeyedTableModel``), else a ``FilterProxy`` over it. View rows are ``shown``'s.
        self.proxy: FilterProxy | None = None
        self.shown: QAbstractItemModel = model
        if not isinstance(model, KeyedTableModel):
            self.proxy = FilterProxy(self)
            self.proxy.setSourceModel(model)
            self.shown = self.proxy
        self._actions = list(actions)
        self.last_menu: QMenu | None = None

        self.filter = QLineEdit(self)
        self.filter.setObjectName(f"{name}-filter")
        self.filter.setPlaceholderText(self.tr("Filter…"))
        self.filter.setClearButtonEnabled(True)
        if self.proxy is not None:
            self.filter.textChanged.connect(self.proxy.set_filter_text)
        else:
            self.filter.textChanged.connect(self._set_filter)
        self.count_label = QLabel(self)
        self.count_label.setTextFormat(Qt.TextFormat.PlainText)
        self.top = QHBoxLayout()
        self.top.setContentsMargins(0, 0, 0, 0)
        self.top.addWidget(self.filter, 1)
        self.top.addWidget(self.count_label)

        self.view = QTableView(self)
        self.view.setObjectName(f"{name}-view")
        self.view.setModel(self.shown)
        style_table_view(self.view, QAbstractItemView.SelectionMode.ExtendedSelection)
        header = self.view.horizontalHeader()
        header.setSortIndicatorClearable(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # first-seen order until asked
        # The stretch column (a URL, a headline) takes the room left; the others are sized to
        # their contents once, when the first rows arrive (``_fit_columns``), and then are the
        # user's to resize: a Host column is never cut off while a narrow last column stretches.
        self.stretch_column = stretch_column
        self._fitted = False
        self._fit_pending = False
        self._fit_rows = 0  # the rows the last fit measured
        self._fitting = False  # (a resize of ours, not the user's)
        self._user_sized = False
        header.sectionResized.connect(self._section_resized)
        if stretch_column is None:
            header.setStretchLastSection(True)
        else:
            header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
        self.view.setSortingEnabled(True)
        if isinstance(model, KeyedTableModel) and model.PLAIN_CELLS:
            self._text_delegate = TextDelegate(model, self.view)
            self.view.setItemDelegate(self._text_delegate)
        self._delegate = ProgressDelegate(self.view)
        for col in progress_columns:
            self.view.setItemDelegateForColumn(col, self._delegate)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(self.top)
        lay.addWidget(self.view, 1)
        shown = self.shown
        for sig in (
            model.rowsInserted,
            model.rowsRemoved,
            model.modelReset,
            shown.rowsInserted,
            shown.rowsRemoved,
            shown.modelReset,
            shown.layoutChanged,  # a keyed model's filter shows and hides rows so
        ):
            sig.connect(self._update_count)
        self._update_count()
        shown.rowsInserted.connect(self._fit_soon)
        shown.modelReset.connect(self._fit_soon)
        shown.layoutChanged.connect(self._fit_soon)

    #: No column but the stretch column is sized wider than this by its contents.
    MAX_FITTED_WIDTH = 360
    #: The first rows whose texts decide the columns' widths.
    FIT_ROWS = 50

    def _fit_soon(self, *_: object) -> None:
        """Fit the columns to the first rows: in an event of its own, not inside the model
        update that brought the rows (a window's first refresh fills every pane at once, and
        measuring their cells together held the loop). The first rows may be few (one
        article), so the columns are fitted again, only ever wider, each time the rows have
        doubled, up to ``FIT_ROWS``; never after the user has sized a column."""
        if self._user_sized or self._fit_pending:
            return
        n = self.shown.rowCount()
        if n and (not self._fitted or (self._fit_rows < self.FIT_ROWS and n >= 2 * self._fit_rows)):
            self._fit_pending = True
            QTimer.singleShot(0, self, self._fit_columns)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_soon()

    def _section_resized(self, column: int, _old: int, _new: int) -> None:
        stretched = self.stretch_column
        if stretched is None:  # the last section stretches
            stretched = self.view.horizontalHeader().count() - 1
        if not self._fitting and column != stretched:
            self._user_sized = True  # the user's width from now on

    def _fit_columns(self, *_: object) -> None:
        self._fit_pending = False
        n = self.shown.rowCount()
        if self._user_sized or not n or not self.isVisible():
            return  # a pane not shown yet is fitted when it is first shown
        again = self._fitted
        self._fitted = True
        self._fit_rows = n
        header = self.view.horizontalHeader()
        # The texts measured in Python: Qt's resizeColumnToContents asks the delegate for each
        # cell's size hint (a call into the model per role and per cell), tens of milliseconds
        # for a pane's first rows.
        texts = self.model.column_texts(self.FIT_ROWS)
        fm = self.view.fontMetrics()
        # the delegate's margins on both sides, the grid line, and pixels to spare: a text
        # one pixel too wide is elided
        focus = self.view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin)
        margin = 2 * max(TextDelegate.MARGIN, focus + 1) + 4
        self._fitting = True
        try:
            for c in range(self.shown.columnCount()):
                if c == self.stretch_column or self.view.isColumnHidden(c):
                    continue
                widest = max((fm.horizontalAdvance(t) for t in texts[c]), default=0)
                width = min(max(header.sectionSizeHint(c), widest + margin), self.MAX_FITTED_WIDTH)
                before = header.sectionSize(c)
                header.resizeSection(c, max(width, before) if again else width)
        finally:
            self._fitting = False

    def _update_count(self, *_: object) -> None:
        model = self.model
        total = model.total() if isinstance(model, KeyedTableModel) else model.rowCount()
        shown = self.shown.rowCount()
        self.count_label.setText(
            fmt.count(total) if shown == total else f"{fmt.count(shown)} / {fmt.count(total)}"
        )

    def selected_keys(self) -> list[str]:
        """URLs (or keys) of the selected rows, in view order."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedIndexes()})
        out = []
        for r in rows:
            src = self.shown.index(r, 0)
            key = src.data(UrlRole) or src.data(KeyRole)
            if key:
                out.append(str(key))
        return out

    def _set_filter(self, text: str) -> None:
        self.model.set_filter(text)

    def source_index(self, index: QModelIndex) -> QModelIndex:
        """The model's index of a view index (the same when the view shows the model)."""
        return index if self.proxy is None else self.proxy.mapToSource(index)

    def view_index(self, index: QModelIndex) -> QModelIndex:
        """The view's index of a model index."""
        return index if self.proxy is None else self.proxy.mapFromSource(index)

    def build_menu(self, pos_index: QModelIndex) -> QMenu:
        menu = QMenu(self)
        url = pos_index.data(UrlRole) if pos_index.isValid() else None
        keys = self.selected_keys()
        if url:
            target = fmt.web_url(str(url))
            open_act = QAction(self.tr("Open in browser"), menu)
            open_act.setEnabled(target is not None)
            if target is not None:
                open_act.triggered.connect(lambda: QDesktopServices.openUrl(target))
            menu.addAction(open_act)
            copy_act = QAction(self.tr("Copy URL"), menu)
            copy_act.triggered.connect(lambda: QGuiApplication.clipboard().setText(str(url)))
            menu.addAction(copy_act)
        if keys and self._actions:
            menu.addSeparator()
            for label, callback in self._actions:
                act = QAction(label, menu)
                act.triggered.connect(
                    lambda _=False, cb=callback, ks=tuple(keys): [cb(k) for k in ks]
                )
                menu.addAction(act)
        return menu

    def _context_menu(self, pos: Any) -> None:
        index = self.view.indexAt(pos)
        if index.isValid() and not self.view.selectionModel().isSelected(index):
            self.view.selectRow(index.row())
        menu = self.build_menu(index)
        self.last_menu = menu  # (what a right-click showed last: the tests drive it)
        if not menu.isEmpty():
            menu.popup(self.view.viewport().mapToGlobal(pos))


class ThroughputChart(QWidget):
    """Pages and errors per second over the last minutes, drawn with palette colours."""

    def __init__(self, parent: QWidget | None = None, window_s: int = 300) -> None:
        super().__init__(parent)
        self.window_s = window_s
        self._series: list[tuple[float, int, int]] = []
        self._now = 0.0
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName(self.tr("Throughput chart"))

    def sizeHint(self) -> QSize:
        return QSize(480, 160)

    def set_series(self, series: Sequence[tuple[float, int, int]], now: float) -> None:
        self._series = [(float(t), int(p), int(e)) for t, p, e in series]
        self._now = now
        pages = sum(p for _, p, _ in self._series)
        errors = sum(e for _, _, e in self._series)
        self.setToolTip(
            self.tr("Last %1: %2 pages, %3 errors")
            .replace("%1", fmt.duration(self.window_s))
            .replace("%2", fmt.count(pages))
            .replace("%3", fmt.count(errors))
        )
        self.update()

    def series(self) -> list[tuple[float, int, int]]:
        return list(self._series)

    def paintEvent(self, event: Any) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        fm = self.fontMetrics()
        text_h = fm.height()
        area = QRectF(self.rect()).adjusted(
            fm.horizontalAdvance("0000") + 8, text_h + 4, -6, -(text_h + 4)
        )
        p.fillRect(self.rect(), pal.color(QPalette.ColorRole.Base))
        grid = QColor(pal.color(QPalette.ColorRole.Text))
        grid.setAlphaF(0.15)
        p.setPen(QPen(grid, 1))
        for k in range(5):
            y = area.top() + area.height() * k / 4
            p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
        now = self._now or (self._series[-1][0] + 1 if self._series else 0.0)
        start = now - self.window_s
        pts = [(t, pg, er) for t, pg, er in self._series if t >= start]
        peak = max([pg + er for _, pg, er in pts] + [1])
        top = _nice_ceiling(peak)
        text = pal.color(QPalette.ColorRole.Text)
        p.setPen(text)
        p.drawText(
            QRectF(0, area.top() - text_h / 2, area.left() - 4, text_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            f"{top:g}",
        )
        p.drawText(
            QRectF(0, area.bottom() - text_h / 2, area.left() - 4, text_h),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            "0",
        )
        p.drawText(
            QRectF(area.left(), area.bottom() + 2, area.width(), text_h),
            Qt.AlignmentFlag.AlignLeft,
            self.tr("-%1").replace("%1", fmt.duration(self.window_s)),
        )
        p.drawText(
            QRectF(area.left(), area.bottom() + 2, area.width(), text_h),
            Qt.AlignmentFlag.AlignRight,
            self.tr("now"),
        )

        def x_of(t: float) -> float:
            return area.left() + area.width() * (t - start) / self.window_s

        def y_of(v: float) -> float:
            return area.bottom() - area.height() * v / top

        accent = pal.color(QPalette.ColorRole.Highlight)
        if pts:
            path = QPainterPath(QPointF(x_of(pts[0][0]), area.bottom()))
            for t, pg, _ in pts:
                path.lineTo(QPointF(x_of(t), y_of(pg)))
            path.lineTo(QPointF(x_of(pts[-1][0]), area.bottom()))
            fill = QColor(accent)
            fill.setAlphaF(0.25)
            p.fillPath(path, fill)
            p.setPen(QPen(accent, 1.5))
            for (t0, a, _), (t1, b, _) in itertools.pairwise(pts):
                p.drawLine(QPointF(x_of(t0), y_of(a)), QPointF(x_of(t1), y_of(b)))
            err_pen = QPen(text, 1.5, Qt.PenStyle.DashLine)
            p.setPen(err_pen)
            bar_w = max(1.0, area.width() / self.window_s)
            for t, _, er in pts:
                if er:
                    p.fillRect(QRectF(x_of(t), y_of(er), bar_w, area.bottom() - y_of(er)), text)
        # legend
        p.setPen(accent)
        legend = QRectF(area.left(), 0, area.width(), text_h + 2)
        p.drawText(legend, Qt.AlignmentFlag.AlignLeft, self.tr("■ pages/s"))
        p.setPen(text)
        p.drawText(
            legend.adjusted(fm.horizontalAdvance(self.tr("■ pages/s")) + 16, 0, 0, 0),
            Qt.AlignmentFlag.AlignLeft,
            self.tr("■ errors/s"),
        )
        p.end()


def _nice_ceiling(v: float) -> float:
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000):
        if v <= step:
            return float(step)
    return float(v)


class OverviewWidget(QWidget):
    """Totals, rates, the chart, the status-code breakdown and the remaining-work estimate."""

    hubs_only_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("overview")
        self.values: dict[str, QLabel] = {}
        totals = QGroupBox(self.tr("Pool"), self)
        tgrid = QGridLayout(totals)
        for i, (key, label) in enumerate(
            [
                ("done", self.tr("Done")),
                ("waiting", self.tr("Waiting")),
                ("in_flight", self.tr("In flight")),
                ("retrying", self.tr("Retrying")),
                ("failed", self.tr("Failed")),
                ("hosts", self.tr("Hosts")),
                ("hubs", self.tr("Hubs")),
                ("state", self.tr("Crawl")),
            ]
        ):
            self._add_value(tgrid, i // 2, (i % 2) * 2, key, label)
        rates = QGroupBox(self.tr("Rate"), self)
        rgrid = QGridLayout(rates)
        for i, (key, label) in enumerate(
            [
                ("rate_now", self.tr("Pages/s (last 10 s)")),
                ("rate_min", self.tr("Pages/s (last min)")),
                ("rate_avg", self.tr("Pages/s (average)")),
                ("elapsed", self.tr("Running for")),
                ("pages", self.tr("Pages fetched")),
                ("errors", self.tr("Fetch errors")),
                ("bytes", self.tr("Data")),
                ("latency", self.tr("Response p50 / p90 / p99")),
                ("disk", self.tr("On disk")),
            ]
        ):
            self._add_value(rgrid, i // 2, (i % 2) * 2, key, label)
        codes = QGroupBox(self.tr("Status codes"), self)
        cgrid = QGridLayout(codes)
        for i, key in enumerate(("2xx", "3xx", "4xx", "5xx", "error")):
            self._add_value(
                cgrid, 0, i * 2, f"status_{key}", key if key != "error" else self.tr("no response")
            )
        self.status_detail = QLabel(codes)
        self.status_detail.setTextFormat(Qt.TextFormat.PlainText)
        self.status_detail.setWordWrap(True)
        cgrid.addWidget(self.status_detail, 1, 0, 1, 10)

        self.chart = ThroughputChart(self)
        chart_box = QGroupBox(self.tr("Throughput, last 5 minutes"), self)
        QVBoxLayout(chart_box).addWidget(self.chart)

        fresh = QGroupBox(self.tr("Freshness"), self)
        fgrid = QGridLayout(fresh)
        self._add_value(fgrid, 0, 0, "fresh_found", self.tr("Articles found (last hour)"))
        self._add_value(fgrid, 0, 2, "fresh_delay", self.tr("Median delay, published to fetched"))
        fresh.setToolTip(
            self.tr(
                "Articles extracted in the last hour, and the median time from their "
                "publication to their fetch (articles whose published time is known)"
            )
        )

        self.estimate = QLabel(self)
        self.estimate.setObjectName("estimate")
        self.estimate.setTextFormat(Qt.TextFormat.PlainText)
        self.estimate.setWordWrap(True)
        est_box = QGroupBox(self.tr("Estimate of what remains"), self)
        QVBoxLayout(est_box).addWidget(self.estimate)

        top = QHBoxLayout()
        top.addWidget(totals)
        top.addWidget(rates)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(codes)
        lay.addWidget(fresh)
        lay.addWidget(chart_box, 1)
        lay.addWidget(est_box)
        #: What a compact overview hides (the totals and rates stay).
        self.details = (codes, chart_box, est_box)

    def set_compact(self, compact: bool) -> None:
        """Totals and rates only, so a small screen leaves room for the panes' rows."""
        for box in self.details:
            box.setVisible(not compact)
        # compact, it takes no more height than its rows need: the panes below get the rest
        self.setMaximumHeight(self.sizeHint().height() if compact else _NO_LIMIT)
        self.updateGeometry()

    def is_compact(self) -> bool:
        return self.details[0].isHidden()

    def set_freshness(self, found: int | None, median: float | None) -> None:
        """The crawl's freshness (``core.freshness.FreshnessWindow``); None: no extraction."""
        self.values["fresh_found"].setText("–" if found is None else fmt.count(found))
        self.values["fresh_delay"].setText("–" if median is None else fmt.duration(median))

    def _add_value(self, grid: QGridLayout, row: int, col: int, key: str, label: str) -> None:
        name = QLabel(label + ":", self)
        value = QLabel("–", self)
        value.setObjectName(f"value-{key}")
        value.setTextFormat(Qt.TextFormat.PlainText)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        value.setFrameShape(QFrame.Shape.NoFrame)
        font = value.font()
        font.setBold(True)
        value.setFont(font)
        grid.addWidget(name, row, col)
        grid.addWidget(value, row, col + 1)
        self.values[key] = value

    def value(self, key: str) -> str:
        return self.values[key].text()

    def update_from(
        self, snap: PoolSnapshot | None, stats: StatsSnapshot | None, state: str
    ) -> None:
        v = self.values
        v["state"].setText(state)
        if snap is not None:
            t = snap.totals
            v["done"].setText(fmt.count(t.done))
            v["waiting"].setText(fmt.count(t.waiting))
            v["in_flight"].setText(fmt.count(t.pending))
            v["retrying"].setText(fmt.count(t.retrying))
            v["failed"].setText(fmt.count(t.failed))
            v["hosts"].setText(fmt.count(t.hosts))
            v["hubs"].setText(fmt.count(t.hubs))
        if stats is not None:
            v["rate_now"].setText(fmt.rate(stats.pages_per_s_10s))
            v["rate_min"].setText(fmt.rate(stats.pages_per_s_60s))
            v["rate_avg"].setText(fmt.rate(stats.pages_per_s_avg))
            v["elapsed"].setText(fmt.duration(stats.elapsed))
            v["pages"].setText(fmt.count(stats.pages))
            v["errors"].setText(fmt.count(stats.errors))
            v["bytes"].setText(
                self.tr("%1 (%2/s)")
                .replace("%1", fmt.data_size(stats.bytes))
                .replace("%2", fmt.data_size(stats.bytes_per_s_10s))
            )
            v["disk"].setText(self.disk_text(dict(stats.disk_use)))
            lat = (stats.response_ms_p50, stats.response_ms_p90, stats.response_ms_p99)
            v["latency"].setText(" / ".join(f"{x:.0f} ms" for x in lat) if stats.pages else "–")
            for key in ("2xx", "3xx", "4xx", "5xx", "error"):
                v[f"status_{key}"].setText(fmt.count(stats.status_classes.get(key, 0)))
            codes = {**stats.status_counts, **stats.error_counts}
            top = sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))[:12]
            self.status_detail.setText("  ".join(f"{k}: {fmt.count(n)}" for k, n in top))
            self.chart.set_series(stats.series, stats.time)
        self.estimate.setText(self.estimate_text(snap, stats))

    def disk_text(self, use: dict[str, int]) -> str:
        """``12 MB (pool 2 MB, pages 9 MB, WARC 1 MB)``; "–" until first measured."""
        if not use:
            return "–"
        labels = {"pool": self.tr("pool"), "pages": self.tr("pages"), "warc": self.tr("WARC")}
        parts = ", ".join(
            f"{label} {fmt.data_size(use[key])}" for key, label in labels.items() if key in use
        )
        return f"{fmt.data_size(use.get('total', 0))} ({parts})"

    def estimate_text(self, snap: PoolSnapshot | None, stats: StatsSnapshot | None) -> str:
        if snap is None:
            return self.tr("No pool open.")
        t = snap.totals
        remaining = t.waiting + t.pending + t.retrying
        if remaining == 0:
            return (
                self.tr("Nothing is waiting. Hubs will bring new links when they are refreshed.")
                if t.hubs
                else self.tr("Nothing is waiting.")
            )
        rate = stats.pages_per_s_60s if stats is not None else 0.0
        if not rate:
            rate = stats.pages_per_s_avg if stats is not None else 0.0
        if not rate or rate <= 0:
            return self.tr("%1 URLs known and not yet done; no rate to estimate from yet.").replace(
                "%1", fmt.count(remaining)
            )
        return (
            self.tr(
                "About %1 for the %2 URLs known now, at the rate of the last minute "
                "(%3 pages/s). This is a lower bound: pages keep adding new links, and "
                "politeness delays slow down hosts with many waiting URLs."
            )
            .replace("%1", fmt.duration(remaining / rate))
            .replace("%2", fmt.count(remaining))
            .replace("%3", fmt.rate(rate))
        )


__all__ = ["FilterProxy", "OverviewWidget", "ProgressDelegate", "TablePane", "ThroughputChart"]
