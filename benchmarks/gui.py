"""GUI benchmark (issues 4, 14): what the window costs the crawl, and whether it stays smooth on a
big pool. Prints pages/s and the worst event-loop stall, headless and with the window, in one go.

(a) crawl -- the same demo crawl (default 50 hosts x 100 articles, concurrency 50, one
    connection per host, no delay, robots off, until idle) run twice per round, each in its own
    process against a fresh demo-site process (pinned to its own core when there are two or
    more):

    * ``headless`` -- ``CrawlSession`` + its crawler on a plain asyncio loop;
    * ``window``   -- the same on a qasync loop with the ``MainWindow`` open offscreen
      (``QT_QPA_PLATFORM=offscreen``), shown and refreshing on its timer as a user has it.

    Both run a stall probe: a coroutine that sleeps 10 ms in a loop and records how late it
    wakes (under qasync it runs on the Qt loop, so paints and model updates count), and time
    the loop thread's CPU and the garbage collector's runs. Both use the crawl settings a
    window user gets (article extraction as ``--extract``, default the window's default; the
    session keeps the pages' search index up to date in both, as it does for any crawl).
    Targets (issue 14): the window costs <= 5 % of the headless pages/s, median of the rounds;
    no stall > 50 ms.

    Where the time goes: after the timed rounds one more pair runs under cProfile (timed by
    CPU, ``time.thread_time``; several times slower, so not timed) and the loop thread's CPU
    per page is printed by component, headless beside window (``COMPONENTS``: our loop's
    scheduling, qasync's fd notifiers, asyncio, the window's models and widgets, Qt's C++
    paint/layout/dispatch, aiohttp, parsing, the pool, the page store). ``--no-profile-round``
    skips it; ``--profile PATH`` keeps the profiles.

(b) scale -- a LevelDB pool with 1,000,000 waiting URLs over 10,000 hosts (filled with
    ``add_many_sync`` once and cached under ``--cache-dir``; every run works on a copy), 1,000
    URLs leased (the In-flight pane), a few hundred retrying, 200 hubs. The window opens
    offscreen on it (the crawler is not started); a synthetic driver reports ~20 results and
    pops ~20 URLs every 10 ms so every pane changes all the time. Phases: the default view,
    then the Hosts pane sorted busiest first, then filtered, then the In-flight pane sorted by
    elapsed time. Reported per phase: worst loop stall, refresh tick p50/p99/max (the window's
    ``refresh`` coroutine, timed), and memory. Target: no stall > 50 ms.

    python benchmarks/gui.py                         # both parts
    python benchmarks/gui.py --part crawl --runs 3   # (a) only, best and median of 3 rounds
    python benchmarks/gui.py --part crawl --extract off   # (a) without article extraction
    python benchmarks/gui.py --part scale --profile /tmp/gui.prof   # cProfile (b) (+ .txt)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import (
    StallProbe,
    TickTimer,
    cpu_seconds,
    cpu_steal,
    demo_crawl_settings,
    emit,
    make_window,
    new_qt_loop,
    pin,
    run_child,
    steal_percent,
    thread_cpu,
)

STALL_LIMIT_MS = 50.0
COST_LIMIT_PCT = 5.0


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


#: (path fragment, component): a function's own time goes to the first rule its file matches.
#: Time in functions that match none (builtins, the standard library) goes to their callers'
#: components, split by the calls' own times; time outside every Python function on the loop
#: thread is Qt's C++ (``QT_COMPONENT``; zero headless, where the loop is Python).
COMPONENTS: tuple[tuple[str, str], ...] = (
    ("crawler_gui/gui/loop.py", "loop: scheduling (ours)"),
    ("/qasync/", "loop: qasync (fd notifiers)"),
    ("/asyncio/", "loop: asyncio, transports"),
    ("selectors.py", "loop: asyncio, transports"),
    ("crawler_gui/gui/models.py", "window: table models"),
    ("crawler_gui/gui/", "window: refresh, widgets"),
    ("/aiohttp/", "http: aiohttp, yarl"),
    ("/yarl/", "http: aiohttp, yarl"),
    ("/multidict/", "http: aiohttp, yarl"),
    ("/aiohappyeyeballs/", "http: aiohttp, yarl"),
    ("crawler_gui/engine/links.py", "crawl: parse, links"),
    ("crawler_gui/engine/decode.py", "crawl: parse, links"),
    ("crawler_gui/core/leveldb/", "pool (LevelDB)"),
    ("crawler_gui/engine/store/", "crawl: page store"),
    ("crawler_gui/engine/warc.py", "crawl: page store"),
    ("crawler_gui/", "crawl: engine"),
    ("benchmarks/", "benchmark probes"),
    ("/logging/", "logging"),
)
QT_COMPONENT = "Qt C++: paint, layout, dispatch"


def profile_components(stats: Any, loop_cpu: float) -> dict[str, float]:
    """Seconds per component of a ``cProfile`` run timed with ``time.thread_time`` (CPU of the
    profiled thread); ``loop_cpu`` is that thread's CPU over the same span."""
    raw: dict[Any, Any] = stats.stats  # (file, line, name) -> (cc, nc, tt, ct, callers)

    def own(key: Any) -> str | None:
        path = key[0].replace("\\", "/")
        for part, component in COMPONENTS:
            if part in path:
                return component
        return None

    memo: dict[Any, dict[str, float]] = {}

    def shares(key: Any, seen: frozenset[Any] = frozenset()) -> dict[str, float]:
        """How ``key``'s time divides among components (fractions summing to 1)."""
        if key in memo:
            return memo[key]
        c = own(key)
        if c is not None:
            out = {c: 1.0}
        else:
            callers = raw.get(key, (0, 0, 0.0, 0.0, {}))[4]
            weights = {k: v[2] for k, v in callers.items() if k not in seen and k in raw}
            total = sum(weights.values())
            if not total:
                out = {"other": 1.0}
            else:
                out = {}
                for k, w in weights.items():
                    for comp, f in shares(k, seen | {key}).items():
                        out[comp] = out.get(comp, 0.0) + f * w / total
        if not seen:
            memo[key] = out
        return out

    result: dict[str, float] = {}
    for key, (_cc, _nc, tt, _ct, _callers) in raw.items():
        for comp, f in shares(key).items():
            result[comp] = result.get(comp, 0.0) + tt * f
    profiled = sum(result.values())
    result[QT_COMPONENT] = max(0.0, loop_cpu - profiled)
    return {k: v for k, v in sorted(result.items()) if v >= 0.0005}


