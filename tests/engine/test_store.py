"""PageStore over a real LevelDB in tmp_path."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import plyvel
import pytest

from crawler_gui.engine.store import (
    AUTO_FLUSH_RECORDS,
    MAX_DETAIL_LINKS,
    SCHEMA_VERSION,
    PageRecord,
    PageStore,
    make_detail,
)
from crawler_gui.errors import StoreError

T0 = 1_700_000_000.25


def rec(i: int, *, url: str | None = None, body: bytes | None = None, **kw: object) -> PageRecord:
    u = url or f"http://127.0.0.1:8631/news/a{i}.html"
    fields: dict[str, object] = {
        "url": u,
        "final_url": u,
        "status": 200,
        "fetched_at": T0 + i,
        "content_type": "text/html; charset=utf-8",
        "encoding": "utf-8",
        "title": f"标题 {i} title",
        "depth": i % 5,
        "size": len(body) if body is not None else 0,
        "elapsed": 0.125,
        "referrer": "http://127.0.0.1:8631/",
        "redirect_chain": (),
        "body": body,
    }
    fields.update(kw)
    return PageRecord(**fields)  # type: ignore[arg-type]


def test_round_trip_and_reopen(tmp_path: Path) -> None:
    body = ("<html><title>你好</title>" + "x" * 5000 + "</html>").encode()
    r1 = rec(1, body=body)
    r2 = rec(
        2,
        url="http://127.0.0.1:8631/old/a2.html",
        final_url="http://127.0.0.1:8631/news/a2.html",
        redirect_chain=(("http://127.0.0.1:8631/old/a2.html", 301),),
        referrer=None,
        body=b"b2",
    )
    with PageStore.open(tmp_path / "pages") as store:
        store.add(r1)
        store.add(r2)
        assert store.count() == 2
        # Readable before a flush (from the buffer) ...
        assert store.get(r1.url) == r1
        store.flush_sync()
        # ... and after.
        assert store.get(r1.url) == r1
        assert store.get(r2.url) == r2
        assert store.get(r2.final_url) == r2
        assert store.get("http://127.0.0.1:8631/nope") is None
    with PageStore.open(tmp_path / "pages") as store:
        assert store.count() == 2
        assert store.get(r1.url) == r1
        assert [r.url for r in store.iter_records()] == [r1.url, r2.url]
        assert all(r.body is None for r in store.iter_records())
        assert [r.body for r in store.iter_records(with_body=True)] == [body, b"b2"]
        store.add(rec(3))
    with PageStore.open(tmp_path / "pages") as store:
        assert store.count() == 3  # close() flushed the buffer


def test_refetch_appends_and_get_returns_latest(tmp_path: Path) -> None:
    hub = "http://127.0.0.1:8631/"
    with PageStore.open(tmp_path / "p") as store:
        store.add(rec(1, url=hub, title="first", body=b"v1"))
        store.flush_sync()
        store.add(rec(2, url=hub, title="second", body=b"v2"))
        latest = store.get(hub)
        assert latest is not None and latest.title == "second"
        store.flush_sync()
        latest = store.get(hub)
        assert latest is not None and latest.title == "second" and latest.body == b"v2"
        assert [r.title for r in store.iter_records()] == ["first", "second"]


def test_body_is_zlib_compressed_on_disk(tmp_path: Path) -> None:
    body = ("新闻 news " * 3000).encode()
    with PageStore.open(tmp_path / "p") as store:
        store.add(rec(1, body=body))
    db = plyvel.DB(str(tmp_path / "p"))
    try:
        assert db.get(b"meta/schema_version") == SCHEMA_VERSION
        key = (1).to_bytes(8, "big")
        stored = db.get(b"body/" + key)
        assert stored is not None
        assert len(stored) < len(body) // 10
        assert zlib.decompress(stored) == body
        meta = json.loads(db.get(b"page/" + key))
        assert meta["title"] == "标题 1 title"
        assert "body" not in meta
        assert db.get(b"url/http://127.0.0.1:8631/news/a1.html") == key
    finally:
        db.close()


def test_body_and_detail_are_made_by_isal_and_read_by_plain_zlib(tmp_path: Path) -> None:
    """Bodies and fetch details are compressed by ISA-L (a third of zlib's CPU, see
    benchmarks/crawl.py) into plain zlib streams: stores written before, and readers
    without isal, read them as they are."""
    from isal import isal_zlib

    body = ("<p>新闻 news story</p>" * 500).encode()
    with PageStore.open(tmp_path / "p") as store:
        seq = store.add(rec(1, body=body))
        store.add_detail(seq, make_detail(decided_by="header"))
    db = plyvel.DB(str(tmp_path / "p"))
    try:
        key = seq.to_bytes(8, "big")
        stored = db.get(b"body/" + key)
        assert stored == isal_zlib.compress(body, 1)
        assert stored != zlib.compress(body, 1)  # (not zlib's own output)
        assert zlib.decompress(stored) == body
        detail = db.get(b"fx/" + key)
        assert detail is not None
        assert json.loads(zlib.decompress(detail))["decided_by"] == "header"
    finally:
        db.close()
    with PageStore.open(tmp_path / "p") as store:
        got = store.record_at(seq)
        assert got is not None and got.body == body


def test_store_bodies_off(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p", store_bodies=False) as store:
        store.add(rec(1, body=b"secret"))
        got = store.get(rec(1).url)
        assert got is not None and got.body is None
        store.flush_sync()
        got = store.get(rec(1).url)
        assert got is not None and got.body is None and got.title == "标题 1 title"
        assert [r.body for r in store.iter_records(with_body=True)] == [None]


def test_auto_flush_at_threshold(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p") as store:
        for i in range(AUTO_FLUSH_RECORDS - 1):
            store.add(rec(i))
        db_view = store._db  # read-only peek: what is really in LevelDB
        assert db_view.get(b"page/" + (1).to_bytes(8, "big")) is None
        store.add(rec(AUTO_FLUSH_RECORDS))  # outside a loop: flushed inline
        assert db_view.get(b"page/" + (1).to_bytes(8, "big")) is not None
        assert store._buffer == []


def test_flush_with_nothing_to_write_takes_no_thread_but_waits_for_a_write_under_way(
    tmp_path: Path,
) -> None:
    """The crawl flushes before every commit of results, most with nothing stored: no trip to
    a worker thread then. A batch a background write has taken is not on disk yet: a flush
    still waits for it (a URL is never done before its page is written)."""
    store = PageStore.open(tmp_path / "p")
    drains: list[int] = []
    original = store._drain

    def spy() -> None:
        drains.append(threading.get_ident())
        original()

    store._drain = spy  # type: ignore[method-assign]

    async def main() -> None:
        await store.flush()
        assert drains == []  # nothing buffered: returned on the loop
        seq = store.add(rec(1))
        await store.flush()
        assert len(drains) == 1 and drains[0] != threading.get_ident()
        assert store._db.get(b"page/" + seq.to_bytes(8, "big")) is not None
        await store.flush()
        assert len(drains) == 1  # written already: nothing left
        # A background write under way (its batch taken, its lock held): flush waits.
        store._write_lock.acquire()
        with store._list_lock:
            store._writing = [[(99, rec(99))]]
        flushing = asyncio.ensure_future(store.flush())
        done, _ = await asyncio.wait({flushing}, timeout=0.3)
        assert not done
        with store._list_lock:
            store._writing = []
        store._write_lock.release()
        await asyncio.wait_for(flushing, 10)
        assert len(drains) == 2

    try:
        asyncio.run(main())
    finally:
        store.close()


def test_async_flush_runs_in_worker_thread(tmp_path: Path) -> None:
    store = PageStore.open(tmp_path / "p")
    threads: list[int] = []
    original = store._drain

    def spy() -> None:
        threads.append(threading.get_ident())
        original()

    store._drain = spy  # type: ignore[method-assign]
    body = b"z" * 20_000

    async def main() -> int:
        ticks = 0
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.create_task(ticker())
        # Automatic flushes (a background task) and a final explicit one.
        for i in range(3 * AUTO_FLUSH_RECORDS + 10):
            store.add(rec(i, body=body))
        await store.flush()
        stop.set()
        await t
        return ticks

    ticks = asyncio.run(main())
    main_thread = threading.get_ident()
    assert threads and main_thread not in threads
    assert ticks > 0  # the loop kept running while the batches were written
    assert store.count() == 3 * AUTO_FLUSH_RECORDS + 10
    assert sum(1 for _ in store.iter_records()) == store.count()
    store.close()


def test_aclose_waits_for_background_flushes(tmp_path: Path) -> None:
    async def main() -> None:
        store = PageStore.open(tmp_path / "p")
        for i in range(AUTO_FLUSH_RECORDS * 2 + 3):
            store.add(rec(i, body=b"x" * 100))
        await store.aclose()
        assert store.closed

    asyncio.run(main())
    with PageStore.open(tmp_path / "p") as store:
        assert store.count() == AUTO_FLUSH_RECORDS * 2 + 3
        seqs = [r.fetched_at for r in store.iter_records()]
        assert seqs == sorted(seqs)


def test_second_process_gets_store_error(tmp_path: Path) -> None:
    path = tmp_path / "pages"
    script = (
        "import sys\n"
        "from crawler_gui.engine.store import PageStore\n"
        "from crawler_gui.errors import StoreError\n"
        "try:\n"
        "    PageStore.open(sys.argv[1]).close()\n"
        "except StoreError as exc:\n"
        "    sys.stderr.write(str(exc))\n"
        "    sys.exit(3)\n"
    )
    with PageStore.open(path):
        proc = subprocess.run(
            [sys.executable, "-c", script, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 3, proc.stderr
        assert "in use" in proc.stderr
    # Closed: the other process may open it now.
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_same_process_second_open_is_refused(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p"), pytest.raises(StoreError, match="in use"):
        PageStore.open(tmp_path / "p")


def test_foreign_and_newer_databases_are_refused(tmp_path: Path) -> None:
    foreign = plyvel.DB(str(tmp_path / "foreign"), create_if_missing=True)
    foreign.put(b"frontier/x", b"1")
    foreign.close()
    with pytest.raises(StoreError, match="not a crawler-gui page store"):
        PageStore.open(tmp_path / "foreign")

    newer = plyvel.DB(str(tmp_path / "newer"), create_if_missing=True)
    newer.put(b"meta/schema_version", b"99")
    newer.close()
    with pytest.raises(StoreError, match="schema version"):
        PageStore.open(tmp_path / "newer")
    # The refused database was closed again: it can be opened directly.
    plyvel.DB(str(tmp_path / "newer")).close()


def test_corrupt_or_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a database")
    with pytest.raises(StoreError):
        PageStore.open(tmp_path / "file")
    with PageStore.open(tmp_path / "c") as store:
        store.add(rec(1))
    # Destroy the manifest LevelDB needs.
    for f in (tmp_path / "c").iterdir():
        if f.name.startswith("MANIFEST") or f.name == "CURRENT":
            f.write_bytes(b"garbage\n")
    with pytest.raises(StoreError):
        PageStore.open(tmp_path / "c")


def test_open_in_pool_uses_pages_subdirectory(tmp_path: Path) -> None:
    with PageStore.open_in_pool(tmp_path) as store:
        store.add(rec(1))
        assert store.path == tmp_path / "pages"
    assert (tmp_path / "pages" / "CURRENT").exists()


def test_export_jsonl(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p") as store:
        store.add(rec(1, body=b"abc"))
        store.add(
            rec(
                2,
                url="http://127.0.0.1:8631/old/a2.html",
                final_url="http://127.0.0.1:8631/news/a2.html",
                redirect_chain=(("http://127.0.0.1:8631/old/a2.html", 301),),
                status=200,
            )
        )
        buf = io.StringIO()
        assert store.export_jsonl(buf) == 2
        assert store.export_jsonl(tmp_path / "out.jsonl") == 2
    lines = buf.getvalue().splitlines()
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines() == lines
    objs = [json.loads(line) for line in lines]
    assert set(objs[0]) == {
        "url",
        "final_url",
        "status",
        "fetched_at",
        "fetched_at_ts",
        "depth",
        "encoding",
        "title",
        "content_type",
        "size",
        "elapsed",
        "referrer",
        "redirect_chain",
        "kind",
        "why",
        "article",
    }
    assert objs[0]["fetched_at"] == "2023-11-14T22:13:21.250Z"
    assert objs[0]["fetched_at_ts"] == T0 + 1
    assert objs[0]["title"] == "标题 1 title"
    assert objs[1]["redirect_chain"] == [["http://127.0.0.1:8631/old/a2.html", 301]]
    assert objs[1]["final_url"] == "http://127.0.0.1:8631/news/a2.html"


def test_closed_store_refuses_use(tmp_path: Path) -> None:
    store = PageStore.open(tmp_path / "p")
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.add(rec(1))
    with pytest.raises(StoreError, match="closed"):
        store.get("http://127.0.0.1/")


def test_extraction_kept_with_the_page_and_exported(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        s1 = store.add(rec(1))
        s2 = store.add(rec(2))
        article = {
            "title": "标题",
            "published": "2019-09-05T11:10:00+08:00",
            "updated": None,
            "authors": ["张三"],
            "lang": "zh",
            "text": "正文",
            "zone_inferred": True,
        }
        store.add_extraction(s1, {"kind": "article", "why": "dated", "article": article})
        store.add_extraction(s2, {"kind": "list", "why": "links", "article": None})
        out = io.StringIO()
        store.export_jsonl(out)
        assert store.extraction(s1) is not None
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert lines[0]["kind"] == "article"
    assert lines[0]["article"] == article
    assert lines[1]["kind"] == "list" and lines[1]["article"] is None


def test_version_1_store_still_opens(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        store.add(rec(1))
    db = plyvel.DB(str(tmp_path / "pages"))
    db.put(b"meta/schema_version", b"1")
    db.close()
    with PageStore.open(tmp_path / "pages") as store:
        out = io.StringIO()
        assert store.export_jsonl(out) == 1
    record = json.loads(out.getvalue())
    assert record["kind"] is None and record["article"] is None  # not extracted yet


def test_version_2_store_is_upgraded_and_keeps_its_records(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "pages") as store:
        store.add(rec(1, body=b"<html>one</html>"))
    db = plyvel.DB(str(tmp_path / "pages"))
    db.put(b"meta/schema_version", b"2")
    db.close()
    with PageStore.open(tmp_path / "pages") as store:
        got = store.get(rec(1).url)
        assert got is not None and got.body == b"<html>one</html>"
        assert store.hub_state(rec(1).url) == {} and store.listed_count() == 0
        store.add_listed("http://127.0.0.1:8631/feed.xml", [(rec(2).url, T0, None)])
    db = plyvel.DB(str(tmp_path / "pages"))
    try:
        assert db.get(b"meta/schema_version") == SCHEMA_VERSION == b"4"
    finally:
        db.close()
    with PageStore.open(tmp_path / "pages") as store:
        assert store.listed(rec(2).url) == {
            "published": T0,
            "updated": None,
            "via": "http://127.0.0.1:8631/feed.xml",
        }
        assert store.listed_count() == 1


HUB = "http://127.0.0.1:8631/news/"


def _bodies_on_disk(path: Path) -> int:
    db = plyvel.DB(str(path))
    try:
        return sum(1 for _ in db.iterator(prefix=b"body/", include_value=False))
    finally:
        db.close()


def test_unchanged_hub_body_is_stored_once_changed_one_again(tmp_path: Path) -> None:
    validators = {"ETag": '"v1"', "Last-Modified": "Fri, 01 Mar 2024 00:00:00 GMT"}
    with PageStore.open(tmp_path / "p") as store:
        first = store.add_hub_fetch(rec(1, url=HUB, body=b"<ul>a b</ul>"), validators)
        second = store.add_hub_fetch(rec(2, url=HUB, body=b"<ul>a b</ul>"), validators)
        # The latest record of the hub reads with its (unchanged) body all the same.
        latest = store.get(HUB)
        assert latest is not None and latest.fetched_at == T0 + 2
        assert latest.body == b"<ul>a b</ul>"
        third = store.add_hub_fetch(rec(3, url=HUB, body=b"<ul>a b c</ul>"), validators)
        assert first < second < third
        assert store.hub_validators(HUB) == {
            "If-None-Match": '"v1"',
            "If-Modified-Since": "Fri, 01 Mar 2024 00:00:00 GMT",
        }
    assert _bodies_on_disk(tmp_path / "p") == 2  # the first and the changed one
    with PageStore.open(tmp_path / "p") as store:
        records = [r for r in store.iter_records(with_body=True) if r.url == HUB]
        assert [r.body for r in records] == [b"<ul>a b</ul>", None, b"<ul>a b c</ul>"]
        state = store.hub_state(HUB)
        assert state["unchanged"] == 1 and state["changed"] == 2
        assert state["bodies"] == [first, third]
        assert [b for _s, b in store.hub_bodies(HUB)] == [b"<ul>a b</ul>", b"<ul>a b c</ul>"]


def test_a_hub_fetch_reads_with_the_body_it_had_then(tmp_path: Path) -> None:
    """A refresh that found the same body stored none: its body is the last changed one
    before it; one whose body left the bounded history has none; a page that is no hub none."""
    with PageStore.open(tmp_path / "p", hub_history=2) as store:
        bodies = [b"<ul>1</ul>", b"<ul>1</ul>", b"<ul>2</ul>", b"<ul>2</ul>", b"<ul>3</ul>"]
        seqs = [store.add_hub_fetch(rec(i, url=HUB, body=b), {}) for i, b in enumerate(bodies)]
        other = store.add(rec(9))
        store.flush_sync()
        got = [store.hub_body_as_of(HUB, s) for s in seqs]
        # the first two lost their body to the history of 2 (bodies 2 and 3 are kept)
        assert got == [None, None, b"<ul>2</ul>", b"<ul>2</ul>", b"<ul>3</ul>"]
        assert store.hub_body_as_of(rec(9).url, other) is None


def test_hub_history_is_bounded(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p", hub_history=3) as store:
        for i in range(1, 9):
            store.add_hub_fetch(rec(i, url=HUB, body=f"<ul>{i}</ul>".encode()), {})
        store.add(rec(20, body=b"<p>an article</p>"))  # not a hub: untouched
        assert store.hub_validators(HUB) == {}  # the server gave no validators
    assert _bodies_on_disk(tmp_path / "p") == 3 + 1
    with PageStore.open(tmp_path / "p", hub_history=3) as store:
        kept = [body for _seq, body in store.hub_bodies(HUB)]
        assert kept == [b"<ul>6</ul>", b"<ul>7</ul>", b"<ul>8</ul>"]
        assert store.count() == 9  # every fetch is noted


def test_not_modified_is_noted_without_a_record(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p") as store:
        store.add_hub_fetch(rec(1, url=HUB, body=b"<ul>x</ul>"), {"ETag": '"a"'})
        store.note_not_modified(HUB, T0 + 5, {"ETag": '"a"'})
        store.note_not_modified(HUB, T0 + 9, None)
    with PageStore.open(tmp_path / "p") as store:
        assert store.count() == 1
        state = store.hub_state(HUB)
        assert state["not_modified"] == 2 and state["fetched_at"] == T0 + 9
        assert store.hub_validators(HUB) == {"If-None-Match": '"a"'}


def test_listed_dates_keep_the_first_listing_and_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import crawler_gui.engine.store.listings as store_module

    monkeypatch.setattr(store_module, "MAX_LISTED", 3)
    feed = "http://127.0.0.1:8631/feed.xml"
    with PageStore.open(tmp_path / "p") as store:
        store.add_listed(feed, [(rec(1).url, T0, T0 + 1), (rec(2).url, None, None)])
        store.add_listed("http://127.0.0.1:8631/sitemap.xml", [(rec(1).url, T0 + 50, None)])
        store.add_listed(feed, [(rec(i).url, T0 + i, None) for i in range(3, 9)])
    with PageStore.open(tmp_path / "p") as store:
        assert store.listed(rec(1).url) == {"published": T0, "updated": T0 + 1, "via": feed}
        assert store.listed(rec(2).url) is None  # no date: nothing to keep
        assert store.listed_count() == 3
        assert store.listed(rec(4).url) is not None and store.listed(rec(5).url) is None


def test_a_big_listing_into_a_full_cache_of_unwritten_listings_is_quick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listings kept for reading before they are written are bounded; a sitemap of many
    new URLs into a full cache trims it at once (it was trimmed one key at a time, each found
    past every key deleted before it: seconds on the loop). CPU time, so a loaded machine
    does not decide: about 0.15 s now, 4 s before."""
    import time

    import crawler_gui.engine.store.listings as store_module

    monkeypatch.setattr(store_module, "_LISTED_CACHE", 100_000)
    monkeypatch.setattr(store_module, "MAX_LISTED", 10)  # (a quick write at the close)
    sitemap = "http://127.0.0.1:8631/sitemap.xml"
    with PageStore.open(tmp_path / "p") as store:
        first = [(f"http://127.0.0.1:8631/a/{i}.html", T0, None) for i in range(100_000)]
        second = [(f"http://127.0.0.1:8631/b/{i}.html", T0, None) for i in range(100_000)]
        store.add_listed(sitemap, first)
        started = time.process_time()
        store.add_listed(sitemap, second)
        assert time.process_time() - started < 1.5
        newest = second[-1][0]
        assert store.listed(newest) == {"published": T0, "updated": None, "via": sitemap}
        assert len(store._listed_cache) <= 100_000


