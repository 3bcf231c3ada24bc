"""The headless command line: ``crawl``, ``export``, ``stats``, ``save``, ``load`` and
``repair``.

``crawl`` on a pool folder serves its crawl on a local control channel (``engine.control``,
``docs/control.md``): the window attaches to it, and ``stats`` of that pool prints the live
totals instead of "in use".

Every command that takes a POOL_DIR also takes a Redis pool URL
(``redis://host:port/db?name=news``, ``docs/redis.md``): ``crawl`` then joins the shared pool
as one worker and keeps its pages in ``--store-dir`` (default: a store of its own under
``./crawler-gui-<name>/``, see ``docs/redis.md``);
``export`` reads such a store directory.

``crawl`` also runs for days on a server (``docs/server.md``): a rotating ``--log-file`` and
``--log-format json``, ``--metrics`` (Prometheus text and a health check), ``--proxy``.

Exit codes: 0 done; 1 an error during the run (also: the Redis server cannot be reached or
refused the credentials; our own disk is full or failed a write; an output file or WARC folder
cannot be written); 2 bad arguments (also an output inside the pool's own files, a pool URL that
cannot be used); 3 the pool or the page store is in use by another process; 4 the pool or a file
is corrupt, damaged, foreign or from a newer version; 130 stopped at once by a second Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from crawler_gui.core import snapshot_file
from crawler_gui.core.leveldb_pool import LevelDBPool
from crawler_gui.engine.crawler import load_seed_domains
from crawler_gui.engine.session import (
    RECONNECT_SECONDS,
    SCOPE_FILE,
    SCOPE_MODES,
    CrawlSession,
    is_pool_url,
    merged_scope,
    open_redis_pool,
    write_scope_file,
)
from crawler_gui.engine.settings import SYNC_MODES, CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import (
    ConfigError,
    CrawlerGuiError,
    DiskFullError,
    PoolCorruptError,
    PoolInUseError,
    PoolVersionError,
    PoolWriteError,
    SnapshotError,
    StoreError,
    StoreInUseError,
    StoreWriteError,
    is_disk_full,
)

if TYPE_CHECKING:
    from crawler_gui.core.frontier import HubSpec
    from crawler_gui.engine.control import ControlServer

log = logging.getLogger(__name__)

EXIT_ERROR, EXIT_USAGE, EXIT_IN_USE, EXIT_CORRUPT, EXIT_ABORTED = 1, 2, 3, 4, 130
COMMANDS = ("crawl", "export", "extract", "stats", "save", "load", "repair")
#: The record types of ``export --records`` and what each holds (one place for all of them).
EXPORT_RECORDS = {
    "pages": "one record per stored page, as fetched",
    "outcomes": "one record per URL of the pool with its state; a failed or refused URL with "
    "its last status, reason and message, a redirected one with its target",
}


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
        help="default refresh span of hubs (default 300); with adaptive refresh the average "
        "span: the hub fetch budget",
    )
    crawl.add_argument(
        "--hub-refresh",
        choices=("adaptive", "fixed"),
        default="adaptive",
        help="adaptive (default): hubs share the budget of their spans by how often each "
        "publishes (docs/freshness.md); fixed: every hub on its own span",
    )
    crawl.add_argument(
        "--hub-span-min",
        type=_positive,
        default=5.0,
        metavar="SECONDS",
        help="adaptive refresh: no hub refreshed more often than this, nor faster than its "
        "host's politeness allows (default 5)",
    )
    crawl.add_argument(
        "--hub-span-max",
        type=_positive,
        default=3600.0,
        metavar="SECONDS",
        help="adaptive refresh: every hub refreshed at least this often, a silent one too "
        "(default 3600)",
    )
    crawl.add_argument(
        "--concurrency",
        type=_positive_int,
        default=16,
        metavar="N",
        help="fetches in flight at once, over all hosts (default 16)",
    )
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
    defaults = CrawlSettings()
    crawl.add_argument(
        "--connect-timeout",
        type=_positive,
        default=defaults.connect_timeout,
        metavar="SECONDS",
        help="give up connecting to a server after this long "
        f"(default {defaults.connect_timeout:g})",
    )
    crawl.add_argument(
        "--read-timeout",
        type=_positive,
        default=defaults.read_timeout,
        metavar="SECONDS",
        help="give up when a server sends nothing for this long "
        f"(default {defaults.read_timeout:g})",
    )
    crawl.add_argument(
        "--timeout",
        type=_positive,
        default=defaults.total_timeout,
        metavar="SECONDS",
        help="the whole of one request, redirects followed included, may take at most this "
        f"long (default {defaults.total_timeout:g})",
    )
    crawl.add_argument(
        "--max-depth",
        type=_depth,
        metavar="N",
        help="follow links at most N steps from a seed or hub (default: no limit)",
    )
    crawl.add_argument(
        "--max-pages",
        type=_positive_int,
        metavar="N",
        help="stop after this many fetches (default: no limit)",
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
    crawl.add_argument(
        "--deny-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="never crawl this domain or its subdomains (repeatable)",
    )
    crawl.add_argument(
        "--allow-private",
        action="store_true",
        help="allow requests to loopback and private addresses",
    )
    crawl.add_argument("--ignore-robots", action="store_true", help="do not obey robots.txt")
    crawl.add_argument("--warc", metavar="DIR", help="also write WARC files into DIR")
    crawl.add_argument(
        "--extract",
        choices=["on", "off", "later"],
        default="on",
        help="article extraction: during the crawl in worker processes (on, the default), "
        "not at all (off), or later with `crawler-gui extract` (bodies are kept)",
    )
    _extract_options(crawl)
    crawl.add_argument(
        "--user-agent",
        metavar="TEXT",
        help=f"the User-Agent header (default {defaults.user_agent!r})",
    )
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
        "--sync",
        choices=SYNC_MODES,
        default="second",
        help="when the pool's writes are forced to the disk: every batch of results "
        "(safest, slowest), at least once a second, or when the OS decides; bounds what a "
        "power cut can lose (default second; docs/storage.md)",
    )
    crawl.add_argument(
        "--min-free",
        type=_non_negative,
        default=100.0,
        metavar="MB",
        help="stop cleanly when the disk of the pool (or the WARC folder) has less free "
        "space than this; 0: only when a write fails (default 100)",
    )
    crawl.add_argument(
        "--store-dir",
        metavar="DIR",
        help="Redis pool only: this worker's local page store (and scope.json); default "
        "./crawler-gui-NAME/ID with --worker ID, else the first store under "
        "./crawler-gui-NAME/ that no running worker holds (auto-1, auto-2, ...)",
    )
    crawl.add_argument(
        "--redis-retry",
        type=_non_negative,
        default=RECONNECT_SECONDS,
        metavar="SECONDS",
        help="Redis pool only: while the Redis server cannot be reached (a restart, a network "
        "cut), keep retrying with backoff for this long before the worker gives up; its "
        "leases are kept (default %(default).0f)",
    )
    crawl.add_argument(
        "--worker",
        metavar="ID",
        help="Redis pool only: this worker's id (default hostname:pid); a worker "
        "restarted under the same id takes its unfinished URLs back at once",
    )
    _add_service_options(crawl)

    export = sub.add_parser(
        "export",
        help="write records as JSON Lines: the stored pages, or every URL's outcome",
        description="Write records as JSON Lines, one object per line (docs/storage.md). "
        + " ".join(f"{name}: {text}." for name, text in EXPORT_RECORDS.items()),
    )
    export.add_argument(
        "pool_dir",
        help="a pool directory; for pages also a Redis worker's --store-dir, for outcomes "
        "also a Redis pool URL",
    )
    export.add_argument(
        "--records",
        choices=tuple(EXPORT_RECORDS),
        default="pages",
        help="which records (default pages)",
    )
    export.add_argument("-o", "--output", metavar="FILE", help="default: standard output")

    extract = sub.add_parser(
        "extract",
        help="extract articles from the stored pages (those not extracted yet; --all: every "
        "page again)",
    )
    extract.add_argument("pool_dir", help="a pool directory, or a Redis worker's --store-dir")
    extract.add_argument("--all", action="store_true", help="re-extract pages extracted before")
    _extract_options(extract)

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
    load.add_argument(
        "--scope",
        choices=SCOPE_MODES,
        default="merge",
        help="the crawl scope (seed domains) the snapshot carries: merge it with the pool's "
        "(default), replace the pool's with it, or keep the pool's",
    )

    repair = sub.add_parser(
        "repair",
        help="repair a damaged pool into a copy (the pool itself is only read) and say what "
        "was recovered and what was lost",
    )
    repair.add_argument("pool_dir", help="the damaged pool directory (left as it is)")
    repair.add_argument(
        "-o",
        "--output",
        metavar="NEW_POOL_DIR",
        help="where the repaired copy goes; must not exist (default: POOL_DIR.repaired "
        "next to it). Check it, then crawl it or swap the folders yourself",
    )
    return parser


def _zone(text: str) -> tuple[str, str]:
    host, sep, offset = text.partition("=")
    if not sep or not host or not re.fullmatch(r"[+-](0\d|1[0-4]):[0-5]\d", offset):
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST=+HH:MM (e.g. .sina.com.cn=+08:00)")
    return host, offset


def _extract_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--zone",
        action="append",
        type=_zone,
        default=[],
        metavar="HOST=+HH:MM",
        help="time zone of a host's (or a .domain's) local times (repeatable); without one, "
        "Chinese pages get +08:00, marked as inferred",
    )
    p.add_argument(
        "--extract-workers",
        type=_positive_int,
        metavar="N",
        help="extraction worker processes (default: every CPU but one)",
    )


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
        "hub_refresh": args.hub_refresh,
        "hub_span_min": args.hub_span_min,
        "hub_span_max": args.hub_span_max,
        "sync": args.sync,
        "min_free_mb": args.min_free,
        "connect_timeout": args.connect_timeout,
        "read_timeout": args.read_timeout,
        "total_timeout": args.timeout,
        "extract": args.extract,
        "extract_workers": args.extract_workers,
        "zones": tuple(args.zone),
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


class _QuietStream:
    """Standard error that never raises: once a write fails (the reader went away, as in
    ``crawler-gui crawl … 2>&1 | head``, or the disk under a redirect is full) further output
    is dropped. Output is a courtesy; it must never stop a crawl, nor keep a stop signal from
    stopping it (a print that raises inside the signal handler would)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream: TextIO | None = stream
        self.broken = False

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
            except (OSError, ValueError):  # (ValueError: the stream was closed)
                self._drop()
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._drop()

    def isatty(self) -> bool:
        try:
            return self._stream is not None and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def _drop(self) -> None:
        self._stream = None
        self.broken = True


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    real_stderr = sys.stderr
    quiet = _QuietStream(real_stderr)
    sys.stderr = quiet
    try:
        return _main(args, parser)
    finally:
        if not quiet.broken:  # (a broken one stays: the exit-time flush must not fail again)
            sys.stderr = real_stderr


