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
