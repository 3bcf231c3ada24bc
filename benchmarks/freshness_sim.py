"""Hub refresh policies on a simulated live news site, in simulated time (no network, no sleeping).

The site is issue 12's: hubs whose articles arrive as Poisson processes with rates drawn
log-uniformly from 0.2 to 20 a minute (fixed seed), one silent hub, one bursty hub alternating
between 0.5 and 30 a minute every 2 minutes, lists showing the newest 20. Every policy spends the
same budget (the fixed span's: ``hubs / span`` fetches a second) and is scored on the share of
articles found, the share lost (scrolled off before any refresh saw them) and the delay from
publication to discovery, beside the oracle's mean delay (``(Σ √λ)² / (2 B Σ λ)``).

This checks the rules of ``crawler_gui.core.freshness`` alone; the live benchmark of the whole
crawler on the demo's live site comes with the wiring.

    python benchmarks/freshness_sim.py [--hubs 24] [--span 60] [--minutes 30] [--seed 12]
"""

from __future__ import annotations

import argparse
import heapq
import math
import random
import statistics
from collections import deque
from dataclasses import dataclass, field

from crawler_gui.core.freshness import (
    HubInput,
    RateState,
    oracle_mean_delay,
    plan_spans,
)

LIST_SIZE = 20
BURST_LOW, BURST_HIGH, BURST_PERIOD = 0.5 / 60, 30 / 60, 120.0


@dataclass
class Hub:
    rate: float  # per second; for the bursty hub, its mean
    bursty: bool = False
    arrivals: list[float] = field(default_factory=list)

    def rate_at(self, t: float) -> float:
        if not self.bursty:
            return self.rate
        return BURST_HIGH if int(t // BURST_PERIOD) % 2 else BURST_LOW


def make_site(hubs: int, seed: int) -> list[Hub]:
    rng = random.Random(seed)
    site = [Hub(rate=math.exp(rng.uniform(math.log(0.2), math.log(20))) / 60) for _ in range(hubs)]
    site[0] = Hub(rate=0.0)  # silent
    site[1] = Hub(rate=(BURST_LOW + BURST_HIGH) / 2, bursty=True)
    return site


def publish(site: list[Hub], until: float, seed: int) -> None:
    rng = random.Random(seed + 1)
    for hub in site:
        t = 0.0
        top = BURST_HIGH if hub.bursty else hub.rate
        if top <= 0:
            continue
        while True:  # thinning gives the bursty hub its piecewise rate
            t += rng.expovariate(top)
            if t >= until:
                break
            if rng.random() * top <= hub.rate_at(t):
                hub.arrivals.append(t)


def simulate(
    site: list[Hub], span: float, until: float, warmup: float, adaptive: bool, late: float = 0.0
) -> dict:
    n = len(site)
    prior = 1 / span
    states = [RateState() for _ in site]
    spans = [span] * n
    seen_upto = [0] * n  # index of the first article not yet listed at a refresh
    found: list[float] = []
    lost = 0
    fetches = 0
    rng = random.Random(3)
    queue = [(rng.uniform(0, span), i) for i in range(n)]  # staggered first refreshes
    heapq.heapify(queue)
    last = [0.0] * n
    recent: deque[float] = deque()
    while queue:
        t, i = heapq.heappop(queue)
        if t >= until:
            break
        hub = site[i]
        arrivals = hub.arrivals
        upto = seen_upto[i]
        newest = upto
        while newest < len(arrivals) and arrivals[newest] <= t:
            newest += 1
        fresh = arrivals[upto:newest]
        visible = fresh[-LIST_SIZE:]
        scrolled = fresh[:-LIST_SIZE] if len(fresh) > LIST_SIZE else []
        if t >= warmup:
            fetches += 1
            found.extend(t - a for a in visible if a >= warmup)
            lost += sum(1 for a in scrolled if a >= warmup)
        seen_upto[i] = newest
        elapsed = t - last[i] if last[i] else span
        last[i] = t
        listed = min(LIST_SIZE, newest)
        states[i] = states[i].observe(len(visible), listed, elapsed, prior_rate=prior)
        if adaptive:
            # The pools' rules (plan_spans): the same bounds, scroll-off and slow-down steps.
            plans, _level = plan_spans(
                [HubInput(span, s, 2.0) for s in states],
                adaptive=True,
                span_min=2.0,
                span_max=10 * span,
            )
            spans = [s for s, _ in plans]
        # A live crawl fetches a hub some time after it is due (queues, politeness).
        heapq.heappush(queue, (t + spans[i] + rng.uniform(0, late), i))
        recent.append(t)
    measured = until - warmup
    total = len(found) + lost
    true_rates = [
        (sum(1 for a in h.arrivals if a >= warmup) / measured) if h.arrivals else 0.0 for h in site
    ]
    learned = [s.rate(prior)[0] for s in states]
    errors = [
        abs(est - true) / true
        for est, true, s, h in zip(learned, true_rates, states, site, strict=True)
        if true > 0 and s.observed >= 10 and not h.bursty
    ]
    delays = sorted(found)
    return {
        "found": len(found) / total if total else 1.0,
        "lost": lost / total if total else 0.0,
        "median": statistics.median(delays) if delays else 0.0,
        "mean": statistics.fmean(delays) if delays else 0.0,
        "p90": delays[int(0.9 * (len(delays) - 1))] if delays else 0.0,
        "fetches_per_min": fetches / (measured / 60),
        "oracle": oracle_mean_delay(true_rates, fetches / measured),
        "rate_error_max": max(errors) if errors else 0.0,
        "rate_error_median": statistics.median(errors) if errors else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hubs", type=int, default=24)
    ap.add_argument("--span", type=float, default=60.0)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0, help="minutes")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument(
        "--late",
        type=float,
        default=0.0,
        help="each refresh comes up to this many seconds after it is due (default 0)",
    )
    args = ap.parse_args()
    until = (args.warmup + args.minutes) * 60
    site = make_site(args.hubs, args.seed)
    publish(site, until, args.seed)
    print(
        f"{args.hubs} hubs, span {args.span:g} s, {args.minutes:g} min measured after "
        f"{args.warmup:g} min warm-up, lists of {LIST_SIZE}, refreshes up to {args.late:g} s late"
    )
    for name, adaptive in (("fixed span", False), ("adaptive", True)):
        r = simulate(site, args.span, until, args.warmup * 60, adaptive, args.late)
        print(
            f"{name:<11} found {r['found']:7.2%} lost {r['lost']:6.2%} | delay median "
            f"{r['median']:5.1f} s mean {r['mean']:5.1f} s p90 {r['p90']:5.1f} s | "
            f"{r['fetches_per_min']:5.1f} fetches/min | oracle mean {r['oracle']:5.1f} s "
            f"(mean/oracle {r['mean'] / r['oracle']:.2f}) | learned rates: median error "
            f"{r['rate_error_median']:.0%}, worst {r['rate_error_max']:.0%}"
        )


if __name__ == "__main__":
    main()
