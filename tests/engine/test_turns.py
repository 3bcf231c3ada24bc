"""engine/turns.py: page work spread over loop turns, on a fake clock."""

from __future__ import annotations

import asyncio
from collections import Counter

from crawler_gui.engine.turns import TurnBudget


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _run_pages(pages: int, work: float, budget: float) -> tuple[list[int], list[int], int]:
    """``pages`` tasks ready in one turn, each doing ``work`` seconds (on the fake clock)
    after its checkpoint; returns the order they worked in, the turn each worked in, and the
    deferrals."""
    clock = FakeClock()
    gate = TurnBudget(budget, clock)
    order: list[int] = []
    turn_of: list[int] = []
    turn = 0

    async def main() -> None:
        nonlocal turn
        loop = asyncio.get_running_loop()
        stop = False

        def tick() -> None:  # one per loop turn
            nonlocal turn
            turn += 1
            if not stop:
                loop.call_soon(tick)

        async def page(i: int) -> None:
            await gate.checkpoint()
            order.append(i)
            turn_of.append(turn)
            clock.now += work  # the page's CPU work

        loop.call_soon(tick)
        await asyncio.gather(*(page(i) for i in range(pages)))
        stop = True

    asyncio.run(main())
    return order, turn_of, gate.deferred


def test_a_burst_of_pages_is_spread_over_turns_in_order() -> None:
    order, turn_of, deferred = _run_pages(pages=20, work=0.004, budget=0.015)
    assert order == list(range(20))  # the same order as without the budget
    per_turn = Counter(turn_of)
    assert max(per_turn.values()) == 4  # 4 x 4 ms: the 4th starts inside 15 ms, the 5th not
    assert len(per_turn) == 5
    assert deferred > 0


def test_a_waiting_page_sleeps_until_its_slice_not_polling_every_turn() -> None:
    """Each page waits once per slice it misses (16 + 12 + 8 + 4 for 20 pages of 4 per
    slice), however many loop turns pass meanwhile (the test's ticker makes one every step):
    a page polling each turn took a task step per turn."""
    order, _turn_of, deferred = _run_pages(pages=20, work=0.004, budget=0.015)
    assert order == list(range(20))
    assert deferred == 16 + 12 + 8 + 4


def test_a_cancelled_waiting_page_does_not_hold_up_the_others() -> None:
    clock = FakeClock()
    gate = TurnBudget(0.015, clock)
    done: list[int] = []

    async def page(i: int) -> None:
        await gate.checkpoint()
        clock.now += 0.010
        done.append(i)

    async def main() -> None:
        tasks = [asyncio.create_task(page(i)) for i in range(4)]
        await asyncio.sleep(0)  # 0 and 1 work, 2 and 3 wait for the next slice
        tasks[2].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    assert done == [0, 1, 3]


def test_pages_within_the_budget_run_in_one_turn() -> None:
    _order, turn_of, deferred = _run_pages(pages=10, work=0.001, budget=0.015)
    assert len(set(turn_of)) == 1
    assert deferred == 0


def test_one_long_page_still_runs_and_the_next_waits() -> None:
    _order, turn_of, _deferred = _run_pages(pages=3, work=0.100, budget=0.015)
    assert len(set(turn_of)) == 3  # one per turn: a page is never cut, only postponed


def test_after_due_timers_lets_a_timer_that_came_due_run_before_the_next_step() -> None:
    """A timer that comes due while a task works runs before the task's next step when the
    task yields with ``after_due_timers``; with ``asyncio.sleep(0)`` the step goes first."""
    import time

    from crawler_gui.engine.turns import after_due_timers

    async def order_with(yielder) -> list[str]:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        loop.call_later(0.001, seen.append, "timer")

        async def work() -> None:
            time.sleep(0.003)  # the timer comes due during this step
            seen.append("step 1")
            await yielder()
            seen.append("step 2")

        await work()
        await asyncio.sleep(0.01)
        return seen

    assert asyncio.run(order_with(after_due_timers)) == ["step 1", "timer", "step 2"]
    assert asyncio.run(order_with(lambda: asyncio.sleep(0))) == ["step 1", "step 2", "timer"]
