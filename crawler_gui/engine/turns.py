"""Time slices for the work the loop does per page, so that no loop turn runs long.

An asyncio loop turn runs every callback that was ready when it began. When many fetches end
together (the first burst of a crawl: every connection answers at once; a host that answers
after a pause), one turn parses, stores and queues the links of all of them, and everything
else on the loop (the window's paint and input under qasync, a timer, the control server)
waits for the whole batch: 50 pages of 2-4 ms each are a 100-200 ms stall.

:class:`TurnBudget` gives each turn a budget of page work. A page task calls
:meth:`TurnBudget.checkpoint` before its CPU work; while the turn's budget lasts the call
returns at once, after that it waits for a later turn. The work still gets done in the same order
at the same rate; only the length of a turn is bounded (by the budget plus one page).

The budget's slice is restarted by a timer set when the slice began, due at once: it runs in
the next turn after the timers that were already due (so a page never runs between a turn's
start and a waiting timer), and the pages that waited start the turn after it. A turn is then
at most the budget plus one page long, whatever the number of pages ready together.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

__all__ = ["DEFAULT_TURN_BUDGET", "TurnBudget", "after_due_timers"]

#: Page work per loop turn (seconds): well under the 50 ms a user notices as a stall.
DEFAULT_TURN_BUDGET = 0.015


class TurnBudget:
    def __init__(
        self, budget: float = DEFAULT_TURN_BUDGET, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.budget = budget
        self._clock = clock
        self._slice_start: float | None = None  # None: the next checkpoint starts a slice
        #: The pages waiting for the next slice, in the order they came (one future each: a
        #: shared one would be cancelled for all when one waiting page is cancelled).
        self._waiting: deque[asyncio.Future[None]] = deque()
        #: Checkpoints that had to wait for a later turn (how often the budget held work back).
        self.deferred = 0

    def _new_slice(self) -> None:
        self._slice_start = None
        # The waiting pages go on in the next turn, in the order they came. They sleep until
        # then: a page polling with ``sleep(0)`` cost a task step in every turn it waited (a
        # crawl's busy loop turns often: some 20 wasted steps per page).
        waiting, self._waiting = self._waiting, deque()
        for fut in waiting:
            if not fut.done():
                fut.set_result(None)

    async def checkpoint(self) -> None:
        """Return at once while this turn's budget lasts; else wait for a turn that has some."""
        while True:
            now = self._clock()
            if self._slice_start is None:
                self._slice_start = now
                # a timer due now: it runs in the next turn's timer phase, after the timers
                # that came due before it (a paint, a probe), not before them
                asyncio.get_running_loop().call_later(0, self._new_slice)
                return
            if now - self._slice_start < self.budget:
                return
            self.deferred += 1
            fut = asyncio.get_running_loop().create_future()
            self._waiting.append(fut)
            await fut


async def after_due_timers() -> None:
    """Yield to the loop so that the timers already due (a paint, a probe, a tick) run before
    this task goes on. ``asyncio.sleep(0)`` would not do: the task's next step is then ready
    before the next turn begins, ahead of every timer that came due meanwhile, so two steps
    split by it still hold those timers back for the length of both."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_later(0, _resolve, done)
    await done


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)
