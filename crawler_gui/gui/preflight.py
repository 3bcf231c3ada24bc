"""Checks made before Qt starts, so a fresh desktop gets one clear line instead of a core dump.

Qt aborts the process (SIGABRT, often a core dump) when its platform plugin cannot be loaded.
On Linux the usual cause is a system library that the X11 plugin (``libqxcb.so``) needs and
the desktop lacks: since Qt 6.5 that is ``libxcb-cursor.so.0``, which many installs do not
have. The list of what the plugin needs is read from the plugin file itself (its ``DT_NEEDED``
entries, following the Qt libraries PySide6 bundles next to it), never kept by hand, so it
stays right when PySide6 changes. Each library outside the bundle is then asked of the dynamic
loader, the same search Qt's own ``dlopen`` makes.

This module imports no Qt: it runs before the first Qt import, because even ``import
PySide6.QtGui`` fails when a library Qt's GUI module needs (``libGL.so.1``) is missing.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import struct
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

#: The exit code for "the window cannot open here": no display, or a system library missing.
EXIT_ENVIRONMENT = 5

NO_DISPLAY_MESSAGE = (
    "crawler-gui: no display found (DISPLAY and WAYLAND_DISPLAY are not set, nor is "
    "QT_QPA_PLATFORM), so the window cannot open.\n"
    "To crawl without a window, run:\n"
    "    crawler-gui crawl POOL_DIR   (or a Redis pool URL: crawler-gui crawl redis://...)\n"
)

#: Fedora splits the xcb-util libraries into packages whose names do not follow the library's;
#: these are the ones a fresh desktop tends to lack. Any other library is named to dnf by its
#: soname ("dnf install 'libfoo.so.1()(64bit)'"), which dnf resolves itself.
FEDORA_PACKAGES = {
    "libxcb-cursor.so.0": "xcb-util-cursor",
    "libxcb-icccm.so.4": "xcb-util-wm",
    "libxcb-image.so.0": "xcb-util-image",
    "libxcb-keysyms.so.1": "xcb-util-keysyms",
    "libxcb-render-util.so.0": "xcb-util-renderutil",
    "libxcb-util.so.1": "xcb-util",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11",
    "libX11-xcb.so.1": "libX11-xcb",
}

_ELF_MAGIC = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 15, 29


class ElfError(ValueError):
    """The file is not an ELF shared object this reader understands."""


@dataclass(frozen=True)
class DynamicInfo:
    """What the dynamic loader reads from a shared object: the libraries it needs, and the
    folders (RUNPATH, or the older RPATH) it searches for them first."""

    needed: tuple[str, ...]
    search_path: tuple[str, ...]


def read_dynamic(path: Path) -> DynamicInfo:
    """Read the ``DT_NEEDED`` and ``DT_RUNPATH``/``DT_RPATH`` entries of an ELF file.

    It follows the program headers as the loader does (``PT_DYNAMIC``, and ``PT_LOAD`` to turn
    the string table's address into a file offset), so it works on stripped files too."""
    data = path.read_bytes()
    if data[:4] != _ELF_MAGIC or data[4] not in (1, 2) or data[5] not in (1, 2):
        raise ElfError(f"{path}: not an ELF file")
    wide = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    try:
        if wide:
            (phoff,) = struct.unpack_from(end + "Q", data, 0x20)
            phentsize, phnum = struct.unpack_from(end + "HH", data, 0x36)
        else:
            (phoff,) = struct.unpack_from(end + "I", data, 0x1C)
            phentsize, phnum = struct.unpack_from(end + "HH", data, 0x2A)
        loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
        dynamic: tuple[int, int] | None = None
        for i in range(phnum):
            at = phoff + i * phentsize
            if wide:
                p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                    end + "IIQQQQ", data, at
                )
            else:
                p_type, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from(
                    end + "IIIII", data, at
                )
            if p_type == _PT_LOAD:
                loads.append((p_vaddr, p_offset, p_filesz))
            elif p_type == _PT_DYNAMIC:
                dynamic = (p_offset, p_filesz)
        if dynamic is None:
            return DynamicInfo((), ())
        entry = struct.Struct(end + ("qQ" if wide else "iI"))
        entries: list[tuple[int, int]] = []
        for at in range(dynamic[0], dynamic[0] + dynamic[1], entry.size):
            tag, value = entry.unpack_from(data, at)
            if tag == _DT_NULL:
                break
            entries.append((tag, value))
    except struct.error as exc:
        raise ElfError(f"{path}: truncated ELF file") from exc
    strtab = next((v for t, v in entries if t == _DT_STRTAB), None)
    if strtab is None:
        return DynamicInfo((), ())
    base = next((off + strtab - va for va, off, size in loads if va <= strtab < va + size), None)
    if base is None:
        raise ElfError(f"{path}: string table outside the file")

    def string(offset: int) -> str:
        stop = data.index(b"\0", base + offset)
        return data[base + offset : stop].decode("utf-8", "replace")

    needed = tuple(string(v) for t, v in entries if t == _DT_NEEDED)
    runpath = [string(v) for t, v in entries if t == _DT_RUNPATH]
    rpath = [string(v) for t, v in entries if t == _DT_RPATH]
    folders = ":".join(runpath or rpath)
    origin = str(path.resolve().parent)
    search = tuple(
        f.replace("$ORIGIN", origin).replace("${ORIGIN}", origin) for f in folders.split(":") if f
    )
    return DynamicInfo(needed, search)


