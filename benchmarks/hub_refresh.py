"""Conditional hub refresh (issue 12): what ``If-None-Match``/``If-Modified-Since`` save.

Crawls the demo site (feeds and sitemaps on, 12 hosts) headless in continuous mode with a
short hub span, twice for the same wall time: once against a server that gives validators and
answers 304, once against one that gives none (so every refresh is a full body). Printed per
run: hub/feed/sitemap fetches, the body bytes the server sent for them, the 304 answers, and
the page store's size (unchanged hub bodies are not stored again in either run).

    python benchmarks/hub_refresh.py                 # 60 s each, hub span 5 s
    python benchmarks/hub_refresh.py --seconds 30 --span 2
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings
from crawler_gui.engine.stats import directory_bytes

BASE = CrawlSettings(
    concurrency=16,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.CONTINUOUS,
    allow_private=True,
)


async def one_run(validators: bool, seconds: float, span: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        async with DemoSite(feeds=True, validators=validators) as site:
            settings = replace(BASE, hub_span=span)
            session = await CrawlSession.open(Path(tmp) / "pool", settings, demo_site=site)
            async with session:
                session.crawler.start()
                started = time.monotonic()
                await asyncio.sleep(seconds)
                await session.crawler.stop()
                elapsed = time.monotonic() - started
                hubs = {h.url for h in await session.crawler.hubs()}
                await session.store.flush()
            hub_fetches = sum(n for url, n in site.fetch_counts.items() if url in hubs)
            return {
                "seconds": elapsed,
                "hubs": len(hubs),
                "hub_fetches": hub_fetches,
                "hub_bytes": site.hub_bytes,
                "not_modified": site.not_modified,
                "store_bytes": directory_bytes(Path(tmp) / "pool" / "pages"),
            }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--span", type=float, default=5.0, help="hub refresh span, seconds")
    args = parser.parse_args()
    rows = {
        "validators": asyncio.run(one_run(True, args.seconds, args.span)),
        "none": asyncio.run(one_run(False, args.seconds, args.span)),
    }
    print(f"{'server':<11}{'hubs':>6}{'fetches':>9}{'304s':>7}{'hub MB':>9}{'store MB':>10}")
    for name, r in rows.items():
        print(
            f"{name:<11}{r['hubs']:>6.0f}{r['hub_fetches']:>9.0f}{r['not_modified']:>7.0f}"
            f"{r['hub_bytes'] / 1e6:>9.2f}{r['store_bytes'] / 1e6:>10.2f}"
        )
    with_v, without = rows["validators"], rows["none"]
    per_with = with_v["hub_bytes"] / max(1, with_v["hub_fetches"])
    per_without = without["hub_bytes"] / max(1, without["hub_fetches"])
    print(
        f"hub body bytes per hub fetch: {per_with:,.0f} with validators, {per_without:,.0f} "
        f"without ({per_without / max(per_with, 1):.1f}x less with conditional refresh)"
    )


if __name__ == "__main__":
    main()
