"""Benchmark of the Redis pool: memory per URL, pop+set_status throughput for 1-3 workers
(the pool alone), and a real HTTP crawl by 1, 2 and 3 ``crawler-gui crawl redis://...`` worker
processes of the latency-bound demo site.

Starts its own redis-server on loopback (``--save "" --appendonly no``) in a temp folder.
Usage: ``python benchmarks/redis_workers.py [--urls 200000] [--hosts 2000] [--work 30000]
[--http-hosts 120] [--http-articles 20] [--latency 0.2] [--concurrency 16] [--workers 1,2,3]
[--skip-pool]``.

HTTP part: the demo site (every page answers after ``--latency`` seconds) is served from this
benchmark's own event loop on 127.0.0.x, so that its counters (``max_concurrent_by_host``,
``fetch_counts``) can be read directly after each run; the workers are separate processes
(``--until-idle --concurrency 16 --delay 0 --delay-factor 0 --allow-private
--ignore-robots``), each with its own page store, over a fresh Redis pool per run.

Each run's wall clock (from starting the worker processes until the last one has exited) is
split into: *start-up* (until the site receives its first request: interpreter, imports,
joining the pool), the *crawl* (first request to last response, as the site sees them: every
fetch, redirects and 404s included) and the *end* (last response until the last worker has
exited: its last commit, noticing that the pool is idle, closing).

``worker_loop`` is the worker: give it an async ``fetch(lease) -> FetchResult``; here it is a
no-op (the pool alone), the crawl engine plugs its HTTP fetch in later.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crawler_gui.core.frontier import AddRequest, Lease  # noqa: E402
from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig  # noqa: E402
from crawler_gui.core.redis.pool import RedisPool  # noqa: E402
from crawler_gui.demo.site import DemoSite  # noqa: E402
from crawler_gui.engine.session import CrawlSession  # noqa: E402
from crawler_gui.engine.settings import CrawlMode, CrawlSettings  # noqa: E402
from crawler_gui.engine.store import PageStore  # noqa: E402

Fetch = Callable[[Lease], Awaitable[FetchResult]]
CONFIG = PoolConfig(politeness=Politeness(min_delay=0.0, delay_factor=0.0))


async def worker_loop(
    pool: RedisPool,
    fetch: Fetch,
    *,
    batch: int = 50,
    hub_percent: int = 0,
    idle_sleep: float = 0.05,
    stop_when_empty: bool = True,
) -> int:
    """Pop, fetch concurrently, report in one batch; honour the pool-wide pause. Returns the
    number of URLs handled. Stops when the pool has nothing waiting, retrying or in flight."""
    handled = 0
    while True:
        paused, _generation = await pool.control()
        if paused:
            await asyncio.sleep(idle_sleep)
            continue
        leases = await pool.pop(batch, hub_percent)
        if not leases:
            if stop_when_empty:
                t = (await pool.snapshot(retry_limit=0)).totals
                if t.waiting == 0 and t.pending == 0 and t.retrying == 0:
                    return handled
            due = await pool.next_due()
            wait = idle_sleep if due is None else min(idle_sleep, max(0.0, due - time.time()))
            await asyncio.sleep(wait)
            continue
        results = await asyncio.gather(*(fetch(lease) for lease in leases))
        await pool.set_status_many(
            [(lease.url, result) for lease, result in zip(leases, results, strict=True)]
        )
        handled += len(leases)


async def noop_fetch(_lease: Lease) -> FetchResult:
    return FetchResult(status=200)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise SystemExit("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    proc = subprocess.Popen(
        [
            *(exe, "--bind", "127.0.0.1", "--port", str(port)),
            *("--save", "", "--appendonly", "no", "--dir", str(folder)),
        ],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    for _ in range(200):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    client.close()
    return proc, url


def used_memory(url: str) -> int:
    with redis.Redis.from_url(url) as client:
        return int(client.info("memory")["used_memory"])


async def seed(url: str, name: str, urls: int, hosts: int) -> float:
    pool = await RedisPool.open(f"{url}?name={name}", CONFIG, worker="seeder")
    per_host = urls // hosts
    t0 = time.perf_counter()
    report = await pool.add_many(
        AddRequest(f"http://h{h}.example.com/section/{i}/article.html", i % 4)
        for i in range(per_host)
        for h in range(hosts)
    )
    elapsed = time.perf_counter() - t0
    assert report.added == per_host * hosts, report
    await pool.close()
    return elapsed


async def save_time(url: str, name: str, path: Path) -> float:
    pool = await RedisPool.open(f"{url}?name={name}", CONFIG, worker="saver")
    t0 = time.perf_counter()
    await pool.save_snapshot(path)
    elapsed = time.perf_counter() - t0
    await pool.close()
    return elapsed


def run_workers(url: str, name: str, n: int) -> float:
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, __file__, "--worker", f"{url}?name={name}", f"b{i}"])
        for i in range(n)
    ]
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit("a worker failed")
    return time.perf_counter() - t0


async def _worker_main(url: str, worker: str) -> None:
    pool = await RedisPool.open(url, CONFIG, worker=worker)
    await worker_loop(pool, noop_fetch)
    await pool.close()


def pool_benchmark(url: str, tmp: Path, args: argparse.Namespace) -> None:
    base = used_memory(url)
    add_s = asyncio.run(seed(url, "mem", args.urls, args.hosts))
    grown = used_memory(url) - base
    print(
        f"memory: {grown / 1e6:.1f} MB for {args.urls} waiting URLs over {args.hosts} "
        f"hosts = {grown / args.urls:.0f} bytes per URL"
    )
    print(f"add_many: {args.urls / add_s:,.0f} URLs/s ({add_s:.1f} s)")
    snap_s = asyncio.run(save_time(url, "mem", tmp / "mem.snapshot"))
    print(f"save_snapshot of {args.urls} URLs: {snap_s:.2f} s")
    for n in (1, 2, 3):
        name = f"tp{n}"
        asyncio.run(seed(url, name, args.work, args.hosts))
        secs = run_workers(url, name, n)
        print(
            f"{n} worker process(es): {args.work} pop+set_status in {secs:.2f} s = "
            f"{args.work / secs:,.0f} URLs/s (batch 50, no HTTP, process start included)"
        )


# ---- the HTTP part -------------------------------------------------------------------------------
class TimedDemoSite(DemoSite):
    """The demo site, noting when its first request came in and its last response went out,
    and how many requests it had in hand over time: ``busy`` (request-seconds, to compare
    with the workers' fetch slots) and ``last_full``, when it last had ``slots`` of them."""

    first_request = 0.0
    last_response = 0.0
    slots = 0
    open_now = 0
    busy = 0.0
    last_full = 0.0
    _changed = 0.0

    def _count(self, change: int) -> None:
        now = time.time()
        if self._changed:
            self.busy += self.open_now * (now - self._changed)
        self._changed = now
        self.open_now += change
        if self.open_now >= self.slots:
            self.last_full = now

    async def _handle(self, request: Any) -> Any:
        if not self.first_request:
            self.first_request = time.time()
        self._count(+1)
        try:
            return await super()._handle(request)
        finally:
            self._count(-1)
            self.last_response = time.time()


HTTP_SETTINGS = CrawlSettings(
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    allow_private=True,
    obey_robots=False,
)


async def http_run(
    url: str, n: int, tmp: Path, *, hosts: int, articles: int, latency: float, concurrency: int
) -> dict[str, Any]:
    """One crawl of a fresh demo site by ``n`` worker processes over a fresh pool."""
    async with TimedDemoSite(hosts, articles, latency=latency, slow_share=0.0) as site:
        site.slots = n * concurrency
        pool_url = f"{url}?name=http{n}"
        seeder = await CrawlSession.open(
            pool_url, HTTP_SETTINGS, store_dir=tmp / f"seed{n}", worker="seeder"
        )
        try:
            await seeder.crawler.add_seeds(site.seed_urls())
        finally:
            await seeder.close()
        stores = [tmp / f"http{n}-w{i}" for i in range(n)]
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0, start = time.perf_counter(), time.time()
        procs = [
            await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "crawler_gui", "crawl", pool_url, "--until-idle"),
                *("--concurrency", str(concurrency), "--delay", "0", "--delay-factor", "0"),
                *("--allow-private", "--ignore-robots", "--no-progress", "--retry-base", "0.2"),
                *("--store-dir", str(store), "--worker", f"h{n}-{i}"),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            for i, store in enumerate(stores)
        ]

        async def wait(proc: asyncio.subprocess.Process) -> tuple[int, float]:
            code = await proc.wait()
            return code, time.time() - start

        ended = await asyncio.gather(*(wait(p) for p in procs))
        wall = time.perf_counter() - t0
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = used.ru_utime + used.ru_stime - usage.ru_utime - usage.ru_stime
        codes = [code for code, _ in ended]
        if any(codes):
            raise SystemExit(f"a worker failed: exit codes {codes}")
        finals: list[str] = []
        times: list[float] = []
        per_worker: list[int] = []
        for store_dir in stores:
            store = PageStore.open_in_pool(store_dir)
            try:
                records = list(store.iter_records())
            finally:
                store.close()
            per_worker.append(len(records))
            finals += [r.final_url for r in records]
            times += [r.fetched_at for r in records]
        expected = site.expected_urls()
        # robots.txt is ignored here, so the pages under a "Disallow: /private/" are fetched too.
        expected |= site.private_urls()
        covered = set(finals) == expected and len(finals) == len(expected)
        recovering = site.recovering_urls()
        duplicates = sum(1 for u, c in site.fetch_counts.items() if c != 1 + recovering.get(u, 0))
        span = max(times) - min(times)
        crawl = site.last_response - site.first_request
        return {
            "pages": len(finals),
            "wall": wall,
            "span": span,
            "crawl": crawl,
            "startup": site.first_request - start,
            "end": max(t for _, t in ended) - (site.last_response - start),
            "exits": [t for _, t in ended],
            "cpu": cpu,
            "use": site.busy / (site.slots * crawl),
            "answer": site.busy / site.total_requests,
            "tail": site.last_response - site.last_full if site.last_full else None,
            "pps_wall": len(finals) / wall,
            "pps_span": len(finals) / span,
            "pps_crawl": len(finals) / crawl,
            "max_per_host": max(site.max_concurrent_by_host.values()),
            "covered": float(covered),
            "duplicates": duplicates,
            "requests": site.total_requests,
            "per_worker": per_worker,
        }


