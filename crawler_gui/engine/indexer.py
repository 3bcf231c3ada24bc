"""Keeps a pool's search index (``engine.search``) up to date with its page store.

The indexer reads the page store from where the index stops (``SearchIndex.last_seq``) in
batches, in a worker thread, and adds each page with its title and, for an article, its text.
A page still waiting for its extraction is not indexed yet (for at most
:data:`EXTRACTION_WAIT` seconds after its fetch: an extraction that takes longer, or never
comes, leaves the page indexed by URL and title). ``rebuild`` starts again from nothing.

It is synchronous and thread-confined like ``SearchIndex``; :meth:`SearchIndexer.run` is the
asyncio loop that calls it through ``asyncio.to_thread`` (the event loop never waits on SQLite
or LevelDB).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from crawler_gui.engine.search import SearchDoc, SearchIndex
from crawler_gui.engine.store import PageStore

__all__ = [
    "COMMIT_PAGES",
    "COMMIT_SECONDS",
    "EXTRACTION_WAIT",
    "INDEX_DIRNAME",
    "REBUILD_BATCH",
    "SearchIndexer",
]

log = logging.getLogger(__name__)

#: The index's folder in the pool folder.
INDEX_DIRNAME = "search"
#: The index file of schema 2 (SQLite FTS5), deleted when the folder is made.
OLD_INDEX_FILENAME = "search.sqlite"
#: Seconds a page waits for its extraction before it is indexed without article text.
EXTRACTION_WAIT = 30.0
#: Pages read and indexed per transaction while catching up with a crawl.
BATCH = 500
#: Seconds between two commits while the index follows a crawl (:meth:`SearchIndexer.run`),
#: unless :data:`COMMIT_PAGES` pages are waiting: searches see a page this much later at most
#: (after its extraction).
COMMIT_SECONDS = 15.0
#: Pages that make the indexer following a crawl commit at once (read :data:`BATCH` at a time,
#: in one commit). Each commit writes a segment that tantivy merges again and again later, so
#: the size of a commit sets the CPU a page costs: 8,000 pages of ``benchmarks/search.py``
#: committed 60 at a time (a commit a second at 60 pages/s) took 447 pages per CPU second, 300
#: at a time 1,015, 500 at a time 1,709, 2,000 at a time 3,566.
COMMIT_PAGES = 2_000
#: Pages indexed between two rests while the index follows a crawl (:meth:`SearchIndexer.run`).
PACE_CHUNK = 25
#: Pages per commit in a rebuild (read and added :data:`BATCH` at a time, so a cancel or a
#: progress report waits for one of those): each commit writes a segment per indexing thread
#: (of ``engine.search.BULK_HEAP``, which holds them), and fewer, larger segments mean less
#: merging and fewer segments for a cold search to look into (a search meanwhile reads the
#: last commit). Measured at 200,000 pages with two threads: 4,213 pages/s in commits of
#: 20,000 (96 MB a thread), 5,020 in commits of 60,000 (256 MB a thread).
REBUILD_BATCH = 60_000
#: The CPU priority (nice value) of the thread that keeps the index up to date beside a crawl,
#: and of the index writer's threads it starts: the crawl (its loop, its extraction workers)
#: comes first on a small machine, and the index catches up when they leave it time.
INDEX_NICE = 15


def _lower_priority() -> None:
    """Give this thread (and the threads it starts) the priority :data:`INDEX_NICE`, where the
    system allows it (Linux: a nice value per thread; elsewhere nothing changes)."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < INDEX_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, INDEX_NICE)


def _doc(row: Any, ex: dict[str, Any] | None) -> SearchDoc:
    r = row.record
    art = ex.get("article") if ex else None
    text = str(art.get("text") or "") if isinstance(art, dict) else ""
    return SearchDoc(
        seq=row.seq,
        url=r.final_url,
        host=(urlsplit(r.final_url).hostname or "").lower(),
        title=r.title or (str(art.get("title") or "") if isinstance(art, dict) else ""),
        text=text,
        kind=row.kind,
        status=r.status,
        fetched_at=r.fetched_at,
    )


