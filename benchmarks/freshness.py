"""Fresh news first, live: fixed hub span vs adaptive refresh on the live demo news site.

    python benchmarks/freshness.py --policy both --warmup 240 --measure 360 --tail 90

Each policy runs in its own process (run side by side, so both see the same machine load):
the live news site (``crawler_gui/demo/live.py``: 24 hubs on 12 hosts, Poisson publication at
rates log-uniform from 0.2 to 20 a minute, one silent hub, one bursty hub, lists of the newest
20, RSS feeds on 4 hosts) and a crawl of it in the same process (``--hub-span 60``: the same
hub-fetch budget for both), ``--hub-refresh fixed`` or ``adaptive``.

After ``--warmup`` seconds, the articles published during the next ``--measure`` seconds are
followed (plus ``--tail`` seconds so that the last ones can still be found); reported per
policy, from the site's own records:

* ``found`` / ``lost`` -- share of those articles fetched at least once / never fetched and
  scrolled off every list and feed (``pending``: neither yet, still listed at the end);
* delay from publication to first fetch: median, mean, p90 (seconds);
* ``hub_fetches_per_min`` -- list page and feed fetches a minute during the measured span;
* ``oracle`` -- the least mean delay the same number of fetches could give with the true
  rates, each hub refreshed in proportion to the square root of its rate:
  ``(Σ√λᵢ)² / (2·B·Σλᵢ)``; ``mean ÷ oracle``;
* ``rate_error`` -- for hubs with at least 10 observed articles (links on their list for the
  first time for that hub, whoever found them first; not the bursty hub, whose rate changes
  by design), the learned rate (``HubRow.rate``: the hub's own publication rate) against the
  true one (median and worst), on the hosts without a feed; the hubs of the hosts with a feed
  (whose feed finds most articles first) are listed apart (``rate_error_feed_hosts``).

Loopback only; stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.demo.live import FEED_HOSTS, LiveNewsSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlSettings


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


async def _refresh_gaps(site: LiveNewsSite, seconds: float) -> dict[int, float]:
    """Wait ``seconds``, watching each list hub's fetch count every 0.25 s: the longest gap
    between two refreshes of each hub (what decides whether its list scrolled off)."""
    last = {h.index: (h.fetches, time.time()) for h in site._hubs}
    longest = dict.fromkeys(last, 0.0)
    end = time.time() + seconds
    while (now := time.time()) < end:
        await asyncio.sleep(min(0.25, max(0.0, end - now)))
        now = time.time()
        for h in site._hubs:
            count, since = last[h.index]
            if h.fetches != count:
                longest[h.index] = max(longest[h.index], now - since)
                last[h.index] = (h.fetches, now)
    return longest


async def run_policy(
    policy: str, warmup: float, measure: float, tail: float, span_max: float
) -> dict[str, Any]:
    site = LiveNewsSite()
    await site.start()
    settings = CrawlSettings(hub_span=60.0, hub_refresh=policy, hub_span_max=span_max)
    with tempfile.TemporaryDirectory(prefix="freshness-") as tmp:
        session = await CrawlSession.open(Path(tmp) / "pool", settings, demo_site=site)
        try:
            session.crawler.start()
            await asyncio.sleep(warmup)
            start = time.time()
            fetches0 = sum(h.fetches for h in site._hubs) + sum(site.feed_fetches.values())
            per_hub0 = {h.index: (h.fetches, h.not_modified) for h in site._hubs}
            feeds0 = dict(site.feed_fetches)
            gaps = await _refresh_gaps(site, measure)
            end = time.time()
            fetches1 = sum(h.fetches for h in site._hubs) + sum(site.feed_fetches.values())
            await asyncio.sleep(tail)
            site.advance()
            hubs = {row.url: row for row in (await session.frontier.snapshot()).hubs}
            # Articles each hub saw on its list for the first time (its own, whoever found
            # them first): the pool's learned state, which HubRow does not carry.
            frontier = session.frontier
            states = frontier._sched.hubs if isinstance(frontier, LevelDBPool) else {}
            own = {url: hub.rate.own_observed for url, hub in states.items()}
            await session.crawler.stop()
        finally:
            await session.close()
            await site.stop()
    delays: list[float] = []
    found = lost = pending = 0
    errors: list[float] = []
    errors_feed_hosts: list[float] = []
    per_hub: list[dict[str, Any]] = []
    for hub in site._hubs:
        h_found = h_lost = 0
        h_delays: list[float] = []
        for k, (pub, first) in enumerate(zip(hub.published_at, hub.fetched_at, strict=True)):
            if not start <= pub < end:
                continue
            if not math.isnan(first):
                found += 1
                h_found += 1
                delays.append(first - pub)
                h_delays.append(first - pub)
            elif site._listed(hub, hub.base + k):
                pending += 1
            else:
                lost += 1
                h_lost += 1
        row = hubs.get(site.hub_url(hub))
        fetched0, not_modified0 = per_hub0[hub.index]
        per_hub.append(
            {
                "hub": hub.index,
                "host": hub.host,
                "kind": "silent" if hub.rate == 0 else "bursty" if hub.bursty else "steady",
                "true_per_min": round(hub.rate, 2),
                "learned_per_min": round(row.rate * 60, 2) if row is not None else None,
                "observed": own.get(site.hub_url(hub)),
                "yielded": row.yielded if row is not None else None,
                "fetches": hub.fetches - fetched0,
                "not_modified": hub.not_modified - not_modified0,
                "found": h_found,
                "lost": h_lost,
                "mean_delay": statistics.fmean(h_delays) if h_delays else None,
                "longest_gap": round(gaps[hub.index], 1),
                "span": round(row.planned, 1) if row is not None else None,
                "reason": row.reason if row is not None else None,
            }
        )
        if (
            row is not None
            and own.get(site.hub_url(hub), 0) >= 10
            and hub.rate > 0
            and not hub.bursty
        ):
            error = abs(row.rate * 60 - hub.rate) / hub.rate
            (errors_feed_hosts if hub.host in FEED_HOSTS else errors).append(error)
    for host, fetched in site.feed_fetches.items():
        url = f"http://{site._key(host)}/feed.xml"
        row = hubs.get(url)
        per_hub.append(
            {
                "hub": f"feed {host}",
                "host": host,
                "kind": "feed",
                "true_per_min": round(sum(h.rate for h in site._hubs if h.host == host), 2),
                "learned_per_min": round(row.rate * 60, 2) if row is not None else None,
                "observed": own.get(url),
                "yielded": row.yielded if row is not None else None,
                "fetches": fetched - feeds0[host],
                "not_modified": None,
                "found": None,
                "lost": None,
                "mean_delay": None,
                "longest_gap": None,
                "span": round(row.planned, 1) if row is not None else None,
                "reason": row.reason if row is not None else None,
            }
        )
    total = found + lost + pending
    fetches = fetches1 - fetches0
    budget = fetches / (end - start)
    oracle = site.oracle_mean_delay(budget)
    mean = statistics.fmean(delays) if delays else None
    return {
        "policy": policy,
        "measured_s": round(end - start, 1),
        "articles": total,
        "found": found / total if total else None,
        "lost": lost / total if total else None,
        "pending": pending / total if total else None,
        "delay_median": _quantile(delays, 0.5),
        "delay_mean": mean,
        "delay_p90": _quantile(delays, 0.9),
        "hub_fetches_per_min": fetches / (end - start) * 60,
        "oracle_mean_delay": oracle,
        "mean_over_oracle": mean / oracle if mean and oracle else None,
        "rate_error_median": statistics.median(errors) if errors else None,
        "rate_error_max": max(errors) if errors else None,
        "rate_error_hubs": len(errors),
        "rate_error_feed_hosts": sorted(round(e, 3) for e in errors_feed_hosts),
        "planned_fetches_per_min": 60 * sum(1 / row.planned for row in hubs.values()),
        "reasons": sorted(row.reason for row in hubs.values()),
        "hubs": per_hub,
    }


def _fmt(value: Any, pct: bool = False) -> str:
    if value is None:
        return "-"
    if pct:
        return f"{100 * value:.1f} %"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def print_table(results: list[dict[str, Any]]) -> None:
    print(
        "| policy | measured | articles | found | lost | pending | delay median / mean / p90 "
        "| hub fetches/min | oracle mean | mean ÷ oracle | rate error median / max (hubs) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['policy']} | {r['measured_s']:.0f} s | {r['articles']} "
            f"| {_fmt(r['found'], True)} | {_fmt(r['lost'], True)} | {_fmt(r['pending'], True)} "
            f"| {_fmt(r['delay_median'])} / {_fmt(r['delay_mean'])} / {_fmt(r['delay_p90'])} s "
            f"| {_fmt(r['hub_fetches_per_min'])} | {_fmt(r['oracle_mean_delay'])} s "
            f"| {_fmt(r['mean_over_oracle'])} "
            f"| {_fmt(r['rate_error_median'], True)} / {_fmt(r['rate_error_max'], True)} "
            f"({r['rate_error_hubs']}) |"
        )


def print_hubs(result: dict[str, Any]) -> None:
    """Per hub: true and learned rate (a minute), fetches and 304s, found and lost articles of
    the measured span, mean delay, the span at the end and why (feeds: their host's rate)."""
    print(f"\n{result['policy']}: per hub (measured span)")
    print(
        "| hub | host | kind | true/min | learned/min | observed | yielded | fetches | 304 | found "
        "| lost | mean delay | longest gap | span | why |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for h in result["hubs"]:
        cells = [
            h[k]
            for k in (
                "hub",
                "host",
                "kind",
                "true_per_min",
                "learned_per_min",
                "observed",
                "yielded",
                "fetches",
                "not_modified",
                "found",
                "lost",
            )
        ]
        cells += [_fmt(h["mean_delay"]), _fmt(h["longest_gap"]), _fmt(h["span"]), h["reason"]]
        print("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", choices=("fixed", "adaptive", "both"), default="both")
    parser.add_argument(
        "--warmup",
        type=float,
        default=240.0,
        help="seconds (default 240: one burst cycle of the bursty hub, docs/freshness.md)",
    )
    parser.add_argument("--measure", type=float, default=360.0, help="seconds (default 360)")
    parser.add_argument(
        "--tail",
        type=float,
        default=300.0,
        help="seconds after the measured span in which its articles may still be found "
        "(default 300: the maximum span)",
    )
    parser.add_argument(
        "--hub-span-max", type=float, default=300.0, help="--hub-span-max (default 300)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object a policy")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.policy != "both":
        result = asyncio.run(
            run_policy(args.policy, args.warmup, args.measure, args.tail, args.hub_span_max)
        )
        print(json.dumps(result) if args.json else result)
        return 0
    # Both side by side, each in its own process: the same minutes of the same machine.
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--policy",
                policy,
                "--warmup",
                str(args.warmup),
                "--measure",
                str(args.measure),
                "--tail",
                str(args.tail),
                "--hub-span-max",
                str(args.hub_span_max),
                "--json",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for policy in ("fixed", "adaptive")
    ]
    results = []
    for proc in procs:
        out, _err = proc.communicate()
        if proc.returncode != 0:
            print(f"a run failed (exit {proc.returncode})", file=sys.stderr)
            return 1
        results.append(json.loads(out.strip().splitlines()[-1]))
    print_table(results)
    for result in results:
        errors = ", ".join(f"{100 * e:.0f} %" for e in result["rate_error_feed_hosts"])
        print(f"{result['policy']}: rate errors on the feed hosts' hubs: {errors or '-'}")
    for result in results:
        print_hubs(result)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