def http_benchmark(url: str, tmp: Path, args: argparse.Namespace) -> None:
    results: dict[int, dict[str, Any]] = {}
    for n in args.workers:
        r = asyncio.run(
            http_run(
                url,
                n,
                tmp,
                hosts=args.http_hosts,
                articles=args.http_articles,
                latency=args.latency,
                concurrency=args.concurrency,
            )
        )
        results[n] = r
        print(
            f"HTTP, {n} worker process(es): {r['pages']:.0f} pages in {r['wall']:.1f} s = "
            f"{r['pps_wall']:.1f} pages/s (process start and idle check included); "
            f"{r['pps_crawl']:.1f} pages/s first request to last response; "
            f"{r['pps_span']:.1f} pages/s first to last stored page; per worker "
            f"{r['per_worker']}; max connections per host "
            f"{r['max_per_host']:.0f}; full coverage {bool(r['covered'])}; URLs fetched more "
            f"than once {r['duplicates']:.0f}; {r['requests']} requests\n"
            f"    wall {r['wall']:.2f} s = start-up {r['startup']:.2f} s (to the first request) "
            f"+ crawl {r['crawl']:.2f} s + end {r['end']:.2f} s (last response to last exit); "
            f"workers exited at {', '.join(f'{t:.2f}' for t in r['exits'])} s; the workers "
            f"used {r['cpu']:.1f} s of CPU ({r['cpu'] / r['pages'] * 1000:.2f} ms per page); "
            f"a request spent {r['answer'] * 1000:.1f} ms at the site on average; "
            f"fetch slots in use {r['use']:.1%} of the crawl; "
            + (
                "never all of them at once"
                if r["tail"] is None
                else f"all of them for the last time {r['tail']:.2f} s before the last response"
            )
        )
    if 1 in results and 3 in results:
        one, three = results[1], results[3]
        print(
            f"HTTP speedup 3 vs 1 worker: {three['pps_wall'] / one['pps_wall']:.2f}x wall clock, "
            f"{three['pps_crawl'] / one['pps_crawl']:.2f}x first request to last response, "
            f"{three['pps_span'] / one['pps_span']:.2f}x first to last stored page (target >= 2.7x "
            "wall clock)"
        )
    if any(r["max_per_host"] != 1 for r in results.values()):
        raise SystemExit("FAILED: two connections to one host at once")
    if not all(r["covered"] for r in results.values()):
        raise SystemExit("FAILED: a run did not store every expected page exactly once")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument("--hosts", type=int, default=2_000)
    parser.add_argument("--work", type=int, default=30_000, help="URLs per throughput run")
    parser.add_argument("--http-hosts", type=int, default=120, help="demo site hosts")
    parser.add_argument("--http-articles", type=int, default=20, help="articles per host")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per page")
    parser.add_argument("--concurrency", type=int, default=16, help="fetches per worker")
    parser.add_argument(
        "--workers",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1, 2, 3],
        help="HTTP part: the numbers of worker processes to run, e.g. 1,3 (default 1,2,3)",
    )
    parser.add_argument("--skip-pool", action="store_true", help="only the HTTP part")
    parser.add_argument("--skip-http", action="store_true", help="only the pool part")
    parser.add_argument("--worker", nargs=2, metavar=("URL", "ID"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(_worker_main(*args.worker))
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(Path(tmp))
        try:
            print(f"redis-server: {url}")
            if not args.skip_pool:
                pool_benchmark(url, Path(tmp), args)
            if not args.skip_http:
                http_benchmark(url, Path(tmp), args)
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
