"""A page store written before the pool's URL schema 2 (keys under old URL spellings) is found by
the new canonical URLs once migrated: on open, and by ``crawler-gui migrate``, crash-safely."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import plyvel
import pytest

from crawler_gui.engine import store_migrate
from crawler_gui.engine.store import PageRecord, PageStore, make_detail

T0 = 1_700_000_000.0
#: Canonical form now -> how a page store of schema 1 pools could hold it.
OLD = {
    "http://127.0.0.1/hub": "http://0x7f.1/hub",
    "http://news.example.com/a/b": "http://news.example.com/a\\b",
    "http://news.example.com/~d": "http://news.example.com/%7Ed",
}
HUB, PAGE, ARTICLE = OLD


def rec(url: str, i: int, body: bytes | None = b"<html></html>") -> PageRecord:
    return PageRecord(
        url=url,
        final_url=url,
        status=200,
        fetched_at=T0 + i,
        content_type="text/html",
        encoding="utf-8",
        title=f"t{i}",
        depth=0,
        size=len(body or b""),
        elapsed=0.1,
        referrer=None,
        redirect_chain=(),
        body=body,
    )


def make_old_store(path: Path) -> dict[str, int]:
    """A page store whose URL keys are the old spellings of :data:`OLD` (and no URL-form mark,
    as a store made before it). Returns the sequence numbers of its records by new URL."""
    seqs: dict[str, int] = {}
    with PageStore.open(path) as store:
        seqs[HUB] = store.add_hub_fetch(rec(OLD[HUB], 1), {"ETag": '"v1"'})
        seqs[PAGE] = store.add(rec(OLD[PAGE], 2))
        store.add_detail(seqs[PAGE], make_detail(links=[(OLD[ARTICLE], "queued", "")]))
        store.add_listed(OLD[HUB], [(OLD[ARTICLE], T0 - 60, None)])
        store.flush_sync()
    db = plyvel.DB(str(path))
    try:
        assert db.get(store_migrate.K_URL_FORM) == store_migrate.URL_FORM  # a new store's mark
        db.delete(store_migrate.K_URL_FORM)
    finally:
        db.close()
    return seqs


def check_found_by_new_urls(path: Path, seqs: dict[str, int]) -> None:
    with PageStore.open(path) as store:
        assert store.seq_of(HUB) == seqs[HUB]
        assert store.seq_of(PAGE) == seqs[PAGE]
        assert store.hub_validators(HUB) == {"If-None-Match": '"v1"'}
        assert [seq for seq, _body in store.hub_bodies(HUB)] == [seqs[HUB]]
        assert store.listed(ARTICLE) == {"published": T0 - 60, "updated": None, "via": OLD[HUB]}
        assert store.referrers(ARTICLE) == [seqs[PAGE]]
        for old in OLD.values():  # nothing is left under an old spelling
            assert store.seq_of(old) is None and store.listed(old) is None
        assert store.listed_count() == 1
        # The records say what was fetched: their URLs are not rewritten.
        record = store.record_at(seqs[PAGE])
        assert record is not None and record.url == OLD[PAGE]


def test_an_old_store_is_not_found_by_new_urls_until_migrated(tmp_path: Path) -> None:
    seqs = make_old_store(tmp_path / "pages")
    db = plyvel.DB(str(tmp_path / "pages"))
    try:
        assert db.get(b"url/" + HUB.encode()) is None  # before: only the old spelling
        assert db.get(b"url/" + OLD[HUB].encode()) is not None
    finally:
        db.close()
    check_found_by_new_urls(tmp_path / "pages", seqs)  # opening migrated it


def test_a_migration_stopped_in_the_middle_finishes_at_the_next_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seqs = make_old_store(tmp_path / "pages")
    monkeypatch.setattr(store_migrate, "BATCH", 1)
    db = plyvel.DB(str(tmp_path / "pages"))
    try:
        with pytest.raises(RuntimeError, match="injected"):
            store_migrate.migrate(db, fail_after=2)
        assert db.get(store_migrate.K_MIGRATING) is not None
        assert db.get(store_migrate.K_URL_FORM) is None
    finally:
        db.close()
    check_found_by_new_urls(tmp_path / "pages", seqs)
    db = plyvel.DB(str(tmp_path / "pages"))
    try:
        assert db.get(store_migrate.K_MIGRATING) is None
        assert store_migrate.migrate(db) == 0  # idempotent: nothing left to move
    finally:
        db.close()


def test_two_spellings_of_one_url_keep_the_latest_record_and_one_listing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "pages"
    with PageStore.open(path) as store:
        older = store.add(rec(PAGE, 1))
        newer = store.add(rec(OLD[PAGE], 2))
        store.add_listed("http://feed.example.com/", [(ARTICLE, T0, None)])
        store.add_listed("http://feed.example.com/", [(OLD[ARTICLE], T0 + 5, None)])
        store.flush_sync()
        assert store.listed_count() == 2
    db = plyvel.DB(str(path))
    db.delete(store_migrate.K_URL_FORM)
    db.close()
    with PageStore.open(path) as store:
        assert store.seq_of(PAGE) == newer != older
        assert store.listed(ARTICLE) == {
            "published": T0,
            "updated": None,
            "via": "http://feed.example.com/",
        }
        assert store.listed_count() == 1


def test_a_new_store_is_marked_current_and_not_scanned(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        store.add(rec(OLD[PAGE], 1))  # a URL as given is kept as given in a current store
        store.flush_sync()
    with PageStore.open(tmp_path / "pages") as store:
        assert store.seq_of(OLD[PAGE]) == 1


def test_migrate_command_moves_the_page_store_keys_too(tmp_path: Path) -> None:
    from crawler_gui.core.leveldb import LevelDBPool

    LevelDBPool.open(tmp_path / "p").close_sync()  # a current pool: only its pages are old
    seqs = make_old_store(tmp_path / "p" / "pages")
    result = subprocess.run(
        [sys.executable, "-m", "crawler_gui", "migrate", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "migrating page URLs: " in result.stderr
    assert "migrating referrers: 1 read, 1 moved" in result.stderr
    # url/ (hub, page), hub/, listed/, ref/: five keys
    assert "migrated: 5 records rewritten" in result.stderr
    db = plyvel.DB(str(tmp_path / "p" / "pages"))
    try:
        assert db.get(store_migrate.K_URL_FORM) == store_migrate.URL_FORM
        assert db.get(b"url/" + PAGE.encode()) is not None
    finally:
        db.close()
    check_found_by_new_urls(tmp_path / "p" / "pages", seqs)
