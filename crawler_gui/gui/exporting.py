"""File → Export…: the command line's export records (``engine.export``), written from the
window as JSON Lines, CSV or WARC, in a worker thread, with a progress dialog that can cancel.

A file is written whole or not at all (``engine.export.atomic_text_file``): a cancel or an
error leaves the previous file as it was.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QProgressDialog,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.core.frontier import Frontier
from crawler_gui.engine.export import (
    EXPORT_FORMATS,
    WARC_RECORDS,
    ExportCancelled,
    article_records,
    atomic_file,
    atomic_text_file,
    check_choice,
    page_records,
    write_records,
    write_warc,
)
from crawler_gui.engine.store import PageStore
from crawler_gui.gui.dialogs.running import run_dialog

__all__ = ["ExportDialog", "export_to_file", "inside"]

#: Records written between two progress updates (and cancel checks).
STEP = 500


def inside(target: Path, folder: Path) -> bool:
    """``target`` is ``folder`` or in it (a pool's own files are never overwritten)."""
    out = target.expanduser().resolve()
    root = folder.expanduser().resolve()
    return out == root or root in out.parents


class ExportDialog(QDialog):
    """Which records and which format."""

    def __init__(self, parent: QWidget | None = None, *, pages: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("export-dialog")
        self.setWindowTitle(self.tr("Export"))
        self.records = QComboBox(self)
        self.records.setObjectName("export-records")
        if pages:
            self.records.addItem(self.tr("Pages: one record per stored page"), "pages")
            self.records.addItem(
                self.tr("Articles: the pages judged articles, with text"), "articles"
            )
        self.records.addItem(
            self.tr("URL outcomes: every URL of the pool and its state"), "outcomes"
        )
        self.format = QComboBox(self)
        self.format.setObjectName("export-format")
        labels = {
            "jsonl": self.tr("JSON Lines (.jsonl)"),
            "csv": self.tr("CSV (.csv)"),
            "warc": self.tr("WARC (.warc.gz): the pages as fetched"),
        }
        for name in EXPORT_FORMATS:
            self.format.addItem(labels[name], name)
        self.records.currentIndexChanged.connect(self._records_changed)
        self._records_changed()
        form = QFormLayout()
        form.addRow(self.tr("Records:"), self.records)
        form.addRow(self.tr("Format:"), self.format)
        note = QLabel(self.tr("The same records as crawler-gui export (docs/storage.md)."), self)
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(note)
        lay.addWidget(buttons)

    def _records_changed(self, *_args: object) -> None:
        """WARC only for the record types with a body: for URL outcomes it is greyed out."""
        warc = self.format.findData("warc")
        item = self.format.model().item(warc)  # type: ignore[attr-defined]
        ok = self.records.currentData() in WARC_RECORDS
        item.setEnabled(ok)
        if not ok and self.format.currentIndex() == warc:
            self.format.setCurrentIndex(self.format.findData("jsonl"))

    def choice(self) -> tuple[str, str]:
        return str(self.records.currentData()), str(self.format.currentData())

    @classmethod
    async def ask(cls, parent: QWidget | None, *, pages: bool) -> tuple[str, str] | None:
        dlg = cls(parent, pages=pages)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.choice()
        finally:
            dlg.deleteLater()


async def export_to_file(
    target: Path,
    kind: str,
    fmt: str,
    *,
    store: PageStore | None = None,
    frontier: Frontier | None = None,
    progress: QProgressDialog | None = None,
) -> int | None:
    """Write the ``kind`` records to ``target``; the number written, or None when cancelled
    (the target is then left as it was). Raises OSError when the file cannot be written."""
    cancel = threading.Event()
    loop = asyncio.get_running_loop()
    if progress is not None:
        progress.canceled.connect(cancel.set)

    def shown(n: int) -> None:  # any thread: the dialog is updated on the loop
        if progress is not None:
            loop.call_soon_threadsafe(_set_progress, progress, n)

    try:
        check_choice(kind, fmt)
        if fmt == "warc":
            if store is None:
                raise ValueError("no page store to export from")

            def write_warc_file() -> int:
                with atomic_file(target, binary=True) as fh:
                    done = write_warc(
                        fh,
                        store,
                        kind=kind,
                        name=target.name,
                        progress=shown,
                        cancelled=cancel.is_set,
                        every=STEP,
                    )
                return done.pages

            return await asyncio.to_thread(write_warc_file)
        if kind in ("pages", "articles"):
            if store is None:
                raise ValueError("no page store to export from")
            records = page_records if kind == "pages" else article_records

            def write_pages() -> int:
                with atomic_text_file(target) as fh:
                    return write_records(
                        fh,
                        records(store),
                        fmt=fmt,
                        kind=kind,
                        progress=shown,
                        cancelled=cancel.is_set,
                        every=STEP,
                    )

            return await asyncio.to_thread(write_pages)
        if frontier is None:
            raise ValueError("no pool to export from")
        # The pool reads its records in batches; each batch is written in a worker thread
        # (one CSV header: the first batch writes it).
        with atomic_text_file(target) as fh:
            n = 0
            batch: list[dict[str, Any]] = []
            first = True
            async for rec in frontier.iter_outcomes():
                batch.append(rec)
                if len(batch) >= STEP:
                    n += await asyncio.to_thread(_write_batch, fh, batch, fmt, kind, first)
                    first, batch = False, []
                    if cancel.is_set():
                        raise ExportCancelled(f"cancelled after {n} records")
                    shown(n)
            if batch or first:
                n += await asyncio.to_thread(_write_batch, fh, batch, fmt, kind, first)
            shown(n)
            return n
    except ExportCancelled:
        return None
    finally:
        if progress is not None:
            progress.canceled.disconnect(cancel.set)


def _write_batch(fh: Any, batch: list[dict[str, Any]], fmt: str, kind: str, header: bool) -> int:
    return write_records(fh, batch, fmt=fmt, kind=kind, header=header)


def _set_progress(dlg: QProgressDialog, n: int) -> None:
    try:
        if dlg.maximum() and n > dlg.maximum():
            dlg.setMaximum(n)
        dlg.setValue(n)
        text = QApplication.translate("ExportDialog", "%1 records written…")
        dlg.setLabelText(text.replace("%1", f"{n:,}"))
    except RuntimeError:  # the dialog is gone
        pass
