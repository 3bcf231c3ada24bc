"""The ``crawl`` command: open the crawl, serve it (the control channel windows and ``stats``
attach to, ``--metrics``), run it until done or stopped (first Ctrl-C or SIGTERM gracefully,
the second at once), show its progress, and say how it ended in the exit code."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from crawler_gui.core.logs import configure_logging
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.faults import damaged_storage
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlState
from crawler_gui.errors import ConfigError, CrawlerGuiError

from .exits import EXIT_ABORTED, EXIT_CORRUPT, EXIT_ERROR, EXIT_USAGE
from .parser import settings_from_args

if TYPE_CHECKING:
    from crawler_gui.core.frontier import HubSpec
    from crawler_gui.engine.control.server import ControlServer
    from crawler_gui.engine.metrics import MetricsServer

log = logging.getLogger(__name__)

#: The periodic summary of a crawl without a terminal goes through this logger when the log
#: goes to a file or is JSON (so it lands in the same place, in the same format).
_summary_log = logging.getLogger("crawler_gui.progress")


def _summary_to_log(args: argparse.Namespace) -> bool:
    return bool(args.log_file) or args.log_format == "json"


def configure_crawl_logging(args: argparse.Namespace) -> None:
    """The log goes to standard error, or to a rotating ``--log-file``; text or JSON lines.
    Without a terminal the crawl's periodic summary goes through the log as well."""
    configure_logging(
        args.log_level,
        log_file=args.log_file,
        log_format=args.log_format,
        max_bytes=0 if args.log_rotate else args.log_max_bytes,
        backups=args.log_backups,
        rotate=args.log_rotate,
    )
    if _summary_to_log(args):
        _summary_log.setLevel(logging.INFO)


async def crawl_command(args: argparse.Namespace) -> int:
    """Run the crawl the (checked: ``parser.check_crawl_args``) options describe."""
    redis = bool(args.pool_dir) and is_pool_url(args.pool_dir)
    settings = settings_from_args(args)
    if settings.proxy:
        from crawler_gui.core.redact import redact_url

        log.info("fetching through the proxy %s", redact_url(settings.proxy))
    hubs = _read_hubs(args.hubs_file, settings.hub_span) if args.hubs_file else []
    pool_dir = args.pool_dir or tempfile.mkdtemp(prefix="crawler-gui-demo-")
    session = await CrawlSession.open(
        pool_dir,
        settings,
        demo=args.demo,
        store_dir=args.store_dir,
        worker=args.worker,
        redis_retry=args.redis_retry,
        live=args.live,
    )
    crawler = session.crawler
    if crawler.articles is not None:
        crawler.articles.keep_recent(0)  # for a window: there is none (the counts stay)
    control = None if redis else await _serve_control(session, Path(pool_dir))
    metrics = None
    try:
        metrics = await _start_metrics(args.metrics, session)
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
        totals = await session.frontier.totals()
        # On a shared pool, URLs in flight at other workers may still bring new links.
        if not (totals.waiting or totals.hubs or totals.retrying or totals.pending):
            print(
                "crawler-gui: nothing to crawl: give --seed URL or --hubs-file FILE "
                "(the pool is empty)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        progress = _Progress(session, sys.stderr, to_log=_summary_to_log(args))
        aborted = await _run_with_signals(session, progress, live=not args.no_progress)
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
                await control.close(crawler.state)
    if crawler.storage_error is not None:
        # Our own disk: one line, exit 1; running the same command again resumes.
        print(
            f"crawler-gui: {crawler.storage_error}; the crawl stopped and nothing was lost: "
            "free some space and run the same command again",
            file=sys.stderr,
        )
        return EXIT_ERROR
    if crawler.failure is not None and damaged_storage(crawler.failure):
        print(f"crawler-gui: {crawler.failure}", file=sys.stderr)
        return EXIT_CORRUPT
    snap_line = f"pool: {session.display_name}"
    if redis:
        snap_line += f"; worker {session.worker}; pages in {session.store_dir}"
    print(f"\ncrawl {state.value}; {snap_line}", file=sys.stderr)
    if aborted:
        return EXIT_ABORTED
    return EXIT_ERROR if state is CrawlState.FAILED else 0


def _read_hubs(path: str, span: float) -> list[HubSpec]:
    """The hubs of ``--hubs-file``; every bad line is named and nothing is started."""
    from crawler_gui.core.hublist import REASON_TEXT, hubs_from_text

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the hubs file {path}: {exc}") from exc
    hubs, bad = hubs_from_text(text, span)
    for line in bad:
        print(
            f"{path}:{line.line}: {line.text}: {REASON_TEXT.get(line.reason or '', line.reason)}",
            file=sys.stderr,
        )
    if bad:
        raise ConfigError(f"{len(bad)} bad line(s) in {path}; nothing was started")
    return hubs


async def _serve_control(session: CrawlSession, pool_dir: Path) -> ControlServer | None:
    """The control channel of a local crawl (windows and ``stats`` attach to it); the crawl
    runs without one when the socket cannot be made."""
    from crawler_gui.engine.control.server import ControlServer
    from crawler_gui.engine.control.wire import ControlError

    try:
        return await ControlServer.start(session, pool_dir)
    except (ControlError, OSError) as exc:
        log.warning("no control channel (windows cannot attach to this crawl): %s", exc)
        return None


async def _start_metrics(listen: str | None, session: CrawlSession) -> MetricsServer | None:
    """The ``--metrics`` server on this loop, or None."""
    if not listen:
        return None
    from crawler_gui.engine.metrics import MetricsServer, exposes_widely, parse_listen

    host, port = parse_listen(listen)
    if exposes_widely(host):
        print(
            f"crawler-gui: warning: metrics on {host}:{port} can be read by anyone who can "
            "reach this address (no authentication); use a bare port for loopback only",
            file=sys.stderr,
        )
    server = MetricsServer(session.crawler, host, port)
    await server.start()
    return server


async def _run_with_signals(session: CrawlSession, progress: _Progress, *, live: bool) -> bool:
    """Run the crawl; first Ctrl-C (or SIGTERM) stops gracefully, the second at once. True
    when it was stopped at once."""
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
    reporter = loop.create_task(progress.run(live=live and progress.out.isatty()))
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
    await progress.show(live=False)
    return aborted


class _Progress:
    """The crawl's progress on ``out``: a live line on a terminal; otherwise a summary line
    every 10 s, through the log (logger ``crawler_gui.progress``, with its counters as
    fields) when ``to_log``."""

    def __init__(self, session: CrawlSession, out: TextIO, *, to_log: bool) -> None:
        self.session = session
        self.out = out
        self.to_log = to_log

    async def run(self, *, live: bool) -> None:
        interval = 0.5 if live else 10.0
        while True:
            await asyncio.sleep(interval)
            await self.show(live=live)

    async def show(self, *, live: bool) -> None:
        stats = self.session.crawler.stats()
        t = await self.session.frontier.totals()
        line = (
            f"{stats.pages_per_s_10s:7.1f} pages/s | done {t.done:,} | waiting {t.waiting:,} | "
            f"in flight {t.pending:,} | retrying {t.retrying:,} | "
            f"failed {t.failed - t.refused_urls:,} | refused {t.refused_urls:,} | "
            f"errors {stats.errors:,}"
        )
        if live:
            self.out.write("\r" + line[:200] + "\x1b[K")
        elif self.to_log:
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
            self.out.write(time.strftime("%H:%M:%S ") + line + "\n")
        self.out.flush()
