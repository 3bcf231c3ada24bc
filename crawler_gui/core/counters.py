"""Per-minute crawl counters, kept in the pool so that a report covers the whole run.

The engine's :class:`~crawler_gui.engine.stats.CrawlStats` lives in memory and is gone when
the process ends. These counters are what outlives it: the crawl adds a few integers to a
:class:`Counters` per fetch (in memory, O(1)) and hands the pool the sum about once a minute
(``Frontier.add_counters``). A pool *adds* what it is given to what it holds, so a restarted
crawl goes on counting, and several workers of one Redis pool add up (``HINCRBY``).

Three kinds of records, each a small map of field name to count:

* one per minute of crawling (``minute`` = POSIX seconds // 60), with the fields
  :data:`M_PAGES` .. ``e:<reason>``;
* one per host fetched, with :data:`H_PAGES`, :data:`H_ARTICLES`, ``f:<reason>``;
* one for the whole run: the article-delay histogram (``d:<bucket upper bound>``).

Sizes are in ``docs/storage.md`` and ``docs/redis.md``. Plain data, no I/O: both backends
store it their own way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "DELAY_BOUNDS",
    "Counters",
    "delay_field",
    "delay_median",
    "merge_fields",
]

#: Minute fields: fetches that got an HTTP status, body bytes, articles found, hub fetches,
#: of which feeds and sitemaps, URLs refused by policy (no request sent).
M_PAGES, M_BYTES, M_ARTICLES, M_HUBS, M_FEEDS, M_REFUSED = "p", "b", "a", "h", "f", "r"
#: Prefixes of the minute fields counting each HTTP status (``s:200``) and each error kind
#: of the fetches that got no response (``e:timeout``).
M_STATUS, M_ERROR = "s:", "e:"
#: Host fields: fetches with an HTTP status, articles, and failed fetches by reason
#: (``f:404`` for an HTTP status of 400 or more, ``f:timeout`` for an error kind).
H_PAGES, H_ARTICLES, H_BYTES, H_FAILED = "p", "a", "b", "f:"
#: The delay histogram's field prefix.
D_PREFIX = "d:"

#: Upper bounds (seconds) of the delay histogram, publication to fetch: 10 s to a day, then
#: anything later (the same buckets as the window's article-delay histogram).
DELAY_BOUNDS: tuple[float, ...] = (
    *(10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0),
    *(3600.0, 7200.0, 14400.0, 21600.0, 43200.0, 86400.0, math.inf),
)


def delay_field(seconds: float) -> str:
    """The histogram field of a delay (``d:600``; ``d:inf`` beyond a day)."""
    seconds = max(0.0, seconds)
    for bound in DELAY_BOUNDS:
        if seconds <= bound:
            return f"{D_PREFIX}{bound:g}"
    return f"{D_PREFIX}inf"  # pragma: no cover - the last bound is inf


def delay_median(delays: Mapping[str, int]) -> float | None:
    """The median delay (seconds) from the histogram, interpolated inside its bucket (the
    bucket past a day gives its lower bound); None when no delay was counted."""
    counts = [(b, int(delays.get(f"{D_PREFIX}{b:g}", 0))) for b in DELAY_BOUNDS]
    total = sum(n for _b, n in counts)
    if not total:
        return None
    rank = total / 2
    seen, lower = 0, 0.0
    for bound, n in counts:
        if n and seen + n >= rank:
            if math.isinf(bound):
                return lower
            return lower + (bound - lower) * (rank - seen) / n
        seen += n
        lower = bound
    return lower  # pragma: no cover - the loop always returns


def merge_fields(into: dict[str, int], fields: Mapping[str, int]) -> None:
    for key, n in fields.items():
        into[key] = into.get(key, 0) + int(n)


@dataclass(slots=True)
class Counters:
    """Counts to add to the pool's (a delta), or all the pool holds (``Frontier.counters``)."""

    #: minute (POSIX seconds // 60) -> field -> count
    minutes: dict[int, dict[str, int]] = field(default_factory=dict)
    #: host -> field -> count
    hosts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: ``d:<bound>`` -> articles whose delay from publication fell in that bucket
    delays: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.minutes or self.hosts or self.delays)

    def _minute(self, now: float) -> dict[str, int]:
        m = int(now // 60)
        rec = self.minutes.get(m)
        if rec is None:
            rec = self.minutes[m] = {}
        return rec

    def _host(self, host: str) -> dict[str, int]:
        rec = self.hosts.get(host)
        if rec is None:
            rec = self.hosts[host] = {}
        return rec

    # -- counting (the engine, once per event) -----------------------------------------------------
    def fetch(
        self, now: float, host: str, status: int | None, error: str | None, size: int
    ) -> None:
        """One finished fetch: an HTTP ``status``, or none and the ``error`` kind."""
        m = self._minute(now)
        h = self._host(host)
        if size > 0:
            m[M_BYTES] = m.get(M_BYTES, 0) + size
            h[H_BYTES] = h.get(H_BYTES, 0) + size
        if status is None:
            key = M_ERROR + (error or "error")
            m[key] = m.get(key, 0) + 1
            fail = H_FAILED + (error or "error")
            h[fail] = h.get(fail, 0) + 1
            return
        m[M_PAGES] = m.get(M_PAGES, 0) + 1
        key = f"{M_STATUS}{status}"
        m[key] = m.get(key, 0) + 1
        h[H_PAGES] = h.get(H_PAGES, 0) + 1
        if status >= 400:
            fail = f"{H_FAILED}{status}"
            h[fail] = h.get(fail, 0) + 1

    def refusal(self, now: float) -> None:
        m = self._minute(now)
        m[M_REFUSED] = m.get(M_REFUSED, 0) + 1

    def hub_fetch(self, now: float) -> None:
        m = self._minute(now)
        m[M_HUBS] = m.get(M_HUBS, 0) + 1

    def feed_fetch(self, now: float) -> None:
        """A hub fetch whose body was a feed or a sitemap."""
        m = self._minute(now)
        m[M_FEEDS] = m.get(M_FEEDS, 0) + 1

    def article(self, found_at: float, host: str, delay: float | None) -> None:
        """An article found (at the time its page was fetched), with its delay from
        publication when known."""
        m = self._minute(found_at)
        m[M_ARTICLES] = m.get(M_ARTICLES, 0) + 1
        h = self._host(host)
        h[H_ARTICLES] = h.get(H_ARTICLES, 0) + 1
        if delay is not None:
            key = delay_field(delay)
            self.delays[key] = self.delays.get(key, 0) + 1

    # -- adding up ---------------------------------------------------------------------------------
    def merge(self, other: Counters) -> None:
        """Add ``other`` to this (a flush that failed goes back into the buffer)."""
        for minute, fields in other.minutes.items():
            merge_fields(self.minutes.setdefault(minute, {}), fields)
        for host, fields in other.hosts.items():
            merge_fields(self.hosts.setdefault(host, {}), fields)
        merge_fields(self.delays, other.delays)

    def take(self) -> Counters:
        """Everything counted so far, leaving this empty."""
        out = Counters(self.minutes, self.hosts, self.delays)
        self.minutes, self.hosts, self.delays = {}, {}, {}
        return out

    # -- reading (the report) ----------------------------------------------------------------------
    def total(self, key: str) -> int:
        """The sum of a minute field over the whole run."""
        return sum(rec.get(key, 0) for rec in self.minutes.values())

    def prefixed(self, prefix: str) -> dict[str, int]:
        """The minute fields starting with ``prefix`` summed over the run, by the rest of
        their name (``prefixed("s:")`` -> ``{"200": n, ...}``)."""
        out: dict[str, int] = {}
        for rec in self.minutes.values():
            for key, n in rec.items():
                if key.startswith(prefix):
                    name = key[len(prefix) :]
                    out[name] = out.get(name, 0) + n
        return out


def counters_from_data(data: Mapping[str, object]) -> Counters:
    """The counters from their JSON form (:func:`counters_to_data`, the control channel)."""

    def fields(raw: object) -> dict[str, int]:
        if not isinstance(raw, Mapping):
            return {}
        return {str(k): int(v) for k, v in raw.items() if isinstance(v, int)}

    minutes_raw = data.get("minutes")
    hosts_raw = data.get("hosts")
    minutes = (
        {int(k): fields(v) for k, v in minutes_raw.items() if str(k).lstrip("-").isdigit()}
        if isinstance(minutes_raw, Mapping)
        else {}
    )
    hosts = (
        {str(k): fields(v) for k, v in hosts_raw.items()} if isinstance(hosts_raw, Mapping) else {}
    )
    return Counters(minutes, hosts, fields(data.get("delays")))


def counters_to_data(counters: Counters) -> dict[str, object]:
    return {
        "minutes": {str(k): v for k, v in counters.minutes.items()},
        "hosts": counters.hosts,
        "delays": counters.delays,
    }


def sorted_minutes(counters: Counters) -> Iterable[tuple[int, dict[str, int]]]:
    return sorted(counters.minutes.items())
