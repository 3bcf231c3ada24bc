"""The pool contract: every behaviour of docs/frontier.md, against every backend, and again
after close and reopen where durability matters."""

from __future__ import annotations

from typing import Any

import pytest

from crawler_gui.core.freshness import list_sample
from crawler_gui.core.frontier import (
    AddRequest,
    Frontier,
    HubSpec,
    PoolTotals,
    Refusal,
    SharedFrontier,
)
from crawler_gui.core.policy import ErrorKind, FetchResult, Outcome, Politeness, RetryPolicy
from crawler_gui.core.pool_rules import (
    hub_next_due,
    hub_outcome,
    outcome_of,
    retry_delay,
    retry_schedule,
)
from crawler_gui.core.redis.layout import group_of

from ..protocol_check import protocol_mismatches
from .conftest import PoolHarness, fast_config, run

OK = FetchResult(status=200, elapsed=0.1)


def urls_of(leases: list[Any]) -> list[str]:
    return [lease.url for lease in leases]


def drain(pool: Any, clock: Any = None, batch: int = 100) -> list[str]:
    """Pop and succeed until nothing is left; return URLs in pop order."""
    seen: list[str] = []
    for _ in range(10_000):
        leases = run(pool.pop(batch, 0))
        if not leases:
            break
        seen += urls_of(leases)
        run(pool.set_status_many([(lease.url, OK) for lease in leases]))
    return seen


@pytest.fixture(params=[False, True], ids=["live", "reopened"])
def reopen(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def maybe_reopen(h: PoolHarness, flag: bool) -> Any:
    return h.reopen() if flag else h.pool


def test_implements_the_frontier_protocol_member_by_member(harness: PoolHarness) -> None:
    pool = harness.open()
    assert isinstance(pool, Frontier)
    # names alone are what isinstance sees: parameters, defaults and async-ness too
    assert protocol_mismatches(type(pool), Frontier) == []
    shared = harness.backend.startswith("redis")
    assert isinstance(pool, SharedFrontier) is shared
    if shared:
        assert protocol_mismatches(type(pool), SharedFrontier) == []
        assert isinstance(pool.worker, str) and pool.worker


def test_the_protocol_check_sees_a_wrong_signature() -> None:
    class Sync:
        def hubs(self) -> list[HubSpec]:
            return []

        async def totals(self, since: int = 0) -> PoolTotals: ...

    problems = protocol_mismatches(Sync, Frontier)
    assert "hubs: plain, the protocol says coroutine" in problems
    assert any(p.startswith("totals: parameters") for p in problems)
    assert "add: missing" in problems


def test_totals_hubs_and_known(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/2"]))
    run(pool.set_hubs([HubSpec("http://h.example.com/", 600.0)]))
    assert len(run(pool.pop(1, 0))) == 1
    totals = run(pool.totals())
    assert totals == run(pool.snapshot()).totals
    assert (totals.waiting, totals.pending, totals.hubs) == (1, 1, 1)
    assert run(pool.hubs()) == [HubSpec("http://h.example.com/", 600.0)]
    if harness.backend == "leveldb":  # answered from memory
        assert pool.known("http://a.example.com/1") is True
        assert pool.known("http://z.example.com/") is False
        assert pool.storage_dir == harness.where / "pool"
    else:  # a round trip: the caller lets the pool de-duplicate
        assert pool.known("http://a.example.com/1") is None
        assert pool.storage_dir is None
    assert pool.recover() is False  # nothing to recover from


# ---- adding ------------------------------------------------------------------------------------
def test_add_canonicalizes_and_deduplicates_variants(harness: PoolHarness) -> None:
    pool = harness.open()
    report = run(
        pool.add_many(
            [
                "http://News.Example.com:80/a/./b/../c.html#top",
                "http://news.example.com/a/c.html?utm_source=hub",
                "HTTP://NEWS.EXAMPLE.COM/a/c.html",
                "http://news.example.com/a/c.html",
            ]
        )
    )
    assert report.added == 1
    assert report.duplicate == 3
    assert urls_of(run(pool.pop(10, 0))) == ["http://news.example.com/a/c.html"]


def test_bad_urls_are_refused_with_reasons_and_counted(harness: PoolHarness) -> None:
    pool = harness.open()
    report = run(
        pool.add_many(
            [
                "ftp://example.com/file",
                "http://localhost/",
                "not a url",
                "http://example.com/" + "x" * 3000,
                "",
                "http://:80/",
                "http://user:pw@example.com/",
                "http://ok.example.com/",
            ]
        )
    )
    reasons = [reason for _url, reason in report.refused]
    assert reasons == [
        "scheme",
        "host_without_dot",
        "scheme",
        "too_long",
        "empty",
        "no_host",
        "userinfo",
    ]
    assert report.added == 1
    totals = run(pool.snapshot()).totals
    assert totals.refused["scheme"] == 2
    assert totals.waiting == 1


def test_known_urls_are_not_added_again_in_any_state(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=0)))
    run(
        pool.add_many(
            [
                "http://a.example.com/done",
                "http://b.example.com/failed",
                "http://c.example.com/pending",
                "http://d.example.com/waiting",
            ]
        )
    )
    leases = {lease.url: lease for lease in run(pool.pop(3, 0))}
    assert set(leases) == {
        "http://a.example.com/done",
        "http://b.example.com/failed",
        "http://c.example.com/pending",
    }
    run(pool.set_status("http://a.example.com/done", OK))
    run(pool.set_status("http://b.example.com/failed", FetchResult(status=404)))
    again = run(
        pool.add_many(
            [
                "http://a.example.com/done",
                "http://b.example.com/failed",
                "http://c.example.com/pending",
                "http://d.example.com/waiting",
            ]
        )
    )
    assert again.added == 0 and again.duplicate == 4


