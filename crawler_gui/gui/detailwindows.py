"""The detail windows opened from the panes: one host's detail and control (one window per host,
fed each refresh's row), one fetched page's detail, one article's text. A mixin of
:class:`~crawler_gui.gui.mainwindow.MainWindow`."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from crawler_gui.gui.dialogs.article import ArticleDialog
from crawler_gui.gui.hostdetail import HostDetailDialog
from crawler_gui.gui.models import KeyRole
from crawler_gui.gui.pagedetail import PageDetailDialog, load_page
from crawler_gui.gui.windowbase import WindowBase

log = logging.getLogger(__name__)


class DetailWindows(WindowBase):
    """Opens and feeds the Host, Page and Article detail windows."""

    # ---- one host: detail and control (through the crawl's run-control API) -------------------
    def _host_double_clicked(self, index: QModelIndex) -> None:
        host = index.data(KeyRole)
        if host:
            self.tasks.spawn(self.show_host(str(host)), "host detail")

    async def show_host(self, host: str) -> HostDetailDialog | None:
        """The Host detail of ``host`` (one window per host; a second ask raises it)."""
        if self.session is None:
            return None
        dlg = self.host_dialogs.get(host)
        if dlg is None:
            dlg = HostDetailDialog(
                host,
                self.session.crawler,
                self.tasks.spawn,
                self,
                max_in_flight=self.settings.per_host,
            )
            dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dlg.pages_button.setVisible(self.pages_pane.store is not None)
            dlg.pages_requested.connect(self._show_host_pages)
            if self.pages_pane.store is not None:
                dlg.results = self.pages_pane.host_results
            dlg.page_requested.connect(
                lambda seq: self.tasks.spawn(self.show_page(seq), "page detail")
            )
            ident = id(dlg)
            dlg.finished.connect(lambda _r=0, h=host, i=ident: self._host_dialog_closed(h, i))
            self.host_dialogs[host] = dlg
            row = self.hosts_model.get(host)
            if row is not None:
                dlg.update_row(row, self.hosts_model.now)
        dlg.show()
        dlg.raise_()
        await dlg.loaded()
        return dlg

    def _host_dialog_closed(self, host: str, ident: int) -> None:
        if id(self.host_dialogs.get(host)) == ident:
            del self.host_dialogs[host]

    def _update_host_dialogs(self, now: float) -> None:
        for host, dlg in self.host_dialogs.items():
            row = self.hosts_model.get(host)
            if row is not None:
                dlg.update_row(row, now)

    def _show_host_pages(self, host: str) -> None:
        """The Pages pane, filtered to one host: its results, newest first."""
        self.pages_pane.host_filter.setText(host)
        dock = self.docks.get("pages")
        if dock is not None:
            dock.show()
            dock.raise_()

    async def pause_host(self, host: str, paused: bool) -> None:
        if self.session is not None:
            await self.session.crawler.pause_host(host, paused)

    async def show_page(self, seq: int) -> PageDetailDialog | None:
        """The Page detail of the fetch ``seq`` (read in a worker thread)."""
        store = self.pages_pane.store
        if store is None:
            return None
        view = await asyncio.to_thread(load_page, store, seq)
        if view is None or self._closed:
            return None
        dlg = PageDetailDialog(view, self)
        self.page_dialog = dlg
        dlg.show()
        return dlg

    def _show_article(self, index: Any) -> None:
        """Double-click in the Articles pane: the extracted text beside the URL and kind."""
        src = self.articles_pane.source_index(index)
        if not src.isValid():
            return
        dlg = ArticleDialog(self.articles_model.article(src.row()), self)
        self.article_dialog = dlg
        dlg.show()
