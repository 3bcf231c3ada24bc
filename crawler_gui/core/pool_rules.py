"""The pool's rules, once, for every backend: which URLs and hubs a pool takes, what a result
does to a URL and to a hub, how long a host waits, when a failing URL or hub is tried again.

Pure functions over policy values (``core/policy.py``) and the numbers a backend holds; no
state, no clock (``now`` is passed in). The LevelDB pool calls them directly; the Redis pool
calls them in the worker and hands the scripts the values they give, with the inputs read
from the pool that they were made from (a script only changes state, and refuses values made
from inputs that changed meanwhile). The one table a script reads is :func:`retry_schedule`'s:
a URL's attempt count lives in Redis, so ``status.lua`` gets the whole schedule and takes the
delay at that count, as :func:`scheduled_delay` does here.
"""

from __future__ import annotations

import enum
import functools
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from crawler_gui.core.frontier import AddReport, AddRequest, HubSpec, delay_and_basis
from crawler_gui.core.policy import (
    FetchResult,
    Outcome,
    Politeness,
    PoolConfig,
    RetryPolicy,
    classify,
)
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError

#: The longest retry schedule handed to a script (a failure threshold above it is cut).
_SCHEDULE_STEPS = 1000


def outcome_of(result: FetchResult) -> Outcome:
    """What the pool does with a fetched URL (``classify``, with the common 200 first)."""
    return Outcome.DONE if result.status == 200 else classify(result)


def host_delay(politeness: Politeness, elapsed: float, host_minimum: float = 0.0) -> float:
    """Seconds a host waits after a response that took ``elapsed`` seconds; ``host_minimum``
    is its robots.txt ``Crawl-delay`` (``Frontier.set_delay``)."""
    return politeness.delay_after(elapsed, host_minimum)


def host_delay_and_basis(
    politeness: Politeness, elapsed: float, crawl_delay: float, user_delay: float
) -> tuple[float, str]:
    """A host's politeness delay after a response that took ``elapsed`` seconds, from its
    own inputs (robots.txt ``Crawl-delay``; the user's per-host minimum, < 0 when none), and
    which term made it (a ``DELAY_BASES`` key): :func:`frontier.delay_and_basis`. The Redis
    worker computes it for its scripts, from the inputs it reads."""
    return delay_and_basis(
        elapsed,
        politeness.delay_factor,
        politeness.min_delay,
        politeness.max_delay,
        crawl_delay,
        user_delay,
    )


@functools.lru_cache(maxsize=16)
def retry_schedule(retry: RetryPolicy) -> tuple[float, ...]:
    """The delays before the next attempt after 1, 2, … failures: one for every attempt a
    URL may fail (``failure_threshold``), and on until the delay reaches ``retry.maximum``
    or stops growing; every later failure waits the last one (a hub backs off forever)."""
    delays: list[float] = []
    for failures in range(1, _SCHEDULE_STEPS + 1):
        d = retry.delay(failures)
        grown = len(delays) == 0 or d > delays[-1]
        delays.append(d)
        if failures >= retry.failure_threshold and (d >= retry.maximum or not grown):
            break
    return tuple(delays)


def scheduled_delay(schedule: tuple[float, ...], failures: int) -> float:
    """The delay after ``failures`` failed attempts, from :func:`retry_schedule`."""
    if failures <= 0 or not schedule:
        return 0.0
    return schedule[min(failures, len(schedule)) - 1]


def retry_delay(
    retry: RetryPolicy, outcome: Outcome, failures: int, retry_after: float | None
) -> float:
    """When a retrying URL is tried again: a throttled one after its ``Retry-After`` (capped),
    any other after the backoff for its ``failures`` so far, from :func:`retry_schedule` (the
    table the Redis scripts get: both backends read the same numbers)."""
    if outcome is Outcome.THROTTLED:
        return retry.throttle_delay(retry_after)
    return scheduled_delay(retry_schedule(retry), failures)