def test_always_requeues_finished_urls_but_never_doubles_waiting_ones(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"]))
    (lease,) = run(pool.pop(1, 0))
    run(pool.set_status(lease.url, OK))
    pool = maybe_reopen(harness, reopen)
    report = run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"], always=True))
    assert report.added == 1 and report.duplicate == 1
    totals = run(pool.snapshot()).totals
    assert (totals.waiting, totals.done) == (2, 0)
    assert sorted(drain(pool)) == ["http://a.example.com/1", "http://a.example.com/2"]


# ---- queues ------------------------------------------------------------------------------------
def test_breadth_first_within_a_host(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open()
    run(
        pool.add_many(
            [
                AddRequest("http://a.example.com/d2-first", 2),
                AddRequest("http://a.example.com/d1-first", 1),
                AddRequest("http://a.example.com/d2-second", 2),
                AddRequest("http://a.example.com/d0", 0),
                AddRequest("http://a.example.com/d1-second", 1),
            ]
        )
    )
    pool = maybe_reopen(harness, reopen)
    assert drain(pool) == [
        "http://a.example.com/d0",
        "http://a.example.com/d1-first",
        "http://a.example.com/d1-second",
        "http://a.example.com/d2-first",
        "http://a.example.com/d2-second",
    ]


def test_breadth_first_holds_across_the_read_ahead_buffer(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([AddRequest(f"http://a.example.com/deep{i}", 3) for i in range(50)]))
    assert urls_of(run(pool.pop(1, 0))) == ["http://a.example.com/deep0"]
    run(pool.set_status("http://a.example.com/deep0", OK))
    run(pool.add_many([AddRequest(f"http://a.example.com/shallow{i}", 1) for i in range(3)]))
    order = drain(pool)
    assert order[:4] == [
        "http://a.example.com/shallow0",
        "http://a.example.com/shallow1",
        "http://a.example.com/shallow2",
        "http://a.example.com/deep1",
    ]
    assert len(order) == 52


def test_depth_limit_and_host_cap_refuse_and_count(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open(fast_config(max_depth=2, max_per_host=3))
    report = run(
        pool.add_many(
            [AddRequest("http://a.example.com/too-deep", 3)]
            + [AddRequest(f"http://b.example.com/{i}", 1) for i in range(5)]
        )
    )
    assert report.added == 3
    assert report.overflow == 2
    assert ("http://a.example.com/too-deep", "too_deep") in report.refused
    totals = run(pool.snapshot()).totals
    assert totals.overflow == 2 and totals.refused["too_deep"] == 1
    pool = maybe_reopen(harness, reopen)
    assert len(drain(pool)) == 3


# ---- popping -----------------------------------------------------------------------------------
def test_pop_gives_one_url_per_host_and_skips_busy_hosts(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([f"http://h{h}.example.com/{i}" for h in range(3) for i in range(4)]))
    first = run(pool.pop(10, 0))
    assert sorted(lease.host for lease in first) == [
        "h0.example.com",
        "h1.example.com",
        "h2.example.com",
    ]
    assert run(pool.pop(10, 0)) == []  # every host has a URL in flight
    run(pool.set_status(first[0].url, OK))
    second = run(pool.pop(10, 0))
    assert [lease.host for lease in second] == [first[0].host]


def test_politeness_delay_is_kept_per_host(harness: PoolHarness) -> None:
    pool = harness.open(
        fast_config(politeness=Politeness(min_delay=2.0, delay_factor=10.0, max_delay=30.0))
    )
    run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"]))
    (lease,) = run(pool.pop(5, 0))
    run(pool.set_status(lease.url, FetchResult(status=200, elapsed=0.5)))  # delay = 10 * 0.5
    assert run(pool.pop(5, 0)) == []
    row = next(r for r in run(pool.snapshot()).hosts if r.host == "a.example.com")
    assert row.delay == 5.0
    assert row.next_allowed == harness.clock.now() + 5.0
    assert run(pool.next_due()) == harness.clock.now() + 5.0
    harness.clock.advance(4.9)
    assert run(pool.pop(5, 0)) == []
    harness.clock.advance(0.1)
    assert urls_of(run(pool.pop(5, 0))) == ["http://a.example.com/2"]


def test_crawl_delay_raises_a_hosts_minimum(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"]))
    run(pool.set_delay("a.example.com", 7.0))
    pool = maybe_reopen(harness, reopen)
    (lease,) = run(pool.pop(5, 0))
    run(pool.set_status(lease.url, OK))
    harness.clock.advance(6.9)
    assert run(pool.pop(5, 0)) == []
    harness.clock.advance(0.1)
    assert len(run(pool.pop(5, 0))) == 1


def test_hosts_take_turns_so_a_huge_host_does_not_starve_others(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([f"http://big.example.com/{i}" for i in range(500)]))
    run(pool.add_many([f"http://small{h}.example.com/{i}" for h in range(5) for i in range(2)]))
    hosts_seen: list[set[str]] = []
    for _ in range(2):
        leases = run(pool.pop(6, 0))
        hosts_seen.append({lease.host for lease in leases})
        run(pool.set_status_many([(lease.url, OK) for lease in leases]))
    expected = {"big.example.com"} | {f"small{h}.example.com" for h in range(5)}
    assert hosts_seen == [expected, expected]


def test_a_host_waiting_for_its_delay_does_not_idle_the_crawl(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(politeness=Politeness(min_delay=60.0)))
    run(
        pool.add_many(
            ["http://slow.example.com/1", "http://slow.example.com/2"]
            + [f"http://fast{i}.example.com/" for i in range(3)]
        )
    )
    leases = run(pool.pop(1, 0))
    run(pool.set_status(leases[0].url, OK))
    others = run(pool.pop(10, 0))
    assert len(others) == 3
    assert leases[0].host not in {lease.host for lease in others}


# ---- leases ------------------------------------------------------------------------------------
def test_expired_lease_comes_back_by_itself(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add("http://a.example.com/slow"))
    (lease,) = run(pool.pop(1, 0))
    assert lease.expires == lease.started + 60.0
    snap = run(pool.snapshot())
    assert [p.url for p in snap.pending] == ["http://a.example.com/slow"]
    harness.clock.advance(59)
    assert run(pool.pop(1, 0)) == []
    harness.clock.advance(1)
    (again,) = run(pool.pop(1, 0))
    assert again.url == lease.url
    assert pool.url_attempts(lease.url) == 1


def test_late_result_after_reclaim_is_still_taken(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/x", "http://b.example.com/y"]))
    run(pool.pop(1, 0))
    harness.clock.advance(61)
    assert run(pool.reclaim_expired()) == 1
    run(pool.set_status("http://a.example.com/x", OK))  # the slow worker answers after all
    totals = run(pool.snapshot()).totals
    assert (totals.done, totals.waiting, totals.pending) == (1, 1, 0)


# ---- results -----------------------------------------------------------------------------------
def test_success_and_permanent_failures(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open()
    run(
        pool.add_many(
            [
                "http://a.example.com/ok",
                "http://b.example.com/gone",
                "http://c.example.com/removed",
                "http://d.example.com/forbidden",
            ]
        )
    )
    leases = run(pool.pop(10, 0))
    statuses = {"a": 200, "b": 404, "c": 410, "d": 403}
    run(
        pool.set_status_many(
            [(lease.url, FetchResult(status=statuses[lease.host[0]])) for lease in leases]
        )
    )
    pool = maybe_reopen(harness, reopen)
    totals = run(pool.snapshot()).totals
    assert (totals.done, totals.failed, totals.waiting, totals.retrying) == (1, 3, 0, 0)
    assert pool.url_state("http://b.example.com/gone") == "failed"
    assert pool.url_state("http://a.example.com/ok") == "done"


def test_redirect_records_target_and_queues_it(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open()
    run(pool.add(AddRequest("http://a.example.com/old", 2).url, 2))
    (lease,) = run(pool.pop(1, 0))
    run(
        pool.set_status(
            lease.url, FetchResult(status=301, redirect_to="http://b.example.com/new#x")
        )
    )
    pool = maybe_reopen(harness, reopen)
    assert pool.url_state("http://a.example.com/old") == "redirected"
    assert pool.url_state("http://b.example.com/new") == "waiting"
    (target,) = run(pool.pop(1, 0))
    assert (target.url, target.depth) == ("http://b.example.com/new", 2)
    assert run(pool.snapshot()).totals.redirected == 1


def test_final_url_of_a_followed_redirect_is_never_fetched_again(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/old"]))
    (lease,) = run(pool.pop(1, 0))
    run(pool.add_many(["http://a.example.com/new"]))  # found elsewhere, waiting
    run(pool.set_status(lease.url, FetchResult(status=200, final_url="http://a.example.com/new")))
    assert pool.url_state("http://a.example.com/new") == "done"
    assert run(pool.pop(5, 0)) == []
    assert run(pool.add("http://a.example.com/new")).duplicate == 1


def test_final_url_on_another_host_is_done_there(harness: PoolHarness) -> None:
    # Hosts in different key groups of a grouped Redis pool (5 and 16 groups): the result is
    # recorded in the first host's group, the final URL marked done in its own.
    other = next(
        f"b{i}.example.com"
        for i in range(100)
        if all(group_of(f"b{i}.example.com", g) != group_of("a.example.com", g) for g in (5, 16))
    )
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/old", f"http://{other}/known"]))
    leases = run(pool.pop(2, 0))
    assert {lease.url for lease in leases} == {"http://a.example.com/old", f"http://{other}/known"}
    run(pool.add_many([f"http://{other}/new"]))  # found elsewhere, waiting
    result = FetchResult(status=200, final_url=f"http://{other}/new")
    run(pool.set_status("http://a.example.com/old", result))
    assert pool.url_state("http://a.example.com/old") == "done"
    assert pool.url_state(f"http://{other}/new") == "done"
    totals = run(pool.snapshot()).totals
    assert (totals.done, totals.waiting, totals.pending) == (2, 0, 1)
    run(pool.set_status(f"http://{other}/known", OK))
    assert run(pool.pop(5, 0)) == []
    # a final URL never seen before is recorded as done, in its own host's row
    run(pool.add_many(["http://a.example.com/next"]))
    (lease,) = run(pool.pop(1, 0))
    run(pool.set_status(lease.url, FetchResult(status=200, final_url=f"http://{other}/fresh")))
    assert pool.url_state(f"http://{other}/fresh") == "done"
    rows = {row.host: row for row in run(pool.snapshot()).hosts}
    assert (rows[other].done, rows[other].waiting) == (3, 0)
    assert run(pool.add(f"http://{other}/fresh")).duplicate == 1


def test_server_errors_retry_with_backoff_until_the_threshold(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=2, base=10.0, factor=3.0)))
    run(pool.add("http://a.example.com/flaky"))
    delays = []
    for attempt in (1, 2):
        (lease,) = run(pool.pop(1, 0))
        run(pool.set_status(lease.url, FetchResult(status=500, message="server error")))
        pool = maybe_reopen(harness, reopen)
        (row,) = run(pool.snapshot()).retrying
        assert row.attempts == attempt and row.last_error == "server error"
        delays.append(row.next_try - harness.clock.now())
        assert run(pool.pop(1, 0)) == []
        harness.clock.advance(delays[-1])
    assert delays == [10.0, 30.0]
    (lease,) = run(pool.pop(1, 0))
    run(pool.set_status(lease.url, FetchResult(error=ErrorKind.TIMEOUT)))
    totals = run(pool.snapshot()).totals
    assert (totals.failed, totals.retrying, totals.waiting) == (1, 0, 0)


def test_the_retry_schedule_is_the_rules_and_follows_a_config_change(harness: PoolHarness) -> None:
    """A schedule set live (``set_config``), not the default: every backend waits what
    ``pool_rules.retry_delay`` says after each failure, up to its maximum (the Redis scripts
    get the table from the worker: a table of their own would disagree here)."""
    pool = harness.open()
    policy = RetryPolicy(failure_threshold=5, base=7.0, factor=1.5, maximum=20.0)
    pool.set_config(fast_config(retry=policy))
    run(pool.add("http://a.example.com/flaky"))
    waits = []
    for failures in range(1, 6):
        (lease,) = run(pool.pop(1, 0))
        run(pool.set_status(lease.url, FetchResult(status=502)))
        (row,) = run(pool.snapshot()).retrying
        assert row.attempts == failures
        waits.append(row.next_try - harness.clock.now())
        harness.clock.advance(waits[-1])
    assert waits == [retry_delay(policy, Outcome.RETRY, n, None) for n in range(1, 6)]
    assert waits == [7.0, 10.5, 15.75, 20.0, 20.0]
    assert retry_schedule(policy)[:5] == tuple(waits)


def test_network_errors_are_retried_but_blocked_addresses_are_not(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/", "http://b.example.com/", "http://c.example.com/"]))
    leases = run(pool.pop(3, 0))
    kinds = {"a": ErrorKind.CONNECT, "b": ErrorKind.BLOCKED_ADDRESS, "c": ErrorKind.ROBOTS}
    run(
        pool.set_status_many(
            [(lease.url, FetchResult(error=kinds[lease.host[0]])) for lease in leases]
        )
    )
    totals = run(pool.snapshot()).totals
    assert (totals.retrying, totals.failed) == (1, 2)


def test_refusals_are_final_kept_with_their_reason_and_requeued_when_allowed(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open()
    run(pool.add_many([AddRequest("http://a.example.com/", 0)]))
    run(
        pool.add_many(
            [AddRequest(f"http://{h}.example.com/p", 2, "http://r.example.com/") for h in "bcd"]
        )
    )
    leases = run(pool.pop(4, 0))
    results = {
        "a": FetchResult(error=ErrorKind.CONNECT),
        "b": FetchResult(error=ErrorKind.BLOCKED_ADDRESS, message="10.0.0.1 is private"),
        "c": FetchResult(error=ErrorKind.ROBOTS),
        "d": FetchResult(
            status=301, error=ErrorKind.OUT_OF_SCOPE, redirect_to="http://off.example.org/"
        ),
    }
    run(pool.set_status_many([(lease.url, results[lease.host[0]]) for lease in leases]))
    pool = maybe_reopen(harness, reopen)
    totals = run(pool.snapshot()).totals
    # a network failure is retried; the three refusals are final, no attempt counted
    assert (totals.retrying, totals.failed, totals.refused_urls) == (1, 3, 3)
    assert pool.url_state("http://d.example.com/p") == "failed"
    assert run(pool.add("http://b.example.com/p")).duplicate == 1  # decided once
    seen: list[tuple[str, str, str]] = []

    def keep(refusal: Refusal) -> bool:
        seen.append((refusal.url, refusal.reason, refusal.target))
        return refusal.reason in ("blocked_address", "out_of_scope")

    assert run(pool.requeue_refused(keep)) == 2
    assert sorted(seen) == [
        ("http://b.example.com/p", "blocked_address", ""),
        ("http://c.example.com/p", "robots", ""),
        ("http://d.example.com/p", "out_of_scope", "http://off.example.org/"),
    ]
    pool = maybe_reopen(harness, reopen)
    totals = run(pool.snapshot()).totals
    assert (totals.waiting, totals.failed, totals.refused_urls) == (2, 1, 1)
    back = run(pool.pop(5, 0))
    assert {(lease.url, lease.depth, lease.referrer) for lease in back} == {
        ("http://b.example.com/p", 2, "http://r.example.com/"),
        ("http://d.example.com/p", 2, "http://r.example.com/"),
    }
    assert run(pool.requeue_refused(lambda _r: True)) == 1  # only c is still refused
    assert run(pool.snapshot()).totals.refused_urls == 0


def outcomes_of(pool: Any) -> dict[str, dict[str, Any]]:
    """``iter_outcomes`` of a backend, by URL."""

    async def collect() -> list[dict[str, Any]]:
        return [rec async for rec in pool.iter_outcomes()]

    listed = run(collect())
    return {rec["url"]: rec for rec in listed}


def test_every_urls_outcome_is_exported_with_status_reason_and_target(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open()
    ref = "http://r.example.com/"
    run(pool.add_many([AddRequest(f"http://{h}.example.com/p", 1, ref) for h in "abcdef"]))
    leases = run(pool.pop(10, 0))
    results = {
        "a": OK,
        "b": FetchResult(status=404, message="not here"),
        "c": FetchResult(
            status=301, error=ErrorKind.BAD_REDIRECT, message="301 without a Location header"
        ),
        "d": FetchResult(error=ErrorKind.TIMEOUT, message="timed out (TimeoutError)"),
        "e": FetchResult(error=ErrorKind.BLOCKED_ADDRESS, message="10.0.0.1: blocked"),
        "f": FetchResult(status=302, redirect_to="http://g.example.com/there"),
    }
    run(pool.set_status_many([(lease.url, results[lease.host[0]]) for lease in leases]))
    pool = maybe_reopen(harness, reopen)
    out = outcomes_of(pool)
    assert set(out) == {f"http://{h}.example.com/p" for h in "abcdef"} | {
        "http://g.example.com/there"
    }
    a, b, c, d, e, f = (out[f"http://{h}.example.com/p"] for h in "abcdef")
    assert all(rec["kind"] == "outcome" for rec in out.values())
    assert (a["state"], a["status"], a["referrer"], a["depth"]) == ("done", None, ref, 1)
    assert (b["state"], b["status"], b["reason"], b["message"], b["referrer"]) == (
        "failed",
        404,
        None,
        "not here",
        ref,
    )
    assert (c["state"], c["status"], c["reason"]) == ("failed", 301, "bad_redirect")
    assert (d["state"], d["status"], d["attempts"]) == ("retrying", None, 1)
    assert d["message"] == "timed out (TimeoutError)" and d["next_try_ts"] > 0
    assert (e["state"], e["reason"], e["message"]) == ("refused", "blocked_address", e["message"])
    assert "blocked" in e["message"]
    assert (f["state"], f["target"]) == ("redirected", "http://g.example.com/there")
    assert out["http://g.example.com/there"]["state"] == "waiting"


def test_429_waits_for_retry_after_and_slows_the_whole_host(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"]))
    (lease,) = run(pool.pop(1, 0))
    run(pool.set_status(lease.url, FetchResult(status=429, retry_after=120.0)))
    row = next(r for r in run(pool.snapshot()).hosts if r.host == "a.example.com")
    assert row.backoff_until == harness.clock.now() + 120.0
    (retry,) = run(pool.snapshot()).retrying
    assert retry.next_try == harness.clock.now() + 120.0
    harness.clock.advance(119)
    assert run(pool.pop(5, 0)) == []  # the other URL of the host waits too
    harness.clock.advance(1)
    assert len(run(pool.pop(5, 0))) == 1


def test_retry_now_and_give_up(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
    leases = run(pool.pop(2, 0))
    run(pool.set_status_many([(lease.url, FetchResult(status=502)) for lease in leases]))
    assert run(pool.retry_now("http://a.example.com/1"))
    assert run(pool.give_up("http://b.example.com/1"))
    assert not run(pool.give_up("http://nowhere.example.com/"))
    assert urls_of(run(pool.pop(5, 0))) == ["http://a.example.com/1"]
    assert pool.url_state("http://b.example.com/1") == "failed"


# ---- hubs --------------------------------------------------------------------------------------
def test_hubs_come_due_after_their_span_and_are_never_done(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open()
    report = run(
        pool.set_hubs(
            [
                HubSpec("http://news.example.com/", 300),
                HubSpec("http://news.example.com/world/", 600),
                HubSpec("mailto:x@example.com", 60),
            ]
        )
    )
    assert report.added == 2 and report.refused == [("mailto:x@example.com", "scheme")]
    run(pool.add_many([f"http://other{i}.example.com/" for i in range(4)]))
    first = run(pool.pop(4, 50))
    assert sum(lease.is_hub for lease in first) == 1  # one host: one hub at a time
    run(pool.set_status_many([(lease.url, OK) for lease in first]))
    second = run(pool.pop(4, 50))
    assert [lease.url for lease in second if lease.is_hub] == ["http://news.example.com/world/"]
    run(pool.set_status_many([(lease.url, OK) for lease in second]))
    pool = maybe_reopen(harness, reopen)
    hubs = {row.url: row for row in run(pool.snapshot()).hubs}
    assert hubs["http://news.example.com/"].next_due == first[0].started + 300
    assert hubs["http://news.example.com/"].last_result == "200"
    harness.clock.advance(299)
    assert not any(lease.is_hub for lease in run(pool.pop(4, 100)))
    harness.clock.advance(1)
    assert urls_of(run(pool.pop(4, 100))) == ["http://news.example.com/"]
    run(pool.set_status("http://news.example.com/", OK))
    assert pool.url_state("http://news.example.com/") is None  # hubs never become "done"
    assert run(pool.snapshot()).totals.done == 4  # the four pages, not the hub


def test_hub_share_of_a_batch_is_capped(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.set_hubs([HubSpec(f"http://hub{i}.example.com/", 60) for i in range(10)]))
    run(pool.add_many([f"http://page{i}.example.com/" for i in range(10)]))
    leases = run(pool.pop(10, 30))
    assert sum(lease.is_hub for lease in leases) == 3
    assert len(leases) == 10


def test_refresh_now_and_hub_list_edits(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.set_hubs([HubSpec("http://a.example.com/", 600)]))
    (lease,) = run(pool.pop(1, 100))
    run(pool.set_status(lease.url, OK))
    assert run(pool.pop(1, 100)) == []
    assert run(pool.refresh_hub("http://A.example.com/"))
    assert urls_of(run(pool.pop(1, 100))) == ["http://a.example.com/"]
    run(pool.set_status("http://a.example.com/", OK))
    run(pool.set_hubs([HubSpec("http://b.example.com/", 60)]))
    assert [row.url for row in run(pool.snapshot()).hubs] == ["http://b.example.com/"]
    assert not run(pool.refresh_hub("http://a.example.com/"))


# ---- durability --------------------------------------------------------------------------------
def test_reopen_reclaims_leases_and_keeps_everything(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.set_hubs([HubSpec("http://hub.example.com/", 60)]))
    run(pool.add_many([f"http://h{h}.example.com/{i}" for h in range(4) for i in range(3)]))
    leases = run(pool.pop(3, 0))
    run(pool.set_status(leases[0].url, OK))
    run(pool.set_status(leases[1].url, FetchResult(status=500)))
    in_flight = leases[2].url
    before = run(pool.snapshot()).totals
    pool = harness.reopen()
    after = run(pool.snapshot()).totals
    assert after.pending == 0
    assert after.waiting == before.waiting + 1  # the lease that was in flight came back
    assert (after.done, after.retrying, after.hubs) == (before.done, before.retrying, 1)
    assert pool.url_state(in_flight) == "waiting"
    assert pool.url_attempts(in_flight) == 1  # the lost lease counts as an attempt


def test_a_url_that_keeps_killing_the_crawler_ends_as_failed(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=2)))
    run(pool.add("http://a.example.com/poison"))
    for _ in range(3):
        leases = run(pool.pop(1, 0))
        assert urls_of(leases) == ["http://a.example.com/poison"]
        pool = harness.reopen()  # as if the crawler died while fetching it
    assert run(pool.pop(1, 0)) == []
    assert pool.url_state("http://a.example.com/poison") == "failed"


def test_a_hub_that_keeps_killing_the_crawler_is_parked_until_refreshed(
    harness: PoolHarness,
) -> None:
    from crawler_gui.core.frontier import PARKED_CRASHED

    hub = "http://a.example.com/poison-hub"
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=2)))
    run(pool.set_hubs([HubSpec(hub, 600)]))
    for crash in range(1, 4):
        assert urls_of(run(pool.pop(1, 100))) == [hub]
        pool = harness.reopen()  # as if the crawler died while fetching it
        (row,) = run(pool.snapshot()).hubs
        assert row.crashes == crash
    assert row.parked == PARKED_CRASHED and not row.in_flight
    harness.clock.advance(10 * 600)
    assert run(pool.pop(5, 100)) == []  # parked: never due by itself
    assert run(pool.next_due()) is None
    pool = harness.reopen()
    assert run(pool.snapshot()).hubs[0].parked == PARKED_CRASHED  # kept across a restart
    assert run(pool.pop(5, 100)) == []
    # The user refreshes it: it gets its chances again.
    assert run(pool.refresh_hub(hub))
    (row,) = run(pool.snapshot()).hubs
    assert (row.parked, row.crashes) == ("", 0)
    assert urls_of(run(pool.pop(1, 100))) == [hub]
    run(pool.set_status(hub, OK))
    assert run(pool.snapshot()).hubs[0].next_due == harness.clock.now() + 600


def test_a_hub_lost_once_then_fetched_starts_counting_again(harness: PoolHarness) -> None:
    hub = "http://a.example.com/"
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=1)))
    run(pool.set_hubs([HubSpec(hub, 600)]))
    for _ in range(3):
        assert urls_of(run(pool.pop(1, 100))) == [hub]
        pool = harness.reopen()  # one crash...
        assert urls_of(run(pool.pop(1, 100))) == [hub]
        run(pool.set_status(hub, OK))  # ...then a result: the count starts again
        harness.clock.advance(600)
    (row,) = run(pool.snapshot()).hubs
    assert (row.parked, row.crashes) == ("", 0)


def test_network_failures_of_a_hub_back_off_up_to_its_span_and_never_park_it(
    harness: PoolHarness,
) -> None:
    hub = "http://a.example.com/"
    span = 200.0
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=2, base=10, factor=2)))
    run(pool.set_hubs([HubSpec(hub, span)]))
    timeout = FetchResult(error=ErrorKind.TIMEOUT, elapsed=1.0)
    waits = []
    for _ in range(8):
        assert urls_of(run(pool.pop(1, 100))) == [hub]
        run(pool.set_status(hub, timeout))
        (row,) = run(pool.snapshot()).hubs
        assert row.parked == ""
        waits.append(row.next_due - harness.clock.now())
        harness.clock.advance(row.next_due - harness.clock.now())
    assert waits == [10, 20, 40, 80, 160, 200, 200, 200]
    run(pool.pop(1, 100))
    run(pool.set_status(hub, OK))  # a success: back to its span, and the backoff starts over
    assert run(pool.snapshot()).hubs[0].next_due == harness.clock.now() + span
    harness.clock.advance(span)
    run(pool.pop(1, 100))
    run(pool.set_status(hub, timeout))
    assert run(pool.snapshot()).hubs[0].next_due == harness.clock.now() + 10


def test_a_hubs_next_due_is_the_rule_s_after_every_kind_of_result(harness: PoolHarness) -> None:
    """Every backend takes a hub's next due time from ``pool_rules.hub_next_due`` (the Redis
    scripts only store it): a planned refresh, a throttled one (never before its span, nor
    before its capped Retry-After), network failures (backing off) and a redirect."""
    hub = "http://a.example.com/"
    span = 300.0
    retry = RetryPolicy(failure_threshold=2, base=10, factor=2, throttle_maximum=1000.0)
    pool = harness.open(fast_config(retry=retry))
    run(pool.set_hubs([HubSpec(hub, span)]))
    results = [
        FetchResult(status=200, elapsed=0.1),
        FetchResult(status=503, retry_after=800.0),  # Retry-After beyond the span
        FetchResult(status=429, retry_after=5.0),  # within the span: the span
        FetchResult(status=429, retry_after=5000.0),  # capped by throttle_max
        FetchResult(error=ErrorKind.TIMEOUT),
        FetchResult(error=ErrorKind.CONNECT),
        FetchResult(status=301, redirect_to="http://a.example.com/new"),
        FetchResult(error=ErrorKind.TIMEOUT),
    ]
    fails = 0
    for result in results:
        (row,) = run(pool.snapshot()).hubs
        harness.clock.advance(max(0.0, row.next_due - harness.clock.now()))
        assert urls_of(run(pool.pop(1, 100))) == [hub]
        now = harness.clock.now()
        run(pool.set_status(hub, result))
        want, fails = hub_next_due(
            now,
            hub_outcome(result, outcome_of(result)),
            fails=fails,
            span=span,
            planned=span,
            throttle=retry.throttle_delay(result.retry_after),
            schedule=retry_schedule(retry),
        )
        (row,) = run(pool.snapshot()).hubs
        assert row.next_due == want, result.label
    assert fails == 1  # the last timeout after a redirect: counting again from one


def test_snapshot_counts_and_incremental_host_rows(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([f"http://h{h}.example.com/{i}" for h in range(5) for i in range(2)]))
    full = run(pool.snapshot())
    assert full.hosts_complete and len(full.hosts) == 5
    (lease,) = run(pool.pop(1, 0))
    delta = run(pool.snapshot(since=full.version))
    assert not delta.hosts_complete
    assert [row.host for row in delta.hosts] == [lease.host]
    assert delta.hosts[0].in_flight == 1 and delta.totals.pending == 1
    assert run(pool.snapshot(since=delta.version)).hosts == ()


def test_closed_pool_refuses_use(harness: PoolHarness) -> None:
    from crawler_gui.errors import PoolClosedError

    pool = harness.open()
    run(pool.close())
    with pytest.raises(PoolClosedError):
        run(pool.add("http://a.example.com/"))
    harness.pool = None


def test_release_puts_leases_back_in_place_without_an_attempt(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://a.example.com/2"]))
    (lease,) = run(pool.pop(1, 0))
    assert run(pool.release([lease.url, "http://not-leased.example.com/"])) == 1
    assert pool.url_attempts(lease.url) == 0
    assert drain(pool) == ["http://a.example.com/1", "http://a.example.com/2"]


def test_always_on_a_full_host_changes_nothing(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(max_per_host=1))
    run(pool.add_many(["http://a.example.com/1"]))
    (lease,) = run(pool.pop(1, 0))
    run(pool.set_status(lease.url, FetchResult(status=500)))  # now retrying
    run(pool.add("http://a.example.com/2"))  # the host's one waiting place is taken
    before = run(pool.snapshot()).totals
    report = run(pool.add(lease.url, always=True))
    assert report.overflow == 1 and report.added == 0
    after = run(pool.snapshot())
    assert (after.totals.retrying, after.totals.waiting) == (before.retrying, before.waiting)
    assert [r.url for r in after.retrying] == [lease.url]


def test_a_removed_hub_is_never_due(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.set_hubs([HubSpec("http://a.example.com/", 3600)]))
    (lease,) = run(pool.pop(1, 100))
    run(pool.set_status(lease.url, OK))
    run(pool.set_hubs([]))
    assert run(pool.next_due()) is None
    harness.clock.advance(3600)
    assert run(pool.pop(5, 100)) == []


# ---- a due hub whose host cannot take it --------------------------------------------------------
# Such a hub used to stay due, so ``next_due`` said "now" for as long as its host waited (its
# politeness delay, or a fetch in flight) and the dispatcher asked the pool every few
# milliseconds, getting nothing. ``next_due`` is the earliest time something is really poppable.
HELD_HUB, HELD_PAGE, HELD_HOST, HELD_DELAY = (
    "http://a.example.com/hub",
    "http://a.example.com/page",
    "a.example.com",
    10.0,
)


def open_polite(harness: PoolHarness) -> Any:
    return harness.open(fast_config(politeness=Politeness(min_delay=HELD_DELAY, delay_factor=0.0)))


def test_a_hub_due_while_its_host_waits_is_due_when_the_wait_ends(harness: PoolHarness) -> None:
    pool, clock = open_polite(harness), harness.clock
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))
    (lease,) = run(pool.pop(1, 100))
    assert lease.url == HELD_HUB
    run(pool.set_status(HELD_HUB, OK))  # the host waits HELD_DELAY seconds now
    clock.advance(1.0)
    assert run(pool.refresh_hub(HELD_HUB))  # due now, but its host is not free for 9 s
    wait_ends = clock.now() + HELD_DELAY - 1.0
    assert run(pool.next_due()) == wait_ends
    assert run(pool.pop(5, 100)) == []
    assert run(pool.next_due()) == wait_ends  # still: no "now" after a pop either
    assert run(pool.snapshot()).next_due == wait_ends
    assert run(pool.snapshot()).hubs[0].next_due == clock.now()  # its own due time is kept
    clock.advance(HELD_DELAY - 1.0 - 0.5)
    assert run(pool.pop(5, 100)) == []
    clock.advance(0.5)
    assert run(pool.next_due()) == clock.now()
    assert urls_of(run(pool.pop(5, 100))) == [HELD_HUB]  # as soon as the host is allowed


