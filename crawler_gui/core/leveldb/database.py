"""The LevelDB pool's database side: open, load, write, recover, close.

:class:`PoolDatabase` opens the database (``db.py``), migrates an older one (``migrate.py``),
loads the in-memory state (``scheduler.py``) from the records (``layout.py``), puts back what a
process that died held, and funnels every write batch through one place: a write that fails
(the disk is full) leaves the state as the database has it and blocks writes until
:meth:`~PoolDatabase.recover`. The pool's operations build on it (``pool.py``).
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import struct
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self, TypeVar

import plyvel

from crawler_gui.core import snapshot_file
from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.frontier import PARKED_CRASHED, Lease
from crawler_gui.core.leveldb import migrate
from crawler_gui.core.leveldb.db import (
    error_text,
    folder_error,
    open_db,
    recover_interrupted_load,
    repair_hint,
)
from crawler_gui.core.leveldb.layout import (
    DB_DIRNAME,
    K_SCHEMA,
    K_SEQ,
    LREC,
    P_HOST,
    P_HUB,
    P_LEASE,
    P_REFUSAL,
    P_RETRY,
    P_URL,
    SCHEMA_VERSION,
    SEQ,
    F,
    Host,
    Hub,
    Retry,
    W,
    queue_key,
    queue_value,
    read_url_record,
    url_record,
)
from crawler_gui.core.leveldb.logsync import LogSyncer
from crawler_gui.core.leveldb.scheduler import Scheduler
from crawler_gui.core.leveldb.views import SnapshotRows
from crawler_gui.core.policy import PoolConfig
from crawler_gui.core.urls import host_of
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    PoolBusyError,
    PoolClosedError,
    PoolCorruptError,
    PoolError,
    PoolVersionError,
    PoolWriteError,
    is_disk_full,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")
#: How long closing waits for a snapshot save's thread to notice that it must stop.
READER_STOP_SECONDS = 30.0


class Batch:
    """A LevelDB write batch whose ``write`` goes through the pool (failed writes)."""

    __slots__ = ("_pool", "_wb", "delete", "put")

    def __init__(self, pool: PoolDatabase, wb: Any) -> None:
        self._pool = pool
        self._wb = wb
        self.put = wb.put
        self.delete = wb.delete

    def write(self) -> None:
        self._pool._write(self._wb)

    def __enter__(self) -> Batch:
        return self

    def __exit__(self, exc_type: object, *_rest: object) -> None:
        if exc_type is None:
            self.write()


class PoolDatabase:
    """A pool's database and the state it mirrors in memory: opening and loading it, writing
    to it (a failed write blocks writes until :meth:`recover`), the lease rules of opening
    (a dead process's leases count as attempts), background readers, closing. The pool's
    operations are :class:`~crawler_gui.core.leveldb.pool.LevelDBPool`'s."""

    def __init__(self, path: Path, db: Any, config: PoolConfig, clock: Clock) -> None:
        self.path = path
        self._db = db
        self.clock = clock
        self._closed = False
        self._loading = False
        #: Hosts, leases, retries, hubs and the queues by time over them (``scheduler.py``).
        self._sched = Scheduler(config)
        #: The last snapshot's lease and retry rows, kept for the next one (``views.py``).
        self._snapshot_rows = SnapshotRows()
        self._seq = 0
        self._refused: Counter[str] = Counter()
        self._overflow = 0
        self._t_waiting = 0
        self._t_done = 0
        self._t_failed = 0
        self._t_retrying = 0
        self._t_redirected = 0
        #: The write that failed (disk full, I/O error): no more writes until ``recover()``
        #: has reopened the database (LevelDB keeps appending to a log it left half-written).
        self._write_error: BaseException | None = None
        #: ``sync_seconds``: the log is fsynced from a thread, never by a write on the loop.
        self._log_sync = self._new_log_syncer()
        #: Threads reading the database (snapshot saves): (stop flag, ended flag) each.
        self._readers: list[tuple[threading.Event, threading.Event]] = []
        self._t_refused = 0
        #: ``add_counters`` reads, adds and writes: one at a time.
        self._counters_lock = asyncio.Lock()

    @property
    def config(self) -> PoolConfig:
        return self._sched.config

    @config.setter
    def config(self, config: PoolConfig) -> None:
        self._sched.config = config

    @property
    def storage_dir(self) -> Path | None:
        return self.path

    # ---- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        config: PoolConfig | None = None,
        clock: Clock | None = None,
        *,
        create: bool = True,
    ) -> Self:
        """Open (or, with ``create``, make) the pool in directory ``path``.

        A database is made only in a new pool: ``frontier/`` missing or empty. An existing
        pool whose LevelDB metadata is missing or damaged is refused and left untouched
        (LevelDB would otherwise start an empty database over it and delete its tables).

        Raises PoolInUseError if another process has it open, PoolCorruptError if the files are
        not a readable crawler-gui pool, PoolVersionError if they were written by a newer
        version.
        """
        root = Path(path)
        if create:
            try:
                root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                unwritable = folder_error(f"the pool {root}", root.parent, exc)
                if unwritable is not None:
                    raise unwritable from exc
                raise PoolError(f"cannot create the pool folder {root}: {exc}") from exc
        recover_interrupted_load(root)
        db = open_db(root / DB_DIRNAME, create=create)
        pool = cls(root, db, config or PoolConfig(), clock or SystemClock())
        try:
            pool._load()
        except plyvel.Error as exc:
            db.close()
            if is_disk_full(exc):
                raise DiskFullError(
                    f"cannot open the pool {root}: the disk is full ({error_text(exc)})"
                ) from exc
            raise PoolCorruptError(
                f"the pool {root} cannot be read: {error_text(exc)}{repair_hint(root)}"
            ) from exc
        except BaseException:
            db.close()
            raise
        return pool

    @classmethod
    async def open_async(
        cls,
        path: str | Path,
        config: PoolConfig | None = None,
        clock: Clock | None = None,
        *,
        create: bool = True,
    ) -> Self:
        return await asyncio.to_thread(cls.open, path, config, clock, create=create)

    def _load(self, *, adopt_leases: bool = False) -> None:
        db = self._db
        version = db.get(K_SCHEMA)
        if version is None:
            if next(db.iterator(include_value=False), None) is not None:
                raise PoolCorruptError(
                    f"{self.path} holds a LevelDB database that is not a crawler-gui pool"
                )
            db.put(K_SCHEMA, str(SCHEMA_VERSION).encode(), sync=True)
        else:
            try:
                found = int(version)
            except ValueError as exc:
                raise PoolCorruptError(f"{self.path}: unreadable schema version") from exc
            if found > SCHEMA_VERSION:
                raise PoolVersionError(
                    f"{self.path} was written by a newer crawler-gui (pool schema {found}; "
                    f"this version reads {SCHEMA_VERSION})"
                )
            if found < 1:
                raise PoolCorruptError(f"{self.path}: invalid schema version {found}")
            if migrate.needs_migration(db, found):
                log.warning("pool %s: moving its keys to the current URL form", self.path)
                moved = migrate.migrate(db, _log_progress)
                log.warning(
                    "pool %s: %d records moved; schema %d", self.path, moved, SCHEMA_VERSION
                )
        raw_seq = db.get(K_SEQ)
        self._seq = SEQ.unpack(raw_seq)[0] if raw_seq else 0
        # The totals are counted from the records below (also by a rebuild: from zero).
        self._t_waiting = self._t_done = self._t_failed = 0
        self._t_retrying = self._t_redirected = self._t_refused = 0
        try:
            for key, raw in db.iterator(prefix=P_HOST):
                h = Host(key[len(P_HOST) :].decode())
                h.unpack(raw)
                self._sched.hosts[h.name] = h
                self._t_waiting += h.waiting
                self._t_done += h.done
                self._t_failed += h.failed
                self._t_retrying += h.retrying
                self._t_redirected += h.redirected
            for _key in db.iterator(prefix=P_REFUSAL, include_value=False):
                self._t_refused += 1
            for key, raw in db.iterator(prefix=P_HUB):
                url = key[len(P_HUB) :].decode()
                rec = snapshot_file.loads(raw)
                hub = Hub(url, host_of(url), float(rec["span"]))
                hub.last_refresh = float(rec["last"])
                hub.last_result = str(rec["result"])
                hub.due = float(rec["due"])
                hub.read_extra(rec)
                self._sched.hubs[url] = hub
                if not hub.parked:
                    heapq.heappush(self._sched.hub_heap, (hub.due, url))
            for key, raw in db.iterator(prefix=P_RETRY):
                url = key[len(P_RETRY) :].decode()
                rec = snapshot_file.loads(raw)
                urec = db.get(P_URL + url.encode())
                if urec is None:
                    continue
                _s, depth, _a, seq, _t, ref = read_url_record(urec)
                r = Retry(
                    url,
                    host_of(url),
                    depth,
                    int(rec["a"]),
                    str(rec["e"]),
                    float(rec["n"]),
                    seq,
                    ref,
                )
                self._sched.retries[url] = r
                heapq.heappush(self._sched.retry_heap, (r.next_try, url))
            leases = list(db.iterator(prefix=P_LEASE))
        except (struct.error, KeyError, ValueError, TypeError, UnicodeDecodeError) as exc:
            raise PoolCorruptError(f"{self.path}: a pool record cannot be read ({exc})") from exc
        if adopt_leases:  # a rebuild after a failed write: they are this process's fetches
            self._adopt_leases(leases)
        elif leases:
            self._reclaim_dead_leases(leases)
        now = self.clock.now()
        for h in self._sched.hosts.values():
            self._sched.schedule(h, now)
        self._sched.replan(now)
        log.info(
            "pool %s opened: %d waiting, %d done, %d failed, %d retrying, %d hosts, %d hubs",
            self.path,
            self._t_waiting,
            self._t_done,
            self._t_failed,
            self._t_retrying,
            len(self._sched.hosts),
            len(self._sched.hubs),
        )

    def _adopt_leases(self, leases: list[tuple[bytes, bytes]]) -> None:
        """The lease records are this process's own fetches in flight (a rebuild after a
        failed write): keep them as leases."""
        for key, raw in leases:
            url = key[len(P_LEASE) :].decode()
            started, expires, depth, seq, is_hub = LREC.unpack(raw)
            h = self._sched.host(host_of(url))
            h.in_flight += 1
            attempts, ref = 0, None
            if is_hub:
                hub = self._sched.hubs.get(url)
                if hub is not None:
                    hub.in_flight = True
            else:
                urec = self._db.get(P_URL + url.encode())
                if urec is not None:
                    _s, _d, attempts, _q, _t, ref = read_url_record(urec)
            lease = Lease(url, h.name, depth, bool(is_hub), started, expires, ref)
            self._sched.leases[url] = (lease, seq, attempts, ref)
            heapq.heappush(self._sched.lease_heap, (expires, url))

    def _reclaim_dead_leases(self, leases: list[tuple[bytes, bytes]]) -> None:
        """Leases found at open belong to a process that died: each counts as an attempt."""
        now = self.clock.now()
        with self._batch() as wb:
            dirty: dict[Host, None] = {}
            for key, raw in leases:
                url = key[len(P_LEASE) :].decode()
                _started, _expires, depth, seq, is_hub = LREC.unpack(raw)
                wb.delete(key)
                if is_hub:
                    hub = self._sched.hubs.get(url)
                    if hub is not None:
                        self._hub_lost(wb, hub, now, "process stopped")
                    continue
                h = self._sched.host(host_of(url))
                urec = self._db.get(P_URL + url.encode())
                attempts, ref = read_url_record(urec)[2::3] if urec is not None else (0, None)
                self._requeue_or_fail(wb, h, url, depth, seq, attempts, ref, now)
                dirty[h] = None
            self._settle(wb, dirty, now)
        log.warning("reclaimed %d leases left by a process that stopped", len(leases))

    def _hub_lost(self, wb: Any, hub: Hub, now: float, label: str) -> None:
        """A hub's lease ended without a result (its process died, or the lease expired): one
        attempt counted, as for a page. A hub that lost as many leases in a row as a page may
        (``RetryPolicy.gives_up``) is parked until the user refreshes it: a page that kills
        the process must not crash-loop the crawl."""
        hub.in_flight = False
        hub.crashes += 1
        hub.last_result = label
        if self.config.retry.gives_up(hub.crashes):
            hub.parked = PARKED_CRASHED
            log.warning(
                "hub %s parked: its process stopped or its lease expired %d times in a row "
                "while fetching it; refresh it to try again",
                hub.url,
                hub.crashes,
            )
        else:
            hub.due = now
            heapq.heappush(self._sched.hub_heap, (now, hub.url))
        wb.put(P_HUB + hub.url.encode(), snapshot_file.dumps(hub.to_json()))

    def _requeue_or_fail(
        self,
        wb: Any,
        h: Host,
        url: str,
        depth: int,
        seq: int,
        attempts: int,
        ref: str | None,
        now: float,
    ) -> None:
        """A lease ended without a result: count the attempt, put it back where it was."""
        attempts += 1
        if self.config.retry.gives_up(attempts):
            wb.put(P_URL + url.encode(), url_record(F, depth, attempts, seq, now, ref))
            h.failed += 1
            self._t_failed += 1
            log.warning("giving up on %s after %d lost leases", url, attempts)
            return
        qkey = queue_key(h.name, depth, seq)
        qval = queue_value(url, attempts, ref)
        wb.put(qkey, qval)
        wb.put(P_URL + url.encode(), url_record(W, depth, attempts, seq, now, ref))
        h.waiting += 1
        self._t_waiting += 1
        self._sched.buffer_insert(h, qkey, qval)

    def _settle(self, wb: Any, dirty: Iterable[Host], now: float) -> None:
        """The common end of a change to hosts: write each host's record into ``wb``, move
        the version on for views, and let the scheduler place it again."""
        sched = self._sched
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            sched.touch(h)
            sched.schedule(h, now)

    # ---- writing ------------------------------------------------------------------------------
    def _batch(self, sync: bool = False) -> Batch:
        """A write batch, synced when asked or when the config syncs every batch. With
        ``config.sync_seconds`` the log is fsynced from a thread at most that long after a
        write (bounds a power cut's loss; the writer never waits for the disk): ``logsync``."""
        cfg = self.config
        sync = sync or cfg.sync or cfg.sync_seconds == 0
        return Batch(self, self._db.write_batch(transaction=True, sync=sync))

    def _new_log_syncer(self) -> LogSyncer:
        return LogSyncer(self.path / DB_DIRNAME, self._sync_interval, self._synced_write)

    def _sync_interval(self) -> float | None:
        cfg = self.config
        if cfg.sync or self._closed:
            return None
        return cfg.sync_seconds or None

    def _synced_write(self) -> None:
        """The log syncer's fallback: an empty synced batch fsyncs LevelDB's log."""
        if not self._closed and self._write_error is None:
            self._db.write_batch(sync=True).write()

    def _put(self, key: bytes, value: bytes) -> None:
        with self._batch() as wb:
            wb.put(key, value)

    def _write(self, wb: Any) -> None:
        if self._write_error is not None:  # the caller changed memory: undo it
            self._rebuild()
            raise self._storage_error(self._write_error)
        try:
            wb.write()
        except plyvel.Error as exc:
            self._write_failed(exc)
        else:
            if self._sync_interval() is not None:
                self._log_sync.written()

    def _storage_error(self, exc: BaseException) -> CrawlerGuiError:
        text = error_text(exc)
        if is_disk_full(exc):
            return DiskFullError(
                f"the disk is full: the pool {self.path} cannot be written ({text})"
            )
        return PoolWriteError(f"writing to the pool {self.path} failed: {text}")

    def _write_failed(self, exc: BaseException) -> None:
        """A write batch failed: nothing of it reached the database, but the caller already
        changed the state in memory. Rebuild that from the database (reads only); block
        writes until :meth:`recover`."""
        self._write_error = exc
        log.info("a write to the pool failed: %s", error_text(exc))
        self._rebuild()
        raise self._storage_error(exc) from exc

    def _rebuild(self) -> None:
        """The in-memory state again from the database; leases are kept as this process's."""
        version = self._sched.version
        self._sched = Scheduler(self.config)
        self._load(adopt_leases=True)
        self._sched.version = version + 1

    @property
    def write_error(self) -> str | None:
        """Why writes are blocked (a failed write not yet recovered from), or None."""
        return error_text(self._write_error) if self._write_error is not None else None

    def recover(self) -> bool:
        """After a failed write (say the disk was full and space is back): reopen the database
        (a fresh write-ahead log; the half-written one is read back up to its last whole
        record) and rebuild the state, keeping the leases in flight. Returns False when there
        was nothing to recover from; raises DiskFullError / PoolWriteError if it still fails."""
        if self._write_error is None:
            return False
        if self._closed:
            raise PoolClosedError("the pool is closed")
        self._stop_readers()
        self._log_sync.stop()
        self._db.close()
        self._log_sync = self._new_log_syncer()
        try:
            self._db = open_db(self.path / DB_DIRNAME, create=False)
        except PoolError:
            # Still no room (LevelDB writes a table and a new log when it opens): keep a
            # handle for reads and stay blocked.
            try:
                self._db = open_db(self.path / DB_DIRNAME, create=False)
            except PoolError as again:
                self._closed = True
                raise again from None
            raise self._storage_error(self._write_error) from None
        failed, self._write_error = self._write_error, None  # lets the proving write through
        try:
            self._rebuild()
            with self._batch(sync=True) as wb:  # proves that writes work again
                wb.put(K_SEQ, SEQ.pack(self._seq))
        except plyvel.Error as exc:  # reading the records back failed
            self._write_error = exc
            raise self._storage_error(exc) from exc
        except BaseException:
            if self._write_error is None:  # (a proving write that failed has set its own)
                self._write_error = failed
            raise
        log.info("the pool %s is writable again", self.path)
        return True

    # ---- helpers ------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if self._loading:
            raise PoolBusyError("a snapshot is being loaded into the pool; try again shortly")
        if self._write_error is not None:
            raise self._storage_error(self._write_error)

    async def _read(self, work: Callable[[Any, threading.Event], _T]) -> _T:
        """Run ``work(snapshot, stop)`` in a worker thread over a consistent view of the
        database (a page of a host's queue: never on the loop); :meth:`close` waits for it."""
        self._check_open()
        stop, done = threading.Event(), threading.Event()
        snap = self._db.snapshot()
        reader = (stop, done)
        self._readers.append(reader)

        def run() -> _T:
            try:
                return work(snap, stop)
            finally:
                snap.close()  # here, in the thread that used it, even if the caller left
                done.set()

        try:
            return await asyncio.to_thread(run)
        except asyncio.CancelledError:
            stop.set()  # the thread ends at its next row
            raise
        finally:
            if reader in self._readers and done.is_set():
                self._readers.remove(reader)

    def _stop_readers(self) -> None:
        """Background readers (a snapshot save's thread) stop before the database closes: a
        thread reading a closed LevelDB crashes the process."""
        for stop, _done in self._readers:
            stop.set()
        for _stop, done in list(self._readers):
            if not done.wait(READER_STOP_SECONDS):
                log.error("a snapshot save did not stop in time; closing the database anyway")
        self._readers.clear()

    def _take_over(self, fresh: PoolDatabase) -> None:
        """``fresh`` (opened on the database a load swapped in) becomes this pool; the version
        moves on, so that views read everything again."""
        version = self._sched.version
        self._log_sync.stop()
        fresh._log_sync.stop()
        self.__dict__.update(fresh.__dict__)
        # a syncer of this pool's own (``fresh``'s would ask ``fresh`` whether it is closed)
        self._log_sync = self._new_log_syncer()
        self._sched.version = version + 1

    async def close(self) -> None:
        self.close_sync()

    def close_sync(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_readers()
        self._log_sync.stop()
        if self._write_error is None:
            try:  # one synced write: everything written before it survives a power cut
                self._db.put(K_SEQ, SEQ.pack(self._seq), sync=True)
            except (plyvel.Error, RuntimeError) as exc:
                log.error("the last write to the pool failed: %s", error_text(exc))
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_sync()


def _log_progress(what: str, seen: int, moved: int) -> None:
    log.info("pool migration: %s: %d seen, %d moved", what, seen, moved)
