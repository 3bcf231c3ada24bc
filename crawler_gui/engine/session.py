"""One open crawl: a pool, its page store, the fetcher and the crawler, wired together.

The command line and the GUI both open crawls through :meth:`CrawlSession.open`; this is the
one place where the parts meet.

A pool directory holds:

* ``frontier/`` — the URL pool (LevelDB, ``docs/storage.md``);
* ``pages/`` — the page store (LevelDB);
* ``search/`` — the pages' full-text index (``engine.search``), kept up to date beside the
  crawl (``CrawlSettings.search_index``) and rebuilt from the page store when it is missing;
* ``scope.json`` — the registered domains seeded so far (so a resumed crawl keeps its scope);
* ``demo.json`` — for a demo crawl, the port of its demo site (so a demo crawl resumes).

In place of a directory, :meth:`CrawlSession.open` takes a Redis pool URL
(``redis://host:port/db?name=news``, ``docs/redis.md``): the URL pool is then shared by every
worker that opens it, and this worker's own page store, ``scope.json`` (and ``demo.json``) live
in a local *store directory* (``store_dir``; default ``./crawler-gui-<name>/<worker id>`` for a
worker with a stable id, else the first ``./crawler-gui-<name>/auto-N`` no running worker
holds: :func:`open_free_store`). The seeded
registered domains are also shared through the pool, so that every worker follows the links of
every seeded site.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawler_gui.core.clock import Clock
from crawler_gui.core.frontier import AddReport, Frontier, HubSpec
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.leveldb.db import database_state, folder_error
from crawler_gui.core.redact import redact_url
from crawler_gui.core.redis.location import is_pool_url, parse_pool_url
from crawler_gui.engine.crawler import Crawler, make_scope, pool_config
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.heartbeat import Heartbeat
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.scope_file import SCOPE_FILE, load_seed_domains
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.engine.store import PAGES_DIRNAME, PageStore
from crawler_gui.errors import ConfigError, CrawlerGuiError, PoolError, StoreError, StoreInUseError

# Imported where they are used, so that a headless worker starts without them: the demo site
# (the aiohttp server), the WARC writer (warcio), the search index (tantivy) and redis-py.
if TYPE_CHECKING:
    from crawler_gui.core.redis.pool import RedisPool
    from crawler_gui.demo.live import LiveNewsSite
    from crawler_gui.demo.site import DemoSite
    from crawler_gui.engine.extract.pool import ExtractPool
    from crawler_gui.engine.indexer import SearchIndexer
    from crawler_gui.engine.warc import WarcWriter

log = logging.getLogger(__name__)

DEMO_FILE = "demo.json"
#: Seconds a Redis worker keeps retrying while its server cannot be reached (``--redis-retry``;
#: the same default as ``core.redis.connection.RECONNECT_SECONDS``, which is not imported here
#: so that a pool directory needs no redis package).
RECONNECT_SECONDS = 120.0


def display_location(location: str | Path) -> str:
    """A pool directory or a Redis URL as shown to people: a URL's password is hidden."""
    if not is_pool_url(location):
        return str(location)
    return redact_url(str(location).strip())


def default_worker_id() -> str:
    """``hostname:pid``: unique among live processes, and a restarted worker never reuses the
    id of a live one (so reclaiming "its own" leases at open is safe)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def default_store_base(url: str) -> Path:
    """The folder of a Redis pool's default page stores: ``./crawler-gui-<name>``."""
    return Path.cwd() / f"crawler-gui-{parse_pool_url(url)[1]}"


#: Default stores of workers started without a worker id: ``auto-1``, ``auto-2``, ...
AUTO_STORE = "auto-"
_STORE_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def named_store_dir(base: Path, worker: str) -> Path:
    """The default store of a worker with a stable id: ``<base>/<id>`` (characters other than
    letters, digits, ``_ . -`` become ``_``; a restarted worker finds its store again)."""
    name = "".join(c if c in _STORE_NAME_OK else "_" for c in worker).lstrip(".") or "_"
    return base / name