def test_a_hub_whose_host_has_a_fetch_in_flight_waits_for_that_fetch(
    harness: PoolHarness,
) -> None:
    pool, clock = open_polite(harness), harness.clock
    run(pool.add(HELD_PAGE))
    (lease,) = run(pool.pop(1, 0))  # the host's one fetch in flight
    assert lease.url == HELD_PAGE
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))  # a new hub: due at once
    assert run(pool.pop(5, 100)) == []
    # Only the lease's expiry is ahead: the fetch's end wakes the dispatcher before it.
    assert run(pool.next_due()) == lease.expires
    run(pool.set_status(HELD_PAGE, OK))
    assert run(pool.next_due()) == clock.now() + HELD_DELAY  # now the politeness wait
    clock.advance(HELD_DELAY)
    assert urls_of(run(pool.pop(5, 100))) == [HELD_HUB]


def test_a_held_hub_follows_its_host_when_the_wait_grows(harness: PoolHarness) -> None:
    pool, clock = open_polite(harness), harness.clock
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))
    run(pool.pop(1, 100))
    run(pool.set_status(HELD_HUB, OK))
    assert run(pool.refresh_hub(HELD_HUB))
    assert run(pool.pop(5, 100)) == []  # held until the host's wait ends
    run(pool.set_host_delay(HELD_HOST, 30.0))  # the wait grows to 30 s
    assert run(pool.next_due()) == clock.now() + 30.0
    clock.advance(HELD_DELAY)
    assert run(pool.pop(5, 100)) == []
    assert run(pool.next_due()) == clock.now() + 30.0 - HELD_DELAY
    clock.advance(30.0 - HELD_DELAY)
    assert urls_of(run(pool.pop(5, 100))) == [HELD_HUB]


