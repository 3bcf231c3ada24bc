"""Crawl statistics, kept by the engine and read by the GUI (or the headless log) as snapshots.

:class:`CrawlStats` is written once per finished fetch (``record``, O(1): a few integer
increments) and read a few times a second (``snapshot``, a fixed amount of work whatever the
crawl's size). Nothing grows with the number of fetches:

* response-time percentiles come from a fixed histogram of log-spaced buckets (about 10 %
  apart, 1 ms to 10 min) and are interpolated inside the bucket;
* rates come from a ring of per-second buckets covering the last :data:`SERIES_SECONDS`
  seconds.

Time is injected (``clock``) so tests drive it without sleeping.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "HISTOGRAM_BOUNDS_MS",
    "SERIES_SECONDS",
    "CrawlStats",
    "StatsSnapshot",
]

#: Seconds of per-second history kept (the series and the 10 s / 60 s rates).
SERIES_SECONDS = 300

_HIST_MIN_MS = 1.0
_HIST_MAX_MS = 600_000.0
_HIST_FACTOR = 1.1
_LOG_FACTOR = math.log(_HIST_FACTOR)
_N_FINITE = math.ceil(math.log(_HIST_MAX_MS / _HIST_MIN_MS) / _LOG_FACTOR) + 1

#: Upper bounds (ms) of the response-time histogram buckets; the last one is ``inf``.
#: Bucket 0 holds 0..1 ms, bucket ``i`` holds (bound[i-1], bound[i]].
HISTOGRAM_BOUNDS_MS: tuple[float, ...] = (
    *(round(_HIST_MIN_MS * _HIST_FACTOR**i, 3) for i in range(_N_FINITE)),
    math.inf,
)
_LAST = len(HISTOGRAM_BOUNDS_MS) - 1

_CLASSES = ("2xx", "3xx", "4xx", "5xx", "error")


def _bucket_of(ms: float) -> int:
    if ms <= _HIST_MIN_MS:
        return 0
    i = math.ceil(math.log(ms / _HIST_MIN_MS) / _LOG_FACTOR)
    # Guard against rounding at a bound: move down/up so bound[i-1] < ms <= bound[i].
    if i > 0 and ms <= HISTOGRAM_BOUNDS_MS[min(i - 1, _LAST)]:
        i -= 1
    elif i <= _LAST and ms > HISTOGRAM_BOUNDS_MS[min(i, _LAST)]:
        i += 1
    return min(i, _LAST)


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    """The crawl's numbers at one moment. Immutable; safe to hand to another thread."""

    time: float
    #: When ``start()`` was called (POSIX seconds); 0 if not started.
    started: float
    #: Seconds since ``started`` (0 if not started).
    elapsed: float
    #: Fetches that finished with an HTTP status (any status).
    pages: int
    #: Fetches that finished with no HTTP status (timeouts, resets, ...).
    errors: int
    bytes: int
    pages_per_s_10s: float
    pages_per_s_60s: float
    pages_per_s_avg: float
    bytes_per_s_10s: float
    #: ``{"200": n, "404": n, ...}``
    status_counts: Mapping[str, int]
    #: ``{ErrorKind value: n}``
    error_counts: Mapping[str, int]
    #: ``{"2xx": n, "3xx": n, "4xx": n, "5xx": n, "error": n}`` (all five keys always present)
    status_classes: Mapping[str, int]
    response_ms_p50: float
    response_ms_p90: float
    response_ms_p99: float
    #: ``((bucket upper bound in ms, count), ...)`` for the non-empty buckets, in order.
    response_hist: tuple[tuple[float, int], ...]
    #: ``((second start time, pages, errors), ...)``, one entry per second, oldest first, from
    #: the later of the start second and 299 s ago up to the current (partial) second.
    series: tuple[tuple[float, int, int], ...]
    #: URLs refused by the crawl's policy (blocked address, robots.txt, scope): not errors.
    refused: int = 0
    #: Pages judged articles by the extraction so far (0 when extraction is off).
    articles_found: int = 0
    #: Pages handed to extraction and not yet extracted (bounded by the extraction queue).
    extraction_backlog: int = 0


