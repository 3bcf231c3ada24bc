"""The durable URL pool on LevelDB (plyvel): the seed's UrlPool and UrlDB in one crash-safe store.

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
import heapq
import logging
import math
import shutil
import struct
from bisect import insort
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import plyvel

from crawler_gui.core import snapshot_file
from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.frontier import (
    AddReport,
    AddRequest,
    HostRow,
    HubRow,
    HubSpec,
    Lease,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    Refusal,
    RetryRow,
    outcome_record,
    pack_failure,
    referrer_of,
)
from crawler_gui.core.policy import ErrorKind, FetchResult, Outcome, PoolConfig, classify
from crawler_gui.core.urls import canonicalize, host_of
from crawler_gui.errors import (
    InvalidURLError,
    PoolBusyError,
    PoolClosedError,
    PoolCorruptError,
    PoolInUseError,
    PoolVersionError,
    SnapshotFormatError,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

SCHEMA_VERSION = 1
DB_DIRNAME = "frontier"

# ---- key layout (docs/storage.md) -------------------------------------------------------------
K_SCHEMA = b"m/schema_version"
K_SEQ = b"m/seq"
P_URL = b"u/"  # u/<url> -> URL record
P_QUEUE = b"q/"  # q/<host>\x00<depth u16><seq u64> -> url
P_LEASE = b"l/"  # l/<url> -> lease record
P_RETRY = b"r/"  # r/<url> -> retry record (JSON)
P_HUB = b"h/"  # h/<url> -> hub record (JSON)
P_HOST = b"s/"  # s/<host> -> host record
P_REFUSAL = b"n/"  # n/<url> -> reason TAB redirect target (a URL refused by policy; also F)

# URL record: state, depth, attempts, seq, time; then the referrer (or redirect target), UTF-8.
_UREC = struct.Struct(">cHHQd")
# Lease record: started, expires, depth, seq, is_hub.
_LREC = struct.Struct(">ddHQB")
# Host record: waiting, done, failed, retrying, redirected, min_delay, backoff_until, next_allowed.
_HREC = struct.Struct(">QQQQQddd")
_QSUFFIX = struct.Struct(">HQ")
_SEQ = struct.Struct(">Q")

W, D, F, X, R = b"W", b"D", b"F", b"X", b"R"  # waiting, done, failed, redirected, retrying
STATE_NAMES = {W: "waiting", D: "done", F: "failed", X: "redirected", R: "retrying"}
STATE_CODES = {v: k for k, v in STATE_NAMES.items()}

READ_AHEAD = 16
CHUNK = 5000
#: URLs per write batch of ``add_many``, yielding to the loop in between: about 5 ms each (a
#: page with 300,000 links must not freeze the window for the seconds they take in all).
ADD_CHUNK = 500


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
        "backoff_until",
        "buf",
        "buf_complete",
        "cursor",
        "delay",
        "done",
        "failed",
        "in_flight",
        "last_status",
        "min_delay",
        "name",
        "next_allowed",
        "prefix",
        "queued",
        "redirected",
        "retrying",
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
        ) = _HREC.unpack(raw)
        self.buf_complete = self.waiting == 0

    def allowed_at(self) -> float:
        return max(self.next_allowed, self.backoff_until)


class _Hub:
    __slots__ = ("due", "host", "in_flight", "last_refresh", "last_result", "span", "url")

    def __init__(self, url: str, host: str, span: float) -> None:
        self.url = url
        self.host = host
        self.span = span
        self.last_refresh = 0.0
        self.last_result = ""
        self.due = 0.0
        self.in_flight = False

    def to_json(self) -> dict[str, Any]:
        return {
            "span": self.span,
            "last": self.last_refresh,
            "result": self.last_result,
            "due": self.due,
        }


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


class LevelDBPool:
    """A durable URL pool in one directory. Implements the ``Frontier`` interface."""

    #: ``is_known`` is an in-process lookup the engine may call on the event loop.
    cheap_is_known = True

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
        self._seq = 0
        self._version = 1
        self._refused: Counter[str] = Counter()
        self._overflow = 0
        self._t_waiting = 0
        self._t_done = 0
        self._t_failed = 0
        self._t_retrying = 0
        self._t_redirected = 0
        self._t_refused = 0

    # ---- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path, config: PoolConfig | None = None, clock: Clock | None = None
    ) -> LevelDBPool:
        """Open (or create) the pool in directory ``path``.

        Raises PoolInUseError if another process has it open, PoolCorruptError if the files are
        not a crawler-gui pool, PoolVersionError if they were written by a newer version.
        """
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        _recover_interrupted_load(root)
        db = _open_db(root / DB_DIRNAME)
        pool = cls(root, db, config or PoolConfig(), clock or SystemClock())
        try:
            pool._load()
        except BaseException:
            db.close()
            raise
        return pool

    @classmethod
    async def open_async(
        cls, path: str | Path, config: PoolConfig | None = None, clock: Clock | None = None
    ) -> LevelDBPool:
        return await asyncio.to_thread(cls.open, path, config, clock)

    def _load(self) -> None:
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
        raw_seq = db.get(K_SEQ)
        self._seq = _SEQ.unpack(raw_seq)[0] if raw_seq else 0
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
                self._hubs[url] = hub
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
        if leases:
            self._reclaim_dead_leases(leases)
        now = self.clock.now()
        for h in self._hosts.values():
            self._schedule(h, now)
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

    def _reclaim_dead_leases(self, leases: list[tuple[bytes, bytes]]) -> None:
        """Leases found at open belong to a process that died: each counts as an attempt."""
        now = self.clock.now()
        with self._db.write_batch(transaction=True) as wb:
            dirty: dict[_Host, None] = {}
            for key, raw in leases:
                url = key[len(P_LEASE) :].decode()
                _started, _expires, depth, seq, is_hub = _LREC.unpack(raw)
                wb.delete(key)
                if is_hub:
                    hub = self._hubs.get(url)
                    if hub is not None:
                        hub.due = now
                        heapq.heappush(self._hub_heap, (now, url))
                        wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
                    continue
                h = self._host(host_of(url))
                urec = self._db.get(P_URL + url.encode())
                attempts, ref = _read_urec(urec)[2::3] if urec is not None else (0, None)
                self._requeue_or_fail(wb, h, url, depth, seq, attempts, ref, now)
                dirty[h] = None
            for h in dirty:
                wb.put(P_HOST + h.name.encode(), h.pack())
        log.warning("reclaimed %d leases left by a process that stopped", len(leases))

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

    # ---- helpers ------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if self._loading:
            raise PoolBusyError("a snapshot is being loaded into the pool; try again shortly")

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
        if h.queued or h.waiting <= 0 or h.in_flight >= self.config.politeness.max_in_flight:
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

    def add_many_sync(
        self, items: Iterable[AddRequest | str], *, always: bool = False
    ) -> AddReport:
        """Add URLs in one write batch (the body of ``add_many``)."""
        self._check_open()
        report = AddReport()
        now = self.clock.now()
        db_get = self._db.get
        cfg = self.config
        max_depth = cfg.max_depth
        cap = cfg.max_per_host
        max_len = cfg.max_url_length
        batch: dict[str, None] = {}
        dirty: dict[_Host, None] = {}
        wb = self._db.write_batch(transaction=True, sync=cfg.sync)
        seq = self._seq
        for item in items:
            if isinstance(item, str):
                raw, depth, referrer = item, 0, None
            else:
                raw, depth, referrer = item.url, item.depth, item.referrer
            try:
                url, hostname = canonicalize(raw, max_length=max_len)
            except InvalidURLError as exc:
                self._refused[exc.reason] += 1
                report.refused.append((raw, exc.reason))
                continue
            if max_depth is not None and depth > max_depth:
                self._refused["too_deep"] += 1
                report.refused.append((raw, "too_deep"))
                continue
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
        wb = self._db.write_batch(transaction=True, sync=cfg.sync)
        dirty: dict[_Host, None] = {}
        # 1. hubs that are due, at most hub_percent of the batch
        hub_quota = math.ceil(count * max(0, min(100, hub_percent)) / 100)
        if hub_quota and self._hub_heap and self._hub_heap[0][0] <= now:
            skipped: list[tuple[float, str]] = []
            while self._hub_heap and len(out) < hub_quota and self._hub_heap[0][0] <= now:
                due, url = heapq.heappop(self._hub_heap)
                hub = self._hubs.get(url)
                if hub is None or hub.in_flight or hub.due != due:
                    continue  # stale heap entry
                h = self._host(hub.host)
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
            if h.waiting <= 0 or h.in_flight >= max_if:
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
        wb = self._db.write_batch(transaction=True, sync=self.config.sync)
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
                    hub.in_flight = False
                    hub.due = now
                    hub.last_result = "lease expired"
                    heapq.heappush(self._hub_heap, (now, url))
                    wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
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

    def iter_outcomes(self) -> Iterator[dict[str, Any]]:
        """Every URL's outcome as an export record (``outcome_record``), from a consistent
        view of the database; for ``export --records outcomes`` (the command line: this
        reads the whole pool, without yielding to any loop)."""
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
            reason, _tab, target = raw.decode().partition("\t")
            if not keep(Refusal(url, reason, target)):
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
        wb = self._db.write_batch(transaction=True, sync=self.config.sync)
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
        wb = self._db.write_batch(transaction=True, sync=self.config.sync)
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

    def set_status_many_sync(self, results: Sequence[tuple[str, FetchResult]]) -> None:
        self._check_open()
        now = self.clock.now()
        cfg = self.config
        wb = self._db.write_batch(transaction=True, sync=cfg.sync)
        put = wb.put
        dirty: dict[_Host, None] = {}
        follow: list[AddRequest] = []
        leases = self._leases
        hosts = self._hosts
        pol = cfg.politeness
        min_delay, factor, max_delay = pol.min_delay, pol.delay_factor, pol.max_delay
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
            delay = factor * result.elapsed
            delay = min(delay, max_delay)
            floor = min_delay if min_delay > h.min_delay else h.min_delay
            h.delay = delay if delay > floor else floor
            h.next_allowed = now + h.delay
            outcome = Outcome.DONE if status == 200 else classify(result)
            if outcome is Outcome.THROTTLED:
                h.backoff_until = max(
                    h.backoff_until, now + cfg.retry.throttle_delay(result.retry_after)
                )
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
                reason = result.error.value if result.error else "refused"
                wb.put(P_REFUSAL + ub, f"{reason}\t{result.redirect_to or ''}".encode())
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
                    if outcome is Outcome.THROTTLED:
                        delay = cfg.retry.throttle_delay(result.retry_after)
                    else:
                        delay = cfg.retry.delay(attempts)
                    r = _Retry(
                        url,
                        h.name,
                        lease.depth,
                        attempts,
                        result.message or result.label,
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
        hub.last_refresh = now
        hub.last_result = result.label
        if outcome in (Outcome.RETRY,) or (
            outcome is Outcome.FAILED and result.error is not None and result.error.retryable
        ):
            hub.due = now + min(hub.span, self.config.retry.delay(1))
        elif outcome is Outcome.THROTTLED:
            hub.due = now + max(hub.span, self.config.retry.throttle_delay(result.retry_after))
        else:
            hub.due = now + hub.span
        heapq.heappush(self._hub_heap, (hub.due, url))
        wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))

    # ---- hubs, retries, delays ----------------------------------------------------------------
    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        return self.set_hubs_sync(hubs)

    def set_hubs_sync(self, hubs: Sequence[HubSpec]) -> AddReport:
        self._check_open()
        report = AddReport()
        wanted: dict[str, tuple[str, float]] = {}
        for spec in hubs:
            try:
                url, hostname = canonicalize(spec.url, max_length=self.config.max_url_length)
            except InvalidURLError as exc:
                self._refused[exc.reason] += 1
                report.refused.append((spec.url, exc.reason))
                continue
            if not (spec.span > 0 and math.isfinite(spec.span)):
                report.refused.append((spec.url, "bad_span"))
                continue
            if url in wanted:
                report.duplicate += 1
                continue
            wanted[url] = (hostname, float(spec.span))
        wb = self._db.write_batch(transaction=True, sync=True)
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
                hub.span = span
                if hub.last_refresh:
                    hub.due = hub.last_refresh + span
                    heapq.heappush(self._hub_heap, (hub.due, url))
            wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
        wb.write()
        # Drop the heap entries of removed hubs (and stale ones) at once.
        self._hub_heap = [(h.due, u) for u, h in self._hubs.items() if not h.in_flight]
        heapq.heapify(self._hub_heap)
        self._version += 1
        return report

    def hubs(self) -> list[HubSpec]:
        return [HubSpec(h.url, h.span) for h in self._hubs.values()]

    async def refresh_hub(self, url: str) -> bool:
        self._check_open()
        hub = self._find_hub(url)
        if hub is None:
            return False
        if not hub.in_flight:
            hub.due = self.clock.now()
            heapq.heappush(self._hub_heap, (hub.due, hub.url))
            self._db.put(P_HUB + hub.url.encode(), snapshot_file.dumps(hub.to_json()))
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
        self._db.put(P_RETRY + r.url.encode(), r.to_json())
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
        with self._db.write_batch(transaction=True) as wb:
            wb.delete(P_RETRY + r.url.encode())
            wb.put(P_URL + r.url.encode(), _urec(F, r.depth, r.attempts, r.seq, now, r.referrer))
            wb.put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)
        return True

    async def set_delay(self, host: str, seconds: float) -> None:
        self._check_open()
        h = self._host(host)
        h.min_delay = max(0.0, float(seconds))
        self._db.put(P_HOST + h.name.encode(), h.pack())
        self._touch(h)

    def set_config(self, config: PoolConfig) -> None:
        """Change policy live (the settings dialog)."""
        self.config = config
        now = self.clock.now()
        for h in self._hosts.values():
            self._schedule(h, now)

    # ---- observing ----------------------------------------------------------------------------
    def totals(self) -> PoolTotals:
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
            RetryRow(r.url, r.host, r.depth, r.attempts, r.last_error, r.next_try) for r in soonest
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
            )
            for hub in self._hubs.values()
        )
        return PoolSnapshot(
            time=now,
            version=self._version,
            totals=self.totals(),
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
            if hub is not None and not hub.in_flight and hub.due == due:
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
    async def save_snapshot(self, path: str | Path) -> int:
        self._check_open()
        leases = {url for url, entry in self._leases.items() if not entry[0].is_hub}
        snap = self._db.snapshot()
        try:
            return await asyncio.to_thread(
                snapshot_file.write_snapshot, Path(path), _export_records(snap, leases)
            )
        finally:
            snap.close()

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
            self._db.close()
            live = self.path / DB_DIRNAME
            old = self.path / (DB_DIRNAME + ".old")
            live.rename(old)
            staging.rename(live)
            fresh = await asyncio.to_thread(LevelDBPool.open, self.path, self.config, self.clock)
            version = self._version
            self.__dict__.update(fresh.__dict__)
            self._version = version + 1
            await asyncio.to_thread(shutil.rmtree, old, True)
        finally:
            self._loading = False
        log.info("loaded %d records from snapshot %s", count, path)
        return count

    async def close(self) -> None:
        self.close_sync()

    def close_sync(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._db.close()

    def __enter__(self) -> LevelDBPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_sync()


# ---- module helpers -----------------------------------------------------------------------------
def _lookup(table: dict[str, _T], url: str) -> _T | None:
    """``table[url]``, trying the canonical form of ``url`` too (users type URLs)."""
    found = table.get(url)
    if found is None:
        try:
            found = table.get(canonicalize(url)[0])
        except InvalidURLError:
            return None
    return found


def _open_db(path: Path) -> Any:
    try:
        return plyvel.DB(
            str(path),
            create_if_missing=True,
            bloom_filter_bits=10,
            lru_cache_size=8 * 1024 * 1024,
            write_buffer_size=16 * 1024 * 1024,
            compression="snappy",
        )
    except plyvel.IOError as exc:
        text = str(exc)
        if "lock" in text.lower():
            raise PoolInUseError(
                f"the pool {path.parent} is already open in another crawler-gui process "
                "(or another window); close that one first"
            ) from exc
        raise PoolCorruptError(f"cannot open the pool {path.parent}: {text}") from exc
    except plyvel.CorruptionError as exc:
        raise PoolCorruptError(f"the pool {path.parent} is corrupt: {exc}") from exc
    except plyvel.Error as exc:
        raise PoolCorruptError(f"cannot open the pool {path.parent}: {exc}") from exc


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


def _export_records(snap: Any, leases: set[str]) -> Iterable[dict[str, Any]]:
    """Every record of a pool as snapshot dicts, from a consistent LevelDB snapshot."""
    for key, raw in snap.iterator(prefix=P_HOST):
        h = _Host(key[len(P_HOST) :].decode())
        h.unpack(raw)
        if h.min_delay or h.backoff_until:
            yield {
                "t": "host",
                "host": h.name,
                "min_delay": h.min_delay,
                "backoff_until": h.backoff_until,
            }
    for key, raw in snap.iterator(prefix=P_HUB):
        rec = snapshot_file.loads(raw)
        yield {
            "t": "hub",
            "url": key[len(P_HUB) :].decode(),
            "span": rec["span"],
            "last_refresh": rec["last"],
            "last_result": rec["result"],
            "due": rec["due"],
        }
    retry = {
        key[len(P_RETRY) :].decode(): snapshot_file.loads(raw)
        for key, raw in snap.iterator(prefix=P_RETRY)
    }
    for key, raw in snap.iterator(prefix=P_URL):
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
            out["last_error"] = retry[url]["e"]
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
        for rec in snapshot_file.read_snapshot(src):
            count += 1
            kind = rec["t"]
            if kind == "url":
                url, hostname = _valid_url(rec["url"])
                state = STATE_CODES.get(rec["state"])
                if state is None:
                    raise SnapshotFormatError(f"unknown URL state {rec['state']!r}")
                depth, attempts, seq = (_int(rec, "depth"), _int(rec, "attempts"), _int(rec, "seq"))
                t = _num(rec, "time")
                max_seq = max(max_seq, seq)
                h = hosts.get(hostname) or hosts.setdefault(hostname, _Host(hostname))
                extra = rec.get("target") if state == X else rec.get("referrer")
                if extra is not None and not isinstance(extra, str):
                    raise SnapshotFormatError("a referrer or target is not text")
                ukey = P_URL + url.encode()
                if url in in_batch or db.get(ukey) is not None:
                    raise SnapshotFormatError(f"the snapshot holds {url} twice")
                in_batch.add(url)
                wb.put(ukey, _urec(state, depth, attempts, seq, t, extra))
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
                            {
                                "a": attempts,
                                "e": str(rec.get("last_error", "")),
                                "n": _num(rec, "next_try"),
                            }
                        ),
                    )
            elif kind == "hub":
                url, hostname = _valid_url(rec["url"])
                span = _num(rec, "span")
                if span <= 0:
                    raise SnapshotFormatError(f"hub {url} has a span that is not positive")
                hosts.setdefault(hostname, _Host(hostname))
                wb.put(
                    P_HUB + url.encode(),
                    snapshot_file.dumps(
                        {
                            "span": span,
                            "last": _num(rec, "last_refresh"),
                            "result": str(rec.get("last_result", "")),
                            "due": _num(rec, "due"),
                        }
                    ),
                )
            elif kind == "host":
                name = rec["host"]
                if not isinstance(name, str) or not name:
                    raise SnapshotFormatError("a host record has no host")
                h = hosts.get(name) or hosts.setdefault(name, _Host(name))
                h.min_delay = _num(rec, "min_delay")
                h.backoff_until = _num(rec, "backoff_until")
            else:
                raise SnapshotFormatError(f"unknown record type {kind!r}")
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
        ok = True
    except (KeyError, TypeError, ValueError, struct.error) as exc:
        if isinstance(exc, SnapshotFormatError):
            raise
        raise SnapshotFormatError(f"{src}: a record is malformed ({exc!r})") from exc
    finally:
        db.close()
        if not ok:
            shutil.rmtree(staging, ignore_errors=True)
    (staging / ".complete").touch()
    return count


def _valid_url(value: object) -> tuple[str, str]:
    if not isinstance(value, str):
        raise SnapshotFormatError("a URL record holds no URL")
    try:
        return canonicalize(value)
    except InvalidURLError as exc:
        raise SnapshotFormatError(f"the snapshot holds an invalid URL: {exc}") from exc


def _int(rec: dict[str, Any], key: str) -> int:
    v = rec[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise SnapshotFormatError(f"field {key!r} must be a non-negative integer")
    return v


def _num(rec: dict[str, Any], key: str) -> float:
    v = rec[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise SnapshotFormatError(f"field {key!r} must be a number")
    return float(v)


__all__ = ["SCHEMA_VERSION", "ErrorKind", "LevelDBPool"]
