"""Crawl benchmark (issue 3): crawler-gui headless against a bare aiohttp loop and Scrapy, on
the same built-in demo news site (default 50 hosts x 200 articles, concurrency 50, one
connection per host, no delay, robots off, no artificial latency).

Every contender runs in its own process against a fresh demo-site process (so each sees the
same cold page cache and the same recovering 500s, the server has its own core, and each
contender's peak RSS is its own):

* ``bare``    -- aiohttp ``ClientSession`` (``TCPConnector(limit=C, limit_per_host=1)``) that
  downloads exactly the site's expected URLs (known up front), retrying the 500s at once: the
  practical limit of this machine;
* ``crawler`` -- crawler-gui headless: ``CrawlSession`` on a temporary pool, until idle;
* ``scrapy``  -- a Scrapy spider from the same seeds and hubs, ``LinkExtractor`` restricted to
  the demo hosts (tracking parameters dropped, as crawler-gui's pool does), per-domain
  concurrency 1, no delay, robots off, retries of 500 on (Scrapy's default).

Printed per contender: pages/s (2xx pages / seconds from start to finish), pages, seconds,
CPU seconds of the contender, CPU share of the server, peak RSS, coverage of the expected URLs
and duplicate fetches; then the ratios. With ``--runs N`` each contender runs N times; the
best run and the spread are shown.

    python benchmarks/crawl.py                       # all three, once
    python benchmarks/crawl.py --runs 3              # best of three
    python benchmarks/crawl.py --only crawler --profile /tmp/crawl.prof   # cProfile crawler-gui
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from common import cpu_seconds, cpu_split, demo_crawl_settings, emit, split_since

CONTENDERS = ("bare", "crawler", "scrapy")
LABELS = {"bare": "bare aiohttp loop", "crawler": "crawler-gui headless", "scrapy": "Scrapy"}


def make_site(args: argparse.Namespace, port: int) -> Any:
    """The demo site's link graph with an explicit port: URLs only, never started here."""
    from crawler_gui.demo.site import DemoSite

    return DemoSite(
        args.hosts,
        args.articles,
        port=port,
        slow_share=args.slow_share,
        seed=args.seed,
        aliases=args.aliases,
        dead_links=args.dead_links,
    )


# ---- the demo site, in its own process ---------------------------------------------------------


def role_serve(args: argparse.Namespace) -> None:
    """Serve until stdin closes (the parent went away) or SIGTERM; print the port first."""
    from crawler_gui.demo.site import DemoSite

    async def serve() -> None:
        site = DemoSite(
            args.hosts,
            args.articles,
            port=0,
            slow_share=args.slow_share,
            latency=0.0,
            seed=args.seed,
            aliases=args.aliases,
            dead_links=args.dead_links,
        )
        await site.start()
        print(json.dumps({"port": site.port, "pid": os.getpid()}), flush=True)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        eof = loop.run_in_executor(None, sys.stdin.buffer.read)
        eof.add_done_callback(lambda _f: stop.set())
        await stop.wait()
        await site.stop()
        # Counters the contenders cannot see: requests served and the duplicates among them.
        dup = sum(1 for n in site.fetch_counts.values() if n > 1)
        print(
            json.dumps({"requests": site.total_requests, "urls_fetched_twice_or_more": dup}),
            flush=True,
        )
        os._exit(0)  # the executor thread is still blocked in read()

    asyncio.run(serve())


# ---- (1) the bare aiohttp loop -----------------------------------------------------------------


