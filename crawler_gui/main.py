"""The composition root: ``crawler-gui`` reads its arguments here and wires the rest.

* ``crawler-gui [POOL_DIR] [--demo]`` opens the desktop app (``crawler_gui.gui``);
* ``crawler-gui crawl|export|extract|stats|save|load|repair ...`` runs headless
  (``crawler_gui.cli``).

The desktop app exits 0 when its window is closed, 1 when the pool cannot be opened, 2 on bad
arguments, and 5 when the window cannot open here (no display, or a system library Qt's X11
plugin needs is missing: ``crawler_gui.gui.preflight``, checked before Qt starts).
"""

from __future__ import annotations

import argparse
import sys

from crawler_gui import __version__
from crawler_gui.core.logs import configure_logging


def gui_parser() -> argparse.ArgumentParser:
    from crawler_gui.cli.parser import positive

    parser = argparse.ArgumentParser(
        prog="crawler-gui",
        description="A desktop crawl monitor for long-running, polite news crawls. Headless "
        "commands: crawler-gui crawl|export|extract|stats|save|load|repair --help.",
    )
    parser.add_argument(
        "pool_dir",
        nargs="?",
        help="the URL pool directory to open (default: the last one used); a pool that a "
        "headless `crawler-gui crawl` is crawling opens attached to that crawl",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="start the built-in demo news site on loopback and crawl it",
    )
    parser.add_argument(
        "--quit-after",
        type=positive,
        metavar="SECONDS",
        help="close the window in order (stopping the crawl, as Quit does) after SECONDS; "
        "for timed runs and smoke tests",
    )
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
    from crawler_gui.cli.parser import redis_password_option

    redis_password_option(parser)
    parser.add_argument("--version", action="version", version=f"crawler-gui {__version__}")
    return parser


def _command_index(args: list[str]) -> int:
    """Where a headless command would be in ``args``: after the options that come before it
    (``--log-level LEVEL``, as in ``crawler-gui --log-level INFO crawl ...``)."""
    i = 0
    while i < len(args) and args[i].startswith("--log-level"):
        i += 1 if "=" in args[i] else 2
    return i


def main(argv: list[str] | None = None) -> int:
    # In the frozen app an extraction worker is this executable started by multiprocessing
    # (``--multiprocessing-fork``): there it runs the worker and exits; elsewhere a no-op.
    import multiprocessing

    multiprocessing.freeze_support()
    args_list = list(sys.argv[1:] if argv is None else argv)
    from crawler_gui import cli

    command = args_list[_command_index(args_list) :][:1]
    if command and command[0] in cli.COMMANDS:
        return cli.main(args_list)
    if args_list[:1] in (["-h"], ["--help"]) and len(args_list) == 1:
        gui_parser().print_help()
        print(
            "\nheadless commands:\n  "
            + "\n  ".join(f"crawler-gui {c} --help" for c in cli.COMMANDS)
        )
        return 0
    args = gui_parser().parse_args(args_list)
    configure_logging(args.log_level)
    pool_dir = args.pool_dir
    if pool_dir:
        from crawler_gui.core.credentials import redis_with_password
        from crawler_gui.core.redis.location import is_pool_url
        from crawler_gui.errors import ConfigError

        try:
            if is_pool_url(pool_dir):
                pool_dir = redis_with_password(pool_dir.strip(), args.redis_password_file)
        except ConfigError as exc:
            print(f"crawler-gui: {exc}", file=sys.stderr)
            return 2
    # Before any Qt import: Qt aborts (a core dump) without a display or a library it needs.
    from crawler_gui.gui import preflight

    problem = preflight.desktop_problem()
    if problem is not None:
        print(problem, file=sys.stderr, end="")
        return preflight.EXIT_ENVIRONMENT
    from crawler_gui.gui.app import run_gui

    return run_gui(pool_dir, demo=args.demo, quit_after=args.quit_after)


if __name__ == "__main__":
    sys.exit(main())