class SearchIndexer:
    """Indexes the pages of ``store`` into ``index``."""

    def __init__(
        self,
        store: PageStore,
        index: SearchIndex,
        *,
        extracting: bool,
        clock: Callable[[], float] = time.time,
        batch: int = BATCH,
        rebuild_batch: int = REBUILD_BATCH,
        commit_pages: int = COMMIT_PAGES,
    ) -> None:
        self.store = store
        self.index = index
        self.extracting = extracting
        self.clock = clock
        self.batch = batch
        self.rebuild_batch = rebuild_batch
        self.commit_pages = commit_pages
        self._lock = threading.Lock()  # one catch-up or rebuild at a time
        self._stop = False

    @classmethod
    def open(cls, store: PageStore, pool_dir: Path | str, *, extracting: bool) -> SearchIndexer:
        """The indexer of the index folder in ``pool_dir`` (made when missing: the indexer then
        catches up from the first stored page). The index file of schema 2 is deleted: it is
        derived from the page store, and the new index is made from it again."""
        index = SearchIndex(Path(pool_dir) / INDEX_DIRNAME)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                (Path(pool_dir) / f"{OLD_INDEX_FILENAME}{suffix}").unlink()
        return cls(store, index, extracting=extracting)

    def catch_up_once(self, *, wait: bool = True) -> int:
        """Index the next batch of stored pages; returns how many were indexed (0: up to date
        or waiting for an extraction). ``wait=False`` indexes pages without waiting."""
        with self._lock:
            return self._catch_up(wait)[0]

    def _catch_up(
        self,
        wait: bool,
        *,
        pace: bool = False,
        after: int | None = None,
        fresh_until: int = 0,
    ) -> tuple[int, int | None]:
        """Index the next batch of stored pages after ``after`` (by default where the index
        stops); returns how many were indexed and the sequence number of the last page read
        (None: none read).

        Pages up to ``fresh_until`` are a rebuild's, added to an emptied index: a page whose
        URL was fetched again later is skipped (the newer fetch is indexed instead) and the
        others are added without looking for an older document of their URL (there is
        none). Later pages (stored while the rebuild ran) replace their URL's document."""
        if self.store.closed:
            return 0, None
        rows = self.store.iter_rows_from(
            self.index.last_seq() if after is None else after, self.batch
        )
        now = self.clock()
        docs: list[SearchDoc] = []
        fresh = True  # the pages in ``docs`` are the rebuild's own (see above)
        added = 0
        last: int | None = None
        started = time.perf_counter()
        for row, ex in rows:
            if self._stop:  # closing: a stop does not wait for the rest of the batch
                break
            r = row.record
            if (
                wait
                and self.extracting
                and ex is None
                and "html" in r.content_type.lower()
                and now - r.fetched_at < EXTRACTION_WAIT
            ):
                break  # in order: the pages after it wait too
            last = row.seq
            is_fresh = row.seq <= fresh_until
            if is_fresh and self.store.seq_of(r.final_url) != row.seq:
                continue  # fetched again since: that fetch is the one indexed
            if docs and is_fresh != fresh:
                added += self.index.add_many(docs, replace=not fresh)
                docs = []
            fresh = is_fresh
            docs.append(_doc(row, ex))
            if pace and len(docs) >= PACE_CHUNK:
                added += self.index.add_many(docs, replace=not fresh)
                docs = []
                # Reading, decoding and indexing pages is Python work holding the GIL, and a
                # thread that keeps it busy makes the crawl's loop wait for it at every switch
                # (the window stalled 60-120 ms and crawled a fifth slower). Resting as long as
                # the chunk took leaves the loop the GIL at least half the time; the index
                # still keeps up many times over with any crawl's rate.
                time.sleep(time.perf_counter() - started)
                started = time.perf_counter()
        return added + self.index.add_many(docs, replace=not fresh), last

    def pending(self) -> int:
        """Stored pages not indexed yet (an estimate from sequence numbers)."""
        return max(0, self.store.last_written_seq() - self.index.last_seq())

    def rebuild(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        *,
        polite: bool = False,
    ) -> int:
        """Drop the index and index every stored page again, each URL at its newest fetch
        (an older fetch is skipped, and nothing is replaced: the index was emptied);
        ``progress(done, total)`` after each batch, in sequence numbers read; stops (leaving a
        partial index that later catch-ups complete) when ``cancelled()`` says so. Returns the
        pages indexed.

        ``polite``: beside a crawl. The writer keeps its one indexing thread (no
        :meth:`SearchIndex.bulk`) and the pages are added in chunks with a rest after each, as
        catching up does (the Python work holds the GIL the crawl's loop needs); the calling
        thread should be of low priority too (:meth:`rebuild_in_thread` does both). Otherwise
        it takes every core it can: :data:`~crawler_gui.engine.search.BULK_THREADS`."""
        with self._lock, contextlib.nullcontext() if polite else self.index.bulk():
            total = self.store.last_written_seq()
            self.index.clear()
            done = 0
            cursor = 0  # the sequence number of the last page read
            stopped = False
            while not stopped:
                in_transaction = 0
                with self.index.transaction():
                    while in_transaction < self.rebuild_batch:
                        if self._stop or (cancelled is not None and cancelled()):
                            stopped = True
                            break
                        n, last = self._catch_up(
                            False, pace=polite, after=cursor, fresh_until=total
                        )
                        if last is None:
                            stopped = True
                            break
                        cursor = last
                        in_transaction += n
                        done += n
                        if progress is not None:
                            progress(min(cursor, total), total)
            if not polite and not self._stop and not (cancelled is not None and cancelled()):
                self.index.optimize()
            return done

    async def rebuild_in_thread(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        *,
        polite: bool = False,
    ) -> int:
        """:meth:`rebuild` in a thread of its own, for the event loop: a ``polite`` one (beside
        a crawl) at the CPU priority :data:`INDEX_NICE`, which the index writer's threads it
        starts inherit (a thread's priority cannot be raised again without privileges, so
        the thread is made for the rebuild and ends with it)."""
        loop = asyncio.get_running_loop()
        worker = ThreadPoolExecutor(
            1, "search-rebuild", initializer=_lower_priority if polite else None
        )
        try:
            return await loop.run_in_executor(
                worker, functools.partial(self.rebuild, progress, cancelled, polite=polite)
            )
        finally:
            worker.shutdown(wait=False)

    def search(self, query: str, **kwargs: Any) -> list[Any]:
        return self.index.search(query, **kwargs)

    def _follow(self, due: bool) -> int | None:
        """One step of :meth:`run` (in its thread): if a commit is ``due`` or
        :attr:`commit_pages` pages wait, index what waits (up to twice that) in one commit;
        None if it is not time yet."""
        if not due and self.pending() < self.commit_pages:
            return None
        with self._lock:
            if self.store.closed:
                return 0
            done = 0
            with self.index.transaction():  # one segment for all of them
                while done < 2 * self.commit_pages and not self._stop:
                    n = self._catch_up(True, pace=True)[0]
                    done += n
                    if n < self.batch:
                        break  # caught up, or the next page waits for its extraction
            return done

    async def run(self, interval: float = 1.0, commit_seconds: float | None = None) -> None:
        """Keep the index up to date until cancelled or :meth:`close`, in a thread of its own
        at a low CPU priority (:data:`INDEX_NICE`): a commit every ``commit_seconds``
        (:data:`COMMIT_SECONDS`; the first at once), or as soon as :attr:`commit_pages` pages
        wait."""
        if commit_seconds is None:
            commit_seconds = COMMIT_SECONDS
        loop = asyncio.get_running_loop()
        worker = ThreadPoolExecutor(1, "search-index", initializer=_lower_priority)
        next_commit = 0.0
        try:
            while not self._stop:
                due = time.monotonic() >= next_commit
                try:
                    n = await loop.run_in_executor(worker, functools.partial(self._follow, due))
                except Exception as exc:  # the store or the index went away (closed, failed)
                    if self._stop or self.store.closed:
                        return
                    log.warning("the search index stopped: %s", exc)
                    return
                if n is not None:
                    next_commit = time.monotonic() + commit_seconds
                await asyncio.sleep(0 if n is not None and n >= 2 * self.commit_pages else interval)
        finally:
            worker.shutdown(wait=False)

    def close(self) -> None:
        """Stop :meth:`run` and close the index: a running batch stops at its next page and
        commits what it added; the index's segment merges are not waited for (a stop's bound:
        ``docs/server.md``; the next writer starts them again)."""
        self._stop = True
        with self._lock:
            self.index.close(wait_merges=False)
