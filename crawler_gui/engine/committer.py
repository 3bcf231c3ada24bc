"""Fetch results into the pool, in batches: the page records buffered so far reach the disk
first, then their URLs are marked done, so a crash never leaves a URL done without its page.

Also the crawl's pause for its own storage: when our disk is full (or below ``min_free_mb``)
the results wait in memory, nothing is charged to the URLs, and the crawl goes on once there
is room again (``docs/storage.md``, "A full disk")."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from crawler_gui.core.frontier import Frontier
from crawler_gui.core.policy import FetchResult
from crawler_gui.engine.faults import damaged_storage, log_error, own_storage_error
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import DiskFullError

log = logging.getLogger(__name__)

#: Results are committed as soon as the previous commit is done: while one commit waits for the
#: disk, the next batch gathers by itself. (A fixed gathering delay would keep hosts busy longer.)
COMMIT_SECONDS = 0.0
#: Consecutive failed commits (disk full, Redis gone) before the crawl stops as failed.
COMMIT_ATTEMPTS = 5
#: How often the free space of our own disks is looked at while crawling.
FREE_SPACE_SECONDS = 1.0
#: How often the crawl, paused for a full disk, looks whether there is room again.
ROOM_POLL_SECONDS = 2.0


class Committer:
    """The results of one crawler's fetches, on their way to the pool.

    ``resumed`` is the crawl's run flag (set while it runs: a storage pause waits for it);
    ``min_free_mb()`` the free space below which the crawl pauses and ``storage_paths()`` the
    folders whose disks are looked at; ``stopping()`` whether a stop was asked for.
    ``wake()`` is called when a commit freed hosts, ``notify()`` when the pool changed (the
    other workers of a shared pool hear of it), ``on_pause(message, first)`` when the crawl
    must pause for its storage and ``on_fatal(exc)`` when results cannot be saved at all."""

    def __init__(
        self,
        frontier: Frontier,
        *,
        store: PageStore | None,
        resumed: asyncio.Event,
        min_free_mb: Callable[[], float],
        storage_paths: Callable[[], list[Path]],
        stopping: Callable[[], bool],
        wake: Callable[[], None],
        notify: Callable[[], None],
        on_pause: Callable[[str, bool], None],
        on_fatal: Callable[[Exception], None],
    ) -> None:
        self.frontier = frontier
        self.store = store
        self._resumed = resumed
        self._min_free_mb = min_free_mb
        self._storage_paths = storage_paths
        self._stopping_run = stopping
        self._wake = wake
        self._notify = notify
        self._on_pause = on_pause
        self._on_fatal = on_fatal
        self._results: list[tuple[str, FetchResult]] = []
        self._ready = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._unfinished: list[str] = []  # URLs that go back to the pool unfetched
        self._free_checked = 0.0
        #: Why the crawl is paused for our own storage (disk full), or None.
        self.storage_error: str | None = None

    @property
    def waiting(self) -> int:
        """Results not committed yet."""
        return len(self._results)

    def complete(self, url: str, result: FetchResult) -> None:
        """A fetch is over. Its result reaches the pool with the next commit, after the page
        records buffered so far are on disk: a crash never leaves a URL done without its page."""
        self._results.append((url, result))
        self._ready.set()

    def give_back(self, url: str) -> None:
        """A fetch that did not end (cancelled): its URL goes back to the pool unfetched, no
        attempt counted (:meth:`release_unfinished`, or the next commit with room)."""
        self._unfinished.append(url)

    def unfinished(self, url: str) -> None:
        """``url`` was fetched but not finished (the crawl stops on a damaged store): it goes
        back to the pool unfetched at the end of the run, no attempt counted."""
        self._unfinished.append(url)

    def unstored(self, url: str, exc: BaseException) -> None:
        """The page of ``url`` could not be stored (``exc``: our own storage failed): the URL
        goes back unfetched, no attempt counted, once there is room again."""
        self._unfinished.append(url)
        self.storage_pause(exc)
        self._ready.set()

    # ---- the task ---------------------------------------------------------------------------
    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="results")

    async def _run(self) -> None:
        failures = 0
        while not self._stopping:
            await self._ready.wait()
            if self._stopping:
                return  # the last batch is committed by stop()
            await asyncio.sleep(COMMIT_SECONDS)  # let a batch gather
            try:
                if self.storage_error is not None:
                    await self._wait_for_room()
                    if self.storage_error is not None:  # stopping: stop() ends it
                        await asyncio.sleep(ROOM_POLL_SECONDS / 10)
                        self._ready.set()
                        continue
                await self._give_back_unstored()
                self.check_free_space()
                await self.commit()
            except Exception as exc:
                if own_storage_error(exc):
                    # Our disk, not the URLs: pause (nothing charged, results kept in memory)
                    # and try again once the user resumes or there is room again.
                    self.storage_pause(exc)
                    await self._wait_for_room()
                    self._ready.set()
                    continue
                if damaged_storage(exc):  # a damaged block does not mend by trying again
                    self._on_fatal(exc)
                    return
                failures += 1
                if failures >= COMMIT_ATTEMPTS:
                    log.error("results cannot be saved (%s); stopping the crawl", exc)
                    self._on_fatal(exc)
                    return
                log.warning("saving results failed (%s); trying again", exc)
                self._ready.set()
                await asyncio.sleep(min(5.0, 0.2 * 2**failures))
            else:
                failures = 0

    async def commit(self) -> None:
        """The results so far into the pool, after the page records (a failed commit keeps
        them for the next: nothing is lost)."""
        self._ready.clear()
        if not self._results:
            return
        batch, self._results = self._results, []
        try:
            if self.store is not None:
                await self.store.flush()
            await self.frontier.set_status_many(batch)
        except BaseException:
            self._results = batch + self._results  # kept for the next try: nothing is lost
            raise
        self._wake()  # hosts are free again
        self._notify()  # for the other workers too

    async def stop(self, *, quiet: bool = False) -> None:
        """End the task and commit what is left (``quiet``: a failure is logged, not raised)."""
        # Stopped by a flag, not by cancel(): a cancellation that lands inside a pool call can
        # be swallowed by a client library (redis-py), leaving the task waiting forever.
        task, self._task = self._task, None
        self._stopping = True
        self._ready.set()
        if task is not None:
            done, _pending = await asyncio.wait({task}, timeout=30)
            if not done:
                log.warning("the results task did not stop; cancelling it")
                task.cancel()
                await asyncio.wait({task}, timeout=5)
        self._stopping = False
        try:
            await self.commit()
            if self.store is not None:
                await self.store.flush()
        except Exception as exc:
            if not quiet:
                raise
            log_error(log, "results of the last fetches could not be saved", exc)

    async def release_unfinished(self) -> None:
        """The URLs of fetches that did not end go back to the pool (the end of a run)."""
        if self._unfinished:
            urls, self._unfinished = self._unfinished, []
            released = await self.frontier.release(urls)
            log.info("%d unfinished fetches went back to the pool", released)
            self._notify()

    async def _give_back_unstored(self) -> None:
        """The URLs whose pages could not be stored go back unfetched (no attempt counted)."""
        if self._unfinished and self.storage_error is None and not self._stopping_run():
            urls, self._unfinished = self._unfinished, []
            try:
                await self.frontier.release(urls)
            except BaseException:
                self._unfinished = urls + self._unfinished
                raise

    # ---- our own disk full: pause, keep everything, go on once there is room ----------------
    def check_free_space(self, *, force: bool = False) -> None:
        """Raise DiskFullError when a disk of ours has less room than ``min_free_mb``: the
        crawl pauses while there is still room to finish cleanly."""
        min_free_mb = self._min_free_mb()
        floor = min_free_mb * 1024 * 1024
        now = time.monotonic()
        if floor <= 0 or (not force and now - self._free_checked < FREE_SPACE_SECONDS):
            return
        self._free_checked = now
        for path in self._storage_paths():
            try:
                free = shutil.disk_usage(path).free
            except OSError:
                continue
            if free < floor:
                raise DiskFullError(
                    f"only {free / 1024 / 1024:.0f} MB left on the disk of {path} (the crawl "
                    f"pauses below {min_free_mb:g} MB)"
                )

    def storage_pause(self, exc: BaseException) -> None:
        """Our own storage failed (``exc``): the crawl pauses, everything is kept."""
        first = self.storage_error is None
        self.storage_error = str(exc)
        if first:
            log.info("%s; the crawl is paused until there is room again", exc)
        self._on_pause(self.storage_error, first)

    async def _wait_for_room(self) -> None:
        """Until the user resumes (or stops), or (CLI) the crawl stops."""
        while not self._stopping and not self._resumed.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._resumed.wait(), ROOM_POLL_SECONDS)

    def storage_back(self) -> bool:
        """Resume after a storage pause: reopen what a failed write left blocked and look at
        the free space again. False (and paused again) when there is still no room."""
        try:
            self.frontier.recover()
            if self.store is not None:
                self.store.forget_failure()  # its records are pending: the next flush retries
            self.check_free_space(force=True)
        except Exception as exc:
            if not own_storage_error(exc):
                raise
            self.storage_error = None  # a new pause: said again
            self.storage_pause(exc)
            return False
        self.storage_error = None
        log.info("there is room again: the crawl goes on")
        return True