def open_free_store(base: Path, *, store_bodies: bool = True) -> tuple[Path, PageStore]:
    """The first default page store under ``base`` that no running worker holds, opened (its
    LevelDB lock is what says "held"); a new ``auto-N`` when all are held.

    Several workers started in one folder without ``--worker`` thus each get a store of their
    own, and a worker restarted later finds one of them again (the first free one: the pages of
    a crawl are the union of its stores anyway). A folder of the older single-store layout
    (``<base>/pages`` itself) is the first candidate, so it keeps being used."""
    candidates = [base] if (base / PAGES_DIRNAME).is_dir() else []
    numbers = []
    if base.is_dir():
        for child in base.iterdir():
            suffix = child.name.removeprefix(AUTO_STORE)
            if child.name.startswith(AUTO_STORE) and suffix.isdigit() and child.is_dir():
                numbers.append(int(suffix))
    numbers.sort()
    candidates += [base / f"{AUTO_STORE}{n}" for n in numbers]
    for candidate in candidates:
        try:
            return candidate, _open_unless_held(candidate, store_bodies=store_bodies)
        except StoreInUseError:
            continue
    n = (numbers[-1] if numbers else 0) + 1
    for _attempt in range(1000):
        fresh = base / f"{AUTO_STORE}{n}"
        try:
            fresh.mkdir(parents=True)  # exclusive: of two workers starting at once, one wins
        except FileExistsError:
            n += 1
            continue
        except OSError as exc:
            unwritable = folder_error(f"the page store folder {fresh}", base, exc)
            if unwritable is not None:
                raise unwritable from exc
            raise StoreError(f"cannot create the page store folder {fresh}: {exc}") from exc
        try:
            return fresh, _open_unless_held(fresh, store_bodies=store_bodies)
        except StoreInUseError:
            # Another worker listed the folder we had just made and locked it first: it is
            # that worker's now; make the next one.
            n += 1
    raise StoreError(f"no free page store under {base}")  # pragma: no cover - 1000 races lost


#: How long a store that looks damaged (files but no ``CURRENT``) is given to become whole: a
#: worker starting at the same moment may be making it (LevelDB writes its manifest before it
#: names it in ``CURRENT``).
MAKING_GRACE_SECONDS = 2.0


def _open_unless_held(candidate: Path, *, store_bodies: bool) -> PageStore:
    """Open ``candidate``'s page store; :class:`StoreInUseError` if another worker holds it,
    including one that is still making it. Any other error is reported at once for a store
    that was whole before and after the attempt; for one that was being made, once it is
    whole (then the maker holds it) or after :data:`MAKING_GRACE_SECONDS`."""
    pages = candidate / PAGES_DIRNAME
    deadline = time.monotonic() + MAKING_GRACE_SECONDS
    while True:
        before = database_state(pages)
        try:
            return PageStore.open_in_pool(candidate, store_bodies=store_bodies)
        except StoreInUseError:
            raise
        except StoreError:
            settled = before == "ok" and database_state(pages) == "ok"
            if settled or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def redis_module_missing() -> PoolError:
    return PoolError(
        "a Redis pool needs the redis package: pip install 'crawler-gui[redis]' (or redis>=5)"
    )


async def open_redis_pool(
    url: str,
    settings: CrawlSettings | None = None,
    *,
    worker: str | None = None,
    reconnect_seconds: float = RECONNECT_SECONDS,
    clock: Clock | None = None,
) -> RedisPool:
    """Open a Redis pool with the crawl's policy. Clear PoolErrors for an unreachable server
    (RedisUnreachableError), refused credentials (RedisAuthError), a bad URL or a missing
    redis package."""
    try:
        from crawler_gui.core.redis.pool import RedisPool
    except ImportError as exc:
        raise redis_module_missing() from exc
    config = pool_config(settings) if settings is not None else None
    return await RedisPool.open(
        url.strip(), config, clock, worker=worker, reconnect_seconds=reconnect_seconds
    )


def _domains(urls: Iterable[str]) -> frozenset[str]:
    return Scope(urls).seed_domains


class SharedScopeCrawler(Crawler):
    """The crawler of a worker on a shared (Redis) pool: seeds and hubs publish their
    registered domains to the pool *before* their URLs are added, and the domains other
    workers publish join this worker's scope (``RedisPool.watch_scope``: checked after each
    pop, so a lease's domain is known before its page's links are looked at)."""

    def __init__(self, frontier: RedisPool, settings: CrawlSettings, **kw: object) -> None:
        super().__init__(frontier, settings, **kw)  # type: ignore[arg-type]
        self.shared_pool = frontier
        frontier.watch_scope(self._on_shared_scope)

    def _on_shared_scope(self, domains: set[str]) -> None:
        self.refresh_scope(domains)

    async def add_seeds(self, urls: Iterable[str]) -> AddReport:
        urls = [u.strip() for u in urls if u.strip()]
        await self.shared_pool.add_scope_domains(_domains(urls))
        return await super().add_seeds(urls)

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        await self.shared_pool.add_scope_domains(_domains(h.url for h in hubs))
        return await super().set_hubs(hubs)

    async def add_scope_domains(self, domains: Iterable[str]) -> None:
        await self.shared_pool.add_scope_domains(domains)
        await super().add_scope_domains(domains)


