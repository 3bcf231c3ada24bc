"""Metrics of a headless crawl for a monitoring system: Prometheus text and a health check.

``crawler-gui crawl --metrics [HOST:]PORT`` serves, on the crawl's own event loop (an aiohttp
server: no thread, nothing that blocks the loop):

* ``/metrics`` -- Prometheus text (``prometheus-client``'s exposition): pages and bytes
  fetched, responses by status class, errors by kind, URLs in flight / waiting / retrying,
  hosts, hub refreshes, articles found and the histogram of their delay from publication to
  fetch, the crawl's state, event-loop stall, asyncio tasks, and the process's
  own figures (resident memory, open descriptors, CPU: prometheus-client's process collector);
* ``/health`` -- JSON ``{"state", "last_progress", "seconds_since_progress", ...}`` for a
  supervisor; status 200, or 503 once the crawl has failed.

The values are read when scraped (a snapshot of the crawler's counters and one of the pool's
totals), so the endpoint costs nothing between scrapes. Loop stall is measured all the time by
a small task that asks to wake every :data:`TICK` seconds and records how late it woke: a
blocked loop (a slow parse, a synchronous disk write) shows as a late wake-up.

Listening: loopback by default (a bare port means ``127.0.0.1``); all interfaces only when the
user names them (``0.0.0.0:9100`` or ``[::]:9100``), and then with a warning, because the
endpoint has no authentication.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import math
import time
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from crawler_gui.engine.settings import CrawlState
from crawler_gui.errors import ConfigError

if TYPE_CHECKING:
    from crawler_gui.core.frontier import PoolTotals
    from crawler_gui.engine.crawler import Crawler
    from crawler_gui.engine.extract.service import DelaySnapshot
    from crawler_gui.engine.stats import StatsSnapshot

__all__ = ["TICK", "LoopMonitor", "MetricsServer", "exposes_widely", "parse_listen"]

log = logging.getLogger(__name__)

#: Seconds between the loop monitor's wake-ups.
TICK = 0.1
#: The stall gauge is the longest lateness over this many seconds.
STALL_WINDOW = 60.0
_LOOPBACK = "127.0.0.1"


def parse_listen(text: str) -> tuple[str, int]:
    """``PORT``, ``:PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` -> ``(host, port)``; a missing host
    is loopback. Raises ConfigError with a one-line reason."""
    value = text.strip()
    host = ""
    port_text = value
    if value.startswith("["):
        end = value.find("]")
        if end < 0 or not value[end + 1 :].startswith(":"):
            raise ConfigError(f"--metrics {text!r}: use [ADDRESS]:PORT for an IPv6 address")
        host, port_text = value[1:end], value[end + 2 :]
    elif ":" in value:
        host, _, port_text = value.rpartition(":")
        if ":" in host:
            raise ConfigError(f"--metrics {text!r}: write an IPv6 address as [ADDRESS]:PORT")
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"--metrics {text!r}: {port_text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise ConfigError(f"--metrics {text!r}: the port must be between 1 and 65535")
    return (host or _LOOPBACK), port


def exposes_widely(host: str) -> bool:
    """True unless ``host`` is a loopback address or ``localhost``."""
    if host.lower() == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a name: it may resolve to anything


class LoopMonitor:
    """Measures how late the event loop runs a task that asks to wake every ``tick`` seconds.

    ``stall()`` is the longest lateness over the last :data:`STALL_WINDOW` seconds,
    ``lag_total`` the sum of all lateness since the start (a counter: its rate is the share of
    time the loop was busy past the tick). Also notes the crawl's last progress (a fetch
    finished) once a second, for the health check."""

    def __init__(self, crawler: Crawler, tick: float = TICK) -> None:
        self.crawler = crawler
        self.tick = tick
        self.lag_total = 0.0
        self.last_progress = time.time()
        self._seen = -1
        self._recent: deque[tuple[float, float]] = deque()  # (when, lateness) maxima
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop monitor")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def note_progress(self) -> None:
        stats = self.crawler.stats()
        done = stats.pages + stats.errors
        if done != self._seen:
            if self._seen >= 0:
                self.last_progress = time.time()
            self._seen = done

    def record(self, now: float, late: float) -> None:
        late = max(0.0, late)
        self.lag_total += late
        recent = self._recent
        while recent and recent[-1][1] <= late:
            recent.pop()  # a monotone queue: the window's maximum is at the left
        recent.append((now, late))
        while recent and recent[0][0] < now - STALL_WINDOW:
            recent.popleft()

    def stall(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        recent = self._recent
        while recent and recent[0][0] < now - STALL_WINDOW:
            recent.popleft()
        return recent[0][1] if recent else 0.0

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        ticks = 0
        per_second = max(1, round(1.0 / self.tick))
        while True:
            expected = loop.time() + self.tick
            await asyncio.sleep(self.tick)
            now = loop.time()
            self.record(now, now - expected)
            ticks += 1
            if ticks % per_second == 0:
                self.note_progress()


class _CrawlCollector(Collector):
    """Metric families from the figures read for one scrape (``figures``)."""

    def __init__(self) -> None:
        self.figures: dict[str, Any] = {}

    def collect(self) -> Iterator[Metric]:
        f = self.figures
        if not f:
            return
        stats: StatsSnapshot = f["stats"]
        totals: PoolTotals | None = f["totals"]
        p = "crawler_gui_"
        yield CounterMetricFamily(
            p + "pages_fetched", "Fetches that ended with an HTTP status", value=stats.pages
        )
        yield CounterMetricFamily(
            p + "bytes_fetched", "Body bytes received (before decompression)", value=stats.bytes
        )
        responses = CounterMetricFamily(
            p + "responses", "Responses by status class", labels=["class"]
        )
        for cls, n in stats.status_classes.items():
            if cls != "error":
                responses.add_metric([cls], n)
        yield responses
        errors = CounterMetricFamily(
            p + "fetch_errors", "Fetches that ended without a response, by kind", labels=["kind"]
        )
        for kind, n in stats.error_counts.items():
            errors.add_metric([kind], n)
        yield errors
        yield CounterMetricFamily(
            p + "hub_refreshes", "Hub fetches started by this process", value=f["hub_fetches"]
        )
        yield GaugeMetricFamily(
            p + "pages_per_second",
            "Fetches a second over the last 10 s",
            value=stats.pages_per_s_10s,
        )
        yield GaugeMetricFamily(
            p + "in_flight", "Fetches in flight in this process", value=f["in_flight"]
        )
        yield CounterMetricFamily(
            p + "articles_found",
            "Pages judged articles by the extraction in this process",
            value=stats.articles_found,
        )
        delays: DelaySnapshot | None = f["article_delays"]
        if delays is not None:
            yield _histogram(
                p + "article_delay_seconds",
                "Seconds from an article's publication to its fetch (articles whose "
                "publication time is known)",
                delays,
            )
        yield GaugeMetricFamily(
            p + "extraction_backlog",
            "Pages handed to extraction and not yet extracted",
            value=stats.extraction_backlog,
        )
        if totals is not None:
            for name, value, text in (
                ("urls_waiting", totals.waiting, "URLs waiting in the pool"),
                ("urls_pending", totals.pending, "URLs leased (in flight) in the pool"),
                ("urls_retrying", totals.retrying, "URLs waiting for a retry"),
                ("urls_done", totals.done, "URLs done"),
                ("urls_failed", totals.failed, "URLs that failed for good"),
                ("hosts", totals.hosts, "Hosts in the pool"),
                ("hubs", totals.hubs, "Hubs in the pool"),
            ):
                yield GaugeMetricFamily(p + name, text, value=value)
        state = GaugeMetricFamily(
            p + "state", "The crawl's state (1 for the current one)", labels=["state"]
        )
        for s in CrawlState:
            state.add_metric([s.value], 1.0 if s is f["state"] else 0.0)
        yield state
        yield GaugeMetricFamily(
            p + "last_progress_timestamp_seconds",
            "When a fetch last finished (POSIX seconds)",
            value=f["last_progress"],
        )
        yield GaugeMetricFamily(
            p + "loop_stall_seconds",
            f"Longest event-loop lateness over the last {STALL_WINDOW:.0f} s",
            value=f["stall"],
        )
        yield CounterMetricFamily(
            p + "loop_lag_seconds", "Sum of event-loop lateness", value=f["lag_total"]
        )
        yield GaugeMetricFamily(p + "asyncio_tasks", "Live asyncio tasks", value=f["tasks"])


def _histogram(name: str, text: str, snap: DelaySnapshot) -> HistogramMetricFamily:
    buckets: list[tuple[str, float]] = []
    cumulative = 0
    for bound, n in zip(snap.bounds, snap.counts, strict=True):
        cumulative += n
        buckets.append(("+Inf" if math.isinf(bound) else f"{bound:g}", cumulative))
    if not buckets or buckets[-1][0] != "+Inf":
        buckets.append(("+Inf", cumulative))
    return HistogramMetricFamily(name, text, buckets=buckets, sum_value=snap.total)


class MetricsServer:
    """``/metrics`` and ``/health`` of one crawl, served on the running loop."""

    def __init__(self, crawler: Crawler, host: str = _LOOPBACK, port: int = 9464) -> None:
        self.crawler = crawler
        self.host = host
        self.port = port
        self.monitor = LoopMonitor(crawler)
        self._collector = _CrawlCollector()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self._collector)
        ProcessCollector(registry=self.registry)
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Listen; raises ConfigError when the address cannot be used (port taken, ...)."""
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/health", self._health)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port)
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise ConfigError(
                f"cannot serve metrics on {self.host}:{self.port}: {exc.strerror or exc}"
            ) from exc
        self._runner = runner
        addresses = runner.addresses
        if addresses and self.port == 0:
            self.port = int(addresses[0][1])
        self.monitor.start()
        log.info("metrics on %s/metrics", self.url)

    async def close(self) -> None:
        await self.monitor.stop()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _totals(self) -> PoolTotals | None:
        try:
            return await self.crawler.frontier.totals()
        except Exception as exc:  # the pool may be closing or unreachable: still answer
            log.debug("metrics: no pool totals (%s)", exc)
            return None

    async def figures(self) -> dict[str, Any]:
        """What one scrape reports (also what ``/health`` reads)."""
        self.monitor.note_progress()
        crawler = self.crawler
        return {
            "stats": crawler.stats(),
            "totals": await self._totals(),
            "in_flight": crawler.in_flight,
            "hub_fetches": crawler.hub_fetches,
            "state": crawler.state,
            "last_progress": self.monitor.last_progress,
            "stall": self.monitor.stall(),
            "lag_total": self.monitor.lag_total,
            "tasks": len(asyncio.all_tasks()),
            "article_delays": (
                None if crawler.articles is None else crawler.articles.delays.snapshot()
            ),
        }

    async def _metrics(self, _request: web.Request) -> web.Response:
        self._collector.figures = await self.figures()
        try:
            body = generate_latest(self.registry)
        finally:
            self._collector.figures = {}
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _health(self, _request: web.Request) -> web.Response:
        f = await self.figures()
        stats: StatsSnapshot = f["stats"]
        state: CrawlState = f["state"]
        body = {
            "state": state.value,
            "last_progress": f["last_progress"],
            "seconds_since_progress": round(time.time() - f["last_progress"], 3),
            "pages": stats.pages,
            "errors": stats.errors,
            "in_flight": f["in_flight"],
            "loop_stall_seconds": round(f["stall"], 4),
        }
        return web.json_response(body, status=503 if state is CrawlState.FAILED else 200)
