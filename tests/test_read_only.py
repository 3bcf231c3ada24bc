"""A pool that cannot be written, run as real processes: on a read-only file system (a tmpfs
mounted by the test and made read-only: root cannot write it either) and in a folder without
write permission (an immutable folder: EPERM for root too), every command says so in one line,
points to a copy in a writable place, exits 4 and writes nothing anywhere; "in use" is said only
when another process holds the pool's lock. The repair of a read-only pool into a writable place
works."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler_gui.core.leveldb import LevelDBPool
from tests.damage import make_pool
from tests.mounts import read_only, tmpfs
from tests.test_cli import cli
from tests.test_cli_storage import one_clear_line

pytestmark = pytest.mark.slow

#: A demo crawl's marker, as a crawl of this pool would have left it.
DEMO_JSON = '{"port": 1, "left": "as it was"}'


@pytest.fixture(scope="module")
def ro_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A pool (URLs, pages, a snapshot beside it) on a read-only tmpfs."""
    if os.geteuid() != 0:
        pytest.fail("mounting a tmpfs needs root (CI runs the tests as root)")
    disk = tmp_path_factory.mktemp("disk")
    with tmpfs(disk, "size=32m"):
        pool = disk / "pool"
        make_pool(pool)
        (pool / "demo.json").write_text(DEMO_JSON)
        with read_only(disk):
            yield pool


def _snapshot(tmp_path: Path) -> Path:
    """A snapshot file, written from a pool elsewhere (for ``load``)."""
    src = tmp_path / "src"
    make_pool(src, urls=10, pages=1)
    snap = tmp_path / "s.cgpool"
    assert cli("save", str(src), str(snap)).returncode == 0
    return snap


COMMANDS = {
    "stats": ["stats", "POOL"],
    "report": ["report", "POOL", "-o", "OUT/report.html"],
    "export": ["export", "POOL", "-o", "OUT/pages.jsonl"],
    "outcomes": ["export", "POOL", "--records", "outcomes", "-o", "OUT/outcomes.jsonl"],
    "extract": ["extract", "POOL", "--all"],
    "save": ["save", "POOL", "OUT/pool.cgpool"],
    "load": ["load", "POOL", "SNAP"],
    "migrate": ["migrate", "POOL"],
    "crawl": ["crawl", "POOL", "--seed", "http://127.0.0.1:9/", "--no-progress"],
    "demo": ["crawl", "POOL", "--demo", "--no-progress"],
    "new pool": ["crawl", "POOL/../new", "--seed", "http://127.0.0.1:9/", "--no-progress"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_says_read_only_in_one_line(ro_pool: Path, tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    snap = _snapshot(tmp_path) if name == "load" else None
    args = [
        a.replace("POOL", str(ro_pool)).replace("OUT", str(out)).replace("SNAP", str(snap))
        for a in COMMANDS[name]
    ]
    result = cli(*args)
    one_clear_line(result, 4, "the file system is read-only")
    words = "in a writable place" if name == "new pool" else "copy the folder to a writable place"
    assert words in result.stderr.lower()
    assert "in use" not in result.stderr and "another" not in result.stderr
    assert list(out.iterdir()) == []  # nothing written, here either
    assert (ro_pool / "demo.json").read_text() == DEMO_JSON


def test_a_read_only_pool_is_repaired_into_a_writable_place(ro_pool: Path, tmp_path: Path) -> None:
    beside = cli("repair", str(ro_pool))  # (the default place is beside it: read-only too)
    one_clear_line(beside, 4, "the file system is read-only", "--output")
    copy = tmp_path / "copy"
    repaired = cli("repair", str(ro_pool), "-o", str(copy))
    assert repaired.returncode == 0, repaired.stderr
    assert json.loads(cli("stats", str(copy)).stdout)["waiting"] == 500


@contextlib.contextmanager
def immutable(folder: Path) -> Iterator[None]:
    """``folder`` made immutable (``chattr +i``): creating a file in it fails with EPERM, for
    root too (a folder without write permission, where the tests run as root)."""
    made = subprocess.run(
        ["chattr", "+i", str(folder)], check=False, capture_output=True, text=True
    )
    assert made.returncode == 0, f"chattr +i is needed here: {made.stderr}"
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.mark.parametrize(("database", "command"), [("frontier", "stats"), ("pages", "export")])
def test_a_folder_without_write_permission_is_said_so(
    tmp_path: Path, database: str, command: str
) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    with immutable(pool / database):
        result = cli(
            command, str(pool), *(["-o", str(tmp_path / "o.jsonl")] * (command == "export"))
        )
    one_clear_line(result, 4, f"{pool / database} cannot be written (no permission)")
    assert "in use" not in result.stderr and not (tmp_path / "o.jsonl").exists()


def test_in_use_only_when_another_process_holds_the_lock(tmp_path: Path) -> None:
    """A pool another process holds is "in use" (exit 3); the demo crawl of it writes nothing
    first (it rewrote the demo site's demo.json before it failed)."""
    pool = tmp_path / "pool"
    make_pool(pool)
    (pool / "demo.json").write_text(DEMO_JSON)
    held = LevelDBPool.open(pool)
    try:
        for args in (["stats", str(pool)], ["crawl", str(pool), "--demo", "--no-progress"]):
            result = cli(*args)
            assert result.returncode == 3, result.stderr
            assert "Traceback" not in result.stderr and "read-only" not in result.stderr
            assert "already open in another crawler-gui process" in result.stderr
    finally:
        held.close_sync()
    assert (pool / "demo.json").read_text() == DEMO_JSON
