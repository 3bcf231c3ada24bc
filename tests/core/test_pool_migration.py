"""A schema 1 LevelDB pool (keys in the hand-written canonical form) opens under schema 2: its
keys are moved to the WHATWG form, crash-safely (an injected failure, and a real ``kill -9`` of a
process in the middle of a migration, leave a pool that opens and finishes the migration)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import plyvel
import pytest

from crawler_gui.core import snapshot_file
from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool, layout, migrate, repair_pool
from crawler_gui.core.policy import FetchResult
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.errors import PoolVersionError

from .conftest import fast_config, run

#: Canonical form now -> how a schema 1 pool could hold it.
OLD = {
    "http://127.0.0.1/a": "http://0x7f.1/a",
    "http://news.example.com/a/b": "http://news.example.com/a\\b",
    "http://news.example.com/~d": "http://news.example.com/%7Ed",
}
HOSTS = {"127.0.0.1": "0x7f.1"}


def _rename(db: plyvel.DB, prefix: bytes, mapping: dict[str, str]) -> None:
    for new, old in mapping.items():
        raw = db.get(prefix + new.encode())
        if raw is not None:
            db.delete(prefix + new.encode())
            db.put(prefix + old.encode(), raw)


def age_to_schema_1(path: Path) -> None:
    """Write the pool at ``path`` back as schema 1 with the keys of :data:`OLD` in old form."""
    db = plyvel.DB(str(path / DB_DIRNAME))
    for prefix in (layout.P_URL, layout.P_RETRY, layout.P_HUB, layout.P_REFUSAL, layout.P_LEASE):
        _rename(db, prefix, OLD)
    _rename(db, layout.P_HOST, HOSTS)
    for key, raw in list(db.iterator(prefix=layout.P_QUEUE)):
        url, attempts, ref = layout.read_queue_value(raw)
        if url in OLD:
            host, _, suffix = key[len(layout.P_QUEUE) :].partition(b"\x00")
            name = HOSTS.get(host.decode(), host.decode())
            db.delete(key)
            db.put(
                layout.P_QUEUE + name.encode() + b"\x00" + suffix,
                layout.queue_value(OLD[url], attempts, ref),
            )
    db.put(layout.K_SCHEMA, b"1")
    db.close()


def make_old_pool(path: Path, extra: int = 0) -> None:
    """Waiting, done and hub URLs, some of them in :data:`OLD`, aged to schema 1."""

    async def go() -> None:
        pool = LevelDBPool.open(path, fast_config())
        await pool.add_many(
            [
                "http://127.0.0.1/a",
                "http://news.example.com/a/b",
                "http://news.example.com/~d",
                "http://news.example.com/e",
            ]
            + [f"http://site{i % 50}.example.org/p{i}" for i in range(extra)]
        )
        done = [lease for lease in await pool.pop(100) if lease.url == "http://127.0.0.1/a"]
        assert done
        await pool.set_status("http://127.0.0.1/a", FetchResult(status=200))
        await pool.release([lease.url for lease in await pool.pop(1000)])
        await pool.close()

    run(go())
    age_to_schema_1(path)


def check_migrated(path: Path, extra: int = 0) -> None:
    pool = LevelDBPool.open(path, fast_config())
    try:
        assert pool.url_state("http://127.0.0.1/a") == "done"
        assert pool.url_state("http://news.example.com/a/b") == "waiting"
        assert pool.url_state("http://news.example.com/~d") == "waiting"
        totals = pool.totals_sync()
        assert (totals.waiting, totals.done) == (3 + extra, 1)
        report = run(pool.add_many([*OLD, "http://0x7f.1/a"]))
        assert report.added == 0  # every spelling is known: nothing fetched twice
        popped: list[str] = []
        for _ in range(100):  # one URL per host and pop
            leases = run(pool.pop(10_000))
            if not leases:
                break
            popped += [lease.url for lease in leases]
            run(pool.set_status_many([(lease.url, FetchResult(status=200)) for lease in leases]))
        assert len(popped) == 3 + extra
        assert "http://news.example.com/a/b" in popped and "http://news.example.com/~d" in popped
        assert not any(url in OLD.values() for url in popped)
        assert len(popped) == len(set(popped))
    finally:
        pool.close_sync()
    db = plyvel.DB(str(path / DB_DIRNAME))
    try:
        assert db.get(layout.K_SCHEMA) == str(layout.SCHEMA_VERSION).encode()
        assert db.get(migrate.K_MIGRATING) is None
        for prefix in (layout.P_URL, layout.P_HOST):
            for key in db.iterator(prefix=prefix, include_value=False):
                name = key[len(prefix) :].decode()
                assert name not in OLD.values() and name not in HOSTS.values()
        assert db.get(layout.P_HOST + b"0x7f.1") is None
        host = layout.Host("127.0.0.1")
        host.unpack(db.get(layout.P_HOST + b"127.0.0.1"))
        assert (host.done, host.waiting) == (1, 0)
    finally:
        db.close()


def test_a_schema_1_pool_opens_with_its_keys_moved(tmp_path: Path) -> None:
    make_old_pool(tmp_path / "p")
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    assert db.get(layout.P_URL + b"http://0x7f.1/a") is not None  # the test's old pool is old
    db.close()
    check_migrated(tmp_path / "p")


def test_two_old_spellings_of_one_url_merge_to_the_furthest_state(tmp_path: Path) -> None:
    make_old_pool(tmp_path / "p")
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    # A second old spelling of the done URL, still waiting (with its queue entry).
    raw = db.get(layout.P_URL + b"http://0x7f.1/a")
    _s, depth, _attempts, seq, t, ref = layout.read_url_record(raw)
    db.put(
        layout.P_URL + b"http://0x7f.0.0.1/a",
        layout.url_record(layout.W, depth, 0, seq + 1000, t, ref),
    )
    db.put(
        layout.queue_key("0x7f.0.0.1", depth, seq + 1000),
        layout.queue_value("http://0x7f.0.0.1/a", 0, None),
    )
    db.close()
    check_migrated(tmp_path / "p")  # done wins; no waiting entry left for the alias


def test_an_interrupted_migration_finishes_on_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_old_pool(tmp_path / "p", extra=300)
    monkeypatch.setattr(migrate, "BATCH", 1)
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    with pytest.raises(RuntimeError, match="injected"):
        migrate.migrate(db, fail_after=2)
    assert db.get(layout.K_SCHEMA) == b"1"  # not raised before the end
    assert db.get(migrate.K_MIGRATING) == b"rebuild"
    db.close()
    check_migrated(tmp_path / "p", extra=300)


def test_a_process_killed_in_the_middle_of_a_migration_leaves_a_pool_that_opens(
    tmp_path: Path,
) -> None:
    make_old_pool(tmp_path / "p", extra=300)
    code = textwrap.dedent(f"""
        import sys, time
        import plyvel
        from crawler_gui.core.leveldb import migrate
        migrate.BATCH = 1
        def progress(what, seen, moved):
            print(what, seen, moved, flush=True)
            time.sleep(0.02)
        db = plyvel.DB({str(tmp_path / "p" / DB_DIRNAME)!r})
        migrate.migrate(db, progress)
        print("FINISHED", flush=True)
    """)
    lines = []
    with subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    ) as child:
        assert child.stdout is not None
        for line in child.stdout:  # kill it once some keys moved and URL records remain
            lines.append(line)
            if line.startswith("URL records") and int(line.split()[-1]) >= 1:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    assert not any("FINISHED" in line for line in lines)
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    assert db.get(layout.K_SCHEMA) == b"1" and db.get(migrate.K_MIGRATING) is not None
    db.close()
    check_migrated(tmp_path / "p", extra=300)


def test_a_current_pool_is_not_touched(tmp_path: Path) -> None:
    pool = LevelDBPool.open(tmp_path / "p", fast_config())
    run(pool.add_many(["http://news.example.com/x"]))
    pool.close_sync()
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    assert migrate.migrate_keys(db) == 0
    db.close()


def test_repair_of_a_schema_1_pool_moves_its_keys(tmp_path: Path) -> None:
    make_old_pool(tmp_path / "p")
    report = repair_pool(tmp_path / "p", tmp_path / "r")
    # three URL records, the lease of one of them (left by a stopped crawl), a host record
    assert report.fixed["keys moved to the current URL form"] == 5
    check_migrated(tmp_path / "r")


# ---- Redis: refused until migrated, then rewritten in the current form -----------------------
def _redis_old_pool(redis_url: str, name: str) -> str:
    """A Redis pool aged to schema 1, with one URL in an old spelling; returns its URL."""
    import redis as redis_sync

    url = f"{redis_url}?name={name}"

    async def go() -> None:
        pool = await RedisPool.open(url, fast_config(), worker="w")
        await pool.add_many(["http://news.example.com/~d", "http://news.example.com/e"])
        await pool.add_scope_domains(["example.com"])
        await pool.close()

    run(go())
    client = redis_sync.Redis.from_url(redis_url, decode_responses=True)
    try:
        prefix = f"cg:{name}:"
        value = client.hget(prefix + "url", "http://news.example.com/~d")
        assert value is not None
        client.hdel(prefix + "url", "http://news.example.com/~d")
        client.hset(prefix + "url", "http://news.example.com/%7Ed", value)
        queue = prefix + "q:{news.example.com}"
        score = client.zscore(queue, "http://news.example.com/~d")
        assert score is not None
        client.zrem(queue, "http://news.example.com/~d")
        client.zadd(queue, {"http://news.example.com/%7Ed": score})
        client.hset(prefix + "meta", "schema", 1)
    finally:
        client.close()
    return url


def test_an_old_redis_pool_is_refused_with_how_to_migrate(redis_server: str) -> None:
    url = _redis_old_pool(redis_server, "mig-refused")
    with pytest.raises(PoolVersionError, match="crawler-gui migrate"):
        run(RedisPool.open(url, fast_config()))


def test_an_old_redis_pool_is_migrated_and_then_opens(redis_server: str, tmp_path: Path) -> None:
    url = _redis_old_pool(redis_server, "mig-ok")
    assert run(RedisPool.migrate(url, tmp_path)) == 3  # two URLs and a host record
    assert run(RedisPool.migrate(url, tmp_path)) is None  # current: nothing to do
    assert list(tmp_path.iterdir()) == []  # the work file is gone

    async def check() -> None:
        pool = await RedisPool.open(url, fast_config())
        try:
            assert pool.url_state("http://news.example.com/~d") == "waiting"
            report = await pool.add_many(["http://news.example.com/%7Ed"])
            assert report.added == 0
            assert "example.com" in await pool.scope_domains()
            leases = await pool.pop(10)
            assert [lease.url for lease in leases] == ["http://news.example.com/~d"] or [
                lease.url for lease in leases
            ] == ["http://news.example.com/e"]
        finally:
            await pool.close()

    run(check())


def test_two_old_spellings_of_one_url_in_a_redis_pool_merge_to_the_furthest_state(
    redis_server: str, tmp_path: Path
) -> None:
    """A done URL and a waiting alias of it, both in old spellings of one URL: the migration
    keeps one record, the done one (as the LevelDB pool's does); nothing is fetched again."""
    import redis as redis_sync

    name = "mig-merge"
    url = f"{redis_server}?name={name}"

    async def make() -> None:
        pool = await RedisPool.open(url, fast_config(), worker="w")
        await pool.add_many(["http://127.0.0.1/a", "http://127.0.0.1/b"])
        leases = await pool.pop(10, 0)
        await pool.set_status_many(
            [(lease.url, FetchResult(status=200)) for lease in leases if lease.url.endswith("a")]
        )
        await pool.release([lease.url for lease in leases if lease.url.endswith("b")])
        await pool.close()

    run(make())
    client = redis_sync.Redis.from_url(redis_server, decode_responses=True)
    try:
        prefix = f"cg:{name}:"
        done = client.hget(prefix + "url", "http://127.0.0.1/a")
        assert done is not None and done.startswith("D\t")
        client.hdel(prefix + "url", "http://127.0.0.1/a")
        client.hset(prefix + "url", "http://0x7f.1/a", done)
        # the alias: waiting, newer (a higher sequence number), with its queue entry
        client.hset(prefix + "url", "http://0x7f.0.0.1/a", "W\t0\t0\t99\t5\t")
        client.zadd(prefix + "q:{0x7f.0.0.1}", {"http://0x7f.0.0.1/a": 99})
        client.hset(prefix + "meta", "schema", 1)
    finally:
        client.close()
    assert run(RedisPool.migrate(url, tmp_path)) == 2  # /a (one of its two spellings), /b
    assert list(tmp_path.iterdir()) == []

    async def check() -> None:
        pool = await RedisPool.open(url, fast_config())
        try:
            assert pool.url_state("http://127.0.0.1/a") == "done"
            assert pool.url_state("http://0x7f.0.0.1/a") == "done"  # asked in any form
            totals = await pool.totals()
            assert (totals.done, totals.waiting) == (1, 1)  # /a done once; /b waits
            leases = await pool.pop(10, 0)
            assert [lease.url for lease in leases] == ["http://127.0.0.1/b"]
        finally:
            await pool.close()

    run(check())


# ---- snapshots with old-form URLs load canonicalized ------------------------------------------
def _old_form_snapshot(tmp_path: Path) -> Path:
    async def save() -> None:
        pool = LevelDBPool.open(tmp_path / "src", fast_config())
        await pool.add_many(["http://127.0.0.1/a", "http://news.example.com/~d"])
        await pool.set_delay("127.0.0.1", 7.0)
        await pool.save_snapshot(tmp_path / "new.cgpool")
        await pool.close()

    run(save())
    records = []
    for rec in snapshot_file.read_snapshot(tmp_path / "new.cgpool"):
        if "url" in rec:
            rec["url"] = OLD.get(rec["url"], rec["url"])
        if rec.get("t") == "host":
            rec["host"] = HOSTS.get(rec["host"], rec["host"])
        records.append(rec)
    assert any(rec.get("host") == "0x7f.1" for rec in records)
    snapshot_file.write_snapshot(tmp_path / "old.cgpool", records)
    return tmp_path / "old.cgpool"


async def _check_loaded(pool: Any, again: Path) -> None:
    assert pool.url_state("http://127.0.0.1/a") == "waiting"
    assert pool.url_state("http://news.example.com/~d") == "waiting"
    assert pool.url_state("http://0x7f.1/a") == "waiting"  # asked in any form: canonicalized
    hosts = {row.host: row for row in (await pool.snapshot()).hosts}
    assert "0x7f.1" not in hosts and hosts["127.0.0.1"].waiting == 1
    await pool.save_snapshot(again)
    saved = [r for r in snapshot_file.read_snapshot(again) if r.get("t") == "host"]
    assert [(r["host"], r["min_delay"]) for r in saved if r["min_delay"]] == [("127.0.0.1", 7.0)]


def test_an_old_form_snapshot_loads_canonicalized_into_leveldb(tmp_path: Path) -> None:
    path = _old_form_snapshot(tmp_path)
    pool = LevelDBPool.open(tmp_path / "dest", fast_config())
    try:
        run(pool.load_snapshot(path))
        run(_check_loaded(pool, tmp_path / "again.cgpool"))
    finally:
        pool.close_sync()


def test_an_old_form_snapshot_loads_canonicalized_into_redis(
    tmp_path: Path, redis_server: str
) -> None:
    path = _old_form_snapshot(tmp_path)

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_server}?name=mig-snap", fast_config())
        try:
            await pool.load_snapshot(path)
            await _check_loaded(pool, tmp_path / "again.cgpool")
        finally:
            await pool.close()

    run(go())