def loader_finds(soname: str) -> str | None:
    """None when the dynamic loader finds ``soname`` (and what it needs); else the name of the
    library that is missing, which may be one ``soname`` itself needs."""
    try:
        ctypes.CDLL(soname)
    except OSError as exc:
        # glibc: "libfoo.so.1: cannot open shared object file: No such file or directory"
        found = re.match(r"\s*([^\s:]+): cannot open shared object file", str(exc))
        return found.group(1) if found else soname
    return None


def missing_libraries(plugin: Path, *, extra_needed: Iterable[str] = ()) -> list[str]:
    """The shared libraries ``plugin`` needs that this system cannot give it, in the order met.

    Libraries found in the plugin's own RUNPATH (the Qt libraries PySide6 bundles) are followed
    in turn; every other one is asked of the dynamic loader. ``extra_needed`` adds names to the
    plugin's own list (tests use it to simulate a missing library)."""
    missing: list[str] = []
    seen: set[str] = set()
    queue: list[tuple[str, tuple[str, ...]]] = []
    top = read_dynamic(plugin)
    queue.extend((name, top.search_path) for name in (*top.needed, *extra_needed))
    while queue:
        name, search = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        bundled = next((Path(d, name) for d in search if Path(d, name).is_file()), None)
        if bundled is not None:
            info = read_dynamic(bundled)
            queue.extend((n, info.search_path) for n in info.needed)
            continue
        lacking = loader_finds(name)
        if lacking is not None and lacking not in missing:
            missing.append(lacking)
    return missing


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package of a library, by Debian's naming rule for shared libraries:
    ``libxcb-cursor.so.0`` -> ``libxcb-cursor0``, ``libxkbcommon-x11.so.0`` ->
    ``libxkbcommon-x11-0``, ``libGL.so.1`` -> ``libgl1``, ``libgcc_s.so.1`` -> ``libgcc-s1``.
    The libraries Qt's X11 plugin needs all follow it; a few others do not (``zlib1g``)."""
    stem, sep, version = soname.partition(".so.")
    if not sep:
        return soname.lower().replace("_", "-")
    stem = stem.lower().replace("_", "-")  # no underscores in Debian package names
    return f"{stem}-{version}" if stem[-1:].isdigit() else f"{stem}{version}"


def fedora_package(soname: str) -> str:
    known = FEDORA_PACKAGES.get(soname)
    if known:
        return known
    return f"'{soname}()(64bit)'" if struct.calcsize("P") == 8 else f"'{soname}'"


def missing_library_message(missing: list[str]) -> str:
    """One line: what is missing, the install command on Debian/Ubuntu and on Fedora, and the
    headless way to crawl that needs none of it."""
    debian = " ".join(dict.fromkeys(debian_package(m) for m in missing))
    fedora = " ".join(dict.fromkeys(fedora_package(m) for m in missing))
    libs = ", ".join(missing)
    return (
        f"crawler-gui: the window cannot open: Qt's X11 plugin needs {libs}, not installed "
        f"on this system. Install it (Debian/Ubuntu: sudo apt install {debian}; Fedora: "
        f"sudo dnf install {fedora}), or crawl without a window: crawler-gui crawl POOL_DIR\n"
    )


def display_available(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """False on X11/Wayland systems with no display to talk to (Qt would abort)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "cygwin", "darwin")):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))


def first_platform(env: Mapping[str, str] | None = None) -> str:
    """The Qt platform plugin Qt will try first on Linux: the first of ``QT_QPA_PLATFORM``
    (``wayland;xcb``, ``xcb:option``), else ``wayland`` where ``WAYLAND_DISPLAY`` is set (Qt 6
    tries it first then, whatever ``XDG_SESSION_TYPE`` says, and falls back to X11), else
    ``xcb``. Only an X11 start is checked: a working Wayland plugin needs no X11 library, and
    a failed fallback is caught by ``app.install_startup_message_handler``."""
    env = os.environ if env is None else env
    wanted = env.get("QT_QPA_PLATFORM", "").strip()
    if wanted:
        return wanted.split(";")[0].split(":")[0].strip()
    return "wayland" if env.get("WAYLAND_DISPLAY") else "xcb"


def xcb_plugin() -> Path | None:
    """The installed PySide6's X11 platform plugin (also inside a PyInstaller build)."""
    spec = importlib.util.find_spec("PySide6")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        plugin = Path(folder, "Qt", "plugins", "platforms", "libqxcb.so")
        if plugin.is_file():
            return plugin
    return None


def desktop_problem(
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    *,
    plugin: Path | None = None,
    extra_needed: Iterable[str] = (),
) -> str | None:
    """What stops the window from opening here, as the message to print; None when nothing
    does. ``plugin`` and ``extra_needed`` override what is checked (for tests)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not display_available(env, platform):
        return NO_DISPLAY_MESSAGE
    if not platform.startswith("linux") or first_platform(env) != "xcb":
        return None
    plugin = plugin if plugin is not None else xcb_plugin()
    if plugin is None:
        return None  # no X11 plugin where PySide6 keeps it: let Qt say what it finds
    try:
        missing = missing_libraries(plugin, extra_needed=extra_needed)
    except (OSError, ElfError):
        return None  # an unreadable plugin is Qt's to report
    return missing_library_message(missing) if missing else None