def _main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    try:
        _setup_logging(args)
        if args.command == "crawl":
            return asyncio.run(crawl_command(args, parser))
        if args.command == "export":
            return export_command(args)
        if args.command == "extract":
            return asyncio.run(extract_command(args))
        if args.command == "stats":
            return asyncio.run(stats_command(args))
        if args.command == "repair":
            return repair_command(args)
        return asyncio.run(snapshot_command(args))
    except (PoolInUseError, StoreInUseError) as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_IN_USE
    except (DiskFullError, PoolWriteError, StoreWriteError) as exc:
        # Our own disk failed a write: an error of this run, not a corrupt pool.
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (PoolCorruptError, PoolVersionError, SnapshotError, StoreError) as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_CORRUPT
    except ConfigError as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CrawlerGuiError as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl-C before the crawl's own handler was installed
        print("crawler-gui: interrupted", file=sys.stderr)
        return EXIT_ABORTED
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
    if not redis and args.redis_retry != RECONNECT_SECONDS:
        parser.error("--redis-retry is for a Redis pool URL only")
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
            redis_retry=args.redis_retry,
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
            from crawler_gui.engine.scope import REASONS as SCOPE_REASONS

            report = await crawler.add_seeds(args.seed)
            for url, reason in report.refused:
                text = REASON_TEXT.get(reason) or SCOPE_REASONS.get(reason, reason)
                print(f"seed refused: {url}: {text}", file=sys.stderr)
        # URLs refused under the last run's settings that these settings allow come back.
        await crawler.reconsider_refusals()
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
            try:
                await session.close()
            except CrawlerGuiError:
                if crawler.storage_error is None:
                    raise
        finally:
            if control is not None:  # after the close: attached windows may open the pool now
                await control.close(session.crawler.state)
    if crawler.storage_error is not None:
        # Our own disk: one line, exit 1; running the same command again resumes.
        print(
            f"crawler-gui: {crawler.storage_error}; the crawl stopped and nothing was lost: "
            "free some space and run the same command again",
            file=sys.stderr,
        )
        return EXIT_ERROR
    if isinstance(crawler.failure, PoolCorruptError):
        print(f"crawler-gui: {crawler.failure}", file=sys.stderr)
        return EXIT_CORRUPT
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
        # The stop is scheduled before anything is printed, and no output error reaches the
        # signal: a stop signal always stops the crawl, whatever happens to standard error.
        nonlocal presses, aborted, stopper
        presses += 1
        if presses == 1:
            stopper = loop.create_task(crawler.stop())
            say = "\nstopping: in-flight fetches finish (Ctrl-C again to stop at once)"
        else:
            aborted = True
            stopper = loop.create_task(crawler.stop(wait_in_flight=False))
            say = "\nstopping now; unfinished URLs go back to the pool"
        with contextlib.suppress(OSError, ValueError):
            print(say, file=sys.stderr, flush=True)

    def on_storage_full(_message: str) -> None:
        # Headless, nobody is there to free space and press Resume: stop cleanly.
        nonlocal stopper
        if stopper is None:
            stopper = loop.create_task(crawler.stop())

    crawler.storage_listeners.append(on_storage_full)
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
        f"in flight {t.pending:,} | retrying {t.retrying:,} | "
        f"failed {t.failed - t.refused_urls:,} | refused {t.refused_urls:,} | "
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
    if args.records == "outcomes":
        return asyncio.run(_export_outcomes(args))
    if is_pool_url(args.pool_dir):
        raise ConfigError(
            "export reads a local page store: give the worker's store directory "
            "(crawl --store-dir, default ./crawler-gui-NAME), not the Redis URL"
        )
    pool_dir = _existing_store(args.pool_dir)
    if args.output is not None:
        _outside_pool(args.output, pool_dir, "export")
    store = PageStore.open_in_pool(pool_dir, create=False)
    try:
        if args.output:
            count = _write_atomically(Path(args.output), store.export_jsonl)
        else:
            count = store.export_jsonl(sys.stdout)
    finally:
        store.close()
    print(f"{count} records exported", file=sys.stderr)
    return 0


