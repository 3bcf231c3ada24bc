"""Change notices between the workers of a shared pool: a worker that waits for work looks at
the pool again as soon as another worker announces a change, not at its next poll; and with
until-idle it still never stops while another worker has URLs in flight."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from crawler_gui.core.frontier import AddRequest
from crawler_gui.core.redis.notices import RedisChangeNotices
from crawler_gui.engine import dispatcher as dispatcher_module
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from tests.engine.conftest import app_with, serve

SETTINGS = CrawlSettings(
    concurrency=4,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    retry_base=0.1,
    allow_private=True,
    obey_robots=False,
)
#: Longer than any test here may take: only a notice can wake a waiting dispatcher in time.
NO_POLL = 60.0


class FakeSignal:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.on_change: Callable[[], None] | None = None
        self.notices = 0
        self.closed = 0

    async def start(self, on_change: Callable[[], None]) -> None:
        if self.fail:
            raise OSError("no pub/sub here")
        self.on_change = on_change

    def notify(self) -> None:
        self.notices += 1

    async def close(self) -> None:
        self.closed += 1


async def page(_request: web.Request) -> web.Response:
    return web.Response(text="<title>a page</title>", content_type="text/html")


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_notice_wakes_a_dispatcher_waiting_for_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dispatcher_module, "POLL_SECONDS", NO_POLL)

    async def main() -> None:
        settings = replace(SETTINGS, mode=CrawlMode.CONTINUOUS)
        async with (
            serve(app_with({"/": page})) as base,
            await CrawlSession.open(tmp_path / "pool", settings) as session,
        ):
            signal = FakeSignal()
            crawler = session.crawler
            crawler.signal = signal
            crawler.start()
            await until(lambda: signal.on_change is not None)
            await asyncio.sleep(0.2)  # the pool is empty: the dispatcher waits
            # Another worker adds a URL: straight into the pool, this crawler is not told...
            await session.frontier.add_many([AddRequest(base + "/", 0, None)])
            await asyncio.sleep(0.2)
            assert crawler.stats().pages == 0
            assert signal.on_change is not None
            signal.on_change()  # ... until its notice arrives
            await until(lambda: crawler.stats().pages == 1, timeout=5)
            await until(lambda: signal.notices >= 1, timeout=5)  # its own commit, announced
            await crawler.stop()
            assert crawler.state is CrawlState.STOPPED
            assert signal.closed == 1

    run(main)


def test_without_notices_the_crawl_still_runs(tmp_path: Path) -> None:
    async def main() -> None:
        async with (
            serve(app_with({"/": page})) as base,
            await CrawlSession.open(tmp_path / "pool", SETTINGS) as session,
        ):
            signal = FakeSignal(fail=True)
            session.crawler.signal = signal
            await session.crawler.add_seeds([base + "/"])
            session.crawler.start()
            assert await session.crawler.wait() is CrawlState.FINISHED
            assert session.crawler.stats().pages == 1
            assert signal.notices == 0 and signal.closed == 0

    run(main)


def test_an_idle_worker_waits_for_another_s_fetch_then_stops_at_once(
    redis_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers on one Redis pool, in one process. Worker A holds the only URL, whose page
    answers slowly and links to one more page; worker B, with until-idle, finds nothing to pop
    but must not stop while A's fetch may still bring links. When the pool is done, both stop
    at once: neither waits for a poll (there is none within the test's time)."""
    monkeypatch.setattr(dispatcher_module, "POLL_SECONDS", NO_POLL)
    release = asyncio.Event()
    answered: list[float] = []

    async def slow(_request: web.Request) -> web.Response:
        await release.wait()
        answered.append(asyncio.get_running_loop().time())
        return web.Response(text='<a href="/next">next</a>', content_type="text/html")

    async def main() -> None:
        async with serve(app_with({"/slow": slow, "/next": page})) as base:
            url = f"{redis_server}?name=signal-{uuid.uuid4().hex[:10]}"
            a = await CrawlSession.open(url, SETTINGS, store_dir=tmp_path / "a", worker="a")
            b = await CrawlSession.open(url, SETTINGS, store_dir=tmp_path / "b", worker="b")
            try:
                assert isinstance(a.crawler.signal, RedisChangeNotices)
                await a.crawler.add_seeds([base + "/slow"])
                a.crawler.start()
                await until(lambda: a.crawler.in_flight == 1)
                b.crawler.start()
                await asyncio.sleep(0.5)
                assert b.crawler.state is CrawlState.RUNNING  # A's fetch is still in flight
                release.set()
                states = await asyncio.gather(a.crawler.wait(), b.crawler.wait())
                stopped = asyncio.get_running_loop().time()
                assert states == [CrawlState.FINISHED, CrawlState.FINISHED]
                assert stopped - answered[0] < 5.0  # not NO_POLL
                pages = a.crawler.stats().pages + b.crawler.stats().pages
                assert pages == 2  # /slow and the /next it linked to, each once
                totals = (await a.frontier.snapshot()).totals
                assert totals.waiting == totals.pending == totals.retrying == 0
                assert totals.done == 2
            finally:
                await asyncio.gather(a.close(), b.close())

    run(main)
