"""The window's view of a session, a crawler and a pool, kept by every real implementation
and by the tests' stand-ins: a stand-in that drifts from the real surface would let the
window's tests pass against something the window never meets."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawler_gui.core.frontier import Frontier, SharedFrontier
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.redis.pool import RedisPool
from crawler_gui.engine.control.attached import AttachedCrawler, AttachedFrontier, AttachedSession
from crawler_gui.engine.control.server import RunControl, ServedSession
from crawler_gui.engine.crawler import Crawler
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui.protocols import (
    LocalCrawlerView,
    LocalSessionLike,
    PoolView,
    SessionLike,
    is_local,
    is_shared,
)
from tests.gui.gui_helpers import LoopbackCrawler, PoolSession, run
from tests.protocol_check import protocol_mismatches

pytestmark = pytest.mark.gui

PAIRS = [
    (LevelDBPool, PoolView),
    (RedisPool, PoolView),
    (AttachedFrontier, PoolView),
    (Crawler, LocalCrawlerView),
    (AttachedCrawler, RunControl),
    (AttachedSession, SessionLike),
    (CrawlSession, LocalSessionLike),
    # the stand-ins of tests/gui
    (LoopbackCrawler, LocalCrawlerView),
    (PoolSession, LocalSessionLike),
    (CrawlSession, ServedSession),
    (PoolSession, ServedSession),
]


@pytest.mark.parametrize(("cls", "protocol"), PAIRS, ids=lambda x: x.__name__)
def test_keeps_the_windows_protocol(cls: type, protocol: type) -> None:
    assert protocol_mismatches(cls, protocol) == []


def test_the_stand_in_session_is_a_local_session_of_a_real_pool(aloop, tmp_path: Path) -> None:
    session = run(aloop, PoolSession.open(tmp_path / "pool", CrawlSettings()))
    try:
        assert isinstance(session, LocalSessionLike) and is_local(session)
        assert isinstance(session, ServedSession)  # (a window's crawl may be served)
        assert isinstance(session.crawler, LocalCrawlerView)
        assert isinstance(session.frontier, Frontier) and not is_shared(session.frontier)
    finally:
        run(aloop, session.close())


def test_a_redis_pool_is_shared(aloop, redis_server: str) -> None:
    async def scenario() -> None:
        pool = await RedisPool.open(f"{redis_server}?name=protocols", worker="w")
        try:
            assert is_shared(pool) and isinstance(pool, SharedFrontier)
        finally:
            await pool.close()

    run(aloop, scenario())
