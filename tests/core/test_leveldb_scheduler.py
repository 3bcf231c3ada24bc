"""The LevelDB pool's scheduler: ``next_due`` is the earliest time something is really poppable.

A hub that is due while its host cannot take it (the host is in its politeness wait, or has as
many fetches in flight as it may) used to stay on top of the hub heap, so ``next_due`` said
"now" until the host was free and the dispatcher asked the pool every few milliseconds. (The
Redis pool keeps such hubs in its due set too: these tests are LevelDB's alone.)
"""

from __future__ import annotations

from pathlib import Path

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import FetchResult, Politeness

from .conftest import fast_config, run

HUB = "http://a.example.com/hub"
PAGE = "http://a.example.com/page"
OK = FetchResult(status=200, elapsed=0.1)
DELAY = 10.0


def open_pool(tmp_path: Path, clock: ManualClock) -> LevelDBPool:
    config = fast_config(politeness=Politeness(min_delay=DELAY, delay_factor=0.0))
    return LevelDBPool.open(tmp_path / "p", config, clock)


def test_a_hub_due_while_its_host_waits_is_due_when_the_wait_ends(tmp_path: Path) -> None:
    clock = ManualClock()
    pool = open_pool(tmp_path, clock)
    try:
        run(pool.set_hubs([HubSpec(HUB, 3600.0)]))
        (lease,) = run(pool.pop(1, 100))
        assert lease.url == HUB
        run(pool.set_status(HUB, OK))  # the host waits DELAY seconds now
        clock.advance(1.0)
        assert run(pool.refresh_hub(HUB))  # due now, but its host is not free for 9 s
        wait_ends = clock.now() + DELAY - 1.0
        assert run(pool.next_due()) == wait_ends
        assert run(pool.pop(5, 100)) == []
        assert run(pool.next_due()) == wait_ends  # still: no "now" after a pop either
        assert run(pool.snapshot()).next_due == wait_ends
        clock.advance(DELAY - 1.0)
        assert run(pool.next_due()) == clock.now()
        assert [lease.url for lease in run(pool.pop(5, 100))] == [HUB]
    finally:
        run(pool.close())


def test_a_hub_whose_host_has_a_fetch_in_flight_waits_for_that_fetch(tmp_path: Path) -> None:
    clock = ManualClock()
    pool = open_pool(tmp_path, clock)
    try:
        run(pool.add(PAGE))
        (lease,) = run(pool.pop(1, 0))  # the host's one fetch in flight
        assert lease.url == PAGE
        run(pool.set_hubs([HubSpec(HUB, 3600.0)]))  # a new hub: due at once
        assert run(pool.pop(5, 100)) == []
        # Only the lease's expiry is ahead: the fetch's end wakes the dispatcher before it.
        assert run(pool.next_due()) == lease.expires
        run(pool.set_status(PAGE, OK))
        assert run(pool.next_due()) == clock.now() + DELAY  # now the politeness wait
        clock.advance(DELAY)
        assert [lease.url for lease in run(pool.pop(5, 100))] == [HUB]
    finally:
        run(pool.close())


def test_a_held_hub_follows_its_host_when_the_wait_grows(tmp_path: Path) -> None:
    clock = ManualClock()
    pool = open_pool(tmp_path, clock)
    try:
        run(pool.set_hubs([HubSpec(HUB, 3600.0)]))
        run(pool.pop(1, 100))
        run(pool.set_status(HUB, OK))
        assert run(pool.refresh_hub(HUB))
        assert run(pool.pop(5, 100)) == []  # held until the host's wait ends
        run(pool.set_host_delay("a.example.com", 30.0))  # the wait grows to 30 s
        assert run(pool.next_due()) == clock.now() + 30.0
        clock.advance(DELAY)
        assert run(pool.pop(5, 100)) == []
        clock.advance(30.0 - DELAY)
        assert [lease.url for lease in run(pool.pop(5, 100))] == [HUB]
    finally:
        run(pool.close())


def test_a_held_hub_is_kept_across_a_pause_and_a_reopen(tmp_path: Path) -> None:
    clock = ManualClock()
    pool = open_pool(tmp_path, clock)
    try:
        run(pool.set_hubs([HubSpec(HUB, 3600.0)]))
        run(pool.pop(1, 100))
        run(pool.set_status(HUB, OK))
        assert run(pool.refresh_hub(HUB))
        assert run(pool.pop(5, 100)) == []
        run(pool.set_host_paused("a.example.com", True))
        assert run(pool.next_due()) is None  # a paused host's hub keeps nobody busy
        run(pool.set_host_paused("a.example.com", False))
        assert run(pool.next_due()) == clock.now() + DELAY
        run(pool.close())
        pool = open_pool(tmp_path, clock)
        assert run(pool.next_due()) == clock.now() + DELAY
        clock.advance(DELAY)
        assert [lease.url for lease in run(pool.pop(5, 100))] == [HUB]
    finally:
        run(pool.close())