class GcTimer:
    """Durations of the cyclic garbage collector's runs (they stall the loop too)."""

    def __init__(self) -> None:
        import gc

        self.samples: list[tuple[float, int, float]] = []  # (end time, generation, seconds)
        self._t0 = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            t = time.perf_counter()
            self.samples.append((t, int(info.get("generation", -1)), t - self._t0))

    def summary(self, t_from: float = 0.0, t_to: float = float("inf")) -> dict[str, Any]:
        d = [(g, x) for t, g, x in self.samples if t_from <= t <= t_to]
        return {
            "runs": len(d),
            "total_ms": 1000 * sum(x for _, x in d),
            "max_ms": 1000 * max((x for _, x in d), default=0.0),
            "gen2": sum(1 for g, _ in d if g == 2),
        }


# ---- the demo site, in its own process ---------------------------------------------------------


def role_serve(args: argparse.Namespace) -> None:
    """Serve until stdin closes or SIGTERM; print the port first."""
    from crawler_gui.demo.site import DemoSite

    async def serve() -> None:
        site = DemoSite(args.hosts, args.articles, port=0, slow_share=0.0, latency=0.0, seed=1)
        await site.start()
        print(json.dumps({"port": site.port, "pid": os.getpid()}), flush=True)
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        eof = loop.run_in_executor(None, sys.stdin.buffer.read)
        eof.add_done_callback(lambda _f: loop.call_soon_threadsafe(stop.set))
        await stop.wait()
        await site.stop()
        print(json.dumps({"requests": site.total_requests}), flush=True)
        os._exit(0)  # the executor thread is still blocked in read()

    asyncio.run(serve())


# ---- (a) the demo crawl, headless or with the window ---------------------------------------------


