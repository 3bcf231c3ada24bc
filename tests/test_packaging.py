"""The release archive's parts that need no PyInstaller build: its layout, the install and
uninstall scripts (into a temporary HOME), and the licence texts gathered from installed
metadata. CI's packaging/smoke_test.py tries the real frozen build the same way."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

PACKAGING = Path(__file__).resolve().parent.parent / "packaging"
DESKTOP_ID = "io.github.crawler_gui"


def load(name: str) -> ModuleType:
    # packaging/ is not a Python package (and "packaging" is a PyPI name): load by path.
    spec = importlib.util.spec_from_file_location(
        f"crawler_gui_packaging_{name}", PACKAGING / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = load("release")
bundle_licences = load("bundle_licences")


def fake_app(where: Path) -> Path:
    """An app folder shaped like PyInstaller's: an executable and _internal/."""
    app = where / "crawler-gui"
    (app / "_internal" / "licenses").mkdir(parents=True)
    (app / "_internal" / "licenses" / "INDEX.txt").write_text("index\n")
    (app / "_internal" / "libQt6Core.so.6").symlink_to("PySide6/Qt/lib/libQt6Core.so.6")
    exe = app / "crawler-gui"
    exe.write_text('#!/bin/sh\necho "frozen app: $*"\n')
    exe.chmod(0o755)
    return app


