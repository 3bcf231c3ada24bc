"""What the LevelDB pool shows: rows for the window and the reports, read from the scheduler's
memory (:func:`pool_snapshot`) or from a consistent view of the database in a worker thread
(the other functions; each takes the view and the flag that asks it to stop). Nothing here
changes the pool.
"""

from __future__ import annotations

import heapq
import logging
import threading
from collections.abc import Generator, Iterable
from typing import Any

from crawler_gui.core import snapshot_file
from crawler_gui.core.counters import Counters, merge_fields
from crawler_gui.core.frontier import (
    AddRequest,
    FailedRow,
    HostRow,
    HubRow,
    Lease,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    RetryRow,
    WaitingRow,
    hub_learned,
    outcome_record,
    referrer_of,
    retry_row,
    unpack_failure,
)
from crawler_gui.core.leveldb.layout import (
    K_COUNTER_DELAYS,
    P_COUNTER_HOST,
    P_COUNTER_MINUTE,
    P_REFUSAL,
    P_URL,
    QSUFFIX,
    SEQ,
    F,
    Host,
    R,
    Retry,
    read_queue_value,
    read_url_record,
)
from crawler_gui.core.leveldb.scheduler import Scheduler

log = logging.getLogger(__name__)


class SnapshotRows:
    """The lease and retry rows the last snapshot gave, by URL, each with what it was made
    from. A lease or a retry that did not change since keeps its row: a big crawl has 1,000
    leases and up to 1,000 shown retries, of which a refresh sees a few dozen change, and
    making every row again at every refresh took milliseconds of the loop (and the garbage
    collections of the objects made)."""

    __slots__ = ("pending", "retrying")

    def __init__(self) -> None:
        self.pending: dict[str, tuple[Lease, PendingRow]] = {}
        #: url -> (the retry, its packed error, the row)
        self.retrying: dict[str, tuple[Retry, str, RetryRow]] = {}

    def pending_rows(self, sched: Scheduler) -> tuple[PendingRow, ...]:
        old: dict[str, tuple[Lease, PendingRow]] = self.pending
        new: dict[str, tuple[Lease, PendingRow]] = {}
        for url, (lease, *_rest) in sched.leases.items():
            hit = old.get(url)
            if hit is None or hit[0] is not lease:  # a lease is immutable: same one, same row
                row = PendingRow(
                    lease.url, lease.host, lease.depth, lease.is_hub, lease.started, lease.expires
                )
                hit = (lease, row)
            new[url] = hit
        self.pending = new
        return tuple([hit[1] for hit in new.values()])

    def retry_rows(self, retries: list[Retry]) -> tuple[RetryRow, ...]:
        old: dict[str, tuple[Retry, str, RetryRow]] = self.retrying
        new: dict[str, tuple[Retry, str, RetryRow]] = {}
        for r in retries:
            hit = old.get(r.url)
            if (  # a retry record changes in place (retry now, another failure): compare
                hit is None
                or hit[0] is not r
                or hit[1] != r.last_error
                or hit[2].next_try != r.next_try
                or hit[2].attempts != r.attempts
                or hit[2].depth != r.depth
            ):
                row = retry_row(r.url, r.host, r.depth, r.attempts, r.last_error, r.next_try)
                hit = (r, r.last_error, row)
            new[r.url] = hit
        self.retrying = new
        return tuple([hit[2] for hit in new.values()])


def pool_snapshot(
    sched: Scheduler,
    totals: PoolTotals,
    now: float,
    since: int | None,
    retry_limit: int,
    rows: SnapshotRows | None = None,
) -> PoolSnapshot:
    """The window's view of the pool (``Frontier.snapshot``), from memory only: the hosts
    changed after version ``since`` (all when None), the leases, the ``retry_limit`` soonest
    retries and the hubs. ``rows``: the rows of the last snapshot, to keep those of the leases
    and retries that did not change (updated here)."""
    if rows is None:
        rows = SnapshotRows()
    if since is None:
        hosts: Iterable[Host] = sched.hosts.values()
    else:
        hosts = [h for h in sched.hosts.values() if h.version > since]
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
    pending = rows.pending_rows(sched)
    soonest = heapq.nsmallest(retry_limit, sched.retries.values(), key=lambda r: r.next_try)
    retrying = rows.retry_rows(soonest)
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
        for hub in sched.hubs.values()
    )
    return PoolSnapshot(
        time=now,
        version=sched.version,
        totals=totals,
        hosts=host_rows,
        hosts_complete=since is None,
        pending=pending,
        retrying=retrying,
        hubs=hubs,
        next_due=sched.next_due(now),
    )


