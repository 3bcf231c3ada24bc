"""What only the Redis pool has: URLs, worker ids, the pool-wide pause, snapshots across
backends, exact times through Lua, and clear errors."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
import redis.cluster

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig
from crawler_gui.core.redis.layout import DEFAULT_CLUSTER_GROUPS
from crawler_gui.core.redis.location import parse_pool_url, parse_pool_url_full
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.errors import PoolError, PoolVersionError, SnapshotFormatError

from .conftest import PoolHarness, fast_config, run
from .test_snapshot_file import populate, state

OK = FetchResult(status=200)


def _name() -> str:
    return "t" + uuid.uuid4().hex[:12]


def all_keys(url: str, pattern: str) -> list[str]:
    """Every key matching ``pattern`` on a single server or on every primary of a cluster."""
    with redis.Redis.from_url(url, decode_responses=True) as plain:
        if str(plain.info("cluster").get("cluster_enabled", "0")) != "1":
            return [str(k) for k in plain.keys(pattern)]
        lines = str(plain.execute_command("CLUSTER", "NODES")).splitlines()
    found: list[str] = []
    for line in lines:  # <id> <ip:port@bus> <flags> ...
        fields = line.split()
        if "master" in fields[2].split(","):
            host, port = fields[1].split("@", 1)[0].rsplit(":", 1)
            with redis.Redis(host=host, port=int(port), decode_responses=True) as node:
                found += [str(k) for k in node.keys(pattern)]
    return found


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
    assert parse_pool_url_full("redis://h:1/0?groups=8&name=n")[1:] == ("n", None, 8)
    for bad in ("0", "1025", "many"):
        with pytest.raises(PoolError, match="invalid groups="):
            parse_pool_url(f"redis://h:1/0?groups={bad}")
    with pytest.raises(PoolError, match="no host"):
        parse_pool_url("redis://:6379/0?name=n")
    with pytest.raises(PoolError, match="no socket path"):
        parse_pool_url("unix://?name=n")
    socket_url, name, _ = parse_pool_url("unix:///run/redis.sock?db=1&name=n")
    assert name == "n" and urlsplit(socket_url).path == "/run/redis.sock"


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


def test_a_cluster_pool_keeps_each_key_group_on_one_slot(redis_cluster: str) -> None:
    name = _name()
    hosts = [f"h{i}.example.com" for i in range(60)]

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_cluster}?name={name}", fast_config(), ManualClock())
        assert pool.cluster and len(pool.groups) == DEFAULT_CLUSTER_GROUPS
        await pool.add_many([f"http://{h}/{j}" for h in hosts for j in range(3)])
        await pool.set_hubs([HubSpec(f"http://{h}/hub", 60) for h in hosts[:10]])
        leases = await pool.pop(100, 10)
        assert len(leases) == 60 and len({lease.host for lease in leases}) == 60
        await pool.set_status_many([(lease.url, OK) for lease in leases[:30]])
        t = (await pool.snapshot()).totals
        assert (t.waiting, t.pending, t.done, t.hosts, t.hubs) == (130, 30, 20, 60, 10)
        await pool.close()

    run(go())
    keys = all_keys(redis_cluster, f"cg:{name}:*")
    assert len(keys) > 2 * len(hosts)
    slots_of_group: dict[str, set[int]] = {}
    for key in keys:
        if key == f"cg:{name}:meta":  # the pool-wide record: schema, layout, pause
            continue
        tag = key.split("{", 1)[1].split("}", 1)[0]
        assert tag.startswith(f"{name}/"), key  # every other key is in a group
        slots_of_group.setdefault(tag, set()).add(redis.cluster.key_slot(key.encode()))
    assert all(len(slots) == 1 for slots in slots_of_group.values())  # one slot per group
    assert len(slots_of_group) == DEFAULT_CLUSTER_GROUPS  # 60 hosts reach all 16 groups
    with redis.cluster.RedisCluster.from_url(redis_cluster) as cluster:
        nodes = {cluster.get_node_from_key(key).name for key in keys}
    assert len(nodes) == 3  # spread over the three primaries


def test_the_layout_is_chosen_when_a_pool_is_created(any_redis: str) -> None:
    url = f"{any_redis}?name={_name()}"

    async def go() -> None:
        pool = await RedisPool.open(url + "&groups=3", worker="a")
        assert len(pool.groups) == 3
        await pool.add("http://a.example.com/")
        await pool.close()
        again = await RedisPool.open(url, worker="b")  # no groups=: the pool's own layout
        assert len(again.groups) == 3 and (await again.snapshot()).totals.waiting == 1
        await again.close()
        with pytest.raises(PoolError, match="exists with 3 key group"):
            await RedisPool.open(url + "&groups=4")

    run(go())


def test_a_cluster_refuses_a_pool_in_the_single_server_layout(redis_cluster: str) -> None:
    name = _name()
    with redis.cluster.RedisCluster.from_url(redis_cluster) as cluster:
        cluster.hset(f"cg:{name}:meta", "schema", "1")  # what a pool of the old layout holds
    with pytest.raises(PoolError, match="single-server key layout"):
        run(RedisPool.open(f"{redis_cluster}?name={name}"))


def test_pause_and_generation_reach_every_client(any_redis: str) -> None:
    url = f"{any_redis}?name={_name()}"

    async def go() -> None:
        gui = await RedisPool.open(url, worker="gui")
        worker = await RedisPool.open(url, worker="w1")
        assert await worker.control() == (False, 0)
        assert await gui.set_paused(True) == 1
        assert await worker.control() == (True, 1)
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


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ("leveldb", "redis"),
        ("redis", "leveldb"),
        ("leveldb", "redis-cluster"),
        ("redis-cluster", "redis"),
    ],
)
def test_snapshots_move_between_backends(
    request: pytest.FixtureRequest, tmp_path: Path, src: str, dst: str
) -> None:
    def where(backend: str) -> str | None:
        if backend == "leveldb":
            return None
        fixture = "redis_cluster" if backend == "redis-cluster" else "redis_server"
        return str(request.getfixturevalue(fixture))

    first = PoolHarness(src, tmp_path / "a", where(src))
    second = PoolHarness(dst, tmp_path / "b", where(dst))
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
    any_redis: str, tmp_path: Path
) -> None:
    name = _name()
    url = f"{any_redis}?name={name}"

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
    assert all_keys(any_redis, f"cg:{name}:*")
    assert not all_keys(any_redis, f"cg:{name}:*~load*")


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


def test_workers_report_by_heartbeat_and_leases_name_their_worker(any_redis: str) -> None:
    clock = ManualClock()
    url = f"{any_redis}?name={_name()}"

    async def go() -> None:
        a = await RedisPool.open(url, fast_config(), clock, worker="crawl-1")
        b = await RedisPool.open(url, fast_config(), clock, worker="crawl-2")
        assert await a.workers() == []
        started = clock.now()
        await a.heartbeat("running", 10, 2.5, started)
        clock.advance(3)
        await b.heartbeat("paused", 0, 0.0, started)
        await b.heartbeat("running", 4, 1.0, started)  # a newer beat replaces the row
        rows = await a.workers()
        assert [(r.worker, r.state, r.pages, r.rate) for r in rows] == [
            ("crawl-1", "running", 10, 2.5),
            ("crawl-2", "running", 4, 1.0),
        ]
        assert rows[0].last_seen == started and rows[1].last_seen == started + 3
        assert rows[0].started == started and rows[0].pid > 0 and rows[0].machine

        await a.add_many([f"http://h{i}.example.com/" for i in range(4)])
        await a.pop(1, 0)
        await b.pop(2, 0)
        pending = (await a.snapshot()).pending
        assert sorted(row.worker for row in pending) == ["crawl-1", "crawl-2", "crawl-2"]

        await b.forget_worker()  # a clean exit says goodbye
        assert [r.worker for r in await a.workers()] == ["crawl-1"]
        clock.advance(2 * 86400)  # a day without a beat: forgotten
        assert await a.workers() == []
        await a.close()
        await b.close()

    run(go())


def test_snapshot_since_on_several_key_groups(redis_server: str) -> None:
    url = f"{redis_server}?name={_name()}&groups=4"

    async def go() -> None:
        gui = await RedisPool.open(url, fast_config(), ManualClock(), worker="gui")
        other = await RedisPool.open(url, fast_config(), ManualClock(), worker="other")
        await gui.add_many([f"http://h{i}.example.com/" for i in range(12)])
        full = await gui.snapshot()
        assert full.hosts_complete and len(full.hosts) == 12
        await other.add("http://h3.example.com/more")
        for i in range(40):  # the engine's totals-only calls do not push the window's out
            await other.add(f"http://x{i}.example.com/")
            assert (await gui.totals()).hosts == 12 + 1 + i
        delta = await gui.snapshot(since=full.version)
        assert not delta.hosts_complete
        assert {row.host for row in delta.hosts} == {"h3.example.com"} | {
            f"x{i}.example.com" for i in range(40)
        }
        assert delta.version > full.version
        # a version this client never handed out: every host, marked complete
        foreign = await gui.snapshot(since=full.version - 1)
        assert foreign.hosts_complete and len(foreign.hosts) == 52
        await gui.close()
        await other.close()

    run(go())


def test_a_snapshot_save_streams_the_pool_in_bounded_chunks(
    any_redis: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small chunks (one export script per 50 URLs) while workers keep adding URLs (the hash
    grows and rehashes under HSCAN): every URL of the pool before the save is in the file, each
    once, with its state, and the file loads into another pool."""
    import asyncio
    import gzip
    import json

    from crawler_gui.core.redis import snapshot_io

    monkeypatch.setattr(snapshot_io, "EXPORT_CHUNK", 50)
    chunk_sizes: list[int] = []
    real = snapshot_io.export_records

    def spy(reply: list[Any]) -> Any:
        chunk_sizes.append(len(reply[0]) // 2)  # URL records read by one script
        return real(reply)

    monkeypatch.setattr(snapshot_io, "export_records", spy)
    url = f"{any_redis}?name={_name()}"
    copy = f"{any_redis}?name={_name()}"
    snap = tmp_path / "chunked.cgpool"

    async def go() -> None:
        clock = ManualClock()
        pool = await RedisPool.open(url, fast_config(), clock)
        other = await RedisPool.open(copy, fast_config(), clock)
        try:
            first = [f"http://h{h}.example.com/{i}" for h in range(30) for i in range(40)]
            await pool.add_many(first)
            await pool.set_hubs([HubSpec(f"http://h{h}.example.com/", 60) for h in range(5)])
            leases = await pool.pop(20, 0)
            await pool.set_status_many(
                [(lease.url, FetchResult(status=500)) for lease in leases[:10]]
            )
            before = await pool.snapshot()
            saving = asyncio.ensure_future(pool.save_snapshot(snap))
            extra = 0
            while not saving.done():  # another worker keeps adding meanwhile
                await pool.add_many([f"http://new{extra}.example.com/{i}" for i in range(100)])
                extra += 1
                await asyncio.sleep(0)
            await saving
            assert await other.load_snapshot(snap) > 1200
            after = await other.snapshot()
            assert after.totals.retrying == before.totals.retrying == 10
            assert after.totals.hubs == 5
            assert after.totals.waiting >= before.totals.waiting + 10  # leases saved as waiting
        finally:
            await pool.close()
            await other.close()

    run(go())
    urls = [
        json.loads(line)["url"]
        for line in gzip.decompress(snap.read_bytes()).splitlines()[1:-1]
        if json.loads(line)["t"] == "url"
    ]
    assert len(urls) == len(set(urls))
    assert {f"http://h{h}.example.com/{i}" for h in range(30) for i in range(40)} <= set(urls)
    # Never the whole pool at once (HSCAN's COUNT is a hint: a step of a hash being rehashed
    # may return several times as many; a small hash comes whole).
    assert len(chunk_sizes) > 20 and max(chunk_sizes) <= 600


def test_a_result_made_from_host_inputs_that_changed_is_made_again(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker makes a host's politeness delay (``pool_rules``) from the Crawl-delay and
    user delay it read; when they change before its script runs (the user, another worker),
    the script does not take the result, and the worker makes it again from the new ones."""
    url = f"{redis_server}?name={_name()}"
    real = RedisPool._host_inputs
    reads: list[dict[str, tuple[float, float]]] = []

    async def go() -> None:
        clock = ManualClock()
        cfg = fast_config(politeness=Politeness(min_delay=1.0, delay_factor=4.0, max_delay=30.0))
        pool = await RedisPool.open(url, cfg, clock, worker="a")
        other = await RedisPool.open(url, cfg, clock, worker="b")

        async def racing(self: RedisPool, hosts: Any) -> dict[str, tuple[float, float]]:
            found = await real(self, hosts)
            reads.append(found)
            if len(reads) == 1:  # between the worker's read and its script
                await other.set_host_delay("a.example.com", 20.0)
            return found

        try:
            await pool.add_many(["http://a.example.com/1", "http://a.example.com/2"])
            (lease,) = await pool.pop(1, 0)
            monkeypatch.setattr(RedisPool, "_host_inputs", racing)
            await pool.set_status(lease.url, FetchResult(status=200, elapsed=0.5))
            (row,) = [h for h in (await pool.snapshot()).hosts if h.host == "a.example.com"]
            assert (row.user_delay, row.delay, row.delay_basis) == (20.0, 20.0, "u")
            assert row.next_allowed == clock.now() + 20.0
            assert reads == [{"a.example.com": (0.0, -1.0)}, {"a.example.com": (0.0, 20.0)}]
        finally:
            await pool.close()
            await other.close()

    run(go())


def test_a_cancelled_snapshot_save_leaves_no_file_behind(
    redis_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled while its thread reads the pool, a save returns only when the thread has
    stopped and removed its temporary file: nothing is left in the folder (no temporary file,
    and no snapshot written later behind the caller's back), and the pool saves again."""
    import asyncio
    import threading

    from crawler_gui.core.redis import snapshot_io

    monkeypatch.setattr(snapshot_io, "EXPORT_CHUNK", 20)
    real = snapshot_io.export_records
    in_thread, release = threading.Event(), threading.Event()

    def held(reply: list[Any]) -> Any:
        in_thread.set()
        release.wait(30)  # the first chunk waits here until the save was cancelled
        return real(reply)

    monkeypatch.setattr(snapshot_io, "export_records", held)
    folder = tmp_path / "snaps"
    folder.mkdir()
    snap = folder / "pool.cgpool"

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name={_name()}", fast_config())
        try:
            await pool.add_many([f"http://h{i % 9}.example.com/{i}" for i in range(400)])
            saving = asyncio.ensure_future(pool.save_snapshot(snap))
            await asyncio.to_thread(in_thread.wait, 30)
            saving.cancel()
            # runs after the save's task has taken its cancellation (FIFO callbacks)
            asyncio.get_running_loop().call_soon(release.set)
            with pytest.raises(asyncio.CancelledError):
                await saving
            assert sorted(p.name for p in folder.iterdir()) == []
            monkeypatch.setattr(snapshot_io, "export_records", real)
            assert await pool.save_snapshot(snap) == 400
        finally:
            release.set()
            await pool.close()

    run(go())
    assert sorted(p.name for p in folder.iterdir()) == ["pool.cgpool"]


def test_a_snapshot_load_streams_the_file_and_a_late_duplicate_changes_nothing(
    any_redis: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is read LOAD_BATCH records at a time (never whole); a URL named twice far
    apart is still caught, and then the pool is unchanged and no staging key is left."""
    from crawler_gui.core import snapshot_file
    from crawler_gui.core.redis import snapshot_io

    monkeypatch.setattr(snapshot_io, "LOAD_BATCH", 10)
    taken: list[int] = []
    real_take = snapshot_io._take

    def spy(records: Any, n: int) -> Any:
        batch = real_take(records, n)
        taken.append(len(batch))
        return batch

    monkeypatch.setattr(snapshot_io, "_take", spy)

    def url_rec(i: int) -> dict[str, Any]:
        return {"t": "url", "url": f"http://h{i % 7}.example.com/{i}", "state": "waiting",
                "depth": 0, "attempts": 0, "seq": i + 1, "time": 0}  # fmt: skip

    good, bad = tmp_path / "good", tmp_path / "bad"
    snapshot_file.write_snapshot(good, [url_rec(i) for i in range(100)])
    snapshot_file.write_snapshot(bad, [url_rec(i) for i in range(100)] + [url_rec(5)])
    name = _name()
    url = f"{any_redis}?name={name}"

    async def go() -> None:
        pool = await RedisPool.open(url, fast_config(), ManualClock())
        try:
            await pool.add("http://before.example.com/")
            with pytest.raises(SnapshotFormatError, match="twice"):
                await pool.load_snapshot(bad)
            assert (await pool.snapshot()).totals.waiting == 1  # unchanged
            taken.clear()
            assert await pool.load_snapshot(good) == 100
            assert max(taken) <= 10 and sum(taken) == 100
            totals = (await pool.snapshot()).totals
            assert (totals.waiting, totals.hosts) == (100, 7)
            leases = await pool.pop(7, 0)
            assert sorted(lease.url for lease in leases) == sorted(
                f"http://h{i}.example.com/{i}" for i in range(7)
            )
        finally:
            await pool.close()

    run(go())
    assert not all_keys(any_redis, f"cg:{name}:*~load*")


def test_what_one_worker_learns_of_a_hub_every_worker_plans_with(redis_server: str) -> None:
    """Rates are in the shared hub records: a hub refreshed by worker a is planned by worker b
    (and b's refreshes go on from a's state)."""
    clock = ManualClock()
    url = f"{redis_server}?name={_name()}"
    busy, quiet = "http://busy.example.com/news/", "http://quiet.example.com/news/"

    def found(new: int) -> FetchResult:
        return FetchResult(status=200, elapsed=0.1, hub_new=new, hub_listed=20)

    async def go() -> None:
        a = await RedisPool.open(url, fast_config(), clock, worker="a")
        b = await RedisPool.open(url, fast_config(), clock, worker="b")
        await a.set_hubs([HubSpec(busy, 60), HubSpec(quiet, 60)])
        for _ in range(10):
            for lease in await a.pop(2, 100):
                await a.set_status(lease.url, found(10 if lease.url == busy else 0))
            clock.advance(60)
        rows = {r.url: r for r in (await b.snapshot()).hubs}
        assert rows[busy].yielded == 100 and rows[busy].rate > 10 * rows[quiet].rate
        assert rows[busy].planned < 60 < rows[quiet].planned
        # b refreshes the busy hub: its state goes on from a's.
        clock.advance(600)
        leases = [lease for lease in await b.pop(2, 100) if lease.url == busy]
        assert leases
        await b.set_status(busy, found(10))
        row = next(r for r in (await a.snapshot()).hubs if r.url == busy)
        assert row.yielded == 110
        assert row.next_due == pytest.approx(row.last_refresh + row.planned)
        await a.close()
        await b.close()

    run(go())


def test_pool_url_parsing_knows_redis_py_s_options_without_importing_it() -> None:
    """The window checks a pool URL on every keystroke: the parser must not load redis-py
    (160 ms on the GUI thread); its copy of redis-py's typed options holds every one the
    installed redis-py parses (older ones parse fewer)."""
    import subprocess
    import sys

    import redis.connection

    from crawler_gui.core.redis.location import REDIS_TYPED_URL_KEYS

    assert frozenset(redis.connection.URL_QUERY_ARGUMENT_PARSERS) <= REDIS_TYPED_URL_KEYS
    probe = (
        "import sys; from crawler_gui.core.redis.location import parse_pool_url; "
        "parse_pool_url('redis://h:1/0?name=n&socket_timeout=5'); "
        "print('redis' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
