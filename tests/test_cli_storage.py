"""Storage faults and bad files on the command line, run as real processes: exit codes and one
clear line, never a traceback, and the user's files untouched."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import plyvel
import pytest

from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool
from crawler_gui.engine.store import PageRecord, PageStore
from tests.mounts import tmpfs
from tests.test_cli import cli


def make_pool(path: Path, n: int = 3000) -> None:
    async def fill() -> None:
        pool = LevelDBPool.open(path)
        await pool.add_many([f"http://h{i % 50}.example.com/p{i}" for i in range(n)])
        await pool.close()

    asyncio.run(fill())
    with PageStore.open_in_pool(path) as store:
        for i in range(20):
            store.add(
                PageRecord(
                    url=f"http://h1.example.com/x{i}",
                    final_url=f"http://h1.example.com/x{i}",
                    status=200,
                    fetched_at=1.7e9 + i,
                    content_type="text/html",
                    encoding="utf-8",
                    title=f"page {i}",
                    depth=0,
                    size=10,
                    elapsed=0.1,
                    referrer=None,
                    redirect_chain=(),
                )
            )


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in ("LOG", "LOG.old", "LOCK")
    }


def contents(pool: Path) -> list[tuple[bytes, bytes]]:
    """Every record of the pool's URL database (opening may rewrite files, not records)."""
    db = plyvel.DB(str(pool / DB_DIRNAME))
    try:
        return list(db.iterator())
    finally:
        db.close()


def one_clear_line(result: object, code: int, *words: str) -> None:
    err = result.stderr  # type: ignore[attr-defined]
    assert result.returncode == code, err  # type: ignore[attr-defined]
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("crawler-gui: "), err
    for word in words:
        assert word in lines[0], err


@pytest.mark.parametrize(
    ("command", "db"),
    [
        ("stats", "frontier"),
        ("stats", "pages"),
        ("crawl", "frontier"),
        ("crawl", "pages"),
        ("save", "frontier"),  # (save reads the URL pool only)
        ("export", "pages"),  # (export reads the page store only)
    ],
)
def test_missing_current_exits_4_and_touches_nothing(tmp_path: Path, db: str, command: str) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    (pool / db / "CURRENT").unlink()
    before = fingerprint(pool / db)  # the damaged database: not a byte changes
    args = {
        "stats": ["stats", str(pool)],
        "crawl": ["crawl", str(pool), "--seed", "http://127.0.0.1:9/", "--max-pages", "1"],
        "save": ["save", str(pool), str(tmp_path / "s.cgpool")],
        "export": ["export", str(pool), "-o", str(tmp_path / "e.jsonl")],
    }[command]
    result = cli(*args)
    one_clear_line(result, 4, "CURRENT is missing")
    assert fingerprint(pool / db) == before


