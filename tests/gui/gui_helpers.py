"""Helpers for the GUI tests: snapshot rows, and stand-in sessions over a *real* LevelDB or
Redis pool whose crawler "fetches" by marking popped URLs done (no network)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from crawler_gui.core.clock import Clock
from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import (
    AddReport,
    FailedRow,
    HostRow,
    HubRow,
    HubSpec,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    RetryRow,
    WaitingPage,
)
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import FetchResult
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.engine.crawler import make_scope
from crawler_gui.engine.robots import RobotsText
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.engine.stats import CrawlStats, StatsSnapshot

T0 = 1_700_000_000.0


def host(name: str, waiting: int = 1, **kw: Any) -> HostRow:
    base: dict[str, Any] = dict(
        host=name,
        waiting=waiting,
        in_flight=0,
        done=0,
        failed=0,
        retrying=0,
        last_status="",
        next_allowed=T0,
        delay=1.0,
        backoff_until=0.0,
    )
    base.update(kw)
    return HostRow(**base)


def pending(url: str, started: float = T0, expires: float = T0 + 300) -> PendingRow:
    return PendingRow(url, url.split("/")[2], 0, False, started, expires)


def retry(url: str, attempts: int = 1, next_try: float = T0 + 30) -> RetryRow:
    return RetryRow(url, url.split("/")[2], 0, attempts, "timeout", next_try)


def hub(url: str, span: float = 300, next_due: float = T0 + 100) -> HubRow:
    return HubRow(url, url.split("/")[2], span, T0 - 200, "200", next_due, False)


def totals(**kw: Any) -> PoolTotals:
    base: dict[str, Any] = dict(
        waiting=0,
        pending=0,
        done=0,
        failed=0,
        retrying=0,
        hosts=0,
        hubs=0,
        redirected=0,
        refused={},
        overflow=0,
        failure_threshold=3,
        pending_threshold=300.0,
    )
    base.update(kw)
    return PoolTotals(**base)


def snapshot(
    hosts: Sequence[HostRow] = (),
    *,
    complete: bool = True,
    now: float = T0,
    version: int = 1,
    **kw: Any,
) -> PoolSnapshot:
    return PoolSnapshot(
        time=now,
        version=version,
        totals=kw.pop("totals", totals()),
        hosts=tuple(hosts),
        hosts_complete=complete,
        pending=tuple(kw.pop("pending", ())),
        retrying=tuple(kw.pop("retrying", ())),
        hubs=tuple(kw.pop("hubs", ())),
        next_due=None,
    )


def stats(**kw: Any) -> StatsSnapshot:
    base: dict[str, Any] = dict(
        time=T0,
        started=T0 - 100,
        elapsed=100.0,
        pages=120,
        errors=3,
        bytes=1_000_000,
        pages_per_s_10s=1.5,
        pages_per_s_60s=1.2,
        pages_per_s_avg=1.2,
        bytes_per_s_10s=9000.0,
        status_counts={"200": 110, "404": 10},
        error_counts={"timeout": 3},
        status_classes={"2xx": 110, "3xx": 0, "4xx": 10, "5xx": 0, "error": 3},
        response_ms_p50=120.0,
        response_ms_p90=400.0,
        response_ms_p99=900.0,
        response_hist=((100.0, 50), (500.0, 70)),
        series=tuple((T0 - 60 + i, i % 3, int(i % 17 == 0)) for i in range(60)),
    )
    base.update(kw)
    return StatsSnapshot(**base)


class LoopbackCrawler:
    """Implements the Crawler run-control API over a real pool; "fetches" mark URLs done
    (the window's ``LocalCrawlerView``: tests/gui/test_protocols.py checks it)."""

    state: CrawlState

    def __init__(self, frontier: LevelDBPool, settings: CrawlSettings) -> None:
        self.frontier = frontier
        self.settings = settings
        self.state = CrawlState.IDLE
        self._stats = CrawlStats()
        self._task: asyncio.Task[None] | None = None
        self.fetched: list[str] = []
        #: A batch is being "fetched" (a pause lets it finish, as the real crawler does).
        self.in_batch = False
        self.scope = make_scope(settings)
        # the listener surface of ``engine.crawler.Crawler`` that the window joins
        self.state_listeners: list[Callable[[CrawlState], None]] = []
        self.storage_listeners: list[Callable[[str], None]] = []
        self.failure: Exception | None = None
        self.articles = None

    def start(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.state = CrawlState.RUNNING
        self._stats.start()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self.state in (CrawlState.RUNNING, CrawlState.PAUSED):
            if self.state == CrawlState.RUNNING:
                self.in_batch = True
                for lease in await self.frontier.pop(2, self.settings.hub_percent):
                    await asyncio.sleep(0.01)
                    await self.frontier.set_status(lease.url, FetchResult(status=200, elapsed=0.01))
                    self.fetched.append(lease.url)
                    self._stats.record(200, None, 1000, 0.01)
                self.in_batch = False
            await asyncio.sleep(0.02)

    def pause(self) -> None:
        if self.state == CrawlState.RUNNING:
            self.state = CrawlState.PAUSED

    def resume(self) -> None:
        if self.state == CrawlState.PAUSED:
            self.state = CrawlState.RUNNING

    async def stop(self, *, wait_in_flight: bool = True) -> None:
        del wait_in_flight  # (a batch is short: it always finishes)
        if self._task is not None:
            self.state = CrawlState.STOPPING
            await self._task
        self.state = CrawlState.STOPPED

    def stats(self) -> StatsSnapshot:
        return self._stats.snapshot()

    async def add_seeds(self, urls: Iterable[str]) -> AddReport:
        urls = list(urls)
        self.scope.add_seeds(urls)
        return await self.frontier.add_many(urls)

    async def add_scope_domains(self, domains: Iterable[str]) -> None:
        self.scope.add_seeds(f"http://{d}/" for d in domains)

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        return await self.frontier.set_hubs(hubs)

    async def hubs(self) -> list[HubSpec]:
        return await self.frontier.hubs()

    def apply_settings(self, settings: CrawlSettings) -> None:
        self.settings = settings

    # one host (the window's host detail): through the pool, as the crawler does
    async def pause_host(self, host: str, paused: bool) -> None:
        await self.frontier.set_host_paused(host, paused)

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        await self.frontier.set_host_delay(host, seconds)

    async def retry_failed_host(self, host: str) -> int:
        return await self.frontier.retry_failed(host)

    async def forget_host_waiting(self, host: str) -> int:
        return await self.frontier.forget_waiting(host)

    async def host_waiting(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        return await self.frontier.waiting_urls(host, page, page_size)

    async def host_failed(self, host: str, limit: int = 200) -> list[FailedRow]:
        return await self.frontier.failed_urls(host, limit)

    async def host_robots(self, host: str) -> RobotsText | None:
        return None  # nothing is fetched here: no robots.txt

    def pending_counters(self) -> Counters:
        return Counters()  # nothing is counted here: every count is the pool's


class PoolSession:
    """The window's session over a real pool (its ``LocalSessionLike``), without pages."""

    demo_site = None
    store = None
    indexer = None

    def __init__(self, pool_dir: Path, frontier: LevelDBPool, settings: CrawlSettings) -> None:
        self.location: Path | str = pool_dir
        self.store_dir = Path(pool_dir) if isinstance(pool_dir, Path) else Path()
        self.display_name = str(pool_dir)
        self.frontier = frontier
        self.settings = settings
        self.crawler = LoopbackCrawler(frontier, settings)
        self.closed = False

    @classmethod
    async def open(cls, pool_dir: Path, settings: CrawlSettings) -> PoolSession:
        return cls(pool_dir, await LevelDBPool.open_async(pool_dir), settings)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.crawler.stop()
            await self.frontier.close()


class RedisSession(PoolSession):
    """The window's session over a real shared pool on Redis, as worker ``worker``."""

    @classmethod
    async def open_redis(
        cls, url: str, settings: CrawlSettings, *, clock: Clock | None = None, worker: str = "gui"
    ) -> RedisSession:
        frontier = await RedisPool.open(url, clock=clock, worker=worker)
        return cls(url, frontier, settings)  # type: ignore[arg-type]  # a URL, not a dir


async def wait_for(cond: Callable[[], Any], timeout: float = 10.0, step: float = 0.02) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not cond():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s: {cond}")
        await asyncio.sleep(step)


def find_top(cls: type, visible: bool = True) -> Any:
    from PySide6.QtWidgets import QApplication

    for w in QApplication.topLevelWidgets():
        if isinstance(w, cls) and (w.isVisible() or not visible):
            return w
    return None


async def with_dialog(cls: type, action: Callable[[Any], Any], timeout: float = 5.0) -> None:
    """Wait for a visible top-level dialog of ``cls`` and run ``action(dialog)`` on it."""
    await wait_for(lambda: find_top(cls) is not None, timeout)
    result = action(find_top(cls))
    if isinstance(result, Awaitable):
        await result


@contextlib.asynccontextmanager
async def gathered(coro: Awaitable[Any]) -> Any:
    task = asyncio.ensure_future(coro)
    try:
        yield task
    finally:
        if not task.done():
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def run(loop: asyncio.AbstractEventLoop, coro: Awaitable[Any], timeout: float = 60.0) -> Any:
    """Run a test scenario on the qasync loop, bounded (a hung Qt loop would not let
    pytest-timeout's signal through)."""
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))