def test_a_held_hub_is_kept_across_a_pause_and_a_reopen(harness: PoolHarness) -> None:
    pool, clock = open_polite(harness), harness.clock
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))
    run(pool.pop(1, 100))
    run(pool.set_status(HELD_HUB, OK))
    assert run(pool.refresh_hub(HELD_HUB))
    assert run(pool.pop(5, 100)) == []
    run(pool.set_host_paused(HELD_HOST, True))
    assert run(pool.next_due()) is None  # a paused host's hub keeps nobody busy
    run(pool.set_host_paused(HELD_HOST, False))
    assert run(pool.next_due()) == clock.now() + HELD_DELAY
    pool = harness.reopen()
    assert run(pool.next_due()) == clock.now() + HELD_DELAY
    clock.advance(HELD_DELAY)
    assert urls_of(run(pool.pop(5, 100))) == [HELD_HUB]


def test_a_held_hub_that_is_removed_wakes_nobody(harness: PoolHarness) -> None:
    pool, clock = open_polite(harness), harness.clock
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))
    run(pool.pop(1, 100))
    run(pool.set_status(HELD_HUB, OK))
    assert run(pool.refresh_hub(HELD_HUB))
    assert run(pool.pop(5, 100)) == []
    run(pool.set_hubs([]))
    assert run(pool.next_due()) is None
    clock.advance(HELD_DELAY)
    assert run(pool.pop(5, 100)) == []


