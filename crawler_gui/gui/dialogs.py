"""Dialogs. Each has an async ``ask()`` classmethod that opens it with ``open()`` and awaits its
``finished`` signal (never a nested ``exec()`` inside a coroutine), so tests drive it directly."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QProgressDialog,
    QPushButton,
    QSpinBox,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.hublist import (
    BAD_SPAN,
    REASON_TEXT,
    format_hubs,
    format_span,
    parse_hub_lines,
    parse_span,
    preset_text,
)
from crawler_gui.core.i18n import REASONS_CONTEXT
from crawler_gui.core.redis.location import parse_pool_url_full
from crawler_gui.core.urls import REASONS, check_lines
from crawler_gui.engine.scope import REASONS as SCOPE_REASONS
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.errors import ConfigError, PoolURLError
from crawler_gui.gui import fmt
from crawler_gui.gui.tasks import Tasks

log = logging.getLogger(__name__)
_Index = QModelIndex | QPersistentModelIndex


async def run_dialog(dialog: QDialog) -> int:
    """Open ``dialog`` window-modally and wait for it to finish; returns its result code.
    If the waiting coroutine is cancelled, the dialog is rejected."""
    fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def done(result: int) -> None:
        if not fut.done():
            fut.set_result(result)

    dialog.finished.connect(done)
    dialog.open()
    try:
        return await fut
    finally:
        if not fut.done():
            dialog.reject()
        dialog.finished.disconnect(done)


async def show_message(
    parent: QWidget | None,
    icon: QMessageBox.Icon,
    title: str,
    text: str,
    *,
    buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
    default: QMessageBox.StandardButton = QMessageBox.StandardButton.NoButton,
    detail: str = "",
) -> QMessageBox.StandardButton:
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setObjectName("message")
    box.setTextFormat(Qt.TextFormat.PlainText)  # error texts can quote URLs and file contents
    if detail:
        box.setInformativeText(detail)
    if default != QMessageBox.StandardButton.NoButton:
        box.setDefaultButton(default)
    try:
        await run_dialog(box)
        return (
            box.standardButton(box.clickedButton())
            if box.clickedButton()
            else (QMessageBox.StandardButton.Cancel)
        )
    finally:
        box.deleteLater()


_T = TypeVar("_T")


class Cancelled(Exception):
    """The user pressed Cancel in a :func:`run_busy` dialog."""


async def run_busy(
    parent: QWidget | None, title: str, text: str, work: Awaitable[_T], *, cancel: bool
) -> _T:
    """Await ``work`` behind a busy dialog (shown after 300 ms, window-modal, the window
    still repainting): a long save or load says it is running. With ``cancel`` its Cancel
    button cancels ``work`` and :class:`Cancelled` is raised; only for work whose
    cancellation loses nothing (a snapshot save removes its temporary file)."""
    inner = asyncio.ensure_future(work)
    async with _busy_dialog(parent, title, text, inner if cancel else None) as dlg:
        try:
            return await inner
        except asyncio.CancelledError:
            if dlg.wasCanceled() and not _cancelling():
                raise Cancelled() from None
            raise


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


@contextlib.asynccontextmanager
async def _busy_dialog(
    parent: QWidget | None, title: str, text: str, cancels: asyncio.Future[Any] | None
) -> AsyncIterator[QProgressDialog]:
    dlg = QProgressDialog(text, "", 0, 0, parent)
    dlg.setObjectName("busy-dialog")
    dlg.setWindowTitle(title)
    dlg.setWindowModality(Qt.WindowModality.WindowModal)
    dlg.setMinimumDuration(300)
    dlg.setAutoClose(False)
    dlg.setAutoReset(False)
    if cancels is None:
        dlg.setCancelButton(None)
    else:
        dlg.setCancelButtonText(QCoreApplication.translate("dialogs", "Cancel"))
        dlg.canceled.connect(cancels.cancel)
    dlg.setValue(0)  # starts the minimum-duration timer: shown if the work is still running
    try:
        yield dlg
    finally:
        dlg.close()
        dlg.deleteLater()


async def ask_file(
    parent: QWidget | None,
    title: str,
    *,
    save: bool,
    name_filter: str,
    directory: str = "",
    suffix: str = "",
) -> Path | None:
    dlg = QFileDialog(parent, title, directory, name_filter)
    dlg.setObjectName("file-dialog")
    if save:
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setFileMode(QFileDialog.FileMode.AnyFile)
        if suffix:
            dlg.setDefaultSuffix(suffix)
    else:
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
    try:
        ok = await run_dialog(dlg)
        files = dlg.selectedFiles()
        return Path(files[0]) if ok and files else None
    finally:
        dlg.deleteLater()


async def ask_directory(parent: QWidget | None, title: str, directory: str = "") -> Path | None:
    dlg = QFileDialog(parent, title, directory)
    dlg.setObjectName("directory-dialog")
    dlg.setFileMode(QFileDialog.FileMode.Directory)
    dlg.setOption(QFileDialog.Option.ShowDirsOnly, True)
    try:
        ok = await run_dialog(dlg)
        files = dlg.selectedFiles()
        return Path(files[0]) if ok and files else None
    finally:
        dlg.deleteLater()


def reason_text(reason: str) -> str:
    """The sentence for a refusal reason code, in the window's language."""
    text = REASON_TEXT.get(reason) or REASONS.get(reason) or SCOPE_REASONS.get(reason)
    return QCoreApplication.translate(REASONS_CONTEXT, text) if text else reason


