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
once while callbacks are ready, else at the earliest deadline. A turn runs iterations as
asyncio's ``_run_once`` does (due timers, ready sockets, then the callbacks queued before the
iteration began) while more work is ready, for at most :data:`TURN_SECONDS`, then returns to Qt,
so painting and input get their turn between batches. A crawl makes six or so callbacks ready
per page, each a round trip through Qt's event dispatch when every iteration was a turn.

File descriptors: qasync gives every socket a ``QSocketNotifier`` of its own, and each time one
is ready it switches the notifier off, queues a callback, and switches it on again when the
callback has run: three calls into Qt's event dispatcher (each one changing the set of
descriptors it polls) per read or write, for every connection of a crawl. Where the platform
has a selector that is itself a pollable descriptor (epoll on Linux, kqueue on the BSDs and
macOS) this loop keeps asyncio's own: the sockets are registered in it, exactly as
``asyncio.SelectorEventLoop`` does, and one notifier watches the selector's descriptor. When it
fires, the next turn asks the selector (without waiting) which sockets are ready and runs their
callbacks with the rest of the turn's work: one poll and one batch for any number of sockets.
Elsewhere (Windows's proactor) qasync's notifiers stay.

Executors and ``call_soon_threadsafe`` stay qasync's.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import math
import selectors
from collections import deque
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QSocketNotifier, Qt, QTimer

# as ``asyncio.base_events``: sweep the heap when most of it is cancelled handles
_MIN_SCHEDULED_TIMER_HANDLES = 100
_MIN_CANCELLED_TIMER_HANDLES_FRACTION = 0.5
#: How long one turn goes on running what becomes ready during it before Qt gets control back
#: (a new iteration starts only before this; one iteration runs to its end).
TURN_SECONDS = 0.004


class BatchingEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # qasync's __init__ registers its self-pipe through _add_reader: that one stays a
        # notifier of qasync's (it is idle: call_soon_threadsafe goes through a Qt signal).
        self._fds: selectors.BaseSelector | None = None
        super().__init__(*args, **kwargs)
        self._fds_notifier: QSocketNotifier | None = None
        if isinstance(self, asyncio.SelectorEventLoop):
            selector = selectors.DefaultSelector()
            if callable(getattr(selector, "fileno", None)):  # epoll, kqueue, devpoll
                self._fds = selector
                self._fds_notifier = QSocketNotifier(selector.fileno(), QSocketNotifier.Type.Read)
                self._fds_notifier.activated.connect(self._fds_ready)
            else:
                selector.close()
        self._ready_handles: deque[asyncio.Handle] = deque()
        # TimerHandles; typed Any: their _when/_scheduled (asyncio's own bookkeeping) are private
        self._heap: list[Any] = []
        self._heap_cancelled = 0
        self._wake = QTimer()
        self._wake.setSingleShot(True)
        self._wake.setTimerType(Qt.TimerType.PreciseTimer)
        self._wake.timeout.connect(self._turn)
        self._armed_at: float | None = None  # loop time the wake timer fires at (None: idle)
        self._in_turn = False  # (a turn arms the timer once, at its end)
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
        if not self._in_turn and (self._armed_at is None or self._armed_at > 0.0):
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
        if not self._in_turn and (self._armed_at is None or when < self._armed_at):
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

    # -- file descriptors: asyncio's selector, one notifier on it ------------------------------
    def _fds_ready(self) -> None:
        """Some socket is ready: the next turn asks which. Off until then, so that Qt does not
        report the same readiness again before the callbacks have read it."""
        if self._fds_notifier is not None:
            self._fds_notifier.setEnabled(False)
        if self._armed_at is None or self._armed_at > 0.0:
            self._arm(0.0)

    def _poll_fds(self) -> None:
        """Queue the callbacks of the sockets ready now (``BaseSelectorEventLoop``'s
        ``_process_events``)."""
        assert self._fds is not None
        ready = self._ready_handles
        for key, mask in self._fds.select(0):
            reader, writer = key.data
            if mask & selectors.EVENT_READ and reader is not None:
                if reader._cancelled:
                    self._remove_reader(key.fd)
                else:
                    ready.append(reader)
            if mask & selectors.EVENT_WRITE and writer is not None:
                if writer._cancelled:
                    self._remove_writer(key.fd)
                else:
                    ready.append(writer)

    def _add_fd(self, fd: Any, event: int, handle: asyncio.Handle) -> None:
        assert self._fds is not None
        try:
            key = self._fds.get_key(fd)
        except KeyError:
            data = (handle, None) if event == selectors.EVENT_READ else (None, handle)
            self._fds.register(fd, event, data)
            return
        reader, writer = key.data
        if event == selectors.EVENT_READ:
            self._fds.modify(fd, key.events | event, (handle, writer))
            old = reader
        else:
            self._fds.modify(fd, key.events | event, (reader, handle))
            old = writer
        if old is not None:
            old.cancel()

    def _remove_fd(self, fd: Any, event: int) -> bool:
        assert self._fds is not None
        try:
            key = self._fds.get_key(fd)
        except KeyError:
            return False
        reader, writer = key.data
        mask = key.events & ~event
        if event == selectors.EVENT_READ:
            old, data = reader, (None, writer)
        else:
            old, data = writer, (reader, None)
        if not mask:
            self._fds.unregister(fd)
        else:
            self._fds.modify(fd, mask, data)
        if old is None:
            return False
        old.cancel()
        return True

    def _add_reader(self, fd: Any, callback: Callable[..., object], *args: Any) -> Any:
        if self._fds is None:
            return super()._add_reader(fd, callback, *args)
        self._check_closed()
        handle = asyncio.Handle(callback, args, self, None)
        self._add_fd(fd, selectors.EVENT_READ, handle)
        return handle

    def _add_writer(self, fd: Any, callback: Callable[..., object], *args: Any) -> Any:
        if self._fds is None:
            return super()._add_writer(fd, callback, *args)
        self._check_closed()
        handle = asyncio.Handle(callback, args, self, None)
        self._add_fd(fd, selectors.EVENT_WRITE, handle)
        return handle

    def _remove_reader(self, fd: Any) -> bool:
        if self._fds is None or self.is_closed():
            return bool(super()._remove_reader(fd))
        return self._remove_fd(fd, selectors.EVENT_READ) or bool(super()._remove_reader(fd))

    def _remove_writer(self, fd: Any) -> bool:
        if self._fds is None or self.is_closed():
            return bool(super()._remove_writer(fd))
        return self._remove_fd(fd, selectors.EVENT_WRITE) or bool(super()._remove_writer(fd))

    # -- one turn -------------------------------------------------------------------------
    def run_forever(self) -> None:
        # What was scheduled while the loop was stopped (between two run_until_complete
        # calls) runs once it runs again.
        fds_off = self._fds_notifier is not None and not self._fds_notifier.isEnabled()
        if self._ready_handles or fds_off:
            self._arm(0.0)
        elif self._heap:
            self._arm(self._heap[0]._when)
        super().run_forever()

    def _turn(self) -> None:
        """Run iterations (due timers and ready sockets into the ready queue, then what was
        ready when the iteration began) while work is ready, for up to :data:`TURN_SECONDS`;
        then re-arm and give Qt control."""
        self._armed_at = None
        if self._in_turn or self.is_closed() or not self.is_running():
            # Qt delivered the wake-up while the loop is stopped (a dialog's or a test's own
            # event processing), or inside a callback of this turn that processes Qt's
            # events: asyncio runs no callback then; run_forever (or this turn) re-arms.
            return
        self._turns += 1
        self._in_turn = True
        # The selector is asked when its notifier fired, and at every later iteration.
        poll = self._fds_notifier is not None and not self._fds_notifier.isEnabled()
        try:
            self._sweep()
            ready = self._ready_handles
            until = self.time() + TURN_SECONDS
            while True:
                self._due_to_ready()
                if poll:
                    self._poll_fds()
                for _ in range(len(ready)):
                    handle = ready.popleft()
                    if not handle._cancelled:
                        handle._run()
                # On while something is ready (a socket is asked again each time: a
                # response's next chunk, a connection made), not past the budget, and not
                # after a callback stopped or closed the loop.
                poll = self._fds is not None
                if not ready or self.time() >= until or self.is_closed() or not self.is_running():
                    break
        finally:
            self._in_turn = False
        # The selector was asked last in this turn: what becomes ready from now on wakes the
        # notifier again (the selector's descriptor is readable while a socket is).
        if self._fds_notifier is not None and not self.is_closed():
            self._fds_notifier.setEnabled(True)
        # (Armed already only by Qt events processed inside a callback: keep the sooner.)
        if ready:
            if self._armed_at != 0.0:
                self._arm(0.0)
            return
        heap = self._heap
        while heap and heap[0]._cancelled:
            heapq.heappop(heap)._scheduled = False
            self._heap_cancelled -= 1
        if heap and (self._armed_at is None or heap[0]._when < self._armed_at):
            self._arm(heap[0]._when)

    def _sweep(self) -> None:
        """Drop the cancelled timers when they are most of the heap (as asyncio does)."""
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
            self._heap = live
            self._heap_cancelled = 0

    def _due_to_ready(self) -> None:
        """Move the timers that are due to the ready queue (cancelled ones are dropped)."""
        heap, ready = self._heap, self._ready_handles
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

    def close(self) -> None:
        if self.is_closed():
            return
        super().close()  # first: it refuses a running loop, which must keep its wake timer
        self._wake.stop()
        if self._fds_notifier is not None:
            self._fds_notifier.setEnabled(False)
            self._fds_notifier = None
        if self._fds is not None:
            self._fds.close()
            self._fds = None
        self._ready_handles.clear()
        for h in self._heap:
            h._scheduled = False
        self._heap.clear()