class CrawlStats:
    """Counters of one crawl. Not thread-safe: write and read from the engine's loop thread."""

    __slots__ = (
        "_bytes",
        "_classes",
        "_clock",
        "_error_counts",
        "_errors",
        "_hist",
        "_hist_total",
        "_pages",
        "_refused",
        "_ring_bytes",
        "_ring_errors",
        "_ring_pages",
        "_ring_sec",
        "_started",
        "_status_counts",
    )

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._started = 0.0
        self._pages = 0
        self._errors = 0
        self._refused = 0
        self._bytes = 0
        self._status_counts: dict[int, int] = {}
        self._error_counts: dict[str, int] = {}
        self._classes = [0, 0, 0, 0, 0]
        self._hist = [0] * len(HISTOGRAM_BOUNDS_MS)
        self._hist_total = 0
        self._ring_sec = [-1] * SERIES_SECONDS
        self._ring_pages = [0] * SERIES_SECONDS
        self._ring_errors = [0] * SERIES_SECONDS
        self._ring_bytes = [0] * SERIES_SECONDS

    @property
    def started(self) -> float:
        return self._started

    def start(self) -> None:
        """Mark the start of the crawl (again after a restart: the rates restart, counts stay)."""
        self._started = self._clock()

    def record_refusal(self) -> None:
        """Count a URL our own policy refused: not a fetch, not an error."""
        self._refused += 1

    def record(self, status: int | None, error: str | None, size: int, elapsed: float) -> None:
        """Count one finished fetch: ``status`` is the HTTP status, or ``None`` with ``error``
        (an :class:`~crawler_gui.core.policy.ErrorKind` value) when there was no response;
        ``size`` is the body size in bytes and ``elapsed`` the response time in seconds."""
        now = self._clock()
        if not self._started:
            self._started = now
        sec = int(now)
        i = sec % SERIES_SECONDS
        if self._ring_sec[i] != sec:
            self._ring_sec[i] = sec
            self._ring_pages[i] = 0
            self._ring_errors[i] = 0
            self._ring_bytes[i] = 0
        if size > 0:
            self._bytes += size
            self._ring_bytes[i] += size
        if status is None:
            self._errors += 1
            self._ring_errors[i] += 1
            key = error or "error"
            self._error_counts[key] = self._error_counts.get(key, 0) + 1
            self._classes[4] += 1
            return
        self._pages += 1
        self._ring_pages[i] += 1
        self._status_counts[status] = self._status_counts.get(status, 0) + 1
        cls = status // 100 - 2
        if 0 <= cls <= 3:
            self._classes[cls] += 1
        self._hist[_bucket_of(elapsed * 1000.0)] += 1
        self._hist_total += 1

    # -- reading -----------------------------------------------------------------------------

    def _window(self, now: float, seconds: int, ring: list[int]) -> float:
        """Events per second over the last ``seconds`` (the current partial second included)."""
        if not self._started:
            return 0.0
        cur = int(now)
        first = cur - seconds + 1
        total = 0
        ring_sec = self._ring_sec
        for sec in range(first, cur + 1):
            i = sec % SERIES_SECONDS
            if ring_sec[i] == sec:
                total += ring[i]
        span = now - max(float(first), self._started)
        return total / max(span, 1.0)

    def _percentile(self, q: float) -> float:
        total = self._hist_total
        if not total:
            return 0.0
        rank = q * total
        seen = 0
        hist = self._hist
        for i, n in enumerate(hist):
            if not n:
                continue
            if seen + n >= rank:
                lower = 0.0 if i == 0 else HISTOGRAM_BOUNDS_MS[i - 1]
                upper = HISTOGRAM_BOUNDS_MS[i]
                if math.isinf(upper):
                    return lower
                frac = (rank - seen) / n
                return lower + (upper - lower) * frac
            seen += n
        return HISTOGRAM_BOUNDS_MS[_LAST - 1]  # pragma: no cover - unreachable

    def snapshot(self) -> StatsSnapshot:
        now = self._clock()
        started = self._started
        elapsed = max(0.0, now - started) if started else 0.0
        series: list[tuple[float, int, int]] = []
        if started:
            cur = int(now)
            first = max(int(started), cur - SERIES_SECONDS + 1)
            ring_sec = self._ring_sec
            for sec in range(first, cur + 1):
                i = sec % SERIES_SECONDS
                if ring_sec[i] == sec:
                    series.append((float(sec), self._ring_pages[i], self._ring_errors[i]))
                else:
                    series.append((float(sec), 0, 0))
        return StatsSnapshot(
            time=now,
            started=started,
            elapsed=elapsed,
            pages=self._pages,
            errors=self._errors,
            bytes=self._bytes,
            pages_per_s_10s=self._window(now, 10, self._ring_pages),
            pages_per_s_60s=self._window(now, 60, self._ring_pages),
            pages_per_s_avg=self._pages / elapsed if elapsed > 0 else 0.0,
            bytes_per_s_10s=self._window(now, 10, self._ring_bytes),
            status_counts=MappingProxyType(
                {str(k): v for k, v in sorted(self._status_counts.items())}
            ),
            error_counts=MappingProxyType(dict(sorted(self._error_counts.items()))),
            status_classes=MappingProxyType(dict(zip(_CLASSES, self._classes, strict=True))),
            response_ms_p50=self._percentile(0.50),
            response_ms_p90=self._percentile(0.90),
            response_ms_p99=self._percentile(0.99),
            response_hist=tuple((HISTOGRAM_BOUNDS_MS[i], n) for i, n in enumerate(self._hist) if n),
            series=tuple(series),
            refused=self._refused,
        )
