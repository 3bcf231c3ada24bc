"""Reads that verify: a damaged block (one byte of a value changed on the disk) met by a get,
an iteration or a snapshot's read of the pool's database is the pool's clear error, also where
plyvel's own iterator would end short in silence (a damaged block at the end of a range)."""

from __future__ import annotations

from pathlib import Path

import plyvel
import pytest

from crawler_gui.core.leveldb import DB_DIRNAME
from crawler_gui.core.leveldb.db import open_db
from crawler_gui.core.leveldb.layout import P_URL
from crawler_gui.errors import PoolCorruptError
from tests.damage import damage_urls, make_pool

URLS = 500


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A pool whose last URL record is damaged (the last block of the database)."""
    pool = tmp_path / "pool"
    make_pool(pool, URLS)
    damage_urls(pool)
    return pool


def test_plain_reads_end_a_range_short_without_a_word(damaged: Path) -> None:
    """Why the checked iterator looks past its end: plyvel's forward iterator skips a damaged
    last block and stops, even when asked to verify checksums."""
    db = plyvel.DB(str(damaged / DB_DIRNAME))
    try:
        got = sum(1 for _ in db.iterator(prefix=P_URL, verify_checksums=True))
    finally:
        db.close()
    assert 0 < got < URLS


@pytest.mark.parametrize("through", ["database", "snapshot"])
def test_a_range_that_ends_in_a_damaged_block_is_the_pool_s_error(
    damaged: Path, through: str
) -> None:
    db = open_db(damaged / DB_DIRNAME, create=False)
    try:
        reader = db if through == "database" else db.snapshot()
        with pytest.raises(PoolCorruptError) as caught:
            for _ in reader.iterator(prefix=P_URL, include_value=False):
                pass
        assert "checksum" in str(caught.value) and "crawler-gui repair" in str(caught.value)
        # A range before the damaged block ends cleanly; one read backwards meets it.
        assert sum(1 for _ in reader.iterator(prefix=b"s/")) == 20
        with pytest.raises(PoolCorruptError):
            list(reader.iterator(prefix=P_URL, reverse=True))
        if through == "snapshot":
            reader.close()
    finally:
        db.close()


def test_a_get_of_a_damaged_value_is_the_pool_s_error(damaged: Path) -> None:
    db = open_db(damaged / DB_DIRNAME, create=False)
    try:
        assert db.get(b"s/h0.example.com") is not None  # (a sound block reads)
        with pytest.raises(PoolCorruptError):
            for n in range(URLS):  # the URLs whose records the damaged block holds
                db.get(f"{P_URL.decode()}http://h{n % 20}.example.com/p{n}".encode())
    finally:
        db.close()
