"""Hub refresh that learns each hub's rhythm: rate estimates and the refresh budget.

Pure functions and small values, no clock and no I/O (the pool passes times in), so both pool
backends use the same rules and tests run on synthetic histories. The derivation is in
``docs/freshness.md``; in short:

* A hub publishes new articles as a Poisson process of rate ``λ`` (articles per second). Each
  refresh reports how many links were new since the previous one, ``n`` over ``Δt`` seconds; a
  list that was *all* new is censored (at least ``n`` were published, some may have scrolled off).
* :class:`RateState` keeps two exponentially forgetting Gamma–Poisson estimates of ``λ``: a long
  memory (accurate on steady hubs) and a short one (quick on bursts). The short one is used only
  when the last minutes are statistically out of line with the long one (a Poisson tail test), so
  a steady hub is not made noisy and a burst is followed within a few refreshes.
* :func:`allocate` spends a budget of ``B`` hub fetches a second (what the user's fixed spans would
  spend: ``Σ 1/spanᵢ``) to minimise the mean delay from publication to discovery. With periodic
  refreshes of span ``Tᵢ`` an article waits ``Tᵢ/2`` on average, so the rate-weighted mean delay is
  ``Σ λᵢ Tᵢ / (2 Σ λᵢ)``; minimising it under ``Σ 1/Tᵢ = B`` gives ``1/Tᵢ ∝ √λᵢ`` and the oracle
  mean ``(Σ √λᵢ)² / (2 B Σ λᵢ)``. Each hub's frequency is then held within its bounds: never
  faster than its host's politeness allows, never slower than a maximum span (a silent hub is
  still checked), and fast enough that its list does not scroll off between two refreshes.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

__all__ = [
    "HubDemand",
    "RateState",
    "Regime",
    "SpanReason",
    "allocate",
    "mean_delay",
    "oracle_mean_delay",
    "poisson_sf",
]

#: Memory of the long estimate, seconds of observation (a steady hub's rate, accurate).
LONG_MEMORY = 6 * 3600.0
#: Memory of the short estimate, seconds (reacts to a burst within a few refreshes).
SHORT_MEMORY = 150.0
#: The prior is worth this many articles: enough to keep a new hub's first estimate sane,
#: little enough that ten observed articles dominate it.
PRIOR_ARTICLES = 0.5
#: A tail probability below this means the short estimate disagrees with the long one.
SIGNIFICANCE = 0.01
#: Refresh a hub at least this often relative to its list: at most this share of its visible
#: items should be new at a refresh, so a Poisson burst rarely pushes an article off the list.
SCROLL_SHARE = 0.5


class Regime(enum.StrEnum):
    """Which estimate a hub's rate comes from, and why (shown in the Hubs pane)."""

    LEARNING = "learning"  #: too few refreshes to tell: the prior still weighs
    STEADY = "steady"  #: the long memory
    BURST = "burst"  #: the last minutes publish well above the long rate
    LULL = "lull"  #: the last minutes publish well below the long rate


class SpanReason(enum.StrEnum):
    """Why a hub's span is what it is."""

    LEARNED = "learned"  #: the √rate share of the budget
    POLITENESS = "politeness"  #: held at the fastest its host's politeness allows
    MAXIMUM = "maximum"  #: held at the maximum span (a slow or silent hub)
    SCROLL = "scroll"  #: sped up so its list does not scroll off between refreshes
    FIXED = "fixed"  #: adaptive refresh is off: the hub's own span


def poisson_sf(k: float, mean: float) -> float:
    """``P(N ≥ k)`` for ``N ~ Poisson(mean)`` (``k`` rounded up to a whole count)."""
    whole = math.ceil(k)
    if whole <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    # Sum the lower terms in log space; 1 - cdf is accurate enough at the 1 % level used here.
    term = math.exp(-mean)
    cdf = term
    for i in range(1, whole):
        term *= mean / i
        cdf += term
        if term == 0.0 and i > mean:
            break
    return max(0.0, 1.0 - cdf)


def poisson_cdf(k: float, mean: float) -> float:
    """``P(N ≤ k)`` for ``N ~ Poisson(mean)`` (``k`` rounded down)."""
    return 1.0 - poisson_sf(math.floor(k) + 1, mean)