#: What loading a snapshot does with the crawl scope it carries (``load --scope``).
SCOPE_MODES = ("merge", "replace", "keep")


def merged_scope(current: Iterable[str], loaded: Iterable[str], mode: str) -> set[str]:
    """The scope after loading a snapshot: ``merge`` (the default: the union, so links of the
    snapshot's sites are followed and nothing already seeded is dropped), ``replace`` (the
    snapshot's alone; a version 1 snapshot carries none, and the pool's own is then kept) or
    ``keep`` (the pool's own)."""
    if mode not in SCOPE_MODES:
        raise ConfigError(f"unknown scope mode {mode!r}: one of {', '.join(SCOPE_MODES)}")
    loaded = set(loaded)
    if mode == "keep" or (mode == "replace" and not loaded):
        return set(current)
    if mode == "replace":
        return loaded
    return set(current) | loaded


def demo_settings(settings: CrawlSettings) -> CrawlSettings:
    """The demo crawls loopback hosts, so it must opt in to private addresses; it also keeps the
    politeness delay short and the hub span at a minute so there is something to watch."""
    return replace(
        settings,
        allow_private=True,
        min_delay=min(settings.min_delay, 0.25),
        retry_base=min(settings.retry_base, 2.0),
        idle_span=min(settings.idle_span, 30.0),
        hub_span=min(settings.hub_span, 60.0),
    )


async def _assemble(
    cls: type[CrawlSession],
    location: Path | str,
    root: Path,
    settings: CrawlSettings,
    pool: Any,
    site: DemoSite | LiveNewsSite | None,
    owns_site: bool,
    *,
    shared_domains: Iterable[str] = (),
    crawler_cls: type[Crawler] = Crawler,
    store: PageStore | None = None,
    clock: Clock | None = None,
    live: bool = False,
) -> CrawlSession:
    """Everything of a crawl above its pool, for both kinds of pool: the page store and WARC
    writer in ``root``, the scope (seeded domains from ``scope.json``, ``shared_domains`` and
    the hubs), the crawler, and the demo site's seeds. Closes what it opened if it fails (the
    caller closes the pool, and the site it was given). ``store`` is the page store when the
    caller opened it already (the first free default store of a Redis worker); it is closed on
    failure.

    With ``owns_site`` and no ``site``, the demo site (``live``: the live one) is started here,
    once the pool and the page store are open: nothing (its ``demo.json``) is written before
    the crawl is known to be allowed to run (a pool in use, a read-only one)."""
    if store is None:
        store = await asyncio.to_thread(
            PageStore.open_in_pool, root, store_bodies=settings.store_bodies
        )
    if site is None and owns_site:
        try:
            site = await _start_demo_site(root, live=live)
        except BaseException:
            store.close()
            raise
    try:
        return await _assemble_with_store(
            cls,
            location,
            root,
            settings,
            pool,
            site,
            store,
            clock,
            shared_domains=shared_domains,
            crawler_cls=crawler_cls,
            owns_site=owns_site,
        )
    except BaseException:
        if site is not None and owns_site:
            await site.stop()
        raise


