"""What only the Redis pool has: URLs, worker ids, the pool-wide pause, snapshots across
backends, exact times through Lua, and clear errors."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import redis

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig
from crawler_gui.core.redis_pool import RedisPool, parse_pool_url
from crawler_gui.errors import PoolError, PoolVersionError, SnapshotFormatError

from .conftest import PoolHarness, fast_config, run
from .test_snapshot_file import populate, state

OK = FetchResult(status=200)


def _name() -> str:
    return "t" + uuid.uuid4().hex[:12]


def test_pool_url_carries_name_and_worker() -> None:
    assert parse_pool_url("redis://h:1/2?name=news&worker=w1") == ("redis://h:1/2", "news", "w1")
    assert parse_pool_url("redis://h:1/0") == ("redis://h:1/0", "default", None)
    assert parse_pool_url("redis://h:1/0?name=a&socket_timeout=5")[0] == (
        "redis://h:1/0?socket_timeout=5"
    )
    with pytest.raises(PoolError, match="invalid pool name"):
        parse_pool_url("redis://h:1/0?name=a:b")
    with pytest.raises(PoolError, match="not a Redis URL"):
        parse_pool_url("http://h:1/0")


def test_unreachable_server_is_a_clear_error() -> None:
    with pytest.raises(PoolError, match="cannot reach"):
        run(RedisPool.open("redis://127.0.0.1:1/0?name=x"))


def test_newer_schema_is_refused(redis_server: str) -> None:
    name = _name()
    with redis.Redis.from_url(redis_server) as plain:
        plain.hset(f"cg:{name}:meta", "schema", "99")
    with pytest.raises(PoolVersionError, match="newer crawler-gui"):
        run(RedisPool.open(f"{redis_server}?name={name}"))


def test_keys_stay_in_the_pools_namespace(redis_server: str) -> None:
    name = _name()

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name={name}", fast_config())
        await pool.add_many(["http://a.example.com/1", "http://b.example.com/1"])
        await pool.set_hubs([HubSpec("http://c.example.com/", 60)])
        await pool.pop(5, 50)
        await pool.close()

    run(go())
    with redis.Redis.from_url(redis_server, decode_responses=True) as plain:
        keys = plain.keys(f"*{name}*")
    assert keys and all(k.startswith(f"cg:{name}:") for k in keys)
    assert f"cg:{name}:h:{{a.example.com}}" in keys  # per-host keys carry a hash tag


def test_pause_and_generation_reach_every_client(redis_server: str) -> None:
    url = f"{redis_server}?name={_name()}"

    async def go() -> None:
        gui = await RedisPool.open(url, worker="gui")
        worker = await RedisPool.open(url, worker="w1")
        assert await worker.control() == (False, 0)
        assert await gui.set_paused(True) == 1
        assert await worker.paused() and await worker.generation() == 1
        await gui.set_paused(False)
        assert await worker.control() == (False, 2)
        await gui.close()
        await worker.close()

    run(go())


def test_another_workers_leases_wait_for_expiry_or_an_explicit_reclaim(redis_server: str) -> None:
    clock = ManualClock()
    url = f"{redis_server}?name={_name()}"

    async def go() -> None:
        a = await RedisPool.open(url, fast_config(), clock, worker="a")
        await a.add_many([f"http://h{i}.example.com/" for i in range(3)])
        leases = await a.pop(3, 0)
        await a.close()  # "a" vanishes without a word
        b = await RedisPool.open(url, fast_config(), clock, worker="b")
        assert (await b.snapshot()).totals.pending == 3  # b cannot know that a is dead
        assert await b.pop(3, 0) == []
        assert await b.reclaim_worker("nobody") == 0
        assert await b.reclaim_worker("a") == 3  # a supervisor saw it die
        assert len(await b.pop(3, 0)) == 3
        assert {b.url_attempts(lease.url) for lease in leases} == {1}
        clock.advance(60)  # b's own leases come back by themselves
        assert await b.reclaim_expired() == 3
        await b.close()

    run(go())


def test_a_result_from_a_worker_whose_lease_moved_on_is_taken_once(redis_server: str) -> None:
    clock = ManualClock()
    url = f"{redis_server}?name={_name()}"

    async def go() -> None:
        slow = await RedisPool.open(url, fast_config(), clock, worker="slow")
        fast = await RedisPool.open(url, fast_config(), clock, worker="fast")
        await slow.add("http://a.example.com/x")
        await slow.pop(1, 0)
        clock.advance(61)
        (again,) = await fast.pop(1, 0)  # expired, handed to the other worker
        await slow.set_status(again.url, OK)  # the slow worker answers after all
        await fast.set_status(again.url, OK)  # ignored: no longer in flight
        totals = (await fast.snapshot()).totals
        assert (totals.done, totals.pending, totals.waiting) == (1, 0, 0)
        await slow.close()
        await fast.close()

    run(go())


def test_times_keep_every_digit_through_lua(redis_server: str) -> None:
    clock = ManualClock(1_717_171_717.123456789)
    config = fast_config(politeness=Politeness(min_delay=0.0, delay_factor=3.0, max_delay=30.0))

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name={_name()}", config, clock)
        await pool.add_many(["http://a.example.com/1", "http://a.example.com/2"])
        (lease,) = await pool.pop(1, 0)
        assert lease.expires == clock.now() + 60.0
        await pool.set_status(lease.url, FetchResult(status=200, elapsed=0.123456789))
        (row,) = (await pool.snapshot()).hosts
        assert row.delay == 3.0 * 0.123456789
        assert row.next_allowed == clock.now() + 3.0 * 0.123456789
        assert await pool.next_due() == row.next_allowed
        await pool.close()

    run(go())


def test_one_pool_object_serves_one_long_event_loop(redis_server: str) -> None:
    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name={_name()}", fast_config())
        await pool.add_many([f"http://h{i}.example.com/" for i in range(50)])
        done = 0
        while leases := await pool.pop(7, 0):
            await pool.set_status_many([(lease.url, OK) for lease in leases])
            done += len(leases)
        assert done == 50
        await pool.close()
        await pool.close()  # twice is harmless

    run(go())


@pytest.mark.parametrize("src", ["leveldb", "redis"])
def test_snapshots_move_between_backends(redis_server: str, tmp_path: Path, src: str) -> None:
    dst = "redis" if src == "leveldb" else "leveldb"
    first = PoolHarness(src, tmp_path / "a", redis_server)
    second = PoolHarness(dst, tmp_path / "b", redis_server)
    second.clock = first.clock
    try:
        populate(first.open())
        before = state(first.pool)
        n = run(first.pool.save_snapshot(tmp_path / "s"))
        second.open()
        assert run(second.pool.load_snapshot(tmp_path / "s")) == n
        assert state(second.pool) == before
        rows: Any = {r.host: r for r in run(second.pool.snapshot()).hosts}
        assert rows["h2.example.com"] is not None
        run(second.pool.save_snapshot(tmp_path / "back"))
        assert run(first.pool.load_snapshot(tmp_path / "back")) == n
        assert state(first.pool) == before
    finally:
        first.close()
        second.close()


def test_a_load_keeps_the_pause_flag_and_leaves_no_staging_keys(
    redis_server: str, tmp_path: Path
) -> None:
    name = _name()
    url = f"{redis_server}?name={name}"

    async def go() -> None:
        pool = await RedisPool.open(url, fast_config(), ManualClock())
        await pool.add_many(["http://a.example.com/1", "http://b.example.com/1"])
        await pool.save_snapshot(tmp_path / "good")
        await pool.set_paused(True)
        bad = tmp_path / "bad"
        bad.write_bytes(b"\x1f\x8b not really gzip")
        with pytest.raises(SnapshotFormatError):
            await pool.load_snapshot(bad)
        _paused, gen = await pool.control()
        assert await pool.load_snapshot(tmp_path / "good") == 2
        assert await pool.control() == (True, gen + 1)
        assert (await pool.snapshot()).totals.waiting == 2
        await pool.close()

    run(go())
    with redis.Redis.from_url(redis_server, decode_responses=True) as plain:
        assert not plain.keys(f"cg:{name}:~load*")


def test_pool_config_values_reach_the_scripts(redis_server: str) -> None:
    config = PoolConfig(
        pending_threshold=5.0, politeness=Politeness(min_delay=0.0, delay_factor=0.0)
    )
    clock = ManualClock()

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name={_name()}", config, clock)
        await pool.add("http://a.example.com/")
        (lease,) = await pool.pop(1, 0)
        assert lease.expires - lease.started == 5.0
        clock.advance(5.0)
        assert await pool.next_due() == clock.now()
        await pool.close()

    run(go())
