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
from tests.gui.gui_helpers import find_top, run, wait_for, with_dialog

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


def test_a_damaged_page_store_shows_dialogs_and_the_window_goes_on(aloop, qsettings, tmp_path):
    """A damaged value in the page store (a bit flipped in a table): the Pages pane, the Page
    detail and a rebuild of the search index each meet it and say so in a dialog naming the
    store and `crawler-gui repair` (the live refresh once, not every second); the window keeps
    running, its other panes too."""
    from tests.damage import damage_pages, make_pool

    pool_dir = tmp_path / "pool"
    make_pool(pool_dir, pages=100)
    damage_pages(pool_dir, 50)  # (a block the open does not read: the window opens)
    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText() + "\n" + box.detailedText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        w = await open_and_show(pool_dir, settings=CrawlSettings(), qsettings=qsettings)
        assert w is not None
        try:
            dock = w.docks["pages"]
            dock.show()
            dock.raise_()
            pane = w.pages_pane
            await wait_for(lambda: pane.store is not None, timeout=10)
            await pane.refresh()  # the live refresh (the window's tick does the same)
            await with_dialog(QMessageBox, read_and_close, timeout=20)
            assert pane.info.text().startswith("Cannot read the pages")
            await pane.refresh()  # again: said in the pane, no second dialog
            await asyncio.sleep(0.3)
            assert find_top(QMessageBox) is None
            pane.detail_requested.emit(51)  # the damaged page's detail (sequence numbers from 1)
            await with_dialog(QMessageBox, read_and_close, timeout=20)
            pane.rebuild_button.click()
            await with_dialog(QMessageBox, read_and_close, timeout=30)
            await wait_for(lambda: not pane.rebuilding, timeout=10)
            # The window goes on: its refresh ticks, the pool's panes are filled.
            ticks = w.ticks
            await wait_for(lambda: w.ticks > ticks + 1, timeout=10)
            assert w.hosts_model.rowCount() == 20 and not w.is_closed
        finally:
            w.close()
            await w.wait_closed()

    run(aloop, scenario(), timeout=90)
    assert len(seen) == 3, seen
    for text in seen:
        assert "damaged" in text and "checksum" in text, text
        assert f"crawler-gui repair {pool_dir}" in text, text


def test_a_damaged_pool_record_fails_a_snapshot_save_in_a_dialog(aloop, qsettings, tmp_path):
    from tests.damage import damage_urls, make_pool

    pool_dir = tmp_path / "pool"
    make_pool(pool_dir)
    damage_urls(pool_dir)
    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText() + "\n" + box.detailedText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        w = await open_and_show(pool_dir, settings=CrawlSettings(), qsettings=qsettings)
        assert w is not None
        try:
            saving = asyncio.ensure_future(w.save_snapshot(tmp_path / "pool.cgpool"))
            await with_dialog(QMessageBox, read_and_close, timeout=20)
            assert await saving is None
            assert w.session is not None and not w.is_closed
        finally:
            w.close()
            await w.wait_closed()

    run(aloop, scenario())
    assert not (tmp_path / "pool.cgpool").exists()
    assert seen and "The snapshot was not saved." in seen[0], seen
    assert "damaged" in seen[0] and f"crawler-gui repair {pool_dir}" in seen[0], seen


def _opening_fails_with(aloop, qsettings, location: Path, *, demo: bool = False) -> str:
    """Open ``location`` in the window as ``crawler-gui [--demo] POOL`` does: it fails with a
    dialog; its text."""
    seen: list[str] = []

    def read_and_close(box: QMessageBox) -> None:
        seen.append(box.text() + "\n" + box.informativeText() + "\n" + box.detailedText())
        box.button(QMessageBox.StandardButton.Ok).click()

    async def scenario() -> None:
        opening = asyncio.ensure_future(
            open_and_show(location, demo=demo, settings=CrawlSettings(), qsettings=qsettings)
        )
        await with_dialog(QMessageBox, read_and_close, timeout=20)
        assert await opening is None

    run(aloop, scenario())
    assert len(seen) == 1, seen
    return seen[0]


def test_a_read_only_pool_opens_to_a_dialog_that_says_so(aloop, qsettings, tmp_path):
    from tests.damage import make_pool
    from tests.mounts import read_only, tmpfs

    disk = tmp_path / "disk"
    disk.mkdir()
    with tmpfs(disk, "size=16m"):
        make_pool(disk / "pool")
        with read_only(disk):
            text = _opening_fails_with(aloop, qsettings, disk / "pool")
    assert "could not be opened" in text and "the file system is read-only" in text, text
    assert "in use" not in text and "another" not in text, text
    assert qsettings.value("pool/last") is None  # nothing remembered either


def test_the_demo_of_a_pool_in_use_writes_nothing_first(aloop, qsettings, tmp_path):
    """``crawler-gui --demo`` on a demo pool another window holds: it says so, and the demo
    site's demo.json is as it was (it was rewritten before the pool's open failed)."""
    pool_dir = tmp_path / "demo-pool"
    held = LevelDBPool.open(pool_dir)
    kept = '{"port": 1, "left": "as it was"}'  # (a rewrite would keep the port alone)
    (pool_dir / "demo.json").write_text(kept)
    try:
        text = _opening_fails_with(aloop, qsettings, pool_dir, demo=True)
    finally:
        held.close_sync()
    assert "already open" in text, text
    assert (pool_dir / "demo.json").read_text() == kept
