"""The headless command line: ``crawl``, ``export``, ``stats``, ``save`` and ``load``.

``crawl`` on a pool folder serves its crawl on a local control channel (``engine.control``,
``docs/control.md``): the window attaches to it, and ``stats`` of that pool prints the live
totals instead of "in use".

Every command that takes a POOL_DIR also takes a Redis pool URL
(``redis://host:port/db?name=news``, ``docs/redis.md``): ``crawl`` then joins the shared pool
as one worker and keeps its pages in ``--store-dir`` (default ``./crawler-gui-<name>``);
``export`` reads such a store directory.

``crawl`` also runs for days on a server (``docs/server.md``): a rotating ``--log-file`` and
``--log-format json``, ``--metrics`` (Prometheus text and a health check), ``--proxy``.

Exit codes: 0 done; 1 an error during the run (also: the Redis server cannot be reached or
refused the credentials); 2 bad arguments; 3 the pool is in use by another process; 4 the pool
or a file is corrupt, foreign or from a newer version; 130 stopped at once by a second Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from crawler_gui.core.leveldb_pool import LevelDBPool
from crawler_gui.engine.session import CrawlSession, is_pool_url, open_redis_pool
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import (
    ConfigError,
    CrawlerGuiError,
    PoolCorruptError,
    PoolInUseError,
    PoolVersionError,
    SnapshotError,
    StoreError,
)

if TYPE_CHECKING:
    from crawler_gui.core.frontier import HubSpec
    from crawler_gui.engine.control import ControlServer

log = logging.getLogger(__name__)

EXIT_ERROR, EXIT_USAGE, EXIT_IN_USE, EXIT_CORRUPT, EXIT_ABORTED = 1, 2, 3, 4, 130
COMMANDS = ("crawl", "export", "stats", "save", "load")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from exc
    if not value >= 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def _positive(text: str) -> float:
    value = _non_negative(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawler-gui",
        description="Headless commands of crawler-gui. Run `crawler-gui` with no command (or "
        "`crawler-gui POOL_DIR`, `crawler-gui --demo`) for the desktop app.",
    )
    parser.add_argument(
        "--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    crawl = sub.add_parser(
        "crawl",
        help="crawl headless (Ctrl-C stops gracefully; run the same command again to resume)",
    )
    crawl.add_argument(
        "pool_dir",
        nargs="?",
        help="the pool directory (created if missing), "
        "or a Redis pool URL redis://host:port/db?name=NAME to join as one "
        "worker; optional with --demo",
    )
    crawl.add_argument(
        "--demo",
        action="store_true",
        help="start the built-in demo news site on loopback and crawl it",
    )
    crawl.add_argument(
        "--seed", action="append", default=[], metavar="URL", help="a start URL (repeatable)"
    )
    crawl.add_argument(
        "--hubs-file", metavar="FILE", help="hub pages, one per line: URL [span such as 300 or 5m]"
    )
    crawl.add_argument(
        "--hub-span",
        type=_non_negative,
        default=300.0,
        metavar="SECONDS",
        help="default refresh span of hubs (default 300)",
    )
    crawl.add_argument("--concurrency", type=_positive_int, default=16, metavar="N")
    crawl.add_argument(
        "--delay",
        type=_non_negative,
        default=1.0,
        metavar="SECONDS",
        help="minimum delay between two requests to one host (default 1)",
    )
    crawl.add_argument(
        "--delay-factor",
        type=_non_negative,
        default=2.0,
        metavar="X",
        help="also wait X times the last response time between two requests to one host "
        "(default 2)",
    )
    crawl.add_argument("--max-depth", type=_depth, metavar="N")
    crawl.add_argument(
        "--max-pages", type=_positive_int, metavar="N", help="stop after this many fetches"
    )
    crawl.add_argument(
        "--until-idle",
        action="store_true",
        help="stop when nothing is waiting and no hub is due soon "
        "(default: run continuously, refreshing hubs)",
    )
    crawl.add_argument(
        "--allow-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="also crawl this domain (repeatable)",
    )
    crawl.add_argument("--deny-domain", action="append", default=[], metavar="DOMAIN")
    crawl.add_argument(
        "--allow-private",
        action="store_true",
        help="allow requests to loopback and private addresses",
    )
    crawl.add_argument("--ignore-robots", action="store_true", help="do not obey robots.txt")
    crawl.add_argument("--warc", metavar="DIR", help="also write WARC files into DIR")
    crawl.add_argument("--user-agent", metavar="TEXT")
    crawl.add_argument(
        "--no-progress",
        action="store_true",
        help="no live progress line (one summary line every 10 s instead)",
    )
    crawl.add_argument(
        "--retry-base",
        type=_non_negative,
        metavar="SECONDS",
        help="seconds before the first retry of a failed fetch; doubles with "
        "each failure (default 30)",
    )
    crawl.add_argument(
        "--lease",
        type=_positive,
        metavar="SECONDS",
        help="how long a fetch may stay in flight before its URL goes back to "
        "the pool; on a Redis pool, how soon a killed worker's URLs come back "
        "(default 300)",
    )
    crawl.add_argument(
        "--store-dir",
        metavar="DIR",
        help="Redis pool only: this worker's local page store (and scope.json); "
        "default ./crawler-gui-NAME",
    )
    crawl.add_argument(
        "--worker",
        metavar="ID",
        help="Redis pool only: this worker's id (default hostname:pid); a worker "
        "restarted under the same id takes its unfinished URLs back at once",
    )

    _add_service_options(crawl)

    export = sub.add_parser("export", help="write the stored pages' records as JSON Lines")
    export.add_argument("pool_dir", help="a pool directory, or a Redis worker's --store-dir")
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")

    stats = sub.add_parser(
        "stats",
        help="print the pool's totals as JSON (while a crawl runs: its live totals, "
        "state and rates)",
    )
    stats.add_argument("pool_dir", help="a pool directory or a Redis pool URL")
    stats.add_argument(
        "--store-dir",
        metavar="DIR",
        help="Redis pool only: also count the pages stored in this worker's store directory",
    )

    save = sub.add_parser("save", help="save the pool to a portable snapshot file")
    save.add_argument("pool_dir", help="a pool directory or a Redis pool URL")
    save.add_argument("file")

    load = sub.add_parser("load", help="replace the pool's contents with a snapshot file")
    load.add_argument(
        "pool_dir", help="a pool directory or a Redis pool URL (every worker must be stopped)"
    )
    load.add_argument("file")
    return parser


def _add_service_options(crawl: argparse.ArgumentParser) -> None:
    """Options for a crawl that runs for days on a server: logs, metrics, the live demo."""
    from crawler_gui.core.logs import LOG_FORMATS, ROTATE_WHEN

    group = crawl.add_argument_group("running for days on a server")
    group.add_argument(
        "--live",
        action="store_true",
        help="with --demo: crawl the live demo news site (hubs that keep publishing) "
        "continuously instead of the fixed one",
    )
    group.add_argument(
        "--metrics",
        metavar="[HOST:]PORT",
        help="serve Prometheus metrics at /metrics and a health check at /health "
        "(loopback unless HOST is given; 0.0.0.0 for all interfaces)",
    )
    group.add_argument(
        "--proxy",
        metavar="URL",
        help="fetch through this proxy: http://, https://, socks4:// or socks5:// "
        "[user:password@]host:port (the environment's HTTP_PROXY is never used); "
        "the proxy resolves names, so only the URL's host is checked (docs/server.md)",
    )
    group.add_argument(
        "--log-file",
        metavar="PATH",
        help="write the log to PATH (rotated) instead of standard error",
    )
    group.add_argument(
        "--log-max-bytes",
        type=_depth,
        default=50 * 1024 * 1024,
        metavar="N",
        help="rotate the log file when it would grow past N bytes (default 50 MiB; 0: never)",
    )
    group.add_argument(
        "--log-backups",
        type=_depth,
        default=5,
        metavar="N",
        help="rotated log files to keep (PATH.1 .. PATH.N; default 5)",
    )
    group.add_argument(
        "--log-rotate",
        choices=sorted(ROTATE_WHEN),
        help="rotate the log file by time instead of by size",
    )
    group.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default="text",
        help="text (default) or json: one JSON object a line, for log shippers",
    )


def _setup_logging(args: argparse.Namespace) -> None:
    """The log goes to standard error, or to a rotating ``--log-file``; text or JSON lines.
    Without a terminal the crawl's periodic summary goes through the log as well."""
    from crawler_gui.core.logs import configure_logging

    log_file = getattr(args, "log_file", None)
    log_format = getattr(args, "log_format", "text")
    rotate = getattr(args, "log_rotate", None)
    configure_logging(
        args.log_level,
        log_file=log_file,
        log_format=log_format,
        max_bytes=0 if rotate else getattr(args, "log_max_bytes", 0),
        backups=getattr(args, "log_backups", 5),
        rotate=rotate,
    )
    _route["summary_to_log"] = bool(log_file) or log_format == "json"
    if _route["summary_to_log"]:
        _summary_log.setLevel(logging.INFO)


