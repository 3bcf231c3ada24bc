"""A damaged pool and a full disk in the window: a dialog, never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import plyvel
import pytest
from PySide6.QtWidgets import QMessageBox

from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui.app import open_and_show
from tests.gui.gui_helpers import run, with_dialog

pytestmark = pytest.mark.gui


def corrupt_pool(path: Path) -> None:
    async def fill() -> None:
        pool = LevelDBPool.open(path)
        await pool.add_many([f"http://h{i % 20}.example.com/p{i}" for i in range(2000)])
        await pool.close()

    asyncio.run(fill())
    db = plyvel.DB(str(path / DB_DIRNAME))
    db.compact_range()
    db.close()
    for table in (path / DB_DIRNAME).glob("*.ldb"):
        data = bytearray(table.read_bytes())
        data[100:164] = bytes(64)
        table.write_bytes(bytes(data))


@pytest.mark.parametrize("fault", ["table", "current"])
def test_a_damaged_pool_opens_to_a_dialog(aloop, qsettings, tmp_path, fault):
    pool_dir = tmp_path / "pool"
    corrupt_pool(pool_dir)
    if fault == "current":
        (pool_dir / DB_DIRNAME / "CURRENT").unlink()
    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        opening = asyncio.ensure_future(
            open_and_show(pool_dir, settings=CrawlSettings(), qsettings=qsettings)
        )
        await with_dialog(QMessageBox, read_and_close, timeout=20)
        assert await opening is None

    run(aloop, scenario())
    assert seen and "could not be opened" in seen[0] and "repair" in seen[0], seen


def test_a_storage_pause_shows_a_dialog(aloop, qsettings, tmp_path):
    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        w = await open_and_show(tmp_path / "pool", settings=CrawlSettings(), qsettings=qsettings)
        assert w is not None
        try:
            for listener in list(w.session.crawler.storage_listeners):
                listener("the disk is full: the pool cannot be written")
            await with_dialog(QMessageBox, read_and_close, timeout=20)
        finally:
            w.close()
            await w.wait_closed()

    run(aloop, scenario())
    assert seen and "paused" in seen[0] and "the disk is full" in seen[0], seen


def test_the_sync_mode_and_free_space_floor_are_settings(qtbot, qsettings):
    from crawler_gui.engine.crawler import pool_config
    from crawler_gui.gui import prefs
    from crawler_gui.gui.dialogs.settings import SettingsDialog

    dlg = SettingsDialog(settings=CrawlSettings())
    qtbot.addWidget(dlg)
    assert dlg.sync.currentData() == "second" and dlg.min_free.value() == 100.0
    assert pool_config(dlg.settings()).sync_seconds == 1.0
    dlg.sync.setCurrentIndex(dlg.sync.findData("batch"))
    dlg.min_free.setValue(500)
    s = dlg.settings()
    assert (s.sync, s.min_free_mb) == ("batch", 500.0)
    assert pool_config(s).sync and pool_config(s).sync_seconds is None
    off = pool_config(CrawlSettings(sync="off"))
    assert not off.sync and off.sync_seconds is None
    prefs.save_settings(qsettings, s)
    assert prefs.load_settings(qsettings).sync == "batch"


def test_a_crawl_that_fails_on_a_clear_error_shows_it_and_a_switch_leaves_the_old_crawl(
    aloop, qsettings, tmp_path
):
    """The window joins its crawl's listener lists (state, storage) and leaves them when it
    opens another pool: the old crawl then reaches it no more."""
    from crawler_gui.errors import CrawlerGuiError

    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText() + "\n" + box.detailedText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        w = await open_and_show(tmp_path / "pool", settings=CrawlSettings(), qsettings=qsettings)
        assert w is not None
        try:
            crawler = w.session.crawler
            assert w._on_state in crawler.state_listeners
            assert w._on_storage_full in crawler.storage_listeners

            async def refuse() -> None:
                raise CrawlerGuiError("the proxy refused every connection")

            crawler.fetcher.start = refuse
            w.start()
            await with_dialog(QMessageBox, read_and_close, timeout=20)
            assert await w.open_pool(tmp_path / "other")
            assert w.session.crawler is not crawler
            assert w._on_state not in crawler.state_listeners
            assert w._on_storage_full not in crawler.storage_listeners
            assert w._on_state in w.session.crawler.state_listeners
        finally:
            w.close()
            await w.wait_closed()

    run(aloop, scenario())
    assert seen and "The crawl stopped." in seen[0], seen
    assert "the proxy refused every connection" in seen[0], seen
