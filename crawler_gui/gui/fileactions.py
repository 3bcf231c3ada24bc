"""The File menu's handlers: open a pool directory or a Redis pool, save and load a pool
snapshot, export records, save the crawl report; each asks for its file, works off the GUI
thread behind a busy or progress dialog and says what it did. A mixin of
:class:`~crawler_gui.gui.mainwindow.MainWindow`."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QProgressDialog

from crawler_gui.core import snapshot_file
from crawler_gui.core.credentials import (
    redis_with_password,
    with_redis_password,
    without_password,
)
from crawler_gui.core.redact import redact_url
from crawler_gui.engine.report import save_report
from crawler_gui.engine.settings import CrawlState
from crawler_gui.errors import ConfigError, CrawlerGuiError
from crawler_gui.gui import fmt, prefs
from crawler_gui.gui.crawlactions import CrawlActions
from crawler_gui.gui.dialogs.redis_url import RedisUrlDialog, redis_url_problem
from crawler_gui.gui.dialogs.running import (
    Cancelled,
    ask_directory,
    ask_file,
    run_busy,
    show_message,
)
from crawler_gui.gui.exporting import ExportDialog, export_to_file, inside
from crawler_gui.gui.protocols import is_local

log = logging.getLogger(__name__)

SNAPSHOT_FILTER = "crawler-gui pool snapshots (*.cgpool *.jsonl.gz *.gz);;All files (*)"
#: QSettings key of the last Redis pool URL opened (only kept when it holds no password).
LAST_REDIS_KEY = "pool/last_redis"


class FileActions(CrawlActions):
    """What the File menu does."""

    async def save_snapshot(self, path: Path | None = None) -> int | None:
        if self.session is None:
            return None
        if path is None:
            path = await ask_file(
                self,
                self.tr("Save pool snapshot"),
                save=True,
                name_filter=self.tr(SNAPSHOT_FILTER),
                suffix="cgpool",
            )
        if path is None or self.session is None:
            return None
        try:
            # The crawl's scope travels with the pool, so that the snapshot crawls on elsewhere
            # (an attached crawl adds its own).
            scope = self.session.crawler.scope.seed_domains
            n = int(
                await run_busy(
                    self,
                    self.tr("Save snapshot"),
                    self.tr("Saving the pool to %1…").replace("%1", str(path)),
                    self.session.frontier.save_snapshot(path, scope=scope),
                    cancel=True,  # the save stops at its next record and removes its file
                )
            )
        except Cancelled:
            self.statusBar().showMessage(self.tr("The snapshot was not saved (cancelled)."), 10000)
            log.info("snapshot save to %s cancelled", path)
            return None
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Save snapshot"), self.tr("The snapshot was not saved."), exc)
            return None
        self.statusBar().showMessage(
            self.tr("Saved %1 records to %2").replace("%1", fmt.count(n)).replace("%2", str(path)),
            10000,
        )
        log.info("saved %d records to %s", n, path)
        return n

    async def export_records(
        self,
        kind: str | None = None,
        file_format: str | None = None,
        path: Path | None = None,
    ) -> int | None:
        """File → Export…: the records of ``crawler-gui export`` (asked for when not given)
        to a file, written in a worker thread with a progress dialog that can cancel."""
        session = self.session
        if not is_local(session):
            return None
        store = session.store
        if kind is None or file_format is None:
            choice = await ExportDialog.ask(self, pages=store is not None)
            if choice is None:
                return None
            kind, file_format = choice
        if path is None:
            path = await ask_file(
                self,
                self.tr("Export"),
                save=True,
                name_filter={
                    "jsonl": self.tr("JSON Lines (*.jsonl)"),
                    "csv": self.tr("CSV (*.csv)"),
                    "warc": self.tr("WARC (*.warc.gz)"),
                }[file_format],
                suffix="warc.gz" if file_format == "warc" else file_format,
            )
        if path is None or self.session is not session:
            return None
        if inside(path, session.store_dir):
            await self.error(
                self.tr("Export"),
                self.tr("The file is inside the pool: write the export somewhere else."),
                ValueError(str(path)),
            )
            return None
        progress = QProgressDialog(self.tr("Exporting…"), self.tr("Cancel"), 0, 0, self)
        progress.setObjectName("export-progress")
        progress.setWindowTitle(self.tr("Export"))
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        if kind != "outcomes" and store is not None:
            progress.setMaximum(max(1, store.count()))
        self.export_progress = progress
        progress.show()
        try:
            n = await export_to_file(
                path, kind, file_format, store=store, frontier=session.frontier, progress=progress
            )
        except (CrawlerGuiError, OSError, ValueError) as exc:
            await self.error(self.tr("Export"), self.tr("The export was not written."), exc)
            return None
        finally:
            progress.close()
            progress.deleteLater()
        if n is None:
            self.statusBar().showMessage(self.tr("Export cancelled: nothing was written."), 10000)
            return None
        self.statusBar().showMessage(
            self.tr("Exported %1 records to %2")
            .replace("%1", fmt.count(n))
            .replace("%2", str(path)),
            10000,
        )
        log.info("exported %d %s records to %s", n, kind, path)
        return n

    async def save_report(self, path: Path | None = None) -> Path | None:
        """File → Save report…: the crawl report of ``crawler-gui report`` (one HTML file),
        gathered and written off the GUI thread behind a busy dialog. Attached to a crawl in
        another process, the crawl sends its counters (its page store is its own)."""
        session = self.session
        if session is None:
            return None
        if path is None:
            path = await ask_file(
                self,
                self.tr("Save report"),
                save=True,
                name_filter=self.tr("HTML (*.html)"),
                suffix="html",
            )
        if path is None or self.session is not session:
            return None
        where = session.store_dir if is_local(session) else session.location
        if isinstance(where, Path) and inside(path, where):
            await self.error(
                self.tr("Save report"),
                self.tr("The file is inside the pool: write the report somewhere else."),
                ValueError(str(path)),
            )
            return None
        try:
            await run_busy(
                self,
                self.tr("Save report"),
                self.tr("Writing the crawl report to %1…").replace("%1", str(path)),
                save_report(
                    session.frontier,
                    session.display_name,
                    path,
                    store=session.store if is_local(session) else None,
                    pending=session.crawler.pending_counters(),
                    state=session.crawler.state.value,
                ),
                cancel=False,
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Save report"), self.tr("The report was not saved."), exc)
            return None
        self.statusBar().showMessage(self.tr("Report saved to %1").replace("%1", str(path)), 10000)
        log.info("crawl report saved to %s", path)
        return path

    async def load_snapshot(self, path: Path | None = None, *, confirm: bool = True) -> int | None:
        if self.session is None:
            return None
        if path is None:
            path = await ask_file(
                self,
                self.tr("Load pool snapshot"),
                save=False,
                name_filter=self.tr(SNAPSHOT_FILTER),
            )
        if path is None or self.session is None:
            return None
        crawler = self.session.crawler
        if crawler.state in (CrawlState.RUNNING, CrawlState.PAUSED):
            if confirm:
                answer = await show_message(
                    self,
                    QMessageBox.Icon.Question,
                    self.tr("Load snapshot"),
                    self.tr(
                        "Loading a snapshot replaces the whole pool. The crawl is stopped "
                        "first. Continue?"
                    ),
                    buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                    default=QMessageBox.StandardButton.Cancel,
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return None
            await self.stop()
        if self.session is None:
            return None
        try:
            loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(path))
            n = int(
                await run_busy(
                    self,
                    self.tr("Load snapshot"),
                    self.tr("Loading %1 into the pool…").replace("%1", str(path)),
                    self.session.frontier.load_snapshot(path),
                    cancel=False,  # the database swap runs to its end
                )
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(
                self.tr("Load snapshot"),
                self.tr("The snapshot was not loaded; the pool is unchanged."),
                exc,
            )
            return None
        self._version = None
        await self._offer_snapshot_scope(loaded, confirm=confirm)
        self.statusBar().showMessage(
            self.tr("Loaded %1 records from %2")
            .replace("%1", fmt.count(n))
            .replace("%2", str(path)),
            10000,
        )
        log.info("loaded %d records from %s", n, path)
        return n

    async def _offer_snapshot_scope(self, loaded: frozenset[str], *, confirm: bool) -> None:
        """A loaded snapshot's crawl covers sites this crawl does not: ask whether they join
        its scope (without them, every link of those sites' pages would be refused as
        off-site). Without ``confirm`` they join."""
        session = self.session
        if not is_local(session):  # (an attached crawl loads no snapshot)
            return
        new = sorted(loaded - session.crawler.scope.seed_domains)
        if not new:
            return
        if confirm:
            shown = ", ".join(new[:5]) + (", …" if len(new) > 5 else "")
            answer = await show_message(
                self,
                QMessageBox.Icon.Question,
                self.tr("Load snapshot"),
                self.tr(
                    "The snapshot's crawl covers %1 site(s) this crawl does not: %2. Add them "
                    "to the crawl's scope, so that their links are followed?"
                )
                .replace("%1", fmt.count(len(new)))
                .replace("%2", shown),
                buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                default=QMessageBox.StandardButton.Yes,
            )
            if answer != QMessageBox.StandardButton.Yes or self.session is not session:
                return
        try:
            await session.crawler.add_scope_domains(new)
        except (CrawlerGuiError, OSError) as exc:
            await self.error(
                self.tr("Load snapshot"), self.tr("The crawl's scope was not changed."), exc
            )
            return
        log.info("%d site(s) of the snapshot joined the crawl's scope", len(new))

    async def open_redis_pool(self, url: str | None = None, password: str | None = None) -> bool:
        """Ask for a Redis pool URL and its password (unless given) and open it like a pool
        directory. The password (typed, or else ``CRAWLER_GUI_REDIS_PASSWORD`` for a URL
        without one) goes into the URL in memory only; the URL as typed is remembered when it
        carries no secret."""
        if self._open_session is None:
            return False
        if url is None:
            current = self.session.location if self.session is not None else ""
            last = (
                without_password(current)
                if isinstance(current, str)
                else str(self.qsettings.value(LAST_REDIS_KEY, "") or "")
            )
            asked = await RedisUrlDialog.ask(self, last)
            if asked is None:
                return False
            url, password = asked
        problem = redis_url_problem(url)
        try:
            if problem is not None:
                raise ConfigError(problem)
            location = (
                with_redis_password(url.strip(), password)
                if password is not None
                else redis_with_password(url.strip())
            )
        except ConfigError as exc:
            await self.error(
                self.tr("Open Redis pool"), self.tr("The pool could not be opened."), exc
            )
            return False
        opened = await self.open_pool(location)
        if opened and redact_url(url.strip()) == url.strip():
            self.qsettings.setValue(LAST_REDIS_KEY, url.strip())
        return opened

    async def open_pool(self, path: Path | str | None = None) -> bool:
        """Open a pool directory, or a Redis pool URL (``str`` starting with redis://)."""
        if self._open_session is None:
            return False
        if path is None:
            path = await ask_directory(
                self, self.tr("Open URL pool"), str(self.session.location) if self.session else ""
            )
        if path is None:
            return False
        old = self.session
        if old is not None:
            self.set_session(None)
            await self.pages_pane.close_source()  # the index stops reading the store first
            await old.close()
        try:
            new = await run_busy(
                self,
                self.tr("Open pool"),
                self.tr("Opening %1…").replace("%1", redact_url(str(path))),
                self._open_session(path, self.settings),
                cancel=False,  # a half-opened pool would have to be closed again
            )
        except (CrawlerGuiError, OSError) as exc:
            await self.error(self.tr("Open pool"), self.tr("The pool could not be opened."), exc)
            if old is not None:
                again = old.location if isinstance(old.location, str) else Path(old.location)
                try:
                    self.set_session(await self._open_session(again, self.settings))
                except (CrawlerGuiError, OSError):
                    log.exception("could not reopen %s", redact_url(str(old.location)))
            return False
        self.set_session(new)
        if isinstance(path, str):
            # Never remember a secret in the settings (user:pass@, ?password=, ...): a URL
            # with one is not remembered, and one remembered before is forgotten.
            if redact_url(path) == path:
                self.qsettings.setValue(LAST_REDIS_KEY, path)
            else:
                self.qsettings.remove(LAST_REDIS_KEY)
        else:
            prefs.set_last_pool(self.qsettings, Path(path))
        log.info("opened pool %s", new.display_name)
        return True
