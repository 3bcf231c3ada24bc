"""``crawler-gui report``: a real demo crawl, then its report, whose numbers are checked against
the pool and the page store; a hostile page cannot inject HTML; a pool a crawl holds and a
Redis pool are reported on while they are crawled; missing pools are clear errors."""

from __future__ import annotations

import asyncio
import html
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from crawler_gui.core.counters import Counters
from crawler_gui.core.freshness import published_seconds
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.engine.report import ReportData, article_stats, duration, render_html
from crawler_gui.engine.store import PageRecord, PageStore

from .test_cli import cli, wait_for_done_urls


def row_value(page: str, label: str) -> str:
    """The value cell of a totals row."""
    m = re.search(rf'<th scope="row">{re.escape(html.escape(label))}</th><td>([^<]*)</td>', page)
    assert m, f"no row {label!r} in the report"
    return html.unescape(m.group(1))


def number(text: str) -> int:
    return int(text.replace(",", "").split()[0])


def table_rows(page: str, header: str, index: int = 0) -> list[list[str]]:
    """The body rows (cell texts) of the ``index``-th table after the <h2> ``header``."""
    section = page.split(f"<h2>{header}</h2>", 1)[1].split("<h2>", 1)[0]
    table = section.split("</table>")[index]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>", 1)[1]):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr)
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells])
    return rows


def store_facts(pool: Path) -> tuple[int, Counter[str], list[float], Counter[int]]:
    """Articles, articles per host, delays and statuses, read from the page store directly."""
    store = PageStore.open_in_pool(pool, create=False)
    try:
        per_host: Counter[str] = Counter()
        statuses: Counter[int] = Counter()
        delays: list[float] = []
        for row, ex in store.iter_rows_from(0, 10**9):
            statuses[row.record.status] += 1
            if ex and ex.get("kind") == "article" and ex.get("article"):
                rec = row.record
                per_host[urlsplit(rec.final_url or rec.url).netloc] += 1
                when = published_seconds(ex["article"].get("published"))
                if when is not None:
                    delays.append(max(0.0, rec.fetched_at - when))
        return sum(per_host.values()), per_host, delays, statuses
    finally:
        store.close()


