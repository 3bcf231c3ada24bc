"""Background coroutines started from Qt signals: kept referenced, errors logged, cancelled
together when their owner closes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from crawler_gui.engine.faults import log_error

log = logging.getLogger(__name__)


class Tasks:
    def __init__(self, on_error: Callable[[BaseException], None] | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._on_error = on_error

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        if name:
            task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log_error(log, f"{task.get_name()} failed", exc)  # (a clear error: one line)
            if self._on_error is not None:
                self._on_error(exc)

    def running(self) -> list[asyncio.Task[Any]]:
        return [t for t in self._tasks if not t.done()]

    async def cancel_all(self) -> None:
        tasks = self.running()
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