def test_a_damaged_log_exits_4(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    (log_file,) = (pool / DB_DIRNAME).glob("*.log")
    data = bytearray(log_file.read_bytes())
    data[5000:5008] = b"\xff" * 8
    log_file.write_bytes(bytes(data))
    result = cli("stats", str(pool))
    one_clear_line(result, 4, "corrupt")
    assert '"waiting"' not in result.stdout


def test_a_corrupt_table_exits_4(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    db = plyvel.DB(str(pool / DB_DIRNAME))
    db.compact_range()
    db.close()
    for table in (pool / DB_DIRNAME).glob("*.ldb"):
        data = bytearray(table.read_bytes())
        data[100:164] = bytes(64)
        table.write_bytes(bytes(data))
    one_clear_line(cli("stats", str(pool)), 4, "repair")


def test_export_writes_through_a_temporary_file(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    out = tmp_path / "pages.jsonl"
    out.write_text("the previous export\n")
    result = cli("export", str(pool), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert len(out.read_text().splitlines()) == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pages.jsonl", "pool"]  # no temporary


@pytest.mark.parametrize("where", ["missing", "directory", "unwritable"])
def test_export_to_a_bad_place_is_one_line(tmp_path: Path, where: str) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    target = {
        "missing": tmp_path / "no" / "such" / "folder" / "out.jsonl",
        "directory": tmp_path,
        "unwritable": tmp_path / "ro" / "out.jsonl",
    }[where]
    if where == "unwritable":
        with unwritable_folder(tmp_path / "ro"):
            one_clear_line(cli("export", str(pool), "-o", str(target)), 1, "cannot write")
        return
    one_clear_line(cli("export", str(pool), "-o", str(target)), 1, "cannot write")


@contextlib.contextmanager
def unwritable_folder(folder: Path) -> Iterator[None]:
    """A folder nobody can write into: read-only by its mode, or (root writes anyway) a
    read-only tmpfs mounted on it."""
    folder.mkdir()
    folder.chmod(0o500)
    if not os.access(folder, os.W_OK):
        yield
        return
    with tmpfs(folder, "ro,size=1m"):
        assert not _can_create(folder)
        yield


def _can_create(folder: Path) -> bool:
    try:
        (folder / "probe").write_bytes(b"")
    except OSError:
        return False
    return True


def test_load_into_a_file_is_one_line(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    snap = tmp_path / "s.cgpool"
    assert cli("save", str(pool), str(snap)).returncode == 0
    a_file = tmp_path / "a-file"
    a_file.write_text("mine\n")
    one_clear_line(cli("load", str(a_file), str(snap)), 2, "not a pool directory")
    assert a_file.read_text() == "mine\n"


def test_an_unwritable_warc_folder_is_not_a_corrupt_pool(tmp_path: Path) -> None:
    a_file = tmp_path / "warcs"
    a_file.write_text("not a folder\n")
    result = cli(
        "crawl", str(tmp_path / "pool"), "--seed", "http://127.0.0.1:9/", "--warc", str(a_file)
    )
    assert result.returncode in (1, 2), result.stderr
    assert "Traceback" not in result.stderr and "WARC" in result.stderr


@pytest.mark.parametrize("inside", ["frontier/CURRENT", "pages/x.cgpool", "", "."])
def test_save_never_writes_inside_the_pool(tmp_path: Path, inside: str) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    before = fingerprint(pool)
    target = str(pool / inside) if inside else ""  # (pool / "." is the pool folder itself)
    result = cli("save", str(pool), target)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert fingerprint(pool) == before
    assert cli("stats", str(pool)).returncode == 0


def test_export_never_writes_inside_the_pool(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    before = fingerprint(pool)
    result = cli("export", str(pool), "-o", str(pool / "frontier" / "CURRENT"))
    one_clear_line(result, 2, "inside the pool")
    assert fingerprint(pool) == before


def test_a_huge_snapshot_line_is_refused_without_reading_it_whole(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool, 10)
    snap = tmp_path / "huge.cgpool"
    with gzip.open(snap, "wb", compresslevel=9) as gz:
        gz.write(b'{"format": "crawler-gui-pool-snapshot", "version": 1}\n')
        gz.write(b'{"t": "url", "url": "')
        chunk = b"a" * (1 << 20)
        for _ in range(200):  # a 200 MB line
            gz.write(chunk)
        gz.write(b'"}\n{"t": "end", "records": 1}\n')
    before = contents(pool)
    # The child reports its own peak memory (VmHWM: of this program, not of the forked test).
    code = (
        "import sys\n"
        "from crawler_gui.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "peak = [x for x in open('/proc/self/status') if x.startswith('VmHWM')][0]\n"
        "print('PEAK', peak.split()[1], file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", code, "load", str(pool), str(snap)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = child.stderr.strip().splitlines()
    peak_kb = int(lines[-1].split()[1])
    assert child.returncode == 4 and "too long" in lines[-2], child.stderr
    assert "Traceback" not in child.stderr
    # The line is never read whole: the program stays far below the line's 200 MB.
    assert peak_kb < 150 * 1024, f"{peak_kb} KB"
    assert contents(pool) == before


def test_a_deeply_nested_snapshot_line_is_refused(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool, 10)
    snap = tmp_path / "nested.cgpool"
    with gzip.open(snap, "wb") as gz:
        gz.write(b'{"format": "crawler-gui-pool-snapshot", "version": 1}\n')
        gz.write(b"[" * 200_000 + b"\n")
        gz.write(b'{"t": "end", "records": 0}\n')
    before = contents(pool)
    one_clear_line(cli("load", str(pool), str(snap)), 4, "line 2")
    assert contents(pool) == before


def test_repair_works_on_a_copy_and_says_what_was_lost(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool, 2000)  # one table: these URLs...
    db = plyvel.DB(str(pool / DB_DIRNAME))
    db.compact_range()
    db.close()
    first_tables = set((pool / DB_DIRNAME).glob("*.ldb"))

    async def more() -> None:
        p = LevelDBPool.open(pool)
        await p.add_many([f"http://h{i % 50}.example.com/q{i}" for i in range(1000)])
        await p.close()

    asyncio.run(more())
    LevelDBPool.open(pool).close_sync()  # the log becomes a second table
    assert set((pool / DB_DIRNAME).glob("*.ldb")) - first_tables
    for table in first_tables:  # ...are lost with their table; the counters still name them
        table.unlink()
    before = fingerprint(pool)
    one_clear_line(cli("stats", str(pool)), 4, "repair")

    result = cli("repair", str(pool))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "recovered: 1,000 URLs (1,000 waiting" in result.stderr, result.stderr
    assert "lost (the pool's counters named more): 2,000 waiting" in result.stderr
    assert fingerprint(pool) == before  # the damaged pool is only read
    copy = tmp_path / "pool.repaired"
    stats = json.loads(cli("stats", str(copy)).stdout)
    assert stats["waiting"] == 1000 and stats["pages_stored"] == 20

    again = cli("repair", str(pool))  # never over an existing folder
    one_clear_line(again, 2, "exists already")
    assert cli("repair", str(pool), "-o", str(pool / "inside")).returncode == 2


def test_repair_refuses_a_pool_in_use(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool, 10)
    held = LevelDBPool.open(pool)
    try:
        one_clear_line(cli("repair", str(pool)), 3, "stop it first")
    finally:
        held.close_sync()
    assert not (tmp_path / "pool.repaired").exists()


def test_a_damaged_queue_met_while_crawling_exits_4(tmp_path: Path) -> None:
    """The open reads only the host, hub, retry and lease records: a bad block among the
    queue entries is met by the crawl itself. Loopback URLs, refused without
    --allow-private: nothing is fetched."""
    pool = tmp_path / "pool"

    async def fill() -> None:
        p = LevelDBPool.open(pool)
        await p.add_many(
            [f"http://127.0.0.{i % 50 + 1}:9/a-rather-long-path/{i}" for i in range(4000)]
        )
        await p.close()

    asyncio.run(fill())
    db = plyvel.DB(str(pool / DB_DIRNAME))
    db.compact_range()
    db.close()
    (table,) = (pool / DB_DIRNAME).glob("*.ldb")
    data = bytearray(table.read_bytes())
    at = len(data) // 10  # among the queue entries (q/ sorts before s/ and u/)
    data[at : at + 64] = bytes(64)
    table.write_bytes(bytes(data))
    assert cli("stats", str(pool)).returncode == 0  # the open does not read the queues
    result = cli("crawl", str(pool), "--until-idle", "--no-progress")
    assert result.returncode == 4, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("crawler-gui: the pool ")
    assert "repair" in result.stderr
