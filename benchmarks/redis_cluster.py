"""The Redis pool on a Redis Cluster against one redis-server: memory per URL, add_many, and
pop+set_status throughput of 1, 2 and 3 worker processes (the pool alone, no HTTP).

Starts its own three-primary cluster (``redis-server --cluster-enabled yes`` three times and
``redis-cli --cluster create``) and one plain server, on loopback, without persistence, in a
temp folder. The pool on the cluster has the default 16 key groups; on the server, one.
Usage: ``python benchmarks/redis_cluster.py [--urls 100000] [--hosts 2000] [--work 30000]``.
The workers are ``benchmarks/redis_workers.py --worker`` processes (``worker_loop``: pop 50,
set_status each, until the pool is empty).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from redis_workers import _free_port, run_workers, seed, start_redis


def start_cluster(folder: Path, nodes: int = 3) -> tuple[list[subprocess.Popen[bytes]], str]:
    exe = shutil.which("redis-server")
    cli = shutil.which("redis-cli")
    if exe is None or cli is None:
        raise SystemExit("redis-server and redis-cli are needed (apt-get install redis-server)")
    procs, ports = [], []
    while len(ports) < nodes:
        port = _free_port()
        if port + 10000 > 65535:
            continue
        home = folder / f"node{port}"
        home.mkdir()
        procs.append(
            subprocess.Popen(
                [
                    *(exe, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(home)),
                    *("--save", "", "--appendonly", "no", "--cluster-enabled", "yes"),
                    *("--cluster-config-file", "nodes.conf", "--daemonize", "no"),
                ],
                stdout=subprocess.DEVNULL,
            )
        )
        ports.append(port)
    for port in ports:
        for _ in range(200):
            try:
                with redis.Redis(port=port) as client:
                    client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
    subprocess.run(
        [
            *(cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports)),
            *("--cluster-replicas", "0", "--cluster-yes"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for port in ports:
        while (
            b"cluster_state:ok"
            not in subprocess.run(
                [cli, "-p", str(port), "cluster", "info"], capture_output=True, check=True
            ).stdout
        ):
            time.sleep(0.1)
    return procs, f"redis://127.0.0.1:{ports[0]}/0"


def used_memory(url: str) -> tuple[int, list[int]]:
    """Total used memory of a server or of every primary of a cluster, and the parts."""
    with redis.Redis.from_url(url, decode_responses=True) as plain:
        if str(plain.info("cluster").get("cluster_enabled", "0")) != "1":
            return int(plain.info("memory")["used_memory"]), []
        lines = str(plain.execute_command("CLUSTER", "NODES")).splitlines()
    parts = []
    for line in lines:
        fields = line.split()
        if "master" in fields[2].split(","):
            host, port = fields[1].split("@", 1)[0].rsplit(":", 1)
            with redis.Redis(host=host, port=int(port)) as node:
                parts.append(int(node.info("memory")["used_memory"]))
    return sum(parts), parts


def measure(label: str, url: str, args: argparse.Namespace) -> None:
    base, base_parts = used_memory(url)
    add_s = asyncio.run(seed(url, "mem", args.urls, args.hosts))
    total, parts = used_memory(url)
    grown = total - base
    spread = ""
    if parts:
        spread = (
            " (per primary: "
            + ", ".join(f"{(p - b) / 1e6:.1f} MB" for p, b in zip(parts, base_parts, strict=True))
            + ")"
        )
    print(
        f"{label}: memory {grown / 1e6:.1f} MB for {args.urls} waiting URLs over "
        f"{args.hosts} hosts = {grown / args.urls:.0f} bytes per URL{spread}; "
        f"add_many {args.urls / add_s:,.0f} URLs/s"
    )
    for n in (1, 2, 3):
        name = f"tp{n}"
        asyncio.run(seed(url, name, args.work, args.hosts))
        secs = run_workers(url, name, n)
        print(
            f"{label}: {n} worker process(es): {args.work} pop+set_status in {secs:.2f} s = "
            f"{args.work / secs:,.0f} URLs/s (batch 50, process start included)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=100_000)
    parser.add_argument("--hosts", type=int, default=2_000)
    parser.add_argument("--work", type=int, default=30_000, help="URLs per throughput run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, server_url = start_redis(Path(tmp))
        procs, cluster_url = start_cluster(Path(tmp))
        try:
            measure("one server ", server_url, args)
            measure("cluster (3)", cluster_url, args)
        finally:
            for proc in [server, *procs]:
                proc.terminate()
            for proc in [server, *procs]:
                proc.wait()


if __name__ == "__main__":
    main()
