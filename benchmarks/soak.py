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

The crawl runs under ``soak_probe.py`` (the same crawl, in a process that answers a signal with
figures from inside), which adds what tells the candidates for memory growth apart:

* ``py_blocks`` (thousands of Python heap blocks in use), ``gc_objects`` (thousands of objects
  the collector tracks) -- Python's own heap;
* ``malloc_used_mb``, ``malloc_free_mb`` -- glibc's heap in use, and freed but kept in its
  arenas (``mallinfo2``); ``malloc_mmap_mb`` large blocks mapped on their own;
* ``ldb_frontier_mb``, ``ldb_pages_mb`` -- LevelDB's own memory (memtables and block cache,
  ``leveldb.approximate-memory-usage``) of the pool and the page store: bounded by their
  write buffer and block cache sizes (``docs/storage.md``);
* ``rss_less_ldb_mb`` -- resident memory less those two: what must stay flat once the LevelDB
  parts have reached their bounds; ``anon_held_mb`` -- anonymous memory (file pages, such as
  LevelDB's memory-mapped tables, are the kernel's to drop) less LevelDB's and less what glibc
  holds freed (a memtable written out is freed into glibc's arenas, not given back, and the
  next one reuses it: without this, each write-out shows as a step up of its size). What is
  left is the crawl's own live memory: this is the figure that must be flat;
* with ``--trim``, ``rss_trimmed_mb``: resident memory right after ``malloc_trim(0)`` (what
  glibc gives back was freed memory it held, not a leak; trimming every sample changes the
  very curve measured, so it is an experiment, off by default);
* with ``--deep``, object counts by type at the first sample after the warm-up, the middle
  and the end (``probe.jsonl``; the summary lists the 10 types that grew most), and with
  ``--tracemalloc N`` also the source lines whose allocations grew most (tracemalloc slows
  the crawl: for diagnosis only).

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
    "rss_less_ldb_mb",
    "anon_held_mb",
    "py_blocks",
    "gc_objects",
    "malloc_used_mb",
    "malloc_free_mb",
    "malloc_mmap_mb",
    "ldb_frontier_mb",
    "ldb_pages_mb",
    "rss_trimmed_mb",
    "fds",
    "tasks",
    "stall_ms",
    "pool_mb",
    "pages_mb",
    "log_mb",
    "pages_per_s",
)
#: Figures that must stay flat after the warm-up (the rest may grow with new content).
FLAT = ("rss_mb", "anon_mb", "anon_held_mb", "py_blocks", "gc_objects", "fds", "tasks")
PROBE = Path(__file__).with_name("soak_probe.py")


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


