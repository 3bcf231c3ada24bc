"""The LevelDB pool's ``sync_seconds``: its writes do not wait for the disk; a thread fsyncs
the database's write-ahead log soon after they were made, and only then."""

from __future__ import annotations

import dataclasses
import errno
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.leveldb.layout import DB_DIRNAME
from crawler_gui.core.leveldb.logsync import LogSyncer, newest_log

from .conftest import ManualClock, fast_config, run


class FsyncSpy:
    """Records every ``os.fsync``: (the thread's name, the path of the file)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail: OSError | None = None) -> None:
        self.calls: list[tuple[str, str]] = []
        self.fail = fail
        real = os.fsync

        def spy(fd: int) -> None:
            self.calls.append((threading.current_thread().name, os.readlink(f"/proc/self/fd/{fd}")))
            if self.fail is not None:
                raise self.fail
            real(fd)

        monkeypatch.setattr(os, "fsync", spy)

    def wait(self, count: int, seconds: float = 10.0) -> None:
        deadline = time.monotonic() + seconds
        while len(self.calls) < count and time.monotonic() < deadline:
            time.sleep(0.01)


@pytest.fixture
def proc_fd() -> None:
    if not Path("/proc/self/fd").is_dir():  # pragma: no cover - Linux CI
        pytest.fail("these tests read /proc/self/fd")


def open_pool(tmp_path: Path, **config: Any) -> LevelDBPool:
    cfg = dataclasses.replace(fast_config(), **config)
    return LevelDBPool.open(tmp_path / "pool", cfg, ManualClock())


def test_writes_are_synced_by_a_thread_soon_after_not_by_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc_fd: None
) -> None:
    pool = open_pool(tmp_path, sync=False, sync_seconds=0.05)
    try:
        spy = FsyncSpy(monkeypatch)
        run(pool.add_many([f"http://h{i % 5}.example.com/{i}" for i in range(50)]))
        assert spy.calls == []  # the writer returned without an fsync
        spy.wait(2)
        folder = str((tmp_path / "pool" / DB_DIRNAME).resolve())
        log_file = newest_log(Path(folder))
        assert log_file is not None
        # the log, then its folder (a new log's name must survive a power cut too)
        assert spy.calls[:2] == [("pool-log-sync", str(log_file)), ("pool-log-sync", folder)]
        # nothing written since: the thread does not sync again
        time.sleep(0.3)
        assert len(spy.calls) == 2
        # a later write: the log again, not the folder (the same log)
        leases = run(pool.pop(5, 0))
        assert len(leases) == 5
        spy.wait(3)
        assert spy.calls[2:] == [("pool-log-sync", str(log_file))]
    finally:
        pool.close_sync()
    assert not any(t.name == "pool-log-sync" for t in threading.enumerate())


def test_a_pool_that_syncs_every_batch_or_never_starts_no_sync_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc_fd: None
) -> None:
    for name, config in (("batch", {"sync": True}), ("off", {"sync_seconds": None})):
        pool = open_pool(tmp_path / name, **config)
        try:
            spy = FsyncSpy(monkeypatch)
            run(pool.add_many([f"http://a.example.com/{i}" for i in range(20)]))
            time.sleep(0.2)
            assert spy.calls == [], name
            assert pool._log_sync._thread is None, name
        finally:
            pool.close_sync()


def test_where_the_log_cannot_be_fsynced_directly_leveldb_syncs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc_fd: None
) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    (folder / "000003.log").write_bytes(b"x")
    (folder / "000012.log").write_bytes(b"y")  # the newest, by number, not by name
    (folder / "LOG").write_bytes(b"info")
    assert newest_log(folder) == folder / "000012.log"
    fallbacks: list[str] = []
    syncer = LogSyncer(folder, lambda: 30.0, lambda: fallbacks.append("synced write"))
    spy = FsyncSpy(monkeypatch, fail=OSError(errno.EINVAL, "Invalid argument"))
    try:
        syncer.sync_now()
        assert fallbacks == [] and syncer.syncs == 0  # nothing was written yet
        syncer.written()
        syncer.sync_now()
        assert fallbacks == ["synced write"] and syncer.syncs == 1
        assert [path for _t, path in spy.calls] == [str((folder / "000012.log").resolve())]
        # from then on LevelDB syncs it, without trying the file again
        syncer.written()
        syncer.sync_now()
        assert fallbacks == ["synced write"] * 2 and len(spy.calls) == 1
    finally:
        syncer.stop()


def test_after_a_snapshot_load_the_new_database_is_synced_and_the_thread_ends_at_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, proc_fd: None
) -> None:
    pool = open_pool(tmp_path, sync=False, sync_seconds=0.05)
    try:
        run(pool.add_many([f"http://h{i % 3}.example.com/{i}" for i in range(30)]))
        snap = tmp_path / "pool.cgpool"
        run(pool.save_snapshot(snap))
        run(pool.add_many(["http://later.example.com/"]))
        assert run(pool.load_snapshot(snap)) == 30
        spy = FsyncSpy(monkeypatch)
        leases = run(pool.pop(3, 0))
        assert len(leases) == 3
        spy.wait(1)
        log_file = newest_log(tmp_path / "pool" / DB_DIRNAME)
        assert log_file is not None
        assert spy.calls[0] == ("pool-log-sync", str(log_file.resolve()))
        assert sum(t.name == "pool-log-sync" for t in threading.enumerate()) == 1
    finally:
        pool.close_sync()
    deadline = time.monotonic() + 5
    while any(t.name == "pool-log-sync" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the sync thread outlived the pool"
        time.sleep(0.01)
