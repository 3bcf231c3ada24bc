"""Search over many stored pages: build rate, index size, and first-results latency.

Synthetic pages, half Chinese and half English, of typical news length (about 800 Chinese
characters or 600 English words of article text, plus list pages with titles only), with words
drawn from a Zipf distribution so there are common and rare terms. Measures:

* index build rate (pages/s) through ``SearchIndex.add_many`` in batches, as the crawl does;
* the index size against the extracted text it covers;
* first results (newest 50) for a common and a rare term, in Chinese and in English, with a warm
  cache and with a cold one (a fresh connection after dropping the OS page cache where possible).

* where the build's time goes: preparing the text in Python (CJK bigrams) against SQLite;
* with ``--loop``: the event loop's worst stall while ``SearchIndexer`` indexes a page store
  that a simulated crawl keeps adding pages (with articles) to, and the indexer's rate from the
  store (LevelDB read and JSON decoding included).

    python benchmarks/search.py [--pages 1000000] [--dir DIR]
    python benchmarks/search.py --loop [--pages 50000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from crawler_gui.engine.search import SearchDoc, SearchIndex, prepare_text

BATCH = 500
HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 3500)]


def vocabularies(seed: int) -> tuple[list[str], list[str], list[float]]:
    rng = random.Random(seed)
    zh = ["".join(rng.sample(HAN, rng.choice((2, 2, 2, 3, 4)))) for _ in range(60_000)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    en = ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(60_000)]
    weights = [1 / (rank + 1) for rank in range(60_000)]  # Zipf, s = 1
    return zh, en, weights


def make_docs(n: int, seed: int):
    zh, en, weights = vocabularies(seed)
    rng = random.Random(seed + 1)
    cum = []
    total = 0.0
    for w in weights:
        total += w
        cum.append(total)
    for seq in range(1, n + 1):
        chinese = seq % 2 == 0
        words = zh if chinese else en
        is_list = seq % 10 == 0
        length = 0 if is_list else (320 if chinese else 600)
        picks = rng.choices(words, cum_weights=cum, k=length + 12)
        title_words = picks[:12]
        body = picks[12:]
        if chinese:
            title = "".join(title_words[:6])
            text = "".join("".join(body[i : i + 15]) + "。" for i in range(0, len(body), 15))
        else:
            title = " ".join(title_words[:8]).capitalize()
            text = " ".join(body)
        host = f"news{seq % 500}.example.{'cn' if chinese else 'com'}"
        yield SearchDoc(
            seq=seq,
            url=f"http://{host}/2024/{seq}.html",
            host=host,
            title=title,
            text=text,
            kind="list" if is_list else "article",
            status=200,
            fetched_at=1_700_000_000.0 + seq,
        )


def drop_caches() -> bool:
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def timed_search(index: SearchIndex, term: str, runs: int = 5) -> str:
    """The median time of a search for ``term``, and how many results it gave (at most 50;
    a rare term may have none in a small ``--pages`` index)."""
    times = []
    hits = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        hits = len(index.search(term, limit=50))
        times.append(time.perf_counter() - t0)
    return f"{statistics.median(times) * 1000:7.1f} ms" + ("" if hits else " (no results)")


def preparation_rate(n: int, seed: int) -> float:
    """Pages/s of the Python side of indexing alone (bigrams of title and text)."""
    docs = list(make_docs(n, seed))
    t0 = time.perf_counter()
    for d in docs:
        prepare_text(d.title)
        prepare_text(d.text)
    return n / (time.perf_counter() - t0)


def loop_stall(pages: int, seed: int, where: Path) -> None:
    """The loop's worst stall while the indexer catches up with a store being filled."""
    import asyncio

    from crawler_gui.engine.indexer import SearchIndexer
    from crawler_gui.engine.store import PageRecord, PageStore

    store = PageStore.open(where / "pages")
    docs = make_docs(pages + 20_000, seed)

    def add(d: SearchDoc) -> None:
        seq = store.add(
            PageRecord(
                d.url,
                d.url,
                200,
                time.time() - 60,
                "text/html",
                "utf-8",
                d.title,
                1,
                len(d.text),
                0.1,
                None,
                (),
            )
        )
        art = {"title": d.title, "text": d.text} if d.kind == "article" else None
        store.add_extraction(seq, {"kind": d.kind, "why": "bench", "article": art})

    for _ in range(pages):
        add(next(docs))
    store.flush_sync()
    indexer = SearchIndexer.open(store, where, extracting=True)

    async def run() -> tuple[float, float, float, int]:
        worst = 0.0
        stop = False

        async def ticker() -> None:
            nonlocal worst
            loop = asyncio.get_running_loop()
            while not stop:
                t = loop.time()
                await asyncio.sleep(0.005)
                worst = max(worst, loop.time() - t - 0.005)

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
        await asyncio.sleep(5.0)  # the baseline: the same loop and crawl, no indexing
        baseline = worst
        worst = 0.0
        job = asyncio.create_task(indexer.run(interval=0.2))
        t0 = time.perf_counter()
        # (pending() reads the index: in a thread, as the window does, never on the loop)
        while await asyncio.to_thread(indexer.pending) > 200:
            await asyncio.sleep(0.2)
        took = time.perf_counter() - t0
        stop = True
        job.cancel()
        added = await crawler
        await asyncio.gather(tick, job, return_exceptions=True)
        return baseline, worst, took, added

    baseline, worst, took, added = asyncio.run(run())
    indexed = indexer.index.last_seq()
    print(
        f"indexer caught up with {pages:,} stored pages (+{added:,} added meanwhile) in "
        f"{took:.1f} s: {indexed / took:,.0f} pages/s from the page store; the loop's worst "
        f"stall {worst * 1000:.1f} ms (5 s without indexing: {baseline * 1000:.1f} ms)"
    )
    indexer.close()
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--dir", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--loop", action="store_true", help="measure the loop while indexing")
    args = ap.parse_args()
    if args.loop:
        where = Path(tempfile.mkdtemp(prefix="search-loop-", dir=args.dir))
        try:
            loop_stall(args.pages, args.seed, where)
        finally:
            shutil.rmtree(where, ignore_errors=True)
        return
    where = Path(tempfile.mkdtemp(prefix="search-bench-", dir=args.dir))
    try:
        path = where / "search.sqlite"
        index = SearchIndex(path)
        text_bytes = 0
        batch: list[SearchDoc] = []
        t0 = time.perf_counter()
        worst_batch = 0.0
        for d in make_docs(args.pages, args.seed):
            text_bytes += len(d.text.encode()) + len(d.title.encode())
            batch.append(d)
            if len(batch) == BATCH:
                b0 = time.perf_counter()
                index.add_many(batch)
                worst_batch = max(worst_batch, time.perf_counter() - b0)
                batch.clear()
        index.add_many(batch)
        build = time.perf_counter() - t0
        size = index.size_bytes()
        print(
            f"{args.pages:,} pages indexed in {build:.1f} s: {args.pages / build:,.0f} pages/s "
            f"(batches of {BATCH}, worst batch {worst_batch * 1000:.0f} ms, generation included)"
        )
        prep = preparation_rate(min(args.pages, 20_000), args.seed)
        print(
            f"  of which preparing the text in Python alone runs at {prep:,.0f} pages/s "
            f"({args.pages / prep / build:.0%} of the build time); the rest is SQLite/FTS5"
        )
        print(
            f"index {size / 1e6:,.0f} MB for {text_bytes / 1e6:,.0f} MB of title and article "
            f"text ({size / max(text_bytes, 1):.2f}x)"
        )
        zh, en, _ = vocabularies(args.seed)
        terms = {
            "Chinese common": zh[3],
            "Chinese rare": zh[20_000],
            "English common": en[3],
            "English rare": en[20_000],
        }
        for label, term in terms.items():
            print(f"  warm  {label:<15} {term!r:<14} {timed_search(index, term)}")
        index.close()
        cold = drop_caches()
        for label, term in terms.items():
            if cold:
                drop_caches()
            fresh = SearchIndex(path)
            took = timed_search(fresh, term, runs=1)
            fresh.close()
            print(f"  {'cold' if cold else 'fresh':<5} {label:<15} {term!r:<14} {took}")
        if not cold:
            print("  (could not drop the OS page cache: 'fresh' is a new connection only)")
    finally:
        shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