def role_bare(args: argparse.Namespace) -> None:
    import aiohttp

    site = make_site(args, args.port)
    by_host: dict[str, list[str]] = defaultdict(list)
    wanted = set(site.expected_urls())
    if args.aliases or args.dead_links:
        # The link mix: every linked redirect and dead link is requested once too (not
        # followed: its target is in the list), as a crawler must to find out what it is.
        wanted |= set(site.redirects()) | site.dead_urls()
    for url in sorted(wanted):
        by_host[url.split("/", 3)[2]].append(url)

    async def main() -> dict[str, Any]:
        connector = aiohttp.TCPConnector(limit=args.concurrency, limit_per_host=1)
        queues = list(by_host.values())
        ok: list[str] = []
        requests = 0

        async def worker(session: aiohttp.ClientSession) -> None:
            nonlocal requests
            while queues:
                urls = queues.pop()
                for url in urls:
                    for _attempt in range(5):
                        async with session.get(url, allow_redirects=False) as resp:
                            await resp.read()
                            requests += 1
                            if resp.status == 200:
                                ok.append(url)
                            if resp.status != 500:
                                break

        async with aiohttp.ClientSession(connector=connector) as session:
            t0 = time.perf_counter()
            c0 = cpu_seconds()
            s0 = cpu_split()
            await asyncio.gather(*(worker(session) for _ in range(args.concurrency)))
            elapsed = time.perf_counter() - t0
            cpu = cpu_seconds() - c0
            split = split_since(s0)
        expected = site.expected_urls()
        counts = Counter(ok)
        return {
            "pages": len(ok),
            "seconds": elapsed,
            "cpu": cpu,
            **split,
            "requests": requests,
            "expected": len(expected),
            "missing": len(expected - set(ok)),
            "duplicates": sum(1 for n in counts.values() if n > 1),
        }

    emit(asyncio.run(main()))


# ---- (2) crawler-gui headless ------------------------------------------------------------------

#: Where a profiled function's own time goes: (component, substrings of its file or name).
#: The first match wins; ``crawler_gui/`` files not named here are "crawler-gui, other".
COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("links (engine/links.py, selectolax)", ("engine/links.py", "selectolax")),
    ("URL parsing (core/urls.py, ada)", ("core/urls.py", "can_ada", "ada_url")),
    ("pool (core/leveldb/, plyvel)", ("core/leveldb/", "plyvel")),
    ("page store (engine/store/, zlib)", ("engine/store/", "zlib", "warc")),
    ("fetch (engine/fetch.py)", ("engine/fetch.py",)),
    ("address checks (engine/safety.py)", ("engine/safety.py", "ipaddress")),
    ("decode (engine/decode.py, cchardet)", ("engine/decode.py", "cchardet", "codecs")),
    ("robots (engine/robots.py, protego)", ("engine/robots.py", "protego")),
    ("crawler-gui, other", ("crawler_gui/",)),
    ("aiohttp, yarl, multidict", ("aiohttp", "yarl", "multidict", "propcache")),
    ("asyncio, sockets", ("asyncio", "selectors", "socket", "ssl")),
)


def component_summary(stats: Any) -> list[tuple[str, float]]:
    """cProfile's own time per component (see :data:`COMPONENTS`), largest first."""
    totals: Counter[str] = Counter()
    for (filename, _line, name), row in stats.stats.items():
        where = f"{filename}:{name}"
        label = next(
            (c for c, keys in COMPONENTS if any(k in where for k in keys)), "other (stdlib)"
        )
        totals[label] += row[2]  # tottime
    return totals.most_common()


