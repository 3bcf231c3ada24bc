"""The asyncio event loop of the desktop app: qasync's Qt loop, scheduling as asyncio's own loop.

qasync runs every callback through a Qt timer of its own: ``call_soon`` is ``call_later(0)``,
and each ``call_later``/``call_at`` is one ``startTimer``, one timer event and one ``killTimer``.
A cancelled handle keeps its Qt timer until the delay runs out. aiohttp re-arms a read timeout
(``call_at``, tens of seconds ahead) on every chunk it receives and cancels the previous one, so a
fast crawl keeps thousands of dead Qt timers alive, and Qt sorts each new one into that list;
with the per-callback ``iscoroutinefunction`` checks this machinery, not the crawl, took a large
share of the window's cost (``benchmarks/gui.py`` prints the split).

This loop keeps asyncio's own structures instead: a ready queue and a heap of ``TimerHandle``s
(cancelled ones are dropped when they reach the top, or swept when they are the majority, as
``BaseEventLoop`` does). One precise single-shot ``QTimer`` is armed for the next thing to do: at
once while callbacks are ready, else at the earliest deadline. Each turn runs the callbacks queued
before it started and returns to Qt, so painting and input get their turn between batches.
File descriptors, executors and ``call_soon_threadsafe`` stay qasync's.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import math
from collections import deque
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt, QTimer

# as ``asyncio.base_events``: sweep the heap when most of it is cancelled handles
_MIN_SCHEDULED_TIMER_HANDLES = 100
_MIN_CANCELLED_TIMER_HANDLES_FRACTION = 0.5


class BatchingEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ready_handles: deque[asyncio.Handle] = deque()
        # TimerHandles; typed Any: their _when/_scheduled (asyncio's own bookkeeping) are private
        self._heap: list[Any] = []
        self._heap_cancelled = 0
        self._wake = QTimer()
        self._wake.setSingleShot(True)
        self._wake.setTimerType(Qt.TimerType.PreciseTimer)
        self._wake.timeout.connect(self._turn)
        self._armed_at: float | None = None  # loop time the wake timer fires at (None: idle)
        self._turns = 0

    # -- scheduling -----------------------------------------------------------------------
    def call_soon(
        self,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.Handle:
        if self.get_debug():
            self._check_callback(callback, "call_soon")
        handle = asyncio.Handle(callback, args, self, context=context)
        self._ready_handles.append(handle)
        if self._armed_at is None or self._armed_at > 0.0:
            self._arm(0.0)
        return handle

    def call_later(
        self,
        delay: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        return self.call_at(self.time() + delay, callback, *args, context=context)

    def call_at(
        self,
        when: float,
        callback: Callable[..., object],
        *args: Any,
        context: contextvars.Context | None = None,
    ) -> asyncio.TimerHandle:
        if self.get_debug():
            self._check_callback(callback, "call_at")
        handle: Any = asyncio.TimerHandle(when, callback, args, self, context=context)
        heapq.heappush(self._heap, handle)
        handle._scheduled = True
        if self._armed_at is None or when < self._armed_at:
            self._arm(when)
        return handle  # type: ignore[no-any-return]

    def _check_callback(self, callback: Any, method: str) -> None:
        if asyncio.iscoroutine(callback) or asyncio.iscoroutinefunction(callback):
            raise TypeError(f"coroutines cannot be used with {method}()")
        if not callable(callback):
            raise TypeError(f"a callable object was expected by {method}(), got {callback!r}")

    def _timer_handle_cancelled(self, handle: Any) -> None:
        """Called by ``TimerHandle.cancel``: count it; the heap is swept when mostly dead."""
        if handle._scheduled:
            self._heap_cancelled += 1

    def _arm(self, when: float) -> None:
        """Fire the wake timer at loop time ``when`` (0.0: as soon as Qt gets to it)."""
        if self.is_closed():
            return
        self._armed_at = when
        ms = 0 if when <= 0.0 else max(0, math.ceil((when - self.time()) * 1000))
        self._wake.start(ms)

    # -- one turn -------------------------------------------------------------------------
    def run_forever(self) -> None:
        # What was scheduled while the loop was stopped (between two run_until_complete
        # calls) runs once it runs again.
        if self._ready_handles:
            self._arm(0.0)
        elif self._heap:
            self._arm(self._heap[0]._when)
        super().run_forever()

    def _turn(self) -> None:
        """Move due timers to the ready queue, run what was ready when the turn began, re-arm."""
        self._armed_at = None
        if self.is_closed() or not self.is_running():
            # Qt delivered the wake-up while the loop is stopped (a dialog's or a test's own
            # event processing): asyncio runs no callback then; run_forever re-arms.
            return
        self._turns += 1
        heap = self._heap
        if (
            len(heap) > _MIN_SCHEDULED_TIMER_HANDLES
            and self._heap_cancelled / len(heap) > _MIN_CANCELLED_TIMER_HANDLES_FRACTION
        ):
            live = []
            for h in heap:
                if h._cancelled:
                    h._scheduled = False
                else:
                    live.append(h)
            heapq.heapify(live)
            self._heap = heap = live
            self._heap_cancelled = 0
        ready = self._ready_handles
        end = self.time() + self._clock_resolution
        while heap:
            top = heap[0]
            if top._cancelled:
                heapq.heappop(heap)
                top._scheduled = False
                self._heap_cancelled -= 1
                continue
            if top._when >= end:
                break
            heapq.heappop(heap)
            top._scheduled = False
            ready.append(top)
        for _ in range(len(ready)):
            handle = ready.popleft()
            if not handle._cancelled:
                handle._run()
        # A callback may have armed the timer already: for its own call_soon (nothing comes
        # sooner), or for its own call_at, which may be later than a timer already waiting.
        if ready:
            if self._armed_at != 0.0:
                self._arm(0.0)
            return
        while heap and heap[0]._cancelled:
            heapq.heappop(heap)._scheduled = False
            self._heap_cancelled -= 1
        if heap and (self._armed_at is None or heap[0]._when < self._armed_at):
            self._arm(heap[0]._when)

    def close(self) -> None:
        if self.is_closed():
            return
        super().close()  # first: it refuses a running loop, which must keep its wake timer
        self._wake.stop()
        self._ready_handles.clear()
        for h in self._heap:
            h._scheduled = False
        self._heap.clear()
