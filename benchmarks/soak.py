"""Soak test: a headless crawl of the live demo news site for hours, sampled every minute.

    python benchmarks/soak.py --hours 1.5 --out /tmp/soak

Starts the live news site (``python -m crawler_gui.demo --live``, its own process, so the
crawl's memory is measured alone) and ``crawler-gui crawl`` on its hubs and feeds (continuous:
hubs refreshing every ``--hub-span`` seconds, new articles arriving), with ``--metrics`` on
loopback and a rotating ``--log-file``. Every ``--interval`` seconds it samples the crawl
process:

* ``rss_mb``, ``anon_mb`` -- resident and anonymous memory (``/proc/PID/status``: RssAnon);
* ``fds`` -- open file descriptors;
* ``tasks``, ``stall_ms`` -- asyncio tasks and the longest event-loop lateness of the last
  minute (from the crawl's own ``/metrics``);
* ``pool_mb``, ``pages_mb``, ``log_mb`` -- the pool's ``frontier/`` and ``pages/`` on disk, and
  the log files (the current one and its rotated backups);
* ``pages``, ``pages_per_s`` -- fetches so far and over the last interval; ``articles_found``,
  ``articles_lost`` from the site's report.

Writes ``soak.csv`` (one row a sample) and ``soak.json`` (the samples' summary: start, middle
and end of each figure, its least-squares slope per hour after ``--warmup`` minutes and the
growth that slope means over the measured span, plus the site's final report), and prints the
summary. The run stops by itself after ``--hours`` (a graceful SIGTERM to the crawl, whose exit
code is reported). Loopback only.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

FIGURES = (
    "rss_mb",
    "anon_mb",
    "fds",
    "tasks",
    "stall_ms",
    "pool_mb",
    "pages_mb",
    "log_mb",
    "pages_per_s",
)
#: Figures that must stay flat after the warm-up (the rest may grow with new content).
FLAT = ("rss_mb", "anon_mb", "fds", "tasks")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str, timeout: float = 10.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # loopback only
        return bytes(resp.read())


def wait_for(url: str, seconds: float) -> bytes:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return get(url, timeout=2.0)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def du_mb(path: Path) -> float:
    total = 0
    if path.is_dir():
        for p in path.rglob("*"):
            try:
                if p.is_file():
                    total += p.stat().st_size
            except OSError:
                pass
    return total / 1e6


def proc_status(pid: int) -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            parts = value.split()
            if parts and parts[0].isdigit():
                out[key] = int(parts[0])
    return out


def metrics(url: str) -> dict[str, float]:
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    text = get(url).decode("utf-8")
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.labels:
                out[sample.name] = sample.value
    return out


def slope_per_hour(ts: list[float], ys: list[float]) -> float:
    n = len(ts)
    if n < 2:
        return 0.0
    mt, my = sum(ts) / n, sum(ys) / n
    var = sum((t - mt) ** 2 for t in ts)
    if var == 0:
        return 0.0
    return sum((t - mt) * (y - my) for t, y in zip(ts, ys, strict=True)) / var * 3600.0


def summarize(rows: list[dict[str, Any]], warmup_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not rows:
        return out
    steady = [r for r in rows if r["t"] >= warmup_s] or rows
    span_h = (steady[-1]["t"] - steady[0]["t"]) / 3600.0
    for name in FIGURES:
        ys = [float(r[name]) for r in steady]
        ts = [float(r["t"]) for r in steady]
        slope = slope_per_hour(ts, ys)
        start, end = ys[0], ys[-1]
        middle = ys[len(ys) // 2]
        mean = sum(ys) / len(ys)
        growth = slope * span_h
        out[name] = {
            "start": round(start, 3),
            "middle": round(middle, 3),
            "end": round(end, 3),
            "min": round(min(ys), 3),
            "max": round(max(ys), 3),
            "slope_per_hour": round(slope, 4),
            "growth_over_span_pct": round(100 * growth / mean, 2) if mean else 0.0,
        }
    out["_steady_from_s"] = steady[0]["t"]
    out["_steady_hours"] = round(span_h, 3)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--hours", type=float, default=1.0, help="how long (fractions allowed)")
    ap.add_argument("--out", type=Path, default=Path("soak-out"), help="output folder")
    ap.add_argument("--interval", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--warmup", type=float, default=10.0, help="minutes left out of the trends")
    ap.add_argument("--hub-span", type=float, default=60.0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--log-max-bytes", type=int, default=2_000_000)
    ap.add_argument(
        "--again",
        action="store_true",
        help="no new run: summarize OUT/soak.csv of an earlier one again (e.g. another --warmup)",
    )
    args = ap.parse_args()
    if args.again:
        return summarize_again(args.out, args.warmup * 60.0)
    if not 0 < args.hours <= 72:
        ap.error("--hours must be more than 0 and at most 72")
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    pool = out / "pool"
    log_file = out / "crawl.log"
    site_port, metrics_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    site_log = open(out / "site.log", "wb")  # noqa: SIM115 - closed at the end
    site = subprocess.Popen(
        [sys.executable, "-m", "crawler_gui.demo", "--live", "--port", str(site_port)],
        stdout=site_log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    crawl: subprocess.Popen[bytes] | None = None
    rows: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    code: int | None = None
    try:
        base = f"http://127.0.0.1:{site_port}"
        hubs = wait_for(base + "/_live/hubs.txt", 30).decode("utf-8")
        hubs_file = out / "hubs.txt"
        hubs_file.write_text(
            "".join(f"{u} {args.hub_span:g}\n" for u in hubs.split()), encoding="utf-8"
        )
        crawl_err = open(out / "crawl.stderr", "wb")  # noqa: SIM115 - closed with the process
        crawl = subprocess.Popen(
            [
                *(sys.executable, "-m", "crawler_gui", "--log-level", "INFO", "crawl", str(pool)),
                *("--hubs-file", str(hubs_file), "--allow-private", "--delay", "0.25"),
                *("--hub-span", f"{args.hub_span:g}", "--concurrency", str(args.concurrency)),
                *("--metrics", f"127.0.0.1:{metrics_port}", "--no-progress"),
                *("--log-file", str(log_file), "--log-max-bytes", str(args.log_max_bytes)),
                *("--log-backups", "3"),
            ],
            stdout=crawl_err,
            stderr=subprocess.STDOUT,
            env=env,
        )
        murl = f"http://127.0.0.1:{metrics_port}/metrics"
        wait_for(murl, 60)
        t0 = time.monotonic()
        end = t0 + args.hours * 3600.0
        last_pages, last_t = 0.0, 0.0
        with open(out / "soak.csv", "w", newline="", encoding="utf-8") as f:
            writer: csv.DictWriter[str] | None = None
            next_sample = t0
            while True:
                now = time.monotonic()
                if crawl.poll() is not None:
                    print(f"the crawl exited early with {crawl.returncode}", file=sys.stderr)
                    break
                if now < next_sample:
                    time.sleep(min(next_sample - now, max(0.0, end - now)) or 0.01)
                    if time.monotonic() >= end and rows:
                        break
                    continue
                t = now - t0
                m = metrics(murl)
                status = proc_status(crawl.pid)
                fds = len(os.listdir(f"/proc/{crawl.pid}/fd"))
                rep = json.loads(get(base + "/_live/report.json"))
                pages = m.get("crawler_gui_pages_fetched_total", 0.0)
                row = {
                    "t": round(t, 1),
                    "rss_mb": round(status.get("VmRSS", 0) / 1024, 2),
                    "anon_mb": round(status.get("RssAnon", 0) / 1024, 2),
                    "fds": fds,
                    "tasks": int(m.get("crawler_gui_asyncio_tasks", 0)),
                    "stall_ms": round(1000 * m.get("crawler_gui_loop_stall_seconds", 0.0), 1),
                    "pool_mb": round(du_mb(pool / "frontier"), 3),
                    "pages_mb": round(du_mb(pool / "pages"), 3),
                    "log_mb": round(sum(p.stat().st_size for p in out.glob("crawl.log*")) / 1e6, 3),
                    "pages": int(pages),
                    "pages_per_s": round((pages - last_pages) / (t - last_t), 3) if rows else 0.0,
                    "in_flight": int(m.get("crawler_gui_in_flight", 0)),
                    "waiting": int(m.get("crawler_gui_urls_waiting", 0)),
                    "articles_found": rep["articles"]["found"],
                    "articles_lost": rep["articles"]["lost"],
                }
                last_pages, last_t = pages, t
                rows.append(row)
                if writer is None:
                    writer = csv.DictWriter(f, fieldnames=list(row))
                    writer.writeheader()
                writer.writerow(row)
                f.flush()
                print(json.dumps(row), flush=True)
                next_sample += args.interval
                if now >= end:
                    break
        report = json.loads(get(base + "/_live/report.json"))
    finally:
        if crawl is not None and crawl.poll() is None:
            crawl.send_signal(signal.SIGTERM)
            try:
                code = crawl.wait(120)
            except subprocess.TimeoutExpired:
                crawl.kill()
                code = crawl.wait()
        elif crawl is not None:
            code = crawl.returncode
        site.send_signal(signal.SIGTERM)
        try:
            site.wait(30)
        except subprocess.TimeoutExpired:
            site.kill()
            site.wait()
        site_log.close()
    warmup_s = min(args.warmup * 60.0, args.hours * 3600.0 / 3)
    summary = {
        "hours": args.hours,
        "interval": args.interval,
        "warmup_s": warmup_s,
        "crawl_exit_code": code,
        "samples": len(rows),
        "figures": summarize(rows, warmup_s),
        "site": {k: v for k, v in report.items() if k not in ("hubs", "feeds")},
    }
    (out / "soak.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"\nsoak of {args.hours} h: {len(rows)} samples, crawl exit code {code}")
    print_figures(summary["figures"])
    arts = report.get("articles", {})
    if arts:
        print(
            f"articles: published {arts['published']}, found {arts['found']}, lost "
            f"{arts['lost']}, pending {arts['pending']}; delay mean "
            f"{_num(arts['delay_mean'])} s, median {_num(arts['delay_median'])} s"
        )
    print(f"results in {out}/soak.csv and {out}/soak.json")
    return 0 if code == 0 else 1


def print_figures(figures: dict[str, Any]) -> None:
    print(f"{'figure':<12} {'start':>10} {'middle':>10} {'end':>10} {'slope/h':>10} {'growth':>8}")
    for name in FIGURES:
        fig = figures.get(name)
        if fig:
            flag = "  <- grows" if name in FLAT and fig["growth_over_span_pct"] > 5 else ""
            print(
                f"{name:<12} {fig['start']:>10} {fig['middle']:>10} {fig['end']:>10} "
                f"{fig['slope_per_hour']:>10} {fig['growth_over_span_pct']:>7}%{flag}"
            )


def summarize_again(out: Path, warmup_s: float) -> int:
    with open(out / "soak.csv", newline="", encoding="utf-8") as f:
        rows: list[dict[str, Any]] = [
            {k: float(v) for k, v in row.items()} for row in csv.DictReader(f)
        ]
    figures = summarize(rows, warmup_s)
    print(f"{len(rows)} samples; trends from {figures.get('_steady_from_s', 0):.0f} s on")
    print_figures(figures)
    return 0


def _num(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.1f}"


if __name__ == "__main__":
    raise SystemExit(main())