class HubOutcome(enum.StrEnum):
    """What a refresh's result does to a hub's next refresh (values: ``status.lua``'s)."""

    BACKOFF = "r"  #: a network failure: back off (up to its span); never parks a hub
    THROTTLED = "t"  #: 429/503: not before its span, nor before Retry-After
    PLANNED = "n"  #: anything else: on its planned span


def hub_outcome(result: FetchResult, outcome: Outcome) -> HubOutcome:
    if outcome is Outcome.RETRY or (
        outcome is Outcome.FAILED and result.error is not None and result.error.retryable
    ):
        return HubOutcome.BACKOFF
    if outcome is Outcome.THROTTLED:
        return HubOutcome.THROTTLED
    return HubOutcome.PLANNED


def hub_next_due(
    now: float,
    kind: HubOutcome,
    *,
    fails: int,
    span: float,
    planned: float,
    throttle: float,
    schedule: tuple[float, ...],
) -> tuple[float, int]:
    """A hub's next due time and its failures in a row, after a refresh of ``kind``
    (``throttle``: the result's throttle delay, ``RetryPolicy.throttle_delay``)."""
    if kind is HubOutcome.BACKOFF:
        fails += 1
        return now + min(span, scheduled_delay(schedule, fails)), fails
    if kind is HubOutcome.THROTTLED:
        return now + max(span, throttle), 0
    return now + planned, 0


#: Which of two records of one URL is kept when a migration finds them under two old spellings
#: that are one URL now: the further its state, the better (a done URL must not be fetched
#: again because an alias of it was still waiting).
_SPELLING_STATE_RANK = {"D": 4, "X": 3, "F": 2, "R": 1, "W": 0}


def spelling_rank(state: str, seq: int) -> tuple[int, int]:
    """The rank of a URL record (its state code, its sequence number) among the records of
    one URL's old spellings: the highest is kept. The furthest state first; then the lower
    sequence number (the older record), so the choice does not depend on which spelling is
    met first."""
    return _SPELLING_STATE_RANK.get(state, -1), -seq


def checked_adds(
    items: Iterable[AddRequest | str],
    config: PoolConfig,
    report: AddReport,
    refused: Counter[str],
) -> Iterator[tuple[str, str, str, int, str | None]]:
    """The URLs of an ``add_many`` a pool may take, each as (as given, canonical URL, host,
    depth, referrer). A URL that is not valid or lies deeper than ``max_depth`` goes into
    ``report.refused`` and ``refused`` (by reason). Duplicates, the host's cap and the
    pool's own state are each backend's."""
    max_depth, max_len = config.max_depth, config.max_url_length
    for item in items:
        if isinstance(item, str):
            raw, depth, referrer = item, 0, None
        else:
            raw, depth, referrer = item.url, item.depth, item.referrer
        try:
            url, host = canonicalize(raw, max_length=max_len)
        except InvalidURLError as exc:
            refused[exc.reason] += 1
            report.refused.append((raw, exc.reason))
            continue
        if max_depth is not None and depth > max_depth:
            refused["too_deep"] += 1
            report.refused.append((raw, "too_deep"))
            continue
        yield raw, url, host, depth, referrer


def checked_hubs(
    hubs: Sequence[HubSpec], config: PoolConfig, report: AddReport, refused: Counter[str]
) -> dict[str, tuple[str, float]]:
    """A new hub list, valid: canonical URL -> (host, span). An invalid URL goes into
    ``report.refused`` and ``refused`` (by reason), a span that is not a positive number into
    ``report.refused`` as ``bad_span``; a hub given twice counts as a duplicate."""
    wanted: dict[str, tuple[str, float]] = {}
    for spec in hubs:
        try:
            url, host = canonicalize(spec.url, max_length=config.max_url_length)
        except InvalidURLError as exc:
            refused[exc.reason] += 1
            report.refused.append((spec.url, exc.reason))
            continue
        if not (spec.span > 0 and math.isfinite(spec.span)):
            report.refused.append((spec.url, "bad_span"))
            continue
        if url in wanted:
            report.duplicate += 1
            continue
        wanted[url] = (host, float(spec.span))
    return wanted
