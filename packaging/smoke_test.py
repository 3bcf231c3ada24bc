"""Smoke-test the release archive as a desktop user gets it: no Python of ours involved.

    .venv/bin/python packaging/smoke_test.py [dist/crawler-gui-VERSION-linux-ARCH.tar.gz]

In a temporary HOME it unpacks the archive, runs ``install.sh`` (into ``$HOME/.local``), and
through the installed ``crawler-gui`` command:

1. ``crawl --demo --max-pages 50`` exits 0 and the pool has pages stored;
2. the window opens offscreen on the demo crawl for a few seconds (``--quit-after``) and closes
   in order, exit 0, with no error or traceback in its log;
3. ``stats`` of a Redis pool URL whose server is not there says so in one line (the Redis pool,
   its Lua scripts and redis-py are in the frozen app);
4. the check before Qt starts works in the frozen app: without a display it exits 5, and a copy
   whose X11 plugin needs a library that does not exist names it and its package, exit 5;
5. ``uninstall.sh`` removes everything ``install.sh`` put there.

Exits 1 at the first failure, saying what failed. Only loopback traffic (the demo site, a closed
Redis port).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import release  # packaging/release.py, next to this script

DESKTOP_ID = "io.github.crawler_gui"
GUI_SECONDS = 5


class SmokeFailure(Exception):
    pass


def check(condition: bool, what: str, detail: str = "") -> None:
    if not condition:
        raise SmokeFailure(what + (f"\n{detail}" if detail else ""))
    print(f"ok   {what}")


def run(
    cmd: list[str], env: dict[str, str], timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - programs from the archive under test
        cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """A desktop user's environment in ``home``: no display, nothing of this checkout."""
    env = {
        "HOME": str(home),
        "PATH": f"{home}/.local/bin:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(home / "runtime"),
    }
    env.update(extra)
    return env


def patched_copy(app: Path, dest: Path) -> Path:
    """A copy of the installed app (hard links, cheap) whose X11 plugin needs a library that
    does not exist in place of libxcb-cursor."""
    shutil.copytree(app, dest, symlinks=True, copy_function=os.link)
    plugin = dest / "_internal" / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    data = plugin.read_bytes()
    real, fake = b"libxcb-cursor.so.0\0", b"libxcb-cursoq.so.0\0"
    check(data.count(real) == 1, "the frozen X11 plugin names libxcb-cursor.so.0 once")
    plugin.unlink()  # a hard link: never write through it into the installed app
    plugin.write_bytes(data.replace(real, fake))
    return dest / "crawler-gui"


