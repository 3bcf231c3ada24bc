"""The one interface through which the engine and the GUI reach a URL pool ("frontier").

Shaped for a network round trip (a Redis backend implements it too): batches, leases, and
``async`` on every call that a backend may have to wait for. The vocabulary follows URLFrontier:
``pop`` is GetURLs (one URL per host, with a lease), ``add_many`` is PutURLs, ``set_delay`` is
SetDelay, ``snapshot`` is GetStats plus ListQueues.

All times are POSIX seconds from the pool's injected clock.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

from crawler_gui.core.counters import Counters
from crawler_gui.core.freshness import RateState, prior_rate
from crawler_gui.core.policy import FetchResult, PoolConfig


@dataclass(frozen=True, slots=True)
class AddRequest:
    """One URL to add, with the depth it was found at and the page that linked to it."""

    url: str
    depth: int = 0
    referrer: str | None = None


@dataclass(slots=True)
class AddReport:
    """What an ``add``/``add_many`` did: counts, and each refused URL with its reason."""

    added: int = 0
    duplicate: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)  # (url as given, reason)
    overflow: int = 0  # refused because the host's queue is at max_per_host (also in refused)

    def merge(self, other: AddReport) -> None:
        self.added += other.added
        self.duplicate += other.duplicate
        self.refused.extend(other.refused)
        self.overflow += other.overflow


class Lease(NamedTuple):
    """A popped URL (a named tuple: cheap to make by the thousand). The holder reports its
    result with ``set_status`` before ``expires``; otherwise the pool puts it back."""

    url: str
    host: str
    depth: int
    is_hub: bool
    started: float
    expires: float
    referrer: str | None = None


#: Separates the parts of a failed URL's stored detail (never in a URL or a referrer).
_SEP = "\x00"


def pack_failure(referrer: str | None, result: FetchResult) -> str:
    """The stored detail of a failed or refused URL: its referrer, then the last HTTP status,
    the reason (an :class:`~crawler_gui.core.policy.ErrorKind` value, empty for an HTTP
    status alone) and the message, NUL-separated. Both backends keep it in the URL record,
    where a done or waiting URL keeps only its referrer."""
    status = "" if result.status is None else str(result.status)
    reason = "" if result.error is None else result.error.value
    message = result.message.replace(_SEP, " ")[:500]
    return _SEP.join(((referrer or "").replace(_SEP, ""), status, reason, message))


class FailureDetail(NamedTuple):
    referrer: str | None
    status: int | None
    reason: str
    message: str


def unpack_failure(extra: str | None) -> FailureDetail:
    """Read :func:`pack_failure`'s text; a record from before it holds the referrer only."""
    if not extra:
        return FailureDetail(None, None, "", "")
    parts = extra.split(_SEP, 3)
    if len(parts) < 4:
        return FailureDetail(parts[0] or None, None, "", "")
    ref, status, reason, message = parts
    return FailureDetail(ref or None, int(status) if status.isdigit() else None, reason, message)


def referrer_of(extra: str | None) -> str | None:
    """The referrer in a URL record's detail (whatever its state)."""
    if not extra:
        return None
    return extra.split(_SEP, 1)[0] or None


#: URL states by their one-letter code in both backends' URL records: W waiting, D done,
#: F failed (also a URL refused by policy, which the refusal index tells apart), X redirected
#: (its record keeps the target), R retrying. (``status.lua``'s outcome codes add N refused
#: and T throttled, which never get stored as states.)
STATE_BY_CODE = {"W": "waiting", "D": "done", "F": "failed", "X": "redirected", "R": "retrying"}


