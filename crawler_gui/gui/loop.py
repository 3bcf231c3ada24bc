"""The asyncio event loop of the desktop app: qasync's Qt loop, with ready callbacks batched.

qasync runs every ``call_soon`` callback through a Qt timer of its own (``startTimer``, a timer
event, ``killTimer``). aiohttp schedules several such callbacks per request, so on a fast crawl
that machinery, not the crawl, takes the CPU. This loop queues ready callbacks in order and runs
everything queued so far from one zero-delay timer per turn, as asyncio's own loop does with its
ready queue. Callbacks with a delay still go through qasync's timers.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable
from typing import Any

import qasync


class BatchingEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ready_handles: deque[asyncio.Handle] = deque()
        self._drain_pending = False

    def call_soon(
        self,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.Handle:
        if asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with call_soon")
        handle = asyncio.Handle(callback, args, self, context=context)
        self._ready_handles.append(handle)
        if not self._drain_pending:
            self._drain_pending = True
            self._add_callback(asyncio.Handle(self._drain_ready, (), self), 0)
        return handle

    def run_forever(self) -> None:
        # Callbacks queued while the loop was stopped (between two run_until_complete calls)
        # run once it runs again.
        if self._ready_handles and not self._drain_pending:
            self._drain_pending = True
            self._add_callback(asyncio.Handle(self._drain_ready, (), self), 0)
        super().run_forever()

    def _drain_ready(self) -> None:
        """Run the callbacks queued before this turn; later ones wait for the next turn, so
        Qt's own events (painting, input) get their turn in between."""
        self._drain_pending = False
        if not self.is_running():
            # Qt delivered the timer while the loop is stopped (a dialog's or a test's own
            # event processing): asyncio runs no callback then; run_forever drains them.
            return
        ready = self._ready_handles
        for _ in range(len(ready)):
            handle = ready.popleft()
            if not handle._cancelled:
                handle._run()
        if ready and not self._drain_pending:
            self._drain_pending = True
            self._add_callback(asyncio.Handle(self._drain_ready, (), self), 0)
