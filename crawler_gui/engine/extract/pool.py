"""Extraction off the event loop: a pool of worker processes running our own code, plain data
in and out, a bounded queue, a per-page time limit, and a crash costing one page.

* Each worker is a spawned process (never forked from a process that may hold Qt and an event
  loop) serving one page at a time over a pipe. The page goes in as a JSON header plus the raw
  body bytes; the answer comes back as the :class:`Extraction` dict in JSON. Nothing is
  pickled.
* :meth:`ExtractPool.submit` waits while the queue is full: the page task that called it
  (holding its fetch slot) waits, so fetching slows to the extraction rate instead of memory
  growing.
* A page that takes longer than ``time_limit`` or whose worker dies (a parser segfault) gets a
  failed :class:`Extraction` (kind ``other``, the reason in ``why``); the worker is killed if
  needed and a new one started. The other pages are not touched.
* The pipe I/O of each worker runs in a feeder thread of its own, which also takes the
  worker's next page from the queue: a large page never blocks the loop while the pipe drains,
  and a busy loop never leaves a worker idle between two pages.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import orjson

from crawler_gui.core.text import mended
from crawler_gui.engine.extract.model import Extraction

__all__ = ["DEFAULT_FUNCTION", "ExtractJob", "ExtractPool", "default_workers"]

log = logging.getLogger(__name__)

#: ``module:function`` a worker calls for each page: ``f(body, url, content_type, **options)``.
DEFAULT_FUNCTION = "crawler_gui.engine.extract.extractor:extract_page"
#: The longest one page may take.
DEFAULT_TIME_LIMIT = 20.0


def default_workers() -> int:
    """Workers for this machine: every CPU this process may use but one (the loop's)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, cpus - 1)


@dataclass(slots=True)
class ExtractJob:
    """One page to extract (plain data)."""

    url: str
    body: bytes
    content_type: str | None = None
    site_suffixes: list[str] = field(default_factory=list)
    zones: dict[str, str] = field(default_factory=dict)

    def header(self) -> bytes:
        return json.dumps(
            {
                "url": self.url,
                "content_type": self.content_type,
                "site_suffixes": self.site_suffixes,
                "zones": self.zones,
            }
        ).encode("utf-8")


#: How much lower an extraction worker runs than the crawl (``os.nice`` increment): the crawl's
#: event loop (and the window, under qasync) takes the CPU back at once when it has work, and a
#: worker sharing its core cannot hold it up for a time slice; extraction keeps every cycle the
#: loop leaves, and when it falls behind, its queue's backpressure slows the fetching.
WORKER_NICE = 10


def _worker_main(conn: Connection, function: str) -> None:  # pragma: no cover - in a child
    with contextlib.suppress(OSError, AttributeError):  # (no os.nice on Windows)
        os.nice(WORKER_NICE)
    module, _, name = function.partition(":")
    func = getattr(importlib.import_module(module), name)
    while True:
        try:
            header = json.loads(conn.recv_bytes())
            body = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            result = func(
                body,
                header["url"],
                header.get("content_type"),
                site_suffixes=header.get("site_suffixes") or (),
                zones=header.get("zones") or {},
            )
            out = result.to_dict()
        except Exception as exc:
            out = Extraction.failed(f"{type(exc).__name__}: {exc}").to_dict()
        # (mended: a JSON-LD "\\ud83d" escape leaves a lone surrogate, which UTF-8 refuses)
        conn.send_bytes(orjson.dumps(mended(out)))


class _Worker:
    def __init__(self, function: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(
            target=_worker_main, args=(child, function), name="crawler-gui-extract", daemon=True
        )
        self.process.start()
        child.close()

    def roundtrip(self, header: bytes, body: bytes) -> bytes:
        self.conn.send_bytes(header)
        self.conn.send_bytes(body)
        return self.conn.recv_bytes()

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.conn.close()
        self.process.join(5)

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()  # the worker's recv ends: it returns
        self.process.join(2)
        if self.process.is_alive():
            self.kill()


_Item = tuple[ExtractJob, "asyncio.Future[Extraction]"]


class ExtractPool:
    """``workers`` processes (default: :func:`default_workers`), a queue of ``queue_size``
    pages (default eight per worker, 16 at least). Use ``async with`` or
    :meth:`start`/:meth:`close`.

    Each worker has a feeder thread of its own that takes the next page from the queue, sends
    it, waits for the answer (at most ``time_limit``) and hands the result to the loop. The
    loop is needed only to queue a page and to receive its result: a worker never waits for a
    busy loop (a window repainting, a burst of fetches) before it gets its next page, so the
    crawl's extraction rate does not fall when the loop is busy."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        queue_size: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT,
        function: str = DEFAULT_FUNCTION,
    ) -> None:
        self.workers = workers or default_workers()
        self.queue_size = queue_size or max(16, 8 * self.workers)
        self.time_limit = time_limit
        self.function = function
        self._jobs: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        #: A page holds a slot from :meth:`submit` until its result is on the loop: queued
        #: pages plus the ones being extracted never exceed ``queue_size + workers``.
        self._slots: asyncio.Semaphore | None = None
        self._threads: list[threading.Thread] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending = 0
        self._idle = asyncio.Event()
        self._running = 0  # written by the feeder threads (under the GIL), read by the loop
        #: Pages whose worker crashed or ran out of time (the pool went on).
        self.failures = 0
        self.restarts = 0

    @property
    def backlog(self) -> int:
        """Pages queued or being extracted."""
        return self._pending

    @property
    def running(self) -> int:
        """Pages being extracted right now."""
        return self._running

    async def start(self) -> None:
        """Start the workers in the background and return at once: a crawl does not wait for
        them (pages queue meanwhile, and the queue's bound holds fetching back)."""
        if self._slots is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._slots = asyncio.Semaphore(self.queue_size + self.workers)
        self._idle.set()
        self._threads = [
            threading.Thread(target=self._feed, name="extract-feed", daemon=True)
            for _ in range(self.workers)
        ]
        for thread in self._threads:
            thread.start()

    async def submit(self, job: ExtractJob) -> asyncio.Future[Extraction]:
        """Queue a page (waits while the queue is full); the future gets its extraction."""
        if self._slots is None or self._loop is None:
            raise RuntimeError("the extraction pool is not started")
        await self._slots.acquire()
        fut: asyncio.Future[Extraction] = self._loop.create_future()
        self._pending += 1
        self._idle.clear()
        self._jobs.put((job, fut))
        return fut

    async def extract(self, job: ExtractJob) -> Extraction:
        return await (await self.submit(job))

    def _deliver(self, fut: asyncio.Future[Extraction], result: Extraction) -> None:
        """On the loop: a page's result, and its slot back."""
        self._pending -= 1
        if self._pending == 0:
            self._idle.set()
        if self._slots is not None:
            self._slots.release()
        if not fut.done():
            fut.set_result(result)

    def _feed(self) -> None:
        """A feeder thread: one worker process, fed from the queue until ``None`` comes."""
        worker: _Worker | None = None
        try:
            while True:
                item = self._jobs.get()
                if item is None:
                    return
                job, fut = item
                self._running += 1
                try:
                    if worker is None:
                        worker = _Worker(self.function)
                    result, worker = self._one(worker, job)
                except Exception as exc:  # a worker that cannot even start: this page fails
                    log.warning("extraction of %s failed: %s", job.url, exc)
                    result = Extraction.failed(f"{type(exc).__name__}: {exc}")
                finally:
                    self._running -= 1
                loop = self._loop
                if loop is not None:
                    with contextlib.suppress(RuntimeError):  # the loop is closed: no one waits
                        loop.call_soon_threadsafe(self._deliver, fut, result)
        finally:
            if worker is not None:
                worker.stop()

    def _one(self, worker: _Worker, job: ExtractJob) -> tuple[Extraction, _Worker | None]:
        """In a feeder thread: one page's round trip, or its failure and a worker to replace
        the failed one (started lazily by the next page)."""
        try:
            worker.conn.send_bytes(job.header())
            worker.conn.send_bytes(job.body)
            if worker.conn.poll(self.time_limit):
                raw = worker.conn.recv_bytes()
                return Extraction.from_dict(orjson.loads(raw)), worker
            reason = f"took longer than {self.time_limit:g} s"
        except (EOFError, OSError) as exc:
            worker.process.join(5)
            code = worker.process.exitcode
            reason = f"the extraction worker died ({_exit_text(code) if code is not None else exc})"
        except ValueError as exc:
            reason = f"unreadable answer from the worker: {exc}"
        self.failures += 1
        self.restarts += 1
        log.warning("extraction of %s failed: %s; worker restarted", job.url, reason)
        worker.kill()
        return Extraction.failed(reason), None

    async def drain(self) -> None:
        """Wait until everything queued has been extracted."""
        if self._pending:
            await self._idle.wait()

    def abandon(self) -> int:
        """Let the pool go without waiting for what is queued (a stop that does not wait for
        extraction): the queued pages are taken off the queue (their futures are left
        unresolved: nobody waits for them) and each feeder thread ends after the page it is on
        (at most ``time_limit``; a process that exits kills its worker first), so no worker is
        started for a page nobody waits for. Returns how many queued pages were dropped."""
        dropped = 0
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            dropped += item is not None
        for _thread in self._threads:
            self._jobs.put(None)
        self._threads = []
        self._slots = None
        self._loop = None
        return dropped

    async def close(self) -> None:
        """Finish what is queued, stop the workers."""
        if self._slots is None:
            return
        for _ in self._threads:
            self._jobs.put(None)
        loop = asyncio.get_running_loop()
        for thread in self._threads:
            await loop.run_in_executor(None, thread.join)
        # A page queued while the pool was closing came after the threads' stop marks.
        while True:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._deliver(item[1], Extraction.failed("the extraction pool was closed"))
        # Results the threads handed over last are still in the loop's queue: let them land.
        for _ in range(100):
            if not self._pending:
                break
            await asyncio.sleep(0)
        self._threads = []
        self._slots = None
        self._loop = None

    async def __aenter__(self) -> ExtractPool:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def _exit_text(code: int) -> str:
    if code < 0:
        import signal

        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


Callback = Callable[[Extraction], Any]
