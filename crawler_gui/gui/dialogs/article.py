"""One article's extracted text, opened from the Articles pane."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.gui import fmt


class ArticleDialog(QDialog):
    """One article's extracted text beside its URL, kind and times (read-only)."""

    def __init__(self, article: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("article-dialog")
        self.setWindowTitle(article.title or self.tr("Article"))
        self.resize(720, 560)
        form = QFormLayout()
        self.url = QLabel(article.url, self)
        self.url.setTextFormat(Qt.TextFormat.PlainText)
        self.url.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.kind = QLabel(article.kind, self)
        self.kind.setTextFormat(Qt.TextFormat.PlainText)
        self.published = QLabel(article.published or self.tr("unknown"), self)
        self.published.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(self.tr("URL"), self.url)
        form.addRow(self.tr("Kind"), self.kind)
        form.addRow(self.tr("Published"), self.published)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("article-text")
        self.text.setReadOnly(True)
        self.text.setPlainText(article.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = QPushButton(self.tr("Open in browser"), self)
        target = fmt.web_url(article.url)  # http(s) only
        self.open_button.setEnabled(target is not None)
        if target is not None:
            self.open_button.clicked.connect(lambda: QDesktopServices.openUrl(target))
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.text, 1)
        lay.addWidget(buttons)
