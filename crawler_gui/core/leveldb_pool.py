"""The durable URL pool on LevelDB (plyvel): the UrlPool and UrlDB of the crawler this project
replaced, in one crash-safe store.

Everything lives in LevelDB, not only the permanent states: waiting queues, leases, retry
counts, hubs and per-host bookkeeping. RAM holds one small record per host (with a read-ahead
buffer of a few queued URLs), the leases in flight, the retrying URLs and the hubs, so memory
grows with hosts, not with URLs. Every change that must be atomic is one write batch. The key
layout is documented in ``docs/storage.md``; the semantics every backend keeps are in
``docs/frontier.md``.

All methods are ``async`` (the :class:`~crawler_gui.core.frontier.Frontier` interface) but the
LevelDB work is in-process and takes microseconds; big batches yield to the loop between chunks,
and snapshot files are written and read in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import logging
import math
import os
import shutil
import struct
import threading
import time
from bisect import insort
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import plyvel

from crawler_gui.core import leveldb_migrate, snapshot_file
from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.counters import Counters, merge_fields
from crawler_gui.core.freshness import HubInput, RateState, SpanReason, plan_one, plan_spans
from crawler_gui.core.frontier import (
    PARKED_CRASHED,
    AddReport,
    AddRequest,
    FailedRow,
    HostRow,
    HubRow,
    HubSpec,
    Lease,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    Refusal,
    WaitingPage,
    WaitingRow,
    hub_learned,
    outcome_record,
    pack_failure,
    pack_retry,
    referrer_of,
    retry_row,
    unpack_failure,
    unpack_retry,
)
from crawler_gui.core.policy import ErrorKind, FetchResult, Outcome, PoolConfig
from crawler_gui.core.pool_rules import (
    checked_adds,
    checked_hubs,
    host_delay_and_basis,
    hub_next_due,
    hub_outcome,
    outcome_of,
    retry_delay,
    retry_schedule,
)
from crawler_gui.core.snapshot_records import HostRecord, HubRecord, UrlRecord, read_records
from crawler_gui.core.urls import canonicalize, host_of
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    InvalidURLError,
    PoolBusyError,
    PoolClosedError,
    PoolCorruptError,
    PoolError,
    PoolInUseError,
    PoolVersionError,
    PoolWriteError,
    SnapshotError,
    SnapshotFormatError,
    is_disk_full,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: 2: keys are the WHATWG URL Standard's canonical form (``core/leveldb_migrate.py`` moves the
#: keys of a schema 1 pool when it is opened).
SCHEMA_VERSION = 2
DB_DIRNAME = "frontier"

# ---- key layout (docs/storage.md) -------------------------------------------------------------
K_SCHEMA = b"m/schema_version"
K_SEQ = b"m/seq"
P_URL = b"u/"  # u/<url> -> URL record
P_QUEUE = b"q/"  # q/<host>\x00<depth u16><seq u64> -> url
P_LEASE = b"l/"  # l/<url> -> lease record
P_RETRY = b"r/"  # r/<url> -> retry record (JSON)
#: The refresh plan is made again at most this often (seconds); in between, a hub whose rate
#: changed gets its span at the last plan's level.
REPLAN_SECONDS = 2.0
P_HUB = b"h/"  # h/<url> -> hub record (JSON)
P_HOST = b"s/"  # s/<host> -> host record
P_COUNTER_MINUTE = b"c/m/"  # c/m/<minute u64> -> that minute's counters (JSON)
P_COUNTER_HOST = b"c/h/"  # c/h/<host> -> the host's counters (JSON)
K_COUNTER_DELAYS = b"c/d"  # the article-delay histogram (JSON)
P_REFUSAL = b"n/"  # n/<url> -> reason TAB redirect target (a URL refused by policy; also F)

# URL record: state, depth, attempts, seq, time; then the referrer (or redirect target), UTF-8.
_UREC = struct.Struct(">cHHQd")
# Lease record: started, expires, depth, seq, is_hub.
_LREC = struct.Struct(">ddHQB")
# Host record: waiting, done, failed, retrying, redirected, min_delay, backoff_until, next_allowed.
_HREC = struct.Struct(">QQQQQddd")
# ... then (absent in records of older versions) the inputs of the host's wait: the delay in
# force f64, the last response time f64, the user's delay f64 (< 0: none), flags u8 (1 paused,
# 2 backoff from Retry-After), the status that started the backoff u16, and the delay's basis
# (1 byte, DELAY_BASES).
_HEXT = struct.Struct(">dddBHc")
_QSUFFIX = struct.Struct(">HQ")
_SEQ = struct.Struct(">Q")

W, D, F, X, R = b"W", b"D", b"F", b"X", b"R"  # waiting, done, failed, redirected, retrying
STATE_NAMES = {W: "waiting", D: "done", F: "failed", X: "redirected", R: "retrying"}

READ_AHEAD = 16
CHUNK = 5000
#: How long closing waits for a snapshot save's thread to notice that it must stop.
READER_STOP_SECONDS = 30.0
#: URLs per write batch of ``add_many``, yielding to the loop in between: about 5 ms each (a
#: page with 300,000 links must not freeze the window for the seconds they take in all).
ADD_CHUNK = 500
#: Waiting URLs dropped per write batch by ``forget_waiting`` (a few ms of the loop each).
FORGET_CHUNK = 1000


def _qkey(host: str, depth: int, seq: int) -> bytes:
    return P_QUEUE + host.encode() + b"\x00" + _QSUFFIX.pack(depth, seq)


_QVAL = struct.Struct(">H")


def _qval(url: str, attempts: int, referrer: str | None) -> bytes:
    """Queue value: attempts (u16), the URL, then NUL and the referrer if any."""
    head = _QVAL.pack(min(attempts, 65535)) + url.encode()
    if not referrer:
        return head
    return head + b"\x00" + referrer.replace("\x00", "").encode("utf-8", "backslashreplace")


def _read_qval(raw: bytes) -> tuple[str, int, str | None]:
    (attempts,) = _QVAL.unpack_from(raw)
    url, sep, ref = raw[_QVAL.size :].partition(b"\x00")
    return url.decode(), attempts, ref.decode() if sep else None


def _urec(state: bytes, depth: int, attempts: int, seq: int, t: float, extra: str | None) -> bytes:
    rec = _UREC.pack(state, min(depth, 65535), min(attempts, 65535), seq, t)
    return rec + extra.encode("utf-8", "backslashreplace") if extra else rec


def _read_urec(raw: bytes) -> tuple[bytes, int, int, int, float, str | None]:
    state, depth, attempts, seq, t = _UREC.unpack_from(raw)
    extra = raw[_UREC.size :].decode() if len(raw) > _UREC.size else None
    return state, depth, attempts, seq, t, extra


class _Host:
    """Per-host bookkeeping kept in RAM (and mirrored in ``s/<host>``)."""

    __slots__ = (
        "backoff_status",
        "backoff_until",
        "basis",
        "buf",
        "buf_complete",
        "cursor",
        "delay",
        "done",
        "failed",
        "in_flight",
        "last_elapsed",
        "last_status",
        "min_delay",
        "name",
        "next_allowed",
        "paused",
        "prefix",
        "queued",
        "redirected",
        "retry_after",
        "retrying",
        "user_delay",
        "version",
        "waiting",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.waiting = 0
        self.in_flight = 0
        self.done = 0
        self.failed = 0
        self.retrying = 0
        self.redirected = 0
        self.min_delay = 0.0
        self.backoff_until = 0.0
        self.next_allowed = 0.0
        self.delay = 0.0
        self.last_status = ""
        self.last_elapsed = 0.0
        self.user_delay = -1.0
        self.paused = False
        self.backoff_status = 0
        self.retry_after = False
        self.basis = b" "
        self.version = 0
        # Read-ahead: the first queue entries of this host, in key order. Each entry is the
        # queue key's suffix (depth, seq; 10 bytes) followed by the queue value.
        self.buf: list[bytes] = []
        self.buf_complete = True  # the buffer holds the whole queue
        # Every queued key of this host is >= cursor: refills seek here instead of the prefix
        # start, so they never wade through the tombstones of popped entries.
        self.cursor = b""  # a queue-key suffix (depth, seq)
        self.prefix = P_QUEUE + name.encode() + b"\x00"
        self.queued = False  # in the ready deque or the sleep heap

    def pack(self) -> bytes:
        return _HREC.pack(
            self.waiting,
            self.done,
            self.failed,
            self.retrying,
            self.redirected,
            self.min_delay,
            self.backoff_until,
            self.next_allowed,
        ) + _HEXT.pack(
            self.delay,
            self.last_elapsed,
            self.user_delay,
            (1 if self.paused else 0) | (2 if self.retry_after else 0),
            self.backoff_status,
            self.basis,
        )

    def unpack(self, raw: bytes) -> None:
        (
            self.waiting,
            self.done,
            self.failed,
            self.retrying,
            self.redirected,
            self.min_delay,
            self.backoff_until,
            self.next_allowed,
        ) = _HREC.unpack_from(raw)
        if len(raw) >= _HREC.size + _HEXT.size:
            dl, le, ud, flags, bs, basis = _HEXT.unpack_from(raw, _HREC.size)
            self.delay, self.last_elapsed, self.user_delay, self.backoff_status = dl, le, ud, bs
            self.basis = basis
            self.paused, self.retry_after = bool(flags & 1), bool(flags & 2)
        self.buf_complete = self.waiting == 0

    def allowed_at(self) -> float:
        return max(self.next_allowed, self.backoff_until)


class _Hub:
    __slots__ = (
        "crashes",
        "due",
        "fails",
        "host",
        "in_flight",
        "last_refresh",
        "last_result",
        "parked",
        "planned",
        "rate",
        "reason",
        "span",
        "url",
    )

    def __init__(self, url: str, host: str, span: float) -> None:
        self.url = url
        self.host = host
        self.span = span
        self.last_refresh = 0.0
        self.last_result = ""
        self.due = 0.0
        self.in_flight = False
        #: Leases of this hub lost in a row (the process died, or the lease expired): a hub
        #: that kills the process is parked after as many as a page may lose.
        self.crashes = 0
        #: Ordinary failed refreshes in a row: the backoff grows with them, up to the span.
        self.fails = 0
        #: Why the hub is parked (``hub_parked``), "" when it is not. A parked hub is never
        #: due until the user refreshes it.
        self.parked = ""
        #: What its refreshes taught (``core/freshness.py``), persisted with the record.
        self.rate = RateState()
        #: The span the refresh plan gives it, and why (recomputed on open: not stored).
        self.planned = span
        self.reason = SpanReason.FIXED.value

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "span": self.span,
            "last": self.last_refresh,
            "result": self.last_result,
            "due": self.due,
        }
        if self.crashes:
            rec["crashes"] = self.crashes
        if self.fails:
            rec["fails"] = self.fails
        if self.parked:
            rec["parked"] = self.parked
        if self.rate.refreshes or self.rate.observed:
            rec["rate"] = self.rate.to_dict()
        return rec

    def read_extra(self, rec: dict[str, Any]) -> None:
        """The counters, the parked reason and the rate state of a stored or snapshot hub
        record (absent in records of older versions: zero, not parked, nothing learned)."""
        self.crashes = int(rec.get("crashes", 0) or 0)
        self.fails = int(rec.get("fails", 0) or 0)
        self.parked = str(rec.get("parked", "") or "")
        self.rate = RateState.from_dict(rec.get("rate"), self.url)


class _Retry:
    __slots__ = ("attempts", "depth", "host", "last_error", "next_try", "referrer", "seq", "url")

    def __init__(
        self,
        url: str,
        host: str,
        depth: int,
        attempts: int,
        last_error: str,
        next_try: float,
        seq: int,
        referrer: str | None,
    ) -> None:
        self.url = url
        self.host = host
        self.depth = depth
        self.attempts = attempts
        self.last_error = last_error
        self.next_try = next_try
        self.seq = seq
        self.referrer = referrer

    def to_json(self) -> bytes:
        return snapshot_file.dumps({"a": self.attempts, "e": self.last_error, "n": self.next_try})


_F = TypeVar("_F", bound=Callable[..., Any])


def _reads_checked(method: _F) -> _F:
    """A damaged table met while crawling (a queue or URL record in a bad block) is a clear
    PoolCorruptError, not a LevelDB exception."""

    @functools.wraps(method)
    def checked(self: LevelDBPool, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except plyvel.CorruptionError as exc:
            raise PoolCorruptError(
                f"the pool {self.path} is corrupt: {_error_text(exc)}{_repair_hint(self.path)}"
            ) from exc

    return checked  # type: ignore[return-value]


class _Batch:
    """A LevelDB write batch whose ``write`` goes through the pool (failed writes)."""

    __slots__ = ("_pool", "_wb", "delete", "put")

    def __init__(self, pool: LevelDBPool, wb: Any) -> None:
        self._pool = pool
        self._wb = wb
        self.put = wb.put
        self.delete = wb.delete

    def write(self) -> None:
        self._pool._write(self._wb)

    def __enter__(self) -> _Batch:
        return self

    def __exit__(self, exc_type: object, *_rest: object) -> None:
        if exc_type is None:
            self.write()


class LevelDBPool:
    """A durable URL pool in one directory. Implements the ``Frontier`` interface."""

    def __init__(self, path: Path, db: Any, config: PoolConfig, clock: Clock) -> None:
        self.path = path
        self._db = db
        self.config = config
        self.clock = clock
        self._closed = False
        self._loading = False
        self._hosts: dict[str, _Host] = {}
        self._ready: deque[_Host] = deque()
        self._sleep: list[tuple[float, str]] = []
        # url -> (lease, seq, attempts so far, referrer)
        self._leases: dict[str, tuple[Lease, int, int, str | None]] = {}
        self._lease_heap: list[tuple[float, str]] = []
        self._retries: dict[str, _Retry] = {}
        self._retry_heap: list[tuple[float, str]] = []
        self._hubs: dict[str, _Hub] = {}
        self._hub_heap: list[tuple[float, str]] = []
        #: The refresh plan's water level (``core/freshness.py``) and when it was made.
        self._plan_level: float | None = None
        self._planned_at = -math.inf
        self._seq = 0
        self._version = 1
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
        self._last_sync = time.monotonic()
        #: Threads reading the database (snapshot saves): (stop flag, ended flag) each.
        self._readers: list[tuple[threading.Event, threading.Event]] = []
        self._t_refused = 0
        #: ``add_counters`` reads, adds and writes: one at a time.
        self._counters_lock = asyncio.Lock()

    # ---- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        config: PoolConfig | None = None,
        clock: Clock | None = None,
        *,
        create: bool = True,
    ) -> LevelDBPool:
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
                raise PoolError(f"cannot create the pool folder {root}: {exc}") from exc
        _recover_interrupted_load(root)
        db = _open_db(root / DB_DIRNAME, create=create)
        pool = cls(root, db, config or PoolConfig(), clock or SystemClock())
        try:
            pool._load()
        except plyvel.Error as exc:
            db.close()
            if is_disk_full(exc):
                raise DiskFullError(
                    f"cannot open the pool {root}: the disk is full ({_error_text(exc)})"
                ) from exc
            raise PoolCorruptError(
                f"the pool {root} cannot be read: {_error_text(exc)}{_repair_hint(root)}"
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
    ) -> LevelDBPool:
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
            if leveldb_migrate.needs_migration(db, found):
                log.warning("pool %s: moving its keys to the current URL form", self.path)
                moved = leveldb_migrate.migrate(db, _log_progress)
                log.warning(
                    "pool %s: %d records moved; schema %d", self.path, moved, SCHEMA_VERSION
                )
        raw_seq = db.get(K_SEQ)
        self._seq = _SEQ.unpack(raw_seq)[0] if raw_seq else 0
        # The totals are counted from the records below (also by a rebuild: from zero).
        self._t_waiting = self._t_done = self._t_failed = 0
        self._t_retrying = self._t_redirected = self._t_refused = 0
        try:
            for key, raw in db.iterator(prefix=P_HOST):
                h = _Host(key[len(P_HOST) :].decode())
                h.unpack(raw)
                self._hosts[h.name] = h
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
                hub = _Hub(url, host_of(url), float(rec["span"]))
                hub.last_refresh = float(rec["last"])
                hub.last_result = str(rec["result"])
                hub.due = float(rec["due"])
                hub.read_extra(rec)
                self._hubs[url] = hub
                if not hub.parked:
                    heapq.heappush(self._hub_heap, (hub.due, url))
            for key, raw in db.iterator(prefix=P_RETRY):
                url = key[len(P_RETRY) :].decode()
                rec = snapshot_file.loads(raw)
                urec = db.get(P_URL + url.encode())
                if urec is None:
                    continue
                _s, depth, _a, seq, _t, ref = _read_urec(urec)
                r = _Retry(
                    url,
                    host_of(url),
                    depth,
                    int(rec["a"]),
                    str(rec["e"]),
                    float(rec["n"]),
                    seq,
                    ref,
                )
                self._retries[url] = r
                heapq.heappush(self._retry_heap, (r.next_try, url))
            leases = list(db.iterator(prefix=P_LEASE))
        except (struct.error, KeyError, ValueError, TypeError, UnicodeDecodeError) as exc:
            raise PoolCorruptError(f"{self.path}: a pool record cannot be read ({exc})") from exc
        if adopt_leases:  # a rebuild after a failed write: they are this process's fetches
            self._adopt_leases(leases)
        elif leases:
            self._reclaim_dead_leases(leases)
        now = self.clock.now()
        for h in self._hosts.values():
            self._schedule(h, now)
        self._replan(now)
        log.info(
            "pool %s opened: %d waiting, %d done, %d failed, %d retrying, %d hosts, %d hubs",
            self.path,
            self._t_waiting,
            self._t_done,
            self._t_failed,
            self._t_retrying,
            len(self._hosts),
            len(self._hubs),
        )

    def _adopt_leases(self, leases: list[tuple[bytes, bytes]]) -> None:
        """The lease records are this process's own fetches in flight (a rebuild after a
        failed write): keep them as leases."""
        for key, raw in leases:
            url = key[len(P_LEASE) :].decode()
            started, expires, depth, seq, is_hub = _LREC.unpack(raw)
            h = self._host(host_of(url))
            h.in_flight += 1
            attempts, ref = 0, None
            if is_hub:
                hub = self._hubs.get(url)
                if hub is not None:
                    hub.in_flight = True
            else:
                urec = self._db.get(P_URL + url.encode())
                if urec is not None:
                    _s, _d, attempts, _q, _t, ref = _read_urec(urec)
            lease = Lease(url, h.name, depth, bool(is_hub), started, expires, ref)
            self._leases[url] = (lease, seq, attempts, ref)
            heapq.heappush(self._lease_heap, (expires, url))

    def _reclaim_dead_leases(self, leases: list[tuple[bytes, bytes]]) -> None:
        """Leases found at open belong to a process that died: each counts as an attempt."""
        now = self.clock.now()
        with self._batch() as wb:
            dirty: dict[_Host, None] = {}
            for key, raw in leases:
                url = key[len(P_LEASE) :].decode()
                _started, _expires, depth, seq, is_hub = _LREC.unpack(raw)
                wb.delete(key)
                if is_hub:
                    hub = self._hubs.get(url)
                    if hub is not None:
                        self._hub_lost(wb, hub, now, "process stopped")
                    continue
                h = self._host(host_of(url))
                urec = self._db.get(P_URL + url.encode())
                attempts, ref = _read_urec(urec)[2::3] if urec is not None else (0, None)
                self._requeue_or_fail(wb, h, url, depth, seq, attempts, ref, now)
                dirty[h] = None
            for h in dirty:
                wb.put(P_HOST + h.name.encode(), h.pack())
        log.warning("reclaimed %d leases left by a process that stopped", len(leases))

    def _hub_lost(self, wb: Any, hub: _Hub, now: float, label: str) -> None:
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
            heapq.heappush(self._hub_heap, (now, hub.url))
        wb.put(P_HUB + hub.url.encode(), snapshot_file.dumps(hub.to_json()))

    def _requeue_or_fail(
        self,
        wb: Any,
        h: _Host,
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
            wb.put(P_URL + url.encode(), _urec(F, depth, attempts, seq, now, ref))
            h.failed += 1
            self._t_failed += 1
            log.warning("giving up on %s after %d lost leases", url, attempts)
            return
        qkey = _qkey(h.name, depth, seq)
        qval = _qval(url, attempts, ref)
        wb.put(qkey, qval)
        wb.put(P_URL + url.encode(), _urec(W, depth, attempts, seq, now, ref))
        h.waiting += 1
        self._t_waiting += 1
        self._buffer_insert(h, qkey, qval)

    # ---- writing ------------------------------------------------------------------------------
    def _batch(self, sync: bool = False) -> _Batch:
        """A write batch, synced when asked, when the config syncs every batch, or when the
        last synced write is older than ``config.sync_seconds`` (bounds a power cut's loss)."""
        cfg = self.config
        if not (sync or cfg.sync) and cfg.sync_seconds is not None:
            now = time.monotonic()
            sync = now - self._last_sync >= cfg.sync_seconds
        if sync or cfg.sync:
            sync = True
            self._last_sync = time.monotonic()
        return _Batch(self, self._db.write_batch(transaction=True, sync=sync))

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

    def _storage_error(self, exc: BaseException) -> CrawlerGuiError:
        text = _error_text(exc)
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
        log.info("a write to the pool failed: %s", _error_text(exc))
        self._rebuild()
        raise self._storage_error(exc) from exc

    def _rebuild(self) -> None:
        """The in-memory state again from the database; leases are kept as this process's."""
        version = self._version
        for name in (
            "_hosts",
            "_retries",
            "_hubs",
            "_leases",
        ):
            getattr(self, name).clear()
        self._ready.clear()
        self._sleep.clear()
        self._lease_heap.clear()
        self._retry_heap.clear()
        self._hub_heap.clear()
        self._load(adopt_leases=True)
        self._version = version + 1

    @property
    def write_error(self) -> str | None:
        """Why writes are blocked (a failed write not yet recovered from), or None."""
        return _error_text(self._write_error) if self._write_error is not None else None

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
        self._db.close()
        try:
            self._db = _open_db(self.path / DB_DIRNAME, create=False)
        except PoolError:
            # Still no room (LevelDB writes a table and a new log when it opens): keep a
            # handle for reads and stay blocked.
            try:
                self._db = _open_db(self.path / DB_DIRNAME, create=False)
            except PoolError as again:
                self._closed = True
                raise again from None
            raise self._storage_error(self._write_error) from None
        failed, self._write_error = self._write_error, None  # lets the proving write through
        try:
            self._rebuild()
            with self._batch(sync=True) as wb:  # proves that writes work again
                wb.put(K_SEQ, _SEQ.pack(self._seq))
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

    def _host(self, name: str) -> _Host:
        h = self._hosts.get(name)
        if h is None:
            h = self._hosts[name] = _Host(name)
        return h

    def _touch(self, h: _Host) -> None:
        self._version += 1
        h.version = self._version

    def _schedule(self, h: _Host, now: float) -> None:
        """Put a host in the ready deque or the sleep heap if it can take another fetch."""
        if (
            h.queued
            or h.waiting <= 0
            or h.in_flight >= self.config.politeness.max_in_flight
            or h.paused
        ):
            return
        at = h.allowed_at()
        h.queued = True
        if at <= now:
            self._ready.append(h)
        else:
            heapq.heappush(self._sleep, (at, h.name))

    def _buffer_insert(self, h: _Host, qkey: bytes, qval: bytes) -> None:
        suffix = qkey[-_QSUFFIX.size :]
        h.cursor = min(h.cursor, suffix)
        if h.buf_complete:
            insort(h.buf, suffix + qval)
            if len(h.buf) > READ_AHEAD * 2:
                del h.buf[READ_AHEAD:]
                h.buf_complete = False
        elif h.buf and suffix < h.buf[-1][: _QSUFFIX.size]:
            insort(h.buf, suffix + qval)
            h.buf.pop()
        # else: it lies after the buffered prefix; a refill reads it from the database.

    def _buffer_refill(self, h: _Host) -> None:
        prefix = h.prefix
        buf = h.buf
        cut = len(prefix)
        it = self._db.iterator(start=prefix + h.cursor, stop=prefix[:-1] + b"\x01")
        try:
            for key, value in it:
                buf.append(key[cut:] + value)
                if len(buf) >= READ_AHEAD:
                    break
        finally:
            it.close()
        h.buf_complete = len(buf) >= h.waiting

    # ---- adding -------------------------------------------------------------------------------
    async def add(
        self, url: str, depth: int = 0, referrer: str | None = None, *, always: bool = False
    ) -> AddReport:
        return await self.add_many([AddRequest(url, depth, referrer)], always=always)

    async def add_many(
        self, items: Iterable[AddRequest | str], *, always: bool = False
    ) -> AddReport:
        self._check_open()
        report = AddReport()
        chunk: list[AddRequest | str] = []
        for item in items:
            chunk.append(item)
            if len(chunk) >= ADD_CHUNK:
                report.merge(self.add_many_sync(chunk, always=always))
                chunk = []
                await asyncio.sleep(0)
        if chunk:
            report.merge(self.add_many_sync(chunk, always=always))
        return report

    @_reads_checked
    def add_many_sync(
        self, items: Iterable[AddRequest | str], *, always: bool = False
    ) -> AddReport:
        """Add URLs in one write batch (the body of ``add_many``)."""
        self._check_open()
        report = AddReport()
        now = self.clock.now()
        db_get = self._db.get
        cfg = self.config
        cap = cfg.max_per_host
        batch: dict[str, None] = {}
        dirty: dict[_Host, None] = {}
        wb = self._batch()
        seq = self._seq
        for raw, url, hostname, depth, referrer in checked_adds(items, cfg, report, self._refused):
            if url in batch or url in self._hubs or url in self._leases:
                report.duplicate += 1
                continue
            ukey = P_URL + url.encode()
            old = db_get(ukey)
            h = self._host(hostname)
            if old is not None and (not always or old[:1] == W):
                report.duplicate += 1
                continue
            if cap is not None and h.waiting >= cap:  # before anything changes
                self._overflow += 1
                self._refused["host_full"] += 1
                report.overflow += 1
                report.refused.append((raw, "host_full"))
                continue
            if old is not None:
                self._forget_state(wb, h, url, old[:1])
            batch[url] = None
            seq += 1
            qkey = _qkey(hostname, depth, seq)
            qval = _qval(url, 0, referrer)
            wb.put(ukey, _urec(W, depth, 0, seq, now, referrer))
            wb.put(qkey, qval)
            h.waiting += 1
            self._buffer_insert(h, qkey, qval)
            dirty[h] = None
            report.added += 1
        if dirty:
            self._t_waiting += report.added
            self._seq = seq
            wb.put(K_SEQ, _SEQ.pack(seq))
            for h in dirty:
                wb.put(P_HOST + h.name.encode(), h.pack())
                self._touch(h)
                self._schedule(h, now)
        wb.write()
        return report

    def _forget_state(self, wb: Any, h: _Host, url: str, state: bytes) -> None:
        """Undo the counters of a URL's old final state before it is re-queued (always=True)."""
        if state == D:
            h.done -= 1
            self._t_done -= 1
        elif state == F:
            h.failed -= 1
            self._t_failed -= 1
            nkey = P_REFUSAL + url.encode()
            if self._db.get(nkey) is not None:
                wb.delete(nkey)
                self._t_refused -= 1
        elif state == X:
            h.redirected -= 1
            self._t_redirected -= 1
        elif state == R:
            h.retrying -= 1
            self._t_retrying -= 1
            self._retries.pop(url, None)
            wb.delete(P_RETRY + url.encode())

    # ---- popping ------------------------------------------------------------------------------
    async def pop(self, count: int, hub_percent: int = 50) -> list[Lease]:
        return self.pop_sync(count, hub_percent)

    @_reads_checked
    def pop_sync(self, count: int, hub_percent: int = 50) -> list[Lease]:
        self._check_open()
        if count <= 0:
            return []
        now = self.clock.now()
        self._reclaim_expired(now)
        self._release_due_retries(now)
        cfg = self.config
        max_if = cfg.politeness.max_in_flight
        expires = now + cfg.pending_threshold
        out: list[Lease] = []
        wb = self._batch()
        dirty: dict[_Host, None] = {}
        # 1. hubs that are due, at most hub_percent of the batch
        hub_quota = math.ceil(count * max(0, min(100, hub_percent)) / 100)
        if hub_quota and self._hub_heap and self._hub_heap[0][0] <= now:
            skipped: list[tuple[float, str]] = []
            while self._hub_heap and len(out) < hub_quota and self._hub_heap[0][0] <= now:
                due, url = heapq.heappop(self._hub_heap)
                hub = self._hubs.get(url)
                if hub is None or hub.in_flight or hub.due != due or hub.parked:
                    continue  # stale heap entry
                h = self._host(hub.host)
                if h.paused:
                    continue  # back on the heap when the host is resumed
                if h.in_flight >= max_if or h.allowed_at() > now:
                    skipped.append((due, url))
                    continue
                hub.in_flight = True
                h.in_flight += 1
                lease = Lease(url, hub.host, 0, True, now, expires)
                self._leases[url] = (lease, 0, 0, None)
                heapq.heappush(self._lease_heap, (expires, url))
                wb.put(P_LEASE + url.encode(), _LREC.pack(now, expires, 0, 0, 1))
                out.append(lease)
                self._touch(h)
            for entry in skipped:
                heapq.heappush(self._hub_heap, entry)
        # 2. one URL per ready host, hosts taking turns
        sleep = self._sleep
        while sleep and sleep[0][0] <= now:
            _at, name = heapq.heappop(sleep)
            h = self._hosts[name]
            if h.allowed_at() > now:  # moved later since it was pushed
                heapq.heappush(sleep, (h.allowed_at(), name))
                continue
            self._ready.append(h)
        ready = self._ready
        served: list[_Host] = []
        leases = self._leases
        lease_heap = self._lease_heap
        delete, put = wb.delete, wb.put
        qsize = _QSUFFIX.size
        while ready and len(out) < count:
            h = ready.popleft()
            h.queued = False
            if h.waiting <= 0 or h.in_flight >= max_if or h.paused:
                continue
            if h.next_allowed > now or h.backoff_until > now:  # a hub or a result moved it
                self._schedule(h, now)
                continue
            if not h.buf:
                self._buffer_refill(h)
                if not h.buf:  # counters disagree with the queue: trust the queue
                    log.error(
                        "host %s counted %d waiting but its queue is empty", h.name, h.waiting
                    )
                    self._t_waiting -= h.waiting
                    h.waiting = 0
                    dirty[h] = None
                    continue
            head = h.buf.pop(0)
            suffix = head[:qsize]
            h.cursor = suffix
            (attempts,) = _QVAL.unpack_from(head, qsize)
            raw_url, sep, raw_ref = head[qsize + 2 :].partition(b"\x00")
            url = raw_url.decode()
            ref = raw_ref.decode() if sep else None
            depth, seq = _QSUFFIX.unpack(suffix)
            delete(h.prefix + suffix)
            put(P_LEASE + raw_url, _LREC.pack(now, expires, depth, seq, 0))
            h.waiting -= 1
            h.in_flight += 1
            lease = Lease(url, h.name, depth, False, now, expires, ref)
            leases[url] = (lease, seq, attempts, ref)
            heapq.heappush(lease_heap, (expires, url))
            out.append(lease)
            dirty[h] = None
            served.append(h)
        self._t_waiting -= len(served)
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            self._touch(h)
        for h in served:
            self._schedule(h, now)  # only if it may take more than one in flight
        if out or dirty:
            wb.write()
        return out

    def _reclaim_expired(self, now: float) -> int:
        heap = self._lease_heap
        if not heap or heap[0][0] > now:
            return 0
        n = 0
        wb = self._batch()
        dirty: dict[_Host, None] = {}
        while heap and heap[0][0] <= now:
            expires, url = heapq.heappop(heap)
            entry = self._leases.get(url)
            if entry is None or entry[0].expires != expires:
                continue
            lease, seq, attempts, ref = entry
            del self._leases[url]
            wb.delete(P_LEASE + url.encode())
            h = self._host(lease.host)
            h.in_flight -= 1
            if lease.is_hub:
                hub = self._hubs.get(url)
                if hub is not None:
                    self._hub_lost(wb, hub, now, "lease expired")
            else:
                self._requeue_or_fail(wb, h, url, lease.depth, seq, attempts, ref, now)
            log.warning(
                "lease of %s expired after %.0f s; put back", url, self.config.pending_threshold
            )
            dirty[h] = None
            n += 1
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            self._touch(h)
            self._schedule(h, now)
        wb.write()
        return n

    async def iter_outcomes(self) -> AsyncIterator[dict[str, Any]]:
        """Every URL's outcome (see ``Frontier.iter_outcomes``), read by
        :meth:`iter_outcomes_sync` in a worker thread, a batch at a time."""
        records = self.iter_outcomes_sync()
        try:
            while batch := await asyncio.to_thread(list, itertools.islice(records, CHUNK)):
                for rec in batch:
                    yield rec
        finally:
            records.close()

    def iter_outcomes_sync(self) -> Generator[dict[str, Any], None, None]:
        """Every URL's outcome as an export record (``outcome_record``), from a consistent
        view of the database (this reads the whole pool, without yielding to any loop)."""
        self._check_open()
        with self._db.snapshot() as snap:
            refusals = {
                key[len(P_REFUSAL) :].decode(): raw.decode()
                for key, raw in snap.iterator(prefix=P_REFUSAL)
            }
            for key, raw in snap.iterator(prefix=P_URL):
                url = key[len(P_URL) :].decode()
                state, depth, attempts, _seq, t, extra = _read_urec(raw)
                retry = self._retries.get(url) if state == R else None
                yield outcome_record(
                    url,
                    state.decode(),
                    depth,
                    attempts,
                    t,
                    extra,
                    refusal=refusals.get(url),
                    next_try=retry.next_try if retry else None,
                    last_error=retry.last_error if retry else None,
                )

    async def requeue_refused(self, keep: Callable[[Refusal], bool]) -> int:
        """Queue again the refused URLs ``keep`` accepts (see ``Frontier.requeue_refused``)."""
        self._check_open()
        wanted: list[AddRequest] = []
        for n, (key, raw) in enumerate(self._db.iterator(prefix=P_REFUSAL)):
            if n % CHUNK == CHUNK - 1:
                await asyncio.sleep(0)
            url = key[len(P_REFUSAL) :].decode()
            if not keep(Refusal.unpack(url, raw.decode())):
                continue
            urec = self._db.get(P_URL + url.encode())
            if urec is None or urec[:1] != F:
                continue
            _s, depth, _a, _seq, _t, extra = _read_urec(urec)
            wanted.append(AddRequest(url, depth, referrer_of(extra)))
        report = await self.add_many(wanted, always=True)
        return report.added

    async def release(self, urls: Sequence[str]) -> int:
        """Give leases back unfetched (a stop that cannot wait): each goes back to where it was
        in its queue, with no attempt counted. Returns how many were released."""
        self._check_open()
        now = self.clock.now()
        wb = self._batch()
        dirty: dict[_Host, None] = {}
        n = 0
        for url in urls:
            entry = self._leases.pop(url, None)
            if entry is None:
                continue
            lease, seq, attempts, ref = entry
            wb.delete(P_LEASE + url.encode())
            h = self._hosts[lease.host]
            h.in_flight -= 1
            if lease.is_hub:
                hub = self._hubs.get(url)
                if hub is not None:
                    hub.in_flight = False
                    heapq.heappush(self._hub_heap, (hub.due, url))
            else:
                self._requeue_or_fail(wb, h, url, lease.depth, seq, attempts - 1, ref, now)
            dirty[h] = None
            n += 1
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            self._touch(h)
            self._schedule(h, now)
        wb.write()
        return n

    async def reclaim_expired(self) -> int:
        self._check_open()
        return self._reclaim_expired(self.clock.now())

    def _release_due_retries(self, now: float) -> None:
        heap = self._retry_heap
        if not heap or heap[0][0] > now:
            return
        wb = self._batch()
        dirty: dict[_Host, None] = {}
        while heap and heap[0][0] <= now:
            t, url = heapq.heappop(heap)
            r = self._retries.get(url)
            if r is None or r.next_try != t:
                continue
            del self._retries[url]
            h = self._host(r.host)
            h.retrying -= 1
            self._t_retrying -= 1
            h.waiting += 1
            self._t_waiting += 1
            qkey = _qkey(h.name, r.depth, r.seq)
            qval = _qval(url, r.attempts, r.referrer)
            wb.delete(P_RETRY + url.encode())
            wb.put(qkey, qval)
            wb.put(P_URL + url.encode(), _urec(W, r.depth, r.attempts, r.seq, now, r.referrer))
            self._buffer_insert(h, qkey, qval)
            dirty[h] = None
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            self._touch(h)
            self._schedule(h, now)
        wb.write()

    # ---- results ------------------------------------------------------------------------------
    async def set_status(self, url: str, result: FetchResult) -> None:
        self.set_status_many_sync([(url, result)])

    async def set_status_many(self, results: Sequence[tuple[str, FetchResult]]) -> None:
        self.set_status_many_sync(results)

    @_reads_checked
    def set_status_many_sync(self, results: Sequence[tuple[str, FetchResult]]) -> None:
        self._check_open()
        now = self.clock.now()
        cfg = self.config
        wb = self._batch()
        put = wb.put
        dirty: dict[_Host, None] = {}
        follow: list[AddRequest] = []
        leases = self._leases
        hosts = self._hosts
        pol = cfg.politeness
        for url, result in results:
            entry = leases.pop(url, None)
            if entry is None:
                entry = self._adopt_late_result(wb, url)
                if entry is None:
                    log.warning("result for %s ignored: it is not in flight", url)
                    continue
            lease, seq, attempts, ref = entry
            ub = url.encode()
            wb.delete(P_LEASE + ub)
            h = hosts[lease.host]
            h.in_flight -= 1
            status = result.status
            h.last_status = str(status) if status is not None else result.label
            h.last_elapsed = result.elapsed
            h.delay, basis = host_delay_and_basis(pol, result.elapsed, h.min_delay, h.user_delay)
            h.basis = basis.encode()
            h.next_allowed = now + h.delay
            outcome = outcome_of(result)
            if outcome is Outcome.THROTTLED:
                until = now + cfg.retry.throttle_delay(result.retry_after)
                if until > h.backoff_until:
                    h.backoff_until = until
                    h.backoff_status = status or 0
                    h.retry_after = result.retry_after is not None
            dirty[h] = None
            if lease.is_hub:
                self._hub_result(wb, url, result, outcome, now)
                if outcome is Outcome.REDIRECTED and result.redirect_to:
                    follow.append(AddRequest(result.redirect_to, 0, url))
                continue
            ukey = P_URL + ub
            if outcome is Outcome.DONE:
                put(ukey, _urec(D, lease.depth, attempts, seq, now, ref))
                h.done += 1
                self._t_done += 1
                if result.final_url and result.final_url != url:
                    self._mark_seen(wb, result.final_url, lease.depth, url, now, dirty)
            elif outcome is Outcome.REDIRECTED:
                wb.put(ukey, _urec(X, lease.depth, attempts, seq, now, result.redirect_to))
                h.redirected += 1
                self._t_redirected += 1
                if result.redirect_to:
                    follow.append(AddRequest(result.redirect_to, lease.depth, url))
            elif outcome is Outcome.FAILED:
                wb.put(
                    ukey, _urec(F, lease.depth, attempts + 1, seq, now, pack_failure(ref, result))
                )
                h.failed += 1
                self._t_failed += 1
            elif outcome is Outcome.REFUSED:  # decided by policy: no attempt counted
                detail = pack_failure(ref, result)
                wb.put(ukey, _urec(F, lease.depth, attempts, seq, now, detail))
                wb.put(P_REFUSAL + ub, Refusal.pack(result).encode())
                h.failed += 1
                self._t_failed += 1
                self._t_refused += 1
            else:  # RETRY or THROTTLED
                attempts += 1
                if cfg.retry.gives_up(attempts):
                    wb.put(
                        ukey, _urec(F, lease.depth, attempts, seq, now, pack_failure(ref, result))
                    )
                    wb.delete(P_RETRY + url.encode())
                    h.failed += 1
                    self._t_failed += 1
                else:
                    delay = retry_delay(cfg.retry, outcome, attempts, result.retry_after)
                    r = _Retry(
                        url,
                        h.name,
                        lease.depth,
                        attempts,
                        pack_retry(result, delay, outcome is Outcome.THROTTLED),
                        now + delay,
                        seq,
                        ref,
                    )
                    self._retries[url] = r
                    heapq.heappush(self._retry_heap, (r.next_try, url))
                    wb.put(ukey, _urec(R, lease.depth, attempts, seq, now, ref))
                    wb.put(P_RETRY + url.encode(), r.to_json())
                    h.retrying += 1
                    self._t_retrying += 1
        for h in dirty:
            wb.put(P_HOST + h.name.encode(), h.pack())
            self._touch(h)
            self._schedule(h, now)
        wb.write()
        self._compact_heaps()
        if follow:
            self.add_many_sync(follow)

    def _compact_heaps(self) -> None:
        """Finished leases leave stale heap entries (removed lazily); keep the heaps small."""
        if len(self._lease_heap) > 2 * len(self._leases) + 1024:
            self._lease_heap = [(e[0].expires, url) for url, e in self._leases.items()]
            heapq.heapify(self._lease_heap)
        if len(self._retry_heap) > 2 * len(self._retries) + 1024:
            self._retry_heap = [(r.next_try, url) for url, r in self._retries.items()]
            heapq.heapify(self._retry_heap)
        if len(self._hub_heap) > 2 * len(self._hubs) + 1024:
            self._hub_heap = [(h.due, url) for url, h in self._hubs.items() if not h.in_flight]
            heapq.heapify(self._hub_heap)

    def _adopt_late_result(self, wb: Any, url: str) -> tuple[Lease, int, int, str | None] | None:
        """A result arrived after its lease expired and the URL was put back: take it."""
        try:
            url, hostname = canonicalize(url)
        except InvalidURLError:
            return None
        raw = self._db.get(P_URL + url.encode())
        if raw is None or raw[:1] != W:
            return None
        _s, depth, attempts, seq, _t, ref = _read_urec(raw)
        h = self._host(hostname)
        qkey = _qkey(hostname, depth, seq)
        wb.delete(qkey)
        h.buf = [e for e in h.buf if not e.startswith(qkey[-_QSUFFIX.size :])]
        h.waiting -= 1
        self._t_waiting -= 1
        h.in_flight += 1
        now = self.clock.now()
        return Lease(url, hostname, depth, False, now, now, ref), seq, attempts, ref

    def _mark_seen(
        self, wb: Any, raw_url: str, depth: int, referrer: str, now: float, dirty: dict[_Host, None]
    ) -> None:
        """The final URL of a followed redirect chain is done too (never fetched again)."""
        try:
            url, hostname = canonicalize(raw_url)
        except InvalidURLError:
            return
        ukey = P_URL + url.encode()
        old = self._db.get(ukey)
        h = self._host(hostname)
        if old is not None:
            if old[:1] != W or url in self._leases:
                return
            _s, d, a, seq, _t, ref = _read_urec(old)
            qkey = _qkey(hostname, d, seq)
            wb.delete(qkey)
            h.buf = [e for e in h.buf if not e.startswith(qkey[-_QSUFFIX.size :])]
            h.waiting -= 1
            self._t_waiting -= 1
            wb.put(ukey, _urec(D, d, a, seq, now, ref))
        else:
            self._seq += 1
            wb.put(ukey, _urec(D, depth, 0, self._seq, now, referrer))
            wb.put(K_SEQ, _SEQ.pack(self._seq))
        h.done += 1
        self._t_done += 1
        dirty[h] = None

    def _hub_result(
        self, wb: Any, url: str, result: FetchResult, outcome: Outcome, now: float
    ) -> None:
        hub = self._hubs.get(url)
        if hub is None:  # removed from the hub list while in flight
            return
        hub.in_flight = False
        self._hub_learn(hub, result, outcome, now)
        hub.last_refresh = now
        hub.last_result = result.label
        hub.crashes = 0  # a result came back: the process survived this hub
        retry = self.config.retry
        hub.due, hub.fails = hub_next_due(
            now,
            hub_outcome(result, outcome),
            fails=hub.fails,
            span=hub.span,
            planned=hub.planned,
            throttle=retry.throttle_delay(result.retry_after),
            schedule=retry_schedule(retry),
        )
        heapq.heappush(self._hub_heap, (hub.due, url))
        wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
        if now - self._planned_at >= REPLAN_SECONDS:
            self._replan(now)

    # ---- the refresh plan (docs/freshness.md) -------------------------------------------------
    def _hub_learn(self, hub: _Hub, result: FetchResult, outcome: Outcome, now: float) -> None:
        """A refresh that reported its new links updates the hub's rate, and its span at the
        last plan's level (the whole plan follows within ``REPLAN_SECONDS``). Called before
        ``last_refresh`` moves to ``now``."""
        if result.hub_new is None or outcome is not Outcome.DONE:
            return
        # A first refresh finds the whole list new over no known interval: it is counted
        # (yielded, shown) but teaches no rate (``observe`` with no elapsed time).
        previous = hub.last_refresh
        elapsed = now - previous if previous > 0 else 0.0
        hub.rate = hub.rate.observe(
            result.hub_new, result.hub_listed, elapsed, 1.0 / hub.span, result.hub_items
        )
        cfg = self.config
        one = plan_one(
            self._hub_input(hub, self._hubs_per_host()),
            self._plan_level,
            adaptive=cfg.hub_refresh == "adaptive",
            span_min=cfg.hub_span_min,
            span_max=cfg.hub_span_max,
        )
        if one is not None:
            hub.planned, reason = one
            hub.reason = reason.value
        elif elapsed > 0:
            # The last plan had no level (no hub had learned yet) and this refresh taught a
            # rate: plan again at once. (Not after a first refresh, which teaches nothing: a
            # full plan per hub result, O(hubs) each, held the loop 20-100 ms per batch.)
            self._planned_at = -math.inf

    def _hubs_per_host(self) -> Counter[str]:
        return Counter(h.host for h in self._hubs.values() if not h.parked)

    def _hub_input(self, hub: _Hub, per_host: Counter[str]) -> HubInput:
        """The fastest a hub may go: its host's politeness delay, shared by the host's hubs."""
        h = self._hosts.get(hub.host)
        pol = self.config.politeness
        delay = max(pol.min_delay, h.delay, h.min_delay) if h is not None else pol.min_delay
        return HubInput(hub.span, hub.rate, delay * max(1, per_host[hub.host]))

    def _replan(self, now: float) -> None:
        """Share the hub budget (``Σ 1/span``) by learned rates; move each hub that waits on
        its planned span to its new due time (last refresh + planned span)."""
        self._planned_at = now
        hubs = [h for h in self._hubs.values() if not h.parked]
        if not hubs:
            self._plan_level = None
            return
        cfg = self.config
        per_host = self._hubs_per_host()
        plans, self._plan_level = plan_spans(
            [self._hub_input(h, per_host) for h in hubs],
            adaptive=cfg.hub_refresh == "adaptive",
            span_min=cfg.hub_span_min,
            span_max=cfg.hub_span_max,
        )
        for hub, (span, reason) in zip(hubs, plans, strict=True):
            on_plan = (
                hub.last_refresh > 0
                and hub.fails == 0
                and hub.due == (hub.last_refresh + hub.planned)
            )
            hub.planned, hub.reason = span, reason.value
            if on_plan and not hub.in_flight:
                due = hub.last_refresh + span
                if due != hub.due:
                    hub.due = due
                    heapq.heappush(self._hub_heap, (due, hub.url))
        self._version += 1

    # ---- hubs, retries, delays ----------------------------------------------------------------
    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        return self.set_hubs_sync(hubs)

    def set_hubs_sync(self, hubs: Sequence[HubSpec]) -> AddReport:
        self._check_open()
        report = AddReport()
        wanted = checked_hubs(hubs, self.config, report, self._refused)
        wb = self._batch(sync=True)
        for url in list(self._hubs):
            if url not in wanted:
                del self._hubs[url]
                wb.delete(P_HUB + url.encode())
        for url, (hostname, span) in wanted.items():
            hub = self._hubs.get(url)
            if hub is None:
                hub = self._hubs[url] = _Hub(url, hostname, span)
                hub.due = 0.0
                heapq.heappush(self._hub_heap, (hub.due, url))
                self._host(hostname)
                report.added += 1
            elif hub.span != span:
                hub.span = hub.planned = span
                if hub.last_refresh:
                    hub.due = hub.last_refresh + span
                    heapq.heappush(self._hub_heap, (hub.due, url))
            wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
        wb.write()
        # Drop the heap entries of removed hubs (and stale ones) at once.
        self._hub_heap = [(h.due, u) for u, h in self._hubs.items() if not h.in_flight]
        heapq.heapify(self._hub_heap)
        self._replan(self.clock.now())  # the budget follows the spans
        self._version += 1
        return report

    async def hubs(self) -> list[HubSpec]:
        return self.hubs_sync()

    def hubs_sync(self) -> list[HubSpec]:
        return [HubSpec(h.url, h.span) for h in self._hubs.values()]

    async def refresh_hub(self, url: str) -> bool:
        self._check_open()
        hub = self._find_hub(url)
        if hub is None:
            return False
        if not hub.in_flight:
            hub.parked = ""  # the user asked: a parked hub gets its chances again
            hub.crashes = 0
            hub.due = self.clock.now()
            heapq.heappush(self._hub_heap, (hub.due, hub.url))
            self._put(P_HUB + hub.url.encode(), snapshot_file.dumps(hub.to_json()))
            self._version += 1
        return True

    def _find_hub(self, url: str) -> _Hub | None:
        return _lookup(self._hubs, url)

    def _find_retry(self, url: str) -> _Retry | None:
        return _lookup(self._retries, url)

    async def retry_now(self, url: str) -> bool:
        self._check_open()
        r = self._find_retry(url)
        if r is None:
            return False
        r.next_try = self.clock.now()
        heapq.heappush(self._retry_heap, (r.next_try, r.url))
        self._put(P_RETRY + r.url.encode(), r.to_json())
        self._release_due_retries(r.next_try)
        return True

    async def give_up(self, url: str) -> bool:
        self._check_open()
        r = self._find_retry(url)
        if r is None:
            return False
        del self._retries[r.url]
        h = self._host(r.host)
        h.retrying -= 1
        self._t_retrying -= 1
        h.failed += 1
        self._t_failed += 1
        now = self.clock.now()
        with self._batch() as wb:
            wb.delete(P_RETRY + r.url.encode())
            wb.put(P_URL + r.url.encode(), _urec(F, r.depth, r.attempts, r.seq, now, r.referrer))
            wb.put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)
        return True

    async def set_delay(self, host: str, seconds: float) -> None:
        self._check_open()
        h = self._host(host)
        h.min_delay = max(0.0, float(seconds))
        self._put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)

    async def set_host_paused(self, host: str, paused: bool) -> None:
        self._check_open()
        h = self._host(host)
        if h.paused == paused:
            return
        h.paused = paused
        self._put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)
        if not paused:
            now = self.clock.now()
            self._schedule(h, now)
            for hub in self._hubs.values():  # pop dropped them from the heap while paused
                if hub.host == h.name and not hub.in_flight and not hub.parked:
                    heapq.heappush(self._hub_heap, (hub.due, hub.url))

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        self._check_open()
        h = self._host(host)
        h.user_delay = -1.0 if seconds is None else max(0.0, float(seconds))
        if h.basis.strip():  # the delay in force, made again from the last result's inputs
            pol = self.config.politeness
            last = h.next_allowed - h.delay
            h.delay, basis = host_delay_and_basis(pol, h.last_elapsed, h.min_delay, h.user_delay)
            h.basis = basis.encode()
            # A longer delay moves the next request later; a shorter one counts from it.
            h.next_allowed = max(h.next_allowed, last + h.delay)
        self._put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)

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

    async def waiting_urls(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        h = self._hosts.get(host)
        total = h.waiting if h is not None else 0
        prefix = P_QUEUE + host.encode() + b"\x00"
        skip = max(0, page) * max(1, page_size)

        def work(snap: Any, stop: threading.Event) -> tuple[WaitingRow, ...]:
            rows: list[WaitingRow] = []
            with snap.iterator(prefix=prefix) as it:
                for n, (key, raw) in enumerate(it):
                    if n < skip:
                        continue
                    if len(rows) >= page_size or stop.is_set():
                        break
                    url, attempts, ref = _read_qval(raw)
                    depth, _seq = _QSUFFIX.unpack(key[-_QSUFFIX.size :])
                    urec = snap.get(P_URL + url.encode())
                    added = _read_urec(urec)[4] if urec is not None else 0.0
                    rows.append(WaitingRow(url, depth, added, attempts, ref))
            return tuple(rows)

        return WaitingPage(total, await self._read(work))

    def _host_url_prefixes(self, host: str) -> tuple[bytes, ...]:
        return tuple(P_URL + f"{scheme}://{host}/".encode() for scheme in ("http", "https"))

    async def failed_urls(self, host: str, limit: int = 200) -> list[FailedRow]:
        prefixes = self._host_url_prefixes(host)

        def work(snap: Any, stop: threading.Event) -> list[FailedRow]:
            rows: list[FailedRow] = []
            for prefix in prefixes:
                with snap.iterator(prefix=prefix) as it:
                    for key, raw in it:
                        if len(rows) >= limit or stop.is_set():
                            return rows
                        if raw[:1] != F:
                            continue
                        _s, depth, attempts, _seq, t, extra = _read_urec(raw)
                        d = unpack_failure(extra)
                        refused = snap.get(P_REFUSAL + key[len(P_URL) :]) is not None
                        url = key[len(P_URL) :].decode()
                        rows.append(
                            FailedRow(
                                url, depth, attempts, t, d.status, d.reason, d.message, refused
                            )
                        )
            return rows

        return await self._read(work)

    async def forget_waiting(self, host: str) -> int:
        self._check_open()
        h = self._hosts.get(host)
        if h is None:
            return 0
        forgotten = 0
        start = h.prefix  # past the keys deleted so far: never wade through their tombstones
        while h.waiting > 0:
            self._check_open()
            wb = self._batch()
            n = 0
            with self._db.iterator(start=start, stop=h.prefix[:-1] + b"\x01") as it:
                for key, raw in it:
                    url = _read_qval(raw)[0]
                    wb.delete(key)
                    wb.delete(P_URL + url.encode())
                    start = key + b"\x00"
                    n += 1
                    if n >= FORGET_CHUNK:
                        break
            if n == 0:
                break
            h.waiting -= n
            self._t_waiting -= n
            h.buf.clear()
            h.buf_complete = h.waiting <= 0
            h.cursor = b""
            wb.put(P_HOST + h.name.encode(), h.pack())
            wb.write()
            forgotten += n
            await asyncio.sleep(0)
        if h.waiting < 0:  # counters that disagreed with the queue: trust the queue
            self._t_waiting -= h.waiting
            h.waiting = 0
            self._put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)
        return forgotten

    async def retry_failed(self, host: str) -> int:
        self._check_open()
        prefixes = self._host_url_prefixes(host)

        def work(snap: Any, stop: threading.Event) -> list[AddRequest]:
            wanted: list[AddRequest] = []
            for prefix in prefixes:
                with snap.iterator(prefix=prefix) as it:
                    for key, raw in it:
                        if stop.is_set():
                            return wanted
                        if raw[:1] != F or snap.get(P_REFUSAL + key[len(P_URL) :]) is not None:
                            continue
                        _s, depth, _a, _seq, _t, extra = _read_urec(raw)
                        url = key[len(P_URL) :].decode()
                        wanted.append(AddRequest(url, depth, referrer_of(extra)))
            return wanted

        wanted = await self._read(work)
        report = await self.add_many(wanted, always=True)
        return report.added

    def set_config(self, config: PoolConfig) -> None:
        """Change policy live (the settings dialog)."""
        self.config = config
        now = self.clock.now()
        for h in self._hosts.values():
            self._schedule(h, now)
        self._replan(now)  # the hub refresh mode or its bounds may have changed

    # ---- per-minute counters (core/counters.py) ----------------------------------------------
    async def add_counters(self, delta: Counters) -> None:
        """Add ``delta`` to the counters the pool holds. The records it touches are read,
        added to and encoded in a worker thread (a minute of a big crawl touches thousands of
        hosts), then written in one batch."""
        if not delta:
            return
        self._check_open()
        async with self._counters_lock:
            puts = await asyncio.to_thread(self._merged_counters, delta)
            self._check_open()
            with self._batch() as wb:
                for key, value in puts:
                    wb.put(key, value)

    @_reads_checked
    def _merged_counters(self, delta: Counters) -> list[tuple[bytes, bytes]]:
        db = self._db
        out: list[tuple[bytes, bytes]] = []

        def merged(key: bytes, fields: dict[str, int]) -> None:
            held = _counter_record(key, db.get(key))
            merge_fields(held, fields)
            out.append((key, snapshot_file.dumps(held)))

        for minute, fields in delta.minutes.items():
            merged(P_COUNTER_MINUTE + _SEQ.pack(max(0, minute)), fields)
        for host, fields in delta.hosts.items():
            merged(P_COUNTER_HOST + host.encode(), fields)
        if delta.delays:
            merged(K_COUNTER_DELAYS, delta.delays)
        return out

    async def counters(self) -> Counters:
        """All the counters the pool holds (read in a worker thread)."""
        self._check_open()
        return await asyncio.to_thread(self.counters_sync)

    @_reads_checked
    def counters_sync(self) -> Counters:
        db = self._db
        out = Counters()
        for key, raw in db.iterator(prefix=P_COUNTER_MINUTE):
            suffix = key[len(P_COUNTER_MINUTE) :]
            if len(suffix) == _SEQ.size:
                out.minutes[_SEQ.unpack(suffix)[0]] = _counter_record(key, raw)
        for key, raw in db.iterator(prefix=P_COUNTER_HOST):
            host = key[len(P_COUNTER_HOST) :].decode("utf-8", "replace")
            out.hosts[host] = _counter_record(key, raw)
        out.delays = _counter_record(K_COUNTER_DELAYS, db.get(K_COUNTER_DELAYS))
        return out

    # ---- observing ----------------------------------------------------------------------------
    async def totals(self) -> PoolTotals:
        if self._closed:  # readable during a snapshot load, as snapshot() is
            raise PoolClosedError("the pool is closed")
        return self.totals_sync()

    def totals_sync(self) -> PoolTotals:
        return PoolTotals(
            waiting=self._t_waiting,
            pending=len(self._leases),
            done=self._t_done,
            failed=self._t_failed,
            retrying=self._t_retrying,
            hosts=len(self._hosts),
            hubs=len(self._hubs),
            redirected=self._t_redirected,
            refused=dict(self._refused),
            overflow=self._overflow,
            refused_urls=self._t_refused,
            failure_threshold=self.config.retry.failure_threshold,
            pending_threshold=self.config.pending_threshold,
        )

    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot:
        return self.snapshot_sync(since, retry_limit)

    def snapshot_sync(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot:
        if self._closed:  # readable during a snapshot load: it reads memory only
            raise PoolClosedError("the pool is closed")
        now = self.clock.now()
        if since is None:
            hosts: Iterable[_Host] = self._hosts.values()
        else:
            hosts = [h for h in self._hosts.values() if h.version > since]
        host_rows = tuple(
            HostRow(
                h.name,
                h.waiting,
                h.in_flight,
                h.done,
                h.failed,
                h.retrying,
                h.last_status,
                h.allowed_at(),
                h.delay,
                h.backoff_until if h.backoff_until > now else 0.0,
                h.last_elapsed,
                h.min_delay,
                h.user_delay,
                h.paused,
                str(h.backoff_status) if h.backoff_status else "",
                h.retry_after,
                h.basis.decode().strip(),
            )
            for h in hosts
        )
        pending = tuple(
            PendingRow(
                lease.url, lease.host, lease.depth, lease.is_hub, lease.started, lease.expires
            )
            for lease, *_rest in self._leases.values()
        )
        soonest = heapq.nsmallest(retry_limit, self._retries.values(), key=lambda r: r.next_try)
        retrying = tuple(
            retry_row(r.url, r.host, r.depth, r.attempts, r.last_error, r.next_try) for r in soonest
        )
        hubs = tuple(
            HubRow(
                hub.url,
                hub.host,
                hub.span,
                hub.last_refresh,
                hub.last_result,
                hub.due,
                hub.in_flight,
                hub.parked,
                hub.crashes,
                *hub_learned(hub.span, hub.rate, hub.planned, hub.reason),
            )
            for hub in self._hubs.values()
        )
        return PoolSnapshot(
            time=now,
            version=self._version,
            totals=self.totals_sync(),
            hosts=host_rows,
            hosts_complete=since is None,
            pending=pending,
            retrying=retrying,
            hubs=hubs,
            next_due=self._next_due(now),
        )

    async def next_due(self) -> float | None:
        self._check_open()
        return self._next_due(self.clock.now())

    def _next_due(self, now: float) -> float | None:
        times: list[float] = []
        if self._ready:
            times.append(now)
        if self._sleep:
            times.append(self._sleep[0][0])
        retries, leases = self._retry_heap, self._lease_heap
        while retries:  # drop stale tops: retried now, given up, re-queued
            t, url = retries[0]
            r = self._retries.get(url)
            if r is not None and r.next_try == t:
                times.append(t)
                break
            heapq.heappop(retries)
        while leases:  # drop stale tops: leases that ended
            t, url = leases[0]
            entry = self._leases.get(url)
            if entry is not None and entry[0].expires == t:
                times.append(t)
                break
            heapq.heappop(leases)
        heap = self._hub_heap
        while heap:  # drop stale entries on top: removed, in flight, or re-scheduled hubs
            due, url = heap[0]
            hub = self._hubs.get(url)
            if (
                hub is not None
                and not hub.in_flight
                and hub.due == due
                and not hub.parked
                and not self._host(hub.host).paused
            ):
                times.append(due)
                break
            heapq.heappop(heap)
        return min(times) if times else None

    def url_state(self, url: str) -> str | None:
        """The state of one URL: waiting, pending, done, failed, redirected, retrying, or None."""
        try:
            url = canonicalize(url)[0]
        except InvalidURLError:
            return None
        if url in self._leases:
            return "pending"
        raw = self._db.get(P_URL + url.encode())
        return STATE_NAMES[raw[:1]] if raw is not None else None

    def known(self, url: str) -> bool | None:
        return self.is_known(url)  # an in-process lookup: cheap enough for the event loop

    @property
    def storage_dir(self) -> Path | None:
        return self.path

    def is_known(self, url: str) -> bool:
        """True if the pool already has this URL in any state, or as a hub (cheap, sync)."""
        try:
            url = canonicalize(url, max_length=self.config.max_url_length)[0]
        except InvalidURLError:
            return False
        if url in self._leases or url in self._hubs:
            return True
        return self._db.get(P_URL + url.encode()) is not None

    def url_attempts(self, url: str) -> int:
        raw = self._db.get(P_URL + canonicalize(url)[0].encode())
        return _read_urec(raw)[2] if raw is not None else 0

    # ---- snapshots ----------------------------------------------------------------------------
    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Write the whole pool to a snapshot file, in a worker thread, from a consistent
        LevelDB snapshot. Cancelled, the thread stops at its next record and removes its
        temporary file; :meth:`close` stops it first too (it reads the database)."""
        self._check_open()
        target = Path(path)
        if not str(path).strip():
            raise SnapshotError("a snapshot needs a file name (an empty one was given)")
        resolved, root = target.expanduser().resolve(), self.path.resolve()
        if resolved == root or root in resolved.parents:
            raise SnapshotError(
                f"{path} is inside the pool {self.path}: save the snapshot somewhere else"
            )
        leases = {url for url, entry in self._leases.items() if not entry[0].is_hub}
        stop, done = threading.Event(), threading.Event()
        snap = self._db.snapshot()

        def all_records() -> Generator[dict[str, Any], None, None]:
            yield from snapshot_file.scope_records(scope)
            yield from _export_records(snap, leases, stop)

        records = all_records()

        def work() -> int:
            try:
                return snapshot_file.write_snapshot(target, records)
            finally:
                records.close()  # its iterators end here, in the thread that used them
                done.set()

        reader = (stop, done)
        self._readers.append(reader)
        future = asyncio.get_running_loop().run_in_executor(None, work)

        def finished(f: asyncio.Future[int] | None = None) -> None:
            if f is not None and not f.cancelled():
                f.exception()  # a cancelled save's "stopped": expected, nobody to tell
            if reader in self._readers:
                self._readers.remove(reader)
            snap.close()

        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            # The thread stops at its next record and removes its temporary file: a
            # cancelled save has left nothing behind when it returns.
            with contextlib.suppress(BaseException):  # (its "stopped" error)
                await asyncio.shield(future)
            raise
        finally:
            if future.done():
                finished()
            else:  # cancelled again while it stopped: released when the thread has stopped
                future.add_done_callback(finished)

    async def load_snapshot(self, path: str | Path) -> int:
        self._check_open()
        if self._leases:
            raise PoolBusyError(
                f"{len(self._leases)} URLs are in flight; stop the crawl before loading a snapshot"
            )
        staging = self.path / (DB_DIRNAME + ".loading")
        self._loading = True  # until the swap is done, every other call gets PoolBusyError
        try:
            count = await asyncio.to_thread(_build_staging, Path(path), staging)
            # Swap the databases with two renames; reopen and clean up off the loop thread.
            # From here on the swap runs to its end even if the caller is cancelled: a pool
            # left between two databases would hold a closed one.
            self._db.close()
            swap = asyncio.ensure_future(asyncio.to_thread(self._swap_in, staging))
            try:
                fresh = await asyncio.shield(swap)
            except asyncio.CancelledError:
                fresh = await swap
                self._take_over(fresh)
                raise
            self._take_over(fresh)
            old = self.path / (DB_DIRNAME + ".old")
            await asyncio.to_thread(shutil.rmtree, old, True)
        finally:
            self._loading = False
        log.info("loaded %d records from snapshot %s", count, path)
        return count

    def _stop_readers(self) -> None:
        """Background readers (a snapshot save's thread) stop before the database closes: a
        thread reading a closed LevelDB crashes the process."""
        for stop, _done in self._readers:
            stop.set()
        for _stop, done in list(self._readers):
            if not done.wait(READER_STOP_SECONDS):
                log.error("a snapshot save did not stop in time; closing the database anyway")
        self._readers.clear()

    def _swap_in(self, staging: Path) -> LevelDBPool:
        live = self.path / DB_DIRNAME
        old = self.path / (DB_DIRNAME + ".old")
        live.rename(old)
        staging.rename(live)
        snapshot_file.fsync_dir(self.path)  # the renames survive a power cut
        return LevelDBPool.open(self.path, self.config, self.clock)

    def _take_over(self, fresh: LevelDBPool) -> None:
        """``fresh`` (opened on the database a load swapped in) becomes this pool; the version
        moves on, so that views read everything again."""
        version = self._version
        self.__dict__.update(fresh.__dict__)
        self._version = version + 1

    async def close(self) -> None:
        self.close_sync()

    def close_sync(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop_readers()
        if self._write_error is None:
            try:  # one synced write: everything written before it survives a power cut
                self._db.put(K_SEQ, _SEQ.pack(self._seq), sync=True)
            except (plyvel.Error, RuntimeError) as exc:
                log.error("the last write to the pool failed: %s", _error_text(exc))
        self._db.close()

    def __enter__(self) -> LevelDBPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_sync()


# ---- module helpers -----------------------------------------------------------------------------
def _counter_record(key: bytes, raw: bytes | None) -> dict[str, int]:
    """A counters record's fields; an unreadable one counts as empty (with a warning): the
    report loses that minute or host, the crawl loses nothing."""
    if raw is None:
        return {}
    try:
        data = snapshot_file.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        return {str(k): int(v) for k, v in data.items() if isinstance(v, int)}
    except (ValueError, UnicodeDecodeError) as exc:
        log.warning("unreadable counters record %r in the pool: %s", key[:80], exc)
        return {}


def _lookup(table: dict[str, _T], url: str) -> _T | None:
    """``table[url]``, trying the canonical form of ``url`` too (users type URLs)."""
    found = table.get(url)
    if found is None:
        try:
            found = table.get(canonicalize(url)[0])
        except InvalidURLError:
            return None
    return found


#: What a LevelDB directory may hold before a database is made in it: its lock and info log.
_NOT_DATA = frozenset({"LOCK", "LOG", "LOG.old"})


def database_state(path: Path) -> str:
    """``"new"`` (missing, or nothing but a lock and an info log), ``"ok"`` (has ``CURRENT``)
    or ``"damaged"`` (files but no ``CURRENT``: never make a database over them)."""
    try:
        names = {p.name for p in path.iterdir()}
    except FileNotFoundError:
        return "new"
    except NotADirectoryError:
        return "damaged"
    if not names - _NOT_DATA:
        return "new"
    return "ok" if "CURRENT" in names else "damaged"


def _error_text(exc: BaseException) -> str:
    """plyvel puts LevelDB's message in ``args[0]`` as bytes."""
    if exc.args and isinstance(exc.args[0], bytes):
        return exc.args[0].decode("utf-8", "replace")
    return str(exc)


def _repair_hint(root: Path) -> str:
    return (
        f"; its files were left untouched. `crawler-gui repair {root}` recovers what can be "
        "read into a copy"
    )


def _open_db(path: Path, *, create: bool = True) -> Any:
    root = path.parent
    state = database_state(path)
    if state == "damaged":
        raise PoolCorruptError(
            f"the pool {root} is damaged: {path.name}/CURRENT is missing{_repair_hint(root)}"
        )
    if state == "new" and not create:
        raise PoolCorruptError(f"{root} holds no crawler-gui pool ({path.name}/ is missing)")
    try:
        return plyvel.DB(
            str(path),
            create_if_missing=state == "new",
            # Corruption (a damaged write-ahead log, a bad table block) is an error, never
            # dropped in silence.
            paranoid_checks=True,
            bloom_filter_bits=10,
            lru_cache_size=8 * 1024 * 1024,
            write_buffer_size=16 * 1024 * 1024,
            compression="snappy",
        )
    except plyvel.IOError as exc:
        text = _error_text(exc)
        if "lock" in text.lower():
            raise PoolInUseError(
                f"the pool {root} is already open in another crawler-gui process "
                "(or another window); close that one first"
            ) from exc
        if is_disk_full(exc):
            raise DiskFullError(f"cannot open the pool {root}: the disk is full ({text})") from exc
        raise PoolCorruptError(f"cannot open the pool {root}: {text}{_repair_hint(root)}") from exc
    except plyvel.CorruptionError as exc:
        raise PoolCorruptError(
            f"the pool {root} is corrupt: {_error_text(exc)}{_repair_hint(root)}"
        ) from exc
    except plyvel.Error as exc:
        raise PoolCorruptError(
            f"cannot open the pool {root}: {_error_text(exc)}{_repair_hint(root)}"
        ) from exc


def _log_progress(what: str, seen: int, moved: int) -> None:
    log.info("pool migration: %s: %d seen, %d moved", what, seen, moved)


def _recover_interrupted_load(root: Path) -> None:
    """A crash during a snapshot load's directory swap leaves one of these states."""
    live, old, staging = (
        root / DB_DIRNAME,
        root / (DB_DIRNAME + ".old"),
        root / (DB_DIRNAME + ".loading"),
    )
    if not live.exists() and old.exists():
        if staging.exists() and (staging / "CURRENT").exists() and (staging / ".complete").exists():
            staging.rename(live)
        else:
            old.rename(live)
    if old.exists() and live.exists():
        shutil.rmtree(old, ignore_errors=True)
    if staging.exists():
        shutil.rmtree(staging, ignore_errors=True)


def _export_records(
    snap: Any, leases: set[str], stop: threading.Event | None = None
) -> Generator[dict[str, Any], None, None]:
    """Every record of a pool as snapshot dicts, from a consistent LevelDB snapshot. Raises
    SnapshotError as soon as ``stop`` is set (the pool is closing, the save was cancelled)."""

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    halt = SnapshotError("the snapshot save was stopped")
    with snap.iterator(prefix=P_HOST) as it:
        for key, raw in it:
            if stopped():
                raise halt
            h = _Host(key[len(P_HOST) :].decode())
            h.unpack(raw)
            if h.min_delay or h.backoff_until or h.paused or h.user_delay >= 0:
                yield snapshot_file.host_record(
                    h.name, h.min_delay, h.backoff_until, h.paused, h.user_delay
                )
    with snap.iterator(prefix=P_HUB) as it:
        for key, raw in it:
            if stopped():
                raise halt
            rec = snapshot_file.loads(raw)
            yield {
                "t": "hub",
                "url": key[len(P_HUB) :].decode(),
                "span": rec["span"],
                "last_refresh": rec["last"],
                "last_result": rec["result"],
                "due": rec["due"],
                **{k: rec[k] for k in ("crashes", "fails", "parked", "rate") if rec.get(k)},
            }
    with snap.iterator(prefix=P_RETRY) as it:
        retry = {key[len(P_RETRY) :].decode(): snapshot_file.loads(raw) for key, raw in it}
    with snap.iterator(prefix=P_URL) as it:
        for key, raw in it:
            if stopped():
                raise halt
            url = key[len(P_URL) :].decode()
            state, depth, attempts, seq, t, extra = _read_urec(raw)
            out: dict[str, Any] = {
                "t": "url",
                "url": url,
                "state": STATE_NAMES[state],
                "depth": depth,
                "attempts": attempts,
                "seq": seq,
                "time": t,
            }
            if state == X:
                out["target"] = extra
            elif referrer_of(extra):
                out["referrer"] = referrer_of(extra)
            if state == R and url in retry:
                out["next_try"] = retry[url]["n"]
                out["last_error"] = unpack_retry(str(retry[url]["e"])).message
            if url in leases:
                out["state"] = "waiting"  # in flight when saved: fetched again after a load
            yield out


def _build_staging(src: Path, staging: Path) -> int:
    """Validate a snapshot file and write it into a fresh database at ``staging``."""
    if staging.exists():
        shutil.rmtree(staging)
    db = plyvel.DB(
        str(staging),
        create_if_missing=True,
        error_if_exists=True,
        bloom_filter_bits=10,
        compression="snappy",
    )
    ok = False
    try:
        hosts: dict[str, _Host] = {}
        max_seq = 0
        count = 0
        wb = db.write_batch()
        pending_ops = 0
        in_batch: set[str] = set()  # URLs of the unwritten batch; earlier ones are in the db
        for rec in read_records(src):
            count += 1
            if isinstance(rec, UrlRecord):
                url, hostname, state = rec.url, rec.host, rec.state.encode()
                depth, attempts, seq, extra = rec.depth, rec.attempts, rec.seq, rec.extra
                max_seq = max(max_seq, seq)
                h = hosts.get(hostname) or hosts.setdefault(hostname, _Host(hostname))
                ukey = P_URL + url.encode()
                if url in in_batch or db.get(ukey) is not None:
                    raise SnapshotFormatError(f"the snapshot holds {url} twice")
                in_batch.add(url)
                wb.put(ukey, _urec(state, depth, attempts, seq, rec.time, extra))
                if state == W:
                    wb.put(_qkey(hostname, depth, seq), _qval(url, attempts, extra))
                    h.waiting += 1
                elif state == D:
                    h.done += 1
                elif state == F:
                    h.failed += 1
                elif state == X:
                    h.redirected += 1
                else:
                    h.retrying += 1
                    wb.put(
                        P_RETRY + url.encode(),
                        snapshot_file.dumps(
                            {"a": attempts, "e": rec.last_error, "n": rec.next_try}
                        ),
                    )
            elif isinstance(rec, HubRecord):
                hosts.setdefault(rec.host, _Host(rec.host))
                hub = _Hub(rec.url, rec.host, rec.span)
                hub.last_refresh = rec.last_refresh
                hub.last_result = rec.last_result
                hub.due = rec.due
                hub.crashes, hub.fails, hub.parked, hub.rate = (
                    rec.crashes,
                    rec.fails,
                    rec.parked,
                    rec.rate,
                )
                wb.put(P_HUB + rec.url.encode(), snapshot_file.dumps(hub.to_json()))
            elif isinstance(rec, HostRecord):
                h = hosts.get(rec.host) or hosts.setdefault(rec.host, _Host(rec.host))
                h.min_delay = rec.min_delay
                h.backoff_until = rec.backoff_until
                h.paused, h.user_delay = rec.paused, rec.user_delay
            # (a ScopeRecord is the crawl's, not the pool's: kept by the caller)
            pending_ops += 1
            if pending_ops >= 20000:
                wb.write()
                wb = db.write_batch()
                pending_ops = 0
                in_batch.clear()
        for h in hosts.values():
            wb.put(P_HOST + h.name.encode(), h.pack())
        wb.put(K_SEQ, _SEQ.pack(max_seq))
        wb.put(K_SCHEMA, str(SCHEMA_VERSION).encode())
        wb.write()
        # One synced write: LevelDB fsyncs its log, which holds everything not yet in its
        # (already synced) tables: the staged database is on the disk before the swap.
        db.put(K_SCHEMA, str(SCHEMA_VERSION).encode(), sync=True)
        ok = True
    except (KeyError, TypeError, ValueError, struct.error) as exc:
        if isinstance(exc, SnapshotFormatError):
            raise
        raise SnapshotFormatError(f"{src}: a record is malformed ({exc!r})") from exc
    finally:
        db.close()
        if not ok:
            shutil.rmtree(staging, ignore_errors=True)
    marker = staging / ".complete"
    with open(marker, "wb") as f:
        os.fsync(f.fileno())
    snapshot_file.fsync_dir(staging)
    return count


# ---- repair ------------------------------------------------------------------------------------
@dataclass
class RepairReport:
    """What ``repair_pool`` recovered and what it lost (``crawler-gui repair``)."""

    output: Path
    #: URLs recovered, by state name.
    urls: Counter[str] = field(default_factory=Counter)
    hubs: int = 0
    #: What the pool's own counters claimed before the repair, by state name.
    claimed: Counter[str] = field(default_factory=Counter)
    #: Records dropped because they could not be read or pointed nowhere, by kind.
    dropped: Counter[str] = field(default_factory=Counter)
    #: Fixes made to keep the pool consistent, by kind.
    fixed: Counter[str] = field(default_factory=Counter)
    #: Damaged files LevelDB's repair set aside (in ``<db>/lost/``), per database.
    lost_files: dict[str, int] = field(default_factory=dict)
    pages: int | None = None

    def lines(self) -> list[str]:
        out = [f"repaired copy: {self.output}"]
        names = ("waiting", "done", "failed", "retrying", "redirected")
        got = ", ".join(f"{self.urls[n]:,} {n}" for n in names)
        out.append(f"recovered: {sum(self.urls.values()):,} URLs ({got}), {self.hubs:,} hubs")
        if self.pages is not None:
            out.append(f"page store: {self.pages:,} page records")
        lost = {n: self.claimed[n] - self.urls[n] for n in names if self.claimed[n] > self.urls[n]}
        if lost:
            out.append(
                "lost (the pool's counters named more): "
                + ", ".join(f"{v:,} {n}" for n, v in lost.items())
            )
        for db, n in self.lost_files.items():
            if n:
                out.append(f"{db}: {n} damaged table file(s) set aside in {db}/lost/")
        if self.dropped:
            out.append(
                "dropped records: "
                + ", ".join(f"{v:,} {k}" for k, v in sorted(self.dropped.items()))
            )
        if self.fixed:
            out.append("fixed: " + ", ".join(f"{v:,} {k}" for k, v in sorted(self.fixed.items())))
        if not lost and not self.dropped and not any(self.lost_files.values()):
            out.append("nothing was lost")
        return out


def repair_pool(src: str | Path, dest: str | Path) -> RepairReport:
    """Repair a copy of the pool ``src`` into ``dest`` (which must not exist); ``src`` is
    only read. LevelDB's repair (``plyvel.repair_db``) runs on the copy, then the pool's
    invariants are checked and restored: host counters match the URL records, every waiting
    URL has its queue entry and nothing else does, every retrying URL its retry record,
    leases go back to waiting (no attempt counted), unreadable records are dropped."""
    src, dest = Path(src), Path(dest)
    if dest.exists():
        raise PoolError(f"{dest} exists already: give another --output folder")
    if not (src / DB_DIRNAME).is_dir():
        raise PoolError(f"{src} is not a crawler-gui pool directory (no {DB_DIRNAME}/ inside)")
    try:
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("LOCK"))
    except OSError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        if is_disk_full(exc):
            raise DiskFullError(f"cannot copy {src} to {dest}: the disk is full") from exc
        raise PoolError(f"cannot copy {src} to {dest}: {exc}") from exc
    report = RepairReport(dest)
    for name in (DB_DIRNAME, "pages"):
        folder = dest / name
        if not folder.is_dir():
            continue
        try:
            plyvel.repair_db(str(folder), paranoid_checks=False)
        except plyvel.Error as exc:
            raise PoolCorruptError(f"LevelDB cannot repair {folder}: {_error_text(exc)}") from exc
        lost = folder / "lost"  # where LevelDB's repair puts what it could not use
        report.lost_files[name] = (
            sum(1 for p in lost.iterdir() if p.suffix in (".ldb", ".sst")) if lost.is_dir() else 0
        )
    db = plyvel.DB(str(dest / DB_DIRNAME), paranoid_checks=True)
    try:
        # An older pool's keys are moved to the current URL form first (its schema is raised
        # below); on a current pool this moves nothing.
        moved = leveldb_migrate.migrate_keys(db)
        if moved:
            report.fixed["keys moved to the current URL form"] += moved
        db.delete(leveldb_migrate.K_MIGRATING)
        _restore_invariants(db, report)
    finally:
        db.close()
    if (dest / "pages").is_dir():
        pages = plyvel.DB(str(dest / "pages"))
        try:
            report.pages = sum(1 for _ in pages.iterator(prefix=b"page/", include_value=False))
        finally:
            pages.close()
    return report


def _restore_invariants(db: Any, report: RepairReport) -> None:
    hosts: dict[str, _Host] = {}
    for key, raw in db.iterator(prefix=P_HOST):
        try:
            h = _Host(key[len(P_HOST) :].decode())
            h.unpack(raw)
        except (struct.error, UnicodeDecodeError):
            report.dropped["host records"] += 1
            db.delete(key)
            continue
        for name in ("waiting", "done", "failed", "retrying", "redirected"):
            report.claimed[name] += getattr(h, name)
        h.waiting = h.done = h.failed = h.retrying = h.redirected = 0
        hosts[h.name] = h
    wb = db.write_batch()
    for key in db.iterator(prefix=P_QUEUE, include_value=False):  # rebuilt from the URLs
        wb.delete(key)
    for key in db.iterator(prefix=P_LEASE, include_value=False):
        report.fixed["leases put back to waiting"] += 1
        wb.delete(key)
    retries = {}
    for key, raw in db.iterator(prefix=P_RETRY):
        try:
            rec = snapshot_file.loads(raw)
            retries[key[len(P_RETRY) :].decode()] = (int(rec["a"]), float(rec["n"]))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            report.dropped["retry records"] += 1
            wb.delete(key)
    wb.write()
    max_seq = 0
    wb = db.write_batch()
    for key, raw in db.iterator(prefix=P_URL):
        try:
            url = key[len(P_URL) :].decode()
            state, depth, attempts, seq, _t, extra = _read_urec(raw)
            hostname = host_of(url)
            name = STATE_NAMES[state]
        except (struct.error, UnicodeDecodeError, KeyError, ValueError, InvalidURLError):
            report.dropped["URL records"] += 1
            wb.delete(key)
            continue
        max_seq = max(max_seq, seq)
        h = hosts.get(hostname) or hosts.setdefault(hostname, _Host(hostname))
        report.urls[name] += 1
        if state == W:
            h.waiting += 1
            wb.put(_qkey(hostname, depth, seq), _qval(url, attempts, extra))
        elif state == D:
            h.done += 1
        elif state == F:
            h.failed += 1
        elif state == X:
            h.redirected += 1
        else:
            h.retrying += 1
            if url not in retries:
                report.fixed["retry records made again"] += 1
                wb.put(
                    P_RETRY + url.encode(),
                    snapshot_file.dumps({"a": attempts, "e": "repaired", "n": 0.0}),
                )
        if state == R:
            retries.pop(url, None)
    for url in retries:  # a retry record of a URL that is not retrying
        report.dropped["stray retry records"] += 1
        wb.delete(P_RETRY + url.encode())
    for key, raw in db.iterator(prefix=P_HUB):
        try:
            rec = snapshot_file.loads(raw)
            if not float(rec["span"]) > 0:
                raise ValueError("span")
            float(rec["due"])
            host_of(key[len(P_HUB) :].decode())
            report.hubs += 1
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, InvalidURLError):
            report.dropped["hub records"] += 1
            wb.delete(key)
    for h in hosts.values():
        wb.put(P_HOST + h.name.encode(), h.pack())
    raw_seq = db.get(K_SEQ)
    try:
        old_seq = _SEQ.unpack(raw_seq)[0] if raw_seq else 0
    except struct.error:
        old_seq = 0
    if old_seq < max_seq:
        report.fixed["sequence counter"] += 1
    wb.put(K_SEQ, _SEQ.pack(max(old_seq, max_seq)))
    wb.put(K_SCHEMA, str(SCHEMA_VERSION).encode())
    wb.write()
    db.put(K_SCHEMA, str(SCHEMA_VERSION).encode(), sync=True)


__all__ = ["SCHEMA_VERSION", "ErrorKind", "LevelDBPool", "RepairReport", "repair_pool"]
