"""The check made before Qt starts: a missing display or a missing system library that Qt's X11
plugin needs gives one clear line and exit code 5, never Qt's abort and core dump."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crawler_gui import main as entry
from crawler_gui.gui import preflight

X11_ENV = {"DISPLAY": ":0"}


def desktop_env(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def plugin_needing(tmp_path: Path, real: str, fake: str) -> Path:
    """A copy of the installed X11 plugin whose list of needed libraries names ``fake`` where
    the real plugin names ``real`` (same length, patched in the ELF string table), laid out as
    PySide6 lays it out so its RUNPATH still reaches the bundled Qt libraries."""
    plugin = preflight.xcb_plugin()
    assert plugin is not None, "PySide6 has no X11 plugin"
    data = plugin.read_bytes()
    assert len(real) == len(fake) and data.count(real.encode() + b"\0") == 1
    folder = tmp_path / "Qt" / "plugins" / "platforms"
    folder.mkdir(parents=True)
    (tmp_path / "Qt" / "lib").symlink_to(plugin.parents[2] / "lib")
    copy = folder / plugin.name
    copy.write_bytes(data.replace(real.encode() + b"\0", fake.encode() + b"\0"))
    return copy


def test_the_list_comes_from_the_plugin_file():
    plugin = preflight.xcb_plugin()
    assert plugin is not None
    info = preflight.read_dynamic(plugin)
    assert "libQt6XcbQpa.so.6" in info.needed and "libc.so.6" in info.needed
    assert any(Path(d, "libQt6XcbQpa.so.6").is_file() for d in info.search_path)
    # Followed into the bundled Qt library, which is where libxcb-cursor is needed since 6.5.
    qpa = next(Path(d, "libQt6XcbQpa.so.6") for d in info.search_path)
    assert "libxcb-cursor.so.0" in preflight.read_dynamic(qpa).needed


def test_the_real_check_passes_here():
    plugin = preflight.xcb_plugin()
    assert plugin is not None
    assert preflight.missing_libraries(plugin) == []
    assert preflight.desktop_problem(X11_ENV, "linux") is None


def test_a_plugin_that_needs_a_missing_library(tmp_path: Path):
    plugin = plugin_needing(tmp_path, "libxcb-cursor.so.0", "libxcb-cursoq.so.0")
    assert preflight.missing_libraries(plugin) == ["libxcb-cursoq.so.0"]
    message = preflight.desktop_problem(X11_ENV, "linux", plugin=plugin)
    assert message is not None and message.count("\n") == 1
    assert "libxcb-cursoq.so.0" in message
    assert "sudo apt install libxcb-cursoq0" in message
    assert "sudo dnf install 'libxcb-cursoq.so.0()(64bit)'" in message
    assert "crawler-gui crawl POOL_DIR" in message


def test_desktop_entry_exits_5_naming_the_packages(monkeypatch, capsys, tmp_path: Path):
    plugin = plugin_needing(tmp_path, "libxcb-cursor.so.0", "libxcb-cursoq.so.0")
    desktop_env(monkeypatch, DISPLAY=":0")
    monkeypatch.setattr(preflight, "xcb_plugin", lambda: plugin)
    assert entry.main(["--demo"]) == 5
    err = capsys.readouterr().err
    assert err.startswith("crawler-gui: the window cannot open: Qt's X11 plugin needs ")
    assert "libxcb-cursoq.so.0" in err and "sudo apt install libxcb-cursoq0" in err


def test_a_name_that_does_not_exist_is_reported_with_its_packages():
    message = preflight.desktop_problem(
        X11_ENV, "linux", extra_needed=["libxcb-cursor.so.0", "libcrawlergui-nowhere.so.3"]
    )
    assert message is not None
    assert "needs libcrawlergui-nowhere.so.3," in message
    assert "sudo apt install libcrawlergui-nowhere3;" in message
    assert "libxcb-cursor" not in message  # installed here, so not named


def test_package_names():
    assert preflight.debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert preflight.debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert preflight.debian_package("libX11-xcb.so.1") == "libx11-xcb1"
    assert preflight.debian_package("libGL.so.1") == "libgl1"
    assert preflight.debian_package("libgcc_s.so.1") == "libgcc-s1"
    assert preflight.fedora_package("libxcb-cursor.so.0") == "xcb-util-cursor"
    assert preflight.fedora_package("libxcb-icccm.so.4") == "xcb-util-wm"


def test_only_an_x11_start_is_checked(tmp_path: Path):
    plugin = plugin_needing(tmp_path, "libxcb-cursor.so.0", "libxcb-cursoq.so.0")
    for env in (
        {"QT_QPA_PLATFORM": "offscreen"},
        {"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":0"},
        {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"},
        {"WAYLAND_DISPLAY": "wayland-0"},
        {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"},
    ):
        assert preflight.desktop_problem(env, "linux", plugin=plugin) is None, env
    for env in (
        {"DISPLAY": ":0"},
        {"QT_QPA_PLATFORM": "xcb:nograb", "WAYLAND_DISPLAY": "wayland-0"},
        {"DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland"},
    ):
        assert preflight.desktop_problem(env, "linux", plugin=plugin) is not None, env
    assert preflight.desktop_problem({}, "darwin", plugin=plugin) is None


def test_a_file_that_is_not_elf(tmp_path: Path):
    text = tmp_path / "libqxcb.so"
    text.write_text("not a library")
    with pytest.raises(preflight.ElfError):
        preflight.read_dynamic(text)
    assert preflight.desktop_problem(X11_ENV, "linux", plugin=text) is None


def test_display_check():
    assert not preflight.display_available({}, "linux")
    assert preflight.display_available({"DISPLAY": ":0"}, "linux")
    assert preflight.display_available({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert preflight.display_available({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert preflight.display_available({}, "win32") and preflight.display_available({}, "darwin")


def test_no_display_exits_5_with_a_clear_message(monkeypatch, capsys):
    desktop_env(monkeypatch)
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    assert entry.main(["--demo"]) == 5
    err = capsys.readouterr().err
    assert "no display" in err and "crawler-gui crawl POOL_DIR" in err


def gui_process(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    base.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"))
    base.update(XDG_CONFIG_HOME=str(home / "config"), **env)
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        env=base,
    )


def test_an_unreachable_display_exits_5_not_a_core_dump(tmp_path: Path):
    display = next(n for n in range(1987, 2100) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
    done = gui_process(tmp_path, "--demo", QT_QPA_PLATFORM="xcb", DISPLAY=f":{display}")
    assert done.returncode == 5, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("crawler-gui: the window cannot open (Qt: ")
    assert last.endswith("crawler-gui crawl POOL_DIR")


@pytest.mark.slow
def test_quit_after_closes_the_window_in_order(tmp_path: Path):
    done = gui_process(tmp_path, "--demo", "--quit-after", "1.5", QT_QPA_PLATFORM="offscreen")
    assert done.returncode == 0, done.stderr
    assert "crawl stopped" in done.stderr and "closed crawl in" in done.stderr
    assert " ERROR " not in done.stderr and "Traceback" not in done.stderr


def test_quit_after_must_be_positive(tmp_path: Path):
    done = gui_process(tmp_path, "--quit-after", "0", QT_QPA_PLATFORM="offscreen")
    assert done.returncode == 2 and "must be more than 0" in done.stderr
