"""The Crawl menu's handlers (start, pause, stop, add seeds, hubs, settings) and the panes' row
actions (retry now, give up, refresh a hub, reclaim a worker's leases). A mixin of
:class:`~crawler_gui.gui.mainwindow.MainWindow`: each steers the window's session."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtWidgets import QMessageBox

from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.errors import CrawlerGuiError
from crawler_gui.gui import fmt, prefs
from crawler_gui.gui.dialogs.checks import reason_text
from crawler_gui.gui.dialogs.hubs import HubsDialog
from crawler_gui.gui.dialogs.running import show_message
from crawler_gui.gui.dialogs.seeds import AddSeedsDialog
from crawler_gui.gui.dialogs.settings import SettingsDialog
from crawler_gui.gui.protocols import is_shared
from crawler_gui.gui.windowbase import WindowBase

log = logging.getLogger(__name__)


class CrawlActions(WindowBase):
    """What the Crawl menu and the panes' row actions do."""

    def start(self) -> None:
        if self.session is None:
            return
        try:
            self.session.crawler.start()
        except (CrawlerGuiError, RuntimeError) as exc:
            self._task_failed(exc)
        log.info("crawl started")
        self._update_actions()

    def toggle_pause(self) -> None:
        if self.session is None:
            return
        crawler = self.session.crawler
        if crawler.state == CrawlState.PAUSED:
            crawler.resume()
            log.info("crawl resumed")
        elif crawler.state == CrawlState.RUNNING:
            crawler.pause()
            log.info("crawl paused")
        self._update_actions()

    async def stop(self) -> None:
        if self.session is None:
            return
        self._update_actions()
        self.state_label.setText(self.state_text(CrawlState.STOPPING))
        await self.session.crawler.stop()
        log.info("crawl stopped")
        self._update_actions()

    async def add_seeds(self) -> None:
        if self.session is None:
            return
        urls = await AddSeedsDialog.ask(self)
        if not urls or self.session is None:
            return
        report = await self.session.crawler.add_seeds(urls)
        self._report(self.tr("Seeds"), report)

    async def edit_hubs(self) -> None:
        if self.session is None:
            return
        crawler = self.session.crawler
        self.settings = self.session.settings  # (another window attached may have changed them)
        result = await HubsDialog.ask(
            self, await crawler.hubs(), self.settings.hub_percent, self.settings.hub_span
        )
        if result is None or self.session is None:
            return
        report = await crawler.set_hubs(result.hubs)
        if result.hub_percent != self.settings.hub_percent:
            import dataclasses

            self._apply_settings(dataclasses.replace(self.settings, hub_percent=result.hub_percent))
        self._report(self.tr("Hubs"), report)

    async def edit_settings(self) -> None:
        if self.session is not None:
            self.settings = self.session.settings  # (another window attached may have changed them)
        new = await SettingsDialog.ask(self, self.settings)
        if new is not None:
            self._apply_settings(new)

    def _apply_settings(self, new: CrawlSettings) -> None:
        self.settings = new
        if self.session is None or self.session.demo_site is None:
            prefs.save_settings(self.qsettings, new)  # the demo's tweaks are not remembered
        if self.session is not None:
            self.session.crawler.apply_settings(new)
            self.session.settings = new
        log.info("settings applied")

    def _report(self, what: str, report: Any) -> None:
        msg = (
            self.tr("%1: %2 added, %3 already known, %4 refused")
            .replace("%1", what)
            .replace("%2", str(report.added))
            .replace("%3", str(report.duplicate))
            .replace("%4", str(len(report.refused)))
        )
        self.statusBar().showMessage(msg, 10000)
        log.info("%s", msg)
        for url, reason in report.refused[:50]:
            log.warning("refused %s: %s", url, reason_text(reason))

    async def retry_now(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.retry_now(url):
            log.warning("%s is no longer retrying", url)

    async def give_up(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.give_up(url):
            log.warning("%s is no longer retrying", url)

    async def refresh_hub(self, url: str) -> None:
        if self.session is not None and not await self.session.frontier.refresh_hub(url):
            log.warning("%s is not a hub", url)

    async def reclaim_worker(self, worker: str, *, confirm: bool = True) -> int | None:
        """Put every lease of ``worker`` back into the shared pool now (one attempt counted
        each), after asking: a worker still alive would fetch those URLs a second time.
        Returns how many came back (None when not done)."""
        session = self.session
        if session is None or not is_shared(session.frontier):
            return None
        if confirm:
            model = self.workers_model
            row = model.get(worker)
            text = (
                self.tr(
                    "Put the %1 URLs leased by worker %2 back into the pool now? Each counts "
                    "as one failed attempt.\n\nDo this only for a worker that is dead: a "
                    "worker that is still alive would fetch these URLs a second time."
                )
                .replace("%1", fmt.count(row.in_flight if row is not None else 0))
                .replace("%2", worker)
            )
            if worker == model.own_worker:
                text += "\n\n" + self.tr("This is this window's own worker.")
            elif row is not None and row.heard and not model.is_silent(row, model.now):
                text += "\n\n" + self.tr(
                    "This worker sent a heartbeat %1 ago: it looks alive."
                ).replace("%1", fmt.duration(model.now - row.last_seen))
            answer = await show_message(
                self,
                QMessageBox.Icon.Warning,
                self.tr("Reclaim leases"),
                text,
                buttons=QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                default=QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes or self.session is not session:
                return None
        frontier = session.frontier
        if not is_shared(frontier):
            return None
        n = await frontier.reclaim_worker(worker)
        log.info("reclaimed %d leases of worker %s", n, worker)
        self.statusBar().showMessage(
            self.tr("%1 URLs of worker %2 went back to the pool")
            .replace("%1", fmt.count(n))
            .replace("%2", worker),
            10000,
        )
        self._workers_due = 0.0
        return n