async def _export_outcomes(args: argparse.Namespace) -> int:
    """Every URL's outcome from the pool (a directory or a Redis pool URL)."""
    count = 0
    if is_pool_url(args.pool_dir):
        redis_pool = await open_redis_pool(args.pool_dir)
        try:
            with _output(args.output) as out:
                async for rec in redis_pool.iter_outcomes():
                    _write_record(out, rec)
                    count += 1
        finally:
            await redis_pool.close()
    else:
        pool_dir = _existing_pool(args.pool_dir)
        if args.output is not None:
            _outside_pool(args.output, pool_dir, "export")
        pool = await LevelDBPool.open_async(pool_dir, create=False)
        try:
            with _output(args.output) as out:
                for rec in pool.iter_outcomes():
                    _write_record(out, rec)
                    count += 1
        finally:
            await pool.close()
    print(f"{count} records exported", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[TextIO]:
    """Standard output, or a file written whole or not at all: a temporary file in the
    target's folder, fsynced and renamed over it at the end (a failure, such as no space or no
    permission, leaves the previous file as it was). Every OSError is one clear line."""
    if not path:
        yield sys.stdout
        return
    target = Path(path)
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        tmp = Path(name)
        with open(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, IsADirectoryError) or target.is_dir():
            reason = "it is a folder"
        if is_disk_full(exc):
            raise DiskFullError(f"cannot write {target}: the disk is full") from exc
        raise CrawlerGuiError(f"cannot write {target}: {reason}") from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _write_record(out: TextIO, record: dict[str, Any]) -> None:
    out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


async def extract_command(args: argparse.Namespace) -> int:
    """Extract (or with --all re-extract) the stored pages, with progress on stderr."""
    from crawler_gui.engine.decode import sniff_kind
    from crawler_gui.engine.extract.pool import ExtractPool
    from crawler_gui.engine.extract.service import Articles

    if is_pool_url(args.pool_dir):
        raise ConfigError("extract reads a local page store: give the worker's store directory")
    pool_dir = _existing_store(args.pool_dir)
    store = await asyncio.to_thread(PageStore.open_in_pool, pool_dir)
    interactive = sys.stderr.isatty()
    done = no_body = 0
    try:
        total = store.count()
        async with ExtractPool(args.extract_workers) as pool:
            articles = Articles(pool, store, dict(args.zone))
            last = 0.0
            for seq, record in store.iter_seq_records(only_unextracted=not args.all):
                if record.body is None:
                    no_body += 1
                    continue
                kind = sniff_kind(record.content_type, record.body)
                await articles.page(
                    seq, record.final_url, record.body, record.content_type, is_html=kind == "html"
                )
                done += 1
                now = time.monotonic()
                if now - last >= 1.0:
                    last = now
                    line = (
                        f"extracting: {done} pages handed over of {total}, "
                        f"{articles.judged} judged, {articles.found} articles"
                    )
                    print(("\r" + line) if interactive else line, end="", file=sys.stderr)
                    if not interactive:
                        print(file=sys.stderr)
            await articles.drain()
        await store.flush()
    finally:
        await store.aclose()
    if interactive:
        print(file=sys.stderr)
    print(
        f"{articles.judged} pages extracted: {articles.found} articles, "
        f"{articles.kinds.get('list', 0)} lists, {articles.kinds.get('other', 0)} other "
        f"({articles.failed} failed); {no_body} without a stored body skipped",
        file=sys.stderr,
    )
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
            pool = await LevelDBPool.open_async(store_dir, create=False)
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
    if store_dir is not None and (store_dir / "pages").exists():
        store = PageStore.open_in_pool(store_dir, create=False)
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
            loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(args.file))
            count = await pool.load_snapshot(args.file)
            print(
                f"loaded {count} records from {args.file} into the Redis pool {pool.name!r}",
                file=sys.stderr,
            )
            current = await pool.scope_domains()
            scope = merged_scope(current, loaded, args.scope)
            if scope != current:
                if scope >= current:
                    await pool.add_scope_domains(scope - current)
                else:
                    await pool.replace_scope_domains(scope)
            _say_scope(loaded, current, scope)
    finally:
        await pool.close()
    return 0