async def _start_metrics(args: argparse.Namespace, session: CrawlSession) -> Any:
    """The ``--metrics`` server on this loop, or None."""
    if not getattr(args, "metrics", None):
        return None
    from crawler_gui.engine.metrics import MetricsServer, exposes_widely, parse_listen

    host, port = parse_listen(args.metrics)
    if exposes_widely(host):
        print(
            f"crawler-gui: warning: metrics on {host}:{port} can be read by anyone who can "
            "reach this address (no authentication); use a bare port for loopback only",
            file=sys.stderr,
        )
    server = MetricsServer(session.crawler, host, port)
    await server.start()
    return server


def settings_from_args(args: argparse.Namespace) -> CrawlSettings:
    kw: dict[str, Any] = {
        "concurrency": args.concurrency,
        "min_delay": args.delay,
        "delay_factor": args.delay_factor,
        "max_depth": args.max_depth,
        "max_pages": args.max_pages,
        # The demo finishes by itself; a real crawl refreshes its hubs until stopped.
        # (the live demo site never runs out of news: it is crawled continuously too)
        "mode": CrawlMode.UNTIL_IDLE
        if args.until_idle or (args.demo and not getattr(args, "live", False))
        else CrawlMode.CONTINUOUS,
        "allow_domains": tuple(args.allow_domain),
        "deny_domains": tuple(args.deny_domain),
        "allow_private": args.allow_private,
        "obey_robots": not args.ignore_robots,
        "warc_dir": args.warc,
        "hub_span": args.hub_span if args.hub_span > 0 else 300.0,
    }
    if args.user_agent:
        kw["user_agent"] = args.user_agent
    if getattr(args, "proxy", None):
        kw["proxy"] = args.proxy
    if args.retry_base is not None:
        kw["retry_base"] = args.retry_base
    if args.lease is not None:
        kw["pending_threshold"] = args.lease
    return CrawlSettings(**kw)


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        _setup_logging(args)
        if args.command == "crawl":
            return asyncio.run(crawl_command(args, parser))
        if args.command == "export":
            return export_command(args)
        if args.command == "stats":
            return asyncio.run(stats_command(args))
        return asyncio.run(snapshot_command(args))
    except PoolInUseError as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_IN_USE
    except (PoolCorruptError, PoolVersionError, SnapshotError, StoreError) as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_CORRUPT
    except ConfigError as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CrawlerGuiError as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader of our output went away (``export | head``): not an error of ours.
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit-time flush
        return 0