def test_fetch_detail_is_recorded_bounded_and_gives_referrers(tmp_path: Path) -> None:
    links = [(f"http://127.0.0.1:8631/l{i}", "queued", "") for i in range(MAX_DETAIL_LINKS + 50)]
    detail = make_detail(
        request_headers=[("User-Agent", "ua")],
        response_headers=[("X-Long", "v" * 10_000), *((f"h{i}", "x") for i in range(300))],
        decided_by="meta",
        links=[
            ("http://127.0.0.1:8631/target", "refused", "queue full"),
            ("http://elsewhere.example/x", "off_scope", "off_domain"),
            *links,
        ],
    )
    with PageStore.open(tmp_path / "p") as store:
        s1 = store.add(rec(1))
        store.add_detail(s1, detail)
        s2 = store.add(rec(2))
        store.add_detail(s2, make_detail(links=[("http://127.0.0.1:8631/target", "known", "")]))
        s3 = store.add(rec(3))  # no detail: as a page stored before schema 4
        assert store.detail(s1) is None  # buffered: not readable by seq yet
        store.flush_sync()
        got = store.detail(s1)
        assert got is not None
        assert got["decided_by"] == "meta"
        assert got["links_total"] == MAX_DETAIL_LINKS + 52
        assert len(got["links"]) == MAX_DETAIL_LINKS
        assert got["links"][0] == ["http://127.0.0.1:8631/target", "refused", "queue full"]
        assert len(got["response_headers"]) == 100
        assert len(got["response_headers"][0][1]) == 2000
        assert store.detail(s3) is None
        assert store.referrers("http://127.0.0.1:8631/target") == [s2, s1]
        assert store.referrers("http://127.0.0.1:8631/nowhere") == []
        # off-scope links are listed, but get no referrer key (most of a page's links)
        assert store.referrers("http://elsewhere.example/x") == []
        assert store.referrers("http://127.0.0.1:8631/l0") == [s1]
        rec3 = store.record_at(s3)
        assert rec3 is not None and rec3.title == "标题 3 title"
        assert store.seq_of(rec(2).url) == s2
        assert store.last_written_seq() == s3


