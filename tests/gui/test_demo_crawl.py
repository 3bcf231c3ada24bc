"""The real thing: the built-in demo site on loopback, crawled by the real engine over a real
LevelDB pool, shown in the real window (offscreen), started through the app's own path."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses

import pytest

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.gui.app import open_and_show
from tests.gui.conftest import assert_no_active_timers, delete_now
from tests.gui.gui_helpers import run, wait_for

pytestmark = [pytest.mark.gui, pytest.mark.slow]

FAST = CrawlSettings(concurrency=8, min_delay=0.05, delay_factor=0.0)


@pytest.fixture(autouse=True)
def _logging(gui_log):
    yield


@contextlib.asynccontextmanager
async def demo_window(qsettings, tmp_path):
    """``open_and_show(demo=True)``. Everything runs inside ONE run_until_complete: the
    engine's tasks must never step outside the running loop."""
    w = await open_and_show(tmp_path / "pool", demo=True, settings=FAST, qsettings=qsettings)
    assert w is not None
    w.timer.setInterval(100)
    try:
        yield w
    finally:
        if not w.is_closed:
            w.close()
            await w.wait_closed()
        assert_no_active_timers(w)


def num(text: str) -> int:
    return int(text.replace(",", "")) if text and text != "–" else 0


def test_panes_fill_and_update_against_the_demo_site(aloop, qsettings, tmp_path):
    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            crawler = w.session.crawler
            await wait_for(lambda: crawler.state == CrawlState.RUNNING)  # demo starts at once
            await wait_for(
                lambda: w.hosts_model.rowCount() > 0 and w.hubs_model.rowCount() > 0, timeout=20
            )
            await wait_for(lambda: num(w.overview.value("status_2xx")) >= 10, timeout=30)
            first = num(w.overview.value("pages"))
            await wait_for(lambda: num(w.overview.value("pages")) > first, timeout=30)
            assert any(r.done > 0 or r.last_status for r in w.hosts_model.rows())
            assert any(r.last_refresh > 0 for r in w.hubs_model.rows())
            assert any(e.logger.startswith("crawler_gui") for e in w.log_model.entries())
            assert w.overview.chart.series()
            assert w.overview.estimate.text()
            return w

    delete_now(run(aloop, scenario(), timeout=90))


def test_pause_and_resume_against_the_real_engine(aloop, qsettings, tmp_path):
    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            crawler = w.session.crawler
            await wait_for(lambda: crawler.stats().pages >= 5, timeout=30)
            assert w.act_pause.isEnabled()
            w.act_pause.trigger()
            assert crawler.state == CrawlState.PAUSED
            assert w.act_pause.text() == "&Resume"
            await wait_for(lambda: crawler.in_flight == 0, timeout=30)
            pages = crawler.stats().pages
            await asyncio.sleep(1.0)
            assert crawler.stats().pages == pages  # no new fetch while paused
            w.act_pause.trigger()
            assert crawler.state == CrawlState.RUNNING
            await wait_for(lambda: crawler.stats().pages > pages, timeout=30)
            return w

    delete_now(run(aloop, scenario(), timeout=90))


def test_settings_apply_live(aloop, qsettings, tmp_path):
    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            w._apply_settings(dataclasses.replace(w.settings, concurrency=2))
            assert w.session.crawler.settings.concurrency == 2
            return w

    delete_now(run(aloop, scenario(), timeout=60))


def test_closing_mid_crawl_leaves_nothing_running_and_loses_nothing(aloop, qsettings, tmp_path):
    seen = {}

    async def scenario():
        async with demo_window(qsettings, tmp_path) as w:
            seen["w"], seen["session"] = w, w.session
            crawler = w.session.crawler
            await wait_for(
                lambda: crawler.stats().pages >= 10 and crawler.in_flight > 0, timeout=30
            )
            snap = w.session.frontier.snapshot_sync()
            seen["before"] = snap.totals
            seen["pages_in_flight"] = sum(not p.is_hub for p in snap.pending)
            w.close()  # an orderly shutdown, in the middle of fetches
            await w.wait_closed()

    run(aloop, scenario(), timeout=90)
    w, session, before = seen["w"], seen["session"], seen["before"]
    crawler = session.crawler
    assert w.is_closed and w.session is None and not w.isVisible()
    assert crawler.state in (CrawlState.STOPPED, CrawlState.FINISHED)
    assert not crawler.in_flight
    delete_now(w)
    pool = LevelDBPool.open(tmp_path / "pool")
    try:
        after = pool.totals_sync()
    finally:
        run(aloop, pool.close())
    assert after.pending == 0  # every lease finished or went back to the pool
    # no hub lost (a page that finished during the close may have found a feed: one more)
    assert after.done >= before.done and after.hubs >= before.hubs

    def settled(t):  # URLs in a state (hubs in flight are not URLs of the pool)
        return t.waiting + t.done + t.failed + t.retrying + t.redirected

    # no URL was lost: every page in flight ended in a state or went back to waiting
    assert settled(after) >= settled(before) + seen["pages_in_flight"]


def test_articles_pane_fills_live_filters_and_shows_the_text(aloop, qsettings, tmp_path):
    settings = dataclasses.replace(FAST, extract="on", extract_workers=1)

    async def scenario():
        w = await open_and_show(
            tmp_path / "pool", demo=True, settings=settings, qsettings=qsettings
        )
        assert w is not None
        w.timer.setInterval(100)
        try:
            model = w.articles_model
            await wait_for(lambda: model.rowCount() >= 5, timeout=60)
            rows = [model.article(r) for r in range(model.rowCount())]
            # newest first, every row an article with a headline, a zone-qualified time
            assert [a.found_at for a in rows] == sorted((a.found_at for a in rows), reverse=True)
            assert all(a.kind == "article" and a.title and a.words > 0 for a in rows)
            assert all(a.published and a.published.endswith("+08:00") for a in rows)
            assert model.index(0, 2).data()  # the delay from publication to fetch is shown
            pane = w.articles_pane
            title = rows[0].title
            pane.filter.setText(title)
            await wait_for(lambda: 1 <= pane.proxy.rowCount() < model.rowCount(), timeout=10)
            pane.filter.clear()
            first = pane.proxy.index(0, 4)
            pane.view.doubleClicked.emit(first)
            dlg = w.article_dialog
            assert dlg is not None and dlg.isVisible()
            shown = model.article(pane.proxy.mapToSource(first).row())
            assert dlg.url.text() == shown.url and dlg.kind.text() == "article"
            assert dlg.text.toPlainText() == shown.text
            assert dlg.open_button.isEnabled()  # an http URL
            dlg.close()
        finally:
            if not w.is_closed:
                w.close()
                await w.wait_closed()
            assert_no_active_timers(w)
        return w

    delete_now(run(aloop, scenario(), timeout=120))