def test_held_hubs_of_many_hosts_are_popped_when_their_hosts_are_allowed(
    harness: PoolHarness,
) -> None:
    """Hubs of hosts in several key groups, each held by its host's wait: none wakes the
    dispatcher before the first wait ends, and all are popped once their hosts are allowed."""
    pool, clock = open_polite(harness), harness.clock
    hubs = [f"http://h{i}.example.com/" for i in range(12)]
    run(pool.set_hubs([HubSpec(url, 3600.0) for url in hubs]))
    assert sorted(urls_of(run(pool.pop(12, 100)))) == sorted(hubs)
    started = clock.now()
    run(pool.set_status_many([(url, OK) for url in hubs]))
    for url in hubs:
        clock.advance(0.1)
        assert run(pool.refresh_hub(url))
    assert run(pool.pop(12, 100)) == []
    assert run(pool.next_due()) == started + HELD_DELAY
    clock.advance(HELD_DELAY)
    assert sorted(urls_of(run(pool.pop(12, 100)))) == sorted(hubs)


# ---- hub refresh that learns (docs/freshness.md) -----------------------------------------------
FAST, SLOW, SILENT = (
    "http://fast.example.com/news/",
    "http://slow.example.com/news/",
    "http://silent.example.com/news/",
)


def refresh_hubs(
    harness: PoolHarness,
    pool: Any,
    seconds: float,
    rates: dict[str, float],
    *,
    step: float = 1.0,
    listed: int = 20,
    not_modified: bool = False,
) -> dict[str, list[float]]:
    """Run the hubs on the fake clock for ``seconds``: each refresh reports the articles
    ``rates`` (a second) published since its previous one (at most ``listed``); returns each
    hub's refresh times. ``not_modified``: a refresh that finds nothing new is answered
    ``304 Not Modified`` (no list read: new 0, listed 0), as a server with validators does.
    One event loop for the whole run (a Redis Cluster client starts
    afresh on each new loop, which would make the run minutes long)."""
    clock = harness.clock
    pending = dict.fromkeys(rates, 0.0)
    seen: dict[str, float] = {}
    times: dict[str, list[float]] = {url: [] for url in rates}
    end = clock.now() + seconds

    async def steps() -> None:
        while clock.now() < end:
            for lease in await pool.pop(10, 100):
                assert lease.is_hub
                now = clock.now()
                pending[lease.url] += rates[lease.url] * (now - seen.get(lease.url, now - 60))
                seen[lease.url] = now
                new = int(pending[lease.url])
                pending[lease.url] -= new
                times[lease.url].append(now)
                result = FetchResult(
                    status=200, elapsed=0.1, hub_new=min(new, listed), hub_listed=listed
                )
                if not_modified and new == 0:
                    result = FetchResult(status=304, elapsed=0.1, hub_new=0, hub_listed=0)
                await pool.set_status(lease.url, result)
            # On to the next due hub (at least ``step``): a few pool calls per refresh.
            due = await pool.next_due()
            clock.advance(max(step, min(end, due or end) - clock.now()))

    run(steps())
    return times


