"""Crash safety, locking and format checks of the LevelDB pool, with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import plyvel
import pytest

from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool
from crawler_gui.core.policy import FetchResult
from crawler_gui.errors import (
    PoolCorruptError,
    PoolInUseError,
    PoolVersionError,
    SnapshotFormatError,
)

from .conftest import fast_config, run


def test_second_open_in_the_same_process_is_refused(tmp_path: Path) -> None:
    pool = LevelDBPool.open(tmp_path / "p")
    try:
        with pytest.raises(PoolInUseError, match="already open"):
            LevelDBPool.open(tmp_path / "p")
    finally:
        pool.close_sync()
    LevelDBPool.open(tmp_path / "p").close_sync()  # free again once closed


def test_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    pool = LevelDBPool.open(tmp_path / "p")
    try:
        code = textwrap.dedent(f"""
            from crawler_gui.core.leveldb import LevelDBPool
            from crawler_gui.errors import PoolInUseError
            try:
                LevelDBPool.open({str(tmp_path / "p")!r})
            except PoolInUseError as exc:
                print("IN USE:", exc)
        """)
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        assert out.startswith("IN USE:") and "another crawler-gui process" in out
    finally:
        pool.close_sync()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    LevelDBPool.open(tmp_path / "p").close_sync()
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    db.put(b"m/schema_version", b"99")
    db.close()
    with pytest.raises(PoolVersionError, match="newer crawler-gui"):
        LevelDBPool.open(tmp_path / "p")


def test_foreign_leveldb_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME), create_if_missing=True)
    db.put(b"someone-else", b"data")
    db.close()
    with pytest.raises(PoolCorruptError, match="not a crawler-gui pool"):
        LevelDBPool.open(tmp_path / "p")
    db = plyvel.DB(str(tmp_path / "p" / DB_DIRNAME))
    assert db.get(b"someone-else") == b"data" and db.get(b"m/schema_version") is None
    db.close()


CHILD = textwrap.dedent("""
    import sys
    from crawler_gui.core.leveldb import LevelDBPool
    from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig
    cfg = PoolConfig(politeness=Politeness(min_delay=0.0, delay_factor=0.0))
    pool = LevelDBPool.open(sys.argv[1], cfg)
    n = int(sys.argv[2])
    for start in range(0, n, 500):
        pool.add_many_sync([f"http://h{i % 50}.example.com/p{i}"
                            for i in range(start, start + 500)])
    print("ADDED", flush=True)
    ok = FetchResult(status=200)
    bad = FetchResult(status=500)
    while True:
        leases = pool.pop_sync(40, 0)
        if not leases:
            break
        pool.set_status_many_sync([(l.url, bad if i % 7 == 0 else ok)
                                   for i, l in enumerate(leases)])
    print("EMPTY", flush=True)
""")


@pytest.mark.parametrize("delay", [0.02, 0.15, 0.4])
def test_kill_9_mid_crawl_loses_nothing(tmp_path: Path, delay: float) -> None:
    n = 60_000
    where = tmp_path / "p"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(where), str(n)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ADDED"
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=60)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    pool = LevelDBPool.open(where, fast_config())
    try:
        totals = run(pool.snapshot()).totals
        assert totals.pending == 0
        assert totals.waiting + totals.done + totals.failed + totals.retrying == n
        states = {}
        for i in range(0, n, 997):
            state = pool.url_state(f"http://h{i % 50}.example.com/p{i}")
            assert state in {"waiting", "done", "retrying", "failed"}
            states[i] = state
        # Everything still waiting can be popped, exactly once each.
        popped: set[str] = set()
        while True:
            leases = run(pool.pop(100, 0))
            if not leases:
                break
            for lease in leases:
                assert lease.url not in popped
                popped.add(lease.url)
            run(pool.set_status_many([(lease.url, FetchResult(status=200)) for lease in leases]))
        assert len(popped) == totals.waiting
        final = run(pool.snapshot()).totals
        assert final.waiting == 0
        assert final.done + final.failed + final.retrying == n
    finally:
        pool.close_sync()


def test_core_imports_no_qt_and_no_aiohttp() -> None:
    code = textwrap.dedent("""
        import sys
        import crawler_gui.core.leveldb, crawler_gui.core.frontier, crawler_gui.core.urls
        import crawler_gui.core.policy, crawler_gui.core.snapshot_file, crawler_gui.core.clock
        bad = sorted(m for m in sys.modules if m.split(".")[0] in {"PySide6", "qasync", "aiohttp"})
        print(",".join(bad))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout.strip()
    assert out == ""


def test_a_snapshot_naming_a_url_twice_is_refused(tmp_path: Path) -> None:
    import gzip
    import json

    pool = LevelDBPool.open(tmp_path / "p")
    try:
        run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
        before = run(pool.snapshot()).totals
        rec = {
            "t": "url",
            "url": "http://c.example.com/x",
            "state": "waiting",
            "depth": 0,
            "attempts": 0,
            "seq": 1,
            "time": 0,
        }
        lines = [
            {"format": "crawler-gui-pool-snapshot", "version": 1},
            rec,
            {**rec, "seq": 2},
            {"t": "end", "records": 2},
        ]
        bad = tmp_path / "twice.cgpool"
        bad.write_bytes(gzip.compress(b"\n".join(json.dumps(x).encode() for x in lines)))
        with pytest.raises(SnapshotFormatError, match="twice"):
            run(pool.load_snapshot(bad))
        assert run(pool.snapshot()).totals == before
    finally:
        pool.close_sync()
