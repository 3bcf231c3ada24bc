"""Several worker processes on one Redis pool: no URL handed out twice, never two leases on one
host at once, and a worker killed with SIGKILL loses nothing (its leases expire and return)."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path

from crawler_gui.core.policy import Politeness, PoolConfig
from crawler_gui.core.redis.pool import RedisPool

from .conftest import run

ROOT = Path(__file__).resolve().parents[2]

# One worker: pop, "fetch" (sleep), log, report; stop when the pool is finished.
WORKER = textwrap.dedent("""
    import asyncio, os, sys, time
    from crawler_gui.core.policy import FetchResult, Politeness, PoolConfig
    from crawler_gui.core.redis.pool import RedisPool

    url, worker, log_path, lease_s, fetch_s, hang, go = sys.argv[1:8]
    config = PoolConfig(
        pending_threshold=float(lease_s),
        politeness=Politeness(min_delay=0.0, delay_factor=0.0),
    )

    async def main():
        pool = await RedisPool.open(url, config, worker=worker)
        with open(log_path, "a", buffering=1) as log:
            log.write("ready\\n")
            while go and not os.path.exists(go):  # start together: the work is really shared
                await asyncio.sleep(0.005)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                leases = await pool.pop(4, 0)
                if not leases:
                    t = (await pool.snapshot(retry_limit=0)).totals
                    if t.waiting == 0 and t.pending == 0 and t.retrying == 0:
                        break
                    await asyncio.sleep(0.01)
                    continue
                for lease in leases:
                    log.write(f"pop {lease.url} {lease.host} {time.monotonic()!r}\\n")
                if hang == "1":
                    log.write("hang\\n")
                    await asyncio.sleep(3600)
                await asyncio.sleep(float(fetch_s))
                for lease in leases:
                    log.write(f"done {lease.url} {lease.host} {time.monotonic()!r}\\n")
                await pool.set_status_many([(l.url, FetchResult(status=200)) for l in leases])
        await pool.close()

    asyncio.run(main())
""")

HOSTS = 12
PER_HOST = 6


def _seed(redis_url: str, name: str) -> list[str]:
    urls = [f"http://h{h}.example.com/p{i}" for h in range(HOSTS) for i in range(PER_HOST)]

    async def go() -> None:
        pool = await RedisPool.open(f"{redis_url}?name={name}", PoolConfig(), worker="seeder")
        report = await pool.add_many(urls)
        assert report.added == len(urls)
        await pool.close()

    run(go())
    return urls


def _spawn(
    redis_url: str,
    name: str,
    worker: str,
    log: Path,
    lease_s: float,
    hang: bool = False,
    go: Path | None = None,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            *(sys.executable, "-c", WORKER, f"{redis_url}?name={name}", worker, str(log)),
            *(str(lease_s), "0.01", "1" if hang else "0", str(go or "")),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def _read_logs(logs: list[Path]) -> list[tuple[str, str, str, float, str]]:
    events = []
    for log in logs:
        if not log.exists():
            continue
        for line in log.read_text().splitlines():
            parts = line.split()
            if parts[0] in ("pop", "done"):
                events.append((parts[0], parts[1], parts[2], float(parts[3]), log.stem))
    return events


def _no_host_twice_at_once(events: list[tuple[str, str, str, float, str]]) -> None:
    """Each (pop, done) pair is an interval inside a lease; a host's intervals never overlap."""
    opened: dict[tuple[str, str], float] = {}
    per_host: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for kind, url, host, t, worker in events:
        if kind == "pop":
            opened[(worker, url)] = t
        else:
            per_host[host].append((opened.pop((worker, url)), t))
    for host, spans in per_host.items():
        spans.sort()
        for (_s1, e1), (s2, _e2) in itertools.pairwise(spans):
            assert s2 >= e1, f"two leases on {host} at once"


