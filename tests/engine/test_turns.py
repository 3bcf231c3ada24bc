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


def test_pages_within_the_budget_run_in_one_turn() -> None:
    _order, turn_of, deferred = _run_pages(pages=10, work=0.001, budget=0.015)
    assert len(set(turn_of)) == 1
    assert deferred == 0


def test_one_long_page_still_runs_and_the_next_waits() -> None:
    _order, turn_of, _deferred = _run_pages(pages=3, work=0.100, budget=0.015)
    assert len(set(turn_of)) == 3  # one per turn: a page is never cut, only postponed