@pytest.mark.parametrize("version", [b"1", b"2", b"3"])
def test_older_store_is_upgraded_and_its_pages_have_no_detail(
    tmp_path: Path, version: bytes
) -> None:
    """A store written before schema 4 opens as 4 without rewriting a record; its pages have
    no fetch detail (the Page detail window says "not recorded") and refer to nothing, while
    its hub state (schema 3) stays readable and pages stored after the upgrade have both."""
    with PageStore.open(tmp_path / "pages") as store:
        store.add(rec(1))
        store.add_hub_fetch(rec(2, url=HUB, body=b"<ul>a</ul>"), {"ETag": '"e"'})
    db = plyvel.DB(str(tmp_path / "pages"))
    db.put(b"meta/schema_version", version)
    db.close()
    with PageStore.open(tmp_path / "pages") as store:
        assert store.detail(1) is None and store.detail(2) is None
        assert store.record_at(1) is not None
        assert store.hub_validators(HUB) == {"If-None-Match": '"e"'}
        s3 = store.add(rec(3))
        store.add_detail(s3, make_detail(links=[(rec(1).url, "known", "")]))
    db = plyvel.DB(str(tmp_path / "pages"))
    try:
        assert db.get(b"meta/schema_version") == SCHEMA_VERSION == b"4"
    finally:
        db.close()
    with PageStore.open(tmp_path / "pages") as store:
        got = store.detail(s3)
        assert got is not None and got["links"] == [[rec(1).url, "known", ""]]
        assert store.referrers(rec(1).url) == [s3]
        assert store.referrers(HUB) == []


