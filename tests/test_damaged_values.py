"""A damaged value in a table (a bit flipped on the disk, the block well-formed) on the command
line, run as real processes: every read verifies the checksums, so each command that meets it
says so in one line naming the store and `crawler-gui repair`, exit code 4, and writes nothing;
the repair drops the damaged block and its copy reads cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.damage import PAGES, damage_pages, damage_urls, make_pool
from tests.test_cli import cli
from tests.test_cli_storage import fingerprint, one_clear_line


def tables(folder: Path) -> dict[str, str]:
    """The table files of a LevelDB: the records (an open writes a new log and manifest)."""
    return {name: digest for name, digest in fingerprint(folder).items() if name.endswith(".ldb")}


@pytest.fixture
def damaged_pages(tmp_path: Path) -> Path:
    pool = tmp_path / "pool"
    make_pool(pool)
    damage_pages(pool)
    return pool


@pytest.mark.parametrize(
    "command",
    [
        ["stats"],
        ["export", "-o", "OUT"],
        ["export", "--records", "articles", "-o", "OUT"],
        ["export", "--format", "warc", "-o", "OUT"],
        ["report", "-o", "OUT"],
        ["extract", "--all"],
    ],
    ids=["stats", "export", "articles", "warc", "report", "extract"],
)
def test_a_damaged_page_is_one_line_and_exit_4(
    damaged_pages: Path, tmp_path: Path, command: list[str]
) -> None:
    out = tmp_path / "out.file"
    args = [a.replace("OUT", str(out)) for a in command]
    before = tables(damaged_pages / "pages")
    result = cli(args[0], str(damaged_pages), *args[1:])
    one_clear_line(result, 4, "the page store", "damaged", f"crawler-gui repair {damaged_pages}")
    assert "checksum" in result.stderr
    assert not out.exists()  # nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool"]
    assert tables(damaged_pages / "pages") == before  # (LevelDB's open writes a new log)


def test_a_damaged_url_record_is_one_line_and_exit_4(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    make_pool(pool)
    damage_urls(pool)
    assert cli("stats", str(pool)).returncode == 0  # (met by what reads it, not by the open)
    snap = tmp_path / "pool.cgpool"
    one_clear_line(cli("save", str(pool), str(snap)), 4, f"the pool {pool}", "repair")
    assert not snap.exists()
    out = tmp_path / "outcomes.jsonl"
    result = cli("export", str(pool), "--records", "outcomes", "-o", str(out))
    one_clear_line(result, 4, f"the pool {pool}", "damaged", "checksum", "repair")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool"]


def test_the_repair_drops_the_damaged_block_and_its_copy_reads(damaged_pages: Path) -> None:
    repaired = cli("repair", str(damaged_pages))
    assert repaired.returncode == 0, repaired.stderr
    assert "pages: 1 damaged table file(s) set aside" in repaired.stderr, repaired.stderr
    copy = damaged_pages.with_name("pool.repaired")
    stats = json.loads(cli("stats", str(copy)).stdout)
    assert stats["waiting"] == 500
    out = copy.with_name("pages.jsonl")
    exported = cli("export", str(copy), "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    titles = [json.loads(line)["title"] for line in out.read_text("utf-8").splitlines()]
    # What the damaged block held is lost, never changed: the rest is as it was stored.
    assert titles and len(titles) < PAGES
    assert all(t.startswith("page number ") for t in titles)


def test_a_damaged_store_folder_of_a_redis_worker_is_repaired(tmp_path: Path) -> None:
    """The store folder of a Redis worker holds a page store and no URL pool: the repair the
    message names works on it too."""
    pool = tmp_path / "pool"
    make_pool(pool)
    store = tmp_path / "store"
    store.mkdir()
    (pool / "pages").rename(store / "pages")
    damage_pages(store)
    result = cli("export", str(store), "-o", str(tmp_path / "out.jsonl"))
    one_clear_line(result, 4, f"crawler-gui repair {store}")
    repaired = cli("repair", str(store))
    assert repaired.returncode == 0, repaired.stderr
    assert "recovered:" not in repaired.stderr  # (no URL pool in a store folder)
    exported = cli("export", str(tmp_path / "store.repaired"), "-o", str(tmp_path / "ok.jsonl"))
    assert exported.returncode == 0, exported.stderr
