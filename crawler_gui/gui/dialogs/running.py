"""Opening a dialog from a coroutine: :func:`run_dialog` opens it with ``open()`` and awaits its
``finished`` signal (never a nested ``exec()`` inside a coroutine), a message box, a busy dialog
over long work, and the file and folder pickers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QProgressDialog, QWidget


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