def _censored_mean(at_least: int, mean: float) -> float:
    """``E[N | N ≥ at_least]`` for ``N ~ Poisson(mean)``: the expected count behind a list that
    was all new. ``E[N; N ≥ k] = mean · P(N ≥ k-1)``."""
    tail = poisson_sf(at_least, mean)
    if tail <= 1e-12:
        return float(at_least) + 1.0  # the estimate is far below what we saw: at least one more
    return max(float(at_least), mean * poisson_sf(at_least - 1, mean) / tail)


@dataclass(frozen=True, slots=True)
class RateState:
    """What a hub's refreshes taught us. Plain numbers: persisted by both pool backends.

    ``*_count`` are forgetting sums of new articles, ``*_time`` the matching sums of observed
    seconds; the estimate is ``(count + prior) / (time + prior / prior_rate)``.
    """

    long_count: float = 0.0
    long_time: float = 0.0
    short_count: float = 0.0
    short_time: float = 0.0
    observed: int = 0  #: new articles seen in all (as reported, before censoring)
    refreshes: int = 0  #: refreshes that reported a count
    last_new: int = 0  #: new articles at the last refresh
    last_visible: int = 0  #: items its list showed at the last refresh (0: unknown)
    censored: int = 0  #: refreshes whose list was all new (articles may have been lost)

    def observe(self, new: int, visible: int, elapsed: float, prior_rate: float) -> RateState:
        """The state after a refresh that found ``new`` new items among ``visible`` listed ones,
        ``elapsed`` seconds after the previous refresh."""
        if new < 0 or visible < 0 or not math.isfinite(elapsed):
            raise ValueError(f"bad refresh observation: new={new} visible={visible}")
        if elapsed <= 0:
            return replace(self, observed=self.observed + new, last_new=new, last_visible=visible)
        was_censored = visible > 0 and new >= visible
        count = float(new)
        if was_censored:
            guess = max(self.rate(prior_rate)[0], new / elapsed)
            count = _censored_mean(new, guess * elapsed)
        keep_long = math.exp(-elapsed / LONG_MEMORY)
        keep_short = math.exp(-elapsed / SHORT_MEMORY)
        return RateState(
            long_count=self.long_count * keep_long + count,
            long_time=self.long_time * keep_long + elapsed,
            short_count=self.short_count * keep_short + count,
            short_time=self.short_time * keep_short + elapsed,
            observed=self.observed + new,
            refreshes=self.refreshes + 1,
            last_new=new,
            last_visible=visible,
            censored=self.censored + (1 if was_censored else 0),
        )

    def rate(self, prior_rate: float) -> tuple[float, Regime]:
        """The estimated rate (articles per second) and which estimate it comes from.

        ``prior_rate`` is what a hub is assumed to publish before anything is known (one
        article per average span is a fair choice: it gives a new hub the average span)."""
        prior_rate = max(prior_rate, 1e-9)
        prior_time = PRIOR_ARTICLES / prior_rate
        long = (self.long_count + PRIOR_ARTICLES) / (self.long_time + prior_time)
        if self.refreshes < 2:
            return long, Regime.LEARNING
        # Is the short window's count plausible under the long rate?
        expected = long * self.short_time
        if poisson_sf(self.short_count, expected) < SIGNIFICANCE:
            return (self.short_count + PRIOR_ARTICLES) / (self.short_time + prior_time), (
                Regime.BURST
            )
        if self.short_count < expected and poisson_cdf(self.short_count, expected) < SIGNIFICANCE:
            short = (self.short_count + PRIOR_ARTICLES) / (self.short_time + prior_time)
            return short, Regime.LULL
        return long, Regime.STEADY

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> RateState:
        """Parse a stored state; a malformed one raises ``ValueError`` (never trusted blindly)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a hub's rate state must be a JSON object")
        floats = ("long_count", "long_time", "short_count", "short_time")
        ints = ("observed", "refreshes", "last_new", "last_visible", "censored")
        values: dict[str, float | int] = {}
        for name in floats:
            value = data.get(name, 0.0)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"bad {name} in a hub's rate state: {value!r}")
            values[name] = float(value)
        for name in ints:
            value = data.get(name, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"bad {name} in a hub's rate state: {value!r}")
            values[name] = value
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class HubDemand:
    """One hub as the allocation sees it."""

    rate: float  #: estimated new articles per second
    min_span: float  #: the fastest its host's politeness allows, seconds
    max_span: float  #: the slowest it may be refreshed, seconds
    visible: int = 0  #: items its list shows (0: unknown, no scroll-off bound)


def _bounds(demand: HubDemand) -> tuple[float, float, bool]:
    """(lowest frequency, highest frequency, whether the lowest is the scroll-off bound)."""
    high = 1.0 / max(demand.min_span, 1e-6)
    low = 1.0 / max(demand.max_span, demand.min_span, 1e-6)
    scroll = False
    if demand.visible > 0 and demand.rate > 0:
        needed = demand.rate / (SCROLL_SHARE * demand.visible)
        if needed > low:
            low, scroll = min(needed, high), True
    return low, high, scroll


def allocate(demands: Sequence[HubDemand], budget: float) -> list[tuple[float, SpanReason]]:
    """Spans (seconds) and their reasons for ``demands``, spending ``budget`` fetches a second.

    Frequencies are ``clip(c·√λᵢ, lowᵢ, highᵢ)`` with ``c`` chosen so they add up to the budget
    (water-filling; found by bisection, the sum is monotone in ``c``). When even the lower bounds
    exceed the budget, the scroll-off bounds are scaled down first; the maximum-span bounds are
    kept (a silent hub is always checked), so the budget can then be exceeded by them alone.
    """
    if not demands:
        return []
    bounds = [_bounds(d) for d in demands]
    lows = [b[0] for b in bounds]
    highs = [b[1] for b in bounds]
    if sum(lows) > budget:
        floors = [1.0 / max(d.max_span, d.min_span, 1e-6) for d in demands]
        spare = budget - sum(floors)
        extra = sum(low - floor for low, floor in zip(lows, floors, strict=True))
        share = max(0.0, spare) / extra if extra > 0 else 0.0
        freqs = [floor + (low - floor) * share for low, floor in zip(lows, floors, strict=True)]
        return [
            (1.0 / f, SpanReason.SCROLL if b[2] and share > 0 else SpanReason.MAXIMUM)
            for f, b in zip(freqs, bounds, strict=True)
        ]
    if sum(highs) <= budget:
        return [(1.0 / h, SpanReason.POLITENESS) for h in highs]
    roots = [math.sqrt(max(d.rate, 0.0)) for d in demands]

    def spent(c: float) -> float:
        return sum(min(hi, max(lo, c * r)) for r, lo, hi in zip(roots, lows, highs, strict=True))

    lo_c, hi_c = 0.0, 1.0
    while spent(hi_c) < budget:
        hi_c *= 2.0
        if hi_c > 1e18:
            break
    for _ in range(100):
        mid = (lo_c + hi_c) / 2
        if spent(mid) < budget:
            lo_c = mid
        else:
            hi_c = mid
    c = hi_c
    result: list[tuple[float, SpanReason]] = []
    for r, (low, high, scroll) in zip(roots, bounds, strict=True):
        want = c * r
        if want >= high:
            result.append((1.0 / high, SpanReason.POLITENESS))
        elif want <= low:
            result.append((1.0 / low, SpanReason.SCROLL if scroll else SpanReason.MAXIMUM))
        else:
            result.append((1.0 / want, SpanReason.LEARNED))
    return result


def mean_delay(rates: Sequence[float], spans: Sequence[float]) -> float:
    """Mean delay from publication to discovery, over all articles, for periodic refreshes."""
    total = sum(rates)
    if total <= 0:
        return 0.0
    return sum(r * s / 2 for r, s in zip(rates, spans, strict=True)) / total


def oracle_mean_delay(rates: Sequence[float], budget: float) -> float:
    """The best mean delay ``budget`` fetches a second can give, knowing the true rates and
    ignoring bounds: ``(Σ √λᵢ)² / (2 B Σ λᵢ)``."""
    total = sum(rates)
    if total <= 0 or budget <= 0:
        return 0.0
    return sum(math.sqrt(r) for r in rates) ** 2 / (2 * budget * total)
