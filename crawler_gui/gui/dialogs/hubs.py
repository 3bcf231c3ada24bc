"""Hubs…: the editable hub list (URL and refresh span, each checked), presets, import and export."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.hublist import (
    BAD_SPAN,
    format_hubs,
    format_span,
    parse_hub_lines,
    parse_span,
    preset_text,
)
from crawler_gui.core.urls import check_lines
from crawler_gui.gui.dialogs.checks import ThreeColumnModel, reason_text
from crawler_gui.gui.dialogs.running import ask_file, run_dialog, show_message
from crawler_gui.gui.tasks import Tasks

_Index = QModelIndex | QPersistentModelIndex


@dataclass(slots=True)
class _HubEntry:
    text: str
    span: float
    url: str | None = None
    reason: str | None = None
    #: A span typed that is not a duration: shown as typed, with its reason, until fixed.
    bad_span: str | None = None

    def check(self) -> None:
        [(_, _, url, reason)] = check_lines([self.text]) or [(0, "", None, "empty")]
        self.url, self.reason = url, reason

    @property
    def problem(self) -> str | None:
        return self.reason or (BAD_SPAN if self.bad_span is not None else None)


class HubListModel(ThreeColumnModel):
    """Editable list of hubs: URL and refresh span (minutes), plus each URL's check."""

    def __init__(self, parent: Any = None, default_span: float = 300.0) -> None:
        super().__init__(parent)
        self.default_span = default_span
        self._rows: list[_HubEntry] = []
        self._headers = (self.tr("URL"), self.tr("Refresh every"), self.tr("Check"))

    def set_hubs(self, hubs: Sequence[tuple[str, float | None]]) -> None:
        self.beginResetModel()
        self._rows = []
        for text, span in hubs:
            e = _HubEntry(text, span if span is not None else self.default_span)
            e.check()
            self._rows.append(e)
        self.endResetModel()

    def add(self, text: str = "", span: float | None = None) -> int:
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        e = _HubEntry(text, span if span is not None else self.default_span)
        e.check()
        self._rows.append(e)
        self.endInsertRows()
        return n

    def remove(self, rows: Sequence[int]) -> None:
        from crawler_gui.gui.models import ranges

        for first, last in reversed(ranges(sorted(set(rows)))):
            self.beginRemoveRows(QModelIndex(), first, last)
            del self._rows[first : last + 1]
            self.endRemoveRows()

    def problems(self) -> list[tuple[int, str, str]]:
        return [(i + 1, e.text, e.problem) for i, e in enumerate(self._rows) if e.problem]

    def hubs(self) -> list[HubSpec]:
        out: dict[str, HubSpec] = {}
        for e in self._rows:
            if e.url and not e.problem:
                out[e.url] = HubSpec(e.url, e.span)
        return list(out.values())

    def flags(self, index: _Index) -> Qt.ItemFlag:
        f = super().flags(index)
        if index.isValid() and index.column() in (0, 1):
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < len(self._rows) and 0 <= c < 3):
            return None
        e = self._rows[r]
        if role == Qt.ItemDataRole.DisplayRole:
            if c == 0:
                return e.text
            if c == 1:
                return e.bad_span if e.bad_span is not None else format_span(e.span)
            return self.tr("ok") if e.problem is None else reason_text(e.problem)
        if role == Qt.ItemDataRole.EditRole:
            span = e.bad_span if e.bad_span is not None else format_span(e.span)
            return (e.text, span, None)[c]
        if role == Qt.ItemDataRole.ToolTipRole and c == 1:
            return self.tr("Seconds, or a number with s, m, h or d (5m, 1h)")
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole or index.column() > 1:
            return False
        e = self._rows[index.row()]
        if index.column() == 0:
            e.text = str(value).strip()
            e.check()
        else:
            span = parse_span(str(value))
            if span is None:  # kept as typed and shown as a problem, not dropped
                e.bad_span = str(value).strip()
            else:
                e.span, e.bad_span = span, None
        self.dataChanged.emit(self.index(index.row(), 0), self.index(index.row(), 2))
        return True


@dataclass(frozen=True, slots=True)
class HubsResult:
    hubs: list[HubSpec]
    hub_percent: int


