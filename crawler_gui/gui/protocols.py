"""What the window asks of a session, its crawl and its pool, as protocols: a crawl in this
process or one attached in another process both satisfy them (tests check every backend and
stand-in against them), and the type guards that tell which kind the window holds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeGuard, runtime_checkable

from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import Frontier, PoolSnapshot, PoolTotals, SharedFrontier
from crawler_gui.engine.control.attached import AttachedSession
from crawler_gui.engine.control.server import RunControl as CrawlerView
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.engine.store import PageStore

if TYPE_CHECKING:
    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.indexer import SearchIndexer


@runtime_checkable
class PoolView(Protocol):
    """What the window asks of a pool: a :class:`~crawler_gui.core.frontier.Frontier` in this
    process, or an attached crawl's (``engine.control.attached.AttachedFrontier``). A shared pool's
    workers are asked of a :class:`~crawler_gui.core.frontier.SharedFrontier`."""

    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot: ...

    async def retry_now(self, url: str) -> bool: ...

    async def give_up(self, url: str) -> bool: ...

    async def refresh_hub(self, url: str) -> bool: ...

    async def counters(self) -> Counters: ...

    async def totals(self) -> PoolTotals: ...

    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int: ...

    async def load_snapshot(self, path: str | Path) -> int: ...


@runtime_checkable
class LocalCrawlerView(CrawlerView, Protocol):
    """What only a crawl in this process has: its failure, its storage pauses, its
    articles, and a scope the window may widen."""

    storage_listeners: list[Callable[[str], None]]
    failure: Exception | None
    articles: Articles | None

    async def add_scope_domains(self, domains: Iterable[str]) -> None: ...


@runtime_checkable
class SessionLike(Protocol):
    """What the window needs of a session: ``crawler_gui.engine.session.CrawlSession`` (a
    crawl in this process, :class:`LocalSessionLike`) or
    ``crawler_gui.engine.control.attached.AttachedSession`` (one running in another process, with
    ``ended`` and ``end_listeners``); ``is_attached`` / ``is_local`` tell which."""

    #: The pool directory, or a Redis pool URL.
    location: Path | str
    display_name: str
    demo_site: object
    frontier: PoolView
    crawler: CrawlerView
    settings: CrawlSettings

    async def close(self) -> None: ...


@runtime_checkable
class LocalSessionLike(SessionLike, Protocol):
    """A crawl in this process: its page store (None when pages are not kept) in
    ``store_dir`` (the pool directory, or a Redis worker's own folder), and the search index
    of its pages that the session keeps up to date (None: none)."""

    frontier: Frontier
    crawler: LocalCrawlerView
    store: PageStore | None
    store_dir: Path
    indexer: SearchIndexer | None


SessionOpener = Callable[[Path | str, CrawlSettings], Awaitable[SessionLike]]


def is_attached(session: object) -> TypeGuard[AttachedSession]:
    """A session attached to a crawl running in another process (``engine.control``)."""
    return isinstance(session, AttachedSession)


def is_local(session: SessionLike | None) -> TypeGuard[LocalSessionLike]:
    """A session whose crawl runs in this process (not attached to another one)."""
    return session is not None and not isinstance(session, AttachedSession)


def is_shared(frontier: PoolView) -> TypeGuard[SharedFrontier]:
    """A pool shared by many workers (Redis): it has heartbeats to show."""
    return isinstance(frontier, SharedFrontier)
