"""The options of every headless command, the checks of their combinations, and the crawl
settings the ``crawl`` options give."""

from __future__ import annotations

import argparse
import re
from typing import Any

from crawler_gui.core.credentials import PROXY_PASSWORD_ENV, REDIS_PASSWORD_ENV
from crawler_gui.core.logs import LOG_FORMATS, ROTATE_WHEN
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.export import EXPORT_FORMATS, EXPORT_RECORDS
from crawler_gui.engine.session import RECONNECT_SECONDS, SCOPE_MODES
from crawler_gui.engine.settings import SYNC_MODES, CrawlMode, CrawlSettings

COMMANDS = ("crawl", "export", "extract", "stats", "report", "save", "load", "repair", "migrate")


# Option types: the argument's value, or argparse's one-line error (exit code 2).
def _whole(text: str, minimum: int, message: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from exc
    if value < minimum:
        raise argparse.ArgumentTypeError(message)
    return value


def positive_int(text: str) -> int:
    return _whole(text, 1, "must be at least 1")


def non_negative_int(text: str) -> int:
    return _whole(text, 0, "must not be negative")


def non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from exc
    if not value >= 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def positive(text: str) -> float:
    value = non_negative(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
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
    redis_password_option(crawl)
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
        "--no-discover-feeds",
        action="store_true",
        help="do not make hubs of the feeds pages announce (<link rel=alternate>) and of the "
        "sitemaps robots.txt names (on by default; at most 10 per host)",
    )
    crawl.add_argument(
        "--hub-history",
        type=positive_int,
        default=5,
        metavar="N",
        help="changed bodies of each hub kept in the page store (default 5; an unchanged "
        "body is not stored again)",
    )
    crawl.add_argument(
        "--hub-span",
        type=non_negative,
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
        type=positive,
        default=5.0,
        metavar="SECONDS",
        help="adaptive refresh: no hub refreshed more often than this, nor faster than its "
        "host's politeness allows (default 5)",
    )
    crawl.add_argument(
        "--hub-span-max",
        type=positive,
        default=3600.0,
        metavar="SECONDS",
        help="adaptive refresh: every hub refreshed at least this often, a silent one too "
        "(default 3600)",
    )
    crawl.add_argument(
        "--concurrency",
        type=positive_int,
        default=16,
        metavar="N",
        help="fetches in flight at once, over all hosts (default 16)",
    )
    crawl.add_argument(
        "--delay",
        type=non_negative,
        default=1.0,
        metavar="SECONDS",
        help="minimum delay between two requests to one host (default 1)",
    )
    crawl.add_argument(
        "--delay-factor",
        type=non_negative,
        default=2.0,
        metavar="X",
        help="also wait X times the last response time between two requests to one host "
        "(default 2)",
    )
    defaults = CrawlSettings()
    crawl.add_argument(
        "--connect-timeout",
        type=positive,
        default=defaults.connect_timeout,
        metavar="SECONDS",
        help="give up connecting to a server after this long "
        f"(default {defaults.connect_timeout:g})",
    )
    crawl.add_argument(
        "--read-timeout",
        type=positive,
        default=defaults.read_timeout,
        metavar="SECONDS",
        help="give up when a server sends nothing for this long "
        f"(default {defaults.read_timeout:g})",
    )
    crawl.add_argument(
        "--timeout",
        type=positive,
        default=defaults.total_timeout,
        metavar="SECONDS",
        help="the whole of one request, redirects followed included, may take at most this "
        f"long (default {defaults.total_timeout:g})",
    )
    crawl.add_argument(
        "--max-depth",
        type=non_negative_int,
        metavar="N",
        help="follow links at most N steps from a seed or hub (default: no limit)",
    )
    crawl.add_argument(
        "--max-pages",
        type=positive_int,
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
        "--search-index",
        choices=["on", "off"],
        default="on",
        help="keep the pages' search index (the window's Pages search) up to date during the "
        "crawl (on, the default), or not (off: saves its CPU and disk)",
    )
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
        type=non_negative,
        metavar="SECONDS",
        help="seconds before the first retry of a failed fetch; doubles with "
        "each failure (default 30)",
    )
    crawl.add_argument(
        "--lease",
        type=positive,
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
        type=non_negative,
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
        type=non_negative,
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
        help="write records as JSON Lines, CSV or WARC: the stored pages, the articles, or every "
        "URL's outcome",
        description="Write records as JSON Lines (one object per line), CSV, or WARC "
        "(docs/storage.md). "
        + " ".join(f"{name}: {text}." for name, text in EXPORT_RECORDS.items())
        + " A WARC file holds the pages' bodies as fetched (response records) and each "
        "article's extraction (a metadata record); it needs -o.",
    )
    export.add_argument(
        "pool_dir",
        help="a pool directory; for pages also a Redis worker's --store-dir, for outcomes "
        "also a Redis pool URL",
    )
    redis_password_option(export)
    export.add_argument(
        "--records",
        choices=tuple(EXPORT_RECORDS),
        default="pages",
        help="which records (default pages)",
    )
    export.add_argument(
        "--format",
        dest="export_format",
        choices=EXPORT_FORMATS,
        default="jsonl",
        help="file format (default jsonl; warc: pages or articles, gzip-compressed)",
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
    redis_password_option(stats)
    stats.add_argument(
        "--store-dir",
        metavar="DIR",
        help="Redis pool only: also count the pages stored in this worker's store directory",
    )

    report = sub.add_parser(
        "report",
        help="write a crawl report: one self-contained HTML file (totals, throughput, status "
        "codes, failing hosts, articles per host, freshness)",
        description="Write the crawl report of a pool as one HTML file with no external "
        "assets: totals, pages per minute over the whole run (from the counters the crawl "
        "keeps in the pool), status codes and errors, the top failing hosts and their "
        "reasons, articles per host, and freshness (median delay from publication to fetch). "
        "Works on a finished pool, on a pool a crawl holds (asked through its control "
        "channel) and on a Redis pool while its workers crawl.",
    )
    report.add_argument("pool_dir", help="a pool directory or a Redis pool URL")
    redis_password_option(report)
    report.add_argument(
        "-o", "--output", metavar="FILE", help="the HTML file (default: standard output)"
    )
    report.add_argument(
        "--store-dir",
        metavar="DIR",
        help="Redis pool only: a worker's store directory, for the stored articles' "
        "headlines and exact delays",
    )

    save = sub.add_parser("save", help="save the pool to a portable snapshot file")
    save.add_argument("pool_dir", help="a pool directory or a Redis pool URL")
    redis_password_option(save)
    save.add_argument("file")

    load = sub.add_parser("load", help="replace the pool's contents with a snapshot file")
    load.add_argument(
        "pool_dir", help="a pool directory or a Redis pool URL (every worker must be stopped)"
    )
    redis_password_option(load)
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

    migrate = sub.add_parser(
        "migrate",
        help="rewrite a pool made by an older crawler-gui with its URLs in the current "
        "canonical form (a pool folder is also migrated when opened; a Redis pool must be "
        "migrated with this command, its workers stopped)",
    )
    migrate.add_argument("pool_dir", help="the pool directory or Redis pool URL")
    redis_password_option(migrate)
    return parser


def redis_password_option(p: argparse.ArgumentParser) -> None:
    """``--redis-password-file``: the Redis pool's password off the command line."""
    p.add_argument(
        "--redis-password-file",
        metavar="FILE",
        help="Redis pool URL only: the pool's password, the one line of FILE (never give it in "
        "a command line: every user of the machine can read that); without this option the "
        f"environment variable {REDIS_PASSWORD_ENV} is read, if set",
    )


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
        type=positive_int,
        metavar="N",
        help="extraction worker processes (default: every CPU but one)",
    )


