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

This module holds the pool's operations; the package's other modules hold its parts (see
``__init__.py``).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from crawler_gui.core import snapshot_file
from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import (
    AddReport,
    AddRequest,
    FailedRow,
    HubSpec,
    Lease,
    PoolSnapshot,
    PoolTotals,
    Refusal,
    WaitingPage,
    pack_failure,
    pack_retry,
    referrer_of,
)
from crawler_gui.core.leveldb import snapshot, views
from crawler_gui.core.leveldb.database import PoolDatabase
from crawler_gui.core.leveldb.layout import (
    K_SEQ,
    LREC,
    P_HOST,
    P_HUB,
    P_LEASE,
    P_QUEUE,
    P_REFUSAL,
    P_RETRY,
    P_URL,
    QSUFFIX,
    QVAL,
    SEQ,
    STATE_NAMES,
    D,
    F,
    Host,
    Hub,
    R,
    Retry,
    W,
    X,
    queue_key,
    queue_value,
    read_queue_value,
    read_url_record,
    url_record,
)
from crawler_gui.core.leveldb.scheduler import REPLAN_SECONDS
from crawler_gui.core.policy import FetchResult, Outcome, PoolConfig
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
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError, PoolClosedError

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: URLs read per worker-thread step of ``iter_outcomes``.
CHUNK = 5000
#: URLs per write batch of ``add_many``, yielding to the loop in between: about 5 ms each (a
#: page with 300,000 links must not freeze the window for the seconds they take in all).
ADD_CHUNK = 500
#: Waiting URLs dropped per write batch by ``forget_waiting`` (a few ms of the loop each).
FORGET_CHUNK = 1000


