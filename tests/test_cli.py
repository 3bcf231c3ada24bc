"""The headless command line, run as a real process."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.leveldb import LevelDBPool


def cli(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_for_stored_pages(pool: Path, proc: subprocess.Popen[Any], min_bytes: int) -> None:
    """Wait (up to 90 s) until the running crawl's page store holds ``min_bytes`` of data:
    pages were fetched and flushed, and each flush is followed by the commit of its results.
    A condition, not a fixed sleep: a loaded machine only makes it take longer."""
    pages = pool / "pages"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the crawl ended before it was interrupted"
        stored = (
            sum(f.stat().st_size for f in pages.glob("*") if f.suffix in (".log", ".ldb"))
            if pages.is_dir()
            else 0
        )
        if stored >= min_bytes:
            return
        time.sleep(0.05)
    raise AssertionError(f"the crawl stored fewer than {min_bytes} bytes of pages in 90 s")


def wait_for_done_urls(pool: Path, proc: subprocess.Popen[Any]) -> None:
    """Wait (up to 90 s) until the running crawl has URLs done, as ``crawler-gui stats`` reads
    them live: the stored bytes alone can be the hubs' (feeds, sitemaps and their fetch
    detail), which are refreshed, never done."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the crawl ended before it was interrupted"
        stats = cli("stats", str(pool))
        if stats.returncode == 0 and json.loads(stats.stdout).get("done", 0) > 0:
            return
        time.sleep(0.2)
    raise AssertionError("the crawl had no URL done in 90 s")


