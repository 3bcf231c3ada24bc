"""The "Why" column's words, one way for every pane (Hosts, In flight, Retries, Hubs) and the
host detail: what holds a host or a URL back, with its times, from the pool's own inputs
(``core/waits.py``). Translated like ``fmt``: each text a literal in its translate() call."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from crawler_gui.core import waits
from crawler_gui.core.frontier import PARKED_CRASHED, HostRow, HubRow, PendingRow, RetryRow
from crawler_gui.gui import fmt

_fill = fmt._fill  # the same %1 filler as every other text


def host(row: HostRow, now: float, max_in_flight: int = 1) -> str:
    """Why ``row``'s host waits now ("" when nothing waits for it)."""
    w = waits.host_wait(row, now, max_in_flight)
    if w.kind == waits.PAUSED:
        return QCoreApplication.translate("why", "host paused by you")
    if w.kind == waits.BACKOFF:
        return backoff(w.until, w.status, w.retry_after)
    if w.kind == waits.IN_FLIGHT_CAP:
        return _fill(
            QCoreApplication.translate("why", "per-host cap reached: %1 in flight"), row.in_flight
        )
    if w.kind == waits.READY:
        return QCoreApplication.translate("why", "ready: next free fetch slot")
    if w.kind != waits.POLITENESS:
        return ""
    at, delay = fmt.clock(w.until), fmt.seconds(w.delay)
    if w.basis == "f" and w.elapsed > 0:
        return _fill(
            QCoreApplication.translate(
                "why", "politeness: next request at %1 (delay %2 = %3 × last response time %4)"
            ),
            at,
            delay,
            f"{w.factor:g}",
            fmt.seconds(w.elapsed),
        )
    if w.basis == "c":
        return _fill(
            QCoreApplication.translate("why", "robots.txt Crawl-delay %1: next request at %2"),
            delay,
            at,
        )
    if w.basis == "u":
        return _fill(
            QCoreApplication.translate(
                "why", "politeness: next request at %1 (delay %2, set by you for this host)"
            ),
            at,
            delay,
        )
    if w.basis == "x":
        return _fill(
            QCoreApplication.translate(
                "why", "politeness: next request at %1 (delay %2, the configured maximum)"
            ),
            at,
            delay,
        )
    if w.basis == "m":
        return _fill(
            QCoreApplication.translate(
                "why", "politeness: next request at %1 (delay %2, the configured minimum)"
            ),
            at,
            delay,
        )
    return _fill(QCoreApplication.translate("why", "politeness: next request at %1"), at)


def backoff(until: float, status: str, retry_after: bool) -> str:
    if retry_after:
        text = QCoreApplication.translate("why", "backing off until %1 after %2 (Retry-After)")
    else:
        text = QCoreApplication.translate(
            "why", "backing off until %1 after %2 (no Retry-After: the default wait)"
        )
    return _fill(text, fmt.clock(until), status or "429/503")


def lease(row: PendingRow, now: float) -> str:
    """Who holds a URL in flight, and for how long."""
    held = fmt.duration(now - row.started)
    if row.worker:
        return _fill(
            QCoreApplication.translate("why", "lease held by worker %1 for %2"), row.worker, held
        )
    return _fill(QCoreApplication.translate("why", "being fetched by this crawl for %1"), held)


def error(kind: str, status: int | None, message: str) -> str:
    """A failure in words: its kind or HTTP status (the fetcher's English message when the
    pool kept neither, as a record from an older version)."""
    if kind:
        texts = {
            "timeout": QCoreApplication.translate("why", "timed out"),
            "connect": QCoreApplication.translate("why", "connection failed"),
            "dns": QCoreApplication.translate("why", "the host name did not resolve"),
            "reset": QCoreApplication.translate("why", "connection reset"),
            "protocol": QCoreApplication.translate("why", "malformed HTTP response"),
            "internal": QCoreApplication.translate("why", "internal error of the crawler"),
            "robots_unreachable": QCoreApplication.translate("why", "robots.txt unreachable"),
            "too_large": QCoreApplication.translate("why", "too large"),
            "unsupported": QCoreApplication.translate("why", "unsupported content type"),
            "bad_redirect": QCoreApplication.translate("why", "redirect without a target"),
            "redirect_loop": QCoreApplication.translate("why", "redirect loop"),
            "too_many_redirects": QCoreApplication.translate("why", "too many redirects"),
            "robots": QCoreApplication.translate("why", "disallowed by robots.txt"),
            "blocked_address": QCoreApplication.translate("why", "address not allowed"),
            "out_of_scope": QCoreApplication.translate("why", "outside the crawl's scope"),
        }
        return texts.get(kind, kind)
    if status is not None:
        return _fill(QCoreApplication.translate("why", "HTTP %1"), status)
    return message


def retry(row: RetryRow, now: float) -> str:
    """Why a retrying URL waits, and until when."""
    at = fmt.clock(row.next_try)
    if row.next_try <= now:
        return QCoreApplication.translate("why", "due: goes back to its host's queue")
    if waits.retry_of_robots(row):
        return _fill(QCoreApplication.translate("why", "robots.txt unreachable, retry at %1"), at)
    if row.status in (429, 503):
        return backoff(row.next_try, str(row.status), row.retry_after)
    what = error(row.kind, row.status, row.last_error)
    if row.backoff > 0:
        return _fill(
            QCoreApplication.translate("why", "retry at %1 (backoff %2 after %3)"),
            at,
            fmt.duration(row.backoff),
            what,
        )
    return _fill(QCoreApplication.translate("why", "retry at %1 after %2"), at, what)


def hub(r: HubRow) -> str:
    """Why a hub has its span, or why it is not refreshed by itself."""
    if r.parked == PARKED_CRASHED:
        return QCoreApplication.translate(
            "why",
            "parked: the crawl stopped %1 times in a row while fetching it; "
            "Refresh now to try again",
        ).replace("%1", str(r.crashes))
    if r.parked:
        return r.parked
    texts = {
        "learned": QCoreApplication.translate(
            "why", "learned: its share of the budget by its rate"
        ),
        "politeness": QCoreApplication.translate(
            "why", "at the fastest its host's politeness allows"
        ),
        "maximum": QCoreApplication.translate("why", "at the maximum span: it publishes little"),
        "scroll": QCoreApplication.translate("why", "sped up: its list was nearly all new"),
        "burst": QCoreApplication.translate("why", "burst: it publishes much faster lately"),
        "lull": QCoreApplication.translate("why", "lull: it publishes much slower lately"),
        "fixed": QCoreApplication.translate("why", "fixed span"),
        "new": QCoreApplication.translate("why", "learning: its own span until it is known"),
    }
    return texts.get(r.reason, r.reason)