# -- open a Redis pool -----------------------------------------------------------------

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
    """Asks for a Redis pool URL (``redis://host:port/db?name=news``), checked as you type."""

    def __init__(self, parent: QWidget | None = None, text: str = "") -> None:
        super().__init__(parent)
        self.setObjectName("redis-url-dialog")
        self.setWindowTitle(self.tr("Open Redis pool"))
        self.edit = QLineEdit(self)
        self.edit.setObjectName("redis-url")
        self.edit.setPlaceholderText("redis://127.0.0.1:6379/0?name=news")
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
        lay.addWidget(self.problem)
        lay.addWidget(self.buttons)
        self.edit.textChanged.connect(self.validate)
        self.edit.setText(text)
        self.validate()

    def ok_button(self) -> Any:
        return self.buttons.button(QDialogButtonBox.StandardButton.Open)

    def url(self) -> str:
        return self.edit.text().strip()

    def validate(self) -> bool:
        problem = redis_url_problem(self.url())
        self.problem.setText(problem or "")
        self.ok_button().setEnabled(problem is None)
        return problem is None

    def accept(self) -> None:
        if self.validate():
            super().accept()

    @classmethod
    async def ask(cls, parent: QWidget | None = None, text: str = "") -> str | None:
        """The URL typed, or None when cancelled. Opened with ``open()``, never ``exec()``."""
        dlg = cls(parent, text)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.url()
        finally:
            dlg.deleteLater()


# -- add seeds ----------------------------------------------------------------------------


class _ThreeColumnModel(QAbstractTableModel):
    """The plumbing of the dialogs' small tables: three columns over ``self._rows``, with
    ``self._headers``; read-only rows unless a subclass says otherwise."""

    _rows: list[Any]
    _headers: tuple[str, str, str]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < 3
        ):
            return self._headers[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemNeverHasChildren
        )


class ValidationModel(_ThreeColumnModel):
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


# -- hubs ---------------------------------------------------------------------------------


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


class HubListModel(_ThreeColumnModel):
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


# -- settings -----------------------------------------------------------------------------


def _domains(text: str) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            d.strip().lower().strip(".") for d in text.replace(",", " ").split() if d.strip(".")
        )
    )


