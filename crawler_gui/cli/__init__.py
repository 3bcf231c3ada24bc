"""The headless command line: ``crawl``, ``export``, ``extract``, ``stats``, ``report``,
``save``, ``load`` and ``repair``. This module runs one command and turns its errors into one
line and an exit code; the commands live in ``crawl`` (the crawl), ``records`` (export,
extract), ``pool`` (stats, save, load, repair) and ``report`` (the HTML crawl report), their
options in ``parser``, the places they are given in ``locations``.

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
is corrupt, damaged, foreign or from a newer version, or the pool is on a read-only file system
(or in a folder this user may not write); 130 stopped at once by a second Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from typing import TextIO

from crawler_gui.core.credentials import proxy_with_password, redis_with_password
from crawler_gui.core.logs import configure_logging
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.errors import (
    ConfigError,
    CrawlerGuiError,
    DiskFullError,
    PoolCorruptError,
    PoolInUseError,
    PoolVersionError,
    PoolWriteError,
    ReadOnlyError,
    SnapshotError,
    StoreError,
    StoreInUseError,
    StoreWriteError,
)

from .crawl import configure_crawl_logging, crawl_command
from .exits import EXIT_ABORTED, EXIT_CORRUPT, EXIT_ERROR, EXIT_IN_USE, EXIT_USAGE
from .parser import COMMANDS, build_parser, check_crawl_args, settings_from_args
from .pool import (
    load_command,
    migrate_command,
    repair_command,
    save_command,
    stats_command,
)
from .records import export_command, extract_command
from .report import report_command

__all__ = [
    "COMMANDS",
    "EXIT_ABORTED",
    "EXIT_CORRUPT",
    "EXIT_ERROR",
    "EXIT_IN_USE",
    "EXIT_USAGE",
    "build_parser",
    "main",
    "settings_from_args",
]


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
        return _run(args, parser)
    except (PoolInUseError, StoreInUseError) as exc:
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_IN_USE
    except (DiskFullError, PoolWriteError, StoreWriteError) as exc:
        # Our own disk failed a write: an error of this run, not a corrupt pool.
        print(f"crawler-gui: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (PoolCorruptError, PoolVersionError, ReadOnlyError, SnapshotError, StoreError) as exc:
        # (a read-only pool too: a run of the same command would not cure it)
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


def _with_passwords(args: argparse.Namespace) -> None:
    """The Redis pool's password (``--redis-password-file``, or the environment) into a pool
    URL, the proxy's (``--proxy-password-file``, or the environment) into ``--proxy``: in
    memory, never on the command line. A pool folder needs none (the option is accepted and
    left unread, so that one service unit serves both kinds of pool)."""
    location = getattr(args, "pool_dir", None)
    if location and is_pool_url(location) and hasattr(args, "redis_password_file"):
        args.pool_dir = redis_with_password(location, args.redis_password_file)
    if getattr(args, "proxy", None):
        args.proxy = proxy_with_password(args.proxy, args.proxy_password_file)


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Set up the log and run ``args.command``."""
    if args.command == "crawl":
        configure_crawl_logging(args)
        check_crawl_args(parser, args)
        _with_passwords(args)
        return asyncio.run(crawl_command(args))
    configure_logging(args.log_level)
    _with_passwords(args)
    if args.command == "export":
        return export_command(args)
    if args.command == "extract":
        return asyncio.run(extract_command(args))
    if args.command == "stats":
        return asyncio.run(stats_command(args))
    if args.command == "report":
        return asyncio.run(report_command(args))
    if args.command == "save":
        return asyncio.run(save_command(args))
    if args.command == "load":
        return asyncio.run(load_command(args))
    if args.command == "migrate":
        return asyncio.run(migrate_command(args))
    return repair_command(args)