# ---- the command line ---------------------------------------------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_migrate_command_on_a_pool_folder_says_how_far_it_got(tmp_path: Path) -> None:
    make_old_pool(tmp_path / "p")
    result = _cli("migrate", str(tmp_path / "p"))
    assert result.returncode == 0, result.stderr
    assert "migrating URL records: 4 read, 3 moved" in result.stderr
    assert "migrated: 5 records rewritten" in result.stderr
    check_migrated(tmp_path / "p")
    again = _cli("migrate", str(tmp_path / "p"))
    assert again.returncode == 0 and "nothing to migrate" in again.stderr


def test_migrate_command_on_a_redis_pool(redis_server: str, tmp_path: Path) -> None:
    url = _redis_old_pool(redis_server, "mig-cli")
    refused = _cli("stats", url)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "crawler-gui migrate" in refused.stderr
    result = _cli("migrate", url)
    assert result.returncode == 0, result.stderr
    assert "migrated: 3 records" in result.stderr
    assert _cli("stats", url).returncode == 0


def test_migrate_command_refuses_a_pool_in_use(tmp_path: Path) -> None:
    make_old_pool(tmp_path / "p")
    held = LevelDBPool.open(tmp_path / "p", fast_config())
    try:
        result = _cli("migrate", str(tmp_path / "p"))
        assert result.returncode != 0 and "Traceback" not in result.stderr
        assert "another crawler-gui process" in result.stderr
    finally:
        held.close_sync()