def _add_service_options(crawl: argparse.ArgumentParser) -> None:
    """Options for a crawl that runs for days on a server: logs, metrics, the live demo."""
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
        "[user[:password]@]host:port (the environment's HTTP_PROXY is never used; the password "
        "better from --proxy-password-file); "
        "the proxy resolves names, so only the URL's host is checked (docs/server.md)",
    )
    group.add_argument(
        "--proxy-password-file",
        metavar="FILE",
        help="the password of the --proxy URL's user (scheme://USER@host:port), the one line "
        f"of FILE; without this option the environment variable {PROXY_PASSWORD_ENV} is read, "
        "if set",
    )
    group.add_argument(
        "--log-file",
        metavar="PATH",
        help="write the log to PATH (rotated) instead of standard error",
    )
    group.add_argument(
        "--log-max-bytes",
        type=non_negative_int,
        default=50 * 1024 * 1024,
        metavar="N",
        help="rotate the log file when it would grow past N bytes (default 50 MiB; 0: never)",
    )
    group.add_argument(
        "--log-backups",
        type=non_negative_int,
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


def check_crawl_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse option combinations of ``crawl`` that cannot go together (exit 2, before
    anything is opened)."""
    if not args.pool_dir and not args.demo:
        parser.error("crawl needs a POOL_DIR (or --demo)")
    redis = bool(args.pool_dir) and is_pool_url(args.pool_dir)
    if not redis and (args.store_dir or args.worker):
        parser.error("--store-dir and --worker are for a Redis pool URL only")
    if not redis and args.redis_retry != RECONNECT_SECONDS:
        parser.error("--redis-retry is for a Redis pool URL only")
    if args.live and not args.demo:
        parser.error("--live goes with --demo")
    if args.proxy_password_file and not args.proxy:
        parser.error("--proxy-password-file goes with --proxy")
    if args.metrics:
        from crawler_gui.engine.metrics import parse_listen

        parse_listen(args.metrics)  # a bad address stops here (ConfigError), not after opening


def settings_from_args(args: argparse.Namespace) -> CrawlSettings:
    """The crawl settings of the ``crawl`` options."""
    kw: dict[str, Any] = {
        "concurrency": args.concurrency,
        "min_delay": args.delay,
        "delay_factor": args.delay_factor,
        "max_depth": args.max_depth,
        "max_pages": args.max_pages,
        # The demo finishes by itself; a real crawl refreshes its hubs until stopped.
        # (the live demo site never runs out of news: it is crawled continuously too)
        "mode": CrawlMode.UNTIL_IDLE
        if args.until_idle or (args.demo and not args.live)
        else CrawlMode.CONTINUOUS,
        "allow_domains": tuple(args.allow_domain),
        "deny_domains": tuple(args.deny_domain),
        "allow_private": args.allow_private,
        "obey_robots": not args.ignore_robots,
        "warc_dir": args.warc,
        "hub_span": args.hub_span if args.hub_span > 0 else 300.0,
        "discover_feeds": not args.no_discover_feeds,
        "hub_history": args.hub_history,
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
        "search_index": args.search_index == "on",
        "zones": tuple(args.zone),
    }
    if args.user_agent:
        kw["user_agent"] = args.user_agent
    if args.proxy:
        kw["proxy"] = args.proxy
    if args.retry_base is not None:
        kw["retry_base"] = args.retry_base
    if args.lease is not None:
        kw["pending_threshold"] = args.lease
    return CrawlSettings(**kw)
