"""Why a host or a URL waits, derived from what the pool keeps (no guessing, no Qt).

The pool keeps each wait's inputs (``HostRow``: the last response time, the delay's basis,
robots.txt ``Crawl-delay``, the user's delay, a pause, a 429/503 backoff and whether
``Retry-After`` set it; ``RetryRow``: the error and the backoff; ``PendingRow``: the worker
and the lease start). These functions say which of them holds a host or a URL back now; the
window words them (``gui/why.py``), the same for the Hosts, In flight and Retries panes.
"""

from __future__ import annotations

from typing import NamedTuple

from crawler_gui.core.frontier import HostRow, RetryRow

#: ``HostWait.kind`` values, in the order they are checked.
PAUSED = "paused"  #: paused by the user
BACKOFF = "backoff"  #: a 429/503 backoff runs
IN_FLIGHT_CAP = "in_flight_cap"  #: as many URLs in flight as one host may have
POLITENESS = "politeness"  #: the politeness delay since its last result runs
READY = "ready"  #: it may be asked now (a fetch slot will take it)
IDLE = "idle"  #: nothing waits for it


class HostWait(NamedTuple):
    kind: str
    until: float = 0.0  #: when the wait ends (POSIX seconds; 0: not by itself)
    delay: float = 0.0  #: the politeness delay in force
    basis: str = ""  #: ``DELAY_BASES`` key: which term made ``delay``
    elapsed: float = 0.0  #: the last response time (for the factor basis)
    factor: float = 0.0  #: ``delay / elapsed`` for the factor basis
    status: str = ""  #: the result that started a backoff
    retry_after: bool = False  #: the backoff's length came from ``Retry-After``


def host_wait(row: HostRow, now: float, max_in_flight: int = 1) -> HostWait:
    """What holds ``row``'s host back at ``now`` (the first that applies)."""
    if row.paused:
        return HostWait(PAUSED)
    if row.waiting <= 0:
        return HostWait(IDLE)
    if row.backoff_until > now:
        return HostWait(
            BACKOFF, row.backoff_until, status=row.backoff_status, retry_after=row.retry_after
        )
    if row.in_flight >= max(1, max_in_flight):
        return HostWait(IN_FLIGHT_CAP)
    if row.next_allowed > now:
        factor = row.delay / row.last_elapsed if row.last_elapsed > 0 else 0.0
        return HostWait(
            POLITENESS,
            row.next_allowed,
            row.delay,
            row.delay_basis,
            row.last_elapsed,
            factor,
        )
    return HostWait(READY)


def retry_of_robots(row: RetryRow) -> bool:
    """The URL waits because its host's robots.txt could not be fetched."""
    return row.kind == "robots_unreachable"
