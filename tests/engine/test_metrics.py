"""The metrics endpoint (engine/metrics.py): Prometheus text and /health of a real crawl."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from crawler_gui.demo.live import FEED_HOSTS, LiveNewsSite
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.extract.service import DELAY_BOUNDS, ArticleSummary
from crawler_gui.engine.metrics import LoopMonitor, MetricsServer, exposes_widely, parse_listen
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.errors import ConfigError

DELAY = "crawler_gui_article_delay_seconds"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def known_delays(articles: Iterable[ArticleSummary]) -> list[float]:
    """Publication to fetch of the articles whose published time has a zone (worked out here
    from each article's own record, apart from the engine's histogram)."""
    out = []
    for a in articles:
        if a.published and "T" in a.published:
            when = datetime.fromisoformat(a.published)
            if when.tzinfo is not None:
                out.append(max(0.0, a.found_at - when.timestamp()))
    return out


def assert_delay_histogram(got: Samples, delays: list[float]) -> None:
    """The served histogram holds exactly ``delays``: count, sum and every cumulative bucket."""
    assert got[(DELAY + "_count", ())] == len(delays)
    assert math.isclose(got[(DELAY + "_sum", ())], sum(delays), rel_tol=1e-9, abs_tol=1e-6)
    for bound in DELAY_BOUNDS:
        le = "+Inf" if math.isinf(bound) else f"{bound:g}"
        assert got[(DELAY + "_bucket", (("le", le),))] == sum(d <= bound for d in delays), le


def samples(text: str) -> Samples:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9100", ("127.0.0.1", 9100)),
        (":9100", ("127.0.0.1", 9100)),
        ("localhost:9100", ("localhost", 9100)),
        ("0.0.0.0:9100", ("0.0.0.0", 9100)),
        ("[::1]:9100", ("::1", 9100)),
    ],
)
def test_parse_listen(text: str, expected: tuple[str, int]) -> None:
    assert parse_listen(text) == expected


@pytest.mark.parametrize("bad", ["", "x", "host:", "70000", "::1:9100", "[::1]9100", "0"])
def test_parse_listen_refuses(bad: str) -> None:
    with pytest.raises(ConfigError, match="--metrics"):
        parse_listen(bad)


def test_only_loopback_is_not_wide() -> None:
    assert not exposes_widely("127.0.0.1") and not exposes_widely("::1")
    assert not exposes_widely("localhost")
    assert exposes_widely("0.0.0.0") and exposes_widely("::") and exposes_widely("10.1.2.3")
    assert exposes_widely("metrics.example.com")


def test_metrics_of_a_real_crawl(tmp_path: Path) -> None:
    settings = CrawlSettings(
        concurrency=8, mode=CrawlMode.UNTIL_IDLE, hub_span=3600.0, extract="on", extract_workers=1
    )

    async def main() -> None:
        async with DemoSite(4, 12, slow_share=0.0) as site:
            session = await CrawlSession.open(tmp_path / "pool", settings, demo_site=site)
            server = MetricsServer(session.crawler, port=0)
            await server.start()
            try:
                # Listens on loopback by default, and only there.
                assert server.host == "127.0.0.1"
                assert server.url.startswith("http://127.0.0.1:")
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                async with aiohttp.ClientSession() as http:
                    async with http.get(server.url + "/metrics") as resp:
                        assert resp.status == 200
                        assert resp.headers["Content-Type"].startswith("text/plain")
                        got = samples(await resp.text())
                    async with http.get(server.url + "/health") as resp:
                        assert resp.status == 200
                        health = await resp.json()
                stats = session.crawler.stats()
                totals = await session.frontier.totals()
                assert session.crawler.articles is not None
                recent = list(session.crawler.articles.recent)
            finally:
                await server.close()
                await session.close()
        assert stats.pages > 20
        assert got[("crawler_gui_pages_fetched_total", ())] == stats.pages
        assert got[("crawler_gui_bytes_fetched_total", ())] == stats.bytes > 0
        for cls in ("2xx", "3xx", "4xx", "5xx"):
            key = ("crawler_gui_responses_total", (("class", cls),))
            assert got[key] == stats.status_classes[cls]
        assert got[("crawler_gui_responses_total", (("class", "4xx"),))] > 0  # dead links
        assert got[("crawler_gui_urls_done", ())] == totals.done
        assert got[("crawler_gui_hosts", ())] == totals.hosts == 4
        assert got[("crawler_gui_hubs", ())] == totals.hubs > 0
        assert got[("crawler_gui_hub_refreshes_total", ())] == totals.hubs
        assert got[("crawler_gui_in_flight", ())] == 0
        assert got[("crawler_gui_articles_found_total", ())] == stats.articles_found > 0
        assert got[("crawler_gui_extraction_backlog", ())] == stats.extraction_backlog == 0
        # The delay histogram counts the articles whose publication time is known (here: all,
        # from the demo's news sitemap; published in 2024, so over a day ago: in "+Inf").
        delays = known_delays(recent)
        assert 0 < len(delays) <= stats.articles_found == len(recent)
        assert_delay_histogram(got, delays)
        assert got[("crawler_gui_state", (("state", "finished"),))] == 1
        assert got[("crawler_gui_state", (("state", "running"),))] == 0
        assert got[("crawler_gui_asyncio_tasks", ())] >= 1
        assert ("process_resident_memory_bytes", ()) in got
        assert ("process_open_fds", ()) in got
        assert health["state"] == "finished" and health["pages"] == stats.pages
        assert health["seconds_since_progress"] >= 0

    asyncio.run(main())


def test_article_delays_of_a_live_crawl(tmp_path: Path) -> None:
    """A continuous crawl of the live site, publishing for the last 15 minutes: the articles
    its feeds date have delays of seconds to minutes, and the histogram spreads them over its
    buckets; articles only its list pages link (no date on the page) are not counted."""
    settings = CrawlSettings(concurrency=8, extract="on", extract_workers=1)
    feed_hosts = {f"127.0.0.{h}" for h in FEED_HOSTS}

    async def main() -> tuple[Samples, list[ArticleSummary], int]:
        async with LiveNewsSite(epoch=time.time() - 900) as site:
            session = await CrawlSession.open(tmp_path / "pool", settings, demo_site=site)
            server = MetricsServer(session.crawler, port=0)
            await server.start()
            try:
                crawler = session.crawler
                assert crawler.articles is not None
                crawler.start()
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    hosts = {a.host.split(":")[0] for a in crawler.articles.recent}
                    if len(known_delays(crawler.articles.recent)) >= 40 and hosts - feed_hosts:
                        break
                    await asyncio.sleep(0.1)
                await crawler.stop()
                async with (
                    aiohttp.ClientSession() as http,
                    http.get(server.url + "/metrics") as resp,
                ):
                    got = samples(await resp.text())
                return got, list(crawler.articles.recent), crawler.articles.found
            finally:
                await server.close()
                await session.close()

    got, recent, found = asyncio.run(main())
    delays = known_delays(recent)
    assert len(delays) >= 40
    assert got[("crawler_gui_articles_found_total", ())] == found == len(recent)
    # Only the articles of the feed hosts have a known publication time.
    dated = {a.url for a in recent if a.published}
    assert dated and all(a.host.split(":")[0] in feed_hosts for a in recent if a.url in dated)
    assert len(delays) < found
    assert_delay_histogram(got, delays)
    # Published within the last 15 minutes (and a few seconds of crawling): finite buckets,
    # more than one of them.
    assert max(delays) < 1200
    assert got[(DELAY + "_bucket", (("le", "1200"),))] == len(delays)
    assert got[(DELAY + "_bucket", (("le", "60"),))] < len(delays)


def test_the_loop_monitor_sees_a_blocked_loop() -> None:
    class NoCrawl:
        def stats(self) -> object:
            raise AssertionError("not asked within the first second")

    async def main() -> tuple[float, float]:
        monitor = LoopMonitor(NoCrawl(), tick=0.05)  # type: ignore[arg-type]
        monitor.start()
        await asyncio.sleep(0.2)
        quiet = monitor.stall()
        time.sleep(0.4)  # the loop is blocked: the monitor wakes late
        await asyncio.sleep(0.1)
        await monitor.stop()
        return quiet, monitor.stall()

    quiet, blocked = asyncio.run(main())
    assert blocked >= 0.3
    assert quiet < blocked


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return bytes(resp.read())


@pytest.mark.slow
def test_cli_serves_metrics_of_the_live_demo_on_loopback(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "crawler_gui", "crawl", str(tmp_path / "pool")),
            *("--demo", "--live", "--metrics", str(port), "--no-progress"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        health: dict[str, object] = {}
        while time.monotonic() < deadline:
            try:
                health = json.loads(_get(f"http://127.0.0.1:{port}/health"))
            except OSError:
                health = {}
            if isinstance(health.get("pages"), int) and int(health["pages"]) >= 12:
                break
            time.sleep(0.2)
        assert health.get("state") == "running", health
        got = samples(_get(f"http://127.0.0.1:{port}/metrics").decode())
        assert got[("crawler_gui_pages_fetched_total", ())] >= 12
        assert got[("crawler_gui_hubs", ())] == 28  # the live site's 24 lists and 4 feeds
        # Only loopback: the one socket listening on the port is bound to 127.0.0.1.
        assert _listening(port) == ["127.0.0.1"]
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "crawl stopped" in err


def test_cli_refuses_a_bad_metrics_address(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "crawl", str(tmp_path / "pool")),
            *("--demo", "--metrics", "nope:port"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--metrics 'nope:port'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "pool").exists()  # stopped before anything was opened


def test_cli_warns_before_serving_metrics_beyond_loopback(tmp_path: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes first, then
    # the clear error of the failed bind. (Nothing is sent anywhere.)
    result = subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "crawl", str(tmp_path / "pool")),
            *("--demo", "--metrics", "192.0.2.1:9464", "--no-progress"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 2, result.stderr
    assert "warning: metrics on 192.0.2.1:9464 can be read by anyone" in result.stderr
    assert "cannot serve metrics on 192.0.2.1:9464" in result.stderr
    assert "Traceback" not in result.stderr


def _listening(port: int) -> list[str]:
    """Addresses with a TCP socket listening on ``port`` (IPv4 and IPv6), from /proc."""
    out = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, port_hex = local.partition(":")
            if state != "0A" or int(port_hex, 16) != port:
                continue
            raw = bytes.fromhex(address)
            if width == 8:
                out.append(socket.inet_ntop(socket.AF_INET, raw[::-1]))
            else:
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                out.append(socket.inet_ntop(socket.AF_INET6, words))
    return out
