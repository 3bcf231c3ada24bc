"""The window attached to a real ``crawler-gui crawl`` process (the demo site in another
process, both on loopback), opened the way ``crawler-gui POOL`` opens it (``open_and_show``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crawler_gui.engine.control.attached import AttachedSession
from crawler_gui.engine.settings import CrawlState
from crawler_gui.gui.app import open_and_show
from crawler_gui.gui.dialogs.seeds import AddSeedsDialog
from tests.crawl_procs import Crawl, demo_site
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import run, wait_for, with_dialog

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_the_window_attaches_pauses_the_crawl_adds_a_seed_and_leaves_it_running(
    aloop, qtbot, qsettings, tmp_path: Path, gui_log
):
    pool = tmp_path / "pool"
    with demo_site(tmp_path) as port:
        crawl = Crawl(pool, port).start()
        window = None
        try:
            window = run(aloop, open_and_show(pool, qsettings=qsettings))
            assert window is not None and isinstance(window.session, AttachedSession)
            assert "attached to a running crawl" in window.windowTitle()
            first_host = f"127.0.0.1:{port}"
            new_host = f"127.0.0.2:{port}"

            async def pages_of(watcher) -> int:
                await watcher.frontier.snapshot()  # brings the crawl's latest stats
                return watcher.crawler.stats().pages

            async def more_pages(watcher, than: int) -> None:
                for _ in range(600):
                    if await pages_of(watcher) > than:
                        return
                    await asyncio.sleep(0.1)
                raise AssertionError(f"the crawl fetched nothing after {than} pages")

            async def scenario():
                watcher = await AttachedSession.attach(pool)  # an independent look at the crawl
                try:
                    await wait_for(lambda: window.hosts_model.rowCount() == 1, 30)
                    await wait_for(lambda: window.state() == CrawlState.RUNNING, 30)
                    # pause from the window: the crawl pauses, no page is fetched after that
                    window.act_pause.trigger()
                    await wait_for(lambda: watcher.crawler.state == CrawlState.PAUSED, 30)
                    await wait_for(lambda: window.act_pause.text() == "&Resume", 30)
                    await asyncio.sleep(1.5)  # fetches in flight at the pause finish
                    paused_pages = await pages_of(watcher)
                    await asyncio.sleep(1.5)
                    assert await pages_of(watcher) == paused_pages

                    def fill(d):
                        d.editor.setPlainText(f"http://{new_host}/")
                        d.validate()
                        d.accept()

                    window.act_add.trigger()
                    await with_dialog(AddSeedsDialog, fill)
                    window.act_pause.trigger()  # resume
                    await wait_for(lambda: watcher.crawler.state == CrawlState.RUNNING, 30)

                    def fetched(host: str) -> bool:
                        i = window.hosts_model.find(host)
                        return i is not None and window.hosts_model.row(i).done > 0

                    await wait_for(lambda: fetched(new_host), 60)  # the new seed was fetched
                    assert fetched(first_host)
                    assert await pages_of(watcher) > paused_pages
                    window.close()
                    await window.wait_closed()
                    # closing the window leaves the crawl running
                    await more_pages(watcher, await pages_of(watcher))
                    assert watcher.crawler.state == CrawlState.RUNNING
                finally:
                    await watcher.close()

            run(aloop, scenario(), timeout=240)
            assert crawl.proc is not None and crawl.proc.poll() is None
        finally:
            if window is not None:
                if not window.is_closed:
                    window.close()
                    run(aloop, window.wait_closed())
                assert_no_active_timers(window)
                delete_now(window)
            code = crawl.stop()
        assert code == 0, crawl.text()


def test_a_killed_crawl_is_reported_and_the_window_opens_the_pool_itself(
    aloop, qtbot, qsettings, tmp_path: Path, gui_log
):
    from PySide6.QtWidgets import QMessageBox

    from crawler_gui.engine.session import CrawlSession

    pool = tmp_path / "pool"
    with demo_site(tmp_path) as port:
        crawl = Crawl(pool, port).start()
        window = None
        try:
            window = run(aloop, open_and_show(pool, qsettings=qsettings))
            assert isinstance(window.session, AttachedSession)

            async def scenario():
                await wait_for(lambda: window.hosts_model.rowCount() == 1, 30)
                crawl.kill9()
                seen = []

                def open_it(box):
                    seen.append(box.text())
                    box.button(QMessageBox.StandardButton.Open).click()

                await with_dialog(QMessageBox, open_it, timeout=30)
                assert "was lost" in seen[0]
                # the pool is free: the window opens it itself; the stale socket is gone
                await wait_for(lambda: isinstance(window.session, CrawlSession), 30)
                assert not crawl.socket.exists()
                assert "attached" not in window.windowTitle()
                await wait_for(lambda: window.hosts_model.rowCount() == 1, 30)

            run(aloop, scenario(), timeout=120)
        finally:
            if window is not None:
                if not window.is_closed:
                    window.close()
                    run(aloop, window.wait_closed())
                assert_no_active_timers(window)
                delete_now(window)
            crawl.stop()
