"""Benchmark of the Redis pool: memory per URL and pop+set_status throughput for 1-3 workers.

Starts its own redis-server on loopback (``--save "" --appendonly no``) in a temp folder.
Usage: ``python benchmarks/redis_workers.py [--urls 200000] [--hosts 2000] [--work 30000]``.

``worker_loop`` is the worker: give it an async ``fetch(lease) -> FetchResult``; here it is a
no-op (the pool alone), the crawl engine plugs its HTTP fetch in later.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crawler_gui.core.frontier import AddRequest, Lease  # noqa: E402
from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig  # noqa: E402
from crawler_gui.core.redis_pool import RedisPool  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument("--hosts", type=int, default=2_000)
    parser.add_argument("--work", type=int, default=30_000, help="URLs per throughput run")
    parser.add_argument("--worker", nargs=2, metavar=("URL", "ID"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(_worker_main(*args.worker))
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_redis(Path(tmp))
        try:
            base = used_memory(url)
            add_s = asyncio.run(seed(url, "mem", args.urls, args.hosts))
            grown = used_memory(url) - base
            print(f"redis-server: {url}")
            print(
                f"memory: {grown / 1e6:.1f} MB for {args.urls} waiting URLs over {args.hosts} "
                f"hosts = {grown / args.urls:.0f} bytes per URL"
            )
            print(f"add_many: {args.urls / add_s:,.0f} URLs/s ({add_s:.1f} s)")
            snap_s = asyncio.run(save_time(url, "mem", Path(tmp) / "mem.snapshot"))
            print(f"save_snapshot of {args.urls} URLs: {snap_s:.2f} s")
            for n in (1, 2, 3):
                name = f"tp{n}"
                asyncio.run(seed(url, name, args.work, args.hosts))
                secs = run_workers(url, name, n)
                print(
                    f"{n} worker process(es): {args.work} pop+set_status in {secs:.2f} s = "
                    f"{args.work / secs:,.0f} URLs/s (batch 50, no HTTP, process start included)"
                )
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
