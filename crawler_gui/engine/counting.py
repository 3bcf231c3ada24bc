"""The report's per-minute counters (``core/counters.py``) on their way to the pool: counted
in memory by the crawl's parts, added to the pool's counters in one batch every
:data:`COUNTERS_SECONDS` and when the run ends (off the fetch path). A crash loses at most
that much of the report's history, never anything of the crawl."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import Frontier

log = logging.getLogger(__name__)

#: How often the per-minute counters reach the pool (``Frontier.add_counters``).
COUNTERS_SECONDS = 60.0


class CounterFlusher:
    """Owns the crawl's :class:`Counters` (``counters``: the parts count into it) and adds
    them to the pool. ``start`` when a run begins, ``stop`` when it ends."""

    def __init__(self, frontier: Frontier) -> None:
        self.frontier = frontier
        #: Per-minute counts not yet added to the pool's counters.
        self.counters = Counters()
        self._flushing = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    def start(self) -> None:
        self._stop.clear()
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="counters")

    async def stop(self) -> None:
        """End the periodic flushes, then flush what is left."""
        task, self._task = self._task, None
        try:
            if task is not None:
                # Stopped by a flag, not by cancel(): a cancellation that lands inside a pool
                # call can be swallowed by a client library (redis-py).
                self._stop.set()
                await asyncio.wait({task}, timeout=30)
        finally:
            await self.flush()

    async def _loop(self) -> None:
        stop = self._stop
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), COUNTERS_SECONDS)
            if not stop.is_set():
                await self.flush()

    def pending(self) -> Counters:
        """A copy of what was counted and not yet flushed to the pool (a live report)."""
        out = Counters()
        out.merge(self.counters)
        return out

    async def flush(self) -> None:
        """Add what was counted since the last flush to the pool's counters (one batch; off
        the fetch path). What cannot be saved stays here for the next flush."""
        async with self._flushing:
            delta = self.counters.take()
            if not delta:
                return
            try:
                await self.frontier.add_counters(delta)
            except asyncio.CancelledError:
                self.counters.merge(delta)
                raise
            except Exception as exc:
                self.counters.merge(delta)
                log.warning("the report's counters could not be saved (%s); kept for later", exc)