def test_newest_lists_a_store_of_one_page_and_one_new_page(tmp_path: Path) -> None:
    """The one key in a reverse range equal to its start (plyvel yields nothing then)."""
    with PageStore.open(tmp_path / "p") as store:
        store.add(rec(1))
        store.flush_sync()
        rows, more = store.newest(10)
        assert [r.seq for r in rows] == [1] and more is None
        store.add(rec(2))
        store.flush_sync()
        rows, more = store.newest(10, after=1)
        assert [r.seq for r in rows] == [2] and more is None


def test_newest_pages_on_filters_and_bounds_the_scan(tmp_path: Path) -> None:
    with PageStore.open(tmp_path / "p") as store:
        for i in range(1, 31):
            seq = store.add(rec(i, status=404 if i % 3 == 0 else 200))
            if i % 2 == 0:
                store.add_extraction(seq, {"kind": "article" if i % 4 == 0 else "list"})
        store.flush_sync()
        rows, more = store.newest(10)
        assert [r.seq for r in rows] == list(range(30, 20, -1))
        assert more == 21
        rows, more = store.newest(10, before=more)
        assert [r.seq for r in rows] == list(range(20, 10, -1))
        rows, more = store.newest(100, before=3)
        assert [r.seq for r in rows] == [2, 1] and more is None
        rows, _ = store.newest(100, accept=lambda r: r.kind == "article")
        assert [r.seq for r in rows] == [28, 24, 20, 16, 12, 8, 4]
        rows, more = store.newest(100, after=26)
        assert [r.seq for r in rows] == [30, 29, 28, 27] and more is None
        rows, more = store.newest(100, accept=lambda r: r.record.status == 404, scan_limit=10)
        assert [r.seq for r in rows] == [30, 27, 24, 21] and more == 21
        fresh = store.iter_rows_from(27, 10)
        assert [(row.seq, row.kind, ex) for row, ex in fresh] == [
            (28, "article", {"kind": "article"}),
            (29, "", None),
            (30, "list", {"kind": "list"}),
        ]