def role_crawl(args: argparse.Namespace) -> None:
    from crawler_gui.demo.site import DemoSite
    from crawler_gui.engine.session import CrawlSession

    site = DemoSite(args.hosts, args.articles, port=args.port, slow_share=0.0, seed=1)
    workdir = Path(tempfile.mkdtemp(prefix="gui-bench-crawl-"))
    settings = demo_crawl_settings(args.concurrency, extract=args.extract)
    with_window = args.role == "crawl-window"

    async def main() -> dict[str, Any]:
        session = await CrawlSession.open(workdir / "pool", settings, demo_site=site)
        window = None
        ticks = None
        if with_window:
            window = make_window(session, workdir, args.refresh_ms)
            ticks = TickTimer(window)
            window.start_refresh()
            await asyncio.sleep(0.3)  # the first paints and refreshes, as a user opens it
        probe = StallProbe()
        probe.start()
        gcs = GcTimer()
        prof = None
        if args.profile:
            import cProfile

            prof = cProfile.Profile(time.thread_time)  # CPU, not wall: waiting is not cost
        try:
            c0 = cpu_seconds()
            s0 = cpu_steal()
            th0 = thread_cpu()
            l0 = time.thread_time()
            turns0 = getattr(asyncio.get_running_loop(), "_turns", None)  # (the window's loop)
            if prof is not None:
                prof.enable()
            t0 = time.perf_counter()
            if window is not None:
                window.start()  # the Start button
            else:
                session.crawler.start()
            state = await session.crawler.wait()
            t1 = time.perf_counter()
            if prof is not None:
                prof.disable()
            cpu = cpu_seconds() - c0
            steal = steal_percent(s0, cpu_steal())
            th1 = thread_cpu()
            loop_cpu = time.thread_time() - l0
            turns = getattr(asyncio.get_running_loop(), "_turns", None)
            await probe.stop()
            pages = sum(1 for _ in session.store.iter_records())
            expected = len(site.expected_urls())
        finally:
            await probe.stop()
            if window is not None:
                await window.shutdown()
            else:
                await session.close()
        out: dict[str, Any] = {
            "mode": "window" if with_window else "headless",
            "pages": pages,
            "expected": expected,
            "seconds": t1 - t0,
            "cpu": cpu,
            "loop_cpu": loop_cpu,
            "steal_pct": steal,
            # CPU seconds by thread name over the crawl (threads that ended meanwhile count
            # only their time before the start)
            "threads": {
                k: round(v - th0.get(k, 0.0), 2)
                for k, v in sorted(th1.items(), key=lambda kv: -kv[1])
                if v - th0.get(k, 0.0) >= 0.05
            },
            "state": str(state),
            "stall": probe.summary(t0, t1),
            "gc": gcs.summary(t0, t1),
        }
        if prof is not None:
            out["components"] = profile_components(pstats.Stats(prof), loop_cpu)
            path = f"{args.profile}.{out['mode']}"
            prof.dump_stats(path)
            with open(path + ".txt", "w") as fh:
                st = pstats.Stats(prof, stream=fh).strip_dirs()
                st.sort_stats("tottime").print_stats(40)
                st.sort_stats("cumulative").print_stats(60)
        if ticks is not None and window is not None:
            out["ticks"] = ticks.summary(t0, t1)
            out["skipped_ticks"] = window.skipped_ticks
        if turns is not None and turns0 is not None:
            out["turns"] = turns - turns0  # the Qt loop's turns (each a trip through Qt)
        return out

    try:
        if with_window:
            _app, loop = new_qt_loop()
            try:
                result = loop.run_until_complete(main())
            finally:
                loop.close()
                asyncio.set_event_loop(None)
        else:
            result = asyncio.run(main())
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    emit(result, exit_now=with_window)


# ---- (b) scale: a 1M-URL pool with the window open ---------------------------------------------


def scale_host(i: int) -> str:
    return f"h{i:05d}.example.com"


def fill_pool(path: Path, urls: int, hosts: int) -> float:
    """``urls`` waiting URLs spread round-robin over ``hosts`` hosts, in 50k-URL batches."""
    from crawler_gui.core.leveldb import LevelDBPool
    from crawler_gui.core.policy import PoolConfig

    t0 = time.perf_counter()
    pool = LevelDBPool.open(path, PoolConfig())
    try:
        batch = 50_000
        for start in range(0, urls, batch):
            chunk = [
                f"http://{scale_host(i % hosts)}/news/{i // hosts}/story-{i}.html"
                for i in range(start, min(urls, start + batch))
            ]
            pool.add_many_sync(chunk)
        assert pool.totals_sync().waiting == urls, pool.totals_sync()
    finally:
        pool.close_sync()
    return time.perf_counter() - t0


def cached_pool(args: argparse.Namespace) -> tuple[Path, float | None]:
    """The filled pool under the cache dir (filled now if missing). Returns (dir, fill s)."""
    cache = Path(args.cache_dir) / f"pool-{args.scale_urls}-{args.scale_hosts}"
    marker = cache / "filled.json"
    if marker.exists():
        return cache, None
    shutil.rmtree(cache, ignore_errors=True)
    tmp = cache.with_name(cache.name + ".filling")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    seconds = fill_pool(tmp, args.scale_urls, args.scale_hosts)
    (tmp / "filled.json").write_text(json.dumps({"seconds": seconds}))
    tmp.rename(cache)
    return cache, seconds


