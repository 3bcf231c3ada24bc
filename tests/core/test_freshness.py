"""Hub rate estimates and the refresh budget, on synthetic refresh histories (no clock)."""

from __future__ import annotations

import math
import random

import pytest

from crawler_gui.core.freshness import (
    HubDemand,
    RateState,
    Regime,
    SpanReason,
    allocate,
    list_sample,
    mean_delay,
    oracle_mean_delay,
    poisson_sf,
)

PER_MINUTE = 1 / 60


def poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw (Knuth's method is fine for the small means used here; large ones are
    summed from pieces)."""
    count = 0
    while mean > 30:
        count += poisson(rng, 30)
        mean -= 30
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return count + k
        k += 1


def refresh_history(
    rate_at: callable,  # type: ignore[valid-type]
    span: float,
    refreshes: int,
    visible: int,
    *,
    seed: int = 1,
    state: RateState | None = None,
    start: float = 0.0,
) -> tuple[RateState, list[tuple[float, float, Regime]]]:
    """Refresh a list of ``visible`` items every ``span`` seconds while articles arrive at
    ``rate_at(t)`` per second; returns the final state and (time, estimate, regime) after each."""
    rng = random.Random(seed)
    state = state or RateState()
    trace = []
    t = start
    for _ in range(refreshes):
        published = poisson(rng, rate_at(t) * span)
        t += span
        state = state.observe(min(published, visible), visible, span, prior_rate=1 / span)
        estimate, regime = state.rate(prior_rate=1 / span)
        trace.append((t, estimate, regime))
    return state, trace


@pytest.mark.parametrize("per_minute", [0.5, 3.0, 12.0])
def test_a_steady_hub_s_rate_is_learned(per_minute: float) -> None:
    rate = per_minute * PER_MINUTE
    state, _ = refresh_history(lambda t: rate, span=60, refreshes=240, visible=50)
    estimate, regime = state.rate(prior_rate=1 / 60)
    assert regime is Regime.STEADY
    assert estimate == pytest.approx(rate, rel=0.2)


def test_a_list_that_is_all_new_is_counted_as_at_least_that_many() -> None:
    """40 a minute on a list of 20 refreshed each minute: every refresh sees 20 new items. A
    naive count says 20 a minute; the censored estimate must see past it."""
    rate = 40 * PER_MINUTE
    state, _ = refresh_history(lambda t: rate, span=60, refreshes=30, visible=20)
    estimate, _ = state.rate(prior_rate=1 / 60)
    assert state.censored >= 25
    assert estimate > 1.15 * 20 * PER_MINUTE
    # Censored counts alone bound the rate only from below: each one pushes the estimate up
    # (the allocation then shortens the span until the counts are whole again).
    state, _ = refresh_history(lambda t: rate, span=60, refreshes=30, visible=20, state=state)
    assert state.rate(prior_rate=1 / 60)[0] > estimate


def test_a_burst_is_followed_within_a_few_refreshes_and_left_after_it() -> None:
    calm, burst = 0.5 * PER_MINUTE, 30 * PER_MINUTE
    state, _ = refresh_history(lambda t: calm, span=30, refreshes=120, visible=60)
    assert state.rate(1 / 30)[1] is Regime.STEADY
    state, trace = refresh_history(lambda t: burst, span=30, refreshes=6, visible=60, state=state)
    first_burst = next(i for i, (_, _, regime) in enumerate(trace) if regime is Regime.BURST)
    assert first_burst <= 2
    assert trace[-1][1] > 0.5 * burst
    state, trace = refresh_history(lambda t: calm, span=30, refreshes=30, visible=60, state=state)
    assert trace[-1][1] < 6 * calm  # back within a small multiple of the calm rate
    assert trace[-1][2] is not Regime.BURST


def test_a_new_hub_starts_at_the_prior() -> None:
    estimate, regime = RateState().rate(prior_rate=1 / 300)
    assert regime is Regime.LEARNING
    assert estimate == pytest.approx(1 / 300)


def test_a_silent_hub_s_rate_falls_towards_zero() -> None:
    state, _ = refresh_history(lambda t: 0.0, span=60, refreshes=100, visible=20)
    assert state.rate(prior_rate=1 / 60)[0] < 0.01 / 60


def test_state_round_trips_and_garbage_is_refused() -> None:
    state, _ = refresh_history(lambda t: 0.05, span=60, refreshes=10, visible=20)
    assert RateState.from_json(state.to_json()) == state
    for bad in ("[]", '{"long_count": -1}', '{"refreshes": 1.5}', '{"long_time": "x"}'):
        with pytest.raises(ValueError, match="rate state"):
            RateState.from_json(bad)
    with pytest.raises(ValueError, match="bad refresh"):
        RateState().observe(-1, 20, 60, prior_rate=1)


def test_poisson_tail() -> None:
    assert poisson_sf(0, 3.0) == 1.0
    assert poisson_sf(1, 3.0) == pytest.approx(1 - math.exp(-3))
    assert poisson_sf(20, 3.0) < 1e-8


def frequencies(result: list[tuple[float, SpanReason]]) -> list[float]:
    return [1 / span for span, _ in result]


def test_equal_hubs_keep_the_average_span() -> None:
    demands = [HubDemand(rate=0.01, min_span=1, max_span=3600)] * 10
    result = allocate(demands, budget=10 / 60)
    assert [span for span, _ in result] == pytest.approx([60.0] * 10)
    assert {reason for _, reason in result} == {SpanReason.LEARNED}


def test_the_budget_is_spent_in_proportion_to_the_square_root_of_the_rate() -> None:
    rates = [0.2, 1, 5, 20]
    demands = [HubDemand(rate=r * PER_MINUTE, min_span=1, max_span=36000) for r in rates]
    budget = 4 / 60
    freqs = frequencies(allocate(demands, budget))
    assert sum(freqs) == pytest.approx(budget, rel=1e-6)
    for f, r in zip(freqs, rates, strict=True):
        assert f / freqs[0] == pytest.approx(math.sqrt(r / rates[0]), rel=1e-4)
    spans = [1 / f for f in freqs]
    per_second = [r * PER_MINUTE for r in rates]
    assert mean_delay(per_second, spans) == pytest.approx(oracle_mean_delay(per_second, budget))
    # ... and it beats the fixed span on the same budget.
    assert mean_delay(per_second, spans) < mean_delay(per_second, [60.0] * 4)


def test_the_oracle_is_the_minimum_over_nearby_allocations() -> None:
    rng = random.Random(7)
    rates = [rng.uniform(0.001, 0.3) for _ in range(6)]
    budget = 0.1
    best = oracle_mean_delay(rates, budget)
    for _ in range(200):
        weights = [rng.uniform(0.5, 2.0) * math.sqrt(r) for r in rates]
        freqs = [budget * w / sum(weights) for w in weights]
        assert mean_delay(rates, [1 / f for f in freqs]) >= best * (1 - 1e-9)


def test_bounds_hold_a_silent_hub_and_a_fast_one() -> None:
    demands = [
        HubDemand(rate=0.0, min_span=1, max_span=600),  # silent: still checked
        HubDemand(rate=10.0, min_span=5, max_span=600),  # at its host's politeness floor
        HubDemand(rate=0.01, min_span=1, max_span=600),
    ]
    result = allocate(demands, budget=3 / 60)
    assert result[0] == (pytest.approx(600.0), SpanReason.MAXIMUM)
    assert result[1] == (pytest.approx(5.0), SpanReason.POLITENESS) or result[1][0] >= 5.0
    assert all(span >= d.min_span - 1e-9 for (span, _), d in zip(result, demands, strict=True))
    assert all(span <= d.max_span + 1e-9 for (span, _), d in zip(result, demands, strict=True))


def test_a_hub_about_to_scroll_off_is_sped_up_first() -> None:
    # 20 a minute on a list of 20: the √rate share alone would refresh it every ~50 s and lose
    # articles; the scroll-off bound asks for at most 10 new per refresh: every 30 s.
    demands = [
        HubDemand(rate=20 * PER_MINUTE, min_span=1, max_span=3600, visible=20),
        *[HubDemand(rate=2 * PER_MINUTE, min_span=1, max_span=3600, visible=20)] * 5,
    ]
    result = allocate(demands, budget=6 / 60)
    span, reason = result[0]
    assert span <= 30.0 + 1e-6
    assert reason in {SpanReason.SCROLL, SpanReason.LEARNED}
    assert sum(frequencies(result)) == pytest.approx(6 / 60, rel=1e-6)


def test_when_scroll_bounds_exceed_the_budget_they_are_scaled_but_maxima_kept() -> None:
    demands = [HubDemand(rate=5.0, min_span=0.1, max_span=100, visible=10)] * 3
    result = allocate(demands, budget=0.5)
    assert sum(frequencies(result)) == pytest.approx(0.5, rel=1e-6)
    silent = [HubDemand(rate=0.0, min_span=1, max_span=100)] * 10
    assert sum(frequencies(allocate(silent, budget=0.01))) == pytest.approx(0.1)


def test_a_budget_above_every_politeness_floor_runs_each_at_its_floor() -> None:
    demands = [HubDemand(rate=0.1, min_span=10, max_span=100)] * 2
    assert allocate(demands, budget=5.0) == [(10.0, SpanReason.POLITENESS)] * 2
    assert allocate([], budget=1.0) == []


# ---- the plan both pools use ---------------------------------------------------------------
def _learned(rate: float, refreshes: int = 30, span: float = 60.0) -> RateState:
    state = RateState()
    for _ in range(refreshes):
        state = state.observe(round(rate * span), 20, span, prior_rate=1 / 60)
    return state


def test_plan_spends_the_budget_of_the_user_spans_by_sqrt_rate() -> None:
    from crawler_gui.core.freshness import HubInput, plan_spans

    # (the slow hub refreshed every 3 min so far: its span may grow to 6 min, SPAN_GROWTH)
    slow_history = _learned(1 / 60, span=180.0)
    hubs = [HubInput(60.0, _learned(16 / 60), 0.0), HubInput(60.0, slow_history, 0.0)]
    plans, level = plan_spans(hubs, adaptive=True, span_min=1.0, span_max=3600.0)
    assert level is not None
    (fast, why_fast), (slow, why_slow) = plans
    assert 1 / fast + 1 / slow == pytest.approx(2 / 60)
    assert slow / fast == pytest.approx(4.0, rel=0.05)  # sqrt(16)
    assert {why_fast, why_slow} <= {SpanReason.LEARNED, SpanReason.SCROLL}


def test_plan_keeps_new_hubs_on_their_span_and_fixed_mode_on_every_span() -> None:
    from crawler_gui.core.freshness import HubInput, plan_one, plan_spans

    hubs = [HubInput(120.0, RateState(), 0.0), HubInput(60.0, _learned(0.1), 0.0)]
    plans, level = plan_spans(hubs, adaptive=True, span_min=1.0, span_max=3600.0)
    assert plans[0] == (120.0, SpanReason.NEW)
    assert plans[1][0] == pytest.approx(60.0)  # alone with its own share of the budget
    fixed, none = plan_spans(hubs, adaptive=False, span_min=1.0, span_max=3600.0)
    assert fixed == [(120.0, SpanReason.FIXED), (60.0, SpanReason.FIXED)] and none is None
    # One hub's span at the plan's level, without planning the rest again.
    assert plan_one(hubs[1], level, adaptive=True, span_min=1.0, span_max=3600.0) == plans[1]
    assert plan_one(hubs[0], level, adaptive=True, span_min=1.0, span_max=3600.0) is None


def test_a_burst_shows_as_the_span_reason() -> None:
    from crawler_gui.core.freshness import HubInput, plan_spans

    state = _learned(1 / 60, refreshes=120)
    for _ in range(4):
        state = state.observe(15, 20, 30.0, prior_rate=1 / 60)
    assert state.rate(1 / 60)[1] is Regime.BURST
    hubs = [HubInput(60.0, state, 0.0)] + [HubInput(60.0, _learned(1 / 60), 0.0)] * 5
    plans, _level = plan_spans(hubs, adaptive=True, span_min=1.0, span_max=3600.0)
    assert plans[0][1] in (SpanReason.BURST, SpanReason.SCROLL)
    assert plans[0][0] < plans[1][0]


def test_a_malformed_stored_state_is_forgotten_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    assert RateState.from_dict(None) == RateState()
    assert RateState.from_dict({"long_count": -1}, "http://a/") == RateState()
    assert RateState.from_dict("nonsense", "http://a/") == RateState()
    assert "learning it again" in caplog.text
    state = _learned(0.1)
    assert RateState.from_dict(state.to_dict()) == state


def test_freshness_window_counts_the_last_hour_and_the_median_delay() -> None:
    from crawler_gui.core.freshness import FreshnessWindow, published_seconds

    w = FreshnessWindow()
    assert w.summary(1000.0) == (0, None)
    w.add(1000.0, 940.0)  # 60 s
    w.add(1010.0, None)  # no published time: counted, no delay
    w.add(1020.0, 1000.0)  # 20 s
    w.add(1030.0, 1100.0)  # published "after" its fetch (a zone error): 0 s
    assert w.summary(1030.0) == (4, 20.0)
    assert w.summary(1000.0 + 3600 + 15) == (2, 10.0)  # the first two left the hour
    assert published_seconds("1970-01-01T00:01:00Z") == 60.0
    assert published_seconds("1970-01-01T08:01:00+08:00") == 60.0
    assert published_seconds("2024-05-01") is None  # a bare date: no time of day, no zone
    assert published_seconds("not a date") is None and published_seconds(None) is None


def test_a_hub_in_a_lull_keeps_the_scroll_off_bound_of_its_long_run_rate() -> None:
    """A hub that alternates between bursts (30 a minute) and lulls (0.5 a minute): in a lull
    its √rate share follows the low rate, but it is not left slower than its list allows at
    its long-run rate, so the next burst's first articles are still listed when it is looked at
    again (on the live demo site the bursty hub lost a quarter of its articles so)."""
    from crawler_gui.core.freshness import SCROLL_SHARE, HubInput, plan_spans

    def alternating(t: float) -> float:
        return (30 if int(t // 120) % 2 else 0.5) * PER_MINUTE

    state, _ = refresh_history(alternating, span=15, refreshes=480, visible=20)
    # ... then a longer quiet spell: five minutes of refreshes that find nothing.
    for _ in range(10):
        state = state.observe(0, 20, 30.0, prior_rate=1 / 60)
    rate, regime = state.rate(1 / 60)
    assert regime is Regime.LULL and rate < 3 * PER_MINUTE
    long_rate = state.long_rate(1 / 60)
    assert long_rate == pytest.approx(15.25 * PER_MINUTE, rel=0.3)
    others = [HubInput(60.0, _learned(2 * PER_MINUTE), 0.0)] * 23
    plans, _level = plan_spans(
        [HubInput(60.0, state, 0.0), *others], adaptive=True, span_min=5.0, span_max=600.0
    )
    span, why = plans[0]
    assert span <= SCROLL_SHARE * 20 / long_rate * 1.0001 and why is SpanReason.SCROLL
    # A steady hub's bound is unchanged: its long and current rates agree.
    assert plans[1][1] is SpanReason.LEARNED


def test_a_quiet_hub_is_slowed_down_step_by_step() -> None:
    """One quiet minute is weak evidence: a hub whose refresh found nothing is not sent to the
    maximum span at once (the bursty hub of the live demo site, quiet for its first two
    minutes, was sent to 300 s and missed its first burst), its span at most doubles per
    refresh, and a silent hub reaches the maximum after a few refreshes."""
    from crawler_gui.core.freshness import SPAN_GROWTH, HubInput, plan_spans

    others = [HubInput(60.0, _learned(4 * PER_MINUTE), 0.0)] * 23

    def plan(state: RateState) -> tuple[float, SpanReason]:
        plans, _level = plan_spans(
            [HubInput(60.0, state, 0.0), *others], adaptive=True, span_min=5.0, span_max=300.0
        )
        return plans[0]

    state = RateState().observe(0, 0, 0.0, prior_rate=1 / 60)  # its first refresh: counted
    state = state.observe(0, 0, 60.0, prior_rate=1 / 60)  # one quiet minute
    span, why = plan(state)
    assert span == pytest.approx(SPAN_GROWTH * 60.0) and why is SpanReason.MAXIMUM
    spans = []
    for _ in range(4):
        state = state.observe(0, 0, span, prior_rate=1 / 60)
        span, why = plan(state)
        spans.append(span)
    assert spans == [pytest.approx(240.0), 300.0, 300.0, 300.0]


# ---- a hub that bursts again and again (docs/freshness.md, "recurring bursts") ------------------
def _alternating(t: float) -> float:
    """The live demo site's bursty hub: 0.5 a minute, then 30 a minute, every 2 minutes."""
    return (30 if int(t // 120) % 2 else 0.5) * PER_MINUTE


def _plan_first(state: RateState, span_max: float = 600.0) -> tuple[float, SpanReason]:
    from crawler_gui.core.freshness import HubInput, plan_spans

    others = [HubInput(60.0, _learned(2 * PER_MINUTE), 0.0)] * 23
    plans, _level = plan_spans(
        [HubInput(60.0, state, 0.0), *others], adaptive=True, span_min=5.0, span_max=span_max
    )
    return plans[0]


def test_a_hub_that_bursts_again_and_again_keeps_the_span_its_bursts_need_in_its_lulls() -> None:
    """Its articles are published in bursts, so the rate its list must not scroll off at is
    the burst's (the article-weighted rate), in its lulls too: its list of 20 lasts 40 s at
    30 a minute. On the long-run rate (15 a minute) the bound let a lull's span reach those
    40 s, and the first refresh of the next burst came too late (the live site's losses)."""
    from crawler_gui.core.freshness import SCROLL_SHARE

    state, _ = refresh_history(_alternating, span=20, refreshes=36, visible=20)  # 12 min
    burst = state.burst_rate(1 / 60)
    assert burst == pytest.approx(30 * PER_MINUTE, rel=0.25)
    assert state.long_rate(1 / 60) < 0.7 * burst
    for _ in range(4):  # into the lull: quiet refreshes
        state = state.observe(0, 20, 20.0, prior_rate=1 / 60)
    assert state.burst_rate(1 / 60) > 0.7 * burst  # still remembered (BURST_MEMORY)
    span, why = _plan_first(state)
    assert why is SpanReason.SCROLL
    assert span == pytest.approx(SCROLL_SHARE * 20 / state.burst_rate(1 / 60), rel=1e-3)
    assert span < 0.75 * 20 / (30 * PER_MINUTE)


def test_a_steady_hub_s_article_weighted_rate_is_its_rate() -> None:
    for per_minute in (0.5, 3.0, 12.0):
        rate = per_minute * PER_MINUTE
        state, _ = refresh_history(lambda t, r=rate: r, span=30, refreshes=120, visible=60)
        assert state.burst_rate(1 / 60) == pytest.approx(rate, rel=0.35)


def test_a_single_burst_is_forgotten_within_minutes() -> None:
    """One burst teaches no rhythm: its weight fades with BURST_MEMORY, and the hub is slowed
    down again after it (issue 12: "slowed down again after the burst")."""
    from crawler_gui.core.freshness import BURST_MEMORY

    calm, burst = 1 * PER_MINUTE, 30 * PER_MINUTE
    state, _ = refresh_history(lambda t: calm, span=30, refreshes=120, visible=60)
    state, _ = refresh_history(lambda t: burst, span=15, refreshes=10, visible=60, state=state)
    peak = state.burst_rate(1 / 60)
    assert peak > 20 * PER_MINUTE
    assert _plan_first(state)[1] in (SpanReason.SCROLL, SpanReason.BURST)
    held = _plan_first(state)[0]
    state, _ = refresh_history(
        lambda t: calm, span=30, refreshes=int(3 * BURST_MEMORY / 30), visible=60, state=state
    )
    assert state.burst_rate(1 / 60) < 0.3 * peak
    span, why = _plan_first(state)
    assert why is not SpanReason.SCROLL and span > 2 * held


def test_a_fluke_does_not_hold_a_slow_hub_fast() -> None:
    """Two articles in a one-second interval ("refresh now") say (n² − n)/Δt = 2 a second; the
    prior (BURST_PRIOR articles at the long rate) keeps that from holding a slow hub fast."""
    state, _ = refresh_history(lambda t: PER_MINUTE, span=60, refreshes=60, visible=20)
    state = state.observe(2, 20, 1.0, prior_rate=1 / 60)
    assert state.burst_rate(1 / 60) < 0.3
    assert 0.5 * 20 / state.burst_rate(1 / 60) > 30


# ---- a hub's own rate: links new to *its* list (docs/freshness.md) ----------------------------
def _list_history(
    per_minute: float, refreshes: int, span: float = 30.0, *, feed_first: bool, size: int = 20
) -> RateState:
    """A list of the newest ``size`` of articles published at ``per_minute``, refreshed every
    ``span`` seconds. ``feed_first``: a feed on the same host found every article before the
    list's refresh did (the pool knew them: 0 new to the pool at every refresh)."""
    rng = random.Random(5)
    state = RateState()
    published = 0
    for _ in range(refreshes):
        before = published
        published += poisson(rng, per_minute * PER_MINUTE * span)
        items = [
            f"http://news.example.com/a/{n}" for n in range(max(0, published - size), published)
        ]
        new_to_pool = 0 if feed_first else min(size, published - before)
        state = state.observe(new_to_pool, len(items), span, 1 / 60, list_sample(items))
    return state


def test_a_hub_learns_its_own_rate_when_a_feed_finds_its_articles_first() -> None:
    state = _list_history(6.0, refreshes=120, feed_first=True)
    assert state.observed == 0  # it yielded nothing new to the pool ...
    assert state.own_observed >= 300
    assert state.own_rate(1 / 60) == pytest.approx(6 * PER_MINUTE, rel=0.15)  # ... its own rate
    assert state.rate(1 / 60)[0] < 0.5 * PER_MINUTE  # the share follows the articles it finds first
    alone = _list_history(6.0, refreshes=120, feed_first=False)
    assert alone.own_rate(1 / 60) == pytest.approx(alone.long_rate(1 / 60), rel=1e-6)


def test_a_list_that_scrolled_past_the_hub_s_memory_is_censored_on_its_own_rate() -> None:
    """40 a minute on a list of 20 refreshed every minute: all 20 are new to the hub each time."""
    state = _list_history(40.0, refreshes=60, span=60.0, feed_first=True)
    assert state.own_rate(1 / 60) > 1.15 * 20 * PER_MINUTE


def test_the_first_list_and_a_304_teach_no_new_links() -> None:
    items = [f"http://a.example/{n}" for n in range(20)]
    state = RateState().observe(
        20, 20, 0.0, 1 / 60, list_sample(items)
    )  # first refresh: remembered only
    assert (state.own_observed, state.seen_step) == (0, 1)
    assert len(state.seen) == 20 * 12
    state = state.observe(0, 0, 60.0, 1 / 60, None)  # a 304: nothing new, the list kept
    assert state.own_observed == 0 and len(state.seen) == 20 * 12
    state = state.observe(
        0, 20, 60.0, 1 / 60, list_sample([*items[2:], "http://a.example/x", "http://a.example/y"])
    )
    assert state.own_observed == 2
    # A pool from before the memory (no list remembered): the pool's count stands in once.
    legacy = RateState(refreshes=3, long_time=180.0, own_time=180.0, last_visible=20)
    assert legacy.observe(3, 20, 60.0, 1 / 60, list_sample(items)).own_observed == 3


def test_the_memory_of_a_long_list_is_a_bounded_hash_sample() -> None:
    """A sitemap of 5,000 links keeps at most SEEN_MAX of them; the new links are counted on
    the sample and scaled (an unbiased estimate), the memory stays bounded."""
    from crawler_gui.core.freshness import KEY_DIGITS, SEEN_MAX

    links = [f"http://big.example/a/{n}" for n in range(5000)]
    state = RateState().observe(5000, 5000, 0.0, 1 / 60, list_sample(links))
    assert len(state.seen) <= SEEN_MAX * KEY_DIGITS and state.seen_step == 32
    state = state.observe(
        0,
        5000,
        600.0,
        1 / 60,
        list_sample(links[1000:] + [f"http://big.example/b/{n}" for n in range(1000)]),
    )
    assert state.own_observed == pytest.approx(1000, rel=0.35)
    # A shorter list later: compared on the coarser of the two samples.
    shorter = list_sample(f"http://big.example/b/{n}" for n in range(100))
    state = state.observe(0, 100, 600.0, 1 / 60, shorter)
    assert state.seen_step == 1 and len(state.seen) == 100 * KEY_DIGITS
    assert RateState.from_json(state.to_json()) == state
    for bad in ('{"seen": "xyz"}', '{"seen": "0123456789ab0"}', '{"seen": 5}'):
        with pytest.raises(ValueError, match="seen links"):
            RateState.from_json(bad)
    with pytest.raises(ValueError, match="seen links"):
        RateState.from_json(json_dumps({"seen": "0" * KEY_DIGITS * (SEEN_MAX + 1)}))


def json_dumps(data: object) -> str:
    import json

    return json.dumps(data)