def test_written_listings_leave_memory_and_are_still_read(tmp_path: Path) -> None:
    """A feed lists the same URLs at every refresh: once written, its listings are read from
    the database and no longer held in memory (they were, up to the cache's bound of 50,000:
    megabytes that a crawl of days slowly filled)."""
    feed = "http://127.0.0.1:8631/feed.xml"

    async def main() -> None:
        with PageStore.open(tmp_path / "p") as store:
            for refresh in range(5):
                items = [(rec(i).url, T0 + i, None) for i in range(refresh * 10, refresh * 10 + 50)]
                store.add_listed(feed, items)
                assert store.listed_in_memory > 0  # not written yet: read from memory
                assert store.listed(rec(refresh * 10 + 49).url) is not None
                await store.flush()
                assert store.listed_in_memory == 0
            assert store.listed(rec(0).url) == {"published": T0, "updated": None, "via": feed}
            assert store.listed(rec(89).url) == {"published": T0 + 89, "updated": None, "via": feed}
            assert store.listed_count() == 90

    asyncio.run(main())


#: A response header's value as the HTTP client hands it on: a byte that is not UTF-8 (here
#: ISO-8859-1's "é") kept as a lone surrogate, so a redirect target keeps its bytes.
RAW_E_ACUTE = b"caf\xe9".decode("utf-8", "surrogateescape")


