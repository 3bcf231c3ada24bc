"""A worker's heartbeat to a shared pool: who it is, what it does, that it is alive.

Every ``HEARTBEAT_SECONDS`` while a session on a shared (Redis) pool is open, the worker writes
its state, page count and rate to the pool (``RedisPool.heartbeat``); a clean close removes its
row. The window's Workers pane reads the rows of every worker; one not heard from for
``SILENT_AFTER`` seconds is shown as silent, and its leases can be reclaimed at once instead of
waiting for them to expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from crawler_gui.core.frontier import HEARTBEAT_SECONDS
from crawler_gui.engine.settings import CrawlState
from crawler_gui.engine.stats import StatsSnapshot

log = logging.getLogger(__name__)


class HeartbeatPool(Protocol):
    async def heartbeat(self, state: str, pages: int, rate: float, started: float) -> None: ...

    async def forget_worker(self, worker: str | None = None) -> None: ...


class CrawlerLike(Protocol):
    @property
    def state(self) -> CrawlState: ...

    def stats(self) -> StatsSnapshot: ...


class Heartbeat:
    """Beats for one worker until :meth:`close`. Failures are logged (once until the next
    success) and never stop the crawl: a worker cut off from the pool shows as silent."""

    def __init__(
        self,
        pool: HeartbeatPool,
        crawler: CrawlerLike,
        *,
        interval: float = HEARTBEAT_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.pool = pool
        self.crawler = crawler
        self.interval = interval
        self.started = clock()
        self.beats = 0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._failing = False

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="heartbeat")

    async def beat(self) -> None:
        """Send one heartbeat now."""
        stats = self.crawler.stats()
        await self.pool.heartbeat(
            str(self.crawler.state), stats.pages, stats.pages_per_s_10s, self.started
        )
        self.beats += 1

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.beat()
            except Exception as exc:
                if not self._failing:
                    log.warning("heartbeat to the shared pool failed: %s", exc)
                self._failing = True
            else:
                if self._failing:
                    log.info("heartbeat to the shared pool works again")
                self._failing = False
            # Stopped by an event, not by cancel(): a cancellation landing inside redis-py
            # can be swallowed (see Committer.stop in engine/committer.py).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.interval)

    async def close(self, *, goodbye: bool = True) -> None:
        """Stop beating; with ``goodbye`` remove this worker's row (a clean exit)."""
        self._stop.set()
        task, self._task = self._task, None
        if task is not None:
            done, _pending = await asyncio.wait({task}, timeout=10)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=5)
        if goodbye:
            try:
                await self.pool.forget_worker()
            except Exception as exc:
                log.warning("could not remove this worker's heartbeat: %s", exc)
