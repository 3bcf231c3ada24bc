"""The composition root: ``crawler-gui`` reads its arguments here and wires the rest.

* ``crawler-gui [POOL_DIR] [--demo]`` opens the desktop app (``crawler_gui.gui``);
* ``crawler-gui crawl|export|stats|save|load ...`` runs headless (``crawler_gui.cli``).
"""

from __future__ import annotations

import argparse
import logging
import sys

from crawler_gui import __version__


def gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crawler-gui",
        description="A desktop crawl monitor for long-running, polite news crawls. Headless "
        "commands: crawler-gui crawl|export|stats|save|load --help.",
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
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"]
    )
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
    logging.basicConfig(
        level=getattr(logging, args.log_level),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from crawler_gui.gui.app import run_gui

    return run_gui(args.pool_dir, demo=args.demo)


if __name__ == "__main__":
    sys.exit(main())