async def _assemble_with_store(
    cls: type[CrawlSession],
    location: Path | str,
    root: Path,
    settings: CrawlSettings,
    pool: Any,
    site: DemoSite | LiveNewsSite | None,
    store: PageStore,
    clock: Clock | None,
    *,
    shared_domains: Iterable[str],
    crawler_cls: type[Crawler],
    owns_site: bool,
) -> CrawlSession:
    """:func:`_assemble` with the page store open (closed here on failure)."""
    warc: WarcWriter | None = None
    articles = None
    indexer: SearchIndexer | None = None
    try:
        if settings.warc_dir:
            from crawler_gui.engine.warc import WarcWriter

            warc = WarcWriter(settings.warc_dir)
        scope_file = root / SCOPE_FILE
        scope = make_scope(
            settings, sorted(set(shared_domains) | set(load_seed_domains(scope_file)))
        )
        scope.add_seeds(h.url for h in await pool.hubs())
        if settings.extract == "on":
            from crawler_gui.engine.extract.pool import ExtractPool
            from crawler_gui.engine.extract.service import Articles

            extract_pool = ExtractPool(settings.extract_workers)
            await extract_pool.start()
            articles = Articles(extract_pool, store, dict(settings.zones), warc=warc)
        crawler = crawler_cls(
            pool,
            settings,
            fetcher=Fetcher(settings),
            scope=scope,
            store=store,
            warc=warc,
            scope_file=scope_file,
            articles=articles,
            clock=clock,
        )
        session = cls(location, settings, pool, crawler, store, warc, site)
        session.owns_demo_site = owns_site and site is not None
        if settings.search_index:
            indexer = await _open_indexer(store, root, extracting=settings.extract == "on")
        if site is not None:
            await crawler.set_hubs([HubSpec(u, settings.hub_span) for u in site.hub_urls()])
            await crawler.add_seeds(site.seed_urls())
    except BaseException:
        if indexer is not None:
            await asyncio.to_thread(indexer.close)
        if articles is not None:
            await articles.pool.close()
        store.close()
        if warc is not None:
            warc.close()
        raise
    # Everything imported and built so far lives as long as the process: move it out of the
    # cyclic collector's reach, so its full (generation 2) runs during the crawl scan only what
    # the crawl made since. A full run over the window's and the extractor's modules took
    # 40-185 ms on the loop (benchmarks/gui.py "longest collection"); frozen, it is not seen.
    gc.freeze()
    if indexer is not None:
        session.start_indexing(indexer)
    return session


async def _open_indexer(store: PageStore, root: Path, *, extracting: bool) -> SearchIndexer | None:
    """The search index in ``root``, or None (logged) when it cannot be opened: the crawl goes
    on without it (the window lists its pages, and can rebuild the index)."""
    from crawler_gui.engine.indexer import SearchIndexer

    try:
        return await asyncio.to_thread(SearchIndexer.open, store, root, extracting=extracting)
    except Exception as exc:  # an unreadable index, one another process writes, the disk
        log.warning("the search index is not kept up to date: %s", exc)
        return None


async def _start_demo_site(root: Path, *, live: bool = False) -> DemoSite | LiveNewsSite:
    """Start the demo site on the port this pool's demo used before, so that a demo crawl
    resumes against the same URLs; any free port the first time (or if that one is taken).
    With ``live``, the live news site (``demo/live.py``), resumed with its first epoch so that
    its article numbers go on where they were."""
    from crawler_gui.demo.live import LiveNewsSite
    from crawler_gui.demo.site import DemoSite

    marker = root / DEMO_FILE
    port = 0
    epoch: float | None = None
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        saved = json.loads(marker.read_text(encoding="utf-8"))
        port = int(saved["port"])
        if live and isinstance(saved.get("live_epoch"), int | float):
            epoch = float(saved["live_epoch"])

    def make(port: int) -> DemoSite | LiveNewsSite:
        return LiveNewsSite(port=port, epoch=epoch) if live else DemoSite(port=port, feeds=True)

    site = make(port)
    try:
        await site.start()
    except OSError:
        if port == 0:
            raise
        log.warning("the demo's previous port %d is taken; using another one", port)
        site = make(0)
        await site.start()
    root.mkdir(parents=True, exist_ok=True)
    data: dict[str, float] = {"port": site.port}
    if isinstance(site, LiveNewsSite) and site.epoch is not None:
        data["live_epoch"] = site.epoch
    marker.write_text(json.dumps(data), encoding="utf-8")
    return site


def _leave_extraction(pool: ExtractPool) -> None:
    """Let the extraction pool ``pool`` go without waiting for the pages still queued (a stop
    did not wait for them: they stay stored without their extraction)."""
    dropped = pool.abandon()
    log.info("%d queued pages left unextracted; the extraction workers end", dropped)


def _async(fn: Callable[[], object]) -> Callable[[], Awaitable[object]]:
    async def call() -> object:
        return fn()

    return call


