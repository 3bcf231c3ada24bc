"""The licence texts of everything a PyInstaller build bundles, gathered from what is installed.

Used by ``crawler-gui.spec`` after PyInstaller's analysis, so the list is what the build really
holds, not a hand-kept one:

* each Python distribution whose modules, extensions or data files are in the build: the
  licence files its metadata lists (``*.dist-info/licenses/...``, ``LICENSE``, ``COPYING``,
  ``NOTICE``); where a distribution ships none (PySide6 and shiboken6 ship none), the texts of
  the licences its metadata names, from the system's ``/usr/share/common-licenses`` (Qt and
  PySide6 are LGPL-3.0: the LGPL and the GPL it builds on; PSF-licensed ones: Python's), or
  failing those, texts put by hand into ``packaging/licenses/<name>/``;
* Python itself (``LICENSE.txt`` next to the standard library) and PyInstaller's bootloader;
* system shared libraries PyInstaller copied in: their Debian ``copyright`` files, found with
  ``dpkg-query -S``.

Everything lands in one folder with an ``INDEX.txt`` that names each part, its version and its
licence as its metadata states it.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import shutil
import subprocess
import sysconfig
from collections.abc import Iterable
from pathlib import Path

COMMON_LICENSES = Path("/usr/share/common-licenses")
#: Where a licence text goes by hand, for a distribution that installs none and names no licence
#: found above: packaging/licenses/<normalized name>/.
HAND_SUPPLIED = Path(__file__).resolve().parent / "licenses"
#: SPDX ids (as metadata writes them) -> the file in /usr/share/common-licenses.
_SPDX_FILES = {
    "LGPL-3.0": ["LGPL-3", "GPL-3"],  # the LGPL v3 is a set of permissions on top of the GPL v3
    "GPL-3.0": ["GPL-3"],
    "GPL-2.0": ["GPL-2"],
    "LGPL-2.1": ["LGPL-2.1"],
    "Apache-2.0": ["Apache-2.0"],
    "MPL-2.0": ["MPL-2.0"],
}
_LICENCE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", re.IGNORECASE)


def _top_name(dest: str) -> str:
    return dest.replace("\\", "/").split("/")[0].split(".")[0]


def bundled_distributions(
    module_names: Iterable[str], file_dests: Iterable[str]
) -> dict[str, md.Distribution]:
    """The installed distributions behind a build's modules (``a.pure`` names such as
    ``aiohttp.client``) and files (``a.binaries``/``a.datas`` destinations such as
    ``selectolax/parser.so``), by their normalized names."""
    owners = md.packages_distributions()
    tops = {name.split(".")[0] for name in module_names}
    tops |= {_top_name(dest) for dest in file_dests}
    found: dict[str, md.Distribution] = {}
    for top in sorted(tops):
        for dist_name in owners.get(top, []):
            try:
                dist = md.distribution(dist_name)
            except md.PackageNotFoundError:
                continue
            found.setdefault(normal_name(dist.metadata["Name"]), dist)
    return found


def normal_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def licence_files(dist: md.Distribution) -> list[Path]:
    """The licence files a distribution installed with its metadata."""
    paths: list[Path] = []
    for f in dist.files or []:
        parts = f.parts
        in_info = any(p.endswith(".dist-info") for p in parts[:-1])
        if in_info and ("licenses" in parts[:-1] or _LICENCE_NAME.match(f.name)):
            located = Path(str(f.locate()))
            if located.is_file():
                paths.append(located)
    return paths


def licence_statement(dist: md.Distribution) -> str:
    meta = dist.metadata
    stated = meta.get("License-Expression") or meta.get("License") or ""
    stated = stated.strip().splitlines()[0] if stated.strip() else ""
    if not stated:
        classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or []]
        stated = "; ".join(c for c in classifiers if "License" in c or "GPL" in c)
    return stated or "not stated in its metadata"


def python_licence() -> Path:
    return Path(sysconfig.get_path("stdlib")) / "LICENSE.txt"


def _stated_licence_texts(statement: str) -> list[Path]:
    """The texts of the licences a statement names, from the system and from Python."""
    texts: list[Path] = []
    for spdx, files in _SPDX_FILES.items():
        if spdx in statement:
            texts.extend(COMMON_LICENSES / f for f in files)
    if "PSF" in statement or "Python Software Foundation" in statement:
        texts.append(python_licence())
    return [t for t in dict.fromkeys(texts) if t.is_file()]


def _usr_merge_twins(path: str) -> list[str]:
    """A library path and the other name usr-merged Debian may have registered it under."""
    resolved = str(Path(path).resolve())
    names = [path, resolved]
    for name in (path, resolved):
        if name.startswith("/usr/lib/"):
            names.append(name[len("/usr") :])
        elif name.startswith("/lib"):
            names.append("/usr" + name)
    return list(dict.fromkeys(names))


def system_library_packages(paths: Iterable[str]) -> dict[str, list[str]]:
    """Debian package -> the bundled system libraries it provides (one ``dpkg-query -S``);
    empty where dpkg is not installed."""
    exe = shutil.which("dpkg-query")
    wanted = {
        twin: p for p in paths if p.startswith(("/usr/", "/lib")) for twin in _usr_merge_twins(p)
    }
    if exe is None or not wanted:
        return {}
    done = subprocess.run(  # noqa: S603 - a fixed program, file paths as arguments
        [exe, "-S", *wanted], capture_output=True, text=True, check=False
    )
    packages: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        owners, sep, path = line.rpartition(": ")
        if not sep or path not in wanted or "diversion" in owners:
            continue
        for owner in owners.split(", "):
            packages.setdefault(owner.split(":")[0], set()).add(Path(wanted[path]).name)
    return {package: sorted(libs) for package, libs in packages.items()}


def gather(
    out: Path,
    module_names: Iterable[str],
    binaries: Iterable[tuple[str, str]],
    datas: Iterable[str],
    *,
    extra_distributions: Iterable[str] = ("pyinstaller",),
    own: Iterable[str] = ("crawler-gui",),
) -> list[str]:
    """Write the licence texts into ``out`` (one folder per part, and ``INDEX.txt``); returns
    problems (a part other than ``own`` with no licence text found), for the spec to report.

    ``binaries`` are (destination, source path) pairs."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    binaries = list(binaries)
    own_names = {normal_name(n) for n in own}
    dists = bundled_distributions(module_names, [d for d, _ in binaries] + list(datas))
    for name in extra_distributions:
        dist = md.distribution(name)
        dists.setdefault(normal_name(dist.metadata["Name"]), dist)
    index = ["Licences of what this build of crawler-gui bundles.", ""]
    problems: list[str] = []
    for key in sorted(dists):
        dist = dists[key]
        statement = licence_statement(dist)
        supplied = HAND_SUPPLIED / key
        files = (
            licence_files(dist)
            or _stated_licence_texts(statement)
            or sorted(f for f in supplied.glob("*") if f.is_file())
        )
        folder = out / key
        folder.mkdir()
        for src in files:
            target = folder / src.name
            n = 2
            while target.exists():
                target, n = folder / f"{src.name}.{n}", n + 1
            shutil.copyfile(src, target)
        index.append(f"{dist.metadata['Name']} {dist.version}: {statement}")
        if not files and key not in own_names:
            problems.append(
                f"{dist.metadata['Name']}: no licence text in its metadata ({statement}); "
                f"put the text into {HAND_SUPPLIED}/{key}/"
            )
    if python_licence().is_file():
        (out / "python").mkdir()
        shutil.copyfile(python_licence(), out / "python" / "LICENSE.txt")
        index.append(f"Python {sysconfig.get_python_version()}: PSF-2.0")
    else:
        problems.append(f"Python: {python_licence()} not found")
    vendored = sorted(
        dest for dest, _ in binaries if re.match(r"^[^/]+\.libs/", dest.replace("\\", "/"))
    )
    if vendored:
        index += ["", "Libraries vendored inside Python wheels (under their wheel's entry above):"]
        index += [f"  {dest}" for dest in vendored]
    system = system_library_packages(src for _, src in binaries if "site-packages" not in src)
    if system:
        (out / "system").mkdir()
        index += ["", "System libraries copied from the build machine (Debian packages):"]
    for package, libs in sorted(system.items()):
        copyright_file = Path("/usr/share/doc", package, "copyright")
        if copyright_file.is_file():
            shutil.copyfile(copyright_file, out / "system" / f"{package}.copyright")
        else:
            problems.append(f"{package}: {copyright_file} not found")
        index.append(f"{package}: {', '.join(sorted(libs))}")
    (out / "INDEX.txt").write_text("\n".join(index) + "\n", encoding="utf-8")
    return problems
