"""CrawlStats with an injected fake clock: no sleeping."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from crawler_gui.core.policy import ErrorKind
from crawler_gui.engine.stats import HISTOGRAM_BOUNDS_MS, SERIES_SECONDS, CrawlStats


class FakeClock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_empty_snapshot_is_zero() -> None:
    clock = FakeClock()
    snap = CrawlStats(clock).snapshot()
    assert snap.started == 0
    assert snap.elapsed == 0
    assert snap.pages == snap.errors == snap.bytes == 0
    assert snap.pages_per_s_10s == snap.pages_per_s_avg == 0
    assert snap.response_ms_p50 == 0
    assert snap.series == ()
    assert dict(snap.status_classes) == {"2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "error": 0}


def test_counts_statuses_errors_and_classes() -> None:
    clock = FakeClock()
    stats = CrawlStats(clock)
    stats.start()
    for status in (200, 200, 200, 301, 404, 500, 503):
        stats.record(status, None, 1000, 0.05)
    stats.record(None, ErrorKind.TIMEOUT.value, 0, 30.0)
    stats.record(None, ErrorKind.TIMEOUT.value, 0, 30.0)
    stats.record(None, ErrorKind.RESET.value, 10, 0.1)
    snap = stats.snapshot()
    assert snap.pages == 7
    assert snap.errors == 3
    assert snap.bytes == 7010
    assert dict(snap.status_counts) == {"200": 3, "301": 1, "404": 1, "500": 1, "503": 1}
    assert dict(snap.error_counts) == {"timeout": 2, "reset": 1}
    assert dict(snap.status_classes) == {"2xx": 3, "3xx": 1, "4xx": 1, "5xx": 2, "error": 3}
    # Snapshots are immutable views.
    with pytest.raises(TypeError):
        snap.status_counts["200"] = 9  # type: ignore[index]


def test_rates_over_windows_and_average() -> None:
    clock = FakeClock(1_000_000.0)
    stats = CrawlStats(clock)
    stats.start()
    # 60 seconds at 5 pages/s, then 10 seconds at 20 pages/s.
    for _sec in range(60):
        for k in range(5):
            clock.t += 0.2 if k else 0.0
            stats.record(200, None, 2000, 0.1)
        clock.t += 0.2
    for _sec in range(10):
        for _k in range(20):
            stats.record(200, None, 1000, 0.1)
            clock.t += 0.05
    snap = stats.snapshot()
    assert snap.elapsed == pytest.approx(70.0)
    assert snap.pages == 500
    assert snap.pages_per_s_avg == pytest.approx(500 / 70.0)
    # The 10 s window (current partial second included) sees only the fast part.
    assert snap.pages_per_s_10s == pytest.approx(20.0, rel=0.12)
    assert snap.bytes_per_s_10s == pytest.approx(20_000.0, rel=0.12)
    # The 60 s window sees 50 s slow + 10 s fast.
    assert snap.pages_per_s_60s == pytest.approx((50 * 5 + 200) / 60.0, rel=0.05)


def test_rate_shortly_after_start_uses_real_span() -> None:
    clock = FakeClock(2_000_000.5)
    stats = CrawlStats(clock)
    stats.start()
    clock.t += 2.0
    for _ in range(10):
        stats.record(200, None, 0, 0.01)
    snap = stats.snapshot()
    # 10 pages in 2 s since start, not 10 pages in a 10 s window.
    assert snap.pages_per_s_10s == pytest.approx(5.0)


def test_old_ring_slots_are_not_counted_again() -> None:
    clock = FakeClock(3_000_000.0)
    stats = CrawlStats(clock)
    stats.start()
    for _ in range(100):
        stats.record(200, None, 0, 0.01)
    clock.t += SERIES_SECONDS  # the same ring slot, a full turn later
    snap = stats.snapshot()
    assert snap.pages == 100
    assert snap.pages_per_s_10s == 0
    assert sum(p for _t, p, _e in snap.series) == 0
    stats.record(200, None, 0, 0.01)
    snap = stats.snapshot()
    assert snap.series[-1] == (float(int(clock.t)), 1, 0)
    assert sum(p for _t, p, _e in snap.series) == 1


def test_series_has_one_entry_per_second_capped_at_300() -> None:
    clock = FakeClock(4_000_000.0)
    stats = CrawlStats(clock)
    stats.start()
    for sec in range(400):
        stats.record(200, None, 0, 0.01)
        if sec % 2:
            stats.record(None, "timeout", 0, 0.01)
        clock.t += 1.0
    snap = stats.snapshot()
    assert len(snap.series) == SERIES_SECONDS
    times = [t for t, _p, _e in snap.series]
    assert times == [float(int(clock.t) - SERIES_SECONDS + 1 + i) for i in range(SERIES_SECONDS)]
    # The current second has had no fetch yet; every earlier one had exactly 1 page.
    assert snap.series[-1][1] == 0
    assert all(p == 1 for _t, p, _e in snap.series[:-1])
    # Seconds 101..399 of the loop are in the window; the odd ones had an error.
    assert sum(e for _t, _p, e in snap.series) == 150


def test_series_starts_at_start_second() -> None:
    clock = FakeClock(5_000_000.25)
    stats = CrawlStats(clock)
    stats.start()
    clock.t += 3.5
    stats.record(200, None, 0, 0.01)
    stats.record(None, "dns", 0, 0.01)
    snap = stats.snapshot()
    assert [t for t, _p, _e in snap.series] == [5_000_000.0 + i for i in range(4)]
    assert snap.series[-1] == (5_000_003.0, 1, 1)


def test_percentiles_from_histogram() -> None:
    clock = FakeClock()
    stats = CrawlStats(clock)
    stats.start()
    # 1..1000 ms uniformly: p50 ~ 500, p90 ~ 900, p99 ~ 990 (buckets are 10 % wide).
    for ms in range(1, 1001):
        stats.record(200, None, 0, ms / 1000.0)
    snap = stats.snapshot()
    assert snap.response_ms_p50 == pytest.approx(500, rel=0.1)
    assert snap.response_ms_p90 == pytest.approx(900, rel=0.1)
    assert snap.response_ms_p99 == pytest.approx(990, rel=0.1)
    assert snap.response_ms_p50 < snap.response_ms_p90 < snap.response_ms_p99
    assert sum(n for _b, n in snap.response_hist) == 1000
    bounds = [b for b, _n in snap.response_hist]
    assert bounds == sorted(bounds)
    # Errors do not count as response times.
    stats.record(None, "timeout", 0, 60.0)
    assert sum(n for _b, n in stats.snapshot().response_hist) == 1000


def test_histogram_bucket_edges() -> None:
    clock = FakeClock()
    stats = CrawlStats(clock)
    for ms in (0.0, 0.5, 1.0, 1.05, 10_000.0, 10_000_000.0):
        stats.record(200, None, 0, ms / 1000.0)
    hist = dict(stats.snapshot().response_hist)
    assert hist[HISTOGRAM_BOUNDS_MS[0]] == 3  # 0, 0.5 and 1 ms
    assert hist[HISTOGRAM_BOUNDS_MS[1]] == 1  # 1.05 ms is in (1, 1.1]
    assert hist[math.inf] == 1  # beyond 10 minutes
    for bound, _n in stats.snapshot().response_hist:
        if bound not in (HISTOGRAM_BOUNDS_MS[0], HISTOGRAM_BOUNDS_MS[1], math.inf):
            assert bound >= 10_000.0 > bound / 1.1 - 1e-6
    # A single very slow response: the percentile stays finite.
    assert math.isfinite(stats.snapshot().response_ms_p99)


def test_record_without_start_starts() -> None:
    clock = FakeClock(6_000_000.0)
    stats = CrawlStats(clock)
    stats.record(200, None, 5, 0.01)
    clock.t += 4
    snap = stats.snapshot()
    assert snap.started == 6_000_000.0
    assert snap.elapsed == 4.0


def test_record_and_snapshot_are_cheap() -> None:
    stats = CrawlStats()
    stats.start()
    t0 = time.perf_counter()
    for i in range(100_000):
        stats.record(200 if i % 10 else None, None if i % 10 else "timeout", 20_000, 0.123)
    per_record = (time.perf_counter() - t0) / 100_000
    t0 = time.perf_counter()
    for _ in range(200):
        stats.snapshot()
    per_snapshot = (time.perf_counter() - t0) / 200
    assert per_record < 20e-6
    assert per_snapshot < 0.5e-3


def test_disk_use_counts_each_part_once(tmp_path: Path) -> None:
    from crawler_gui.engine.stats import directory_bytes, disk_use

    pool = tmp_path / "pool"
    (pool / "pages").mkdir(parents=True)
    (pool / "warc").mkdir()
    (pool / "LOG").write_bytes(b"x" * 100)
    (pool / "pages" / "000001.ldb").write_bytes(b"y" * 1000)
    (pool / "warc" / "a.warc.gz").write_bytes(b"z" * 10)
    assert directory_bytes(pool) == 1110
    assert disk_use(pool, pool / "pages", pool / "warc") == {
        "pool": 100,
        "pages": 1000,
        "warc": 10,
        "total": 1110,
    }
    # A Redis pool has no folder here; a missing WARC folder is left out.
    assert disk_use(None, pool / "pages", tmp_path / "none") == {"pages": 1000, "total": 1000}
