"""Pool fixtures. The contract tests run against every backend, including after close and
reopen (``reopen`` closes the pool and opens the same store again)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from crawler_gui.core.clock import ManualClock
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.policy import Politeness, PoolConfig, RetryPolicy
from crawler_gui.core.redis.pool import RedisPool

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def fast_config(**kw: Any) -> PoolConfig:
    """No politeness delay unless a test asks for one: tests are about order, not time."""
    kw.setdefault("politeness", Politeness(min_delay=0.0, delay_factor=0.0))
    kw.setdefault("retry", RetryPolicy(failure_threshold=3, base=10.0, factor=2.0))
    kw.setdefault("pending_threshold", 60.0)
    return PoolConfig(**kw)


class PoolHarness:
    """Opens a pool of one backend in a temp place and reopens it on demand."""

    def __init__(
        self, backend: str, where: Path, redis_url: str | None = None, query: str = ""
    ) -> None:
        self.backend = backend
        self.where = where
        self.clock = ManualClock()
        self.config = fast_config()
        self.pool: Any = None
        # Redis: a fresh pool name per harness; reopen = a new client under the same worker id,
        # i.e. the same worker restarted, which reclaims its dead leases like a LevelDB reopen.
        name = f"t{uuid.uuid4().hex[:12]}"
        self.redis_url = f"{redis_url}?name={name}{query}" if redis_url else None

    def open(self, config: PoolConfig | None = None) -> Any:
        if config is not None:
            self.config = config
        if self.backend == "leveldb":
            self.pool = LevelDBPool.open(self.where / "pool", self.config, self.clock)
        elif self.backend.startswith("redis"):
            assert self.redis_url is not None
            self.pool = run(
                RedisPool.open(self.redis_url, self.config, self.clock, worker="harness")
            )
        else:  # pragma: no cover - other backends register here
            raise AssertionError(self.backend)
        return self.pool

    def reopen(self) -> Any:
        run(self.pool.close())
        return self.open()

    def close(self) -> None:
        if self.pool is not None:
            run(self.pool.close())


#: leveldb; redis (one server, one key group); redis-groups (one server, five key groups: every
#: operation fans out over groups); redis-cluster (a real three-primary Redis Cluster, 16 key
#: groups spread over its slots).
BACKENDS = ["leveldb", "redis", "redis-groups", "redis-cluster"]


@pytest.fixture(params=BACKENDS)
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[PoolHarness]:
    url, query = None, ""
    if request.param in ("redis", "redis-groups"):
        url = request.getfixturevalue("redis_server")
        query = "&groups=5" if request.param == "redis-groups" else ""
    elif request.param == "redis-cluster":
        url = request.getfixturevalue("redis_cluster")
    h = PoolHarness(request.param, tmp_path, url, query)
    yield h
    h.close()


@pytest.fixture
def pool_factory(harness: PoolHarness) -> Callable[..., Any]:
    return harness.open