def hub_rows(pool: Any) -> dict[str, Any]:
    return {row.url: row for row in run(pool.snapshot()).hubs}


def test_hubs_learn_their_rates_and_share_the_budget_by_them(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=600.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))
    rows = hub_rows(pool)
    assert {r.reason for r in rows.values()} <= {"new", "fixed"}  # nothing learned yet
    times = refresh_hubs(harness, pool, 1800, {FAST: 10 / 60, SLOW: 0.4 / 60})
    rows = hub_rows(pool)
    fast, slow = rows[FAST], rows[SLOW]
    # Learned: within 30 % of the true rates (articles a second).
    assert fast.rate == pytest.approx(10 / 60, rel=0.3)
    assert slow.rate == pytest.approx(0.4 / 60, rel=0.3)
    assert fast.yielded >= 250 and fast.listed == 20
    # The budget of two 60 s spans, shared by sqrt(rate): the busy hub more often.
    assert fast.planned < 60 < slow.planned
    assert 1 / fast.planned + 1 / slow.planned == pytest.approx(2 / 60, rel=0.01)
    assert fast.planned / slow.planned == pytest.approx((slow.rate / fast.rate) ** 0.5, rel=0.01)
    assert {fast.reason, slow.reason} <= {"learned", "scroll"}
    # ... applied to the due times: last refresh + planned span.
    for row in (fast, slow):
        assert row.next_due == pytest.approx(row.last_refresh + row.planned)
    # The same number of fetches as the fixed spans (one per 60 s each), give or take a step.
    last_10min = [t for ts in times.values() for t in ts if t >= harness.clock.now() - 600]
    assert len(last_10min) == pytest.approx(2 * 600 / 60, abs=2)


def test_a_304_refresh_teaches_that_nothing_was_published(harness: PoolHarness) -> None:
    """A slow hub on a server with validators is mostly answered 304: those intervals count as
    "no new article" (else only the intervals that found something count, and the rate comes
    out several times too high), and its list's size stays what the last body showed."""
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=600.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))
    refresh_hubs(harness, pool, 3600, {FAST: 10 / 60, SLOW: 0.1 / 60}, not_modified=True)
    rows = hub_rows(pool)
    assert rows[SLOW].last_result == "304"  # (its refreshes alternate: one article, none)
    assert rows[SLOW].rate == pytest.approx(0.1 / 60, rel=0.3)
    assert rows[FAST].rate == pytest.approx(10 / 60, rel=0.3)
    assert rows[SLOW].listed == 20
    assert rows[SLOW].planned > rows[FAST].planned * 2


def test_learned_rates_survive_reopen_and_snapshots(harness: PoolHarness, tmp_path: Any) -> None:
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=600.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))
    refresh_hubs(harness, pool, 900, {FAST: 10 / 60, SLOW: 0.4 / 60})
    before = hub_rows(pool)
    pool = harness.reopen()
    after = hub_rows(pool)
    for url in (FAST, SLOW):
        assert after[url].rate == pytest.approx(before[url].rate)
        assert after[url].yielded == before[url].yielded
        assert after[url].planned == pytest.approx(before[url].planned)
        assert after[url].reason == before[url].reason
        assert after[url].next_due == pytest.approx(before[url].next_due)
    path = tmp_path / "pool.snapshot"
    run(pool.save_snapshot(path))
    run(pool.set_hubs([HubSpec(FAST, 60)]))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))  # SLOW forgot what it learned
    assert hub_rows(pool)[SLOW].yielded == 0
    run(pool.load_snapshot(path))
    loaded = hub_rows(pool)
    for url in (FAST, SLOW):
        assert loaded[url].rate == pytest.approx(before[url].rate)
        assert loaded[url].yielded == before[url].yielded
    # ... and the plan goes on from them: no relearning from the prior.
    refresh_hubs(harness, pool, 120, {FAST: 10 / 60, SLOW: 0.4 / 60})
    assert hub_rows(pool)[FAST].planned < 60 < hub_rows(pool)[SLOW].planned


def test_a_silent_hub_is_still_checked_at_the_maximum_span(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=120.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SILENT, 60)]))
    times = refresh_hubs(harness, pool, 1800, {FAST: 1.0 / 60, SILENT: 0.0})
    row = hub_rows(pool)[SILENT]
    assert (row.planned, row.reason) == (pytest.approx(120.0), "maximum")
    late = [t for t in times[SILENT] if t > harness.clock.now() - 600]
    assert 4 <= len(late) <= 6  # every 120 s: checked, not forgotten


def test_a_busy_hub_is_held_at_the_minimum_span(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(hub_span_min=45.0, hub_span_max=600.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))
    times = refresh_hubs(harness, pool, 1800, {FAST: 8.0 / 60, SLOW: 0.05 / 60})
    rows = hub_rows(pool)
    assert (rows[FAST].planned, rows[FAST].reason) == (pytest.approx(45.0), "politeness")
    gaps = [b - a for a, b in zip(times[FAST][-20:], times[FAST][-19:], strict=False)]
    assert min(gaps) >= 45.0
    # What the busy hub cannot use goes to the other: the budget is still spent.
    assert 1 / rows[FAST].planned + 1 / rows[SLOW].planned == pytest.approx(2 / 60, rel=0.01)


def test_a_hub_whose_rate_jumps_is_sped_up_and_slowed_down_after(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=600.0))
    others = [f"http://other{i}.example.com/news/" for i in range(4)]
    run(pool.set_hubs([HubSpec(url, 60) for url in [FAST, SLOW, *others]]))
    steady = {FAST: 2.0 / 60, SLOW: 1.0 / 60} | dict.fromkeys(others, 2.0 / 60)
    refresh_hubs(harness, pool, 1800, steady)
    calm = hub_rows(pool)[SLOW]
    refresh_hubs(harness, pool, 150, steady | {SLOW: 30.0 / 60})
    burst = hub_rows(pool)[SLOW]
    assert burst.reason == "burst" or burst.reason == "scroll"
    assert burst.planned < calm.planned / 2
    refresh_hubs(harness, pool, 900, steady)
    after = hub_rows(pool)[SLOW]
    assert after.reason not in ("burst", "scroll")
    assert after.planned > burst.planned * 1.5, (after, burst, calm)


def test_fixed_refresh_keeps_each_hubs_own_span(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(hub_refresh="fixed"))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 90)]))
    refresh_hubs(harness, pool, 600, {FAST: 10 / 60, SLOW: 0.4 / 60})
    rows = hub_rows(pool)
    assert (rows[FAST].planned, rows[FAST].reason) == (60, "fixed")
    assert (rows[SLOW].planned, rows[SLOW].reason) == (90, "fixed")
    assert rows[FAST].next_due == rows[FAST].last_refresh + 60
    assert rows[FAST].rate == pytest.approx(10 / 60, rel=0.3)  # still learned, for the pane


# ---- why a host waits, per-host control (issue 13) ----------------------------------------------
def host_row(pool: Any, host: str) -> Any:
    return next(r for r in run(pool.snapshot()).hosts if r.host == host)


