"""File → Save report… in the window, driven as a user would (menu bar, file dialog), over a
real demo crawl: the HTML file holds the crawl's numbers; a file inside the pool is refused."""

from __future__ import annotations

import asyncio
import html
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QMessageBox

from crawler_gui.engine.report import article_stats
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui.app import open_and_show
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import run, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.slow]

SETTINGS = CrawlSettings(
    concurrency=8, min_delay=0.05, delay_factor=0.0, extract="on", extract_workers=1
)


@pytest.fixture(autouse=True)
def _logging(gui_log):
    yield


async def wait_top(cls):
    found = []

    def look():
        found[:] = [
            x for x in QApplication.topLevelWidgets() if isinstance(x, cls) and x.isVisible()
        ]
        return found

    await wait_for(look, timeout=10)
    return found[0]


def row_value(page: str, label: str) -> int:
    m = re.search(rf'<th scope="row">{re.escape(html.escape(label))}</th><td>([^<]*)</td>', page)
    assert m, label
    return int(html.unescape(m.group(1)).replace(",", "").split()[0])


def test_file_save_report_writes_the_crawls_report(aloop, qsettings, tmp_path):
    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=SETTINGS, qsettings=qsettings
        )
        assert w is not None
        try:
            session = w.session
            await wait_for(lambda: session.crawler.stats().articles_found >= 10, timeout=90)
            session.crawler.pause()
            await wait_for(lambda: session.crawler.in_flight == 0, timeout=60)
            if session.crawler.articles is not None:
                await session.crawler.articles.drain()
            assert w.act_report.isEnabled()

            # File → Save report… clicked in the menu bar, the file named in the dialog
            bar = w.menuBar()
            file_menu = bar.actions()[0].menu()
            QTest.mouseClick(
                bar,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
                bar.actionGeometry(bar.actions()[0]).center(),
            )
            await wait_for(file_menu.isVisible)
            QTest.mouseClick(
                file_menu,
                Qt.MouseButton.LeftButton,
                Qt.KeyboardModifier.NoModifier,
                file_menu.actionGeometry(w.act_report).center(),
            )
            files = await wait_top(QFileDialog)
            target = tmp_path / "report.html"
            name = files.findChild(QLineEdit, "fileNameEdit")  # Qt's own dialog offscreen
            name.setFocus()
            name.clear()
            QTest.keyClicks(name, str(target))
            QTest.keyClick(name, Qt.Key.Key_Return)
            await wait_for(target.exists, timeout=60)
            await wait_for(lambda: "Report saved" in w.statusBar().currentMessage(), timeout=30)
            page = target.read_text(encoding="utf-8")
            assert page.startswith("<!DOCTYPE html>") and "<script" not in page
            # The crawl's numbers: counted since it started, flushed to the pool or not yet.
            stats = session.crawler.stats()
            assert row_value(page, "Pages fetched (with an HTTP status)") == stats.pages
            stored = await asyncio.to_thread(article_stats, session.store)
            assert row_value(page, "Articles stored") == stored.count >= 10
            assert row_value(page, "Articles found") == stats.articles_found

            # inside the pool: refused with a message, nothing written
            inside = session.location / "report.html"
            task = asyncio.ensure_future(w.save_report(inside))
            box = await wait_top(QMessageBox)
            box.close()
            assert await task is None and not inside.exists()
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    delete_now(run(aloop, scenario(), timeout=240))
