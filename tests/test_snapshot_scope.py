"""A snapshot carries the crawl's scope (the registered domains of its seeds and hubs): loaded
into a new pool, the crawl follows the same sites' links instead of refusing them all as
off-site; and URLs that come from a snapshot pass the same scope check as any other URL."""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from crawler_gui.core import snapshot_file
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.scope_file import load_seed_domains
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.errors import SnapshotFormatError

pytestmark = pytest.mark.slow

FAST = CrawlSettings(
    concurrency=8,
    min_delay=0.0,
    delay_factor=0.0,
    mode=CrawlMode.UNTIL_IDLE,
    idle_span=30.0,
    retry_base=0.1,
    allow_private=True,
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_a_snapshot_loaded_into_a_new_pool_crawls_on_with_its_scope(tmp_path: Path) -> None:
    snap = tmp_path / "seeded.cgpool"

    async def seed(site: DemoSite) -> None:
        session = await CrawlSession.open(tmp_path / "a", FAST)
        try:
            await session.crawler.add_seeds(site.seed_urls())
        finally:
            await session.close()

    async def crawl_b(site: DemoSite) -> list[str]:
        session = await CrawlSession.open(tmp_path / "b", FAST)  # no seeds given here
        try:
            session.crawler.start()
            assert await session.crawler.wait() is CrawlState.FINISHED
            return [r.final_url for r in session.store.iter_records()]
        finally:
            await session.close()

    async def main() -> None:
        async with DemoSite(hosts=3, articles_per_host=8) as site:
            await seed(site)
            saved = await asyncio.to_thread(cli, "save", str(tmp_path / "a"), str(snap))
            assert saved.returncode == 0, saved.stderr
            assert snapshot_file.read_scope(snap) == {"127.0.0.1", "127.0.0.2", "127.0.0.3"}
            loaded = await asyncio.to_thread(cli, "load", str(tmp_path / "b"), str(snap))
            assert loaded.returncode == 0, loaded.stderr
            assert "crawl scope: 3 domain(s) in the snapshot; 0 before, 3 now" in loaded.stderr
            finals = await crawl_b(site)
            # Every page of the three sites, reached through links from the loaded seeds.
            assert set(finals) == site.expected_urls()

    asyncio.run(asyncio.wait_for(main(), 80))


def test_load_merges_the_scope_by_default_and_can_keep_or_replace_it(tmp_path: Path) -> None:
    snap = tmp_path / "s.cgpool"

    async def make() -> None:
        pool = await LevelDBPool.open_async(tmp_path / "src")
        try:
            await pool.add("http://news.example.org/")
            await pool.save_snapshot(snap, scope=["example.org"])
        finally:
            await pool.close()

    asyncio.run(make())
    for mode, expected in (
        ("merge", ["example.com", "example.org"]),
        ("keep", ["example.com"]),
        ("replace", ["example.org"]),
    ):
        pool = tmp_path / mode
        pool.mkdir()
        scope = {"version": 1, "seed_domains": ["example.com"]}
        (pool / "scope.json").write_text(json.dumps(scope))
        args = ["load", str(pool), str(snap)] + ([] if mode == "merge" else ["--scope", mode])
        result = cli(*args)
        assert result.returncode == 0, result.stderr
        assert sorted(load_seed_domains(pool / "scope.json")) == expected, mode


def test_a_version_1_snapshot_still_loads_and_leaves_the_scope_alone(tmp_path: Path) -> None:
    old = tmp_path / "v1.cgpool"
    lines = [
        {"format": "crawler-gui-pool-snapshot", "version": 1, "created": 0, "generator": "x"},
        {"t": "url", "url": "http://a.example.com/", "state": "waiting", "depth": 0,
         "attempts": 0, "seq": 1, "time": 0},
        {"t": "hub", "url": "http://a.example.com/news/", "span": 60, "last_refresh": 0,
         "last_result": "", "due": 0},
        {"t": "end", "records": 2},
    ]  # fmt: skip
    old.write_bytes(gzip.compress(b"".join(json.dumps(x).encode() + b"\n" for x in lines)))
    pool = tmp_path / "p"
    pool.mkdir()
    (pool / "scope.json").write_text(json.dumps({"version": 1, "seed_domains": ["example.net"]}))
    result = cli("load", str(pool), str(old))
    assert result.returncode == 0, result.stderr
    assert "carries no crawl scope" in result.stderr
    assert load_seed_domains(pool / "scope.json") == ["example.net"]
    stats = json.loads(cli("stats", str(pool)).stdout)
    assert (stats["waiting"], stats["hubs"]) == (1, 1)


@pytest.mark.parametrize("bad", ["", "a b.com", "x/y", 7, "A.COM", "x" * 300])
def test_a_bad_scope_record_is_refused(tmp_path: Path, bad: object) -> None:
    path = tmp_path / "bad.cgpool"
    snapshot_file.write_snapshot(path, [{"t": "scope", "domain": bad}])
    with pytest.raises(SnapshotFormatError):
        snapshot_file.read_scope(path)


def test_urls_from_a_snapshot_pass_the_scope_check(tmp_path: Path) -> None:
    """A snapshot loaded with --scope keep into a crawl of one site: its URLs of another site
    are refused as out of scope, never fetched (before: fetched, as no check was made)."""
    snap = tmp_path / "two.cgpool"

    async def main() -> None:
        async with DemoSite(hosts=2, articles_per_host=8) as site:
            one, two = site.seed_urls()
            src = await LevelDBPool.open_async(tmp_path / "src")
            try:
                await src.add_many([one, two])
                await src.save_snapshot(snap, scope=["127.0.0.1", "127.0.0.2"])
            finally:
                await src.close()
            dest = tmp_path / "dest"
            dest.mkdir()
            (dest / "scope.json").write_text(
                json.dumps({"version": 1, "seed_domains": ["127.0.0.1"]})
            )
            loaded = await asyncio.to_thread(cli, "load", str(dest), str(snap), "--scope", "keep")
            assert loaded.returncode == 0, loaded.stderr
            session = await CrawlSession.open(dest, FAST)
            try:
                session.crawler.start()
                assert await session.crawler.wait() is CrawlState.FINISHED
                assert session.frontier.url_state(two) == "failed"
                assert session.frontier.url_state(one) == "done"
            finally:
                await session.close()
            assert not any("127.0.0.2" in url for url in site.fetch_counts)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_redis_pool_saves_its_shared_scope_and_load_merges_it(
    redis_server: str, tmp_path: Path
) -> None:
    snap = tmp_path / "r.cgpool"
    src = f"{redis_server}?name=s{uuid.uuid4().hex[:8]}"
    dest = f"{redis_server}?name=d{uuid.uuid4().hex[:8]}"

    async def prepare() -> None:
        pool = await RedisPool.open(src, worker="t")
        try:
            await pool.add_scope_domains(["example.org"])
            await pool.add("http://news.example.org/")
        finally:
            await pool.close()
        other = await RedisPool.open(dest, worker="t")
        try:
            await other.add_scope_domains(["example.com"])
        finally:
            await other.close()

    asyncio.run(prepare())
    assert cli("save", src, str(snap)).returncode == 0
    assert snapshot_file.read_scope(snap) == {"example.org"}
    result = cli("load", dest, str(snap))
    assert result.returncode == 0, result.stderr

    async def scope() -> set[str]:
        pool = await RedisPool.open(dest, worker="t")
        try:
            return await pool.scope_domains()
        finally:
            await pool.close()

    assert asyncio.run(scope()) == {"example.com", "example.org"}