def _say_scope(loaded: Iterable[str], before: set[str], after: set[str]) -> None:
    loaded = set(loaded)
    if not loaded:
        print(
            "the snapshot carries no crawl scope (an older file): scope unchanged",
            file=sys.stderr,
        )
        return
    print(
        f"crawl scope: {len(loaded)} domain(s) in the snapshot; {len(before)} before, "
        f"{len(after)} now",
        file=sys.stderr,
    )


async def snapshot_command(args: argparse.Namespace) -> int:
    if is_pool_url(args.pool_dir):
        return await _redis_snapshot(args)
    saving = args.command == "save"
    pool_dir = _existing_pool(args.pool_dir) if saving else Path(args.pool_dir)
    if saving:
        _outside_pool(args.file, pool_dir, "snapshot")
    elif pool_dir.exists() and not pool_dir.is_dir():
        raise ConfigError(f"{pool_dir} is a file, not a pool directory")
    pool = await LevelDBPool.open_async(pool_dir, create=not saving)
    scope_file = pool_dir / SCOPE_FILE
    try:
        if args.command == "save":
            scope = load_seed_domains(scope_file)
            count = await pool.save_snapshot(args.file, scope=scope)
            print(f"saved {count} records to {args.file}", file=sys.stderr)
        else:
            loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(args.file))
            count = await pool.load_snapshot(args.file)
            print(f"loaded {count} records from {args.file} into {pool_dir}", file=sys.stderr)
            current = set(load_seed_domains(scope_file))
            after = merged_scope(current, loaded, args.scope)
            if after != current:
                write_scope_file(scope_file, after)
            _say_scope(loaded, current, after)
    finally:
        await pool.close()
    return 0


