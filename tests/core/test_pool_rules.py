"""The pool's rules (core/pool_rules.py), which both backends apply: the retry schedule a
Redis script looks up must give what the policy gives, for every attempt a URL may make."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from crawler_gui.core.policy import (
    ErrorKind,
    FetchResult,
    Outcome,
    Politeness,
    PoolConfig,
    RetryPolicy,
)
from crawler_gui.core.pool_rules import (
    HubOutcome,
    host_delay,
    hub_next_due,
    hub_outcome,
    outcome_of,
    retry_delay,
    retry_schedule,
    scheduled_delay,
)
from crawler_gui.errors import ConfigError


@pytest.mark.parametrize(
    "retry",
    [
        RetryPolicy(),
        RetryPolicy(failure_threshold=0),
        RetryPolicy(failure_threshold=20, base=1.0, factor=1.0, maximum=50.0),
        RetryPolicy(failure_threshold=5, base=0.0, factor=3.0, maximum=10.0),
        RetryPolicy(failure_threshold=40, base=2.0, factor=1.5, maximum=1e9),
    ],
)
def test_the_schedule_gives_the_policys_delay_for_every_attempt(retry: RetryPolicy) -> None:
    schedule = retry_schedule(retry)
    assert len(schedule) >= retry.failure_threshold
    for failures in range(0, retry.failure_threshold + 30):
        assert scheduled_delay(schedule, failures) == retry.delay(failures), failures


def test_the_schedule_stops_where_the_delay_does() -> None:
    assert retry_schedule(RetryPolicy(failure_threshold=3, base=30, factor=2, maximum=3600)) == (
        30.0,
        60.0,
        120.0,
        240.0,
        480.0,
        960.0,
        1920.0,
        3600.0,
    )
    assert retry_schedule(RetryPolicy(failure_threshold=2, base=5, factor=1)) == (5.0, 5.0)


def test_host_delay_is_the_politeness_rule() -> None:
    pol = Politeness(min_delay=1.0, delay_factor=2.0, max_delay=30.0)
    assert host_delay(pol, 0.1) == 1.0  # the minimum
    assert host_delay(pol, 3.0) == 6.0  # a slow response: twice as long
    assert host_delay(pol, 60.0) == 30.0  # capped
    assert host_delay(pol, 3.0, host_minimum=10.0) == 10.0  # Crawl-delay


def test_retry_delay_of_a_throttled_url_is_its_retry_after() -> None:
    retry = RetryPolicy(base=30.0, throttle_default=60.0, throttle_maximum=600.0)
    assert retry_delay(retry, Outcome.THROTTLED, 1, 120.0) == 120.0
    assert retry_delay(retry, Outcome.THROTTLED, 1, None) == 60.0
    assert retry_delay(retry, Outcome.THROTTLED, 1, 1e6) == 600.0
    assert retry_delay(retry, Outcome.RETRY, 2, 120.0) == 60.0


def test_hub_outcomes_and_next_due() -> None:
    timeout = FetchResult(error=ErrorKind.TIMEOUT)
    assert hub_outcome(timeout, outcome_of(timeout)) is HubOutcome.BACKOFF
    failed_dns = FetchResult(error=ErrorKind.DNS)
    assert hub_outcome(failed_dns, Outcome.FAILED) is HubOutcome.BACKOFF
    busy = FetchResult(status=503, retry_after=900.0)
    assert hub_outcome(busy, outcome_of(busy)) is HubOutcome.THROTTLED
    gone = FetchResult(status=404)
    assert hub_outcome(gone, outcome_of(gone)) is HubOutcome.PLANNED
    assert outcome_of(FetchResult(status=200)) is Outcome.DONE

    schedule = retry_schedule(RetryPolicy(base=30.0, factor=2.0, maximum=3600.0))
    kw = {"span": 300.0, "planned": 120.0, "throttle": 900.0, "schedule": schedule}
    assert hub_next_due(1000.0, HubOutcome.BACKOFF, fails=0, **kw) == (1030.0, 1)
    assert hub_next_due(1000.0, HubOutcome.BACKOFF, fails=5, **kw) == (1300.0, 6)  # span caps
    assert hub_next_due(1000.0, HubOutcome.THROTTLED, fails=5, **kw) == (1900.0, 0)
    assert hub_next_due(1000.0, HubOutcome.PLANNED, fails=5, **kw) == (1120.0, 0)


def test_a_redis_worker_does_not_import_the_leveldb_package() -> None:
    code = (
        "import sys, crawler_gui.core.redis.pool, crawler_gui.core.redis.notices; "
        "assert 'plyvel' not in sys.modules; "
        "assert not [m for m in sys.modules if m.startswith('crawler_gui.core.leveldb')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RetryPolicy(failure_threshold=-1),
        lambda: RetryPolicy(factor=0.5),
        lambda: Politeness(min_delay=-1.0),
        lambda: Politeness(max_in_flight=0),
        lambda: PoolConfig(pending_threshold=0),
        lambda: PoolConfig(max_per_host=0),
    ],
)
def test_a_policy_value_out_of_range_is_a_config_error(make: Callable[[], object]) -> None:
    with pytest.raises(ConfigError):
        make()
