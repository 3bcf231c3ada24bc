"""Search over many stored pages: build rate, index size, first-results latency, filters, and the
event loop while indexing.

The corpus is synthetic and deterministic (``--seed``), made here: half Chinese and half English
pages, nine in ten articles and one in ten list pages (title only), from 600 hosts of which one,
``small.example.org``, has one page in a thousand. Article text is of typical news length (a
log-normal length, median about 800 Chinese characters or 550 English words, the medians of real
news pages), made of sentences of Zipf-distributed words (so there are common and rare words),
and each article carries one term of its own (a rare term: one page). Status codes: mostly 200,
some 404 and 301.

Measures, printing each target with its figure:

* the index build rate (pages/s) as a rebuild adds pages (``SearchIndex.add_many`` of 500 in
  commits of 60,000, with a rebuild's indexing threads: ``SearchIndex.bulk``; each URL once,
  to an emptied index, so with nothing to replace: ``replace=False``), by the wall
  clock and per CPU second of the process (tantivy's indexing and merging threads included;
  the corpus's generation excluded). On a shared machine the CPU-second rate is the one that
  counts: the wall clock then measures the other processes;
* the index size against the extracted text (title and article) it covers;
* first results (the newest 50) for a common and a rare term, Chinese and English, words of
  one and two Chinese characters, warm (the median of 5) and cold: the index's files dropped
  from the OS page cache (``posix_fadvise(DONTNEED)``, which needs no root and touches no
  other process's cache), the index opened again and its newest page looked up (as the
  window's indexer does when it opens it; timed apart), one search each; and "cold, open":
  the pages of an index left open evicted (its maps' pages let go, then dropped), as a
  crawl's index is after days of other reads;
* the same with a filter: the small host, status 4xx, list pages;
* with ``--loop``: the event loop's worst stall while ``SearchIndexer`` indexes a page store that
  a simulated crawl keeps adding pages to, and the indexer's rate from the store (LevelDB reads
  and JSON decoding included).

The index goes to a temporary folder (``--dir``: on a disk, not ``/dev/shm``, for the cold
figures to mean anything) that is deleted at the end. A million pages take about 4 GB of text
generated on the fly (never held in memory) and an index of about two thirds of that.

    python benchmarks/search.py [--pages 1000000] [--dir DIR]
    python benchmarks/search.py --loop [--pages 50000]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from crawler_gui.engine.indexer import BATCH, REBUILD_BATCH
from crawler_gui.engine.search import BULK_THREADS, SearchDoc, SearchIndex

HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 3500)]
RARE_HAN = "\u9f98"  # 龘: in one Chinese article in 5,000, outside the words' characters
LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOCABULARY = 60_000
SENTENCES = 20_000
SMALL_HOST = "small.example.org"
LIMIT = 50
TARGET_MS = 200.0
TARGET_RATE = 5_000.0
TARGET_STALL_MS = 50.0


class Corpus:
    """The synthetic pages, and the terms the searches look for."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.zh_words = [
            "".join(rng.sample(HAN, rng.choice((2, 2, 2, 3, 4)))) for _ in range(VOCABULARY)
        ]
        self.en_words = [
            "".join(rng.choices(LETTERS, k=rng.randint(3, 10))) for _ in range(VOCABULARY)
        ]
        cum = list(itertools.accumulate(1 / (rank + 1) for rank in range(VOCABULARY)))  # Zipf
        self.zh_sentences = [
            "".join(rng.choices(self.zh_words, cum_weights=cum, k=rng.randint(6, 20)))
            + rng.choice("，。。")
            for _ in range(SENTENCES)
        ]
        self.en_sentences = [
            " ".join(rng.choices(self.en_words, cum_weights=cum, k=rng.randint(8, 25))).capitalize()
            + "."
            for _ in range(SENTENCES)
        ]
        self.seed = seed
        self.rare: dict[str, str] = {}  # "cn"/"com" -> one page's own term

    def docs(self, n: int) -> Iterator[SearchDoc]:
        rng = random.Random(self.seed + 1)
        for seq in range(1, n + 1):
            chinese = seq % 2 == 0
            is_list = seq % 10 in (0, 5)
            unique = ""
            if chinese:
                title = rng.choice(self.zh_sentences)[:24]
                if is_list:
                    text = ""
                else:
                    chars = min(int(rng.lognormvariate(math.log(800), 0.8)), 12_000)
                    unique = "".join(rng.sample(HAN, 4))
                    text = "".join(rng.choices(self.zh_sentences, k=max(1, chars // 26))) + unique
                    if seq % 10_000 == 2:
                        text += "，" + RARE_HAN
                tld = "cn"
            else:
                title = rng.choice(self.en_sentences)[:90]
                if is_list:
                    text = ""
                else:
                    words = min(int(rng.lognormvariate(math.log(550), 0.7)), 8_000)
                    unique = "q" + format(rng.getrandbits(48), "x")
                    text = " ".join(rng.choices(self.en_sentences, k=max(1, words // 16)))
                    text += " " + unique
                tld = "com"
            if unique and seq >= n // 4 and tld not in self.rare:
                self.rare[tld] = unique  # an old page's own term: the whole index is newer
            host = SMALL_HOST if seq % 1000 == 7 else f"www.news{seq * 7919 % 599}.example.{tld}"
            roll = seq * 2654435761 % 100
            status = 404 if roll < 3 else 301 if roll < 5 else 200
            yield SearchDoc(
                seq=seq,
                url=f"https://{host}/{'list' if is_list else 'a'}/{seq}.html",
                host=host,
                title=title,
                text=text,
                kind="list" if is_list else "article",
                status=status,
                fetched_at=1_700_000_000.0 + seq,
            )


def drop_from_cache(path: Path) -> bool:
    """Drop the index's files from the OS page cache (clean pages once synced; a file still
    mapped by an open index would keep its pages, so the index is closed before)."""
    if not hasattr(os, "posix_fadvise"):
        return False
    for name in path.iterdir():
        if not name.is_file():
            continue
        fd = os.open(name, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return True


def evict_open_index(path: Path) -> bool:
    """Drop the pages of an index that is open in this process from the OS page cache: its
    maps' pages are let go (``madvise(MADV_DONTNEED)``: the file's pages stay in the cache,
    no longer mapped here), then dropped (:func:`drop_from_cache`). A crawl that has run for
    days has the index open and most of its pages pushed out by other reads: this is its
    first search, where a new open reads the ends of every file through the read-ahead."""
    import ctypes

    if not sys.platform.startswith("linux"):
        return False
    madvise = ctypes.CDLL(None, use_errno=True).madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    prefix = os.path.realpath(path) + os.sep
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].rstrip("\n").startswith(prefix):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                madvise(start, end - start, 4)  # MADV_DONTNEED
    return drop_from_cache(path)


def read_ahead_kb(path: Path) -> int | None:
    """The read-ahead (kB) of the block device holding ``path`` (Linux; None elsewhere): how
    much a page fault on a mapped file would read around it without ``madvise`` (the index
    advises random reads, see ``engine.search.advise_random``)."""
    st = os.stat(path)
    base = Path(f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    for queue in (base / "queue", base / ".." / "queue"):  # (a disk, or a partition of one)
        try:
            return int((queue / "read_ahead_kb").read_text())
        except (OSError, ValueError):
            continue
    return None


def timed(index: SearchIndex, term: str, runs: int, **filters: object) -> tuple[float, int]:
    """The median time of a search (ms) and how many results it gave (at most ``LIMIT``)."""
    times = []
    hits = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        hits = len(index.search(term, limit=LIMIT, **filters))  # type: ignore[arg-type]
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, hits


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def build(index: SearchIndex, corpus: Corpus, pages: int) -> tuple[float, float, float, int]:
    """Index the corpus as a rebuild does (``add_many`` of :data:`BATCH` pages in commits of
    :data:`REBUILD_BATCH`, in :meth:`SearchIndex.bulk`, nothing to replace); returns wall and
    CPU seconds in them (tantivy's indexing and merging threads included: the process's CPU
    time), the final merge's wall seconds, and the bytes of text indexed."""
    wall = cpu = 0.0
    text_bytes = 0
    batch: list[SearchDoc] = []
    report = max(pages // 10, REBUILD_BATCH)
    done = 0

    def flush() -> None:
        nonlocal wall, cpu, done
        w0, c0 = time.perf_counter(), time.process_time()
        with index.transaction():
            for i in range(0, len(batch), BATCH):
                # (each URL once, to an emptied index: nothing to replace, as in a rebuild)
                index.add_many(batch[i : i + BATCH], replace=False)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        done += len(batch)
        batch.clear()
        if done % report < REBUILD_BATCH:
            print(
                f"  ... {done:,} pages: {done / wall:,.0f} pages/s so far "
                f"({done / cpu:,.0f} per CPU second)",
                flush=True,
            )

    with index.bulk():
        for d in corpus.docs(pages):
            text_bytes += len(d.text.encode()) + len(d.title.encode())
            batch.append(d)
            if len(batch) == REBUILD_BATCH:
                flush()
        if batch:
            flush()
        w0, c0 = time.perf_counter(), time.process_time()
        index.optimize()
        opt = time.perf_counter() - w0
        cpu += time.process_time() - c0
    return wall, cpu, opt, text_bytes


def search_bench(pages: int, seed: int, where: Path) -> None:
    path = where / "search"
    index = SearchIndex(path)
    corpus = Corpus(seed)
    print(f"building the index of {pages:,} synthetic pages in {where} ...", flush=True)
    wall, cpu, opt, text_bytes = build(index, corpus, pages)
    rate = pages / wall
    cpu_rate = pages / cpu
    print(
        f"index build: {rate:,.0f} pages/s wall, {cpu_rate:,.0f} pages per CPU second "
        f"({pages:,} pages in {wall:.0f} s, commits of {REBUILD_BATCH:,}, {BULK_THREADS} indexing "
        f"threads); the merges waited "
        f"for at the end {opt:.0f} s more ({pages / (wall + opt):,.0f} pages/s with them; "
        f"the CPU figure includes them) [target >= {TARGET_RATE:,.0f} pages/s, per CPU "
        f"second on a shared machine: {verdict(cpu_rate >= TARGET_RATE)}]"
    )
    size = index.size_bytes()
    print(
        f"index size: {size / 1e6:,.0f} MB for {text_bytes / 1e6:,.0f} MB of extracted text "
        f"(title and article, UTF-8): {size / max(text_bytes, 1):.2f}x"
    )
    index.close()
    del index
    zh_rare, en_rare = corpus.rare["cn"], corpus.rare["com"]
    two_char = next(w for w in corpus.zh_words[2000:] if len(w) == 2)  # a less common word
    common_two = next(w for w in corpus.zh_words if len(w) == 2)
    common_long = next(w for w in corpus.zh_words if len(w) >= 3)
    cases: list[tuple[str, str, dict[str, object]]] = [
        ("Chinese common", common_long, {}),
        ("Chinese rare", zh_rare, {}),
        ("Chinese 2-char common", common_two, {}),
        ("Chinese 2-char rare", two_char, {}),
        ("Chinese 1-char common", corpus.zh_words[0][0], {}),
        ("Chinese 1-char rare", RARE_HAN, {}),
        # (the last character of the commonest word: thousands of words follow it, so it
        # starts thousands of pairs, as 的 does in real text)
        ("Chinese 1-char, 3k pairs", corpus.zh_words[0][-1], {}),
        ("Chinese common+common", corpus.zh_words[0] + corpus.zh_words[5], {}),
        ("English common", corpus.en_words[2], {}),
        ("English rare", en_rare, {}),
        ("English common+common", f"{corpus.en_words[0]} {corpus.en_words[5]}", {}),
        ("common + small host", corpus.en_words[2], {"host": SMALL_HOST}),
        ("common + host (domain)", common_long, {"host": "example.cn"}),
        ("common + 4xx", corpus.en_words[2], {"status_class": 4}),
        ("common + list pages", common_long, {"kinds": ("list",)}),
        ("rare + small host", en_rare, {"host": SMALL_HOST}),
    ]
    worst = 0.0
    index = SearchIndex(path)
    for label, term, filters in cases:
        ms, hits = timed(index, term, 5, **filters)
        worst = max(worst, ms)
        print(f"  warm  {label:<24} {term!r:<16} {ms:7.1f} ms  {hits:>2} results")
    index.close()
    del index
    ahead = read_ahead_kb(path)
    if ahead is not None:
        print(f"  (the disk's read-ahead: {ahead:,} kB; the index's maps are advised random reads)")
    cold = True
    tops = []
    for label, term, filters in cases:
        cold = drop_from_cache(path) and cold
        fresh = SearchIndex(path)
        # As the window's indexer does as soon as it opens the index (where it goes on
        # from): then searches know where the newest pages are.
        t0 = time.perf_counter()
        fresh.last_seq()
        tops.append((time.perf_counter() - t0) * 1000)
        ms, hits = timed(fresh, term, 1, **filters)
        fresh.close()
        del fresh
        worst = max(worst, ms)
        kind = "cold" if cold else "fresh"
        print(f"  {kind:<5} {label:<24} {term!r:<16} {ms:7.1f} ms  {hits:>2} results")
    print(
        f"  (the newest page looked up when the index opened, before each cold search: "
        f"{min(tops):.0f}-{max(tops):.0f} ms)"
    )
    index = SearchIndex(path)
    index.last_seq()
    for label, term, filters in cases:
        if not evict_open_index(path):
            break
        ms, hits = timed(index, term, 1, **filters)
        worst = max(worst, ms)
        print(f"  cold, open {label:<24} {term!r:<16} {ms:7.1f} ms  {hits:>2} results")
    index.close()
    del index
    print(
        f"first results: worst {worst:.1f} ms [target <= {TARGET_MS:.0f} ms: "
        f"{verdict(worst <= TARGET_MS)}]"
        + ("" if cold else " (no posix_fadvise: 'fresh' is a new index reader only)")
    )


def loop_stall(pages: int, seed: int, where: Path) -> None:
    """The loop's worst stall while the indexer catches up with a store being filled."""
    import asyncio

    from crawler_gui.engine.indexer import SearchIndexer
    from crawler_gui.engine.store import PageRecord, PageStore

    store = PageStore.open(where / "pages")
    docs = Corpus(seed).docs(10**9)  # (lazy: as many as the crawl below adds)

    def add(d: SearchDoc) -> None:
        rec = PageRecord(
            d.url, d.url, d.status, time.time() - 60, "text/html", "utf-8", d.title, 1,
            len(d.text), 0.1, None, (),
        )  # fmt: skip
        seq = store.add(rec)
        art = {"title": d.title, "text": d.text} if d.kind == "article" else None
        store.add_extraction(seq, {"kind": d.kind, "why": "bench", "article": art})

    print(f"storing {pages:,} pages ...", flush=True)
    for _ in range(pages):
        add(next(docs))
    store.flush_sync()
    indexer = SearchIndexer.open(store, where, extracting=True)

    async def run() -> tuple[list[float], list[float], float, int]:
        stalls: list[float] = []  # how late each 5 ms sleep woke up
        stop = False

        async def ticker() -> None:
            loop = asyncio.get_running_loop()
            while not stop:
                t = loop.time()
                await asyncio.sleep(0.005)
                stalls.append(loop.time() - t - 0.005)

        async def crawl() -> int:  # 200 pages/s stored with their extractions
            n = 0
            while not stop:
                for _ in range(20):
                    add(next(docs))
                    n += 1
                await asyncio.sleep(0.1)
            return n

        tick = asyncio.create_task(ticker())
        crawler = asyncio.create_task(crawl())
        await asyncio.sleep(10.0)  # the baseline: the same loop and crawl, no indexing
        baseline = stalls[:]
        stalls.clear()
        job = asyncio.create_task(indexer.run(interval=0.2))
        t0 = time.perf_counter()
        # Until the pages stored before have been indexed (the crawl may add pages faster than
        # a loaded machine indexes them). last_seq() reads the index: in a thread, as the
        # window does, never on the loop.
        while await asyncio.to_thread(indexer.index.last_seq) < pages:
            await asyncio.sleep(0.2)
        took = time.perf_counter() - t0
        stop = True
        job.cancel()
        added = await crawler
        await asyncio.gather(tick, job, return_exceptions=True)
        return baseline, stalls, took, added

    def summary(stalls: list[float]) -> str:
        ms = sorted(x * 1000 for x in stalls)
        over = sum(1 for x in ms if x > TARGET_STALL_MS)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        return (
            f"worst {ms[-1]:.1f} ms, p99 {p99:.1f} ms, {over} of {len(ms):,} ticks "
            f"over {TARGET_STALL_MS:.0f} ms"
        )

    baseline, stalls, took, added = asyncio.run(run())
    indexed = indexer.index.last_seq()
    print(
        f"indexer indexed {pages:,} stored pages (+{added:,} stored meanwhile) in "
        f"{took:.1f} s: {indexed / took:,.0f} pages/s from the page store (batches of "
        f"{indexer.batch})"
    )
    print(f"  the loop while indexing: {summary(stalls)}")
    print(f"  the loop without indexing (10 s, the same crawl): {summary(baseline)}")
    print(
        f"loop stall: worst {max(stalls) * 1000:.1f} ms [target <= {TARGET_STALL_MS:.0f} ms: "
        f"{verdict(max(stalls) * 1000 <= TARGET_STALL_MS)}]"
    )
    indexer.close()
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, default=None, help="where the temporary index goes")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--loop", action="store_true", help="measure the loop while indexing")
    args = ap.parse_args()
    if args.pages < 100:
        ap.error("--pages: at least 100")
    where = Path(tempfile.mkdtemp(prefix="search-bench-", dir=args.dir))
    try:
        if args.loop:
            loop_stall(args.pages, args.seed, where)
        else:
            search_bench(args.pages, args.seed, where)
    finally:
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