def repair_command(args: argparse.Namespace) -> int:
    """Repair a copy: LevelDB's repair, then the pool's invariants; the original is only
    read, and is refused while a crawl has it open."""
    from crawler_gui.core.leveldb_pool import repair_pool

    if is_pool_url(args.pool_dir):
        raise ConfigError("repair works on a pool directory (a Redis pool has no files here)")
    src = _existing_pool(args.pool_dir)
    dest = Path(args.output) if args.output else src.with_name(src.name + ".repaired")
    if args.output is not None:
        _outside_pool(args.output, src, "repaired copy")
    if dest.exists():
        raise ConfigError(f"{dest} exists already: give another folder with --output")
    _refuse_if_open(src)
    report = repair_pool(src, dest)
    for line in report.lines():
        print(line, file=sys.stderr)
    print(
        f"the damaged pool {src} was left as it is; crawl the copy with "
        f"`crawler-gui crawl {dest}`, or move it in place of the old one",
        file=sys.stderr,
    )
    return 0


def _refuse_if_open(pool_dir: Path) -> None:
    """A pool a crawl has open is not copied (the copy would be torn)."""
    lock = pool_dir / "frontier" / "LOCK"
    if not lock.exists():
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: LevelDB's own lock is checked later
        return
    with open(lock, "rb+") as fh:
        try:
            fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise PoolInUseError(
                f"the pool {pool_dir} is open in a crawler-gui process; stop it first"
            ) from exc
        fcntl.lockf(fh, fcntl.LOCK_UN)


def _write_atomically(target: Path, write: Callable[[TextIO], int]) -> int:
    """``write`` into ``target`` whole or not at all (see :func:`_output`)."""
    with _output(str(target)) as fh:
        return write(fh)


def _outside_pool(target: str, pool_dir: Path, what: str) -> None:
    """Refuse an output path inside a pool's own files (or the pool folder itself)."""
    if not target.strip():
        raise ConfigError(f"{what} needs a file name (an empty one was given)")
    out = Path(target).expanduser().resolve()
    root = pool_dir.expanduser().resolve()
    if out == root or root in out.parents:
        raise ConfigError(
            f"{target} is inside the pool {pool_dir}: write the {what} somewhere else "
            "(the pool's own files must not be overwritten)"
        )


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