def outcome_records(snap: Any, sched: Scheduler) -> Generator[dict[str, Any], None, None]:
    """Every URL's outcome as an export record (``outcome_record``), from the database view
    ``snap`` (the retry details from memory)."""
    refusals = {
        key[len(P_REFUSAL) :].decode(): raw.decode() for key, raw in snap.iterator(prefix=P_REFUSAL)
    }
    for key, raw in snap.iterator(prefix=P_URL):
        url = key[len(P_URL) :].decode()
        state, depth, attempts, _seq, t, extra = read_url_record(raw)
        retry = sched.retries.get(url) if state == R else None
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


def waiting_rows(
    snap: Any, stop: threading.Event, prefix: bytes, skip: int, page_size: int
) -> tuple[WaitingRow, ...]:
    """A page of a host's queue (``prefix``): ``page_size`` rows after the first ``skip``."""
    rows: list[WaitingRow] = []
    with snap.iterator(prefix=prefix) as it:
        for n, (key, raw) in enumerate(it):
            if n < skip:
                continue
            if len(rows) >= page_size or stop.is_set():
                break
            url, attempts, ref = read_queue_value(raw)
            depth, _seq = QSUFFIX.unpack(key[-QSUFFIX.size :])
            urec = snap.get(P_URL + url.encode())
            added = read_url_record(urec)[4] if urec is not None else 0.0
            rows.append(WaitingRow(url, depth, added, attempts, ref))
    return tuple(rows)


def host_url_prefixes(host: str) -> tuple[bytes, ...]:
    """The key prefixes of a host's URL records."""
    return tuple(P_URL + f"{scheme}://{host}/".encode() for scheme in ("http", "https"))


def failed_rows(
    snap: Any, stop: threading.Event, prefixes: tuple[bytes, ...], limit: int
) -> list[FailedRow]:
    """Up to ``limit`` failed URLs of a host (``host_url_prefixes``)."""
    rows: list[FailedRow] = []
    for prefix in prefixes:
        with snap.iterator(prefix=prefix) as it:
            for key, raw in it:
                if len(rows) >= limit or stop.is_set():
                    return rows
                if raw[:1] != F:
                    continue
                _s, depth, attempts, _seq, t, extra = read_url_record(raw)
                d = unpack_failure(extra)
                refused = snap.get(P_REFUSAL + key[len(P_URL) :]) is not None
                url = key[len(P_URL) :].decode()
                rows.append(
                    FailedRow(url, depth, attempts, t, d.status, d.reason, d.message, refused)
                )
    return rows


def failed_requests(
    snap: Any, stop: threading.Event, prefixes: tuple[bytes, ...]
) -> list[AddRequest]:
    """The failed URLs of a host that were not refused by policy, as adds (``retry_failed``)."""
    wanted: list[AddRequest] = []
    for prefix in prefixes:
        with snap.iterator(prefix=prefix) as it:
            for key, raw in it:
                if stop.is_set():
                    return wanted
                if raw[:1] != F or snap.get(P_REFUSAL + key[len(P_URL) :]) is not None:
                    continue
                _s, depth, _a, _seq, _t, extra = read_url_record(raw)
                url = key[len(P_URL) :].decode()
                wanted.append(AddRequest(url, depth, referrer_of(extra)))
    return wanted


# ---- per-minute counters (core/counters.py) ---------------------------------------------------
def merged_counters(db: Any, delta: Counters) -> list[tuple[bytes, bytes]]:
    """The counter records ``delta`` touches, read, added to and encoded: (key, value) each."""
    out: list[tuple[bytes, bytes]] = []

    def merged(key: bytes, fields: dict[str, int]) -> None:
        held = counter_record(key, db.get(key))
        merge_fields(held, fields)
        out.append((key, snapshot_file.dumps(held)))

    for minute, fields in delta.minutes.items():
        merged(P_COUNTER_MINUTE + SEQ.pack(max(0, minute)), fields)
    for host, fields in delta.hosts.items():
        merged(P_COUNTER_HOST + host.encode(), fields)
    if delta.delays:
        merged(K_COUNTER_DELAYS, delta.delays)
    return out


def read_counters(db: Any) -> Counters:
    """All the counters the pool holds."""
    out = Counters()
    for key, raw in db.iterator(prefix=P_COUNTER_MINUTE):
        suffix = key[len(P_COUNTER_MINUTE) :]
        if len(suffix) == SEQ.size:
            out.minutes[SEQ.unpack(suffix)[0]] = counter_record(key, raw)
    for key, raw in db.iterator(prefix=P_COUNTER_HOST):
        host = key[len(P_COUNTER_HOST) :].decode("utf-8", "replace")
        out.hosts[host] = counter_record(key, raw)
    out.delays = counter_record(K_COUNTER_DELAYS, db.get(K_COUNTER_DELAYS))
    return out


def counter_record(key: bytes, raw: bytes | None) -> dict[str, int]:
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