def smoke(archive: Path, work: Path) -> None:
    home = work / "home"
    (home / "runtime").mkdir(parents=True)
    (home / "runtime").chmod(0o700)
    with tarfile.open(archive) as tar:
        tar.extractall(work / "unpacked", filter="data")
    (top,) = (work / "unpacked").iterdir()
    env = user_env(home)

    done = run(["sh", str(top / "install.sh")], env)
    check(done.returncode == 0, "install.sh exits 0", done.stderr)
    local = home / ".local"
    app = local / "lib" / "crawler-gui"
    command = local / "bin" / "crawler-gui"
    check(
        command.is_symlink() and command.resolve() == (app / "crawler-gui").resolve(),
        "~/.local/bin/crawler-gui links to the installed app",
    )
    entry = local / "share" / "applications" / f"{DESKTOP_ID}.desktop"
    check(
        f'Exec="{app}/crawler-gui"' in entry.read_text("utf-8"),
        "the desktop entry runs the installed app",
    )
    for path in (
        local / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{DESKTOP_ID}.svg",
        local / "share" / "metainfo" / f"{DESKTOP_ID}.metainfo.xml",
        app / "uninstall.sh",
    ):
        check(path.is_file(), f"installed {path.relative_to(home)}")
    licences = app / "_internal" / "licenses"
    lgpl = (licences / "pyside6-essentials" / "LGPL-3").read_text("utf-8")
    check("GNU LESSER GENERAL PUBLIC LICENSE" in lgpl, "the LGPL text is bundled")
    index = (licences / "INDEX.txt").read_text("utf-8")
    check("PySide6_Essentials" in index and "Python" in index, "the licence index lists Qt")

    pool = work / "pool"
    started = time.monotonic()
    done = run(
        ["crawler-gui", "crawl", str(pool), "--demo", "--max-pages", "50", "--no-progress"], env
    )
    seconds = time.monotonic() - started
    check(
        done.returncode == 0,
        f"frozen crawl --demo --max-pages 50 exits 0 ({seconds:.1f} s)",
        done.stderr,
    )
    # Its extraction workers are the frozen executable started by multiprocessing: none died.
    check(
        not any(
            sign in done.stderr
            for sign in ("extraction worker died", "extraction of", "unrecognized arguments")
        ),
        "the frozen crawl's extraction workers ran",
        done.stderr,
    )
    stats = run(["crawler-gui", "stats", str(pool)], env)
    check(stats.returncode == 0, "frozen stats exits 0", stats.stderr)
    totals = json.loads(stats.stdout)
    check(
        totals["pages_stored"] > 0,
        f"the pool has {totals['pages_stored']} pages stored ({totals['done']} URLs done)",
    )

    gui_env = user_env(home, QT_QPA_PLATFORM="offscreen")
    done = run(["crawler-gui", "--demo", "--quit-after", str(GUI_SECONDS)], gui_env)
    log = done.stderr
    check(done.returncode == 0, f"the window runs the demo for {GUI_SECONDS} s, exit 0", log)
    bad = [line for line in log.splitlines() if " ERROR " in line or " CRITICAL " in line]
    check(not bad and "Traceback" not in log, "the window logged no error", log)
    check("crawl stopped" in log, "the window stopped its crawl in order", log)

    # The Redis pool in the frozen app: redis-py and the Lua scripts, read when the pool module
    # loads. A server that is not there (a closed loopback port) is one clear line.
    done = run(["crawler-gui", "stats", "redis://127.0.0.1:9/0?name=smoke"], env)
    check(
        done.returncode != 0
        and "cannot reach the Redis server" in done.stderr
        and "Traceback" not in done.stderr,
        "frozen stats of an unreachable Redis pool says so in one line",
        done.stderr,
    )

    done = run(["crawler-gui", "--demo"], env)
    check(
        done.returncode == 5 and "no display found" in done.stderr,
        "without a display the app exits 5 with a message",
        done.stderr,
    )
    patched = patched_copy(app, work / "patched")
    unreachable = user_env(home, DISPLAY=":1987")
    done = run([str(patched), "--demo"], unreachable)
    check(
        done.returncode == 5 and "sudo apt install libxcb-cursoq0" in done.stderr,
        "a missing X11 library is named with its package, exit 5",
        done.stderr,
    )
    check(done.stderr.count("\n") == 1, "... in one line", done.stderr)

    done = run(["sh", str(app / "uninstall.sh")], env)
    check(done.returncode == 0, "uninstall.sh exits 0", done.stderr)
    placed = [app, command, entry, local / "share" / "metainfo" / f"{DESKTOP_ID}.metainfo.xml"]
    placed.append(local / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{DESKTOP_ID}.svg")
    left = [str(p) for p in placed if p.exists() or p.is_symlink()]
    check(not left, "uninstall.sh removed the app, the command and the desktop files", str(left))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "archive",
        nargs="?",
        default=str(release.ROOT / "dist" / f"{release.release_name(release.version())}.tar.gz"),
        help="the release archive (default: the one packaging/release.py makes of this version)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="crawler-gui-smoke-") as work:
        try:
            smoke(Path(args.archive), Path(work))
        except SmokeFailure as exc:
            print(f"FAIL {exc}", file=sys.stderr)
            return 1
    print("smoke test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