def outcome_record(
    url: str,
    code: str,
    depth: int,
    attempts: int,
    changed: float,
    extra: str | None,
    *,
    refusal: str | None = None,
    next_try: float | None = None,
    last_error: str | None = None,
) -> dict[str, Any]:
    """One URL's outcome as an export record (``export --records outcomes``, documented in
    ``docs/storage.md``), from the fields of a URL record of either backend. ``refusal`` is
    the refusal index's ``reason TAB target`` when the URL was refused by policy."""
    state = STATE_BY_CODE.get(code, code)
    rec: dict[str, Any] = {
        "kind": "outcome",
        "url": url,
        "state": state,
        "depth": depth,
        "attempts": attempts,
        "changed_at": datetime.fromtimestamp(changed, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "changed_at_ts": changed,
        "referrer": None,
        "status": None,
        "reason": None,
        "message": None,
        "target": None,
    }
    if code == "X":
        rec["target"] = extra or None
        return rec
    if code == "F":
        detail = unpack_failure(extra)
        rec["referrer"] = detail.referrer
        rec["status"] = detail.status
        rec["reason"] = detail.reason or None
        rec["message"] = detail.message or None
        if refusal is not None:
            refused = Refusal.unpack(url, refusal)
            rec["state"] = "refused"
            rec["reason"] = refused.reason
            rec["target"] = refused.target or None
        return rec
    rec["referrer"] = referrer_of(extra)
    if code == "R":
        rec["message"] = None if last_error is None else unpack_retry(last_error).message
        rec["next_try_ts"] = next_try
    return rec


@dataclass(frozen=True, slots=True)
class Refusal:
    """A URL refused by policy when it was fetched (address, robots.txt, scope), kept by the
    pool so that a wider policy can look at it again (``requeue_refused``)."""

    url: str
    reason: str  #: an ErrorKind value: blocked_address, robots or out_of_scope
    target: str  #: for out_of_scope, the redirect target that left the scope ("" if unknown)

    @staticmethod
    def pack(result: FetchResult) -> str:
        """What both backends' refusal index keeps of a refused URL: the reason, TAB, the
        redirect target that left the scope (or nothing)."""
        reason = result.error.value if result.error is not None else "refused"
        return f"{reason}\t{result.redirect_to or ''}"

    @classmethod
    def unpack(cls, url: str, packed: str) -> Refusal:
        """The refusal of ``url`` from its index entry (:meth:`pack`)."""
        reason, _tab, target = packed.partition("\t")
        return cls(url, reason, target)


@dataclass(frozen=True, slots=True)
class HubSpec:
    """A hub page and how often it is refreshed (seconds)."""

    url: str
    span: float


class HostRow(NamedTuple):
    host: str
    waiting: int
    in_flight: int
    done: int
    failed: int
    retrying: int
    last_status: str  #: label of the last result ("200", "timeout", "" if none yet)
    next_allowed: float  #: earliest time of the next request to this host
    delay: float  #: current politeness delay, seconds
    backoff_until: float  #: end of a 429/503 backoff (0 when none)
    # The inputs of the host's wait, kept by the pool (``core/waits.py`` reads them):
    last_elapsed: float = 0.0  #: response time of its last result, seconds
    crawl_delay: float = 0.0  #: robots.txt ``Crawl-delay`` (``set_delay``; 0: none)
    user_delay: float = -1.0  #: the user's minimum delay for it (``set_host_delay``; <0: none)
    paused: bool = False  #: paused by the user (``set_host_paused``): not dispatched
    backoff_status: str = ""  #: the result that started the backoff ("503", "429")
    retry_after: bool = False  #: the backoff's length came from a ``Retry-After`` header
    #: Which term made ``delay`` (a :data:`DELAY_BASES` key; "" before a first result).
    delay_basis: str = ""


#: ``HostRow.delay_basis``: factor x last response time, the configured minimum, the user's
#: per-host delay, robots.txt ``Crawl-delay``, the configured maximum.
DELAY_BASES = {"f": "factor", "m": "minimum", "u": "user", "c": "crawl_delay", "x": "maximum"}


def delay_and_basis(
    elapsed: float,
    factor: float,
    min_delay: float,
    max_delay: float,
    crawl_delay: float,
    user_delay: float,
) -> tuple[float, str]:
    """A host's politeness delay after a result and which term made it (both backends, through
    ``pool_rules.host_delay_and_basis``): ``max(floor, min(max_delay, factor x elapsed))`` where
    the floor is the configured minimum, or the user's per-host delay when set, and never
    below robots.txt's ``Crawl-delay``."""
    floor, basis = (user_delay, "u") if user_delay >= 0 else (min_delay, "m")
    if crawl_delay > floor:
        floor, basis = crawl_delay, "c"
    delay = factor * max(0.0, elapsed)
    if delay > max_delay:
        delay, dbasis = max_delay, "x"
    else:
        dbasis = "f"
    return (delay, dbasis) if delay > floor else (floor, basis)


class PendingRow(NamedTuple):
    url: str
    host: str
    depth: int
    is_hub: bool
    started: float
    expires: float
    worker: str = ""  #: the worker holding the lease (shared pools; "" for a local pool)


#: Seconds between two heartbeats of a worker of a shared pool.
HEARTBEAT_SECONDS = 5.0
#: A worker not heard from for this long is shown as silent (dead, hung or cut off).
SILENT_AFTER = 4 * HEARTBEAT_SECONDS


class WorkerRow(NamedTuple):
    """One worker of a shared pool, as its last heartbeat described it."""

    worker: str  #: the worker id (``--worker``)
    machine: str  #: host name of the machine it runs on
    pid: int
    state: str  #: the crawl's state: running, paused, stopping, stopped, finished, failed, idle
    started: float  #: when the worker opened the pool (POSIX time)
    last_seen: float  #: its last heartbeat (POSIX time, the worker's clock)
    pages: int  #: pages it fetched since it started
    rate: float  #: its pages/s over the last seconds


class RetryRow(NamedTuple):
    url: str
    host: str
    depth: int
    attempts: int  #: failed attempts so far
    last_error: str  #: the fetcher's message (English), as exported
    next_try: float
    kind: str = ""  #: the error kind (an ``ErrorKind`` value; "" for an HTTP status)
    status: int | None = None  #: the HTTP status of the last attempt, if any
    backoff: float = 0.0  #: seconds from the failure to ``next_try``
    retry_after: bool = False  #: the backoff came from a ``Retry-After`` header


class WaitingRow(NamedTuple):
    """A URL waiting in a host's queue (``waiting_urls``)."""

    url: str
    depth: int
    added: float  #: when it was queued (or queued again), POSIX seconds
    attempts: int
    referrer: str | None


class WaitingPage(NamedTuple):
    """One page of a host's queue, in the order it is crawled, and how many wait in all."""

    total: int
    rows: tuple[WaitingRow, ...]


class FailedRow(NamedTuple):
    """A URL of a host that failed for good (``failed_urls``), with its last reason."""

    url: str
    depth: int
    attempts: int
    changed: float
    status: int | None
    reason: str  #: an ``ErrorKind`` value ("" for an HTTP status alone)
    message: str
    refused: bool  #: refused by policy (robots.txt, address, scope), not an error


#: Separates the parts of a retry's stored error (never in an error message).
_RSEP = "\x1f"


def pack_retry(result: FetchResult, backoff: float, throttled: bool) -> str:
    """What both backends keep as a retrying URL's last error: the error kind, the status,
    the backoff (seconds) and whether ``Retry-After`` set it, then the message, separated by
    0x1F. A record from before it holds the message alone (:func:`unpack_retry` reads both)."""
    kind = "" if result.error is None else result.error.value
    status = "" if result.status is None else str(result.status)
    ra = "1" if throttled and result.retry_after is not None else ""
    message = (result.message or result.label).replace(_RSEP, " ")
    return _RSEP.join((kind, status, repr(float(backoff)), ra, message))


class RetryDetail(NamedTuple):
    message: str
    kind: str
    status: int | None
    backoff: float
    retry_after: bool


@functools.lru_cache(maxsize=4096)
def unpack_retry(text: str) -> RetryDetail:
    parts = text.split(_RSEP, 4)
    if len(parts) < 5:
        return RetryDetail(text, "", None, 0.0, False)
    kind, status, backoff, ra, message = parts
    try:
        seconds = float(backoff)
    except ValueError:
        seconds = 0.0
    return RetryDetail(message, kind, int(status) if status.isdigit() else None, seconds, ra == "1")


def retry_row(
    url: str, host: str, depth: int, attempts: int, packed: str, next_try: float
) -> RetryRow:
    """A :class:`RetryRow` from a retry record's fields (the error as :func:`pack_retry`)."""
    d = unpack_retry(packed)
    return RetryRow(
        url, host, depth, attempts, d.message, next_try, d.kind, d.status, d.backoff, d.retry_after
    )


class HubRow(NamedTuple):
    url: str
    host: str
    span: float
    last_refresh: float  #: 0 when never refreshed
    last_result: str
    next_due: float
    in_flight: bool
    #: Why the hub is parked ("" when it is not): :data:`PARKED_CRASHED`. A parked hub is not
    #: refreshed until the user refreshes it (``refresh_hub``).
    parked: str = ""
    #: Leases of the hub lost in a row (its process died, or the lease expired).
    crashes: int = 0
    #: page, feed or sitemap.
    kind: str = "page"
    #: Its learned rate, new articles per second (``core/freshness.py``).
    rate: float = 0.0
    #: New articles at its last refresh.
    last_new: int = 0
    #: The span the refresh plan gives it (seconds), and why (a ``SpanReason`` value).
    planned: float = 0.0
    reason: str = ""
    #: New articles it has yielded in all.
    yielded: int = 0
    #: Items its list showed at the last refresh (0: unknown).
    listed: int = 0


def hub_learned(
    span: float, state: RateState, planned: float, reason: str
) -> tuple[str, float, int, float, str, int, int]:
    """The learned fields of a :class:`HubRow` (``kind`` .. ``listed``), from a hub's state."""
    rate = state.own_rate(prior_rate(span)) if state.refreshes else 0.0
    return ("page", rate, state.last_new, planned, reason, state.observed, state.last_visible)


#: ``HubRow.parked``: the hub's fetch was lost (the process died or the lease expired) as many
#: times in a row as a page may lose it (``RetryPolicy.failure_threshold``).
PARKED_CRASHED = "crashed"


@dataclass(frozen=True, slots=True)
class PoolTotals:
    waiting: int
    pending: int
    done: int
    failed: int
    retrying: int
    hosts: int
    hubs: int
    redirected: int
    refused: Mapping[str, int]  #: refusal reason -> count, since the pool was opened
    overflow: int
    failure_threshold: int
    pending_threshold: float
    #: URLs refused by policy when fetched (blocked address, robots.txt, out of scope): a
    #: permanent outcome, counted among ``failed`` too, but never an error nor retried.
    refused_urls: int = 0


@dataclass(frozen=True, slots=True)
class PoolSnapshot:
    """A cheap, immutable picture of the pool for the GUI and the progress line.

    ``hosts`` holds every host when ``since`` was ``None``, else only the hosts that changed
    after version ``since`` (``hosts_complete`` says which). ``version`` increases with every
    change; pass it back as ``since`` next time.
    """

    time: float
    version: int
    totals: PoolTotals
    hosts: tuple[HostRow, ...]
    hosts_complete: bool
    pending: tuple[PendingRow, ...]
    retrying: tuple[RetryRow, ...]  #: the soonest ``retry_limit`` retrying URLs
    hubs: tuple[HubRow, ...]
    next_due: float | None  #: when something next becomes poppable (None: nothing waiting)


@runtime_checkable
class Frontier(Protocol):
    """A durable URL pool. See ``docs/frontier.md`` for the semantics every backend keeps."""

    async def add(
        self, url: str, depth: int = 0, referrer: str | None = None, *, always: bool = False
    ) -> AddReport: ...

    async def add_many(
        self, items: Iterable[AddRequest | str], *, always: bool = False
    ) -> AddReport:
        """Add URLs (canonicalized first). ``always`` re-queues URLs already seen."""
        ...

    async def pop(self, count: int, hub_percent: int = 50) -> list[Lease]:
        """Due hubs first (at most ``hub_percent`` % of ``count``), then at most one URL per
        ready host, hosts taking turns."""
        ...

    async def set_status(self, url: str, result: FetchResult) -> None: ...

    async def set_status_many(self, results: Sequence[tuple[str, FetchResult]]) -> None: ...

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        """Replace the hub list; invalid hub URLs are refused in the report."""
        ...

    async def refresh_hub(self, url: str) -> bool:
        """Make a hub due now. False if it is not a hub."""
        ...

    async def retry_now(self, url: str) -> bool:
        """Make a retrying URL due now. False if it is not retrying."""
        ...

    async def give_up(self, url: str) -> bool:
        """Turn a retrying URL into a permanent failure. False if it is not retrying."""
        ...

    async def set_delay(self, host: str, seconds: float) -> None:
        """Raise the minimum politeness delay of one host (robots.txt ``Crawl-delay``)."""
        ...

    def iter_outcomes(self) -> AsyncIterator[dict[str, Any]]:
        """Every URL's outcome as an export record (:func:`outcome_record`): ``export
        --records outcomes``. An async iterator on every backend (read in batches)."""
        ...

    async def set_host_paused(self, host: str, paused: bool) -> None:
        """Pause (or resume) one host: a paused host's URLs and hubs are not handed out (by
        any worker of a shared pool) until it is resumed. Persisted in the pool."""
        ...

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        """The user's minimum delay between two requests to one host, in place of the
        configured minimum (robots.txt ``Crawl-delay`` still holds); ``None`` removes it.
        Persisted; the host's next request moves to match."""
        ...

    async def waiting_urls(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        """Page ``page`` (from 0) of a host's waiting URLs, in the order they are crawled."""
        ...

    async def failed_urls(self, host: str, limit: int = 200) -> list[FailedRow]:
        """Up to ``limit`` URLs of a host that failed for good or were refused, with why."""
        ...

    async def forget_waiting(self, host: str) -> int:
        """Drop every waiting URL of a host from the pool (unknown again: a link found later
        queues it again); URLs in flight or retrying stay. Returns how many."""
        ...

    async def retry_failed(self, host: str) -> int:
        """Queue again a host's URLs that failed for good (not those refused by policy), at
        their depth with their referrer, attempts counted from zero. Returns how many."""
        ...

    async def requeue_refused(self, keep: Callable[[Refusal], bool]) -> int:
        """Queue again the refused URLs that ``keep`` accepts (the policy grew wider: private
        addresses allowed, robots.txt off, a wider scope); return how many. Each goes back at
        its depth with its referrer, with no attempt counted."""
        ...

    async def release(self, urls: Sequence[str]) -> int:
        """Give leases back unfetched, no attempt counted (a stop that cannot wait)."""
        ...

    async def reclaim_expired(self) -> int:
        """Put back every lease whose time is over; return how many."""
        ...

    async def hubs(self) -> list[HubSpec]:
        """The hub list (URL and span of each hub)."""
        ...

    def set_config(self, config: PoolConfig) -> None:
        """Change policy live (the settings dialog): politeness, retries, limits, hub plan."""
        ...

    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot: ...

    async def totals(self) -> PoolTotals:
        """The counts alone (the progress line, idle checks): cheaper than a snapshot."""
        ...

    def known(self, url: str) -> bool | None:
        """Whether the pool holds ``url`` in any state, answered at once from memory (a local
        pool); None where the answer would take a round trip (a shared pool), so that the
        caller hands the URL to ``add`` and lets the pool de-duplicate it."""
        ...

    @property
    def storage_dir(self) -> Path | None:
        """The pool's folder on this machine (None for a pool on a server): the crawl pauses
        when its disk fills up."""
        ...

    def recover(self) -> bool:
        """Reopen what a failed write (disk full) left blocked. False when there was nothing
        to recover from; raises the pool's error when it still fails."""
        ...

    async def next_due(self, *, hubs: bool = True) -> float | None:
        """When the next URL or hub becomes poppable; None when nothing is waiting.
        ``hubs=False`` leaves the hubs out: for a caller whose pops take none (``pop`` with
        ``hub_percent`` 0), a due hub would make it ask again and again for nothing."""
        ...

    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Write the whole pool to one portable file (atomically); return records written.
        ``scope``: the registered domains of the crawl's seeds and hubs, saved with it (a
        shared pool adds its own scope set)."""
        ...

    async def load_snapshot(self, path: str | Path) -> int:
        """Replace the pool's contents with a snapshot file. Needs nothing in flight. On any
        error the pool is unchanged."""
        ...

    async def add_counters(self, delta: Counters) -> None:
        """Add ``delta`` (per-minute, per-host and delay counts, ``core/counters.py``) to the
        counters the pool keeps for the crawl report. Adds, never replaces: a restarted crawl
        goes on counting, and the workers of a shared pool add up. The engine calls it about
        once a minute, never per fetch."""
        ...

    async def counters(self) -> Counters:
        """Every counter the pool holds (a report's whole run; a load starts them afresh)."""
        ...

    async def close(self) -> None: ...


class ChangeNotices(Protocol):
    """Change notices between the workers of a shared pool (``SharedFrontier.change_notices``).

    A worker announces that it changed the pool (results committed, URLs given back, seeds or
    hubs added) and hears the others' announcements, so that a worker waiting for work, or
    with until-idle waiting for the others' fetches to end, looks at the pool again at once
    rather than at its next poll. Best effort: a missed notice only delays that look until
    the next poll. Used for one run of the crawler: ``start`` when it begins, ``close`` when
    it ends."""

    async def start(self, on_change: Callable[[], None]) -> None:
        """Start hearing the other workers: ``on_change()`` for each of their notices. A
        notice sent after ``start`` returns is not missed (unless the connection breaks)."""

    def notify(self) -> None:
        """Announce a change of the pool (returns at once; sent in the background)."""

    async def close(self) -> None:
        """Send what was announced and not yet sent; stop hearing."""


@runtime_checkable
class SharedFrontier(Frontier, Protocol):
    """A pool shared by many workers (Redis): what only such a pool has. Callers test
    ``isinstance(pool, SharedFrontier)``."""

    #: This worker's id (``--worker``), in its leases and heartbeats.
    worker: str

    async def set_paused(self, paused: bool) -> int:
        """Pause or resume every worker of the pool; return the control generation."""
        ...

    async def paused(self) -> bool: ...

    async def control(self) -> tuple[bool, int]:
        """The pool-wide pause flag and its generation (one round trip)."""
        ...

    async def heartbeat(self, state: str, pages: int, rate: float, started: float) -> None:
        """Say this worker is alive (every :data:`HEARTBEAT_SECONDS`)."""
        ...

    async def forget_worker(self, worker: str | None = None) -> None:
        """Remove a worker's heartbeat (this worker's by default: a clean exit)."""
        ...

    async def workers(self) -> list[WorkerRow]:
        """Every worker with a heartbeat, as its last heartbeat described it."""
        ...

    async def reclaim_worker(self, worker: str) -> int:
        """Put back every lease of ``worker`` (seen dead); return how many."""
        ...

    async def add_scope_domains(self, domains: Iterable[str]) -> int:
        """Add registered domains to the shared scope; return how many were new."""
        ...

    async def replace_scope_domains(self, domains: Iterable[str]) -> None: ...

    async def scope_domains(self) -> set[str]: ...

    def watch_scope(self, listener: Callable[[set[str]], None] | None) -> None:
        """Call ``listener`` with the whole shared scope when another worker changes it."""
        ...

    def change_notices(self) -> ChangeNotices:
        """A new transport of change notices between this pool's workers, for one run of a
        crawl (the crawler starts and closes it)."""
        ...
