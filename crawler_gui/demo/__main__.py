"""Serve the demo news site alone: ``python -m crawler_gui.demo --hosts 20 --port 8631``, or
the live news site (``demo/live.py``: hubs that keep publishing) with ``--live``.

Serves until Ctrl-C (or SIGTERM). The seed URLs are logged at start; the live site's hub list
is at ``/_live/hubs.txt`` and its report at ``/_live/report.json`` (on 127.0.0.1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal

from crawler_gui.demo.live import DEFAULT_SEED, LiveNewsSite
from crawler_gui.demo.site import DemoSite

log = logging.getLogger("crawler_gui.demo")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m crawler_gui.demo",
        description="Serve the built-in demo news site on 127.0.0.1..127.0.0.N (one port).",
    )
    p.add_argument("--hosts", type=int, default=12, help="number of hosts (1-254)")
    p.add_argument("--articles", type=int, default=40, help="articles per host")
    p.add_argument("--port", type=int, default=8631, help="port (0: any free port)")
    p.add_argument("--latency", type=float, default=0.0, help="seconds added to every response")
    p.add_argument("--slow-share", type=float, default=0.03, help="share of slow articles")
    p.add_argument("--slow-delay", type=float, default=1.5, help="seconds a slow article takes")
    p.add_argument("--seed", type=int, help="random seed (default 1; 12 with --live)")
    p.add_argument(
        "--live",
        action="store_true",
        help="serve the live news site instead (fixed parameters; --port and --seed only)",
    )
    return p


async def _serve_live(args: argparse.Namespace) -> None:
    seed = DEFAULT_SEED if args.seed is None else args.seed
    site = LiveNewsSite(port=args.port, seed=seed)
    async with site:
        log.info("serving the live news site on port %d; press Ctrl-C to stop", site.port)
        log.info("hubs: %s/_live/hubs.txt", site.seed_urls()[0].rstrip("/"))
        log.info("report: %s", site.report_url())
        stop = asyncio.Event()
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C only
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        log.info("stopping after %d requests", site.total_requests)


async def _serve(args: argparse.Namespace) -> None:
    site = DemoSite(
        args.hosts,
        args.articles,
        port=args.port,
        latency=args.latency,
        slow_share=args.slow_share,
        slow_delay=args.slow_delay,
        seed=1 if args.seed is None else args.seed,
    )
    async with site:
        log.info("serving %d hosts on port %d; press Ctrl-C to stop", len(site.hosts), site.port)
        for url in site.seed_urls():
            log.info("seed %s", url)
        log.info(
            "%d hubs, %d pages expected, %d dead links",
            len(site.hub_urls()),
            len(site.expected_urls()),
            len(site.dead_urls()),
        )
        stop = asyncio.Event()
        with contextlib.suppress(NotImplementedError):  # Windows: Ctrl-C only
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        log.info("stopping after %d requests", site.total_requests)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_live(args) if args.live else _serve(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