def _final_totals(redis_url: str, name: str) -> tuple[int, int, int, int]:
    async def go() -> tuple[int, int, int, int]:
        pool = await RedisPool.open(f"{redis_url}?name={name}", worker="checker")
        t = (await pool.snapshot()).totals
        await pool.close()
        return t.done, t.waiting, t.pending, t.failed

    return run(go())


def _reap(procs: list[subprocess.Popen[bytes]]) -> None:
    """Kill what is still running (a failed test) and collect every child."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def _wait(procs: list[subprocess.Popen[bytes]], timeout: float = 60) -> None:
    for proc in procs:
        assert proc.wait(timeout=timeout) == 0


def test_three_worker_processes_share_one_frontier(redis_server: str, tmp_path: Path) -> None:
    urls = _seed(redis_server, "three")
    logs = [tmp_path / f"w{i}.log" for i in range(3)]
    go = tmp_path / "go"
    procs = [_spawn(redis_server, "three", f"w{i}", logs[i], 30.0, go=go) for i in range(3)]
    try:
        deadline = time.monotonic() + 30
        while not all(log.exists() and log.read_text() for log in logs):
            assert time.monotonic() < deadline, "the workers did not start"
            assert all(proc.poll() is None for proc in procs), "a worker died"
            time.sleep(0.01)
        go.touch()
        _wait(procs)
    finally:
        _reap(procs)
    events = _read_logs(logs)
    popped = [url for kind, url, *_ in events if kind == "pop"]
    assert sorted(popped) == sorted(urls)  # every URL handed out exactly once
    assert len({worker for *_, worker in events}) >= 2  # the work really was shared
    _no_host_twice_at_once(events)
    assert _final_totals(redis_server, "three") == (len(urls), 0, 0, 0)


def test_a_worker_killed_mid_work_loses_nothing(redis_server: str, tmp_path: Path) -> None:
    urls = _seed(redis_server, "killed")
    victim_log = tmp_path / "victim.log"
    victim = _spawn(redis_server, "killed", "victim", victim_log, 1.0, hang=True)
    try:
        deadline = time.monotonic() + 30
        while not (victim_log.exists() and "hang" in victim_log.read_text()):
            assert time.monotonic() < deadline and victim.poll() is None, "the victim failed"
            time.sleep(0.02)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
    finally:
        _reap([victim])
    lost = {url for kind, url, *_ in _read_logs([victim_log]) if kind == "pop"}
    assert lost  # it died holding leases
    logs = [tmp_path / f"s{i}.log" for i in range(2)]
    procs = [_spawn(redis_server, "killed", f"s{i}", logs[i], 1.0) for i in range(2)]
    try:
        _wait(procs)
    finally:
        _reap(procs)
    events = _read_logs(logs)
    done = [url for kind, url, *_ in events if kind == "done"]
    assert sorted(done) == sorted(urls)  # the survivors did everything, the lost leases too
    _no_host_twice_at_once(events)
    assert _final_totals(redis_server, "killed") == (len(urls), 0, 0, 0)

    async def attempts() -> set[int]:
        pool = await RedisPool.open(f"{redis_server}?name=killed", worker="checker")
        try:
            return {pool.url_attempts(url) for url in lost}
        finally:
            await pool.close()

    assert run(attempts()) == {1}  # each lost lease counted as one attempt


def test_two_clients_in_one_process_never_share_a_host(redis_server: str) -> None:
    async def go() -> None:
        config = PoolConfig(politeness=Politeness(min_delay=0.0, delay_factor=0.0))
        a = await RedisPool.open(f"{redis_server}?name=pair", config, worker="a")
        b = await RedisPool.open(f"{redis_server}?name=pair", config, worker="b")
        await a.add_many([f"http://h{h}.example.com/{i}" for h in range(5) for i in range(3)])
        first = await a.pop(3, 0)
        second = await b.pop(10, 0)
        assert len(first) == 3 and len(second) == 2
        assert not {lease.host for lease in first} & {lease.host for lease in second}
        assert await b.pop(10, 0) == []
        await a.close()
        await b.close()

    run(go())