class Probe:
    """The crawl's in-process figures: a signal to ``soak_probe.py``, its answer a JSON line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = 0

    def ask(self, pid: int, sig: int, timeout: float = 30.0) -> dict[str, Any]:
        """The answer to ``sig`` (a sample for SIGUSR1, a deep one for SIGUSR2), or {} when
        none came within ``timeout`` (a late answer is skipped at the next question)."""
        kind = "sample" if sig == signal.SIGUSR1 else "deep"
        os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.path.exists():
                lines = self.path.read_text(encoding="utf-8").splitlines()
                if lines and not lines[-1].endswith("}"):
                    lines.pop()  # being written
                new, self.lines = lines[self.lines :], len(lines)
                for line in reversed(new):
                    row = dict(json.loads(line))
                    if row.get("kind") == kind:
                        return row
            time.sleep(0.05)
        return {}


def probe_figures(p: dict[str, Any], rss_mb: float, anon_mb: float) -> dict[str, Any]:
    mb = 1024 * 1024
    ldb_frontier = p.get("ldb_frontier", 0) / mb
    ldb_pages = p.get("ldb_pages", 0) / mb
    return {
        "rss_less_ldb_mb": round(rss_mb - ldb_frontier - ldb_pages, 2),
        "anon_held_mb": round(anon_mb - ldb_frontier - ldb_pages - p.get("malloc_free", 0) / mb, 2),
        "py_blocks": round(p.get("py_blocks", 0) / 1000, 1),
        "gc_objects": round(p.get("gc_objects", 0) / 1000, 1),
        "malloc_used_mb": round(p.get("malloc_used", 0) / mb, 2),
        "malloc_free_mb": round(p.get("malloc_free", 0) / mb, 2),
        "malloc_mmap_mb": round(p.get("malloc_mmap", 0) / mb, 2),
        "ldb_frontier_mb": round(ldb_frontier, 2),
        "ldb_pages_mb": round(ldb_pages, 2),
        "rss_trimmed_mb": round(p.get("rss_kb_trimmed", 0) / 1024, 2),
    }


def type_growth(deep: list[dict[str, Any]], top: int = 10) -> list[tuple[str, int, int]]:
    """``(type, first count, last count)`` of the ``top`` types that grew most between the
    first and the last deep sample."""
    if len(deep) < 2:
        return []
    first, last = deep[0]["types"], deep[-1]["types"]
    grown = sorted(last, key=lambda t: last[t] - first.get(t, 0), reverse=True)[:top]
    return [(t, first.get(t, 0), last[t]) for t in grown if last[t] > first.get(t, 0)]


def deep_due(t: float, warmup_s: float, total_s: float, done: int) -> bool:
    """The first deep sample at the end of the warm-up, the second halfway through the rest
    (the third comes at the end)."""
    if done == 0:
        return t >= warmup_s
    if done == 1:
        return t >= (warmup_s + total_s) / 2
    return False


def delay_summary(m: dict[str, float]) -> dict[str, Any]:
    """The crawler's own article-delay histogram (``/metrics``): dated articles and mean."""
    count = m.get("crawler_gui_article_delay_seconds_count")
    if not count:
        return {}
    return {
        "count": int(count),
        "mean": m.get("crawler_gui_article_delay_seconds_sum", 0.0) / count,
    }


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
        if name not in steady[0]:  # an earlier run's soak.csv, without the probe's figures
            continue
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
    ap.add_argument("--trim", action="store_true", help="malloc_trim(0) after each sample")
    ap.add_argument(
        "--write-buffer",
        type=int,
        default=0,
        metavar="BYTES",
        help="open the pool and page store with this LevelDB write buffer (an experiment)",
    )
    ap.add_argument(
        "--block-cache",
        type=int,
        default=0,
        metavar="BYTES",
        help="and this LevelDB block cache (an experiment)",
    )
    ap.add_argument(
        "--deep",
        action="store_true",
        help="object counts by type after the warm-up, in the middle and at the end",
    )
    ap.add_argument(
        "--tracemalloc",
        type=int,
        default=0,
        metavar="FRAMES",
        help="with --deep: trace allocations (FRAMES deep) and list the lines that grew most",
    )
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
    deep_rows: list[dict[str, Any]] = []
    last_metrics: dict[str, float] = {}
    warmup_s = min(args.warmup * 60.0, args.hours * 3600.0 / 3)
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
        probe_file = out / "probe.jsonl"
        probe_file.unlink(missing_ok=True)
        probe = Probe(probe_file)
        probe_opts = [
            *(["--trim"] if args.trim else []),
            *(["--write-buffer", str(args.write_buffer)] if args.write_buffer else []),
            *(["--block-cache", str(args.block_cache)] if args.block_cache else []),
            *(["--tracemalloc", str(args.tracemalloc)] if args.tracemalloc else []),
        ]
        crawl = subprocess.Popen(
            [
                *(sys.executable, str(PROBE), str(probe_file), *probe_opts, "--"),
                *("--log-level", "INFO", "crawl", str(pool)),
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
                m = last_metrics = metrics(murl)
                inside = probe.ask(crawl.pid, signal.SIGUSR1)
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
                row.update(probe_figures(inside, row["rss_mb"], row["anon_mb"]))
                last_pages, last_t = pages, t
                rows.append(row)
                if writer is None:
                    writer = csv.DictWriter(f, fieldnames=list(row))
                    writer.writeheader()
                writer.writerow(row)
                f.flush()
                print(json.dumps(row), flush=True)
                next_sample += args.interval
                if args.deep and deep_due(t, warmup_s, args.hours * 3600.0, len(deep_rows)):
                    deep_rows.append(probe.ask(crawl.pid, signal.SIGUSR2, timeout=120.0))
                if now >= end:
                    break
            if args.deep and len(deep_rows) < 3 and crawl.poll() is None:
                deep_rows.append(probe.ask(crawl.pid, signal.SIGUSR2, timeout=300.0))
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
    summary = {
        "hours": args.hours,
        "interval": args.interval,
        "warmup_s": warmup_s,
        "crawl_exit_code": code,
        "samples": len(rows),
        "figures": summarize(rows, warmup_s),
        "site": {k: v for k, v in report.items() if k not in ("hubs", "feeds")},
        "types_grown": type_growth([d for d in deep_rows if d.get("types")]),
        "lines_grown": deep_rows[-1].get("grown", []) if deep_rows else [],
        "article_delay": delay_summary(last_metrics),
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
    if summary["types_grown"]:
        print("object types that grew most (after the warm-up -> the end):")
        for name, first, last in summary["types_grown"]:
            print(f"  {name:<28} {first:>9} -> {last:>9}")
    for line in summary["lines_grown"][:10]:
        print(f"  {line['kb']:>9} KiB {line['count']:>7} blocks  {line['where']}")
    delay = summary["article_delay"]
    if delay:
        print(
            f"crawler's article delay histogram: {delay['count']} dated articles, mean "
            f"{_num(delay['mean'])} s"
        )
    print(f"results in {out}/soak.csv and {out}/soak.json (probe answers: {out}/probe.jsonl)")
    return 0 if code == 0 else 1


def print_figures(figures: dict[str, Any]) -> None:
    print(f"{'figure':<16} {'start':>10} {'middle':>10} {'end':>10} {'slope/h':>10} {'growth':>8}")
    for name in FIGURES:
        fig = figures.get(name)
        if fig:
            flag = "  <- grows" if name in FLAT and fig["growth_over_span_pct"] > 5 else ""
            print(
                f"{name:<16} {fig['start']:>10} {fig['middle']:>10} {fig['end']:>10} "
                f"{fig['slope_per_hour']:>10} {fig['growth_over_span_pct']:>7}%{flag}"
            )


def summarize_again(out: Path, warmup_s: float) -> int:
    with open(out / "soak.csv", newline="", encoding="utf-8") as f:
        rows: list[dict[str, Any]] = [
            {k: float(v) for k, v in row.items()} for row in csv.DictReader(f)
        ]
    for row in rows:  # a run before this figure was sampled
        if "anon_held_mb" not in row and "malloc_free_mb" in row:
            ldb = row["ldb_frontier_mb"] + row["ldb_pages_mb"]
            row["anon_held_mb"] = round(row["anon_mb"] - ldb - row["malloc_free_mb"], 2)
    figures = summarize(rows, warmup_s)
    print(f"{len(rows)} samples; trends from {figures.get('_steady_from_s', 0):.0f} s on")
    print_figures(figures)
    return 0


def _num(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.1f}"


if __name__ == "__main__":
    raise SystemExit(main())