def test_header_bytes_that_are_not_utf8_are_stored_as_latin1_text(tmp_path: Path) -> None:
    """A server's header with a Latin-1 byte in a page's fetch detail once failed every later
    write of the store; it is stored as the text a browser shows."""
    with PageStore.open(tmp_path / "p") as store:
        seq = store.add(rec(1, body=b"<p>x</p>"))
        store.add_detail(
            seq,
            make_detail(
                response_headers=[("X-Note", RAW_E_ACUTE), ("X-Both", "café " + RAW_E_ACUTE)],
                decided_by="header",
            ),
        )
    with PageStore.open(tmp_path / "p") as store:
        got = store.record_at(seq)
        assert got is not None and got.body == b"<p>x</p>"
        detail = store.detail(seq)
        assert detail is not None
        # Any byte not UTF-8 makes the whole value Latin-1 (its UTF-8 "é" reads as two).
        assert detail["response_headers"] == [["X-Note", "café"], ["X-Both", "cafÃ© café"]]


def test_text_that_is_not_unicode_never_fails_a_write(tmp_path: Path) -> None:
    """A lone surrogate from anywhere else is mended where it is stored (U+FFFD; a pair
    joined): the write succeeds, and nothing stored stops a reader later (the export)."""
    with PageStore.open(tmp_path / "p") as store:
        seq = store.add(rec(1, title="half a pair \ud83d here, a whole \ud83d\ude00"))
        store.add_extraction(seq, {"kind": "article", "article": {"title": "x\udce9"}})
    with PageStore.open(tmp_path / "p") as store:
        got = store.record_at(seq)
        assert got is not None and got.title == "half a pair \ufffd here, a whole 😀"
        out = tmp_path / "out.jsonl"
        assert store.export_jsonl(out) == 1
        (line,) = out.read_text(encoding="utf-8").splitlines()
        assert json.loads(line)["article"]["title"] == "x\ufffd"


def test_a_hub_validator_with_a_byte_not_utf8_is_forgotten(tmp_path: Path) -> None:
    """An ETag that could be neither stored as text nor sent back as it came: the hub's next
    refresh asks without it (in full); the other validator is kept."""
    validators = {"ETag": f'"{RAW_E_ACUTE}"', "Last-Modified": "Fri, 01 Mar 2024 00:00:00 GMT"}
    with PageStore.open(tmp_path / "p") as store:
        store.add_hub_fetch(rec(1, url=HUB, body=b"<ul>a</ul>"), validators)
        assert store.hub_validators(HUB) == {"If-Modified-Since": "Fri, 01 Mar 2024 00:00:00 GMT"}
    with PageStore.open(tmp_path / "p") as store:
        assert store.hub_validators(HUB) == {"If-Modified-Since": "Fri, 01 Mar 2024 00:00:00 GMT"}
