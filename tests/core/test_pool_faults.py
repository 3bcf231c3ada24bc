"""Storage faults of the LevelDB pool: damaged metadata, corrupt logs and tables, a close during
a snapshot save. Every fault is made for real: deleted files and flipped bytes in a temp pool."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import plyvel
import pytest

from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool
from crawler_gui.core.policy import ErrorKind, FetchResult
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import (
    DiskFullError,
    PoolCorruptError,
    PoolWriteError,
    SnapshotError,
    StoreError,
)
from tests.test_disk_full import fill, small_disk  # noqa: F401 - small_disk is a fixture

from .conftest import run

N_URLS = 3000


def make_pool(path: Path, n: int = N_URLS, *, tables: bool = False) -> None:
    """A pool with ``n`` waiting URLs over 50 hosts; with ``tables`` the records are in table
    files (compacted), else still in the write-ahead log."""

    async def fill() -> None:
        pool = LevelDBPool.open(path)
        await pool.add_many([f"http://h{i % 50}.example.com/p{i}" for i in range(n)])
        await pool.close()

    run(fill())
    if tables:
        db = plyvel.DB(str(path / DB_DIRNAME))
        db.compact_range()
        db.close()


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file's digest (LevelDB's own info log and lock excepted)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in ("LOG", "LOG.old", "LOCK")
    }


def flip(path: Path, at: int, count: int = 8) -> None:
    data = bytearray(path.read_bytes())
    assert len(data) > at + count, f"{path} is too small to damage at {at}"
    data[at : at + count] = bytes(b ^ 0xFF for b in data[at : at + count])
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("db", ["frontier", "pages"])
def test_missing_current_is_refused_and_files_are_untouched(tmp_path: Path, db: str) -> None:
    pool_dir = tmp_path / "p"
    make_pool(pool_dir)
    PageStore.open_in_pool(pool_dir).close()
    (pool_dir / db / "CURRENT").unlink()
    before = fingerprint(pool_dir)
    with pytest.raises((PoolCorruptError, StoreError), match="CURRENT is missing"):
        if db == "frontier":
            LevelDBPool.open(pool_dir)
        else:
            PageStore.open_in_pool(pool_dir)
    with pytest.raises((PoolCorruptError, StoreError)):  # read-only opens too
        if db == "frontier":
            LevelDBPool.open(pool_dir, create=False)
        else:
            PageStore.open_in_pool(pool_dir, create=False)
    assert fingerprint(pool_dir) == before


def test_missing_current_with_tables_keeps_the_tables(tmp_path: Path) -> None:
    pool_dir = tmp_path / "p"
    make_pool(pool_dir, tables=True)
    tables = sorted((pool_dir / DB_DIRNAME).glob("*.ldb"))
    assert tables
    (pool_dir / DB_DIRNAME / "CURRENT").unlink()
    with pytest.raises(PoolCorruptError, match="repair"):
        LevelDBPool.open(pool_dir)
    assert sorted((pool_dir / DB_DIRNAME).glob("*.ldb")) == tables


def test_a_new_pool_is_still_created(tmp_path: Path) -> None:
    (tmp_path / "p" / DB_DIRNAME).mkdir(parents=True)  # an empty folder is new
    pool = LevelDBPool.open(tmp_path / "p")
    pool.close_sync()
    with pytest.raises(PoolCorruptError, match="no crawler-gui pool"):
        LevelDBPool.open(tmp_path / "q", create=False)
    assert not (tmp_path / "q").exists()


def test_a_damaged_write_ahead_log_is_reported_not_dropped(tmp_path: Path) -> None:
    pool_dir = tmp_path / "p"
    make_pool(pool_dir)
    (log_file,) = (pool_dir / DB_DIRNAME).glob("*.log")
    flip(log_file, 5000)
    before = fingerprint(pool_dir)
    with pytest.raises(PoolCorruptError, match="corrupt"):
        LevelDBPool.open(pool_dir)
    assert fingerprint(pool_dir) == before


def test_a_corrupt_table_is_a_clear_error(tmp_path: Path) -> None:
    pool_dir = tmp_path / "p"
    make_pool(pool_dir, tables=True)
    assert not list((pool_dir / DB_DIRNAME).glob("*.log")) or all(
        p.stat().st_size == 0 for p in (pool_dir / DB_DIRNAME).glob("*.log")
    )
    for table in (pool_dir / DB_DIRNAME).glob("*.ldb"):
        flip(table, 100, 64)
    with pytest.raises(PoolCorruptError, match="repair"):
        LevelDBPool.open(pool_dir)


def test_closing_during_a_snapshot_save_does_not_crash(tmp_path: Path) -> None:
    """The window's shutdown cancels a running save, then closes the pool: the export thread
    must be stopped first (it read a closed database: a segfault), and the save's temporary
    file removed."""
    pool_dir = tmp_path / "p"
    make_pool(pool_dir, 60_000)
    out = tmp_path / "snap.cgpool"

    async def scenario() -> None:
        pool = LevelDBPool.open(pool_dir)
        task = asyncio.ensure_future(pool.save_snapshot(out))
        for _ in range(500):  # until the export thread has started writing
            await asyncio.sleep(0.002)
            if list(tmp_path.glob(".snap.cgpool.*.tmp")):
                break
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await pool.close()

    run(scenario())
    assert not out.exists()
    assert not list(tmp_path.glob(".snap.cgpool.*.tmp"))
    reopened = LevelDBPool.open(pool_dir)
    assert reopened.totals_sync().waiting == 60_000
    reopened.close_sync()


def test_a_save_removes_temporaries_left_by_dead_processes(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".snap.cgpool.{dead_pid}.tmp"
    stale.write_bytes(b"half a snapshot")
    alive = tmp_path / f".snap.cgpool.{os.getppid()}.tmp"  # a live process's save: kept
    alive.write_bytes(b"in progress")
    pool_dir = tmp_path / "p"
    make_pool(pool_dir, 10)

    async def save() -> None:
        pool = LevelDBPool.open(pool_dir)
        try:
            await pool.save_snapshot(tmp_path / "snap.cgpool")
        finally:
            await pool.close()

    run(save())
    assert not stale.exists() and alive.exists()
    assert (tmp_path / "snap.cgpool").exists()


def test_a_snapshot_is_never_written_inside_the_pool(tmp_path: Path) -> None:
    pool_dir = tmp_path / "p"
    make_pool(pool_dir, 10)
    before = fingerprint(pool_dir)

    async def save(target: str) -> None:
        pool = LevelDBPool.open(pool_dir)
        try:
            with pytest.raises(SnapshotError):
                await pool.save_snapshot(target)
        finally:
            await pool.close()

    for target in (str(pool_dir / DB_DIRNAME / "CURRENT"), str(pool_dir), ""):
        run(save(target))
    assert (pool_dir / DB_DIRNAME / "CURRENT").read_bytes().startswith(b"MANIFEST")
    assert set(fingerprint(pool_dir)) >= {k for k in before if "CURRENT" in k}


def test_a_failed_write_and_its_recovery_keep_the_totals(small_disk: Path) -> None:  # noqa: F811
    """A write that fails on a full disk rebuilds the pool's memory from its records, and so
    does the recovery: the totals are counted again from zero, not added to the old ones."""
    pool = LevelDBPool.open(small_disk / "p")
    urls = [f"http://h{i}.example.com/" for i in range(4)]
    run(pool.add_many(urls))
    leases = run(pool.pop(4, 0))
    refusals = (ErrorKind.ROBOTS, ErrorKind.OUT_OF_SCOPE)
    run(
        pool.set_status_many(
            [(lease.url, FetchResult(error=refusals[i % 2])) for i, lease in enumerate(leases[:2])]
        )
    )
    before = run(pool.snapshot()).totals
    assert (before.failed, before.refused_urls, before.pending) == (2, 2, 2)
    ballast = fill(small_disk, 0)
    with pytest.raises((DiskFullError, PoolWriteError)):
        for n in range(1000):  # until LevelDB's log needs a page the disk has not got
            run(pool.add_many([f"http://x{n}.example.com/{k}" for k in range(200)]))
    ballast.unlink()
    assert pool.recover()
    assert pool.write_error is None
    after = run(pool.snapshot()).totals
    assert (after.failed, after.refused_urls, after.pending) == (2, 2, 2)
    assert run(pool.add_many(["http://y.example.com/"])).added == 1  # writable again
    pool.close_sync()
