"""The dispatcher: leases from the pool become fetch tasks, as many at once as the settings'
concurrency allows; with nothing to start it sleeps until the pool's next URL is due, a commit
frees a host, a fetch ends while every slot was busy (or the last one in flight ends), or another
worker announces a change."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from crawler_gui.core.clock import Clock
from crawler_gui.core.frontier import Frontier, Lease
from crawler_gui.engine.faults import own_storage_error
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.shared_pause import SHARED_POLL_SECONDS

log = logging.getLogger(__name__)

#: The longest the dispatcher waits for work without looking at the pool again: what catches
#: the changes no event announces (another worker's, when there is no change notice).
POLL_SECONDS = 1.0


class Dispatcher:
    """Turns leases into tasks of ``process(lease)`` for one crawler.

    ``settings()`` are the crawl's settings as they are now (concurrency, max pages, hub
    share, mode); ``resumed`` is set while the crawl runs (cleared: paused); ``stopping()``
    says a stop was asked for; ``poll_pause()`` reads a shared pool's pause flag before each
    look at the pool. A pop that fails on our own storage goes to ``on_storage_error(exc)``
    (the crawl pauses), a cancelled fetch's URL to ``on_cancelled(url)``, and every lease
    started to ``on_launch(lease)``. The crawl's ``clock`` says when the next URL is due."""

    def __init__(
        self,
        frontier: Frontier,
        *,
        clock: Clock,
        settings: Callable[[], CrawlSettings],
        process: Callable[[Lease], Coroutine[Any, Any, None]],
        resumed: asyncio.Event,
        stopping: Callable[[], bool],
        poll_pause: Callable[[], Awaitable[None]],
        on_storage_error: Callable[[BaseException], None],
        on_cancelled: Callable[[str], None],
        on_launch: Callable[[Lease], None],
    ) -> None:
        self.frontier = frontier
        self.clock = clock
        self._settings = settings
        self._process = process
        self._resumed = resumed
        self._stopping = stopping
        self._poll_pause = poll_pause
        self._on_storage_error = on_storage_error
        self._on_cancelled = on_cancelled
        self._on_launch = on_launch
        self._tasks: dict[asyncio.Task[None], Lease] = {}
        self._wake = asyncio.Event()
        self._fatal: Exception | None = None  # set when results cannot be saved
        #: Nothing to pop, nothing in flight: waits for work (another worker's change).
        self.waiting_for_work = False
        #: Asleep with every fetch slot busy: only then does a fetch that ends wake it.
        self._slot_bound = False
        #: Leases started (``max_pages`` counts them) and of those the hubs' (hub refreshes).
        self.pages_started = 0
        self.hub_fetches = 0

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    def wake(self) -> None:
        """Look at the pool again now (a fetch ended, a commit, a change of the pool)."""
        self._wake.set()

    def fail(self, exc: Exception) -> None:
        """The crawl cannot go on (its results cannot be saved): :meth:`run` raises ``exc``."""
        self._fatal = exc
        self._wake.set()

    def cancel_all(self) -> None:
        """Cancel the fetches in flight (their URLs go to ``on_cancelled``)."""
        for t in list(self._tasks):
            t.cancel()

    async def run(self) -> CrawlState:
        """Start fetches until stopped (STOPPED), ``max_pages`` reached (STOPPED) or, until
        idle, no work left (FINISHED)."""
        frontier = self.frontier
        while True:
            # Cleared before the pool is looked at: whatever happens from here on (a fetch
            # ends, a commit, another worker's notice) ends the wait below at once.
            self._wake.clear()
            self.waiting_for_work = False
            if self._fatal is not None:
                raise self._fatal
            if self._stopping():
                return CrawlState.STOPPED
            await self._poll_pause()
            if not self._resumed.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._resumed.wait(), SHARED_POLL_SECONDS)
                continue
            s = self._settings()
            if s.max_pages is not None and self.pages_started >= s.max_pages:
                log.info("max pages (%d) reached", s.max_pages)
                return CrawlState.STOPPED
            free = s.concurrency - len(self._tasks)
            if s.max_pages is not None:
                free = min(free, s.max_pages - self.pages_started)
            leases: list[Lease] = []
            if free > 0:
                try:
                    leases = await frontier.pop(free, s.hub_percent)
                except Exception as exc:
                    if not own_storage_error(exc):
                        raise
                    self._on_storage_error(exc)  # our disk: paused, not failed
                    continue
                for lease in leases:
                    self._launch(lease)
            if leases and len(self._tasks) < s.concurrency:
                await asyncio.sleep(0)  # let fetches start before asking again
                continue
            # Nothing in flight and nothing to pop: only another worker's change can bring work
            # (a worker with fetches in flight is woken by their commits, and by the last one
            # that ends).
            self.waiting_for_work = not self._tasks and not leases
            idle_mode = s.mode is CrawlMode.UNTIL_IDLE
            if idle_mode and not self._tasks and not leases and await self._idle(s):
                return CrawlState.FINISHED
            await self._sleep_until_due(full=len(self._tasks) >= s.concurrency)

    def _launch(self, lease: Lease) -> None:
        self.pages_started += 1
        if lease.is_hub:
            self.hub_fetches += 1
        self._on_launch(lease)
        task = asyncio.get_running_loop().create_task(self._process(lease))
        self._tasks[task] = lease
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        lease = self._tasks.pop(task, None)
        if self._slot_bound or not self._tasks:
            # A slot is free, or nothing is in flight any more (the crawl may be idle; a
            # shared pool's worker now waits for the others' notices). Otherwise a fetch that
            # ends changes nothing to pop: its host is freed by the commit of its result,
            # which wakes the dispatcher (woken here, it found nothing to pop in most looks:
            # a pool round trip and a wait for nothing).
            self._wake.set()
        if task.cancelled():
            if lease is not None:
                self._on_cancelled(lease.url)
        elif task.exception() is not None:
            log.error("fetch task failed", exc_info=task.exception())

    async def _idle(self, settings: CrawlSettings) -> bool:
        t = await self.frontier.totals()
        if t.waiting or t.pending or t.retrying:
            return False
        # Nothing waiting, in flight or retrying: what the pool says is due next is a hub's
        # refresh (a parked hub waits for the user, not for the crawl: it keeps nobody busy).
        due = await self.frontier.next_due(hubs=settings.hub_percent > 0)
        return due is None or due - self.clock.now() > settings.idle_span

    async def _sleep_until_due(self, *, full: bool = False) -> None:
        """Wait for a wake-up (a commit, a notice, a change of the run, the last fetch in
        flight that ends) or until the pool's next URL is due. With every fetch slot busy
        (``full``) only a fetch that ends makes room: that wakes it too, and the pool is not
        asked when its next URL is due (one round trip less per wait)."""
        timeout = POLL_SECONDS
        if not full:
            # (pops that take no hubs are not woken by a hub's due time: no busy poll)
            due = await self.frontier.next_due(hubs=self._settings().hub_percent > 0)
            if due is not None:
                timeout = min(POLL_SECONDS, max(0.005, due - self.clock.now()))
        # (``asyncio.timeout``, not ``wait_for``: no task made per wait, and the dispatcher
        # waits once for about every commit)
        self._slot_bound = full
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
        finally:
            self._slot_bound = False

    async def drain(self, *, cancel: bool) -> None:
        """Wait for (or cancel) the fetches in flight."""
        if cancel:
            self.cancel_all()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
