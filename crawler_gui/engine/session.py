"""One open crawl: a pool, its page store, the fetcher and the crawler, wired together.

The command line and the GUI both open crawls through :meth:`CrawlSession.open`; this is the
one place where the parts meet.

A pool directory holds:

* ``frontier/`` — the URL pool (LevelDB, ``docs/storage.md``);
* ``pages/`` — the page store (LevelDB);
* ``scope.json`` — the registered domains seeded so far (so a resumed crawl keeps its scope).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from pathlib import Path

from crawler_gui.core.frontier import Frontier, HubSpec
from crawler_gui.core.leveldb_pool import LevelDBPool
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.crawler import Crawler, load_seed_domains, make_scope, pool_config
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.engine.store import PageStore
from crawler_gui.engine.warc import WarcWriter
from crawler_gui.errors import ConfigError

log = logging.getLogger(__name__)

SCOPE_FILE = "scope.json"


def demo_settings(settings: CrawlSettings) -> CrawlSettings:
    """The demo crawls loopback hosts, so it must opt in to private addresses; it also keeps the
    politeness delay short and the hub span at a minute so there is something to watch."""
    return replace(
        settings,
        allow_private=True,
        min_delay=min(settings.min_delay, 0.25),
        hub_span=min(settings.hub_span, 60.0),
    )


class CrawlSession:
    """Everything one crawl needs. Close it with :meth:`close` (it stops the crawl first)."""

    def __init__(
        self,
        pool_dir: Path,
        settings: CrawlSettings,
        frontier: Frontier,
        crawler: Crawler,
        store: PageStore,
        warc: WarcWriter | None,
        demo_site: DemoSite | None,
    ) -> None:
        self.pool_dir = pool_dir
        self.settings = settings
        self.frontier = frontier
        self.crawler = crawler
        self.store = store
        self.warc = warc
        self.demo_site = demo_site
        self.owns_demo_site = False
        self._closed = False

    @classmethod
    async def open(
        cls,
        pool_dir: str | Path,
        settings: CrawlSettings,
        *,
        demo: bool = False,
        demo_site: DemoSite | None = None,
    ) -> CrawlSession:
        """Open (or create) the crawl in ``pool_dir``. With ``demo`` the built-in demo site is
        started on loopback and its seeds and hubs are added. Raises the pool's and the store's
        clear errors (PoolInUseError, PoolCorruptError, StoreError, ...)."""
        root = Path(pool_dir).expanduser()
        if root.exists() and not root.is_dir():
            raise ConfigError(f"{root} is a file, not a pool directory")
        site = demo_site
        if demo and site is None:
            site = DemoSite()
            await site.start()
        if site is not None:
            settings = demo_settings(settings)
        pool: LevelDBPool | None = None
        store: PageStore | None = None
        try:
            pool = await LevelDBPool.open_async(root, pool_config(settings))
            store = await asyncio.to_thread(
                PageStore.open_in_pool, root, store_bodies=settings.store_bodies
            )
            warc = WarcWriter(settings.warc_dir) if settings.warc_dir else None
            scope_file = root / SCOPE_FILE
            scope = make_scope(settings, load_seed_domains(scope_file))
            scope.add_seeds(h.url for h in pool.hubs())
            crawler = Crawler(
                pool,
                settings,
                fetcher=Fetcher(settings),
                scope=scope,
                store=store,
                warc=warc,
                scope_file=scope_file,
            )
            session = cls(root, settings, pool, crawler, store, warc, site)
            session.owns_demo_site = site is not None and demo_site is None
            if site is not None:
                await crawler.set_hubs([HubSpec(u, settings.hub_span) for u in site.hub_urls()])
                await crawler.add_seeds(site.seed_urls())
        except BaseException:
            if store is not None:
                store.close()
            if pool is not None:
                await pool.close()
            if site is not None and demo_site is None:
                await site.stop()
            raise
        log.info("opened crawl in %s", root)
        return session

    async def close(self) -> None:
        """Stop the crawl (in-flight fetches finish), flush, close everything. Idempotent."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            await self.crawler.stop()
        await self.crawler.fetcher.close()
        await self.crawler.robots.close()
        await self.store.aclose()
        if self.warc is not None:
            self.warc.close()
        await self.frontier.close()
        if self.demo_site is not None and self.owns_demo_site:
            await self.demo_site.stop()
        log.info("closed crawl in %s", self.pool_dir)

    async def __aenter__(self) -> CrawlSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
