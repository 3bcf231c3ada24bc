"""The LevelDB pool's snapshot keeps the rows of the leases and retries that did not change
since the last snapshot, and makes new rows for exactly those that did."""

from __future__ import annotations

from pathlib import Path

from crawler_gui.core.policy import FetchResult

from .conftest import PoolHarness, run


def test_a_snapshot_keeps_the_rows_of_unchanged_leases_and_retries(tmp_path: Path) -> None:
    h = PoolHarness("leveldb", tmp_path)
    try:
        pool = h.open()
        run(pool.add_many([f"http://h{i}.example.com/{j}" for i in range(6) for j in range(2)]))
        leases = run(pool.pop(6, 0))
        run(pool.set_status_many([(x.url, FetchResult(status=502)) for x in leases[:2]]))
        first = run(pool.snapshot())
        assert len(first.pending) == 4 and len(first.retrying) == 2
        second = run(pool.snapshot())
        assert all(a is b for a, b in zip(first.pending, second.pending, strict=True))
        assert all(a is b for a, b in zip(first.retrying, second.retrying, strict=True))
        # one lease ends, a retry is sent back to the queue: their rows go, the others stay
        run(pool.set_status(leases[2].url, FetchResult(status=200)))
        assert run(pool.retry_now(leases[0].url))
        third = run(pool.snapshot())
        pending = {r.url: r for r in second.pending}
        assert [r.url for r in third.pending] == [x.url for x in leases[3:]]
        assert all(r is pending[r.url] for r in third.pending)
        (kept,) = third.retrying
        assert kept is second.retrying[1] and kept.url == leases[1].url
        # the retried URL fails again: a new row with the new attempt
        (again,) = run(pool.pop(1, 0))
        assert again.url == leases[0].url
        run(pool.set_status(again.url, FetchResult(status=502)))
        rows = {r.url: r for r in run(pool.snapshot()).retrying}
        assert rows[leases[0].url].attempts == 2 and rows[leases[1].url] is kept
        # a new lease gets a row of its own
        (new,) = run(pool.pop(1, 0))
        fourth = run(pool.snapshot())
        assert [r.url for r in fourth.pending][-1] == new.url
        assert fourth.pending[-1].started == new.started
    finally:
        h.close()
