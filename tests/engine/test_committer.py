"""The committer alone: a real LevelDB pool and page store in tmp_path, the pool on the core's
fake clock (``ManualClock``). A full disk is made by asking for more free space than any disk
has (``min_free_mb``), the way the crawl's own floor pauses it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.frontier import AddRequest
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import FetchResult, PoolConfig
from crawler_gui.engine.committer import Committer
from crawler_gui.engine.store import PageRecord, PageStore
from crawler_gui.errors import DiskFullError

#: More free megabytes than any disk has: the committer finds the disk "full".
NO_ROOM = 1e12


def run(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 60))


async def until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.001)


def record(url: str) -> PageRecord:
    return PageRecord(
        url=url,
        final_url=url,
        status=200,
        fetched_at=1_700_000_000.0,
        content_type="text/html",
        encoding="utf-8",
        title="a page",
        depth=0,
        size=10,
        elapsed=0.01,
        referrer=None,
        redirect_chain=(),
        body=b"<p>a page",
    )


class Stand:
    """A committer over a real pool and page store, with what it is given in reach."""

    def __init__(self, tmp_path: Path, pool: LevelDBPool, store: PageStore) -> None:
        self.pool = pool
        self.store = store
        self.resumed = asyncio.Event()
        self.resumed.set()
        self.min_free_mb = 0.0
        self.wakes = 0
        self.notices = 0
        self.pauses: list[tuple[str, bool]] = []
        self.fatal: list[Exception] = []
        self.committer = Committer(
            pool,
            store=store,
            resumed=self.resumed,
            min_free_mb=lambda: self.min_free_mb,
            storage_paths=lambda: [tmp_path],
            stopping=lambda: False,
            wake=self.wake,
            notify=self.notify,
            on_pause=self.on_pause,
            on_fatal=self.fatal.append,
        )

    def wake(self) -> None:
        self.wakes += 1

    def notify(self) -> None:
        self.notices += 1

    def on_pause(self, message: str, first: bool) -> None:
        """What the crawler does: it pauses (the committer waits for the resume)."""
        self.pauses.append((message, first))
        self.resumed.clear()


async def open_parts(tmp_path: Path) -> tuple[LevelDBPool, PageStore]:
    pool = await LevelDBPool.open_async(tmp_path / "pool", PoolConfig(), ManualClock())
    store = await asyncio.to_thread(PageStore.open_in_pool, tmp_path / "pool")
    return pool, store


async def leased(pool: LevelDBPool, *urls: str) -> None:
    await pool.add_many([AddRequest(u, 0, None) for u in urls])
    assert len(await pool.pop(len(urls))) == len(urls)


def test_the_pages_are_on_disk_before_their_urls_are_done(tmp_path: Path) -> None:
    async def main() -> None:
        pool, store = await open_parts(tmp_path)
        try:
            urls = [f"http://h{i}.example/" for i in range(3)]
            await leased(pool, *urls)
            stand = Stand(tmp_path, pool, store)
            written_when_done: list[int] = []
            real = pool.set_status_many

            async def set_status_many(batch: Any) -> Any:
                written_when_done.append(store.last_written_seq())
                return await real(batch)

            pool.set_status_many = set_status_many  # type: ignore[method-assign]
            stand.committer.start()
            last = 0
            for url in urls:
                last = store.add(record(url))
                stand.committer.complete(url, FetchResult(status=200))
            await until(lambda: all(pool.url_state(u) == "done" for u in urls))
            assert written_when_done and all(seq == last for seq in written_when_done)
            assert stand.wakes >= 1 and stand.notices >= 1  # hosts free; other workers told
            await stand.committer.stop()
            assert stand.pauses == [] and stand.fatal == []
        finally:
            store.close()
            await pool.close()

    run(main)


def test_a_full_disk_pauses_keeps_the_results_and_commits_them_once_there_is_room(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        pool, store = await open_parts(tmp_path)
        try:
            url = "http://a.example/"
            await leased(pool, url)
            stand = Stand(tmp_path, pool, store)
            stand.min_free_mb = NO_ROOM
            stand.committer.start()
            stand.committer.complete(url, FetchResult(status=200))
            await until(lambda: bool(stand.pauses))
            message, first = stand.pauses[0]
            assert first and "MB left on the disk of" in message
            assert stand.committer.storage_error == message
            assert pool.url_state(url) == "pending"  # nothing charged, the result kept
            assert stand.committer.waiting == 1
            # The user resumes while there is still no room: paused again, and said again.
            assert not stand.committer.storage_back()
            assert len(stand.pauses) == 2 and stand.pauses[1][1]
            stand.min_free_mb = 0.0
            assert stand.committer.storage_back()
            assert stand.committer.storage_error is None
            stand.resumed.set()
            await until(lambda: pool.url_state(url) == "done")
            await stand.committer.stop()
            assert stand.fatal == []
        finally:
            store.close()
            await pool.close()

    run(main)


def test_a_page_our_disk_could_not_take_goes_back_unfetched_once_there_is_room(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        pool, store = await open_parts(tmp_path)
        try:
            url = "http://a.example/"
            await leased(pool, url)
            stand = Stand(tmp_path, pool, store)
            stand.committer.start()
            stand.committer.unstored(url, DiskFullError("the page store's disk is full"))
            assert stand.pauses == [("the page store's disk is full", True)]
            assert stand.committer.storage_back()
            stand.resumed.set()
            await until(lambda: pool.url_state(url) == "waiting")
            await stand.committer.stop()
        finally:
            store.close()
            await pool.close()

    run(main)


def test_cancelled_fetches_go_back_to_the_pool_at_the_end_of_a_run(tmp_path: Path) -> None:
    async def main() -> None:
        pool, store = await open_parts(tmp_path)
        try:
            urls = ["http://a.example/", "http://b.example/"]
            await leased(pool, *urls)
            stand = Stand(tmp_path, pool, store)
            for url in urls:
                stand.committer.give_back(url)
            await stand.committer.release_unfinished()
            assert [pool.url_state(u) for u in urls] == ["waiting", "waiting"]
            assert stand.notices == 1
            await stand.committer.release_unfinished()  # nothing left: nothing said
            assert stand.notices == 1
        finally:
            store.close()
            await pool.close()

    run(main)


def test_stop_commits_what_is_left(tmp_path: Path) -> None:
    async def main() -> None:
        pool, store = await open_parts(tmp_path)
        try:
            url = "http://a.example/"
            await leased(pool, url)
            stand = Stand(tmp_path, pool, store)
            seq = store.add(record(url))
            stand.committer.complete(url, FetchResult(status=200))  # (the task never ran)
            await stand.committer.stop()
            assert pool.url_state(url) == "done" and store.last_written_seq() == seq
        finally:
            store.close()
            await pool.close()

    run(main)
