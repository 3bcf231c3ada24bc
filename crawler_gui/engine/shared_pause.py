"""The pool-wide pause of a shared pool: this worker's pause and resume reach the pool (and so
every worker), and the flag another worker or the window set is followed here."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from crawler_gui.core.frontier import Frontier, SharedFrontier
from crawler_gui.engine.settings import CrawlState

log = logging.getLogger(__name__)

#: How often a worker on a shared pool reads the pool-wide pause flag.
SHARED_POLL_SECONDS = 1.0


class SharedPause:
    """Follows and sets the pause flag of a shared pool (on any other pool everything here
    does nothing). ``state()`` is the crawl's state; ``pause()`` and ``resume()`` change it
    in this worker alone; ``spawn()`` runs a write of the flag in the background."""

    def __init__(
        self,
        frontier: Frontier,
        *,
        state: Callable[[], CrawlState],
        pause: Callable[[], None],
        resume: Callable[[], None],
        spawn: Callable[[Coroutine[Any, Any, object]], asyncio.Task[object]],
    ) -> None:
        self.frontier = frontier
        self._state = state
        self._pause = pause
        self._resume = resume
        self._spawn = spawn
        #: When the flag was last read (loop time: a poll of the server, not the crawl's clock).
        self.last_poll = 0.0
        #: Pause/resume clicks here so far, and their writes to a shared pool not yet done.
        self._changes = 0
        self._writes = 0

    def share(self, paused: bool) -> None:
        """This worker was paused or resumed by its user: so is every worker."""
        pool = self.frontier
        if not isinstance(pool, SharedFrontier):
            return
        # Until the pool holds this change, a read of its flag is older than the user's
        # click: it must not undo it (Resume flicked back to Paused for a poll's time).
        self._changes += 1
        self._writes += 1
        task = self._spawn(pool.set_paused(paused))
        task.add_done_callback(self._written)

    def _written(self, _task: object) -> None:
        self._writes -= 1

    async def poll(self) -> None:
        """Follow the pool-wide pause flag that another worker or the GUI may have set."""
        pool = self.frontier
        now = time.monotonic()  # (a poll of the server: loop time, not the crawl's clock)
        if now - self.last_poll < SHARED_POLL_SECONDS:
            return
        self.last_poll = now
        if not isinstance(pool, SharedFrontier):  # (a protocol check: costly, once a second)
            return
        changes = self._changes
        try:
            paused, _generation = await pool.control()
        except Exception as exc:
            log.warning("cannot read the shared pause flag: %s", exc)
            return
        if self._writes or changes != self._changes:
            return  # read before this worker's own pause or resume reached the pool
        if paused and self._state() is CrawlState.RUNNING:
            log.info("paused by another worker or the GUI")
            self._pause()
        elif not paused and self._state() is CrawlState.PAUSED:
            log.info("resumed by another worker or the GUI")
            self._resume()
