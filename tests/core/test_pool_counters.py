"""The report's per-minute counters in the pool (``core/counters.py``): every backend adds what
it is given, keeps it across close and reopen, starts afresh on a snapshot load; the workers of
one Redis pool add up."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crawler_gui.core.counters import Counters, delay_median
from crawler_gui.core.redis.pool import RedisPool

from .conftest import PoolHarness, fast_config, run

T0 = 1_700_000_000.0  # minute 28,333,333


def sample() -> Counters:
    c = Counters()
    c.fetch(T0 + 1, "a.example", 200, None, 1000)
    c.fetch(T0 + 2, "a.example", 404, None, 10)
    c.fetch(T0 + 61, "b.example", None, "timeout", 0)
    c.refusal(T0 + 62)
    c.hub_fetch(T0 + 3)
    c.feed_fetch(T0 + 3)
    c.article(T0 + 4, "a.example", 45.0)
    c.article(T0 + 65, "b.example", None)
    return c


M0, M1 = int(T0 // 60), int(T0 // 60) + 1


def test_counting_fills_minutes_hosts_and_delays() -> None:
    c = sample()
    assert c.minutes[M0] == {
        "b": 1010,
        "p": 2,
        "s:200": 1,
        "s:404": 1,
        "h": 1,
        "f": 1,
        "a": 1,
    }
    assert c.minutes[M1] == {"e:timeout": 1, "r": 1, "a": 1}
    assert c.hosts["a.example"] == {"b": 1010, "p": 2, "f:404": 1, "a": 1}
    assert c.hosts["b.example"] == {"f:timeout": 1, "a": 1}
    assert c.delays == {"d:60": 1}
    assert c.total("p") == 2
    assert c.prefixed("s:") == {"200": 1, "404": 1}


def test_delay_median_interpolates_in_its_bucket() -> None:
    assert delay_median({}) is None
    # 4 delays: two in (10, 30], two in (30, 60]: the median is the top of the first bucket.
    assert delay_median({"d:30": 2, "d:60": 2}) == pytest.approx(30.0)
    assert delay_median({"d:10": 1}) == pytest.approx(5.0)
    assert delay_median({"d:inf": 3}) == 86400.0


def test_take_empties_and_merge_adds_back() -> None:
    c = sample()
    taken = c.take()
    assert not c and taken
    c.merge(taken)
    c.merge(sample())
    assert c.minutes[M0]["p"] == 4 and c.hosts["a.example"]["f:404"] == 2
    assert c.delays == {"d:60": 2}


def test_the_pool_adds_and_keeps_counters_across_reopen(harness: PoolHarness) -> None:
    pool = harness.open()
    assert not run(pool.counters())
    run(pool.add_counters(sample()))
    run(pool.add_counters(sample()))
    run(pool.add_counters(Counters()))  # nothing to add: nothing changes
    twice = Counters()
    twice.merge(sample())
    twice.merge(sample())
    got = run(pool.counters())
    assert got.minutes == twice.minutes
    assert got.hosts == twice.hosts
    assert got.delays == twice.delays
    pool = harness.reopen()
    got = run(pool.counters())
    assert got.minutes == twice.minutes and got.hosts == twice.hosts
    assert got.delays == twice.delays
    run(pool.add_counters(sample()))  # a restarted crawl goes on counting
    assert run(pool.counters()).minutes[M0]["p"] == 6


def test_a_snapshot_load_starts_the_counters_afresh(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    run(pool.add("http://a.example/x"))
    run(pool.add_counters(sample()))
    snap = tmp_path / "pool.cgpool"
    run(pool.save_snapshot(snap))
    run(pool.load_snapshot(snap))
    assert not run(pool.counters())
    assert run(pool.snapshot()).totals.waiting == 1


def test_two_redis_workers_add_up(redis_server: str) -> None:
    url = f"{redis_server}?name=counters2"

    async def main() -> Counters:
        one = await RedisPool.open(url, fast_config(), worker="w1")
        two = await RedisPool.open(url, fast_config(), worker="w2")
        try:
            # Interleaved flushes of both workers, on the same minutes and hosts.
            await asyncio.gather(
                *(pool.add_counters(sample()) for _ in range(20) for pool in (one, two))
            )
            return await one.counters()
        finally:
            await one.close()
            await two.close()

    got = run(main())
    assert got.minutes[M0]["p"] == 80  # 2 fetches x 20 flushes x 2 workers
    assert got.minutes[M1]["e:timeout"] == 40
    assert got.hosts["a.example"] == {"b": 40400, "p": 80, "f:404": 40, "a": 40}
    assert got.delays == {"d:60": 40}
