"""Helpers the benchmarks share: process CPU and memory, the ``RESULT`` line a child prints,
the event-loop stall probe, the window's refresh timer, a window on a Qt loop, running a
child, and the crawl settings the demo-crawl benchmarks (``crawl.py``, ``gui.py``,
``attach.py``) all use. Run as scripts, the benchmarks import it as ``common`` (their folder
is on ``sys.path``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_split() -> tuple[float, float, int]:
    """This process's (user CPU s, kernel CPU s, context switches) so far: where a CPU
    figure's time went (the kernel's share is system calls: sockets, files, thread wake-ups)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_nvcsw + r.ru_nivcsw


def split_since(before: tuple[float, float, int]) -> dict[str, float]:
    """:func:`cpu_split` since ``before``, as a result's fields."""
    user, system, switches = cpu_split()
    return {
        "user_cpu": user - before[0],
        "sys_cpu": system - before[1],
        "switches": switches - before[2],
    }


def cpu_steal() -> tuple[int, int]:
    """(steal, total) jiffies of all CPUs so far (Linux ``/proc/stat``; (0, 0) elsewhere): on a
    virtual machine, time the hypervisor gave to others while this machine wanted to run."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    steal = fields[7] if len(fields) > 7 else 0
    return steal, sum(fields[:8])


def thread_cpu() -> dict[str, float]:
    """CPU seconds of this process's threads so far, by thread name (Linux
    ``/proc/self/task``; {} elsewhere): which thread the CPU of a change went to."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue  # ended meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        # a pool's numbered threads count together ("search-index_0", "asyncio_3")
        key = name.rstrip("0123456789").rstrip("_-") or name
        out[key] = out.get(key, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def steal_percent(before: tuple[int, int], after: tuple[int, int]) -> float:
    total = after[1] - before[1]
    return 100.0 * (after[0] - before[0]) / total if total > 0 else 0.0


def emit(result: dict[str, Any], *, exit_now: bool = False) -> None:
    result.setdefault("peak_rss_mb", peak_rss_mb())
    print("RESULT " + json.dumps(result), flush=True)
    if exit_now:
        # Skip interpreter finalization: with Qt wrappers alive it aborts ("none_dealloc",
        # PySide6 6.12 + qasync; seen with and without this benchmark's changes).
        sys.stderr.flush()
        os._exit(0)


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))]


class StallProbe:
    """Sleeps ``interval`` in a loop on the running loop; records how late each wake-up is.

    With ``BENCH_STALL_STACKS=MS`` in the environment a watchdog thread also samples the loop
    thread's Python stack whenever a wake-up is more than MS ms overdue, and the summary's
    ``stacks`` lists them (innermost frames last): what the loop was doing in a long stall.
    A stall inside C code that holds the GIL shows the Python frame that called it."""

    def __init__(self, interval: float = 0.010) -> None:
        self.interval = interval
        self.samples: list[tuple[float, float]] = []  # (time of the wake-up, lateness s)
        self.stacks: list[tuple[float, float, str]] = []  # (time, ms overdue, stack)
        self._task: asyncio.Task[None] | None = None
        self._due = 0.0
        self._watch: threading.Thread | None = None
        self._stop_watch = threading.Event()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="stall-probe")
        threshold = float(os.environ.get("BENCH_STALL_STACKS") or 0) / 1000
        if threshold > 0:
            self._watch = threading.Thread(
                target=self._watchdog,
                args=(threading.get_ident(), threshold),
                name="stall-watchdog",
                daemon=True,
            )
            self._watch.start()

    async def _run(self) -> None:
        clock = time.perf_counter
        while True:
            t0 = clock()
            self._due = t0 + self.interval
            await asyncio.sleep(self.interval)
            t1 = clock()
            self._due = 0.0
            self.samples.append((t1, max(0.0, t1 - t0 - self.interval)))

    def _watchdog(self, loop_thread: int, threshold: float) -> None:
        import traceback

        last_due = -1.0
        while not self._stop_watch.wait(0.005):
            due = self._due
            over = time.perf_counter() - due
            if due and over > threshold and due != last_due:
                frames = sys._current_frames()
                frame = frames.get(loop_thread)
                if frame is not None:
                    stack = "".join(traceback.format_stack(frame, limit=12))
                    # the other threads' innermost frames: one of them may hold the GIL
                    names = {t.ident: t.name for t in threading.enumerate()}
                    for ident, other in frames.items():
                        if ident not in (loop_thread, threading.get_ident()):
                            code = other.f_code
                            stack += (
                                f"  [thread {names.get(ident, ident)}] "
                                f"{code.co_filename}:{other.f_lineno} {code.co_name}\n"
                            )
                    self.stacks.append((time.perf_counter(), 1000 * over, stack))
                    last_due = due

    async def stop(self) -> None:
        self._stop_watch.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def summary(self, t_from: float = 0.0, t_to: float = float("inf")) -> dict[str, Any]:
        inside = [(t, x) for t, x in self.samples if t_from <= t <= t_to]
        late = [x for _t, x in inside]
        worst = sorted(inside, key=lambda s: s[1])[-5:]
        return {
            "max_ms": 1000 * max(late, default=0.0),
            # the five worst, as (seconds after t_from the wake-up came, ms late): a stall at the
            # start or the end of a crawl has other causes than one in its middle
            "worst": [(round(t - t_from, 2), round(1000 * x, 1)) for t, x in reversed(worst)],
            "p99_ms": 1000 * pct(late, 99),
            "p50_ms": 1000 * pct(late, 50),
            "over_50ms": sum(1 for x in late if x > 0.050),
            "over_20ms": sum(1 for x in late if x > 0.020),
            "wakes": len(late),
            "stacks": [
                (round(t - t_from, 2), round(ms, 1), stack)
                for t, ms, stack in self.stacks
                if t_from <= t <= t_to
            ],
        }