# ---- crawl ------------------------------------------------------------------------------------
async def crawl_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if not args.pool_dir and not args.demo:
        parser.error("crawl needs a POOL_DIR (or --demo)")
    redis = bool(args.pool_dir) and is_pool_url(args.pool_dir)
    if not redis and (args.store_dir or args.worker):
        parser.error("--store-dir and --worker are for a Redis pool URL only")
    if args.live and not args.demo:
        parser.error("--live goes with --demo")
    if args.metrics:
        from crawler_gui.engine.metrics import parse_listen

        parse_listen(args.metrics)  # a bad address stops here, before anything is opened
    settings = settings_from_args(args)
    if settings.proxy:
        from crawler_gui.core.redact import redact_url

        log.info("fetching through the proxy %s", redact_url(settings.proxy))
    hubs: list[HubSpec] = []
    if args.hubs_file:
        from crawler_gui.core.hublist import REASON_TEXT, hubs_from_text

        try:
            text = Path(args.hubs_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the hubs file {args.hubs_file}: {exc}") from exc
        hubs, bad = hubs_from_text(text, settings.hub_span)
        for line in bad:
            print(
                f"{args.hubs_file}:{line.line}: {line.text}: "
                f"{REASON_TEXT.get(line.reason or '', line.reason)}",
                file=sys.stderr,
            )
        if bad:
            raise ConfigError(f"{len(bad)} bad line(s) in {args.hubs_file}; nothing was started")
    pool_dir = args.pool_dir or tempfile.mkdtemp(prefix="crawler-gui-demo-")
    if redis:
        session = await CrawlSession.open(
            pool_dir,
            settings,
            demo=args.demo,
            store_dir=args.store_dir,
            worker=args.worker,
            live=args.live,
        )
    else:
        session = await CrawlSession.open(pool_dir, settings, demo=args.demo, live=args.live)
    control = None if redis else await _serve_control(session, Path(pool_dir))
    metrics = None
    try:
        metrics = await _start_metrics(args, session)
        crawler = session.crawler
        if hubs:
            await crawler.set_hubs(hubs)
        if args.seed:
            from crawler_gui.core.hublist import REASON_TEXT

            report = await crawler.add_seeds(args.seed)
            for url, reason in report.refused:
                print(f"seed refused: {url}: {REASON_TEXT.get(reason, reason)}", file=sys.stderr)
        totals = (await session.frontier.snapshot(since=2**62, retry_limit=0)).totals
        # On a shared pool, URLs in flight at other workers may still bring new links.
        if not (totals.waiting or totals.hubs or totals.retrying or totals.pending):
            print(
                "crawler-gui: nothing to crawl: give --seed URL or --hubs-file FILE "
                "(the pool is empty)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        aborted = await _run_with_signals(session, progress=not args.no_progress)
        state = crawler.state
    finally:
        if metrics is not None:
            await metrics.close()
        if control is not None:
            control.ending()
        try:
            await session.close()
        finally:
            if control is not None:  # after the close: attached windows may open the pool now
                await control.close(session.crawler.state)
    snap_line = f"pool: {session.display_name}"
    if redis:
        snap_line += f"; worker {session.worker}; pages in {session.store_dir}"
    print(f"\ncrawl {state.value}; {snap_line}", file=sys.stderr)
    if aborted:
        return EXIT_ABORTED
    return EXIT_ERROR if state is CrawlState.FAILED else 0


async def _serve_control(session: CrawlSession, pool_dir: Path) -> ControlServer | None:
    """The control channel of a local crawl (windows and ``stats`` attach to it); the crawl
    runs without one when the socket cannot be made."""
    from crawler_gui.engine.control import ControlError, ControlServer

    try:
        return await ControlServer.start(session, pool_dir)
    except (ControlError, OSError) as exc:
        log.warning("no control channel (windows cannot attach to this crawl): %s", exc)
        return None


async def _run_with_signals(session: CrawlSession, *, progress: bool) -> bool:
    """Run the crawl; first Ctrl-C (or SIGTERM) stops gracefully, the second at once."""
    crawler = session.crawler
    loop = asyncio.get_running_loop()
    presses = 0
    aborted = False
    stopper: asyncio.Task[None] | None = None

    def on_signal() -> None:
        nonlocal presses, aborted, stopper
        presses += 1
        if presses == 1:
            print(
                "\nstopping: in-flight fetches finish (Ctrl-C again to stop at once)",
                file=sys.stderr,
            )
            stopper = loop.create_task(crawler.stop())
        else:
            aborted = True
            print("\nstopping now; unfinished URLs go back to the pool", file=sys.stderr)
            stopper = loop.create_task(crawler.stop(wait_in_flight=False))

    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
    reporter = loop.create_task(
        _progress(session, sys.stderr, live=progress and sys.stderr.isatty())
    )
    try:
        crawler.start()
        await crawler.wait()
        if stopper is not None:
            await stopper
    finally:
        reporter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reporter
        for sig in installed:
            loop.remove_signal_handler(sig)
    await _print_progress(session, sys.stderr, live=False)
    return aborted


#: The periodic summary of a crawl without a terminal goes through this logger when the log
#: goes to a file or is JSON (so it lands in the same place, in the same format).
_summary_log = logging.getLogger("crawler_gui.progress")
_route = {"summary_to_log": False}


async def _progress(session: CrawlSession, out: TextIO, *, live: bool) -> None:
    interval = 0.5 if live else 10.0
    while True:
        await asyncio.sleep(interval)
        await _print_progress(session, out, live=live)


async def _print_progress(session: CrawlSession, out: TextIO, *, live: bool) -> None:
    stats = session.crawler.stats()
    t = (await session.frontier.snapshot(since=2**62, retry_limit=0)).totals
    line = (
        f"{stats.pages_per_s_10s:7.1f} pages/s | done {t.done:,} | waiting {t.waiting:,} | "
        f"in flight {t.pending:,} | retrying {t.retrying:,} | failed {t.failed:,} | "
        f"errors {stats.errors:,}"
    )
    if live:
        out.write("\r" + line[:200] + "\x1b[K")
    elif _route["summary_to_log"]:
        fields = {
            "pages_per_s": round(stats.pages_per_s_10s, 2),
            "done": t.done,
            "waiting": t.waiting,
            "in_flight": t.pending,
            "retrying": t.retrying,
            "failed": t.failed,
            "errors": stats.errors,
        }
        _summary_log.info("%s", line.strip(), extra={"fields": fields})
        return
    else:
        out.write(time.strftime("%H:%M:%S ") + line + "\n")
    out.flush()


# ---- export, stats, save, load ------------------------------------------------------------------
def export_command(args: argparse.Namespace) -> int:
    if is_pool_url(args.pool_dir):
        raise ConfigError(
            "export reads a local page store: give the worker's store directory "
            "(crawl --store-dir, default ./crawler-gui-NAME), not the Redis URL"
        )
    pool_dir = _existing_store(args.pool_dir)
    store = PageStore.open_in_pool(pool_dir)
    try:
        if args.output:
            count = store.export_jsonl(Path(args.output))
        else:
            count = store.export_jsonl(sys.stdout)
    finally:
        store.close()
    print(f"{count} records exported", file=sys.stderr)
    return 0


async def stats_command(args: argparse.Namespace) -> int:
    """The pool's totals as JSON; ``pages_stored`` from the local page store when there is one
    (a Redis pool's workers each keep their own: give ``--store-dir``)."""
    store_dir: Path | None
    if is_pool_url(args.pool_dir):
        pool: Any = await open_redis_pool(args.pool_dir)
        store_dir = _existing_store(args.store_dir) if args.store_dir else None
    else:
        if args.store_dir:
            raise ConfigError("--store-dir is for a Redis pool URL only")
        store_dir = _existing_pool(args.pool_dir)
        try:
            pool = await LevelDBPool.open_async(store_dir)
        except PoolInUseError as exc:  # a crawl runs: ask it (its control channel)
            from crawler_gui.engine.control import read_live_stats

            live = await read_live_stats(store_dir, exc)
            live["refused"] = dict(live["refused"])
            print(json.dumps(live, indent=2, sort_keys=True))
            return 0
        from crawler_gui.engine.control import remove_stale

        remove_stale(store_dir)  # we hold the pool: no crawl serves it
    try:
        totals = asdict((await pool.snapshot(since=2**62, retry_limit=0)).totals)
        if hasattr(pool, "paused"):
            totals["paused"] = await pool.paused()
    finally:
        await pool.close()
    if store_dir is not None:
        store = PageStore.open_in_pool(store_dir)
        try:
            totals["pages_stored"] = store.count()
        finally:
            store.close()
    totals["refused"] = dict(totals["refused"])
    print(json.dumps(totals, indent=2, sort_keys=True))
    return 0


async def _redis_snapshot(args: argparse.Namespace) -> int:
    pool = await open_redis_pool(args.pool_dir)
    try:
        if args.command == "save":
            count = await pool.save_snapshot(args.file)
            print(f"saved {count} records to {args.file}", file=sys.stderr)
        else:
            count = await pool.load_snapshot(args.file)
            print(
                f"loaded {count} records from {args.file} into the Redis pool {pool.name!r}",
                file=sys.stderr,
            )
    finally:
        await pool.close()
    return 0


async def snapshot_command(args: argparse.Namespace) -> int:
    if is_pool_url(args.pool_dir):
        return await _redis_snapshot(args)
    pool_dir = _existing_pool(args.pool_dir) if args.command == "save" else Path(args.pool_dir)
    pool = await LevelDBPool.open_async(pool_dir)
    try:
        if args.command == "save":
            count = await pool.save_snapshot(args.file)
            print(f"saved {count} records to {args.file}", file=sys.stderr)
        else:
            count = await pool.load_snapshot(args.file)
            print(f"loaded {count} records from {args.file} into {pool_dir}", file=sys.stderr)
    finally:
        await pool.close()
    return 0


def _existing_store(path: str) -> Path:
    """A pool directory or a Redis worker's store directory: anything with ``pages/``."""
    p = Path(path)
    if not (p / "pages").is_dir():
        raise ConfigError(f"{path} holds no page store (no pages/ inside)")
    return p


def _existing_pool(path: str) -> Path:
    p = Path(path)
    if not (p / "frontier").is_dir():
        raise ConfigError(f"{path} is not a crawler-gui pool directory (no frontier/ inside)")
    return p
