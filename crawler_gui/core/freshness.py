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
  still checked), and fast enough that its list does not scroll off between two refreshes at
  the rate its articles are published at (the article-weighted rate ``∫λ²/∫λ``: a hub that
  bursts keeps, through its lulls, the span its bursts need).
* Each hub remembers its last list (hashes of at most :data:`SEEN_MAX` links) and learns its
  own publication rate from the links new to *its* list, whoever found them first (a feed).
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace

__all__ = [
    "FreshnessWindow",
    "HubDemand",
    "HubInput",
    "ListSample",
    "RateState",
    "Regime",
    "SpanReason",
    "allocate",
    "allocate_level",
    "link_key",
    "list_sample",
    "mean_delay",
    "oracle_mean_delay",
    "plan_one",
    "plan_spans",
    "poisson_sf",
    "published_seconds",
    "span_at_level",
]

log = logging.getLogger(__name__)

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
#: A hub's span grows at most this much over the interval its last refresh covered: a few quiet
#: minutes are weak evidence, and a busy hub wrongly sent to the maximum span after one quiet
#: refresh (a burst that had not started yet) would lose its list before it is seen again.
SPAN_GROWTH = 2.0
#: Memory of the article-weighted rate (seconds): the rate a hub's articles are published at,
#: which its list must not scroll off at. Long enough to span the lulls of a hub that bursts
#: every few minutes, short enough that a hub is slowed down again within minutes of a burst
#: that does not come back.
BURST_MEMORY = 300.0
#: The article-weighted rate is shrunk towards the long rate by this many articles' worth, so
#: that a fluke (two articles in a 1 s "refresh now" interval) does not hold a hub fast.
BURST_PRIOR = 5.0
#: At most this many links of a hub's last list are remembered (its "seen" memory); a longer
#: list (a sitemap) keeps a hash sample of them (:func:`list_sample`).
SEEN_MAX = 256
#: Hex digits of a remembered link's hash (48 bits: a collision among a list's links is
#: ~1e-10 likely, and it only undercounts one article).
KEY_DIGITS = 12


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
    BURST = "burst"  #: learned, from the short estimate: the hub publishes well above its rate
    LULL = "lull"  #: learned, from the short estimate: the hub publishes well below its rate
    NEW = "new"  #: no refresh has reported its links yet: the hub's own span


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
    last_elapsed: float = 0.0  #: seconds the last refresh covered (since the one before)
    #: Forgetting sums (:data:`BURST_MEMORY`) of ``(n² − n)/Δt`` and of ``n`` over the
    #: refreshes: their ratio estimates the article-weighted rate ``∫λ²/∫λ``
    #: (:meth:`burst_rate`).
    burst_square: float = 0.0
    burst_count: float = 0.0
    #: The hub's own publication rate: forgetting sums (long memory) of the links that were
    #: on its list for the first time *for this hub* (new to the hub, whether or not the pool
    #: knew them: a feed may have found them first), and how many such links in all.
    own_count: float = 0.0
    own_time: float = 0.0
    own_observed: int = 0
    #: The links of its last list (``seen_step`` > 0), as :data:`KEY_DIGITS`-digit hashes
    #: (:func:`link_key`) back to back; a list longer than :data:`SEEN_MAX` keeps those whose
    #: hash is a multiple of ``seen_step`` (a power of two). ``seen_step`` 0: no list yet.
    seen: str = ""
    seen_step: int = 0

    def observe(
        self,
        new: int,
        visible: int,
        elapsed: float,
        prior_rate: float,
        items: ListSample | None = None,
    ) -> RateState:
        """The state after a refresh that found ``new`` items the pool had not seen among
        ``visible`` listed ones, ``elapsed`` seconds after the previous refresh. ``items``: the
        list's links (:func:`list_sample`; None: no list was read, a 304, or not known: the
        list is taken as unchanged apart from the ``new`` ones)."""
        if new < 0 or visible < 0 or not math.isfinite(elapsed):
            raise ValueError(f"bad refresh observation: new={new} visible={visible}")
        if visible == 0:
            # The list's size is unknown (a 304 Not Modified: no body was read): it is what
            # the last refresh with a body showed, for censoring and the scroll-off bound.
            visible = self.last_visible
        own_new, seen, seen_step = new, self.seen, self.seen_step
        if items is not None:
            news, seen, seen_step = self._list_news(items)
            if news is not None:
                own_new = news
        if elapsed <= 0:
            return replace(
                self,
                observed=self.observed + new,
                last_new=new,
                last_visible=visible,
                seen=seen,
                seen_step=seen_step,
            )
        was_censored = visible > 0 and new >= visible
        count = float(new)
        if was_censored:
            guess = max(self.rate(prior_rate)[0], new / elapsed)
            count = _censored_mean(new, guess * elapsed)
        own = float(own_new)
        if visible > 0 and own_new >= visible:
            guess = max(self.own_rate(prior_rate), own_new / elapsed)
            own = _censored_mean(own_new, guess * elapsed)
        keep_long = math.exp(-elapsed / LONG_MEMORY)
        keep_short = math.exp(-elapsed / SHORT_MEMORY)
        keep_burst = math.exp(-elapsed / BURST_MEMORY)
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
            last_elapsed=elapsed,
            own_count=self.own_count * keep_long + own,
            own_time=self.own_time * keep_long + elapsed,
            own_observed=self.own_observed + own_new,
            seen=seen,
            seen_step=seen_step,
            burst_square=self.burst_square * keep_burst + count * max(count - 1.0, 0.0) / elapsed,
            burst_count=self.burst_count * keep_burst + count,
        )

    def _list_news(self, items: ListSample) -> tuple[int | None, str, int]:
        """How many of the list's links were not on this hub's last list (None: no list
        remembered), and the memory of this list (``seen``, ``seen_step``)."""
        news: int | None = None
        if self.seen_step > 0:
            # Compare on the coarser of the two samples (both hold every key it keeps).
            coarse = max(items.step, self.seen_step)
            old = set(_keys(self.seen))
            fresh = sum(1 for k in _keys(items.keys) if int(k, 16) % coarse == 0 and k not in old)
            news = min(fresh * coarse, items.links)
        return news, items.keys, items.step

    def burst_rate(self, prior_rate: float) -> float:
        """The article-weighted rate of the last minutes, ``∫λ² dt / ∫λ dt``: the rate at which
        the list is filling up when a typical article is published. A steady hub's is its
        rate; a hub that alternates between bursts and lulls has the rate of its bursts (where
        its articles are), in its lulls too. Estimated from the refresh counts: for a Poisson
        count ``n`` over ``Δt``, ``E[n(n−1)] = (λΔt)²``, so ``Σ n(n−1)/Δt`` estimates ``∫λ²``
        and ``Σ n`` estimates ``∫λ``; shrunk towards the long rate by :data:`BURST_PRIOR`."""
        long = self.long_rate(prior_rate)
        return (self.burst_square + BURST_PRIOR * long) / (self.burst_count + BURST_PRIOR)

    def own_rate(self, prior_rate: float) -> float:
        """The hub's own publication rate (articles a second): the links new to *its* list,
        long memory. Before any list was remembered, the long estimate."""
        if self.own_time <= 0:
            return self.long_rate(prior_rate)
        prior_time = PRIOR_ARTICLES / max(prior_rate, 1e-9)
        return (self.own_count + PRIOR_ARTICLES) / (self.own_time + prior_time)

    def long_rate(self, prior_rate: float) -> float:
        """The long memory's estimate (articles per second), whatever the last minutes say."""
        prior_time = PRIOR_ARTICLES / max(prior_rate, 1e-9)
        return (self.long_count + PRIOR_ARTICLES) / (self.long_time + prior_time)

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

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: object, where: str = "") -> RateState:
        """A stored state as a JSON value (``None``: nothing learned yet). A malformed one is
        forgotten with a warning: a hub relearns its rate, the pool still opens."""
        if data is None:
            return cls()
        try:
            return cls.from_json(json.dumps(data))
        except (ValueError, TypeError) as exc:
            log.warning(
                "hub %s: its learned rate is unreadable (%s); learning it again", where, exc
            )
            return cls()

    @classmethod
    def from_json(cls, text: str | bytes) -> RateState:
        """Parse a stored state; a malformed one raises ``ValueError`` (never trusted blindly)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a hub's rate state must be a JSON object")
        floats = (
            "long_count",
            "long_time",
            "short_count",
            "short_time",
            "last_elapsed",
            "burst_square",
            "burst_count",
            "own_count",
            "own_time",
        )
        ints = (
            "observed",
            "refreshes",
            "last_new",
            "last_visible",
            "censored",
            "own_observed",
            "seen_step",
        )
        values: dict[str, float | int | str] = {}
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
        seen = data.get("seen", "")
        if (
            not isinstance(seen, str)
            or len(seen) % KEY_DIGITS
            or len(seen) > SEEN_MAX * KEY_DIGITS
            or seen.strip("0123456789abcdef")
        ):
            raise ValueError("bad seen links in a hub's rate state")
        values["seen"] = seen
        return cls(**values)  # type: ignore[arg-type]


def link_key(url: str) -> str:
    """A link's stable short hash (the same in every process and worker), for a hub's memory
    of its last list."""
    return hashlib.blake2b(url.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


@dataclass(frozen=True, slots=True)
class ListSample:
    """A hub's list as its memory keeps it: how many distinct links it shows, and the hashes
    (:func:`link_key`) of those whose hash is a multiple of ``step`` (a power of two: 1 unless
    the list is longer than :data:`SEEN_MAX`), sorted, back to back."""

    links: int
    step: int
    keys: str


def list_sample(urls: Iterable[str]) -> ListSample:
    """The memory of a list of ``urls``: O(links) hashing (a few µs a link), so a sitemap of
    tens of thousands of links is sampled on a worker thread."""
    keys = {link_key(url) for url in urls}
    step, kept = 1, sorted(keys)
    while len(kept) > SEEN_MAX:  # a hash sample: on average half as many at each step
        step *= 2
        kept = [k for k in kept if int(k, 16) % step == 0]
    return ListSample(len(keys), step, "".join(kept))


def _keys(packed: str) -> list[str]:
    return [packed[i : i + KEY_DIGITS] for i in range(0, len(packed), KEY_DIGITS)]


@dataclass(frozen=True, slots=True)
class HubDemand:
    """One hub as the allocation sees it."""

    rate: float  #: estimated new articles per second
    min_span: float  #: the fastest its host's politeness allows, seconds
    max_span: float  #: the slowest it may be refreshed, seconds
    visible: int = 0  #: items its list shows (0: unknown, no scroll-off bound)
    #: The rate its list must not scroll off at (0: ``rate``). In a lull it is the long-run
    #: rate: the hub may wake up at any moment, and its list fills at that rate again.
    scroll_rate: float = 0.0


def _bounds(demand: HubDemand) -> tuple[float, float, bool]:
    """(lowest frequency, highest frequency, whether the lowest is the scroll-off bound)."""
    high = 1.0 / max(demand.min_span, 1e-6)
    low = 1.0 / max(demand.max_span, demand.min_span, 1e-6)
    scroll = False
    rate = max(demand.rate, demand.scroll_rate)
    if demand.visible > 0 and rate > 0:
        needed = rate / (SCROLL_SHARE * demand.visible)
        if needed > low:
            low, scroll = min(needed, high), True
    return low, high, scroll


def allocate(demands: Sequence[HubDemand], budget: float) -> list[tuple[float, SpanReason]]:
    """Spans (seconds) and their reasons for ``demands``: :func:`allocate_level` without the
    level."""
    return allocate_level(demands, budget)[0]


def span_at_level(demand: HubDemand, level: float) -> tuple[float, SpanReason]:
    """One hub's span at the water level ``level`` of an earlier :func:`allocate_level`: what
    a hub whose rate just changed gets at once, before the next full allocation (O(1))."""
    low, high, scroll = _bounds(demand)
    want = level * math.sqrt(max(demand.rate, 0.0))
    if want >= high:
        return 1.0 / high, SpanReason.POLITENESS
    if want <= low:
        return 1.0 / low, SpanReason.SCROLL if scroll else SpanReason.MAXIMUM
    return 1.0 / want, SpanReason.LEARNED


def allocate_level(
    demands: Sequence[HubDemand], budget: float
) -> tuple[list[tuple[float, SpanReason]], float | None]:
    """Spans (seconds) and their reasons for ``demands``, spending ``budget`` fetches a second.

    Frequencies are ``clip(c·√λᵢ, lowᵢ, highᵢ)`` with ``c`` chosen so they add up to the budget
    (water-filling; found by bisection, the sum is monotone in ``c``). When even the lower bounds
    exceed the budget, the scroll-off bounds are scaled down first; the maximum-span bounds are
    kept (a silent hub is always checked), so the budget can then be exceeded by them alone.
    Also returns the water level ``c`` (None when the bounds alone decided every span).
    """
    if not demands:
        return [], None
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
        ], None
    if sum(highs) <= budget:
        return [(1.0 / h, SpanReason.POLITENESS) for h in highs], None
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
    return result, c


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


#: ``--hub-refresh``: how hubs are scheduled.
HUB_REFRESH_MODES = ("adaptive", "fixed")
#: Defaults of ``--hub-span-min`` / ``--hub-span-max`` (seconds).
DEFAULT_SPAN_MIN = 5.0
DEFAULT_SPAN_MAX = 3600.0


@dataclass(frozen=True, slots=True)
class HubInput:
    """One hub as both pools hand it to :func:`plan_spans`."""

    span: float  #: the user's span (what a fixed schedule would use): its share of the budget
    state: RateState
    min_span: float  #: the fastest its host's politeness allows, seconds


def prior_rate(span: float) -> float:
    """A new hub is assumed to publish one article per its user span."""
    return 1.0 / max(span, 1e-6)


def demand_of(hub: HubInput, span_min: float, span_max: float) -> HubDemand:
    """The √rate share follows the current estimate (a lull's low rate too); the scroll-off
    bound never drops below the long-run rate's nor the article-weighted rate's
    (:meth:`RateState.burst_rate`), so that a hub whose bursts come back (a section that
    alternates, a quiet night) is not left so slow in a lull that the first articles of the
    next burst scroll off its list before it is looked at again."""
    prior = prior_rate(hub.span)
    rate, _regime = hub.state.rate(prior)
    longest = max(span_max, span_min)
    if hub.state.last_elapsed > 0:
        # Slower than its own span only step by step (SPAN_GROWTH; a "refresh now" that
        # covered a second does not hold it fast).
        longest = min(longest, max(SPAN_GROWTH * hub.state.last_elapsed, hub.span, span_min))
    return HubDemand(
        rate=rate,
        min_span=max(span_min, hub.min_span),
        max_span=longest,
        visible=hub.state.last_visible,
        scroll_rate=max(hub.state.long_rate(prior), hub.state.burst_rate(prior)),
    )


def _with_regime(hub: HubInput, span: float, reason: SpanReason) -> tuple[float, SpanReason]:
    if reason is SpanReason.LEARNED:
        regime = hub.state.rate(prior_rate(hub.span))[1]
        if regime is Regime.BURST:
            return span, SpanReason.BURST
        if regime is Regime.LULL:
            return span, SpanReason.LULL
    return span, reason


def plan_spans(
    hubs: Sequence[HubInput], *, adaptive: bool, span_min: float, span_max: float
) -> tuple[list[tuple[float, SpanReason]], float | None]:
    """Each hub's span and why, and the water level (for :func:`plan_one`).

    The budget is what the user's spans would spend, ``B = Σ 1/spanᵢ``; ``adaptive`` off gives
    every hub its own span (the fixed schedule, reason ``fixed``). A hub no refresh has told
    anything yet keeps its own span (reason ``new``) and its share of the budget."""
    if not adaptive:
        return [(h.span, SpanReason.FIXED) for h in hubs], None
    budget = sum(1.0 / h.span for h in hubs if h.span > 0)
    learned = [h for h in hubs if h.state.refreshes > 0]
    budget -= sum(1.0 / h.span for h in hubs if h.state.refreshes == 0 and h.span > 0)
    demands = [demand_of(h, span_min, span_max) for h in learned]
    spans, level = allocate_level(demands, max(budget, 0.0))
    planned = iter(_with_regime(h, s, r) for h, (s, r) in zip(learned, spans, strict=True))
    out = [next(planned) if h.state.refreshes > 0 else (h.span, SpanReason.NEW) for h in hubs]
    return out, level


def plan_one(
    hub: HubInput, level: float | None, *, adaptive: bool, span_min: float, span_max: float
) -> tuple[float, SpanReason] | None:
    """One hub's span at the last plan's level, after its own rate changed (O(1)); None when
    the last plan had no level (the bounds decided every span): keep the hub's planned span."""
    if not adaptive:
        return hub.span, SpanReason.FIXED
    if level is None or hub.state.refreshes == 0:
        return None
    span, reason = span_at_level(demand_of(hub, span_min, span_max), level)
    return _with_regime(hub, span, reason)


#: The crawl's freshness is measured over this many seconds (the overview: "last hour").
FRESHNESS_WINDOW = 3600.0


class FreshnessWindow:
    """The crawl's freshness for the overview: articles found in the last hour, and the
    median delay from publication to fetch of those whose published time is known. Keeps one
    pair of numbers per article of the window (bounded by the crawl's article rate)."""

    def __init__(self, window: float = FRESHNESS_WINDOW) -> None:
        from collections import deque

        self.window = window
        self._found: deque[float] = deque()
        self._delays: deque[tuple[float, float]] = deque()

    def add(self, found_at: float, published: float | None) -> None:
        """An article fetched at ``found_at`` (POSIX seconds), published at ``published``
        (None: unknown). A publication after the fetch (a clock or zone error) counts as 0."""
        self._found.append(found_at)
        if published is not None and math.isfinite(published):
            self._delays.append((found_at, max(0.0, found_at - published)))

    def summary(self, now: float) -> tuple[int, float | None]:
        """(articles found in the window, median delay in seconds or None)."""
        horizon = now - self.window
        while self._found and self._found[0] < horizon:
            self._found.popleft()
        while self._delays and self._delays[0][0] < horizon:
            self._delays.popleft()
        if not self._delays:
            return len(self._found), None
        delays = sorted(d for _t, d in self._delays)
        mid = len(delays) // 2
        median = delays[mid] if len(delays) % 2 else (delays[mid - 1] + delays[mid]) / 2
        return len(self._found), median


def published_seconds(text: str | None) -> float | None:
    """An article's published time (ISO 8601, as extraction stores it) as POSIX seconds; None
    when missing, unreadable or without a time zone (a local time of unknown zone)."""
    if not text:
        return None
    from datetime import datetime

    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed.timestamp()