class HubsDialog(QDialog):
    def __init__(
        self,
        parent: QWidget | None = None,
        hubs: Sequence[HubSpec] = (),
        hub_percent: int = 50,
        default_span: float = 300.0,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("hubs-dialog")
        self.setWindowTitle(self.tr("Hubs"))
        self.resize(760, 480)
        self.model = HubListModel(self, default_span)
        self.model.set_hubs([(h.url, h.span) for h in hubs])
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)

        self.add_button = QPushButton(self.tr("Add"), self)
        self.edit_button = QPushButton(self.tr("Edit"), self)
        self.remove_button = QPushButton(self.tr("Remove"), self)
        self.import_button = QPushButton(self.tr("Import…"), self)
        self.export_button = QPushButton(self.tr("Export…"), self)
        self.preset_button = QPushButton(self.tr("Load Sina News preset"), self)
        self.add_button.clicked.connect(self._add)
        self.edit_button.clicked.connect(self._edit)
        self.remove_button.clicked.connect(self._remove)
        self.tasks = Tasks()
        self.import_button.clicked.connect(lambda: self.tasks.spawn(self._import(), "import"))
        self.export_button.clicked.connect(lambda: self.tasks.spawn(self._export(), "export"))
        self.preset_button.clicked.connect(
            lambda: self.tasks.spawn(self._ask_preset(), "load the preset")
        )
        side = QVBoxLayout()
        for b in (
            self.add_button,
            self.edit_button,
            self.remove_button,
            self.import_button,
            self.export_button,
            self.preset_button,
        ):
            side.addWidget(b)
        side.addStretch(1)

        self.percent = QSpinBox(self)
        self.percent.setRange(0, 100)
        self.percent.setSuffix(" %")
        self.percent.setValue(hub_percent)
        self.percent.setToolTip(
            self.tr("At most this share of each batch of fetches goes to hubs that are due")
        )
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        middle = QHBoxLayout()
        middle.addWidget(self.table, 1)
        middle.addLayout(side)
        form = QFormLayout()
        form.addRow(self.tr("Hub share of each batch:"), self.percent)
        lay = QVBoxLayout(self)
        lay.addLayout(middle, 1)
        lay.addLayout(form)
        lay.addWidget(self.summary)
        lay.addWidget(self.buttons)
        for sig in (
            self.model.dataChanged,
            self.model.rowsInserted,
            self.model.rowsRemoved,
            self.model.modelReset,
        ):
            sig.connect(self._update_summary)
        self._update_summary()

    def ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def _update_summary(self, *_: object) -> None:
        problems = self.model.problems()
        if problems:
            line, text, reason = problems[0]
            self.summary.setText(
                self.tr("%1 hubs have a problem; fix or remove them. Row %2 (%3): %4")
                .replace("%1", str(len(problems)))
                .replace("%2", str(line))
                .replace("%3", text or "")
                .replace("%4", reason_text(reason))
            )
        else:
            self.summary.setText(self.tr("%1 hubs.").replace("%1", str(len(self.model.hubs()))))
        self.ok_button().setEnabled(not problems)

    def set_text(self, text: str) -> list[tuple[int, str, str]]:
        """Replace the list with the hubs of a ``URL [span]`` text; returns refused lines."""
        lines = parse_hub_lines(text)
        self.model.set_hubs([(h.text, h.span) for h in lines if h.reason != BAD_SPAN])
        return [(h.line, h.text, h.reason) for h in lines if h.reason]

    def text(self) -> str:
        return format_hubs(self.model.hubs(), header=self.tr("crawler-gui hubs: URL span"))

    def load_preset(self, *, keep: bool = False) -> None:
        """Put the Sina News preset in the list: instead of the hubs there, or after them
        (``keep``; a hub already listed keeps its span)."""
        text = preset_text("sina-news")
        if keep:
            have = {h.url for h in self.model.hubs()}
            for h in parse_hub_lines(text):
                if h.reason is None and h.url not in have:
                    self.model.add(h.text, h.span)
        else:
            self.set_text(text)

    async def _ask_preset(self) -> None:
        """The preset button: a list with hubs in it is never replaced without asking."""
        if not self.model.rowCount():
            self.load_preset()
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Load Sina News preset"),
            self.tr(
                "The list has %1 hubs. Replace them with the preset, "
                "or add the preset's hubs to them?"
            ).replace("%1", str(self.model.rowCount())),
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.setObjectName("message")
        replace_button = box.addButton(self.tr("Replace"), QMessageBox.ButtonRole.DestructiveRole)
        add_button = box.addButton(self.tr("Add to the list"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(add_button)
        try:
            await run_dialog(box)
            clicked = box.clickedButton()
        finally:
            box.deleteLater()
        if clicked is replace_button:
            self.load_preset()
        elif clicked is add_button:
            self.load_preset(keep=True)

    def _add(self) -> None:
        row = self.model.add("")
        index = self.model.index(row, 0)
        self.table.setCurrentIndex(index)
        self.table.edit(index)

    def _edit(self) -> None:
        index = self.table.currentIndex()
        if index.isValid():
            self.table.edit(
                self.model.index(index.row(), 0 if index.column() > 1 else index.column())
            )

    def _remove(self) -> None:
        rows = [i.row() for i in self.table.selectionModel().selectedRows()]
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        self.model.remove(rows)

    async def _import(self) -> None:
        path = await ask_file(
            self,
            self.tr("Import hubs"),
            save=False,
            name_filter=self.tr("Hub lists (*.txt);;All files (*)"),
        )
        if path is None:
            return
        try:
            text = await asyncio.to_thread(path.read_text, "utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            await show_message(self, QMessageBox.Icon.Warning, self.tr("Import hubs"), str(exc))
            return
        refused = self.set_text(text)
        if refused:
            detail = "\n".join(f"{line}: {t} ({reason_text(r)})" for line, t, r in refused[:20])
            await show_message(
                self,
                QMessageBox.Icon.Warning,
                self.tr("Import hubs"),
                self.tr("%1 lines were refused.").replace("%1", str(len(refused))),
                detail=detail,
            )

    async def _export(self) -> None:
        path = await ask_file(
            self,
            self.tr("Export hubs"),
            save=True,
            suffix="txt",
            name_filter=self.tr("Hub lists (*.txt);;All files (*)"),
        )
        if path is None:
            return
        try:
            await asyncio.to_thread(_write_atomic, path, self.text())
        except OSError as exc:
            await show_message(self, QMessageBox.Icon.Warning, self.tr("Export hubs"), str(exc))

    def result_value(self) -> HubsResult:
        return HubsResult(self.model.hubs(), self.percent.value())

    def accept(self) -> None:
        if not self.model.problems():
            super().accept()

    @classmethod
    async def ask(
        cls,
        parent: QWidget | None = None,
        hubs: Sequence[HubSpec] = (),
        hub_percent: int = 50,
        default_span: float = 300.0,
    ) -> HubsResult | None:
        dlg = cls(parent, hubs, hub_percent, default_span)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.result_value()
        finally:
            await dlg.tasks.cancel_all()
            dlg.deleteLater()


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, "utf-8")
    tmp.replace(path)
