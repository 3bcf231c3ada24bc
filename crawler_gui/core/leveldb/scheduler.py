"""The LevelDB pool's scheduler: what it keeps in memory so that ``pop`` and ``next_due`` never
scan the database.

One :class:`~crawler_gui.core.leveldb.layout.Host` per host (with a read-ahead buffer of its
first queued URLs), the leases in flight, the retrying URLs and the hubs, and the queues by
time over them: the hosts that may be asked now (a deque), the hosts in their politeness wait,
the leases by expiry, the retries by next try, the hubs by due time, and the due hubs whose host
cannot take them yet. Heap entries are dropped lazily: one whose record has changed since it
was pushed is stale and skipped. The refresh plan of the hubs (``core/freshness.py``) is made
here too. The scheduler never writes: the pool (``pool.py``) changes a record, writes it and
tells the scheduler.
"""

from __future__ import annotations

import heapq
import math
from bisect import insort
from collections import Counter, deque
from typing import Any

from crawler_gui.core.freshness import HubInput, plan_one, plan_spans
from crawler_gui.core.frontier import Lease
from crawler_gui.core.leveldb.layout import QSUFFIX, Host, Hub, Retry
from crawler_gui.core.policy import FetchResult, Outcome, PoolConfig

#: Queued URLs of a host held in memory (its read-ahead buffer).
READ_AHEAD = 16
#: The refresh plan is made again at most this often (seconds); in between, a hub whose rate
#: changed gets its span at the last plan's level.
REPLAN_SECONDS = 2.0

#: A lease in flight: the lease, the URL's sequence number, its attempts so far, its referrer.
LeaseEntry = tuple[Lease, int, int, str | None]


