"""A damaged value in a LevelDB table, as a bit flip on a disk makes it: one byte of a stored
value changed where it lies in a table file, the block around it well-formed, so that only the
block's checksum tells."""

from __future__ import annotations

import asyncio
from pathlib import Path

import plyvel

from crawler_gui.core.frontier import AddRequest
from crawler_gui.core.leveldb import DB_DIRNAME, LevelDBPool
from crawler_gui.engine.store import PageRecord, PageStore

#: What the damaged byte becomes: not UTF-8 (the byte of the issue's traceback).
BAD_BYTE = 0x91
#: The referrer of the URLs of :func:`make_damaged_pool`'s pool (in each URL record's value).
REFERRER = "http://referrer.example.com/the-page-that-linked-here"


def damage_value(db_dir: Path, value: bytes, *, last: bool = False) -> Path:
    """Change one byte in the middle of ``value`` where a table of the LevelDB in ``db_dir``
    holds it (its first place, or with ``last`` its last one); returns the table file. The
    database is compacted into tables without compression first, so that the value's bytes lie
    in the file as they are (a compressed block is usually refused by its decompressor already:
    the checksum is what catches a change in any block)."""
    db = plyvel.DB(str(db_dir), compression=None)
    try:
        db.compact_range()
    finally:
        db.close()
    for table in sorted(db_dir.glob("*.ldb")):
        data = bytearray(table.read_bytes())
        at = data.rfind(value) if last else data.find(value)
        if at >= 0:
            data[at + len(value) // 2] = BAD_BYTE
            table.write_bytes(bytes(data))
            return table
    raise AssertionError(f"{value!r} is in no table of {db_dir}")


def page(i: int) -> PageRecord:
    return PageRecord(
        url=f"http://h1.example.com/x{i}",
        final_url=f"http://h1.example.com/x{i}",
        status=200,
        fetched_at=1.7e9 + i,
        content_type="text/html",
        encoding="utf-8",
        title=f"page number {i}",
        depth=0,
        size=10,
        elapsed=0.1,
        referrer=None,
        redirect_chain=(),
        body=f"<html><title>page number {i}</title><p>text {i}</p></html>".encode(),
    )


#: Pages of :func:`make_pool`'s page store.
PAGES = 20


def make_pool(path: Path, urls: int = 500, pages: int = PAGES) -> None:
    """A pool with ``urls`` waiting URLs (each with :data:`REFERRER`) and ``pages`` stored
    pages, each with its extraction."""

    async def fill() -> None:
        pool = LevelDBPool.open(path)
        await pool.add_many(
            [AddRequest(f"http://h{i % 20}.example.com/p{i}", 1, REFERRER) for i in range(urls)]
        )
        await pool.close()

    asyncio.run(fill())
    with PageStore.open_in_pool(path) as store:
        for i in range(pages):
            seq = store.add(page(i))
            store.add_extraction(seq, {"kind": "other", "why": "a test page"})


def damage_pages(path: Path, number: int = PAGES - 1) -> None:
    """The title of page ``number`` (from 0; by default the newest of :func:`make_pool`'s) of
    the pool's page store, damaged. The newest page's block is read by every open (the next
    sequence number); an older one's only by what reads that page."""
    damage_value(path / "pages", f'"title":"page number {number}"'.encode())


def damage_urls(path: Path) -> None:
    """One URL record of the pool (its referrer), damaged: the last one (``u/`` keys sort
    last), in a block no open reads (the first queue entries share theirs with the schema)."""
    damage_value(path / DB_DIRNAME, REFERRER.encode(), last=True)
