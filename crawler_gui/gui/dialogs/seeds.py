"""Add seeds…: seed URLs pasted, typed or loaded from a file, each line checked as you type."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.urls import check_lines
from crawler_gui.gui.dialogs.checks import ThreeColumnModel, reason_text
from crawler_gui.gui.dialogs.running import ask_file, run_dialog, show_message
from crawler_gui.gui.tasks import Tasks

_Index = QModelIndex | QPersistentModelIndex


class ValidationModel(ThreeColumnModel):
    """One row per typed line: line number, the text, and "ok" or the refusal reason."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[tuple[int, str, str | None, str | None]] = []
        self._headers = (self.tr("Line"), self.tr("URL"), self.tr("Check"))

    def set_rows(self, rows: list[tuple[int, str, str | None, str | None]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rows(self) -> list[tuple[int, str, str | None, str | None]]:
        return list(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        r, c = index.row(), index.column()
        if not (0 <= r < len(self._rows) and 0 <= c < 3):
            return None
        line, text, url, reason = self._rows[r]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if c == 0:
                return str(line)
            if c == 1:
                return url or text
            if reason is None:
                return self.tr("ok")
            return self.tr("refused: %1").replace("%1", reason_text(reason))
        return None


class AddSeedsDialog(QDialog):
    """Paste or type seed URLs, one per line; each line is checked as you type."""

    def __init__(self, parent: QWidget | None = None, text: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("add-seeds-dialog")
        self.setWindowTitle(self.tr("Add seeds"))
        self.resize(720, 480)
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("seeds-editor")
        self.editor.setPlaceholderText(
            self.tr("One URL per line, for example\nhttp://news.sina.com.cn/")
        )
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.results = ValidationModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.results)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.horizontalHeader().setSectionResizeMode(
            0, QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.load_button = self.buttons.addButton(
            self.tr("Load from file…"), QDialogButtonBox.ButtonRole.ActionRole
        )
        self.tasks = Tasks()
        self.load_button.clicked.connect(self._load_file)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(
            QLabel(self.tr("URLs (blank lines and lines starting with # are ignored):"), self)
        )
        lay.addWidget(self.editor, 2)
        lay.addWidget(self.table, 2)
        lay.addWidget(self.summary)
        lay.addWidget(self.buttons)
        self._debounce = QTimer(self)
        self._debounce.setObjectName("validate-timer")
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(150)
        self._debounce.timeout.connect(self.validate)
        self.editor.textChanged.connect(self._debounce.start)
        self.editor.setPlainText(text)
        self.validate()

    def ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def validate(self) -> None:
        self._debounce.stop()
        rows = check_lines(self.editor.toPlainText().splitlines())
        self.results.set_rows(rows)
        good = self.urls()
        bad = len(rows) - len(good)
        if not rows:
            self.summary.setText(self.tr("Type or paste URLs above."))
        elif bad:
            self.summary.setText(
                self.tr(
                    "%1 URLs to add; %2 lines refused (see the reasons "
                    "above; they will not be added)."
                )
                .replace("%1", str(len(good)))
                .replace("%2", str(bad))
            )
        else:
            self.summary.setText(self.tr("%1 URLs to add.").replace("%1", str(len(good))))
        self.ok_button().setEnabled(bool(good))
        self.ok_button().setText(
            self.tr("Add %1").replace("%1", str(len(good))) if good else self.tr("Add")
        )

    def urls(self) -> list[str]:
        """The canonical URLs of the good lines, without duplicates, in order."""
        return list(
            dict.fromkeys(
                url
                for _, _, url, reason in self.results.rows()
                if url is not None and reason is None
            )
        )

    def refused(self) -> list[tuple[int, str, str]]:
        return [
            (line, text, reason)
            for line, text, _, reason in self.results.rows()
            if reason is not None
        ]

    def accept(self) -> None:
        self.validate()
        if self.urls():
            super().accept()

    def _load_file(self) -> None:
        self.tasks.spawn(self._load_file_async(), "load seeds file")

    async def _load_file_async(self) -> None:
        path = await ask_file(
            self,
            self.tr("Load URLs"),
            save=False,
            name_filter=self.tr("Text files (*.txt);;All files (*)"),
        )
        if path is None:
            return
        try:
            text = await asyncio.to_thread(path.read_text, "utf-8", "replace")
        except OSError as exc:
            await show_message(self, QMessageBox.Icon.Warning, self.tr("Load URLs"), str(exc))
            return
        self.editor.setPlainText(text)
        self.validate()

    @classmethod
    async def ask(cls, parent: QWidget | None = None, text: str = "") -> list[str] | None:
        """The canonical URLs to add, or None when cancelled."""
        dlg = cls(parent, text)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.urls()
        finally:
            await dlg.tasks.cancel_all()
            dlg.deleteLater()