def test_the_inputs_of_a_hosts_wait_are_kept(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open(
        fast_config(politeness=Politeness(min_delay=1.0, delay_factor=4.0, max_delay=30.0))
    )
    run(pool.add_many([f"http://{h}.example.com/{i}" for h in "abcd" for i in (1, 2)]))
    run(pool.set_delay("c.example.com", 9.0))  # robots.txt Crawl-delay
    leases = {lease.host: lease for lease in run(pool.pop(10, 0))}
    run(
        pool.set_status_many(
            [
                (leases["a.example.com"].url, FetchResult(status=200, elapsed=0.5)),
                (leases["b.example.com"].url, FetchResult(status=200, elapsed=0.1)),
                (leases["c.example.com"].url, FetchResult(status=200, elapsed=0.5)),
                (leases["d.example.com"].url, FetchResult(status=503, retry_after=600.0)),
            ]
        )
    )
    now = harness.clock.now()
    pool = maybe_reopen(harness, reopen)
    a, b, c, d = (host_row(pool, f"{h}.example.com") for h in "abcd")
    assert (a.delay, a.delay_basis, a.last_elapsed) == (2.0, "f", 0.5)
    assert a.next_allowed == now + 2.0
    assert (b.delay, b.delay_basis) == (1.0, "m")  # 4 x 0.1 s is under the minimum
    assert (c.delay, c.delay_basis, c.crawl_delay) == (9.0, "c", 9.0)
    assert d.backoff_until == now + 600.0
    assert (d.backoff_status, d.retry_after) == ("503", True)
    assert not any(r.paused for r in (a, b, c, d))
    assert a.user_delay < 0
    (retry,) = run(pool.snapshot()).retrying
    assert (retry.status, retry.kind, retry.backoff, retry.retry_after) == (503, "", 600.0, True)


def test_a_retry_keeps_its_error_kind_and_backoff(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
    leases = {lease.host: lease for lease in run(pool.pop(2, 0))}
    run(
        pool.set_status_many(
            [
                (
                    leases["a.example.com"].url,
                    FetchResult(error=ErrorKind.TIMEOUT, message="read timeout after 30 s"),
                ),
                (leases["b.example.com"].url, FetchResult(status=503)),
            ]
        )
    )
    rows = {r.host: r for r in run(pool.snapshot()).retrying}
    a, b = rows["a.example.com"], rows["b.example.com"]
    assert (a.kind, a.status, a.last_error) == ("timeout", None, "read timeout after 30 s")
    assert a.backoff == 10.0  # the first retry's backoff (fast_config: base 10 s)
    assert (b.status, b.backoff, b.retry_after) == (503, 60.0, False)  # no Retry-After: default
    assert b.last_error == "503"
    exported = {r["url"]: r for r in iter_outcomes(pool)}
    assert exported["http://a.example.com/1"]["message"] == "read timeout after 30 s"


def iter_outcomes(pool: Any) -> list[dict[str, Any]]:
    out = pool.iter_outcomes()
    if hasattr(out, "__aiter__"):

        async def collect() -> list[dict[str, Any]]:
            return [r async for r in out]

        return run(collect())
    return list(out)


def test_a_paused_host_is_not_dispatched_until_resumed(harness: PoolHarness, reopen: bool) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
    run(pool.set_hubs([HubSpec("http://a.example.com/hub", 60.0)]))
    run(pool.set_host_paused("a.example.com", True))
    pool = maybe_reopen(harness, reopen)
    assert host_row(pool, "a.example.com").paused
    (lease,) = run(pool.pop(10, 50))
    assert lease.url == "http://b.example.com/1"
    run(pool.set_status(lease.url, OK))
    harness.clock.advance(3600)
    assert run(pool.pop(10, 50)) == []  # neither its pages nor its hub
    assert run(pool.pop(10, 50)) == []
    assert run(pool.next_due()) is None  # nothing else is due: no busy loop
    run(pool.set_host_paused("a.example.com", False))
    assert not host_row(pool, "a.example.com").paused
    assert run(pool.next_due()) is not None
    assert urls_of(run(pool.pop(10, 50))) == ["http://a.example.com/hub"]
    harness.clock.advance(3600)
    run(pool.set_status("http://a.example.com/hub", OK))
    harness.clock.advance(30)
    assert "http://a.example.com/1" in urls_of(run(pool.pop(10, 0)))


def test_next_due_without_hubs_leaves_due_hubs_out(harness: PoolHarness) -> None:
    """For pops that take no hubs (``hub_percent`` 0) a due hub is nothing to wake for: with
    ``hubs=False`` only the URLs count (a hub held for its host's wait too)."""
    pool = open_polite(harness)
    clock = harness.clock
    run(pool.set_hubs([HubSpec(HELD_HUB, 3600.0)]))
    assert run(pool.next_due()) <= clock.now()  # the new hub is due now
    assert run(pool.next_due(hubs=False)) is None  # and nothing else is waiting
    run(pool.add_many([HELD_PAGE]))
    assert run(pool.next_due(hubs=False)) == clock.now()
    (lease,) = run(pool.pop(5, 0))
    assert lease.url == HELD_PAGE and run(pool.pop(5, 0)) == []
    run(pool.set_status(HELD_PAGE, OK))  # the host waits HELD_DELAY seconds: the hub is held
    assert run(pool.pop(5, 100)) == []
    assert run(pool.next_due()) == clock.now() + HELD_DELAY
    assert run(pool.next_due(hubs=False)) is None
    clock.advance(HELD_DELAY)
    assert run(pool.next_due(hubs=False)) is None
    assert run(pool.pop(5, 0)) == []  # what next_due(hubs=False) promised: nothing
    assert urls_of(run(pool.pop(5, 100))) == [HELD_HUB]


def test_a_hosts_own_delay_replaces_the_minimum_and_is_kept(
    harness: PoolHarness, reopen: bool
) -> None:
    pool = harness.open(
        fast_config(politeness=Politeness(min_delay=1.0, delay_factor=2.0, max_delay=30.0))
    )
    run(pool.add_many([f"http://a.example.com/{i}" for i in range(4)]))
    (lease,) = run(pool.pop(5, 0))
    run(pool.set_status(lease.url, FetchResult(status=200, elapsed=0.1)))
    start = harness.clock.now()
    assert host_row(pool, "a.example.com").next_allowed == start + 1.0
    run(pool.set_host_delay("a.example.com", 20.0))
    pool = maybe_reopen(harness, reopen)
    row = host_row(pool, "a.example.com")
    assert (row.user_delay, row.delay, row.delay_basis) == (20.0, 20.0, "u")
    assert row.next_allowed == start + 20.0  # the wait under way grows to match
    harness.clock.advance(19.9)
    assert run(pool.pop(5, 0)) == []
    harness.clock.advance(0.1)
    (lease,) = run(pool.pop(5, 0))
    run(pool.set_status(lease.url, FetchResult(status=200, elapsed=0.1)))
    assert host_row(pool, "a.example.com").next_allowed == harness.clock.now() + 20.0
    run(pool.set_delay("a.example.com", 30.0))  # robots.txt's Crawl-delay still holds
    run(pool.set_host_delay("a.example.com", None))
    row = host_row(pool, "a.example.com")
    assert (row.user_delay < 0, row.delay, row.delay_basis) == (True, 30.0, "c")


def test_waiting_urls_of_a_host_page_by_page(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([AddRequest(f"http://a.example.com/{i}", 2) for i in range(5)]))
    harness.clock.advance(10)
    run(pool.add_many([AddRequest("http://a.example.com/top", 0, "http://a.example.com/")]))
    run(pool.add_many(["http://b.example.com/1"]))
    first = run(pool.waiting_urls("a.example.com", 0, 4))
    assert first.total == 6
    assert [r.url for r in first.rows] == ["http://a.example.com/top"] + [
        f"http://a.example.com/{i}" for i in range(3)
    ]
    top = first.rows[0]
    assert (top.depth, top.added, top.referrer) == (0, harness.clock.now(), "http://a.example.com/")
    assert first.rows[1].depth == 2 and first.rows[1].added == harness.clock.now() - 10
    second = run(pool.waiting_urls("a.example.com", 1, 4))
    assert [r.url for r in second.rows] == ["http://a.example.com/3", "http://a.example.com/4"]
    assert run(pool.waiting_urls("a.example.com", 2, 4)).rows == ()
    assert run(pool.waiting_urls("nowhere.example.com", 0, 4)) == (0, ())


def test_forget_a_hosts_waiting_urls(harness: PoolHarness) -> None:
    pool = harness.open()
    run(pool.add_many([f"http://a.example.com/{i}" for i in range(2500)]))
    run(pool.add_many(["http://b.example.com/1"]))
    (lease,) = run(pool.pop(1, 0))  # one of a's in flight stays
    assert lease.host == "a.example.com"
    assert run(pool.forget_waiting("a.example.com")) == 2499
    snap = run(pool.snapshot())
    assert snap.totals.waiting == 1
    assert host_row(pool, "a.example.com").waiting == 0
    assert pool.url_state("http://a.example.com/7") is None  # unknown again
    assert run(pool.add("http://a.example.com/7")).added == 1
    run(pool.set_status(lease.url, OK))
    assert pool.url_state(lease.url) == "done"


def test_retry_a_hosts_failed_urls_but_not_its_refusals(harness: PoolHarness) -> None:
    pool = harness.open(fast_config(retry=RetryPolicy(failure_threshold=0)))
    urls = [f"http://a.example.com/{i}" for i in range(3)] + ["http://b.example.com/1"]
    run(pool.add_many(urls))
    results = {
        "http://a.example.com/0": FetchResult(status=404),
        "http://a.example.com/1": FetchResult(error=ErrorKind.ROBOTS, message="disallowed"),
        "http://a.example.com/2": FetchResult(status=500),
        "http://b.example.com/1": FetchResult(status=404),
    }
    for _ in range(3):
        leases = run(pool.pop(10, 0))
        run(pool.set_status_many([(lease.url, results[lease.url]) for lease in leases]))
        harness.clock.advance(10)
    failed = {r.url: r for r in run(pool.failed_urls("a.example.com"))}
    assert set(failed) == {f"http://a.example.com/{i}" for i in range(3)}
    assert (failed["http://a.example.com/0"].status, failed["http://a.example.com/0"].refused) == (
        404,
        False,
    )
    assert failed["http://a.example.com/1"].refused
    assert failed["http://a.example.com/1"].reason == "robots"
    assert run(pool.retry_failed("a.example.com")) == 2
    assert pool.url_state("http://a.example.com/1") == "failed"
    assert pool.url_state("http://b.example.com/1") == "failed"
    assert sorted(urls_of(run(pool.pop(10, 0)))) == ["http://a.example.com/0"]
    assert pool.url_state("http://a.example.com/2") == "waiting"
    assert host_row(pool, "a.example.com").failed == 1


def test_a_hosts_pause_and_delay_travel_in_snapshots(harness: PoolHarness, tmp_path: Any) -> None:
    pool = harness.open()
    run(pool.add_many(["http://a.example.com/1", "http://b.example.com/1"]))
    run(pool.set_host_paused("a.example.com", True))
    run(pool.set_host_delay("b.example.com", 12.5))
    path = tmp_path / "hosts.cgpool"
    run(pool.save_snapshot(path))
    run(pool.set_host_paused("a.example.com", False))
    run(pool.set_host_delay("b.example.com", None))
    run(pool.load_snapshot(path))
    a, b = host_row(pool, "a.example.com"), host_row(pool, "b.example.com")
    assert (a.paused, a.user_delay < 0) == (True, True)
    assert (b.paused, b.user_delay) == (False, 12.5)
    assert urls_of(run(pool.pop(10, 0))) == ["http://b.example.com/1"]


def refresh_lists(
    harness: PoolHarness,
    pool: Any,
    seconds: float,
    rates: dict[str, float],
    *,
    feed_first: frozenset[str] = frozenset(),
    listed: int = 20,
    site: dict[str, dict[str, float]] | None = None,
) -> dict[str, dict[str, float]]:
    """As :func:`refresh_hubs`, with each refresh reporting its list (the newest ``listed``
    articles, ``hub_items``). The hubs of ``feed_first`` have a feed on their host that found
    every article first: 0 new to the pool at every refresh. Returns (and continues from,
    ``site``) each hub's articles published, its fraction pending and its last refresh."""
    clock = harness.clock
    site = site or {"published": {}, "pending": {}, "last": {}}
    published, pending, last = site["published"], site["pending"], site["last"]
    for url in rates:
        published.setdefault(url, 0)
        pending.setdefault(url, 0.0)
    end = clock.now() + seconds

    async def steps() -> None:
        while clock.now() < end:
            for lease in await pool.pop(10, 100):
                url, now = lease.url, clock.now()
                pending[url] += rates[url] * (now - last.get(url, now - 60))
                last[url] = now
                new = int(pending[url])
                pending[url] -= new
                published[url] += new
                count = int(published[url])
                items = tuple(f"{url}a{n}" for n in range(max(0, count - listed), count))
                hub_new = 0 if url in feed_first else min(new, listed)
                await pool.set_status(
                    url,
                    FetchResult(
                        status=200,
                        elapsed=0.1,
                        hub_new=hub_new,
                        hub_listed=len(items),
                        hub_items=list_sample(items),
                    ),
                )
            due = await pool.next_due()
            clock.advance(max(1.0, min(end, due or end) - clock.now()))

    run(steps())
    return site


def test_a_hub_learns_its_own_rate_when_a_feed_finds_its_articles_first(
    harness: PoolHarness, tmp_path: Any
) -> None:
    """A list hub on a host whose feed finds every article first yields nothing new to the
    pool, yet learns its own publication rate (the links new to *its* list), and remembers its
    last list across reopen and snapshot (an unchanged list teaches no new article then)."""
    pool = harness.open(fast_config(hub_span_min=5.0, hub_span_max=600.0))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))
    rates = {FAST: 6 / 60, SLOW: 0.5 / 60}
    site = refresh_lists(harness, pool, 1800, rates, feed_first=frozenset({FAST}))
    rows = hub_rows(pool)
    assert rows[FAST].yielded == 0  # nothing new to the pool ...
    assert rows[FAST].rate == pytest.approx(6 / 60, rel=0.3)  # ... its own rate all the same
    assert rows[SLOW].rate == pytest.approx(0.5 / 60, rel=0.3)
    before = rows[SLOW].rate

    def same_list_reported_new(pool: Any) -> float:
        """Refresh SLOW once with its last list unchanged but every item reported new to
        the pool: only a hub that remembers its last list sees that nothing is new."""
        harness.clock.advance(600)
        for lease in run(pool.pop(10, 100)):
            n = int(site["published"][lease.url])
            items = tuple(f"{lease.url}a{k}" for k in range(max(0, n - 20), n))
            result = FetchResult(
                status=200,
                elapsed=0.1,
                hub_new=len(items),
                hub_listed=20,
                hub_items=list_sample(items),
            )
            run(pool.set_status(lease.url, result))
        return float(hub_rows(pool)[SLOW].rate)

    path = tmp_path / "pool.snapshot"
    run(pool.save_snapshot(path))
    pool = harness.reopen()
    assert same_list_reported_new(pool) < before
    run(pool.set_hubs([HubSpec(FAST, 60)]))
    run(pool.set_hubs([HubSpec(FAST, 60), HubSpec(SLOW, 60)]))  # SLOW forgot its list
    run(pool.load_snapshot(path))
    assert same_list_reported_new(pool) < before