def demo_crawl_settings(concurrency: int, **extra: Any) -> Any:
    """A demo crawl as fast as the demo site allows: one connection per host, no delay,
    robots off, private addresses allowed (the site is on loopback), until idle, quick
    retries of the site's deliberate 500s; ``extra`` adds or overrides settings."""
    from crawler_gui.engine.settings import CrawlMode, CrawlSettings

    fields: dict[str, Any] = {
        "concurrency": concurrency,
        "per_host": 1,
        "min_delay": 0.0,
        "delay_factor": 0.0,
        "obey_robots": False,
        "allow_private": True,
        "mode": CrawlMode.UNTIL_IDLE,
        "idle_span": 1.0,
        "retry_base": 0.05,
    }
    fields.update(extra)
    return CrawlSettings(**fields)


class TickTimer:
    """Wraps a window's ``refresh`` coroutine (an instance attribute shadows the method, which
    is what ``MainWindow._tick`` calls) and records each refresh's wall time."""

    def __init__(self, window: Any) -> None:
        self.samples: list[tuple[float, float]] = []  # (end time, seconds)
        orig = window.refresh

        async def timed() -> None:
            t0 = time.perf_counter()
            try:
                await orig()
            finally:
                t1 = time.perf_counter()
                self.samples.append((t1, t1 - t0))

        window.refresh = timed

    def summary(self, t_from: float = 0.0, t_to: float = float("inf")) -> dict[str, Any]:
        d = [x for t, x in self.samples if t_from <= t <= t_to]
        return {
            "ticks": len(d),
            "p50_ms": 1000 * pct(d, 50),
            "p99_ms": 1000 * pct(d, 99),
            "max_ms": 1000 * max(d, default=0.0),
            "slowest_ms": [round(1000 * x, 1) for x in sorted(d)[-5:]],
        }


def new_qt_loop() -> tuple[Any, Any]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from crawler_gui.gui.loop import BatchingEventLoop

    def quiet(mode: Any, _ctx: Any, msg: str) -> None:  # the offscreen plugin's chatter
        if mode != QtMsgType.QtDebugMsg and "does not support" not in msg:
            print(f"qt: {msg}", file=sys.stderr)

    qInstallMessageHandler(quiet)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    loop = BatchingEventLoop(app)
    asyncio.set_event_loop(loop)
    return app, loop


def make_window(session: Any, workdir: Path, refresh_ms: int) -> Any:
    """The window as ``open_and_show`` builds it (private QSettings: the user's are untouched)."""
    import logging

    from PySide6.QtCore import QSettings

    from crawler_gui.gui.mainwindow import MainWindow

    gui_logger = logging.getLogger("crawler_gui")
    if gui_logger.level == logging.NOTSET:
        gui_logger.setLevel(logging.INFO)  # as run_gui: the Log pane shows INFO and above
    qs = QSettings(str(workdir / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(session, qsettings=qs, refresh_ms=refresh_ms)
    window.show()
    return window


def pin(pid: int, cpus: set[int]) -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(pid, cpus)


def run_child(cmd: list[str], timeout: float, cpus: set[int] | None = None) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if cpus:
        pin(proc.pid, cpus)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": f"timed out after {timeout} s"}
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {err[-3000:]}"}
    result: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    if err.strip():
        result["stderr_tail"] = err.strip()[-400:]
    return result
