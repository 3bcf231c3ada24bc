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
* The pipe I/O of each worker runs in a thread of the pool's own executor, so a large page
  never blocks the loop while the pipe drains.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

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
        conn.send_bytes(json.dumps(out, ensure_ascii=False).encode("utf-8"))


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
    :meth:`start`/:meth:`close`."""

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
        self._queue: asyncio.Queue[_Item | None] | None = None
        self._runners: list[asyncio.Task[None]] = []
        self._executor: ThreadPoolExecutor | None = None
        self._running = 0
        #: Pages whose worker crashed or ran out of time (the pool went on).
        self.failures = 0
        self.restarts = 0

    @property
    def backlog(self) -> int:
        """Pages queued or being extracted."""
        queued = self._queue.qsize() if self._queue is not None else 0
        return queued + self._running

    @property
    def running(self) -> int:
        """Pages being extracted right now."""
        return self._running

    async def start(self) -> None:
        """Start the workers in the background and return at once: a crawl does not wait for
        them (pages queue meanwhile, and the queue's bound holds fetching back)."""
        if self._queue is not None:
            return
        self._queue = asyncio.Queue(self.queue_size)
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="extract-io")
        loop = asyncio.get_running_loop()
        self._runners = [
            loop.create_task(self._run(), name="extract-worker") for _ in range(self.workers)
        ]

    async def submit(self, job: ExtractJob) -> asyncio.Future[Extraction]:
        """Queue a page (waits while the queue is full); the future gets its extraction."""
        if self._queue is None:
            raise RuntimeError("the extraction pool is not started")
        fut: asyncio.Future[Extraction] = asyncio.get_running_loop().create_future()
        await self._queue.put((job, fut))
        return fut

    async def extract(self, job: ExtractJob) -> Extraction:
        return await (await self.submit(job))

    async def _run(self) -> None:
        assert self._queue is not None and self._executor is not None
        loop = asyncio.get_running_loop()
        worker = await loop.run_in_executor(self._executor, _Worker, self.function)
        try:
            while True:
                item = await self._queue.get()
                if item is None:
                    return
                job, fut = item
                self._running += 1
                try:
                    result, worker = await self._one(loop, worker, job)
                finally:
                    self._running -= 1
                if not fut.done():
                    fut.set_result(result)
        finally:
            await loop.run_in_executor(None, worker.stop)

    async def _one(
        self, loop: asyncio.AbstractEventLoop, worker: _Worker, job: ExtractJob
    ) -> tuple[Extraction, _Worker]:
        call = loop.run_in_executor(self._executor, worker.roundtrip, job.header(), job.body)
        try:
            raw = await asyncio.wait_for(asyncio.shield(call), self.time_limit)
            return Extraction.from_dict(json.loads(raw)), worker
        except TimeoutError:
            reason = f"took longer than {self.time_limit:g} s"
        except (EOFError, OSError) as exc:
            await loop.run_in_executor(None, worker.process.join, 5)
            code = worker.process.exitcode
            reason = f"the extraction worker died ({_exit_text(code) if code is not None else exc})"
        except ValueError as exc:
            reason = f"unreadable answer from the worker: {exc}"
        self.failures += 1
        self.restarts += 1
        log.warning("extraction of %s failed: %s; worker restarted", job.url, reason)
        await loop.run_in_executor(None, worker.kill)
        with contextlib.suppress(Exception):
            await call  # the I/O thread ends once the worker is gone
        fresh = await loop.run_in_executor(None, _Worker, self.function)
        return Extraction.failed(reason), fresh

    async def drain(self) -> None:
        """Wait until everything queued has been extracted."""
        while self.backlog:
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        """Finish what is queued, stop the workers."""
        if self._queue is None:
            return
        for _ in self._runners:
            await self._queue.put(None)
        await asyncio.gather(*self._runners, return_exceptions=True)
        self._runners = []
        self._queue = None
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

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