def test_a_hub_that_bursts_again_and_again_is_held_fast_in_its_lulls(
    harness: PoolHarness,
) -> None:
    """The live demo site's bursty hub (0.5 and 30 a minute, every 2 minutes, a list of 20):
    its span stays short enough in the lulls that the next burst cannot scroll its list off
    before it is looked at again, on the article-weighted rate the pool keeps for it."""
    pool = harness.open(fast_config(hub_span_min=2.0, hub_span_max=300.0))
    others = [f"http://other{i}.example.com/news/" for i in range(10)]
    run(pool.set_hubs([HubSpec(url, 60) for url in [FAST, *others]]))
    rates = dict.fromkeys(others, 8.0 / 60) | {FAST: 0.5 / 60}
    site = None
    spans: list[tuple[str, float, str]] = []
    for minute in range(16):
        burst = minute // 2 % 2 == 1
        rates[FAST] = (30.0 if burst else 0.5) / 60
        site = refresh_lists(harness, pool, 60, rates, site=site)
        row = hub_rows(pool)[FAST]
        spans.append(("burst" if burst else "lull", row.planned, row.reason))
    # After two bursts, every lull minute keeps it well under the 40 s its list of 20 lasts
    # at 30 a minute (the bound is SCROLL_SHARE of it at the estimated burst rate; 3/4 of it
    # leaves room for the estimate's error). On the long-run rate alone its lull spans reached
    # 50-60 s: the next burst's first articles scrolled off before it was looked at again.
    lulls = [(span, why) for phase, span, why in spans[4:] if phase == "lull"]
    assert len(lulls) == 6
    assert all(span <= 0.75 * 20 / (30 / 60) for span, _ in lulls), spans
    assert all(why == "scroll" for _span, why in lulls), spans
    # The budget is still the user's: eleven 60 s spans.
    rows = hub_rows(pool)
    assert sum(1 / r.planned for r in rows.values()) == pytest.approx(11 / 60, rel=0.01)