def role_scale(args: argparse.Namespace) -> None:
    import random

    from crawler_gui.core.frontier import HubSpec
    from crawler_gui.core.policy import FetchResult
    from crawler_gui.engine.session import CrawlSession
    from crawler_gui.engine.settings import CrawlSettings

    cache, fill_s = cached_pool(args)
    workdir = Path(tempfile.mkdtemp(prefix="gui-bench-scale-"))
    t_copy = time.perf_counter()
    shutil.copytree(cache, workdir / "pool")
    t_copy = time.perf_counter() - t_copy
    rng = random.Random(4)
    settings = CrawlSettings(
        concurrency=50,
        per_host=1,
        min_delay=0.0,
        delay_factor=0.0,
        obey_robots=False,
        retry_base=120.0,
        failure_threshold=3,
    )
    phases = [
        ("default view", args.scale_seconds),
        ("hosts: filtered", args.phase_seconds),
        ("hosts: filtered + busiest", args.phase_seconds),
        ("hosts: busiest first", args.phase_seconds),
        ("in flight: by elapsed", args.phase_seconds),
    ]
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()

    async def main() -> dict[str, Any]:
        rss0 = rss_mb()
        t_open = time.perf_counter()
        session = await CrawlSession.open(workdir / "pool", settings)
        t_open = time.perf_counter() - t_open
        pool = session.frontier
        rss_pool = rss_mb()
        # hubs, leases, retries
        hubs = [HubSpec(f"http://{scale_host(i * 50)}/", 600.0) for i in range(200)]
        pool.set_hubs_sync(hubs)
        leased: list[str] = [x.url for x in pool.pop_sync(args.scale_leases, 10)]
        fail = leased[: args.scale_leases // 3]
        pool.set_status_many_sync([(u, FetchResult(status=503)) for u in fail])
        leased = leased[len(fail) :]
        leased += [x.url for x in pool.pop_sync(args.scale_leases - len(leased), 0)]
        t = pool.totals_sync()
        setup = {
            "waiting": t.waiting,
            "pending": t.pending,
            "retrying": t.retrying,
            "hubs": t.hubs,
            "hosts": t.hosts,
        }

        window = make_window(session, workdir, args.refresh_ms)
        ticks = TickTimer(window)
        gcs = GcTimer()
        probe = StallProbe()
        probe.start()
        await asyncio.sleep(0.05)
        t_first = time.perf_counter()
        window.start_refresh()  # the first tick loads every host row
        while window.ticks < 1 or not window._refresh_task.done():
            await asyncio.sleep(0.005)
        first_tick = ticks.samples[0][1] if ticks.samples else None
        await asyncio.sleep(0.5)  # let the first paints settle; counted in "opening"
        t_opened = time.perf_counter()
        rss_window = rss_mb()
        if args.gc_freeze:  # experiment: keep the long-lived objects out of the collector
            import gc

            gc.collect()
            gc.freeze()

        stats = {"steps": 0, "results": 0, "popped": 0, "step_max": 0.0}
        stop = asyncio.Event()

        async def driver() -> None:
            """Every 10 ms: ~20 results (mostly 200, some 503 -> retrying, some 404), then pop
            as many, so hosts, leases, retries change on every tick."""
            codes = [200] * 16 + [503, 503, 404, 301]
            while not stop.is_set():
                s0 = time.perf_counter()
                n = min(len(leased), 20)
                done, leased[:n] = leased[:n], []
                res = []
                for u in done:
                    code = rng.choice(codes)
                    res.append(
                        (
                            u,
                            FetchResult(
                                status=code,
                                elapsed=0.05,
                                redirect_to=u + "?r" if code == 301 else None,
                            ),
                        )
                    )
                pool.set_status_many_sync(res)
                got = pool.pop_sync(args.scale_leases - len(leased), 5)
                leased.extend(x.url for x in got)
                stats["steps"] += 1
                stats["results"] += n
                stats["popped"] += len(got)
                stats["step_max"] = max(stats["step_max"], time.perf_counter() - s0)
                await asyncio.sleep(0.010)

        drive = asyncio.get_running_loop().create_task(driver())
        from PySide6.QtCore import Qt

        out_phases = []
        if prof is not None:
            prof.enable()
        try:
            for name, seconds in phases:
                if seconds <= 0:
                    continue
                if name == "hosts: filtered":
                    window.hosts_pane.filter.setText("7.ex")  # ~1,000 of the 10,000 hosts
                elif name == "hosts: filtered + busiest":
                    window.busiest.setChecked(True)
                elif name == "hosts: busiest first":
                    window.hosts_pane.filter.setText("")
                elif name.startswith("in flight"):
                    window.hosts_pane.filter.setText("")
                    window.busiest.setChecked(False)
                    window.docks["inflight"].raise_()
                    window.inflight_pane.view.sortByColumn(4, Qt.SortOrder.DescendingOrder)
                p0 = time.perf_counter()
                await asyncio.sleep(seconds)
                p1 = time.perf_counter()
                out_phases.append(
                    {
                        "phase": name,
                        "seconds": p1 - p0,
                        "stall": probe.summary(p0, p1),
                        "ticks": ticks.summary(p0, p1),
                        "gc": gcs.summary(p0, p1),
                    }
                )
        finally:
            if prof is not None:
                prof.disable()
            stop.set()
            await drive
        rss_end = rss_mb()
        t = pool.totals_sync()
        end = {
            "waiting": t.waiting,
            "pending": t.pending,
            "retrying": t.retrying,
            "done": t.done,
            "hubs": t.hubs,
        }
        rows = {
            k: getattr(window, f"{k}_model").rowCount()
            for k in ("hosts", "inflight", "retries", "hubs")
        }
        await probe.stop()
        await window.shutdown()
        return {
            "fill_seconds": fill_s,
            "copy_seconds": t_copy,
            "open_seconds": t_open,
            "setup": setup,
            "end": end,
            "rows": rows,
            "first_tick_ms": None if first_tick is None else 1000 * first_tick,
            "opening_stall": probe.summary(t_first, t_opened),
            "phases": out_phases,
            "driver": {
                "steps": stats["steps"],
                "results": stats["results"],
                "popped": stats["popped"],
                "step_max_ms": 1000 * stats["step_max"],
            },
            "skipped_ticks": window.skipped_ticks,
            "rss_mb": {
                "start": rss0,
                "pool_open": rss_pool,
                "window_open": rss_window,
                "end": rss_end,
            },
        }

    _app, loop = new_qt_loop()
    try:
        result = loop.run_until_complete(main())
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        shutil.rmtree(workdir, ignore_errors=True)
    if prof is not None:
        prof.dump_stats(args.profile)
        with open(args.profile + ".txt", "w") as fh:
            st = pstats.Stats(prof, stream=fh).strip_dirs()
            st.sort_stats("tottime").print_stats(40)
            st.sort_stats("cumulative").print_stats(60)
    emit(result, exit_now=True)


# ---- the parent --------------------------------------------------------------------------------


def run_crawl(args: argparse.Namespace, mode: str, profile: str | None = None) -> dict[str, Any]:
    """A fresh demo-site process, then the crawl's process (on separate cores if possible)."""
    me = [sys.executable, os.path.abspath(__file__)]
    sizes = ["--hosts", str(args.hosts), "--articles", str(args.articles)]
    ncpu = os.cpu_count() or 1
    server_cpus = {ncpu - 1} if args.pin and ncpu >= 2 else None
    # The crawl's own process keeps off the site's core; its extraction workers (which inherit
    # the affinity) may use every core, as a user's do -- pinned with the loop they would all
    # share one core and the crawl would run at a third of the machine's extraction rate.
    crawl_cpus = set(range(ncpu - 1)) if server_cpus and args.extract == "off" else None
    server = subprocess.Popen(
        [*me, "--role", "serve", *sizes], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    if server_cpus:
        pin(server.pid, server_cpus)
    try:
        assert server.stdout is not None
        port = json.loads(server.stdout.readline())["port"]
        cmd = [
            *me,
            "--role",
            f"crawl-{mode}",
            "--port",
            str(port),
            *sizes,
            "--concurrency",
            str(args.concurrency),
            "--refresh-ms",
            str(args.refresh_ms),
            "--extract",
            args.extract,
        ]
        if profile:
            cmd += ["--profile", profile]
        return run_child(cmd, args.timeout * (4 if profile else 1), crawl_cpus)
    finally:
        assert server.stdin is not None
        with contextlib.suppress(OSError):
            server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def part_crawl(args: argparse.Namespace) -> dict[str, Any]:
    print(
        f"(a) demo crawl: {args.hosts} hosts x {args.articles} articles, concurrency "
        f"{args.concurrency}, no delay, robots off, until idle; window refresh every "
        f"{args.refresh_ms} ms; {args.runs} round(s); {os.cpu_count()} CPUs"
        + (", demo site pinned to its own core" if args.pin and (os.cpu_count() or 1) > 1 else "")
        + f"; article extraction {args.extract}, search index kept up to date (both modes)",
        flush=True,
    )
    results: dict[str, list[dict[str, Any]]] = {"headless": [], "window": []}
    for run in range(args.runs):
        order = ("headless", "window") if run % 2 == 0 else ("window", "headless")
        for mode in order:
            r = run_crawl(args, mode)
            results[mode].append(r)
            if "error" in r:
                print(f"  round {run + 1} {mode:<8} FAILED {r['error']}", flush=True)
                continue
            extra = ""
            if "ticks" in r:
                tk = r["ticks"]
                extra = (
                    f", {tk['ticks']} refreshes p50 {tk['p50_ms']:.1f} / max {tk['max_ms']:.1f} ms"
                )
            if "turns" in r:
                extra += f", {r['turns'] / max(r['pages'], 1):.1f} loop turns a page"

            print(
                f"  round {run + 1} {mode:<8} {r['pages'] / r['seconds']:>7,.0f} pages/s "
                f"({r['pages']:,}/{r['expected']:,} pages in {r['seconds']:.2f} s, cpu "
                f"{r['cpu']:.2f} s, cpu steal {r.get('steal_pct', 0.0):.0f} %, "
                f"worst stall {r['stall']['max_ms']:.1f} ms "
                f"{r['stall'].get('worst', [])[:3]}, rss "
                f"{r['peak_rss_mb']:.0f} MB{extra})",
                flush=True,
            )
    if args.profile_round:
        # one more pair, profiled (cProfile on CPU time: several times slower, so not timed)
        prof_base = args.profile or os.path.join(
            tempfile.mkdtemp(prefix="gui-bench-prof-"), "crawl"
        )
        print(f"  profiled round (not timed; profiles in {prof_base}.headless/.window)", flush=True)
        profiled: dict[str, Any] = {}
        for mode in ("headless", "window"):
            r = run_crawl(args, mode, prof_base)
            if "error" in r:
                print(f"  profiled {mode} FAILED {r['error']}", flush=True)
            else:
                profiled[mode] = r
        results["profiled"] = profiled  # type: ignore[assignment]
    return results


def part_scale(args: argparse.Namespace) -> dict[str, Any]:
    print(
        f"(b) scale: {args.scale_urls:,} waiting URLs over {args.scale_hosts:,} hosts, "
        f"{args.scale_leases:,} leased; window refresh every {args.refresh_ms} ms; "
        f"driver: ~20 results + ~20 pops every 10 ms",
        flush=True,
    )
    me = [sys.executable, os.path.abspath(__file__)]
    cmd = [
        *me,
        "--role",
        "scale",
        "--cache-dir",
        args.cache_dir,
        "--scale-urls",
        str(args.scale_urls),
        "--scale-hosts",
        str(args.scale_hosts),
        "--scale-leases",
        str(args.scale_leases),
        "--scale-seconds",
        str(args.scale_seconds),
        "--phase-seconds",
        str(args.phase_seconds),
        "--refresh-ms",
        str(args.refresh_ms),
    ]
    if args.profile:
        cmd += ["--profile", args.profile]
    if args.gc_freeze:
        cmd += ["--gc-freeze"]
    r = run_child(cmd, args.timeout + 600)  # the first run fills the pool (minutes)
    if "error" in r:
        print(f"  FAILED {r['error']}", flush=True)
    return r


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def print_components(ok: dict[str, list[dict[str, Any]]], profiled: dict[str, Any]) -> None:
    """Where the time goes: the timed rounds' loop-thread CPU and garbage collection (medians),
    and the profiled round's split of the loop thread's CPU by component, headless beside
    window. The split comes from cProfile (its overhead inflates Python code against Qt's C++),
    so read it for where the difference is, not as exact seconds."""
    modes = [m for m in ("headless", "window") if ok.get(m)]
    if not modes:
        return

    def med(m: str, f: Any) -> float:
        return statistics.median(f(r) for r in ok[m])

    delta = len(modes) == 2
    print()
    print(
        f"{'timed rounds (median)':<34}"
        + "".join(f"{m:>11}" for m in modes)
        + (f"{'window - headless':>19}" if delta else "")
    )
    rows: list[tuple[str, Any, str]] = [
        ("loop thread CPU per page", lambda r: 1e3 * r["loop_cpu"] / max(1, r["pages"]), "ms"),
        (
            "garbage collection per page",
            lambda r: 1e3 * r["gc"]["total_ms"] / 1e3 / max(1, r["pages"]),
            "ms",
        ),
        ("whole process CPU per page", lambda r: 1e3 * r["cpu"] / max(1, r["pages"]), "ms"),
        ("longest collection", lambda r: r["gc"]["max_ms"], "ms"),
    ]
    for label, f, unit in rows:
        vals = [med(m, f) for m in modes]
        line = f"{label + ' (' + unit + ')':<34}" + "".join(f"{v:>11.3f}" for v in vals)
        if delta:
            line += f"{vals[1] - vals[0]:>+19.3f}"
        print(line)
    # the process's CPU by thread (Linux): where the CPU outside the loop thread goes
    names: dict[str, float] = {}
    for m in modes:
        for r in ok[m]:
            for name, sec in r.get("threads", {}).items():
                names[name] = max(names.get(name, 0.0), sec)
    for name in sorted(names, key=lambda n: -names[n])[:8]:
        vals = [
            med(m, lambda r, n=name: 1e3 * r.get("threads", {}).get(n, 0.0) / max(1, r["pages"]))
            for m in modes
        ]
        line = f"{'  thread ' + name[:20] + ' (ms/page)':<34}" + "".join(
            f"{v:>11.3f}" for v in vals
        )
        if delta:
            line += f"{vals[1] - vals[0]:>+19.3f}"
        print(line)
    pm = [m for m in modes if m in profiled and "components" in profiled[m]]
    if not pm:
        return
    comps = {m: profiled[m]["components"] for m in pm}
    pages = {m: max(1, profiled[m]["pages"]) for m in pm}
    names = sorted(
        {k for m in pm for k in comps[m]},
        key=lambda k: -max(comps[m].get(k, 0.0) / pages[m] for m in pm),
    )
    delta = len(pm) == 2
    print(
        f"{'profiled: loop CPU ms per page':<34}"
        + "".join(f"{m:>11}" for m in pm)
        + (f"{'window - headless':>19}" if delta else "")
    )
    for k in names:
        vals = [1e3 * comps[m].get(k, 0.0) / pages[m] for m in pm]
        line = f"  {k:<32}" + "".join(f"{v:>11.3f}" for v in vals)
        if delta:
            line += f"{vals[1] - vals[0]:>+19.3f}"
        print(line)
    vals = [1e3 * sum(comps[m].values()) / pages[m] for m in pm]
    line = f"  {'= total':<32}" + "".join(f"{v:>11.3f}" for v in vals)
    if delta:
        line += f"{vals[1] - vals[0]:>+19.3f}  ({100 * (vals[1] / vals[0] - 1):+.1f} %)"
    print(line)


def summarize(crawl: dict[str, Any] | None, scale: dict[str, Any] | None) -> None:
    print()
    print("=" * 96)
    if crawl:
        ok = {m: [r for r in crawl.get(m, []) if "error" not in r] for m in ("headless", "window")}
        print(
            f"{'(a) demo crawl':<22} {'pages/s best':>12} {'median':>8} {'runs':>5} "
            f"{'worst stall ms':>15} {'stall p99 ms':>13} {'>50ms':>6} {'peak RSS':>9}"
        )
        rates: dict[str, tuple[float, float]] = {}
        for mode in ("headless", "window"):
            rs = ok[mode]
            if not rs:
                print(f"{mode:<22} failed")
                continue
            pr = [r["pages"] / r["seconds"] for r in rs]
            rates[mode] = (max(pr), statistics.median(pr))
            worst = max(r["stall"]["max_ms"] for r in rs)
            p99 = max(r["stall"]["p99_ms"] for r in rs)
            over = sum(r["stall"]["over_50ms"] for r in rs)
            rss = max(r["peak_rss_mb"] for r in rs)
            print(
                f"{mode:<22} {max(pr):>12,.0f} {statistics.median(pr):>8,.0f} {len(rs):>5} "
                f"{worst:>15.1f} {p99:>13.1f} {over:>6} {rss:>7.0f} MB"
            )
        if "headless" in rates and "window" in rates:
            cost_best = 100 * (1 - rates["window"][0] / rates["headless"][0])
            cost_med = 100 * (1 - rates["window"][1] / rates["headless"][1])
            print(
                f"window cost: {cost_best:+.1f} % of headless pages/s (best), {cost_med:+.1f} % "
                f"(median) -> {verdict(cost_med <= COST_LIMIT_PCT)} "
                f"(target <= {COST_LIMIT_PCT:.0f} %)"
            )
            worst = max(r["stall"]["max_ms"] for r in ok["window"])
            print(
                f"window worst stall during the crawl: {worst:.1f} ms -> "
                f"{verdict(worst <= STALL_LIMIT_MS)} (target <= {STALL_LIMIT_MS:.0f} ms)"
            )
            ticks = [r["ticks"] for r in ok["window"] if "ticks" in r]
            if ticks:
                print(
                    "window refresh tick during the crawl: p50 "
                    f"{max(t['p50_ms'] for t in ticks):.1f} ms, p99 "
                    f"{max(t['p99_ms'] for t in ticks):.1f} ms, max "
                    f"{max(t['max_ms'] for t in ticks):.1f} ms"
                )
        print_components(ok, crawl.get("profiled") or {})
        print()
    if scale and "error" not in scale:
        s = scale
        fill = (
            f"filled in {s['fill_seconds']:.1f} s"
            if s["fill_seconds"] is not None
            else "from cache"
        )
        print(
            f"(b) scale: pool {fill}, copied in {s['copy_seconds']:.1f} s, opened in "
            f"{s['open_seconds']:.2f} s; setup {s['setup']}"
        )
        print(f"    rows at the end {s['rows']}; driver {s['driver']}")
        print(
            f"    first refresh (all {s['setup']['hosts']:,} host rows): "
            f"{s['first_tick_ms']:.0f} ms; worst stall while opening "
            f"{s['opening_stall']['max_ms']:.0f} ms"
        )
        print(
            f"{'phase':<26} {'secs':>5} {'ticks':>6} {'tick p50':>9} {'p99':>7} {'max':>7} "
            f"{'worst stall':>12} {'p99':>6} {'>50ms':>6} {'>20ms':>6} {'max gc':>7}"
        )
        worst = 0.0
        for ph in s["phases"]:
            tk, st = ph["ticks"], ph["stall"]
            worst = max(worst, st["max_ms"])
            print(
                f"{ph['phase']:<26} {ph['seconds']:>5.1f} {tk['ticks']:>6} "
                f"{tk['p50_ms']:>7.1f}ms {tk['p99_ms']:>5.1f}ms {tk['max_ms']:>5.1f}ms "
                f"{st['max_ms']:>10.1f}ms {st['p99_ms']:>4.1f}ms {st['over_50ms']:>6} "
                f"{st['over_20ms']:>6} {ph['gc']['max_ms']:>5.1f}ms"
            )
        m = s["rss_mb"]
        print(
            f"    memory (RSS): start {m['start']:.0f} MB, pool open {m['pool_open']:.0f} MB, "
            f"window open {m['window_open']:.0f} MB, end {m['end']:.0f} MB, peak "
            f"{s['peak_rss_mb']:.0f} MB"
        )
        print(
            f"    worst stall while refreshing: {worst:.1f} ms -> "
            f"{verdict(worst <= STALL_LIMIT_MS)} (target <= {STALL_LIMIT_MS:.0f} ms); "
            f"skipped ticks {s['skipped_ticks']}"
        )
    print("=" * 96)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--role",
        choices=("serve", "crawl-headless", "crawl-window", "scale"),
        help=argparse.SUPPRESS,
    )
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--part", choices=("all", "crawl", "scale"), default="all")
    ap.add_argument("--hosts", type=int, default=50)
    ap.add_argument("--articles", type=int, default=100, help="articles per host")
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3, help="(a) rounds of headless + window")
    ap.add_argument(
        "--refresh-ms",
        type=int,
        help="the window's refresh timer (default: the window's default update speed)",
    )
    ap.add_argument(
        "--extract",
        choices=("on", "off", "later"),
        help="(a) article extraction, the same in both modes (default: the window's default)",
    )
    ap.add_argument(
        "--no-pin",
        dest="pin",
        action="store_false",
        help="do not pin the demo site to its own core",
    )
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "crawler-gui-bench"))
    ap.add_argument("--scale-urls", type=int, default=1_000_000)
    ap.add_argument("--scale-hosts", type=int, default=10_000)
    ap.add_argument("--scale-leases", type=int, default=1_000)
    ap.add_argument("--scale-seconds", type=float, default=20.0, help="(b) default-view phase")
    ap.add_argument(
        "--phase-seconds",
        type=float,
        default=8.0,
        help="(b) each further phase (sorted, filtered, in-flight); 0: skip them",
    )
    ap.add_argument(
        "--profile",
        help="(a) keep the profiled round's cProfile data in PROFILE.headless/.window (+ .txt); "
        "(b) cProfile the phases into PROFILE (+ .txt)",
    )
    ap.add_argument(
        "--no-profile-round",
        dest="profile_round",
        action="store_false",
        help="(a) skip the extra profiled round that splits the loop's CPU by component",
    )
    ap.add_argument(
        "--gc-freeze",
        action="store_true",
        help="(b) experiment: gc.freeze() once the window is open",
    )
    ap.add_argument("--timeout", type=float, default=300.0, help="per-process safety limit")
    ap.add_argument("--json", help="also write all results to this file")
    args = ap.parse_args()
    if args.extract is None:
        from crawler_gui.gui.prefs import WINDOW_DEFAULTS

        args.extract = WINDOW_DEFAULTS.extract
    if args.refresh_ms is None:
        from crawler_gui.gui.mainmenu import DEFAULT_REFRESH_MS

        args.refresh_ms = DEFAULT_REFRESH_MS
    if args.role:
        {
            "serve": role_serve,
            "crawl-headless": role_crawl,
            "crawl-window": role_crawl,
            "scale": role_scale,
        }[args.role](args)
        return
    crawl = part_crawl(args) if args.part in ("all", "crawl") else None
    scale = part_scale(args) if args.part in ("all", "scale") else None
    summarize(crawl, scale)
    if args.json:
        Path(args.json).write_text(json.dumps({"crawl": crawl, "scale": scale}, indent=1))


if __name__ == "__main__":
    main()