def test_demo_crawl_then_stats_and_export(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    done = cli("crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "crawl finished" in done.stderr
    stats = cli("stats", str(pool))
    assert stats.returncode == 0, stats.stderr
    totals = json.loads(stats.stdout)
    assert totals["done"] > 100 and totals["waiting"] == 0 and totals["pending"] == 0
    use = totals["disk_use"]  # bytes on disk: the pool (without its page store), the store
    pages_bytes = sum(f.stat().st_size for f in (pool / "pages").iterdir())
    assert use["pages"] == pages_bytes > 0 and use["pool"] > 0
    assert use["total"] == use["pool"] + use["pages"]
    out = tmp_path / "pages.jsonl"
    exported = cli("export", str(pool), "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(records) == totals["pages_stored"]
    for key in ("url", "final_url", "status", "fetched_at", "depth", "encoding", "title"):
        assert key in records[0]
    assert any(r["encoding"] == "gb18030" for r in records)

    # The same records as CSV, the URL outcomes as CSV, the pages as WARC.
    as_csv = cli("export", str(pool), "--format", "csv", "-o", str(tmp_path / "p.csv"))
    assert as_csv.returncode == 0, as_csv.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "p.csv").read_text("utf-8"))))
    assert [r["url"] for r in rows] == [r["url"] for r in records]
    outcomes = tmp_path / "o.csv"
    as_csv = cli(
        "export", str(pool), "--records", "outcomes", "--format", "csv", "-o", str(outcomes)
    )
    assert as_csv.returncode == 0, as_csv.stderr
    states = {r["state"] for r in csv.DictReader(io.StringIO(outcomes.read_text("utf-8")))}
    assert "done" in states
    warc = tmp_path / "pages.warc.gz"
    as_warc = cli("export", str(pool), "--format", "warc", "-o", str(warc))
    assert as_warc.returncode == 0, as_warc.stderr
    from warcio.archiveiterator import ArchiveIterator

    with open(warc, "rb") as fh:
        responses = [
            r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(fh)
            if r.rec_type == "response"
        ]
    with_body = [r["final_url"] for r in records if r["size"] > 0]
    assert len(responses) == len(set(responses)) and set(responses) <= {
        r["final_url"] for r in records
    }
    assert f"{len(responses)} pages exported" in as_warc.stderr
    assert (
        len(responses) >= len(with_body) * 0.9
    )  # hub refreshes with an unchanged body are left out
    refused = cli("export", str(pool), "--records", "outcomes", "--format", "warc", "-o", str(warc))
    assert refused.returncode == 2 and "holds pages or articles" in refused.stderr
    no_file = cli("export", str(pool), "--format", "warc")
    assert no_file.returncode == 2 and "-o FILE.warc.gz" in no_file.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["crawl"], "needs a POOL_DIR"),
        (["crawl", "p", "--concurrency", "0"], "must be at least 1"),
        (["crawl", "p", "--delay", "-1"], "must not be negative"),
        (["stats"], "required"),
        (["crawl", "p", "--frobnicate"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(tmp_path: Path, args: list[str], message: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert message in result.stderr


def test_empty_pool_and_bad_hub_lines_are_refused(tmp_path: Path) -> None:
    empty = cli("crawl", str(tmp_path / "p"))
    assert empty.returncode == 2 and "nothing to crawl" in empty.stderr
    hubs = tmp_path / "hubs.txt"
    hubs.write_text(
        "http://news.example.com/ 5m\nftp://bad.example.com/\nhttp://x.example.com/ soon\n"
    )
    bad = cli("crawl", str(tmp_path / "p"), "--hubs-file", str(hubs))
    assert bad.returncode == 2
    assert "hubs.txt:2: ftp://bad.example.com/: only http and https" in bad.stderr
    assert "hubs.txt:3:" in bad.stderr and "nothing was started" in bad.stderr


def test_log_level_before_a_headless_command(tmp_path: Path) -> None:
    for args in (["--log-level", "INFO"], ["--log-level=INFO"]):
        result = cli(*args, "crawl", str(tmp_path / "p"))
        assert result.returncode == 2 and "nothing to crawl" in result.stderr, result.stderr
        assert "INFO crawler_gui.engine.session: opened crawl in" in result.stderr


def test_pool_in_use_and_corrupt_pool_get_their_exit_codes(tmp_path: Path) -> None:
    held = LevelDBPool.open(tmp_path / "busy")
    try:
        busy = cli("stats", str(tmp_path / "busy"))
        assert busy.returncode == 3 and "already open" in busy.stderr
    finally:
        held.close_sync()
    (tmp_path / "broken" / "frontier").mkdir(parents=True)
    (tmp_path / "broken" / "frontier" / "CURRENT").write_text("garbage\n")
    broken = cli("stats", str(tmp_path / "broken"))
    assert broken.returncode == 4
    assert "crawler-gui:" in broken.stderr and "Traceback" not in broken.stderr
    foreign = cli("stats", str(tmp_path))
    assert foreign.returncode == 2 and "not a crawler-gui pool" in foreign.stderr


def test_ctrl_c_stops_gracefully_and_running_again_resumes(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crawler_gui",
            "crawl",
            str(pool),
            "--demo",
            "--concurrency",
            "2",
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_stored_pages(pool, proc, 64 * 1024)
        wait_for_done_urls(pool, proc)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopping: in-flight fetches finish" in err and "crawl stopped" in err
    held = LevelDBPool.open(pool)
    try:
        totals = asyncio.run(held.snapshot()).totals
    finally:
        held.close_sync()
    assert totals.pending == 0 and totals.done > 0 and totals.waiting > 0
    # The same command again resumes where it stopped and finishes.
    again = cli("crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress")
    assert again.returncode == 0, again.stderr
    after = json.loads(cli("stats", str(pool)).stdout)
    assert after["waiting"] == 0 and after["done"] > totals.done


def test_kill_9_mid_crawl_leaves_no_done_url_without_its_page(tmp_path: Path) -> None:
    import gzip

    from crawler_gui.engine.store import PageStore

    pool = tmp_path / "pool"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "crawler_gui",
            "crawl",
            str(pool),
            "--demo",
            "--concurrency",
            "24",
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # several flushes, so several commits (1 MB: a page carries its fetch detail and
        # referrer keys since schema 4, 256 KB could be the first flush alone)
        wait_for_stored_pages(pool, proc, 1024 * 1024)
        proc.kill()
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    held = LevelDBPool.open(pool)
    try:
        totals = asyncio.run(held.snapshot()).totals
        asyncio.run(held.save_snapshot(tmp_path / "after.cgpool"))
    finally:
        held.close_sync()
    assert totals.pending == 0 and totals.done > 0
    done = set()
    for line in gzip.decompress((tmp_path / "after.cgpool").read_bytes()).splitlines()[1:-1]:
        rec = json.loads(line)
        if rec["t"] == "url" and rec["state"] == "done":
            done.add(rec["url"])
    store = PageStore.open_in_pool(pool)
    try:
        stored = {r.url for r in store.iter_records()} | {r.final_url for r in store.iter_records()}
    finally:
        store.close()
    assert done <= stored, sorted(done - stored)[:5]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_stops_the_crawl_when_stderr_is_a_closed_pipe(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """``crawler-gui crawl … 2>&1 | head``: once ``head`` has gone, every write to standard error
    fails; the stop signal must still stop the crawl (the handler printed first, the print
    raised BrokenPipeError and the stop was never scheduled)."""
    pool = tmp_path / "pool"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "crawler_gui", "--log-level", "INFO", "crawl", str(pool)),
            *("--demo", "--concurrency", "1", "--no-progress"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert proc.stdout is not None
    try:
        # Read until the crawl runs (its log says so), then go away like ``head`` does.
        seen = b""
        while b"crawl running" not in seen:
            line = proc.stdout.readline()
            assert line, f"the crawl ended before it ran: {seen!r}"
            seen += line
        proc.stdout.close()
        proc.send_signal(sig)
        returncode = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert returncode == 0
    held = LevelDBPool.open(pool)
    try:
        totals = asyncio.run(held.snapshot()).totals
    finally:
        held.close_sync()
    assert totals.pending == 0 and totals.waiting > 0  # stopped gracefully, mid-crawl


def test_refused_seeds_are_final_and_until_idle_ends_with_the_rest(tmp_path: Path) -> None:
    """Addresses refused even with --allow-private (unspecified, multicast) are a final
    outcome with their reason: the demo crawl ends as soon as its pages are done, never
    waiting for retries of the refusals (10 minutes away with --retry-base 600)."""
    pool = tmp_path / "pool"
    started = time.monotonic()
    done = cli(
        "crawl",
        str(pool),
        "--demo",
        "--concurrency",
        "24",
        "--no-progress",
        "--retry-base",
        "600",
        "--seed",
        "http://0.0.0.0/one",
        "--seed",
        "http://224.0.0.1/two",
    )
    assert done.returncode == 0, done.stderr
    assert "crawl finished" in done.stderr
    assert time.monotonic() - started < 80
    totals = json.loads(cli("stats", str(pool)).stdout)
    # the two seeds, and the demo's robots.txt-disallowed pages
    assert totals["refused_urls"] >= 2 and totals["retrying"] == 0 and totals["waiting"] == 0
    assert f"| refused {totals['refused_urls']} |" in done.stderr
    # every URL's outcome, the refusals with their reason
    out = tmp_path / "outcomes.jsonl"
    exported = cli("export", str(pool), "--records", "outcomes", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    records = {r["url"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}
    assert len(records) == sum(
        totals[k] for k in ("done", "failed", "redirected", "retrying", "waiting")
    )
    for seed in ("http://0.0.0.0/one", "http://224.0.0.1/two"):
        assert records[seed]["state"] == "refused"
        assert records[seed]["reason"] == "blocked_address"
    refused = [r for r in records.values() if r["state"] == "refused"]
    assert len(refused) == totals["refused_urls"]
    assert {r["reason"] for r in refused} <= {"blocked_address", "robots", "out_of_scope"}
    assert all(r["kind"] == "outcome" for r in records.values())
    assert any(r["state"] == "done" for r in records.values())
    nowhere = cli("export", str(pool), "--records", "outcomes", "-o", str(tmp_path / "no" / "x"))
    assert nowhere.returncode == 1 and "Traceback" not in nowhere.stderr
    assert nowhere.stderr.strip().startswith("crawler-gui: cannot write")


def test_timeouts_on_the_command_line_reach_the_settings_with_defaults_in_help() -> None:
    from crawler_gui.cli import build_parser, settings_from_args
    from crawler_gui.engine.settings import CrawlSettings

    parser = build_parser()
    args = parser.parse_args(
        ["crawl", "p", "--connect-timeout", "2.5", "--read-timeout", "4", "--timeout", "9"]
    )
    s = settings_from_args(args)
    assert (s.connect_timeout, s.read_timeout, s.total_timeout) == (2.5, 4.0, 9.0)
    d = settings_from_args(parser.parse_args(["crawl", "p"]))
    default = CrawlSettings()
    assert (d.connect_timeout, d.read_timeout, d.total_timeout) == (
        default.connect_timeout,
        default.read_timeout,
        default.total_timeout,
    )
    shown = " ".join(cli("crawl", "--help").stdout.split())
    for option, value in (
        ("--connect-timeout", default.connect_timeout),
        ("--read-timeout", default.read_timeout),
        ("--timeout", default.total_timeout),
    ):
        assert option in shown
        assert f"(default {value:g})" in shown
    bad = cli("crawl", "p", "--timeout", "0")
    assert bad.returncode == 2 and "must be more than 0" in bad.stderr


def test_extract_later_then_extract_command(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    done = cli(
        "crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress", "--extract", "later"
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "before.jsonl"
    assert cli("export", str(pool), "-o", str(out)).returncode == 0
    before = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert before and all(r["kind"] is None for r in before)
    ran = cli("extract", str(pool), "--extract-workers", "1", timeout=240)
    assert ran.returncode == 0, ran.stderr
    assert "articles" in ran.stderr
    assert cli("export", str(pool), "-o", str(out)).returncode == 0
    after = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    kinds = {r["url"]: r["kind"] for r in after}
    assert all(k is not None for k in kinds.values())
    articles = [r for r in after if r["kind"] == "article"]
    assert articles and all(r["article"]["title"] and r["article"]["text"] for r in articles)
    # Home and section pages of the demo site are lists, never articles.
    hubs = [u for u in kinds if u.endswith("/")]
    assert hubs and all(kinds[u] != "article" for u in hubs)
    again = cli("extract", str(pool), timeout=120)  # nothing left to extract
    assert again.returncode == 0 and "0 pages extracted" in again.stderr


def test_extract_all_gives_an_old_pool_the_content_of_pages_that_are_not_articles(
    tmp_path: Path,
) -> None:
    """A pool extracted before the kind stopped withholding content kept none for a page
    with readable text that is not an article; ``extract --all`` brings it up to date, and
    ``--records articles`` still lists articles only."""
    from crawler_gui.engine.store import PageStore
    from crawler_gui.engine.store.records import PageRecord

    pool = tmp_path / "pool"
    done = cli(
        "crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress", "--extract", "later"
    )
    assert done.returncode == 0, done.stderr
    paragraphs = "".join(
        f"<p>The newsroom was founded in {1990 + i} by reporters who wanted to cover the "
        f"council, the schools and the courts with care; paragraph {i} says how it works.</p>"
        for i in range(8)
    )
    body = (
        "<html><head><title>About us - Harbour Daily</title></head><body><nav><a href='/'>"
        f"Home</a></nav><main><h1>About us</h1>{paragraphs}</main></body></html>"
    ).encode()
    about = "http://127.0.0.1:8631/about/"
    store = PageStore.open_in_pool(pool)
    try:
        seq = store.add(
            PageRecord(
                url=about,
                final_url=about,
                status=200,
                fetched_at=time.time(),
                content_type="text/html; charset=utf-8",
                encoding="utf-8",
                title="About us - Harbour Daily",
                depth=1,
                size=len(body),
                elapsed=0.01,
                referrer=None,
                redirect_chain=(),
                body=body,
            )
        )
        # As the extraction of an earlier version stored it: a label, no content.
        store.add_extraction(seq, {"kind": "other", "why": "index-like URL", "article": None})
        store.flush_sync()
    finally:
        store.close()

    def exported(*extra: str) -> list[dict[str, Any]]:
        out = tmp_path / "out.jsonl"
        assert cli("export", str(pool), *extra, "-o", str(out)).returncode == 0
        return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]

    ran = cli("extract", str(pool), "--extract-workers", "1", timeout=240)  # the rest only
    assert ran.returncode == 0, ran.stderr
    (old,) = [r for r in exported() if r["url"] == about]
    assert old["kind"] == "other" and old["article"] is None
    ran = cli("extract", str(pool), "--all", "--extract-workers", "1", timeout=240)
    assert ran.returncode == 0, ran.stderr
    records = exported()
    (new,) = [r for r in records if r["url"] == about]
    assert new["kind"] == "other"
    assert new["article"]["title"] == "About us"
    assert "founded in 1990" in new["article"]["text"]
    articles = exported("--records", "articles")
    assert articles and about not in {r["url"] for r in articles}
    assert all(r["kind"] == "article" for r in articles)
    assert len(articles) == sum(r["kind"] == "article" for r in records)


def test_bad_zone_is_a_usage_error(tmp_path: Path) -> None:
    bad = cli("crawl", str(tmp_path / "p"), "--demo", "--zone", "example.cn=8")
    assert bad.returncode == 2
    assert "HOST=+HH:MM" in bad.stderr


def test_demo_crawl_with_extraction_exports_its_articles(tmp_path: Path) -> None:
    from crawler_gui.demo.site import DemoSite

    pool = tmp_path / "pool"
    done = cli("crawl", str(pool), "--demo", "--concurrency", "24", "--no-progress", timeout=240)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "pages.jsonl"
    assert cli("export", str(pool), "-o", str(out)).returncode == 0
    records = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    site = DemoSite(feeds=True)  # the same seed: the same titles and times (not started)
    # Its times count back from the minute the site was made: the crawl's site was made a
    # little earlier, so each article's time is this site's moved by one same shift.
    shifts: set[float] = set()
    checked = feeds = 0
    for r in records:
        m = re.fullmatch(r"http://127\.0\.0\.(\d+):\d+/\w+/a(\d+)\.html", r["final_url"])
        if r["status"] != 200:
            continue
        if r["final_url"].endswith(".xml"):  # the demo's feeds and sitemaps: not HTML
            assert r["kind"] == "other" and r["article"] is None
            feeds += 1
            continue
        if m is None:  # home and section pages
            assert r["kind"] == "list", (r["url"], r["why"])
            assert r["article"] is None
            continue
        host, index = int(m[1]), int(m[2])
        assert r["kind"] == "article", (r["url"], r["why"])
        art = r["article"]
        assert art["title"] == site.article_title(host, index)
        ours = datetime.fromisoformat(site.published(host, index) + "+08:00").timestamp()
        shifts.add(datetime.fromisoformat(art["published"]).timestamp() - ours)
        assert art["zone_inferred"] is True
        assert len(art["authors"]) == 1
        for noise in ("说得好", "相关 Related", "版权所有", "分享到"):
            assert noise not in art["text"]
        checked += 1
    assert checked > 100
    (shift,) = shifts  # one site, one "now": every article moved alike
    assert -600 <= shift <= 0 and shift % 60 == 0
    articles = tmp_path / "articles.jsonl"
    assert cli("export", str(pool), "--records", "articles", "-o", str(articles)).returncode == 0
    only = [json.loads(x) for x in articles.read_text(encoding="utf-8").splitlines()]
    assert only == [r for r in records if r["kind"] == "article"]
    assert feeds == 3 * len(site.feed_hosts()) > 0  # a feed, a sitemap index, a news sitemap


def test_feed_discovery_and_hub_history_options_reach_the_settings() -> None:
    from crawler_gui.cli import build_parser, settings_from_args

    parser = build_parser()
    default = settings_from_args(parser.parse_args(["crawl", "p"]))
    assert default.discover_feeds and default.hub_history == 5
    s = settings_from_args(
        parser.parse_args(["crawl", "p", "--no-discover-feeds", "--hub-history", "2"])
    )
    assert not s.discover_feeds and s.hub_history == 2
    bad = cli("crawl", "p", "--hub-history", "0")
    assert bad.returncode == 2 and "must be at least 1" in bad.stderr


def test_the_search_index_option_reaches_the_settings() -> None:
    from crawler_gui.cli import build_parser, settings_from_args

    parser = build_parser()
    assert settings_from_args(parser.parse_args(["crawl", "p"])).search_index
    off = parser.parse_args(["crawl", "p", "--search-index", "off"])
    assert not settings_from_args(off).search_index
    bad = cli("crawl", "p", "--search-index", "maybe")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_export_outcomes_of_a_redis_pool_url(redis_server: str, tmp_path: Path) -> None:
    """``export --records outcomes`` reads a Redis pool straight from its URL (no local store):
    one record per URL, written whole to the file or to standard output."""
    from crawler_gui.core.redis.pool import RedisPool

    url = f"{redis_server}?name=outcomes-{uuid.uuid4().hex[:10]}"
    urls = ["http://a.example.com/1", "http://b.example.com/2", "http://c.example.com/3"]

    async def fill() -> None:
        pool = await RedisPool.open(url, worker="filler")
        try:
            await pool.add_many(urls)
        finally:
            await pool.close()

    asyncio.run(fill())
    out = tmp_path / "outcomes.jsonl"
    exported = cli("export", url, "--records", "outcomes", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    assert "3 records exported" in exported.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["url"] for r in records) == urls
    assert {r["state"] for r in records} == {"waiting"} and len(records) == 3
    to_stdout = cli("export", url, "--records", "outcomes")
    assert to_stdout.returncode == 0, to_stdout.stderr
    assert sorted(json.loads(line)["url"] for line in to_stdout.stdout.splitlines()) == urls
    pages = cli("export", url)  # the pages live in a worker's store, not in Redis
    assert pages.returncode == 2 and "store directory" in pages.stderr


def test_hub_refresh_options_are_checked_and_shown_with_their_defaults(tmp_path: Path) -> None:
    crossed = cli("crawl", str(tmp_path / "p"), "--hub-span-min", "600", "--hub-span-max", "60")
    assert crossed.returncode == 2
    assert "the minimum hub span must not exceed the maximum" in crossed.stderr
    assert "Traceback" not in crossed.stderr
    bad = cli("crawl", str(tmp_path / "p"), "--hub-refresh", "sometimes")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    zero = cli("crawl", str(tmp_path / "p"), "--hub-span-max", "0")
    assert zero.returncode == 2
    shown = cli("crawl", "--help")
    text = " ".join(shown.stdout.split())
    assert "--hub-refresh {adaptive,fixed}" in text and "adaptive (default)" in text
    assert "(default 5)" in text and "(default 3600)" in text


def test_a_headless_crawl_counts_articles_but_holds_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The headless crawl has no window to list its newest articles: it counts them (and
    their delays, for --metrics) but holds none of them, nor their text, in memory. (In this
    process, to look at the crawl's objects after it; the crawl itself is the real one.)"""
    from crawler_gui.cli import main as cli_main
    from crawler_gui.engine.session import CrawlSession

    opened: list[CrawlSession] = []
    real_open = CrawlSession.open.__func__  # type: ignore[attr-defined]

    async def spy(cls: type[CrawlSession], *args: Any, **kwargs: Any) -> CrawlSession:
        session: CrawlSession = await real_open(cls, *args, **kwargs)
        opened.append(session)
        return session

    monkeypatch.setattr(CrawlSession, "open", classmethod(spy))
    code = cli_main(["crawl", str(tmp_path / "pool"), "--demo", "--concurrency", "24"])
    assert code == 0
    (session,) = opened
    articles = session.crawler.articles
    assert articles is not None
    assert articles.found > 100 and articles.delays.snapshot().count > 100
    assert list(articles.recent) == []