class Scheduler:
    """The in-memory state of one open LevelDB pool (made again from the database by a
    rebuild)."""

    def __init__(self, config: PoolConfig) -> None:
        self.config = config
        self.hosts: dict[str, Host] = {}
        #: Hosts that may be asked now, taking turns.
        self.ready: deque[Host] = deque()
        #: Hosts in their politeness wait: (when they may be asked, host).
        self.sleep: list[tuple[float, str]] = []
        self.leases: dict[str, LeaseEntry] = {}
        self.lease_heap: list[tuple[float, str]] = []
        self.retries: dict[str, Retry] = {}
        self.retry_heap: list[tuple[float, str]] = []
        self.hubs: dict[str, Hub] = {}
        self.hub_heap: list[tuple[float, str]] = []
        #: Due hubs set aside because their host cannot take them now (in its politeness
        #: wait, or with as many fetches in flight as it may have), by host: (due, url) each.
        #: They go back on the hub heap when the host's wait ends (``held_heap``) or when
        #: anything about the host changes (a result, a release: :meth:`schedule`).
        self.held: dict[str, list[tuple[float, str]]] = {}
        #: Hosts with held hubs that wait for their politeness delay: (when it ends, host).
        self.held_heap: list[tuple[float, str]] = []
        #: The refresh plan's water level (``core/freshness.py``) and when it was made.
        self.plan_level: float | None = None
        self.planned_at = -math.inf
        #: Moves on with every change a view must see (``snapshot(since=...)``).
        self.version = 1

    # ---- hosts --------------------------------------------------------------------------------
    def host(self, name: str) -> Host:
        h = self.hosts.get(name)
        if h is None:
            h = self.hosts[name] = Host(name)
        return h

    def touch(self, h: Host) -> None:
        self.version += 1
        h.version = self.version

    def schedule(self, h: Host, now: float) -> None:
        """Put a host in the ready deque or the sleep heap if it can take another fetch; its
        held hubs go back on the hub heap (they are set aside again if it still cannot)."""
        held = self.held.pop(h.name, None)
        if held:
            for entry in held:
                heapq.heappush(self.hub_heap, entry)
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
            self.ready.append(h)
        else:
            heapq.heappush(self.sleep, (at, h.name))

    def buffer_insert(self, h: Host, qkey: bytes, qval: bytes) -> None:
        suffix = qkey[-QSUFFIX.size :]
        h.cursor = min(h.cursor, suffix)
        if h.buf_complete:
            insort(h.buf, suffix + qval)
            if len(h.buf) > READ_AHEAD * 2:
                del h.buf[READ_AHEAD:]
                h.buf_complete = False
        elif h.buf and suffix < h.buf[-1][: QSUFFIX.size]:
            insort(h.buf, suffix + qval)
            h.buf.pop()
        # else: it lies after the buffered prefix; a refill reads it from the database.

    def buffer_refill(self, h: Host, db: Any) -> None:
        prefix = h.prefix
        buf = h.buf
        cut = len(prefix)
        it = db.iterator(start=prefix + h.cursor, stop=prefix[:-1] + b"\x01")
        try:
            for key, value in it:
                buf.append(key[cut:] + value)
                if len(buf) >= READ_AHEAD:
                    break
        finally:
            it.close()
        h.buf_complete = len(buf) >= h.waiting

    # ---- hubs whose host cannot take them -----------------------------------------------------
    def hub_waits(self, hub: Hub, due: float) -> bool:
        """False when the heap entry (``due``, hub) is stale: the hub was removed, is in
        flight, parked, or due at another time since."""
        return hub.due == due and not hub.in_flight and not hub.parked

    def hold_hub(self, due: float, url: str, h: Host, now: float) -> bool:
        """Set aside a due hub (taken off the hub heap) whose host ``h`` cannot take it now;
        False (nothing done) when it can. Left on the heap, such a hub made ``next_due`` say
        "now" for as long as its host waited: the dispatcher asked every few milliseconds."""
        busy = h.in_flight >= self.config.politeness.max_in_flight
        at = h.allowed_at()
        if not busy and at <= now:
            return False
        self.held.setdefault(h.name, []).append((due, url))
        if not busy:  # (a busy host's hubs come back when one of its fetches ends)
            heapq.heappush(self.held_heap, (at, h.name))
        return True

    def release_held(self, now: float) -> None:
        """The held hubs of hosts whose politeness wait has ended go back on the hub heap."""
        heap = self.held_heap
        while heap and heap[0][0] <= now:
            _at, name = heapq.heappop(heap)
            for entry in self.held.pop(name, ()):
                heapq.heappush(self.hub_heap, entry)

    def reset_hub_heap(self) -> None:
        """Every hub not in flight on the hub heap again (and none held): drops the entries
        of removed hubs and stale ones at once."""
        self.hub_heap = [(h.due, u) for u, h in self.hubs.items() if not h.in_flight]
        heapq.heapify(self.hub_heap)
        self.held.clear()
        self.held_heap.clear()

    def compact(self) -> None:
        """Finished leases leave stale heap entries (removed lazily); keep the heaps small."""
        if len(self.lease_heap) > 2 * len(self.leases) + 1024:
            self.lease_heap = [(e[0].expires, url) for url, e in self.leases.items()]
            heapq.heapify(self.lease_heap)
        if len(self.retry_heap) > 2 * len(self.retries) + 1024:
            self.retry_heap = [(r.next_try, url) for url, r in self.retries.items()]
            heapq.heapify(self.retry_heap)
        if len(self.hub_heap) > 2 * len(self.hubs) + 1024:
            self.reset_hub_heap()

    # ---- when next --------------------------------------------------------------------------
    def next_due(self, now: float, *, hubs: bool = True) -> float | None:
        """The earliest time something is poppable: a host's next URL, a retry, an expired
        lease, a due hub whose host can take it (``hubs=False``: hubs left out). A hub whose
        host has a fetch in flight is not counted: that fetch's end wakes the caller."""
        times: list[float] = []
        if self.ready:
            times.append(now)
        if self.sleep:
            times.append(self.sleep[0][0])
        retries, leases = self.retry_heap, self.lease_heap
        while retries:  # drop stale tops: retried now, given up, re-queued
            t, url = retries[0]
            r = self.retries.get(url)
            if r is not None and r.next_try == t:
                times.append(t)
                break
            heapq.heappop(retries)
        while leases:  # drop stale tops: leases that ended
            t, url = leases[0]
            entry = self.leases.get(url)
            if entry is not None and entry[0].expires == t:
                times.append(t)
                break
            heapq.heappop(leases)
        if not hubs:
            return min(times) if times else None
        heap = self.hub_heap
        while heap:  # drop stale entries on top: removed, in flight, or re-scheduled hubs
            due, url = heap[0]
            hub = self.hubs.get(url)
            if hub is None or not self.hub_waits(hub, due) or self.host(hub.host).paused:
                heapq.heappop(heap)
                continue
            if due <= now and self.hold_hub(due, url, self.host(hub.host), now):
                heapq.heappop(heap)
                continue
            times.append(due)
            break
        held = self.held_heap
        max_if = self.config.politeness.max_in_flight
        while held:  # drop stale tops: hubs back on the heap, paused or busy hosts
            at, name = held[0]
            h = self.hosts.get(name)
            if name not in self.held or h is None or h.paused or h.in_flight >= max_if:
                heapq.heappop(held)
                continue
            if h.allowed_at() != at:  # its wait moved since: keyed again
                heapq.heapreplace(held, (h.allowed_at(), name))
                continue
            times.append(at)
            break
        return min(times) if times else None

    # ---- the refresh plan (docs/freshness.md) -------------------------------------------------
    def hub_learn(self, hub: Hub, result: FetchResult, outcome: Outcome, now: float) -> None:
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
            self.hub_input(hub, self.hubs_per_host()),
            self.plan_level,
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
            self.planned_at = -math.inf

    def hubs_per_host(self) -> Counter[str]:
        return Counter(h.host for h in self.hubs.values() if not h.parked)

    def hub_input(self, hub: Hub, per_host: Counter[str]) -> HubInput:
        """The fastest a hub may go: its host's politeness delay, shared by the host's hubs."""
        h = self.hosts.get(hub.host)
        pol = self.config.politeness
        delay = max(pol.min_delay, h.delay, h.min_delay) if h is not None else pol.min_delay
        return HubInput(hub.span, hub.rate, delay * max(1, per_host[hub.host]))

    def replan(self, now: float) -> None:
        """Share the hub budget (``Σ 1/span``) by learned rates; move each hub that waits on
        its planned span to its new due time (last refresh + planned span)."""
        self.planned_at = now
        hubs = [h for h in self.hubs.values() if not h.parked]
        if not hubs:
            self.plan_level = None
            return
        cfg = self.config
        per_host = self.hubs_per_host()
        plans, self.plan_level = plan_spans(
            [self.hub_input(h, per_host) for h in hubs],
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
                    heapq.heappush(self.hub_heap, (due, hub.url))
        self.version += 1