class CrawlSession:
    """Everything one crawl needs. Close it with :meth:`close` (it stops the crawl first)."""

    def __init__(
        self,
        location: Path | str,
        settings: CrawlSettings,
        frontier: Frontier,
        crawler: Crawler,
        store: PageStore,
        warc: WarcWriter | None,
        demo_site: DemoSite | LiveNewsSite | None,
    ) -> None:
        self.location = location
        self.settings = settings
        self.frontier = frontier
        self.crawler = crawler
        self.store = store
        self.warc = warc
        self.demo_site = demo_site
        self.owns_demo_site = False
        #: For a Redis pool: the pool URL is ``location`` (so the session can be opened again),
        #: ``store_dir`` the local folder of the pages, ``display_name`` the URL without its
        #: password. For a pool directory all three name that directory.
        self.store_dir = Path(location) if isinstance(location, Path) else Path()
        self.display_name = str(location)
        self.worker: str | None = None
        #: A shared pool's heartbeat of this worker (``engine.heartbeat``), None otherwise.
        self.heartbeat: Heartbeat | None = None
        #: The pages' search index, kept up to date beside the crawl (None: ``search_index``
        #: off, or an index that could not be opened). Searched by the window; closed here.
        self.indexer: SearchIndexer | None = None
        self._index_task: asyncio.Task[None] | None = None
        self._closed = False

    def start_indexing(self, indexer: SearchIndexer) -> None:
        """Keep ``indexer``'s index up to date with the page store until :meth:`close`."""
        self.indexer = indexer
        self._index_task = asyncio.get_running_loop().create_task(
            indexer.run(), name="search-index"
        )

    @classmethod
    async def open(
        cls,
        location: str | Path,
        settings: CrawlSettings,
        *,
        demo: bool = False,
        demo_site: DemoSite | LiveNewsSite | None = None,
        store_dir: str | Path | None = None,
        worker: str | None = None,
        redis_retry: float = RECONNECT_SECONDS,
        live: bool = False,
        clock: Clock | None = None,
    ) -> CrawlSession:
        """Open (or create) the crawl in ``location``. With ``demo`` the built-in demo site is
        started on loopback and its seeds and hubs are added. Raises the pool's and the store's
        clear errors (PoolInUseError, PoolCorruptError, StoreError, ...).

        ``location`` may be a Redis pool URL (``redis://host:port/db?name=news``): see
        :meth:`open_redis`; ``store_dir``, ``worker`` and ``redis_retry`` are for that case
        only. ``live`` (with ``demo``) starts the live news site (``demo/live.py``) instead of
        the demo site. ``clock`` is the crawl's time, given to the pool and the crawler alike
        (``core/clock.py``; the system clock by default, a ``ManualClock`` in tests)."""
        if is_pool_url(location):
            return await cls.open_redis(
                str(location),
                settings,
                store_dir=store_dir,
                worker=worker,
                demo=demo,
                demo_site=demo_site,
                redis_retry=redis_retry,
                live=live,
                clock=clock,
            )
        if store_dir is not None or worker is not None:
            raise ConfigError("store_dir and worker are for Redis pools only")
        root = Path(location).expanduser()
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root} is a file, not a pool directory")
        if demo or demo_site is not None:
            settings = demo_settings(settings)
        pool: LevelDBPool | None = None
        try:
            # The pool first: a pool in use or on a read-only disk is refused before anything
            # (the demo site's demo.json) is written.
            pool = await LevelDBPool.open_async(root, pool_config(settings), clock)
            session = await _assemble(
                cls,
                root,
                root,
                settings,
                pool,
                demo_site,
                demo and demo_site is None,
                clock=clock,
                live=live,
            )
        except BaseException:
            if pool is not None:
                await pool.close()
            raise
        log.info("opened crawl in %s", root)
        return session

    @classmethod
    async def open_redis(
        cls,
        url: str,
        settings: CrawlSettings,
        *,
        store_dir: str | Path | None = None,
        worker: str | None = None,
        demo: bool = False,
        demo_site: DemoSite | LiveNewsSite | None = None,
        redis_retry: float = RECONNECT_SECONDS,
        live: bool = False,
        clock: Clock | None = None,
    ) -> CrawlSession:
        """Join the Redis pool ``url`` as one worker.

        ``worker`` is this worker's lease id (default ``hostname:pid``; a ``worker=`` in the URL
        also counts); ``store_dir`` the local folder of its page store and ``scope.json``
        (created if missing; by default ``./crawler-gui-<name>/<id>`` when a worker id is given,
        else the first free ``./crawler-gui-<name>/auto-N``). While the server cannot be
        reached (a restart), pool operations retry for up to ``redis_retry`` seconds. Raises
        RedisUnreachableError / RedisAuthError (PoolErrors with a clear message) when the
        server cannot be used."""
        _redis_url, _name, url_worker = parse_pool_url(url.strip())
        store: PageStore | None = None
        if store_dir is not None:
            root = Path(store_dir).expanduser()
        elif worker or url_worker:
            root = named_store_dir(default_store_base(url), str(worker or url_worker))
        else:
            root, store = await asyncio.to_thread(
                open_free_store, default_store_base(url), store_bodies=settings.store_bodies
            )
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root} is a file, not a store directory")
        if demo or demo_site is not None:
            settings = demo_settings(settings)
        pool: RedisPool | None = None
        made: CrawlSession | None = None
        try:
            pool = await open_redis_pool(
                url,
                settings,
                worker=worker or url_worker or default_worker_id(),
                reconnect_seconds=redis_retry,
                clock=clock,
            )
            await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
            shared = await pool.scope_domains()
            session = await _assemble(
                cls,
                url.strip(),
                root,
                settings,
                pool,
                demo_site,
                demo and demo_site is None,
                shared_domains=shared,
                crawler_cls=SharedScopeCrawler,
                store=store,
                clock=clock,
                live=live,
            )
            store = None  # the session's now
            made = session
            if not session.crawler.scope.seed_domains <= shared:
                await pool.add_scope_domains(session.crawler.scope.seed_domains)
            session.store_dir = root
            session.display_name = redact_url(url.strip())
            session.worker = pool.worker
            session.heartbeat = Heartbeat(pool, session.crawler)
            session.heartbeat.start()
        except BaseException:
            if made is not None:  # (it closes its store, its demo site and the pool)
                await made.close()
            else:
                if store is not None:
                    store.close()
                if pool is not None:
                    await pool.close()
            raise
        log.info(
            "joined the Redis pool %s as worker %s; pages in %s",
            session.display_name,
            session.worker,
            root,
        )
        return session

    async def close(self) -> None:
        """Stop the crawl (in-flight fetches finish), flush, close everything. Idempotent."""
        if self._closed:
            return
        self._closed = True
        steps: list[tuple[str, Callable[[], Awaitable[object]]]] = [
            ("stop the crawl", self.crawler.stop),
        ]
        if self.heartbeat is not None:  # after the stop: its last state reached the pool
            steps.append(("remove this worker's heartbeat", self.heartbeat.close))
        steps += [
            # Background work and robots.txt fetches first: they use the HTTP session and the
            # pool, and a request still starting when the session closes could leave a socket
            # behind.
            ("finish background work", self.crawler.close_background),
            ("close the HTTP session", self.crawler.close_fetchers),
        ]
        if self.crawler.articles is not None:
            steps.append(("stop the article extraction", self._close_articles))
        if self.indexer is not None:  # (it reads the page store)
            steps.append(("close the search index", self._close_index))
        steps += [
            ("close the page store", self.store.aclose),
        ]
        if self.warc is not None:
            steps.append(("close the WARC file", _async(self.warc.close)))
        steps.append(("close the pool", self.frontier.close))
        if self.demo_site is not None and self.owns_demo_site:
            steps.append(("stop the demo site", self.demo_site.stop))
        first_error: BaseException | None = None
        for what, step in steps:  # each one runs even when an earlier one failed
            try:
                await step()
            except Exception as exc:
                if isinstance(exc, CrawlerGuiError):  # a clear error: no traceback
                    log.error("could not %s: %s", what, exc)
                else:
                    log.exception("could not %s", what)
                first_error = first_error or exc
        log.info("closed crawl in %s", self.display_name)
        if first_error is not None:
            raise first_error

    async def _close_articles(self) -> None:
        articles = self.crawler.articles
        if articles is None:
            return
        if articles.pool.backlog:
            # Pages a stop did not wait for (``Crawler._finish_extraction``): closing the pool
            # would wait for every one of them.
            _leave_extraction(articles.pool)
            return
        await articles.pool.close()
        await articles.drain()

    async def _close_index(self) -> None:
        task, self._index_task = self._index_task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self.indexer is not None:
            await asyncio.to_thread(self.indexer.close)  # (waits for a batch being indexed)

    async def __aenter__(self) -> CrawlSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
