"""SearchIndexer: the page store indexed from where the index stops, extractions waited for."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import replace
from pathlib import Path

from crawler_gui.engine.indexer import EXTRACTION_WAIT, INDEX_DIRNAME, SearchIndexer
from crawler_gui.engine.search import BULK_THREADS, WRITER_THREADS, SearchIndex
from crawler_gui.engine.store import PageRecord, PageStore

T0 = 1_700_000_000.0


def rec(i: int, title: str) -> PageRecord:
    url = f"http://127.0.0.1:8631/news/a{i}.html"
    return PageRecord(
        url=url,
        final_url=url,
        status=200,
        fetched_at=T0 + i,
        content_type="text/html; charset=utf-8",
        encoding="utf-8",
        title=title,
        depth=1,
        size=100,
        elapsed=0.1,
        referrer=None,
        redirect_chain=(),
    )


def article(text: str) -> dict[str, object]:
    return {"kind": "article", "why": "test", "article": {"title": "t", "text": text}}


def test_catch_up_waits_for_extractions_then_indexes_text(tmp_path: Path) -> None:
    now = [T0 + 5]
    with PageStore.open(tmp_path / "pages") as store:
        s1 = store.add(rec(1, "Harbour news"))
        store.add_extraction(s1, article("稳就业 政策 today in the harbour"))
        store.add(rec(2, "列表 page"))  # not extracted yet
        s3 = store.add(rec(3, "Weather"))
        store.add_extraction(s3, article("rain tomorrow"))
        store.flush_sync()
        indexer = SearchIndexer(
            store, SearchIndex(tmp_path / "search"), extracting=True, clock=lambda: now[0]
        )
        try:
            assert indexer.catch_up_once() == 1  # page 2 waits for its extraction
            assert [h.seq for h in indexer.search("就业")] == [s1]
            assert indexer.pending() == 2
            now[0] = T0 + 2 + EXTRACTION_WAIT + 1  # waited long enough: indexed without text
            assert indexer.catch_up_once() == 2
            assert indexer.catch_up_once() == 0
            assert [h.seq for h in indexer.search("rain")] == [s3]
            assert [h.url for h in indexer.search("列表")] == [rec(2, "").url]
            assert indexer.pending() == 0
        finally:
            indexer.close()


def test_rebuild_reports_progress_and_can_be_cancelled(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 26):
            store.add_extraction(store.add(rec(i, f"page {i}")), article(f"word{i} 新闻"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        indexer.batch = 10
        try:
            steps: list[tuple[int, int]] = []
            threads: set[int] = set()

            def progress(done: int, total: int) -> None:
                steps.append((done, total))
                threads.add(indexer.index.writer_threads)

            assert indexer.rebuild(progress) == 25
            assert steps == [(10, 25), (20, 25), (25, 25)]
            # Both cores for a rebuild, one beside a crawl again after it (finished or not).
            assert threads == {BULK_THREADS} and indexer.index.writer_threads == WRITER_THREADS
            assert len(indexer.search("新闻", limit=100)) == 25
            assert indexer.rebuild(cancelled=lambda: True) == 0
            assert indexer.search("新闻") == []  # cleared; catching up fills it again
            assert indexer.index.writer_threads == WRITER_THREADS

            async def go() -> None:
                task = asyncio.create_task(indexer.run(interval=0.01, commit_seconds=0.05))
                while indexer.pending():
                    await asyncio.sleep(0.01)
                task.cancel()

            asyncio.run(asyncio.wait_for(go(), 30))
            assert [h.seq for h in indexer.search("word7")] == [7]

            # A cancel stops the rebuild after the batch being read, not after a transaction
            # of REBUILD_BATCH pages; what was indexed is kept.
            calls: list[int] = []
            assert indexer.rebuild(lambda d, t: calls.append(d), lambda: bool(calls)) == 10
            assert len(indexer.search("新闻", limit=100)) == 10
            assert indexer.catch_up_once(wait=False) == 10  # catching up goes on from there
        finally:
            indexer.close()


def test_a_rebuild_commits_every_rebuild_batch(tmp_path: Path) -> None:
    """Pages are added a batch at a time and committed a rebuild batch at a time: a search
    sees the pages of finished commits only."""
    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 26):
            store.add_extraction(store.add(rec(i, f"page {i}")), article(f"word{i} 新闻"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        indexer.batch, indexer.rebuild_batch = 5, 10
        seen: list[int] = []
        try:
            indexer.rebuild(lambda d, t: seen.append(len(indexer.search("新闻", limit=100))))
            assert seen == [0, 0, 10, 10, 20]
            assert len(indexer.search("新闻", limit=100)) == 25
        finally:
            indexer.close()


def fetch_of(url: str, i: int, title: str, final: str | None = None) -> PageRecord:
    return replace(rec(i, title), url=url, final_url=final or url)


def test_a_rebuild_indexes_each_url_once_at_its_newest_fetch(tmp_path: Path) -> None:
    """A rebuild adds each URL's newest fetch only (an older one is skipped, a batch of only
    older ones too), with nothing to replace; a fetch stored while it runs, and one after it,
    replace their URL's document as catching up always does."""
    a, b = "http://127.0.0.1:8631/a.html", "http://127.0.0.1:8631/b.html"
    with PageStore.open(tmp_path / "pages") as store:
        store.add(fetch_of(a, 1, "alpha one"))
        store.add(fetch_of(b, 2, "beta one"))
        store.add(fetch_of(a, 3, "alpha two"))  # batch 1 (seq 1, 2): both fetched again later
        store.add(fetch_of("http://127.0.0.1:8631/old", 4, "alpha three", final=a))  # redirect
        store.add(fetch_of(b, 5, "beta two"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        indexer.batch = 2
        steps: list[tuple[int, int]] = []

        def progress(done: int, total: int) -> None:
            if not steps:  # while the rebuild runs: a new fetch of b is stored
                store.add(fetch_of(b, 6, "beta three"))
                store.flush_sync()
            steps.append((done, total))

        try:
            # seq 4 (a) and 6 (b): 5 was fetched again (6) by the time the rebuild read it
            assert indexer.rebuild(progress) == 2
            assert steps == [(2, 5), (4, 5), (5, 5)]
            assert [(h.seq, h.url) for h in indexer.search("alpha")] == [(4, a)]
            assert [(h.seq, h.url) for h in indexer.search("beta")] == [(6, b)]
            store.add(fetch_of(a, 7, "alpha four"))
            store.flush_sync()
            assert indexer.catch_up_once(wait=False) == 1
            assert [h.seq for h in indexer.search("alpha")] == [7]
            assert indexer.search("three") == indexer.search("beta")  # the one b document
        finally:
            indexer.close()


def test_the_index_of_schema_2_is_replaced_and_made_again_from_the_store(tmp_path: Path) -> None:
    """A pool indexed by the SQLite index of schema 2 (``search.sqlite``): the file is deleted
    when the new index opens, and catching up indexes every stored page again."""
    con = sqlite3.connect(tmp_path / "search.sqlite")
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    con.commit()
    con.close()
    (tmp_path / "search.sqlite-wal").write_bytes(b"")
    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 8):
            store.add_extraction(store.add(rec(i, f"page {i}")), article(f"word{i} 新闻"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=True)
        try:
            assert not (tmp_path / "search.sqlite").exists()
            assert not (tmp_path / "search.sqlite-wal").exists()
            assert (tmp_path / INDEX_DIRNAME).is_dir()
            assert indexer.pending() == 7
            assert indexer.catch_up_once() == 7
            assert [h.seq for h in indexer.search("新闻", limit=3)] == [7, 6, 5]
        finally:
            indexer.close()


def test_beside_a_crawl_the_indexer_rests_between_chunks_and_commits_once(
    tmp_path: Path, monkeypatch
) -> None:
    """Following a crawl, the indexer adds pages a chunk at a time with a rest after each
    (the crawl's loop gets the GIL meanwhile) and commits the batch once: a search sees all
    of it or none."""
    import crawler_gui.engine.indexer as indexer_module

    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 61):
            store.add_extraction(store.add(rec(i, f"page {i}")), article(f"word{i} 新闻"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        rests: list[int] = []
        real_sleep = indexer_module.time.sleep

        class PacedTime:
            perf_counter = staticmethod(indexer_module.time.perf_counter)

            @staticmethod
            def sleep(seconds: float) -> None:
                # a search from the loop's side while the batch rests: nothing committed yet
                rests.append(len(indexer.index.search("新闻", limit=100)))
                real_sleep(seconds)

        monkeypatch.setattr(indexer_module, "time", PacedTime)
        monkeypatch.setattr(indexer_module, "PACE_CHUNK", 25)
        try:
            assert indexer._follow(due=True) == 60  # one step beside a crawl: one commit
            assert rests == [0, 0]  # after 25 and 50 pages
            assert len(indexer.search("新闻", limit=100)) == 60
        finally:
            indexer.close()


def test_the_index_follows_a_crawl_from_a_thread_of_low_cpu_priority(tmp_path: Path) -> None:
    """Beside a crawl the indexer works in a thread of its own at nice INDEX_NICE (on a small
    machine the crawl's loop and extraction workers come first)."""
    import os
    import threading

    import pytest

    import crawler_gui.engine.indexer as indexer_module

    if not hasattr(os, "getpriority"):
        pytest.skip("no per-thread priority on this system")
    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 4):
            store.add(rec(i, f"page {i}"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        seen: list[tuple[int, int]] = []
        real = indexer._catch_up

        def catch_up(*args: object, **kw: object) -> int:
            tid = threading.get_native_id()
            seen.append((tid, os.getpriority(os.PRIO_PROCESS, tid)))
            return real(*args, **kw)  # type: ignore[arg-type]

        indexer._catch_up = catch_up  # type: ignore[method-assign]

        async def main() -> int:
            task = asyncio.create_task(indexer.run(interval=0.01))
            found = 0
            for _ in range(500):
                await asyncio.sleep(0.01)
                found = len(indexer.search("page", limit=10))
                if found == 3:
                    break
            indexer.close()
            await task
            return found

        try:
            assert asyncio.run(main()) == 3
        finally:
            indexer.close()
        assert seen and all(nice >= indexer_module.INDEX_NICE for _tid, nice in seen)
        assert threading.get_native_id() not in {tid for tid, _ in seen}
        # the loop's own thread keeps its priority
        assert (
            os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < indexer_module.INDEX_NICE
        )


def test_beside_a_crawl_the_index_commits_on_its_cadence_or_when_enough_pages_wait(
    tmp_path: Path,
) -> None:
    """Each commit writes a segment that is merged again later, so the indexer that follows a
    crawl commits every ``commit_seconds`` (the first at once), or as soon as ``commit_pages``
    pages wait -- read a batch at a time, in one commit -- not after every page that comes."""
    with PageStore.open(tmp_path / "pages") as store:
        store.add(rec(1, "page one"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        indexer.commit_pages = 5
        indexer.batch = 2
        commits: list[int] = []
        real_commit = indexer.index._commit

        def commit() -> None:
            commits.append(indexer.index._pending)
            real_commit()

        indexer.index._commit = commit  # type: ignore[method-assign]

        def seen() -> set[int]:
            return {h.seq for h in indexer.search("page", limit=50)}

        async def until(want: set[int], seconds: float) -> bool:
            for _ in range(int(seconds / 0.01)):
                if seen() == want:
                    return True
                await asyncio.sleep(0.01)
            return False

        async def main() -> None:
            task = asyncio.create_task(indexer.run(interval=0.01, commit_seconds=60))
            try:
                assert await until({1}, 10)  # the first catch-up at once
                store.add(rec(2, "page two"))
                store.flush_sync()
                await asyncio.sleep(0.5)
                assert seen() == {1}  # one page waits for the next commit, 60 s away
                for i in range(3, 7):  # now five wait: indexed at once, in one commit
                    store.add(rec(i, f"page {i}"))
                store.flush_sync()
                assert await until({1, 2, 3, 4, 5, 6}, 10)
            finally:
                indexer.close()
                await task

        try:
            asyncio.run(main())
        finally:
            indexer.close()
        assert [n for n in commits if n] == [1, 5]


def test_a_rebuild_beside_a_crawl_is_polite(tmp_path: Path) -> None:
    """``polite`` (a crawl runs): one indexing thread, the pages added a few at a time with
    rests (as catching up beside a crawl does), in a thread of low CPU priority; otherwise
    both cores, the pages a batch at a time, the caller's priority."""
    import os
    import threading

    import crawler_gui.engine.indexer as indexer_module

    with PageStore.open(tmp_path / "pages") as store:
        for i in range(1, 71):
            store.add_extraction(store.add(rec(i, f"page {i}")), article(f"word{i} 新闻"))
        store.flush_sync()
        indexer = SearchIndexer.open(store, tmp_path, extracting=False)
        indexer.batch = 60
        sizes: list[int] = []
        seen: list[tuple[int, int]] = []  # (writer threads, nice) at each add
        real_add = indexer.index.add_many

        def add_many(docs, replace=True):  # type: ignore[no-untyped-def]
            docs = list(docs)
            assert not replace  # a rebuild's own pages: nothing to replace
            if not docs:  # (the read that finds nothing more)
                return real_add(docs, replace=replace)
            sizes.append(len(docs))
            tid = threading.get_native_id()
            nice = os.getpriority(os.PRIO_PROCESS, tid) if hasattr(os, "getpriority") else 0
            seen.append((indexer.index.writer_threads, nice))
            return real_add(docs, replace=replace)

        indexer.index.add_many = add_many  # type: ignore[method-assign]
        mine = os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else 0
        try:
            polite = asyncio.run(indexer.rebuild_in_thread(polite=True))
            assert polite == 70 and len(indexer.search("新闻", limit=100)) == 70
            chunk = indexer_module.PACE_CHUNK
            assert sizes == [chunk, chunk, 60 - 2 * chunk, 10]
            assert {threads for threads, _ in seen} == {WRITER_THREADS}
            if hasattr(os, "getpriority"):
                assert all(nice >= max(mine, indexer_module.INDEX_NICE) for _, nice in seen)
            sizes.clear()
            seen.clear()
            assert asyncio.run(indexer.rebuild_in_thread()) == 70
            assert sizes == [60, 10]
            assert seen == [(BULK_THREADS, mine), (BULK_THREADS, mine)]
            assert len(indexer.search("新闻", limit=100)) == 70
        finally:
            indexer.close()
