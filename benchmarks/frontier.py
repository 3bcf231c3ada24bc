"""Frontier benchmark: crawler-gui's durable LevelDB pool against a faithful in-memory copy of
the seed's UrlPool (with its UrlDB on LevelDB for the final states).

Workload, for N URLs over H hosts (default 1,000,000 over 10,000, then 3,000,000):
add in batches of 10,000; pop in batches of 1,000 until empty, set_status (200) for each.
Each run is a separate process, so its peak RSS is its own.

    python benchmarks/frontier.py                 # both sizes, both pools
    python benchmarks/frontier.py --urls 200000   # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

BATCH_ADD = 10_000
BATCH_POP = 1_000


def url_batches(n: int, hosts: int) -> Any:
    """URLs as a crawl discovers them: interleaved over hosts, realistic lengths."""
    batch: list[str] = []
    for i in range(n):
        h = i % hosts
        batch.append(f"http://news{h}.example{h % 97}.com/2026/11/30/article-{i // hosts}-{i}.html")
        if len(batch) == BATCH_ADD:
            yield batch
            batch = []
    if batch:
        yield batch


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_peak = {"anon": 0.0}


def sample_anon() -> None:
    """Track the peak of anonymous memory (RssAnon): the process's own allocations, without
    the file pages LevelDB maps to read its tables (RssFile, reclaimable page cache)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    _peak["anon"] = max(_peak["anon"], int(line.split()[1]) / 1024)
                    return
    except OSError:
        pass


def run_ours(n: int, hosts: int, where: Path) -> dict[str, Any]:
    from crawler_gui.core.leveldb import LevelDBPool
    from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig

    cfg = PoolConfig(politeness=Politeness(min_delay=0.0, delay_factor=0.0), pending_threshold=3600)
    base_rss = rss_mb()

    async def main() -> dict[str, Any]:
        pool = await LevelDBPool.open_async(where, cfg)
        t_add = 0.0
        for batch in url_batches(n, hosts):
            t0 = time.perf_counter()
            await pool.add_many(batch)
            t_add += time.perf_counter() - t0
            sample_anon()
        assert (await pool.snapshot()).totals.waiting == n
        await pool.close()
        t0 = time.perf_counter()
        pool = await LevelDBPool.open_async(where, cfg)
        t_reopen = time.perf_counter() - t0
        ok = FetchResult(status=200, elapsed=0.05)
        t_pop = t_set = 0.0
        popped = 0
        while True:
            t0 = time.perf_counter()
            leases = await pool.pop(BATCH_POP, 0)
            t1 = time.perf_counter()
            if not leases:
                break
            await pool.set_status_many([(lease.url, ok) for lease in leases])
            t2 = time.perf_counter()
            t_pop += t1 - t0
            t_set += t2 - t1
            popped += len(leases)
            if popped % 100_000 < BATCH_POP:
                sample_anon()
        totals = (await pool.snapshot()).totals
        assert popped == n and totals.done == n, (popped, totals)
        await pool.close()
        return {"add": t_add, "reopen": t_reopen, "pop": t_pop, "set": t_set}

    t = asyncio.run(main())
    return {**t, "peak_rss_mb": rss_mb(), "base_rss_mb": base_rss, "peak_anon_mb": _peak["anon"]}


def run_seed(n: int, hosts: int, where: Path) -> dict[str, Any]:
    from seed_urlpool import UrlPool

    base_rss = rss_mb()
    pool = UrlPool(str(where / "seed"))
    t_add = 0.0
    for batch in url_batches(n, hosts):
        t0 = time.perf_counter()
        pool.addmany(batch)
        t_add += time.perf_counter() - t0
        sample_anon()
    t_pop = t_set = 0.0
    popped = 0
    while True:
        t0 = time.perf_counter()
        urls = pool.pop(BATCH_POP, 0)
        t1 = time.perf_counter()
        if not urls:
            break
        for url in urls:
            pool.set_status(url, 200)
        t2 = time.perf_counter()
        t_pop += t1 - t0
        t_set += t2 - t1
        popped += len(urls)
    assert popped == n, popped
    return {
        "add": t_add,
        "reopen": None,
        "pop": t_pop,
        "set": t_set,
        "peak_rss_mb": rss_mb(),
        "base_rss_mb": base_rss,
        "peak_anon_mb": _peak["anon"],
    }


def child(kind: str, n: int, hosts: int) -> None:
    where = Path(tempfile.mkdtemp(prefix="frontier-bench-"))
    try:
        result = run_ours(n, hosts, where / "pool") if kind == "ours" else run_seed(n, hosts, where)
        result["disk_mb"] = sum(f.stat().st_size for f in where.rglob("*") if f.is_file()) / 1e6
    finally:
        shutil.rmtree(where, ignore_errors=True)
    print(json.dumps(result))


def report(kind: str, n: int, r: dict[str, Any]) -> str:
    per_url = (r["peak_rss_mb"] - r["base_rss_mb"]) * 1024 * 1024 / n
    reopen = f"{r['reopen']:.2f} s" if r["reopen"] is not None else "n/a (pickled at exit)"
    return (
        f"{kind:<22} {n:>9,} URLs | add {n / r['add']:>9,.0f}/s | pop {n / r['pop']:>9,.0f}/s | "
        f"set_status {n / r['set']:>9,.0f}/s | pop+set {n / (r['pop'] + r['set']):>9,.0f}/s | "
        f"peak RSS {r['peak_rss_mb']:>6.0f} MB ({per_url:,.0f} B/URL over baseline "
        f"{r['base_rss_mb']:.0f} MB; anonymous {r['peak_anon_mb']:.0f} MB) | reopen {reopen} | "
        f"disk {r['disk_mb']:.0f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, nargs="*", default=[1_000_000, 3_000_000])
    ap.add_argument("--hosts", type=int, default=10_000)
    ap.add_argument("--only", choices=["ours", "seed"])
    ap.add_argument("--child", choices=["ours", "seed"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.urls[0], args.hosts)
        return
    for n in args.urls:
        for kind in ("ours", "seed"):
            if args.only and kind != args.only:
                continue
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    kind,
                    "--urls",
                    str(n),
                    "--hosts",
                    str(args.hosts),
                ],
                capture_output=True,
                text=True,
                check=False,
                env={**os.environ, "PYTHONHASHSEED": "0"},
            )
            if out.returncode != 0:
                print(f"{kind} at {n}: failed\n{out.stderr[-2000:]}")
                continue
            name = "crawler-gui (LevelDB)" if kind == "ours" else "seed UrlPool (memory)"
            print(report(name, n, json.loads(out.stdout.strip().splitlines()[-1])), flush=True)


if __name__ == "__main__":
    main()
