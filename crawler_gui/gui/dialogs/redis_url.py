"""File → Open Redis pool…: the URL dialog, checked as you type by the core's own parser."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.credentials import REDIS_PASSWORD_ENV
from crawler_gui.core.redis.location import parse_pool_url_full
from crawler_gui.errors import PoolURLError
from crawler_gui.gui.dialogs.running import run_dialog

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def redis_url_problem(text: str) -> str | None:
    """Why ``text`` is not a Redis pool URL we can open (None when it is one), checked as you
    type in the "Open Redis pool" dialog. The core's own parser decides (what the command line
    and the session accept, the dialog accepts: ``redis://``, ``rediss://``, ``unix://``); a
    refusal is said in the window's language where we have the words for it."""
    text = text.strip()
    if not text:
        return QApplication.translate("RedisUrlDialog", "Type a Redis pool URL.")
    try:
        parse_pool_url_full(text)
    except PoolURLError as exc:
        return _redis_url_words(text) or str(exc)
    return None


def _redis_url_words(text: str) -> str | None:
    """The translated sentence for the commonest mistakes in a Redis pool URL."""
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("redis", "rediss", "unix"):
        return QApplication.translate(
            "RedisUrlDialog", "Only redis://, rediss:// and unix:// URLs can be opened."
        )
    try:
        port = parts.port
    except ValueError:
        return QApplication.translate("RedisUrlDialog", "The port is not a number (1-65535).")
    if parts.scheme != "unix":
        if not parts.hostname:
            return QApplication.translate("RedisUrlDialog", "The URL has no host.")
        if port is not None and not 0 < port < 65536:
            return QApplication.translate("RedisUrlDialog", "The port is not a number (1-65535).")
        db = parts.path.strip("/")
        if db and not db.isdigit():
            return QApplication.translate(
                "RedisUrlDialog", "The database after the slash must be a number."
            )
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key == "name" and (not value or not set(value) <= _NAME_CHARS):
            return QApplication.translate(
                "RedisUrlDialog", "The pool name may use letters, digits, _ . - only."
            )
    return None


class RedisUrlDialog(QDialog):
    """Asks for a Redis pool URL (``redis://host:port/db?name=news``), checked as you type,
    and the pool's password apart from it: typed hidden, kept in memory only (the URL may be
    remembered, the password never)."""

    def __init__(self, parent: QWidget | None = None, text: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("redis-url-dialog")
        self.setWindowTitle(self.tr("Open Redis pool"))
        self.edit = QLineEdit(self)
        self.edit.setObjectName("redis-url")
        self.edit.setPlaceholderText("redis://127.0.0.1:6379/0?name=news")
        self.password = QLineEdit(self)
        self.password.setObjectName("redis-password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(
            self.tr("Password (empty: none, or %1)").replace("%1", REDIS_PASSWORD_ENV)
        )
        self.problem = QLabel(self)
        self.problem.setObjectName("redis-url-problem")
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(
            QLabel(
                self.tr(
                    "Join a shared URL pool on a Redis server as one more "
                    "worker. The window shows the whole pool; Pause and "
                    "Resume reach every worker."
                ),
                self,
            )
        )
        lay.addWidget(self.edit)
        lay.addWidget(self.password)
        lay.addWidget(self.problem)
        lay.addWidget(self.buttons)
        self.edit.textChanged.connect(self.validate)
        self.edit.setText(text)
        self.validate()

    def ok_button(self) -> Any:
        return self.buttons.button(QDialogButtonBox.StandardButton.Open)

    def url(self) -> str:
        return self.edit.text().strip()

    def typed_password(self) -> str | None:
        return self.password.text() or None

    def validate(self) -> bool:
        problem = redis_url_problem(self.url())
        self.problem.setText(problem or "")
        self.ok_button().setEnabled(problem is None)
        return problem is None

    def accept(self) -> None:
        if self.validate():
            super().accept()

    @classmethod
    async def ask(
        cls, parent: QWidget | None = None, text: str = ""
    ) -> tuple[str, str | None] | None:
        """The URL and the password typed (None: none typed), or None when cancelled. Opened
        with ``open()``, never ``exec()``."""
        dlg = cls(parent, text)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.url(), dlg.typed_password()
        finally:
            dlg.password.clear()
            dlg.deleteLater()
