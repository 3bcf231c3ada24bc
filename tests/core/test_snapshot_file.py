"""Snapshot save/load: round trips, and every kind of bad file leaves the pool as it was."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.frontier import AddRequest, HubSpec
from crawler_gui.core.policy import FetchResult
from crawler_gui.errors import PoolBusyError, SnapshotFormatError, SnapshotVersionError

from .conftest import PoolHarness, run


def populate(pool: Any) -> None:
    run(pool.set_hubs([HubSpec("http://hub.example.com/", 120)]))
    run(
        pool.add_many(
            [
                AddRequest(f"http://h{h}.example.com/{i}", i % 3, "http://ref.example.com/")
                for h in range(4)
                for i in range(6)
            ]
        )
    )
    leases = run(pool.pop(4, 0))
    run(pool.set_status(leases[0].url, FetchResult(status=200)))
    run(pool.set_status(leases[1].url, FetchResult(status=404)))
    run(pool.set_status(leases[2].url, FetchResult(status=503, retry_after=30)))
    run(
        pool.set_status(
            leases[3].url, FetchResult(status=301, redirect_to="http://h0.example.com/moved")
        )
    )
    run(pool.set_delay("h2.example.com", 5.0))


def state(pool: Any) -> tuple[Any, ...]:
    snap = run(pool.snapshot())
    t = snap.totals
    return (
        (t.waiting, t.pending, t.done, t.failed, t.retrying, t.redirected, t.hubs),
        sorted((r.url, r.attempts, r.next_try) for r in snap.retrying),
        sorted((h.url, h.span) for h in snap.hubs),
    )


def test_save_then_load_round_trips_the_pool(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    populate(pool)
    before = state(pool)
    order_before = []
    records = run(pool.save_snapshot(tmp_path / "pool.snapshot"))
    assert records > 25
    run(pool.add_many([f"http://later.example.com/{i}" for i in range(5)]))
    assert run(pool.load_snapshot(tmp_path / "pool.snapshot")) == records
    assert state(pool) == before
    # queue order survives: breadth-first per host
    for _ in range(50):
        leases = run(pool.pop(50, 0))
        if not leases:
            if run(pool.snapshot()).totals.waiting == 0:
                break
            harness.clock.advance(10)  # h2 has a crawl delay of 5 s, kept by the load
            continue
        order_before += [(lease.host, lease.depth) for lease in leases]
        run(pool.set_status_many([(lease.url, FetchResult(status=200)) for lease in leases]))
    for host in {h for h, _ in order_before}:
        depths = [d for h, d in order_before if h == host]
        assert depths == sorted(depths)
    harness.reopen()
    assert run(harness.pool.snapshot()).totals.waiting == 0


def test_in_flight_urls_are_saved_as_waiting(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
    run(pool.pop(1, 0))
    run(pool.save_snapshot(tmp_path / "s"))
    other = PoolHarness("leveldb", tmp_path / "other")
    try:
        other.open()
        run(other.pool.load_snapshot(tmp_path / "s"))
        assert run(other.pool.snapshot()).totals.waiting == 2
    finally:
        other.close()


def _bad_files(tmp_path: Path, good: Path) -> dict[str, Path]:
    files: dict[str, Path] = {}
    data = good.read_bytes()
    files["truncated"] = tmp_path / "truncated"
    files["truncated"].write_bytes(data[: len(data) // 2])
    raw_lines = gzip.decompress(data).splitlines()
    files["no_end"] = tmp_path / "no_end"
    files["no_end"].write_bytes(gzip.compress(b"\n".join(raw_lines[:-1]) + b"\n"))
    files["miscounted"] = tmp_path / "miscounted"
    files["miscounted"].write_bytes(gzip.compress(b"\n".join(raw_lines[:-2] + raw_lines[-1:])))
    files["pickle"] = tmp_path / "pickle"
    files["pickle"].write_bytes(pickle.dumps({"waiting": {"a.com": {"http://a.com/"}}}))
    files["foreign_json"] = tmp_path / "foreign.json"
    files["foreign_json"].write_text(json.dumps({"hello": "world"}))
    files["foreign_gzip"] = tmp_path / "foreign.gz"
    files["foreign_gzip"].write_bytes(gzip.compress(b'{"format": "something-else"}\n'))
    files["garbage_record"] = tmp_path / "garbage"
    bad = [
        *raw_lines[:2],
        json.dumps(
            {
                "t": "url",
                "url": "javascript:alert(1)",
                "state": "waiting",
                "depth": 0,
                "attempts": 0,
                "seq": 1,
                "time": 0,
            }
        ).encode(),
    ]
    bad.append(json.dumps({"t": "end", "records": len(bad) - 1}).encode())
    files["garbage_record"].write_bytes(gzip.compress(b"\n".join(bad)))
    files["twice"] = tmp_path / "twice"  # one URL in two records: which one would win?
    url_lines = [line for line in raw_lines if b'"t": "url"' in line or b'"t":"url"' in line]
    twice = [*raw_lines[:-1], url_lines[0]]
    twice.append(json.dumps({"t": "end", "records": len(twice) - 1}).encode())
    files["twice"].write_bytes(gzip.compress(b"\n".join(twice)))
    files["not_json"] = tmp_path / "notjson"
    files["not_json"].write_bytes(gzip.compress(raw_lines[0] + b"\n{oops\n"))
    files["empty"] = tmp_path / "empty"
    files["empty"].write_bytes(b"")
    return files


def test_bad_snapshot_files_give_clear_errors_and_change_nothing(
    harness: PoolHarness, tmp_path: Path
) -> None:
    pool = harness.open()
    populate(pool)
    good = tmp_path / "good.snapshot"
    run(pool.save_snapshot(good))
    run(pool.add("http://after.example.com/"))
    before = state(pool)
    messages = {}
    for name, path in _bad_files(tmp_path, good).items():
        with pytest.raises(SnapshotFormatError) as info:
            run(pool.load_snapshot(path))
        messages[name] = str(info.value)
        assert state(pool) == before, name
    assert "pickle" in messages["pickle"]
    assert "truncated" in messages["no_end"]
    assert "not a crawler-gui pool snapshot" in messages["foreign_json"]
    assert "twice" in messages["twice"]
    assert not list((harness.where / "pool").glob("*.loading"))
    harness.reopen()
    assert state(harness.pool) == before


def test_newer_snapshot_version_is_refused(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    path = tmp_path / "future"
    path.write_bytes(
        gzip.compress(
            b'{"format": "crawler-gui-pool-snapshot", "version": 7}\n{"t": "end", "records": 0}\n'
        )
    )
    with pytest.raises(SnapshotVersionError, match="newer"):
        run(pool.load_snapshot(path))


def test_load_refuses_while_urls_are_in_flight(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    run(pool.add("http://a.example.com/"))
    run(pool.save_snapshot(tmp_path / "s"))
    run(pool.pop(1, 0))
    with pytest.raises(PoolBusyError):
        run(pool.load_snapshot(tmp_path / "s"))


def test_save_is_atomic_and_leaves_no_temp_files(harness: PoolHarness, tmp_path: Path) -> None:
    pool = harness.open()
    populate(pool)
    target = tmp_path / "out" / "pool.snapshot"
    target.parent.mkdir()
    target.write_bytes(b"previous")
    run(pool.save_snapshot(target))
    assert sorted(p.name for p in target.parent.iterdir()) == ["pool.snapshot"]
    assert gzip.decompress(target.read_bytes()).startswith(b'{"format":"crawler-gui-pool')


def test_a_host_records_user_control_is_checked() -> None:
    from crawler_gui.core.snapshot_file import host_control, host_record

    assert host_control(host_record("a.example.com", 0.0, 0.0, True, 3.0)) == (True, 3.0)
    assert host_control({"t": "host", "host": "a.example.com"}) == (False, -1.0)  # older files
    for bad in ({"paused": "yes"}, {"user_delay": "1"}, {"user_delay": float("inf")}):
        with pytest.raises(SnapshotFormatError):
            host_control({"t": "host", "host": "a.example.com", **bad})