def thread_cpu() -> tuple[float, float]:
    """CPU seconds so far of this process's threads other than this one: ``(Python
    threads, native threads)`` (Linux ``/proc``; zeros elsewhere). A thread that ended is
    not counted."""
    import threading

    me = threading.get_native_id()
    python_ids = {t.native_id for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    py = native = 0.0
    with contextlib.suppress(OSError):
        for tid in os.listdir("/proc/self/task"):
            if int(tid) == me:
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/self/task/{tid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                cpu = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
                if int(tid) in python_ids:
                    py += cpu
                else:
                    native += cpu
    return py, native


def role_crawler(args: argparse.Namespace) -> None:
    from crawler_gui.engine.session import CrawlSession

    site = make_site(args, args.port)
    pool_dir = Path(tempfile.mkdtemp(prefix="crawl-bench-"))
    if args.store_zlib_level is not None:  # an experiment, not crawler-gui's configuration
        from crawler_gui.engine.store import records

        records._ZLIB_LEVEL = args.store_zlib_level

    async def main() -> dict[str, Any]:
        settings = demo_crawl_settings(
            args.concurrency, extract=args.extract, search_index=args.search_index == "on"
        )
        t_open = time.perf_counter()
        session = await CrawlSession.open(pool_dir, settings, demo_site=site)
        t_open = time.perf_counter() - t_open
        try:
            crawler = session.crawler
            c0 = cpu_seconds()
            s0 = cpu_split()
            m0 = time.thread_time()
            th0 = thread_cpu()
            t0 = time.perf_counter()
            stalls = [0.0]
            backlog = [0]

            async def watch_loop() -> None:
                # The loop's worst stall: how late a 10 ms sleep wakes up.
                loop = asyncio.get_running_loop()
                while True:
                    before = loop.time()
                    await asyncio.sleep(0.01)
                    stalls[0] = max(stalls[0], loop.time() - before - 0.01)
                    if crawler.articles is not None:
                        backlog[0] = max(backlog[0], crawler.articles.backlog)

            watcher = asyncio.get_running_loop().create_task(watch_loop())
            crawler.start()
            state = await crawler.wait()
            elapsed = time.perf_counter() - t0
            watcher.cancel()
            cpu = cpu_seconds() - c0
            split = split_since(s0)
            loop_cpu = time.thread_time() - m0
            th1 = thread_cpu()
            totals = (await session.frontier.snapshot()).totals
            stats = crawler.stats()
            records = list(session.store.iter_records())
        finally:
            await session.close()
        expected = site.expected_urls()
        finals = Counter(r.final_url for r in records)
        return {
            "pages": len(records),
            "seconds": elapsed,
            "cpu": cpu,
            **split,
            "loop_cpu": loop_cpu,  # the event-loop thread alone (cpu - loop_cpu: workers)
            # The rest, split: Python's worker threads (page store writes, big parses) and
            # native threads (LevelDB's background compactions).
            "python_threads_cpu": th1[0] - th0[0],
            "native_threads_cpu": th1[1] - th0[1],
            "open_seconds": t_open,
            "state": str(state),
            "extract": args.extract,
            "search_index": args.search_index,
            "max_stall_ms": stalls[0] * 1000,
            "max_backlog": backlog[0],
            "articles": stats.articles_found,
            "requests": getattr(stats, "pages", None),
            "expected": len(expected),
            "missing": len(expected - set(finals)),
            "duplicates": sum(1 for u in expected if finals.get(u, 0) > 1),
            "extra": sorted(set(finals) - expected)[:5],
            "totals": {
                k: getattr(totals, k)
                for k in ("waiting", "pending", "done", "failed", "retrying", "redirected")
            },
        }

    try:
        if args.profile and args.profiler == "pyinstrument":
            from pyinstrument import Profiler  # not a dependency: PYTHONPATH=... if wanted

            profiler = Profiler(interval=0.0005, async_mode="disabled")
            profiler.start()
            try:
                result = asyncio.run(main())
            finally:
                profiler.stop()
            with open(args.profile + ".txt", "w") as fh:
                fh.write(profiler.output_text(unicode=False, color=False, show_all=False))
        elif args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile(time.thread_time)  # CPU of the loop thread, not waits
            result = prof.runcall(asyncio.run, main())
            prof.dump_stats(args.profile)
            result["components"] = component_summary(pstats.Stats(prof))
            with open(args.profile + ".txt", "w") as fh:
                st = pstats.Stats(prof, stream=fh).strip_dirs()
                st.sort_stats("tottime").print_stats(45)
                st.sort_stats("cumulative").print_stats(70)
        else:
            result = asyncio.run(main())
    finally:
        shutil.rmtree(pool_dir, ignore_errors=True)
    emit(result)


# ---- (3) Scrapy --------------------------------------------------------------------------------


def role_scrapy(args: argparse.Namespace) -> None:
    import re
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor

    site = make_site(args, args.port)
    allow = rf"^http://{re.escape(site.base)}\d+:{args.port}/"
    start_urls = site.hub_urls()  # the seeds (home pages) are among the hubs

    def drop_tracking(value: str) -> str:
        """What crawler-gui's pool does to ``?utm_*``: the same page, not a new one."""
        parts = urlsplit(value)
        if not parts.query:
            return value
        query = [(k, v) for k, v in parse_qsl(parts.query, True) if not k.startswith("utm_")]
        return urlunsplit(parts._replace(query=urlencode(query)))

    seen: list[str] = []
    timing: dict[str, float] = {}

    class DemoSpider(scrapy.Spider):
        name = "demo"

        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **kw)
            self.links = LinkExtractor(allow=allow, process_value=drop_tracking)

        async def start(self) -> Any:  # Scrapy >= 2.13
            for url in start_urls:
                yield scrapy.Request(url)

        def start_requests(self) -> Any:  # older Scrapy
            for url in start_urls:
                yield scrapy.Request(url)

        def parse(self, response: Any) -> Any:
            seen.append(response.url)
            for link in self.links.extract_links(response):
                yield scrapy.Request(link.url, callback=self.parse)

    settings = {
        "CONCURRENT_REQUESTS": args.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "CONCURRENT_REQUESTS_PER_IP": 0,
        "DOWNLOAD_DELAY": 0,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "COOKIES_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "RETRY_ENABLED": True,  # 500 is in RETRY_HTTP_CODES; RETRY_TIMES 2 covers the site
        "CLOSESPIDER_TIMEOUT": args.scrapy_timeout,
        "USER_AGENT": "crawl-benchmark (scrapy)",
    }
    if args.scrapy_queue == "downloader-aware":
        settings["SCHEDULER_PRIORITY_QUEUE"] = "scrapy.pqueues.DownloaderAwarePriorityQueue"
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(DemoSpider)
    c0 = [0.0]

    def opened(spider: Any) -> None:
        timing["t0"] = time.perf_counter()
        c0[0] = cpu_seconds()

    def closed(spider: Any, reason: str) -> None:
        timing["t1"] = time.perf_counter()
        timing["cpu"] = cpu_seconds() - c0[0]
        timing["reason"] = reason  # type: ignore[assignment]

    crawler.signals.connect(opened, signal=signals.spider_opened)
    crawler.signals.connect(closed, signal=signals.spider_closed)
    process.crawl(crawler)
    process.start()
    expected = site.expected_urls()
    counts = Counter(seen)
    stats = crawler.stats.get_stats() if crawler.stats else {}
    emit(
        {
            "pages": len(seen),
            "seconds": timing["t1"] - timing["t0"],
            "cpu": timing["cpu"],
            "reason": timing["reason"],
            "requests": stats.get("downloader/request_count"),
            "expected": len(expected),
            "missing": len(expected - set(counts)),
            "duplicates": sum(1 for u in expected if counts.get(u, 0) > 1),
            "retries": stats.get("retry/count"),
        }
    )


# ---- the parent --------------------------------------------------------------------------------


def site_args(args: argparse.Namespace) -> list[str]:
    return [
        "--hosts",
        str(args.hosts),
        "--articles",
        str(args.articles),
        "--slow-share",
        str(args.slow_share),
        "--seed",
        str(args.seed),
        "--aliases",
        str(args.aliases),
        "--dead-links",
        str(args.dead_links),
    ]


def run_one(args: argparse.Namespace, kind: str, run: int) -> dict[str, Any]:
    """A fresh server process, then the contender's process; returns its result."""
    import psutil

    me = [sys.executable, os.path.abspath(__file__)]
    server = subprocess.Popen(
        [*me, "--role", "serve", *site_args(args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        hello = json.loads(server.stdout.readline())
        port = hello["port"]
        sproc = psutil.Process(server.pid)
        cmd = [*me, "--role", kind, "--port", str(port), *site_args(args)]
        cmd += ["--concurrency", str(args.concurrency)]
        if kind == "crawler" and args.profile:
            cmd += ["--profile", f"{args.profile}.{run}", "--profiler", args.profiler]
        if kind == "crawler":
            cmd += ["--extract", args.extract, "--search-index", args.search_index]
        if kind == "crawler" and args.store_zlib_level is not None:
            cmd += ["--store-zlib-level", str(args.store_zlib_level)]
        if kind == "scrapy":
            cmd += ["--scrapy-timeout", str(args.scrapy_timeout)]
            cmd += ["--scrapy-queue", args.scrapy_queue]
        s0 = sproc.cpu_times()
        w0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, check=False)
        wall = time.perf_counter() - w0
        s1 = sproc.cpu_times()
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
        if out.returncode != 0 or not lines:
            return {"error": f"exit {out.returncode}: {out.stderr[-3000:]}"}
        result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
        result["server_cpu"] = (s1.user + s1.system) - (s0.user + s0.system)
        result["process_wall"] = wall
        if out.stderr.strip():
            result["stderr_tail"] = out.stderr.strip()[-600:]
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {args.timeout} s"}
    finally:
        assert server.stdin is not None
        with contextlib.suppress(OSError):
            server.stdin.close()
        try:
            tail = server.stdout.read() if server.stdout else ""
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            tail = ""
    with contextlib.suppress(ValueError, IndexError):
        result["server"] = json.loads(tail.strip().splitlines()[-1])
    return result


def responses(r: dict[str, Any]) -> int:
    """HTTP responses the contender received: the server's own count of requests served."""
    return int(r.get("server", {}).get("requests") or r.get("requests") or 0)


def cpu_per_response_ms(r: dict[str, Any]) -> float:
    """The contender's CPU (its whole process) per HTTP response, in milliseconds."""
    return 1000.0 * r["cpu"] / max(responses(r), 1)


def fmt_row(label: str, r: dict[str, Any], spread: str) -> str:
    rate = r["pages"] / r["seconds"]
    cov = 100.0 * (r["expected"] - r["missing"]) / r["expected"]
    # The server's CPU share over the contender's whole process (start-up included for it too).
    srv = 100.0 * r["server_cpu"] / max(r["seconds"], 1e-9)
    return (
        f"{label:<22} {rate:>8,.0f} {spread:>15} {r['pages']:>7,} {r['seconds']:>8.2f} "
        f"{r['cpu']:>7.2f} {min(srv, 999):>6.0f}% {r['peak_rss_mb']:>8.0f} {cov:>7.2f}% "
        f"{r['duplicates']:>5} {responses(r):>9,} {cpu_per_response_ms(r):>8.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--role", choices=("serve", *CONTENDERS), help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--articles", type=int, default=200, help="articles per host")
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument(
        "--slow-share",
        type=float,
        default=0.0,
        help="share of deliberately slow articles (default 0: no artificial latency)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--aliases",
        type=float,
        default=0.0,
        help="link mix: mean number of 301 aliases each article links to (default 0)",
    )
    ap.add_argument(
        "--dead-links",
        type=float,
        default=0.0,
        help="link mix: mean number of dead links (404) each article links to (default 0)",
    )
    ap.add_argument(
        "--mix",
        action="store_true",
        help="the realistic link mix: --aliases 0.5 --dead-links 0.5 (about two requests per "
        "stored page); CPU per HTTP response is the figure to read",
    )
    ap.add_argument("--runs", type=int, default=1, help="runs per contender (best is shown)")
    ap.add_argument("--only", default=",".join(CONTENDERS), help="e.g. crawler,bare")
    ap.add_argument("--profile", help="cProfile crawler-gui's run into PROFILE.<run> (+ .txt)")
    ap.add_argument(
        "--profiler",
        choices=("cprofile", "pyinstrument"),
        default="cprofile",
        help="with --profile: cProfile (exact counts, heavy) or pyinstrument (sampling)",
    )
    ap.add_argument(
        "--store-zlib-level",
        type=int,
        help="experiment: crawler-gui's page-store zlib level (default: the store's own)",
    )
    ap.add_argument("--scrapy-timeout", type=float, default=120.0, help="CLOSESPIDER_TIMEOUT")
    ap.add_argument(
        "--scrapy-queue",
        choices=("default", "downloader-aware"),
        default="default",
        help="Scrapy's scheduler priority queue (downloader-aware: its broad-crawl advice)",
    )
    ap.add_argument(
        "--extract",
        choices=("on", "off", "later"),
        default="off",
        help="crawler-gui's article extraction (on: in worker processes during the crawl)",
    )
    ap.add_argument(
        "--search-index",
        choices=("on", "off"),
        default="off",
        help="crawler-gui's search index kept up to date during the crawl (off by default, "
        "like extraction: the other crawlers index nothing)",
    )
    ap.add_argument("--timeout", type=float, default=400.0, help="per-process safety limit")
    ap.add_argument("--json", help="also write all results to this file")
    args = ap.parse_args()
    if args.mix:
        args.aliases = args.aliases or 0.5
        args.dead_links = args.dead_links or 0.5
    if args.role:
        {
            "serve": role_serve,
            "bare": role_bare,
            "crawler": role_crawler,
            "scrapy": role_scrapy,
        }[args.role](args)
        return

    kinds = [k for k in CONTENDERS if k in args.only.split(",")]
    print(
        f"demo site: {args.hosts} hosts x {args.articles} articles, concurrency "
        f"{args.concurrency}, one connection per host, no delay, robots off, slow share "
        f"{args.slow_share}; {args.runs} run(s) each; {os.cpu_count()} CPUs",
        flush=True,
    )
    results: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    for run in range(args.runs):
        for kind in kinds:
            r = run_one(args, kind, run)
            results[kind].append(r)
            if "error" in r:
                print(f"  run {run + 1} {kind}: FAILED {r['error']}", flush=True)
                continue
            print(
                f"  run {run + 1} {kind:<8} {r['pages'] / r['seconds']:>8,.0f} pages/s "
                f"({r['pages']:,} pages in {r['seconds']:.2f} s, cpu {r['cpu']:.2f} s, "
                f"server cpu {r['server_cpu']:.2f} s, rss {r['peak_rss_mb']:.0f} MB, "
                f"missing {r['missing']}, dups {r['duplicates']}, "
                f"{responses(r):,} responses ({responses(r) / max(r['pages'], 1):.2f} per page), "
                f"{cpu_per_response_ms(r):.3f} ms cpu per response"
                + (
                    f" (user {r['user_cpu']:.2f} s, kernel {r['sys_cpu']:.2f} s, "
                    f"{r['switches']:,} context switches)"
                    if "sys_cpu" in r
                    else ""
                )
                + (f", loop-thread cpu {r['loop_cpu']:.2f} s" if "loop_cpu" in r else "")
                + (
                    f" (other threads: Python {r['python_threads_cpu']:.2f} s, native "
                    f"{r['native_threads_cpu']:.2f} s)"
                    if "native_threads_cpu" in r
                    else ""
                )
                + (
                    f", extract {r['extract']}: {r['articles']} articles, worst loop stall "
                    f"{r['max_stall_ms']:.0f} ms, peak backlog {r['max_backlog']}"
                    if "extract" in r
                    else ""
                )
                + ")",
                flush=True,
            )
    best: dict[str, dict[str, Any]] = {}
    print()
    print(
        f"{'contender':<22} {'pages/s':>8} {'spread (all)':>15} {'pages':>7} {'seconds':>8} "
        f"{'cpu s':>7} {'server':>7} {'RSS MB':>8} {'coverage':>8} {'dups':>5} "
        f"{'responses':>9} {'ms cpu/r':>8}"
    )
    for kind in kinds:
        ok = [r for r in results[kind] if "error" not in r]
        if not ok:
            print(f"{LABELS[kind]:<22} failed")
            continue
        rates = [r["pages"] / r["seconds"] for r in ok]
        best[kind] = max(ok, key=lambda r: r["pages"] / r["seconds"])
        spread = f"{min(rates):,.0f}-{max(rates):,.0f}" if len(rates) > 1 else "-"
        print(fmt_row(LABELS[kind], best[kind], spread))
    print()

    def rate(kind: str) -> float:
        r = best[kind]
        return float(r["pages"] / r["seconds"])

    if "crawler" in best and "bare" in best:
        pct = 100 * rate("crawler") / rate("bare")
        verdict = "meets" if pct >= 50 else "misses"
        print(
            f"crawler-gui / bare loop: {pct:5.1f} % of its pages/s ({verdict} the >= 50 % target)"
        )
    if "crawler" in best and "bare" in best:
        ours, bare = cpu_per_response_ms(best["crawler"]), cpu_per_response_ms(best["bare"])
        verdict = "meets" if ours <= 1.9 * bare else "misses"
        print(
            f"CPU per HTTP response: crawler-gui {ours:.3f} ms, bare loop {bare:.3f} ms: "
            f"{ours / bare:.2f} x ({verdict} the <= 1.9 x target)"
        )
        if args.runs > 1:
            # The fastest run is not the cheapest one on a shared machine: the median of all
            # runs is the steadier figure for CPU.
            med = {
                kind: statistics.median(
                    cpu_per_response_ms(r) for r in results[kind] if "error" not in r
                )
                for kind in ("crawler", "bare")
            }
            print(
                f"CPU per HTTP response, median of {args.runs} runs: crawler-gui "
                f"{med['crawler']:.3f} ms, bare loop {med['bare']:.3f} ms: "
                f"{med['crawler'] / med['bare']:.2f} x"
            )
            # The machine's own speed can drift by 15 % over minutes: each run's ratio (the
            # two contenders back to back) is steadier than medians taken apart.
            paired = [
                cpu_per_response_ms(c) / cpu_per_response_ms(b)
                for c, b in zip(results["crawler"], results["bare"], strict=True)
                if "error" not in c and "error" not in b
            ]
            if paired:
                print(
                    "CPU per HTTP response, each run's ratio: "
                    + ", ".join(f"{x:.2f}" for x in paired)
                    + f" x; median {statistics.median(paired):.2f} x"
                )
    if "crawler" in best and "scrapy" in best:
        x = rate("crawler") / rate("scrapy")
        verdict = "meets" if x >= 10 else "misses"
        print(f"crawler-gui / Scrapy:    {x:5.1f} x its pages/s ({verdict} the >= 10 x target)")
        rss = best["crawler"]["peak_rss_mb"] / best["scrapy"]["peak_rss_mb"]
        print(f"peak RSS crawler-gui / Scrapy: {rss:.2f}")
    if "scrapy" in best and "bare" in best:
        print(f"Scrapy / bare loop:      {100 * rate('scrapy') / rate('bare'):5.1f} %")
    for r in results.get("crawler", []):
        if r.get("components"):
            total = sum(sec for _c, sec in r["components"]) or 1.0
            print("crawler-gui profile (cProfile own time per component; profiling inflates it):")
            for label, sec in r["components"]:
                print(f"  {label:<40} {sec:>7.2f} s {100 * sec / total:>5.1f} %")
            break
    if "crawler" in best:
        r = best["crawler"]
        full = r["missing"] == 0 and r["duplicates"] == 0
        print(
            f"crawler-gui coverage: {r['expected'] - r['missing']}/{r['expected']} expected "
            f"URLs, {r['duplicates']} stored twice ({'full, no duplicate' if full else 'NOT OK'})"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
