"""The dispatcher alone: a real LevelDB pool in tmp_path on the core's fake clock
(``ManualClock``), and a ``process`` that reports each lease's result to the pool at once (or
waits for the test). Nothing sleeps for time to pass: the clock is moved and the dispatcher
woken."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import AddRequest, HubSpec, Lease
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig
from crawler_gui.engine.dispatcher import Dispatcher
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState

SETTINGS = CrawlSettings(concurrency=4, mode=CrawlMode.CONTINUOUS, hub_percent=50)
#: Ten seconds between two requests to one host, however fast the answer.
POLITE = PoolConfig(politeness=Politeness(min_delay=10.0, delay_factor=0.0, max_delay=10.0))


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 60))


async def until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for ``condition`` (the loop turns; no time is waited for)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.001)


class Stand:
    """A dispatcher over ``pool`` with everything it is given in reach of the test."""

    def __init__(self, pool: LevelDBPool, clock: ManualClock, settings: CrawlSettings) -> None:
        self.pool = pool
        self.settings = settings
        self.resumed = asyncio.Event()
        self.resumed.set()
        self.stopping = False
        self.looks = 0  # turns of the dispatcher's loop (each reads the pause flag first)
        self.started: list[Lease] = []
        self.done: list[str] = []
        self.cancelled: list[str] = []
        self.storage_errors: list[BaseException] = []
        self.gate: asyncio.Event | None = None  # when set: each fetch waits for it
        self.holds: dict[str, asyncio.Event] = {}  # the fetch of a URL here waits for its event
        #: When set: each fetch, its result in, holds its slot until this is set (as one
        #: waiting for room in the extraction queue does).
        self.tail: asyncio.Event | None = None
        self.dispatcher = Dispatcher(
            pool,
            clock=clock,
            settings=lambda: self.settings,
            process=self.process,
            resumed=self.resumed,
            stopping=lambda: self.stopping,
            poll_pause=self.poll_pause,
            on_storage_error=self.storage_errors.append,
            on_cancelled=self.cancelled.append,
            on_launch=self.started.append,
        )

    async def poll_pause(self) -> None:
        self.looks += 1

    async def process(self, lease: Lease) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if lease.url in self.holds:
            await self.holds[lease.url].wait()
        await self.pool.set_status_many([(lease.url, FetchResult(status=200))])
        self.done.append(lease.url)
        if self.tail is not None:
            self.dispatcher.wake()  # (as the commit of a result wakes it)
            await self.tail.wait()

    async def turns(self, n: int = 3) -> None:
        """Let the dispatcher look at the pool ``n`` more times."""
        target = self.looks + n
        while self.looks < target:
            self.dispatcher.wake()
            await asyncio.sleep(0)

    async def stop(self, task: asyncio.Task[CrawlState]) -> CrawlState:
        self.stopping = True
        self.dispatcher.wake()
        return await task


async def open_pool(tmp_path: Path, clock: ManualClock, config: PoolConfig) -> LevelDBPool:
    return await LevelDBPool.open_async(tmp_path / "pool", config, clock)


def test_a_url_not_due_on_the_crawls_clock_waits_until_the_clock_gets_there(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, POLITE)
        try:
            await pool.add_many([AddRequest(f"http://a.example/{i}", 0, None) for i in (1, 2)])
            stand = Stand(pool, clock, SETTINGS)
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: len(stand.done) == 1)
            assert await pool.next_due() == pytest.approx(clock.now() + 10.0)
            await stand.turns()  # looks again and again: nothing is due on this clock
            assert len(stand.done) == 1 and stand.dispatcher.in_flight == 0
            clock.advance(9.9)
            await stand.turns()
            assert len(stand.done) == 1
            clock.advance(0.1)
            stand.dispatcher.wake()
            await until(lambda: len(stand.done) == 2)
            assert await stand.stop(task) is CrawlState.STOPPED
        finally:
            await pool.close()

    run(main)


def test_no_more_fetches_at_once_than_the_concurrency(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            urls = [f"http://h{i}.example/" for i in range(6)]
            await pool.add_many([AddRequest(u, 0, None) for u in urls])
            stand = Stand(pool, clock, replace(SETTINGS, concurrency=2))
            stand.gate = asyncio.Event()
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.dispatcher.in_flight == 2)
            await stand.turns()
            assert len(stand.started) == 2 and stand.dispatcher.in_flight == 2
            stand.gate.set()
            await until(lambda: len(stand.done) == len(urls))
            assert sorted(stand.done) == sorted(urls)
            assert await stand.stop(task) is CrawlState.STOPPED
        finally:
            await pool.close()

    run(main)


def test_a_fetch_that_ends_wakes_the_dispatcher_only_when_every_slot_was_busy(
    tmp_path: Path,
) -> None:
    """With every slot busy, a fetch that ends makes room: the next URL starts at once (no
    poll). With slots free it frees nothing to pop (its host waits for the commit of its
    result, which wakes the dispatcher): the pool is not looked at for it."""

    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, POLITE)
        try:
            await pool.add_many([AddRequest(f"http://h{i}.example/", 0, None) for i in (1, 2, 3)])
            stand = Stand(pool, clock, replace(SETTINGS, concurrency=2))
            stand.holds = {f"http://h{i}.example/": asyncio.Event() for i in (1, 2, 3)}
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.dispatcher.in_flight == 2)
            await stand.turns()
            first = stand.started[0].url
            stand.holds[first].set()
            # (well under the dispatcher's poll of a second: only the fetch's end wakes it; the
            # other fetch is still in flight)
            await until(lambda: len(stand.started) == 3, timeout=0.5)
            for event in stand.holds.values():
                event.set()
            assert await stand.stop(task) is CrawlState.STOPPED

            # One host, its second URL ten seconds after the first: nothing for a fetch's end
            # while another is still in flight.
            await pool.add_many([AddRequest(f"http://solo.example/{i}", 0, None) for i in (1, 2)])
            await pool.add_many([AddRequest("http://keep.example/", 0, None)])
            stand = Stand(pool, clock, replace(SETTINGS, concurrency=4))
            stand.holds = {
                u: asyncio.Event() for u in ("http://solo.example/1", "http://keep.example/")
            }
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.dispatcher.in_flight == 2)
            await stand.turns()
            looks, started = stand.looks, len(stand.started)
            stand.holds["http://solo.example/1"].set()
            await until(lambda: stand.dispatcher.in_flight == 1)
            for _ in range(50):
                await asyncio.sleep(0)
            assert stand.looks == looks and len(stand.started) == started
            stand.holds["http://keep.example/"].set()
            assert await stand.stop(task) is CrawlState.STOPPED
        finally:
            await pool.close()

    run(main)


def test_the_last_fetch_in_flight_to_end_wakes_the_dispatcher(tmp_path: Path) -> None:
    """A fetch whose result was committed before it ended (it waited for room in the
    extraction queue): when it is the last in flight its end wakes the dispatcher, which
    finds the crawl idle at once (not at its next poll, a second later)."""

    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            await pool.add_many([AddRequest("http://h1.example/", 0, None)])
            stand = Stand(pool, clock, replace(SETTINGS, mode=CrawlMode.UNTIL_IDLE))
            stand.tail = asyncio.Event()
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: len(stand.done) == 1)
            for _ in range(20):
                await asyncio.sleep(0)  # (the dispatcher looks, finds nothing, sleeps)
            assert not task.done()
            stand.tail.set()
            assert await asyncio.wait_for(task, 0.5) is CrawlState.FINISHED
        finally:
            await pool.close()

    run(main)


def test_max_pages_stops_after_that_many_leases(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            await pool.add_many([AddRequest(f"http://h{i}.example/", 0, None) for i in range(5)])
            stand = Stand(pool, clock, replace(SETTINGS, max_pages=3))
            assert await stand.dispatcher.run() is CrawlState.STOPPED
            await stand.dispatcher.drain(cancel=False)
            assert stand.dispatcher.pages_started == 3 and len(stand.done) == 3
            assert (await pool.totals()).waiting == 2
        finally:
            await pool.close()

    run(main)


def test_until_idle_a_hub_due_within_the_idle_span_keeps_it_going(tmp_path: Path) -> None:
    """Until idle, a crawl ends when what is due next (a hub's refresh) is further off than
    the idle span, on the crawl's clock; a nearer one is waited for, and fetched when the
    clock gets there."""

    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig(hub_refresh="fixed"))
        try:
            hub = "http://news.example/latest"
            await pool.set_hubs([HubSpec(hub, 60.0)])
            near = replace(SETTINGS, mode=CrawlMode.UNTIL_IDLE, idle_span=120.0)
            stand = Stand(pool, clock, near)
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.done == [hub])
            due = await pool.next_due()
            assert due is not None and 0 < due - clock.now() <= 120.0
            await stand.turns()
            assert not task.done() and stand.done == [hub]  # waits for the refresh
            clock.set(due)
            stand.dispatcher.wake()
            await until(lambda: stand.done == [hub, hub])
            stand.settings = replace(near, idle_span=1.0)  # nothing due within a second now
            stand.dispatcher.wake()
            assert await task is CrawlState.FINISHED
            assert [lease.is_hub for lease in stand.started] == [True, True]
            assert stand.dispatcher.hub_fetches == 2
        finally:
            await pool.close()

    run(main)


def test_with_hub_percent_0_a_due_hub_neither_wakes_nor_holds_the_crawl(tmp_path: Path) -> None:
    """Pops that take no hubs (``hub_percent`` 0) leave a due hub alone: the dispatcher does
    not wake for it every few milliseconds (it waits for its wake-up), and a crawl until idle
    ends instead of waiting for a refresh it never takes."""

    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig(hub_refresh="fixed"))
        try:
            await pool.set_hubs([HubSpec("http://news.example/latest", 60.0)])
            await pool.add_many([AddRequest("http://news.example/a", 0, None)])
            no_hubs = replace(SETTINGS, hub_percent=0)
            stand = Stand(pool, clock, no_hubs)
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.done == ["http://news.example/a"])
            looks = stand.looks
            # The hub is due now: a dispatcher that counted it woke every 5 ms.
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(until(lambda: stand.looks > looks + 2), 0.2)
            stand.stopping = True
            stand.dispatcher.wake()
            assert await task is CrawlState.STOPPED
            idle = Stand(pool, clock, replace(no_hubs, mode=CrawlMode.UNTIL_IDLE, idle_span=1.0))
            assert await idle.dispatcher.run() is CrawlState.FINISHED
            assert all(not lease.is_hub for lease in stand.started + idle.started)
        finally:
            await pool.close()

    run(main)


def test_paused_nothing_is_popped_until_resumed(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            await pool.add_many([AddRequest("http://a.example/", 0, None)])
            stand = Stand(pool, clock, SETTINGS)
            stand.resumed.clear()
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.looks >= 1)
            for _ in range(20):
                await asyncio.sleep(0)
            assert stand.started == [] and (await pool.totals()).waiting == 1
            stand.resumed.set()
            await until(lambda: stand.done == ["http://a.example/"])
            assert await stand.stop(task) is CrawlState.STOPPED
        finally:
            await pool.close()

    run(main)


def test_a_cancelled_fetch_hands_its_url_back(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            await pool.add_many([AddRequest("http://a.example/", 0, None)])
            stand = Stand(pool, clock, SETTINGS)
            stand.gate = asyncio.Event()  # never set: the fetch hangs
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.dispatcher.in_flight == 1)
            assert await stand.stop(task) is CrawlState.STOPPED
            await stand.dispatcher.drain(cancel=True)
            assert stand.cancelled == ["http://a.example/"] and stand.done == []
            assert stand.dispatcher.in_flight == 0
        finally:
            await pool.close()

    run(main)


def test_a_failure_reported_by_another_part_ends_the_run_with_it(tmp_path: Path) -> None:
    async def main() -> None:
        clock = ManualClock()
        pool = await open_pool(tmp_path, clock, PoolConfig())
        try:
            stand = Stand(pool, clock, SETTINGS)
            task = asyncio.get_running_loop().create_task(stand.dispatcher.run())
            await until(lambda: stand.looks >= 1)
            stand.dispatcher.fail(OSError("results cannot be saved"))
            with pytest.raises(OSError, match="results cannot be saved"):
                await task
        finally:
            await pool.close()

    run(main)