class SettingsDialog(QDialog):
    """Concurrency, politeness, timeouts, depth, scope, robots and user agent."""

    def __init__(
        self, parent: QWidget | None = None, settings: CrawlSettings | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle(self.tr("Crawl settings"))
        self._base = settings or CrawlSettings()
        tabs = QTabWidget(self)

        fetch = QWidget(tabs)
        f1 = QFormLayout(fetch)
        self.concurrency = self._int(1, 1000, self.tr("Fetches at once over all hosts"))
        self.per_host = self._int(1, 16, self.tr("Fetches at once per host"))
        self.min_delay = self._float(0, 3600, " s")
        self.delay_factor = self._float(0, 100, " ×")
        self.max_delay = self._float(0, 3600, " s")
        self.connect_timeout = self._float(0.1, 600, " s")
        self.read_timeout = self._float(0.1, 3600, " s")
        self.total_timeout = self._float(0.1, 3600, " s")
        self.failure_threshold = self._int(0, 100, self.tr("Failed attempts before giving up"))
        f1.addRow(self.tr("Concurrency:"), self.concurrency)
        f1.addRow(self.tr("Per host:"), self.per_host)
        f1.addRow(self.tr("Minimum delay per host:"), self.min_delay)
        f1.addRow(self.tr("Delay factor (× response time):"), self.delay_factor)
        f1.addRow(self.tr("Maximum delay:"), self.max_delay)
        f1.addRow(self.tr("Connect timeout:"), self.connect_timeout)
        f1.addRow(self.tr("Read timeout:"), self.read_timeout)
        f1.addRow(self.tr("Total timeout:"), self.total_timeout)
        f1.addRow(self.tr("Retries:"), self.failure_threshold)
        self.hub_refresh = QComboBox(fetch)
        self.hub_refresh.setObjectName("hub-refresh")
        self.hub_refresh.addItem(self.tr("adaptive: by how often each hub publishes"), "adaptive")
        self.hub_refresh.addItem(self.tr("fixed: every hub on its own span"), "fixed")
        self.hub_refresh.setToolTip(
            self.tr(
                "Adaptive: the hubs share the fetches their spans allow (the same number), "
                "the busy ones more often, the quiet ones less"
            )
        )
        self.hub_span_min = self._float(1, 86400, " s")
        self.hub_span_min.setObjectName("hub-span-min")
        self.hub_span_min.setToolTip(self.tr("Adaptive refresh: no hub more often than this"))
        self.hub_span_max = self._float(1, 7 * 86400, " s")
        self.hub_span_max.setObjectName("hub-span-max")
        self.hub_span_max.setToolTip(
            self.tr("Adaptive refresh: every hub at least this often, a silent one too")
        )
        f1.addRow(self.tr("Hub refresh:"), self.hub_refresh)
        f1.addRow(self.tr("Shortest hub span:"), self.hub_span_min)
        f1.addRow(self.tr("Longest hub span:"), self.hub_span_max)
        tabs.addTab(fetch, self.tr("Fetching"))

        scope = QWidget(tabs)
        f2 = QFormLayout(scope)
        self.depth_limited = QCheckBox(self.tr("Limit depth to"), scope)
        self.max_depth = self._int(0, 1000, self.tr("Links followed from a seed or hub"))
        self.depth_limited.toggled.connect(self.max_depth.setEnabled)
        depth_row = QHBoxLayout()
        depth_row.addWidget(self.depth_limited)
        depth_row.addWidget(self.max_depth, 1)
        self.allow_domains = QLineEdit(scope)
        self.allow_domains.setPlaceholderText(self.tr("example.com, news.example.org"))
        self.deny_domains = QLineEdit(scope)
        self.follow_external = QCheckBox(self.tr("Follow links to other sites"), scope)
        self.obey_robots = QCheckBox(self.tr("Obey robots.txt"), scope)
        f2.addRow(self.tr("Depth:"), depth_row)
        f2.addRow(self.tr("Also allow domains:"), self.allow_domains)
        f2.addRow(self.tr("Deny domains:"), self.deny_domains)
        f2.addRow("", self.follow_external)
        f2.addRow("", self.obey_robots)
        tabs.addTab(scope, self.tr("Scope"))

        ident = QWidget(tabs)
        f3 = QFormLayout(ident)
        self.user_agent = QLineEdit(ident)
        f3.addRow(self.tr("User agent:"), self.user_agent)
        tabs.addTab(ident, self.tr("Identity"))

        storage = QWidget(tabs)
        f4 = QFormLayout(storage)
        self.sync = QComboBox(storage)
        self.sync.setObjectName("sync")
        for mode, text in (
            ("batch", self.tr("After every batch of results (safest, slowest)")),
            ("second", self.tr("At least once a second")),
            ("off", self.tr("When the system decides (fastest)")),
        ):
            self.sync.addItem(text, mode)
        self.sync.setToolTip(
            self.tr(
                "When the pool's writes are forced to the disk: bounds what a power cut can "
                "lose. A crash of the program alone loses nothing either way."
            )
        )
        self.min_free = self._float(0, 1_000_000, " MB")
        self.min_free.setObjectName("min-free")
        self.min_free.setToolTip(
            self.tr("The crawl pauses when a disk of the crawl has less free space; 0: never")
        )
        f4.addRow(self.tr("Write to the disk:"), self.sync)
        f4.addRow(self.tr("Pause below free space:"), self.min_free)
        tabs.addTab(storage, self.tr("Storage"))

        self.error = QLabel(self)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults,
            self,
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            lambda: self.load(CrawlSettings(allow_private=self._base.allow_private))
        )
        lay = QVBoxLayout(self)
        lay.addWidget(tabs)
        lay.addWidget(self.error)
        lay.addWidget(self.buttons)
        self.load(self._base)

    def _int(self, lo: int, hi: int, tip: str) -> QSpinBox:
        w = QSpinBox(self)
        w.setRange(lo, hi)
        w.setToolTip(tip)
        return w

    def _float(self, lo: float, hi: float, suffix: str) -> QDoubleSpinBox:
        w = QDoubleSpinBox(self)
        w.setRange(lo, hi)
        w.setDecimals(1)
        if suffix == " s":  # seconds, in the window's language ("%1 s" of fmt.duration)
            suffix = " " + QCoreApplication.translate("fmt", "%1 s").replace("%1", "").strip()
        w.setSuffix(suffix)
        return w

    def load(self, s: CrawlSettings) -> None:
        self.concurrency.setValue(s.concurrency)
        self.per_host.setValue(s.per_host)
        self.min_delay.setValue(s.min_delay)
        self.delay_factor.setValue(s.delay_factor)
        self.max_delay.setValue(s.max_delay)
        self.connect_timeout.setValue(s.connect_timeout)
        self.read_timeout.setValue(s.read_timeout)
        self.total_timeout.setValue(s.total_timeout)
        self.failure_threshold.setValue(s.failure_threshold)
        self.hub_refresh.setCurrentIndex(max(0, self.hub_refresh.findData(s.hub_refresh)))
        self.hub_span_min.setValue(s.hub_span_min)
        self.hub_span_max.setValue(s.hub_span_max)
        self.depth_limited.setChecked(s.max_depth is not None)
        self.max_depth.setEnabled(s.max_depth is not None)
        self.max_depth.setValue(s.max_depth if s.max_depth is not None else 5)
        self.allow_domains.setText(", ".join(s.allow_domains))
        self.deny_domains.setText(", ".join(s.deny_domains))
        self.follow_external.setChecked(s.follow_external)
        self.obey_robots.setChecked(s.obey_robots)
        self.user_agent.setText(s.user_agent)
        self.sync.setCurrentIndex(max(0, self.sync.findData(s.sync)))
        self.min_free.setValue(s.min_free_mb)

    def settings(self) -> CrawlSettings:
        """The edited settings; raises ConfigError when they are inconsistent."""
        ua = self.user_agent.text().strip()
        if not ua:
            raise ConfigError(self.tr("the user agent must not be empty"))
        return dataclasses.replace(
            self._base,
            concurrency=self.concurrency.value(),
            per_host=self.per_host.value(),
            min_delay=self.min_delay.value(),
            delay_factor=self.delay_factor.value(),
            max_delay=self.max_delay.value(),
            connect_timeout=self.connect_timeout.value(),
            read_timeout=self.read_timeout.value(),
            total_timeout=self.total_timeout.value(),
            failure_threshold=self.failure_threshold.value(),
            hub_refresh=str(self.hub_refresh.currentData()),
            hub_span_min=self.hub_span_min.value(),
            hub_span_max=self.hub_span_max.value(),
            max_depth=self.max_depth.value() if self.depth_limited.isChecked() else None,
            allow_domains=_domains(self.allow_domains.text()),
            deny_domains=_domains(self.deny_domains.text()),
            follow_external=self.follow_external.isChecked(),
            obey_robots=self.obey_robots.isChecked(),
            user_agent=ua,
            sync=str(self.sync.currentData()),
            min_free_mb=self.min_free.value(),
        )

    def accept(self) -> None:
        try:
            self.settings()
        except ConfigError as exc:
            self.error.setText(str(exc))
            return
        super().accept()

    @classmethod
    async def ask(
        cls, parent: QWidget | None = None, settings: CrawlSettings | None = None
    ) -> CrawlSettings | None:
        dlg = cls(parent, settings)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.settings()
        finally:
            dlg.deleteLater()


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