class LevelDBPool(PoolDatabase):
    """A durable URL pool in one directory. Implements the ``Frontier`` interface."""

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
        cap = cfg.max_per_host
        batch: dict[str, None] = {}
        dirty: dict[Host, None] = {}
        wb = self._batch()
        seq = self._seq
        for raw, url, hostname, depth, referrer in checked_adds(items, cfg, report, self._refused):
            if url in batch or url in self._sched.hubs or url in self._sched.leases:
                report.duplicate += 1
                continue
            ukey = P_URL + url.encode()
            old = db_get(ukey)
            h = self._sched.host(hostname)
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
            qkey = queue_key(hostname, depth, seq)
            qval = queue_value(url, 0, referrer)
            wb.put(ukey, url_record(W, depth, 0, seq, now, referrer))
            wb.put(qkey, qval)
            h.waiting += 1
            self._sched.buffer_insert(h, qkey, qval)
            dirty[h] = None
            report.added += 1
        if dirty:
            self._t_waiting += report.added
            self._seq = seq
            wb.put(K_SEQ, SEQ.pack(seq))
            self._settle(wb, dirty, now)
            wb.write()  # (nothing to write when every link was known: most pages' case)
        return report

    def _forget_state(self, wb: Any, h: Host, url: str, state: bytes) -> None:
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
            self._sched.retries.pop(url, None)
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
        wb = self._batch()
        dirty: dict[Host, None] = {}
        # 1. hubs that are due, at most hub_percent of the batch; one whose host cannot take
        # it now is held aside until the host can (``Scheduler.hold_hub``)
        sched = self._sched
        sched.release_held(now)
        hub_heap = sched.hub_heap
        hub_quota = math.ceil(count * max(0, min(100, hub_percent)) / 100)
        while hub_quota and hub_heap and len(out) < hub_quota and hub_heap[0][0] <= now:
            due, url = heapq.heappop(hub_heap)
            hub = sched.hubs.get(url)
            if hub is None or not sched.hub_waits(hub, due):
                continue  # stale heap entry
            h = sched.host(hub.host)
            if h.paused:
                continue  # back on the heap when the host is resumed
            if sched.hold_hub(due, url, h, now):
                continue
            hub.in_flight = True
            h.in_flight += 1
            lease = Lease(url, hub.host, 0, True, now, expires)
            sched.leases[url] = (lease, 0, 0, None)
            heapq.heappush(sched.lease_heap, (expires, url))
            wb.put(P_LEASE + url.encode(), LREC.pack(now, expires, 0, 0, 1))
            out.append(lease)
            sched.touch(h)
        # 2. one URL per ready host, hosts taking turns
        sleep = self._sched.sleep
        while sleep and sleep[0][0] <= now:
            _at, name = heapq.heappop(sleep)
            h = self._sched.hosts[name]
            if h.allowed_at() > now:  # moved later since it was pushed
                heapq.heappush(sleep, (h.allowed_at(), name))
                continue
            self._sched.ready.append(h)
        ready = self._sched.ready
        served: list[Host] = []
        leases = self._sched.leases
        lease_heap = self._sched.lease_heap
        delete, put = wb.delete, wb.put
        qsize = QSUFFIX.size
        while ready and len(out) < count:
            h = ready.popleft()
            h.queued = False
            if h.waiting <= 0 or h.in_flight >= max_if or h.paused:
                continue
            if h.next_allowed > now or h.backoff_until > now:  # a hub or a result moved it
                self._sched.schedule(h, now)
                continue
            if not h.buf:
                self._sched.buffer_refill(h, self._db)
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
            (attempts,) = QVAL.unpack_from(head, qsize)
            raw_url, sep, raw_ref = head[qsize + 2 :].partition(b"\x00")
            url = raw_url.decode()
            ref = raw_ref.decode() if sep else None
            depth, seq = QSUFFIX.unpack(suffix)
            delete(h.prefix + suffix)
            put(P_LEASE + raw_url, LREC.pack(now, expires, depth, seq, 0))
            h.waiting -= 1
            h.in_flight += 1
            lease = Lease(url, h.name, depth, False, now, expires, ref)
            leases[url] = (lease, seq, attempts, ref)
            heapq.heappush(lease_heap, (expires, url))
            out.append(lease)
            dirty[h] = None
            served.append(h)
        self._t_waiting -= len(served)
        # (a served host is scheduled again only if it may take more than one in flight)
        self._settle(wb, dirty, now)
        if out or dirty:
            wb.write()
        return out

    def _reclaim_expired(self, now: float) -> int:
        heap = self._sched.lease_heap
        if not heap or heap[0][0] > now:
            return 0
        n = 0
        wb = self._batch()
        dirty: dict[Host, None] = {}
        while heap and heap[0][0] <= now:
            expires, url = heapq.heappop(heap)
            entry = self._sched.leases.get(url)
            if entry is None or entry[0].expires != expires:
                continue
            lease, seq, attempts, ref = entry
            del self._sched.leases[url]
            wb.delete(P_LEASE + url.encode())
            h = self._sched.host(lease.host)
            h.in_flight -= 1
            if lease.is_hub:
                hub = self._sched.hubs.get(url)
                if hub is not None:
                    self._hub_lost(wb, hub, now, "lease expired")
            else:
                self._requeue_or_fail(wb, h, url, lease.depth, seq, attempts, ref, now)
            log.warning(
                "lease of %s expired after %.0f s; put back", url, self.config.pending_threshold
            )
            dirty[h] = None
            n += 1
        self._settle(wb, dirty, now)
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
            yield from views.outcome_records(snap, self._sched)

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
            _s, depth, _a, _seq, _t, extra = read_url_record(urec)
            wanted.append(AddRequest(url, depth, referrer_of(extra)))
        report = await self.add_many(wanted, always=True)
        return report.added

    async def release(self, urls: Sequence[str]) -> int:
        """Give leases back unfetched (a stop that cannot wait): each goes back to where it was
        in its queue, with no attempt counted. Returns how many were released."""
        self._check_open()
        now = self.clock.now()
        wb = self._batch()
        dirty: dict[Host, None] = {}
        n = 0
        for url in urls:
            entry = self._sched.leases.pop(url, None)
            if entry is None:
                continue
            lease, seq, attempts, ref = entry
            wb.delete(P_LEASE + url.encode())
            h = self._sched.hosts[lease.host]
            h.in_flight -= 1
            if lease.is_hub:
                hub = self._sched.hubs.get(url)
                if hub is not None:
                    hub.in_flight = False
                    heapq.heappush(self._sched.hub_heap, (hub.due, url))
            else:
                self._requeue_or_fail(wb, h, url, lease.depth, seq, attempts - 1, ref, now)
            dirty[h] = None
            n += 1
        self._settle(wb, dirty, now)
        wb.write()
        return n

    async def reclaim_expired(self) -> int:
        self._check_open()
        return self._reclaim_expired(self.clock.now())

    def _release_due_retries(self, now: float) -> None:
        heap = self._sched.retry_heap
        if not heap or heap[0][0] > now:
            return
        wb = self._batch()
        dirty: dict[Host, None] = {}
        while heap and heap[0][0] <= now:
            t, url = heapq.heappop(heap)
            r = self._sched.retries.get(url)
            if r is None or r.next_try != t:
                continue
            del self._sched.retries[url]
            h = self._sched.host(r.host)
            h.retrying -= 1
            self._t_retrying -= 1
            h.waiting += 1
            self._t_waiting += 1
            qkey = queue_key(h.name, r.depth, r.seq)
            qval = queue_value(url, r.attempts, r.referrer)
            wb.delete(P_RETRY + url.encode())
            wb.put(qkey, qval)
            wb.put(P_URL + url.encode(), url_record(W, r.depth, r.attempts, r.seq, now, r.referrer))
            self._sched.buffer_insert(h, qkey, qval)
            dirty[h] = None
        self._settle(wb, dirty, now)
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
        wb = self._batch()
        put = wb.put
        dirty: dict[Host, None] = {}
        follow: list[AddRequest] = []
        leases = self._sched.leases
        hosts = self._sched.hosts
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
                put(ukey, url_record(D, lease.depth, attempts, seq, now, ref))
                h.done += 1
                self._t_done += 1
                if result.final_url and result.final_url != url:
                    self._mark_seen(wb, result.final_url, lease.depth, url, now, dirty)
            elif outcome is Outcome.REDIRECTED:
                wb.put(ukey, url_record(X, lease.depth, attempts, seq, now, result.redirect_to))
                h.redirected += 1
                self._t_redirected += 1
                if result.redirect_to:
                    follow.append(AddRequest(result.redirect_to, lease.depth, url))
            elif outcome is Outcome.FAILED:
                wb.put(
                    ukey,
                    url_record(F, lease.depth, attempts + 1, seq, now, pack_failure(ref, result)),
                )
                h.failed += 1
                self._t_failed += 1
            elif outcome is Outcome.REFUSED:  # decided by policy: no attempt counted
                detail = pack_failure(ref, result)
                wb.put(ukey, url_record(F, lease.depth, attempts, seq, now, detail))
                wb.put(P_REFUSAL + ub, Refusal.pack(result).encode())
                h.failed += 1
                self._t_failed += 1
                self._t_refused += 1
            else:  # RETRY or THROTTLED
                attempts += 1
                if cfg.retry.gives_up(attempts):
                    wb.put(
                        ukey,
                        url_record(F, lease.depth, attempts, seq, now, pack_failure(ref, result)),
                    )
                    wb.delete(P_RETRY + url.encode())
                    h.failed += 1
                    self._t_failed += 1
                else:
                    delay = retry_delay(cfg.retry, outcome, attempts, result.retry_after)
                    r = Retry(
                        url,
                        h.name,
                        lease.depth,
                        attempts,
                        pack_retry(result, delay, outcome is Outcome.THROTTLED),
                        now + delay,
                        seq,
                        ref,
                    )
                    self._sched.retries[url] = r
                    heapq.heappush(self._sched.retry_heap, (r.next_try, url))
                    wb.put(ukey, url_record(R, lease.depth, attempts, seq, now, ref))
                    wb.put(P_RETRY + url.encode(), r.to_json())
                    h.retrying += 1
                    self._t_retrying += 1
        self._settle(wb, dirty, now)
        wb.write()
        self._sched.compact()
        if follow:
            self.add_many_sync(follow)

    def _adopt_late_result(self, wb: Any, url: str) -> tuple[Lease, int, int, str | None] | None:
        """A result arrived after its lease expired and the URL was put back: take it."""
        try:
            url, hostname = canonicalize(url)
        except InvalidURLError:
            return None
        raw = self._db.get(P_URL + url.encode())
        if raw is None or raw[:1] != W:
            return None
        _s, depth, attempts, seq, _t, ref = read_url_record(raw)
        h = self._sched.host(hostname)
        qkey = queue_key(hostname, depth, seq)
        wb.delete(qkey)
        h.buf = [e for e in h.buf if not e.startswith(qkey[-QSUFFIX.size :])]
        h.waiting -= 1
        self._t_waiting -= 1
        h.in_flight += 1
        now = self.clock.now()
        return Lease(url, hostname, depth, False, now, now, ref), seq, attempts, ref

    def _mark_seen(
        self, wb: Any, raw_url: str, depth: int, referrer: str, now: float, dirty: dict[Host, None]
    ) -> None:
        """The final URL of a followed redirect chain is done too (never fetched again)."""
        try:
            url, hostname = canonicalize(raw_url)
        except InvalidURLError:
            return
        ukey = P_URL + url.encode()
        old = self._db.get(ukey)
        h = self._sched.host(hostname)
        if old is not None:
            if old[:1] != W or url in self._sched.leases:
                return
            _s, d, a, seq, _t, ref = read_url_record(old)
            qkey = queue_key(hostname, d, seq)
            wb.delete(qkey)
            h.buf = [e for e in h.buf if not e.startswith(qkey[-QSUFFIX.size :])]
            h.waiting -= 1
            self._t_waiting -= 1
            wb.put(ukey, url_record(D, d, a, seq, now, ref))
        else:
            self._seq += 1
            wb.put(ukey, url_record(D, depth, 0, self._seq, now, referrer))
            wb.put(K_SEQ, SEQ.pack(self._seq))
        h.done += 1
        self._t_done += 1
        dirty[h] = None

    def _hub_result(
        self, wb: Any, url: str, result: FetchResult, outcome: Outcome, now: float
    ) -> None:
        hub = self._sched.hubs.get(url)
        if hub is None:  # removed from the hub list while in flight
            return
        hub.in_flight = False
        self._sched.hub_learn(hub, result, outcome, now)
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
        heapq.heappush(self._sched.hub_heap, (hub.due, url))
        wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
        if now - self._sched.planned_at >= REPLAN_SECONDS:
            self._sched.replan(now)

    # ---- hubs, retries, delays ----------------------------------------------------------------
    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        return self.set_hubs_sync(hubs)

    def set_hubs_sync(self, hubs: Sequence[HubSpec]) -> AddReport:
        self._check_open()
        report = AddReport()
        wanted = checked_hubs(hubs, self.config, report, self._refused)
        wb = self._batch(sync=True)
        for url in list(self._sched.hubs):
            if url not in wanted:
                del self._sched.hubs[url]
                wb.delete(P_HUB + url.encode())
        for url, (hostname, span) in wanted.items():
            hub = self._sched.hubs.get(url)
            if hub is None:
                hub = self._sched.hubs[url] = Hub(url, hostname, span)
                hub.due = 0.0
                heapq.heappush(self._sched.hub_heap, (hub.due, url))
                self._sched.host(hostname)
                report.added += 1
            elif hub.span != span:
                hub.span = hub.planned = span
                if hub.last_refresh:
                    hub.due = hub.last_refresh + span
                    heapq.heappush(self._sched.hub_heap, (hub.due, url))
            wb.put(P_HUB + url.encode(), snapshot_file.dumps(hub.to_json()))
        wb.write()
        # Drop the heap entries of removed hubs (and stale ones) at once.
        self._sched.reset_hub_heap()
        self._sched.replan(self.clock.now())  # the budget follows the spans
        self._sched.version += 1
        return report

    async def hubs(self) -> list[HubSpec]:
        return self.hubs_sync()

    def hubs_sync(self) -> list[HubSpec]:
        return [HubSpec(h.url, h.span) for h in self._sched.hubs.values()]

    async def refresh_hub(self, url: str) -> bool:
        self._check_open()
        hub = self._find_hub(url)
        if hub is None:
            return False
        if not hub.in_flight:
            hub.parked = ""  # the user asked: a parked hub gets its chances again
            hub.crashes = 0
            hub.due = self.clock.now()
            heapq.heappush(self._sched.hub_heap, (hub.due, hub.url))
            self._put(P_HUB + hub.url.encode(), snapshot_file.dumps(hub.to_json()))
            self._sched.version += 1
        return True

    def _find_hub(self, url: str) -> Hub | None:
        return _lookup(self._sched.hubs, url)

    def _find_retry(self, url: str) -> Retry | None:
        return _lookup(self._sched.retries, url)

    async def retry_now(self, url: str) -> bool:
        self._check_open()
        r = self._find_retry(url)
        if r is None:
            return False
        r.next_try = self.clock.now()
        heapq.heappush(self._sched.retry_heap, (r.next_try, r.url))
        self._put(P_RETRY + r.url.encode(), r.to_json())
        self._release_due_retries(r.next_try)
        return True

    async def give_up(self, url: str) -> bool:
        self._check_open()
        r = self._find_retry(url)
        if r is None:
            return False
        del self._sched.retries[r.url]
        h = self._sched.host(r.host)
        h.retrying -= 1
        self._t_retrying -= 1
        h.failed += 1
        self._t_failed += 1
        now = self.clock.now()
        with self._batch() as wb:
            wb.delete(P_RETRY + r.url.encode())
            wb.put(
                P_URL + r.url.encode(), url_record(F, r.depth, r.attempts, r.seq, now, r.referrer)
            )
            wb.put(P_HOST + h.name.encode(), h.pack())
        self._sched.touch(h)
        return True

    async def set_delay(self, host: str, seconds: float) -> None:
        self._check_open()
        h = self._sched.host(host)
        h.min_delay = max(0.0, float(seconds))
        self._put(P_HOST + h.name.encode(), h.pack())
        self._sched.touch(h)

    async def set_host_paused(self, host: str, paused: bool) -> None:
        self._check_open()
        h = self._sched.host(host)
        if h.paused == paused:
            return
        h.paused = paused
        self._put(P_HOST + h.name.encode(), h.pack())
        self._sched.touch(h)
        if not paused:
            now = self.clock.now()
            self._sched.schedule(h, now)
            for hub in self._sched.hubs.values():  # pop dropped them from the heap while paused
                if hub.host == h.name and not hub.in_flight and not hub.parked:
                    heapq.heappush(self._sched.hub_heap, (hub.due, hub.url))

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        self._check_open()
        h = self._sched.host(host)
        h.user_delay = -1.0 if seconds is None else max(0.0, float(seconds))
        if h.basis.strip():  # the delay in force, made again from the last result's inputs
            pol = self.config.politeness
            last = h.next_allowed - h.delay
            h.delay, basis = host_delay_and_basis(pol, h.last_elapsed, h.min_delay, h.user_delay)
            h.basis = basis.encode()
            # A longer delay moves the next request later; a shorter one counts from it.
            h.next_allowed = max(h.next_allowed, last + h.delay)
        self._put(P_HOST + h.name.encode(), h.pack())
        self._sched.touch(h)

    async def waiting_urls(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        h = self._sched.hosts.get(host)
        total = h.waiting if h is not None else 0
        prefix = P_QUEUE + host.encode() + b"\x00"
        skip = max(0, page) * max(1, page_size)
        rows = await self._read(
            lambda snap, stop: views.waiting_rows(snap, stop, prefix, skip, page_size)
        )
        return WaitingPage(total, rows)

    async def failed_urls(self, host: str, limit: int = 200) -> list[FailedRow]:
        prefixes = views.host_url_prefixes(host)
        return await self._read(lambda snap, stop: views.failed_rows(snap, stop, prefixes, limit))

    async def forget_waiting(self, host: str) -> int:
        self._check_open()
        h = self._sched.hosts.get(host)
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
                    url = read_queue_value(raw)[0]
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
        self._sched.touch(h)
        return forgotten

    async def retry_failed(self, host: str) -> int:
        self._check_open()
        prefixes = views.host_url_prefixes(host)
        wanted = await self._read(lambda snap, stop: views.failed_requests(snap, stop, prefixes))
        report = await self.add_many(wanted, always=True)
        return report.added

    def set_config(self, config: PoolConfig) -> None:
        """Change policy live (the settings dialog)."""
        self.config = config
        now = self.clock.now()
        for h in self._sched.hosts.values():
            self._sched.schedule(h, now)
        self._sched.replan(now)  # the hub refresh mode or its bounds may have changed

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

    def _merged_counters(self, delta: Counters) -> list[tuple[bytes, bytes]]:
        return views.merged_counters(self._db, delta)

    async def counters(self) -> Counters:
        """All the counters the pool holds (read in a worker thread)."""
        self._check_open()
        return await asyncio.to_thread(self.counters_sync)

    def counters_sync(self) -> Counters:
        return views.read_counters(self._db)

    # ---- observing ----------------------------------------------------------------------------
    async def totals(self) -> PoolTotals:
        if self._closed:  # readable during a snapshot load, as snapshot() is
            raise PoolClosedError("the pool is closed")
        return self.totals_sync()

    def totals_sync(self) -> PoolTotals:
        return PoolTotals(
            waiting=self._t_waiting,
            pending=len(self._sched.leases),
            done=self._t_done,
            failed=self._t_failed,
            retrying=self._t_retrying,
            hosts=len(self._sched.hosts),
            hubs=len(self._sched.hubs),
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
        return views.pool_snapshot(
            self._sched, self.totals_sync(), now, since, retry_limit, self._snapshot_rows
        )

    async def next_due(self, *, hubs: bool = True) -> float | None:
        self._check_open()
        return self._sched.next_due(self.clock.now(), hubs=hubs)

    def url_state(self, url: str) -> str | None:
        """The state of one URL: waiting, pending, done, failed, redirected, retrying, or None."""
        try:
            url = canonicalize(url)[0]
        except InvalidURLError:
            return None
        if url in self._sched.leases:
            return "pending"
        raw = self._db.get(P_URL + url.encode())
        return STATE_NAMES[raw[:1]] if raw is not None else None

    def known(self, url: str) -> bool | None:
        return self.is_known(url)  # an in-process lookup: cheap enough for the event loop

    def is_known(self, url: str) -> bool:
        """True if the pool already has this URL in any state, or as a hub (cheap, sync)."""
        try:
            url = canonicalize(url, max_length=self.config.max_url_length)[0]
        except InvalidURLError:
            return False
        if url in self._sched.leases or url in self._sched.hubs:
            return True
        return self._db.get(P_URL + url.encode()) is not None

    def url_attempts(self, url: str) -> int:
        raw = self._db.get(P_URL + canonicalize(url)[0].encode())
        return read_url_record(raw)[2] if raw is not None else 0

    # ---- snapshots ----------------------------------------------------------------------------
    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Write the whole pool to a snapshot file in a worker thread (``snapshot.save``)."""
        return await snapshot.save(self, path, scope)

    async def load_snapshot(self, path: str | Path) -> int:
        """Replace the pool's contents with a snapshot file (``snapshot.load``)."""
        return await snapshot.load(self, path)


def _lookup(table: dict[str, _T], url: str) -> _T | None:
    """``table[url]``, trying the canonical form of ``url`` too (users type URLs)."""
    found = table.get(url)
    if found is None:
        try:
            found = table.get(canonicalize(url)[0])
        except InvalidURLError:
            return None
    return found