def test_report_of_a_demo_crawl_matches_the_pool_and_the_page_store(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    done = cli("crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress", timeout=300)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "report.html"
    made = cli("report", str(pool), "-o", str(out), timeout=300)
    assert made.returncode == 0, made.stderr
    page = out.read_text("utf-8")
    # Self-contained: no script, nothing fetched from elsewhere.
    assert "<script" not in page and "src=" not in page and "<link" not in page
    assert "<svg" in page  # the throughput chart

    articles, per_host, delays, statuses = store_facts(pool)
    assert articles > 100
    p = LevelDBPool.open(pool, create=False)
    try:
        counters = p.counters_sync()
        totals = p.totals_sync()
    finally:
        p.close_sync()
    # The counters the crawl flushed at its end hold every article it found.
    assert counters.total("a") == articles
    assert number(row_value(page, "Articles found")) == articles
    assert number(row_value(page, "Articles stored")) == articles
    assert number(row_value(page, "URLs done")) == totals.done
    assert number(row_value(page, "URLs failed for good")) == totals.failed
    assert number(row_value(page, "Pages fetched (with an HTTP status)")) == counters.total("p")
    # Every stored page was a fetch with that status (304s and redirects store no record).
    codes = {r[0]: number(r[1]) for r in table_rows(page, "Status codes and errors", 1)}
    for status in (200, 404, 500):
        if statuses[status]:
            assert codes[str(status)] >= statuses[status]
    assert codes["200"] == counters.prefixed("s:")["200"]
    # Articles per host: the page store's, exactly.
    listed = {r[0]: number(r[1]) for r in table_rows(page, "Articles per host")}
    assert listed == dict(per_host)
    # Freshness: the median of the stored articles' delays.
    assert len(delays) > 0
    median = duration(statistics.median(delays))
    assert row_value(page, "Median delay, publication to fetch") == median
    # The demo site dates its articles relative to now: a delay of minutes to days, not years.
    assert statistics.median(delays) < 3 * 86400
    # Throughput: the chart's minutes add up to the pages fetched.
    bars = [int(n) for n in re.findall(r": (\d+) pages, \d+ errors</title>", page)]
    assert sum(bars) == counters.total("p")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


HOSTILE = '</title><script>alert(1)</script><img src=x onerror="alert(2)">'


def test_a_hostile_page_cannot_inject_html_into_the_report(tmp_path: Path) -> None:
    store = PageStore.open_in_pool(tmp_path, create=True)
    now = time.time()
    urls = [
        "http://evil.example/a?<script>x</script>",
        'javascript:alert("x")',
    ]
    try:
        for url in urls:
            seq = store.add(
                PageRecord(url, url, 200, now, "text/html", "utf-8", HOSTILE, 0, 10, 0.1, None, ())
            )
            store.add_extraction(
                seq,
                {
                    "kind": "article",
                    "why": "",
                    "article": {"title": HOSTILE, "published": None, "text": ""},
                },
            )
        store.flush_sync()
        articles = article_stats(store)
    finally:
        store.close()
    counters = Counters()
    host = 'evil.example"><b onmouseover=alert(3)>'
    counters.fetch(now, host, None, "<script>alert(4)</script>", 0)
    counters.article(now, host, None)
    page = render_html(ReportData(f"pool {HOSTILE}", None, counters, articles))
    parsed = _Tags()
    parsed.feed(page)
    tags = {tag for tag, _attrs in parsed.tags}
    assert "script" not in tags and "img" not in tags and "b" not in tags
    for _tag, attrs in parsed.tags:
        assert not any(name.startswith("on") for name in attrs)
        assert not str(attrs.get("href") or "").lower().startswith("javascript")
    text = "".join(parsed.text)
    assert HOSTILE in text  # shown as text, whole
    assert "<script>alert(4)</script>" in text and host in text
    assert page.count("<a href=") == 1  # the http URL only; javascript: is not a link


def test_report_of_a_pool_a_crawl_holds_asks_the_crawl(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crawler_gui",
            "crawl",
            str(pool),
            "--demo",
            "--live",
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_done_urls(pool, proc)
        out = tmp_path / "live.html"
        made = cli("report", str(pool), "-o", str(out), timeout=300)
        assert made.returncode == 0, made.stderr
        page = out.read_text("utf-8")
        assert "the crawl is running" in page
        # Counted in the crawl's memory, not yet flushed: still in the report.
        assert number(row_value(page, "Pages fetched (with an HTTP status)")) > 0
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_report_of_a_redis_pool_with_a_workers_store(redis_server: str, tmp_path: Path) -> None:
    url = f"{redis_server}?name=rep{uuid.uuid4().hex[:8]}"
    store_dir = tmp_path / "store"
    done = cli(
        "crawl",
        url,
        "--demo",
        "--store-dir",
        str(store_dir),
        "--no-progress",
        "--until-idle",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "redis.html"
    made = cli("report", url, "--store-dir", str(store_dir), "-o", str(out), timeout=300)
    assert made.returncode == 0, made.stderr
    page = out.read_text("utf-8")
    articles, _per_host, _delays, _statuses = store_facts(store_dir)
    assert number(row_value(page, "Articles found")) == articles > 0
    assert number(row_value(page, "Articles stored")) == articles

    async def pool_counters() -> Counters:
        from crawler_gui.core.redis.pool import RedisPool

        p = await RedisPool.open(url)
        try:
            return await p.counters()
        finally:
            await p.close()

    counters = asyncio.run(pool_counters())
    assert number(row_value(page, "Pages fetched (with an HTTP status)")) == counters.total("p")


def test_missing_and_foreign_pools_are_clear_errors(redis_server: str, tmp_path: Path) -> None:
    missing = cli("report", str(tmp_path / "nothing"), "-o", str(tmp_path / "r.html"), timeout=300)
    assert missing.returncode == 2
    assert "not a crawler-gui pool directory" in missing.stderr
    assert "Traceback" not in missing.stderr
    foreign = tmp_path / "foreign"
    (foreign / "frontier").mkdir(parents=True)
    (foreign / "frontier" / "CURRENT").write_text("MANIFEST-000001\n")
    broken = cli("report", str(foreign), "-o", str(tmp_path / "r.html"), timeout=300)
    assert broken.returncode == 4, broken.stderr
    assert "Traceback" not in broken.stderr
    name = f"none{uuid.uuid4().hex[:8]}"
    absent = cli("report", f"{redis_server}?name={name}", timeout=300)
    assert absent.returncode == 2
    assert "there is no crawler-gui pool" in absent.stderr
    # ... and asking did not create it.
    again = cli("report", f"{redis_server}?name={name}", timeout=300)
    assert again.returncode == 2
    assert not (tmp_path / "r.html").exists()