def sh(script: Path, home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": os.environ["PATH"], **extra}
    return subprocess.run(
        ["sh", str(script)], capture_output=True, text=True, env=env, timeout=60, check=False
    )


@pytest.fixture
def staged(tmp_path: Path) -> Path:
    return release.stage(fake_app(tmp_path / "dist"), tmp_path / "release", "9.8.7")


def test_release_layout(staged: Path):
    assert staged.name.startswith("crawler-gui-9.8.7-linux-")
    for rel in (
        "crawler-gui/crawler-gui",
        f"share/applications/{DESKTOP_ID}.desktop",
        f"share/icons/hicolor/scalable/apps/{DESKTOP_ID}.svg",
        f"share/metainfo/{DESKTOP_ID}.metainfo.xml",
        "install.sh",
        "uninstall.sh",
        "README.txt",
        "LICENSES/INDEX.txt",
    ):
        assert (staged / rel).is_file(), rel
    assert os.access(staged / "install.sh", os.X_OK)
    assert (staged / "crawler-gui" / "_internal" / "libQt6Core.so.6").is_symlink()
    assert "9.8.7" in (staged / "README.txt").read_text()


def test_archive_keeps_links_and_modes(staged: Path, tmp_path: Path):
    archive = release.pack(staged, tmp_path / "out.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "x", filter="data")
        owners = {(m.uname, m.uid) for m in tar.getmembers()}
    top = tmp_path / "x" / staged.name
    assert (top / "LICENSES").is_symlink() and (top / "LICENSES" / "INDEX.txt").is_file()
    assert os.access(top / "crawler-gui" / "crawler-gui", os.X_OK)
    assert owners == {("", 0)}


def test_install_and_uninstall_into_a_home(staged: Path, tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    done = sh(staged / "install.sh", home)
    assert done.returncode == 0, done.stderr
    local = home / ".local"
    app = local / "lib" / "crawler-gui"
    command = local / "bin" / "crawler-gui"
    ran = subprocess.run([str(command), "--demo"], capture_output=True, text=True, check=True)
    assert ran.stdout == "frozen app: --demo\n"
    entry = (local / "share" / "applications" / f"{DESKTOP_ID}.desktop").read_text()
    assert f'Exec="{app}/crawler-gui"\n' in entry and f"TryExec={app}/crawler-gui\n" in entry
    assert "Icon=io.github.crawler_gui" in entry
    assert (
        local / "share" / "icons" / "hicolor" / "scalable" / "apps" / f"{DESKTOP_ID}.svg"
    ).is_file()
    assert (local / "share" / "metainfo" / f"{DESKTOP_ID}.metainfo.xml").is_file()
    assert (app / "_internal" / "libQt6Core.so.6").is_symlink()
    # Your data next to the app is not the installer's business.
    keep = local / "share" / "crawler-gui" / "pool" / "CURRENT"
    keep.parent.mkdir(parents=True)
    keep.write_text("pool")

    again = sh(staged / "install.sh", home)  # an update replaces the app folder
    assert again.returncode == 0, again.stderr
    assert not (local / "lib" / "crawler-gui.new").exists()

    done = sh(app / "uninstall.sh", home)
    assert done.returncode == 0, done.stderr
    assert not app.exists() and not command.is_symlink()
    assert not (local / "share" / "applications" / f"{DESKTOP_ID}.desktop").exists()
    assert not (local / "share" / "metainfo" / f"{DESKTOP_ID}.metainfo.xml").exists()
    assert keep.read_text() == "pool"


def test_install_respects_prefix_and_refuses_a_foreign_folder(staged: Path, tmp_path: Path):
    home, prefix = tmp_path / "home", tmp_path / "opt"
    home.mkdir()
    foreign = prefix / "lib" / "crawler-gui"
    foreign.mkdir(parents=True)
    (foreign / "notes.txt").write_text("mine")
    refused = sh(staged / "install.sh", home, PREFIX=str(prefix))
    assert refused.returncode == 1 and "not a crawler-gui install" in refused.stderr
    assert (foreign / "notes.txt").read_text() == "mine"
    shutil.rmtree(foreign)
    done = sh(staged / "install.sh", home, PREFIX=str(prefix))
    assert done.returncode == 0, done.stderr
    assert (prefix / "bin" / "crawler-gui").is_symlink() and not (home / ".local").exists()


def test_install_outside_the_release_folder_says_so(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    lone = tmp_path / "install.sh"
    shutil.copyfile(PACKAGING / "install.sh", lone)
    done = sh(lone, home)
    assert done.returncode == 1 and "unpacked release folder" in done.stderr
    assert not (home / ".local").exists()


def system_library(name: str) -> str:
    for folder in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if Path(folder, name).exists():
            return str(Path(folder, name))
    pytest.skip(f"{name} is not installed where this test looks")


def test_licences_come_from_installed_metadata(tmp_path: Path):
    if shutil.which("dpkg-query") is None:
        pytest.skip("not a Debian system: no dpkg-query to find a library's package")
    out = tmp_path / "licenses"
    problems = bundle_licences.gather(
        out,
        ["aiohttp.client", "PySide6.QtCore", "crawler_gui.main", "asyncio.events"],
        [
            ("libxcb-cursor.so.0", system_library("libxcb-cursor.so.0")),
            ("plyvel.libs/libsnappy-2c75d721.so.1.1.9", "/site-packages/plyvel.libs/x.so"),
        ],
        ["certifi/cacert.pem"],
    )
    assert problems == []
    assert "Apache" in (out / "aiohttp" / "LICENSE.txt").read_text()
    assert "MOZILLA PUBLIC LICENSE" in (out / "certifi" / "LICENSE").read_text().upper()
    # PySide6 ships no licence text: the LGPL and the GPL it builds on, from the system.
    assert (
        "GNU LESSER GENERAL PUBLIC LICENSE" in (out / "pyside6-essentials" / "LGPL-3").read_text()
    )
    assert (out / "pyside6-essentials" / "GPL-3").is_file()
    assert "PYTHON SOFTWARE FOUNDATION" in (out / "python" / "LICENSE.txt").read_text().upper()
    assert (out / "pyinstaller").is_dir()  # its bootloader is in every build
    assert (out / "system" / "libxcb-cursor0.copyright").is_file()
    index = (out / "INDEX.txt").read_text()
    assert "PySide6_Essentials" in index and "LGPL-3.0" in index
    assert "libxcb-cursor0: libxcb-cursor.so.0" in index and "crawler-gui" in index
    assert "  plyvel.libs/libsnappy-2c75d721.so.1.1.9" in index
    assert (out / "plyvel" / "LICENSE.rst").is_file()
    assert not (out / "asyncio").exists()  # the standard library is Python's


def test_a_part_without_a_licence_text_is_a_problem(tmp_path: Path):
    problems = bundle_licences.gather(tmp_path / "l", ["crawler_gui.main"], [], [], own=())
    assert len(problems) == 1
    assert problems[0].startswith(
        "crawler-gui: no licence text in its metadata (MIT); put the text"
    )
    assert problems[0].endswith("packaging/licenses/crawler-gui/")


def test_every_package_of_the_source_tree_is_installed() -> None:
    """``pip install .`` installs only the packages pyproject.toml lists: a subpackage left out
    works in a checkout and is missing from every installed copy and the frozen app."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    listed = set(
        tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
            "packages"
        ]
    )
    found = {
        ".".join(init.parent.relative_to(root).parts)
        for init in (root / "crawler_gui").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set()
