"""Build the release archive a Linux desktop user installs without Python.

    .venv/bin/pip install -e '.[package]'
    .venv/bin/python packaging/release.py            # build, then pack
    .venv/bin/python packaging/release.py --no-build # pack dist/crawler-gui/ as it is

Runs PyInstaller on ``packaging/crawler-gui.spec`` (the one-folder app in ``dist/crawler-gui/``)
and packs ``dist/crawler-gui-VERSION-linux-ARCH.tar.gz``, one folder holding:

* ``crawler-gui/``: the app folder (its licence texts in ``crawler-gui/_internal/licenses/``);
* ``share/``: the desktop entry, the icon and the AppStream data, as ``~/.local/share`` holds
  them;
* ``install.sh`` and ``uninstall.sh`` (into ``~/.local``, or ``PREFIX``);
* ``LICENSES``, a link to the licence texts, and ``README.txt``.

Prints the build time, the app folder's size and the archive's size.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DESKTOP_ID = "io.github.crawler_gui"

README = """\
Crawler GUI {version}: a desktop crawl monitor for long-running, polite news crawls.

Install for this user (no Python needed):   sh install.sh
  the app goes to ~/.local/lib/crawler-gui, the command to ~/.local/bin/crawler-gui, and
  Crawler GUI appears in your desktop's menu. PREFIX=/other/dir sh install.sh installs there.
Try it:       crawler-gui --demo
Headless:     crawler-gui crawl POOL_DIR --seed URL   (crawler-gui crawl --help)
Uninstall:    sh ~/.local/lib/crawler-gui/uninstall.sh   (pools, pages and settings stay)

Licences: crawler-gui is MIT licensed. It bundles Qt and PySide6 (LGPL-3.0; the Qt libraries
are the shared libraries in crawler-gui/_internal/PySide6/Qt/lib, and you may replace them with
your own build), Python and other packages: their licence texts are in LICENSES/, listed in
LICENSES/INDEX.txt.
"""


def version() -> str:
    sys.path.insert(0, str(ROOT))
    from crawler_gui import __version__

    return __version__


def release_name(ver: str) -> str:
    machine = platform.machine().lower() or "unknown"
    return f"crawler-gui-{ver}-linux-{machine}"


def build(dist: Path, work: Path) -> float:
    """Run PyInstaller on the spec; returns the seconds it took."""
    started = time.monotonic()
    subprocess.run(  # noqa: S603 - our own interpreter and spec
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            str(dist),
            "--workpath",
            str(work),
            str(PACKAGING / "crawler-gui.spec"),
        ],
        check=True,
        cwd=ROOT,
    )
    return time.monotonic() - started


def stage(app: Path, out: Path, ver: str) -> Path:
    """Lay out the release folder ``out/<release name>`` around the app folder ``app``."""
    top = out / release_name(ver)
    if top.exists():
        shutil.rmtree(top)
    top.mkdir(parents=True)
    shutil.copytree(app, top / "crawler-gui", symlinks=True)
    share = top / "share"
    placed = {
        PACKAGING / "crawler-gui.desktop": share / "applications" / f"{DESKTOP_ID}.desktop",
        ROOT / "resources" / "crawler-gui.svg": share
        / "icons"
        / "hicolor"
        / "scalable"
        / "apps"
        / f"{DESKTOP_ID}.svg",
        PACKAGING / f"{DESKTOP_ID}.metainfo.xml": share / "metainfo" / f"{DESKTOP_ID}.metainfo.xml",
    }
    for src, dest in placed.items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    for script in ("install.sh", "uninstall.sh"):
        shutil.copyfile(PACKAGING / script, top / script)
        (top / script).chmod(0o755)
    (top / "LICENSES").symlink_to(Path("crawler-gui", "_internal", "licenses"))
    (top / "README.txt").write_text(README.format(version=ver), encoding="utf-8")
    return top


def pack(top: Path, archive: Path) -> Path:
    """``top`` as a gzip tarball (symlinks kept as links, owner names dropped)."""

    def anonymous(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(top, arcname=top.name, filter=anonymous)
    return archive


def folder_size(path: Path) -> int:
    return sum((Path(d) / f).lstat().st_size for d, _, files in os.walk(path) for f in files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--no-build", action="store_true", help="pack dist/crawler-gui/ without rebuilding"
    )
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="output folder (dist/)")
    args = parser.parse_args(argv)
    dist = Path(args.dist)
    app = dist / "crawler-gui"
    if not args.no_build:
        seconds = build(dist, ROOT / "build")
        print(f"build: {seconds:.0f} s")
    if not (app / "crawler-gui").is_file():
        print(f"release.py: {app} has no app; build it first", file=sys.stderr)
        return 1
    ver = version()
    top = stage(app, dist / "release", ver)
    started = time.monotonic()
    archive = pack(top, dist / f"{top.name}.tar.gz")
    print(f"pack: {time.monotonic() - started:.0f} s")
    print(f"app folder: {folder_size(app) / 1e6:.0f} MB ({app})")
    print(f"archive: {archive.stat().st_size / 1e6:.0f} MB ({archive})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
