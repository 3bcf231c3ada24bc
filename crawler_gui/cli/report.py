"""``report``: the crawl report of a pool as one self-contained HTML file (``engine/report.py``).

A pool folder no crawl holds is opened (and its page store read for the articles); a pool
folder a headless crawl holds is asked through its control channel (the crawl's counters,
those not yet flushed included; its page store is the crawl's, so the articles come from the
counters); a Redis pool is read while its workers crawl (``--store-dir`` adds one worker's
page store). A Redis pool that does not exist is an error, never created.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.redact import redact_url
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.report import (
    ReportData,
    article_stats,
    collect_report,
    render_html,
    write_atomically,
)
from crawler_gui.engine.session import open_redis_pool
from crawler_gui.engine.store import PAGES_DIRNAME, PageStore
from crawler_gui.errors import ConfigError, PoolInUseError

from .locations import existing_pool, existing_store, outside_pool


async def report_command(args: argparse.Namespace) -> int:
    if is_pool_url(args.pool_dir):
        data = await _redis_report(args)
    else:
        if args.store_dir:
            raise ConfigError("--store-dir is for a Redis pool URL only")
        pool_dir = existing_pool(args.pool_dir)
        outside_pool(args.output, pool_dir, "report")
        data = await _local_report(pool_dir)
    text = render_html(data)
    if not args.output:
        sys.stdout.write(text)
        return 0
    write_atomically(Path(args.output), text)
    print(f"report written to {args.output}", file=sys.stderr)
    return 0


async def _local_report(pool_dir: Path) -> ReportData:
    try:
        pool = await LevelDBPool.open_async(pool_dir, create=False)
    except PoolInUseError as exc:  # a crawl runs: ask it
        from crawler_gui.engine.control.client import read_live_report

        counters, totals, state = await read_live_report(pool_dir, exc)
        return ReportData(str(pool_dir), totals, counters, None, state)
    try:
        from crawler_gui.engine.control.address import remove_stale

        remove_stale(pool_dir)  # we hold the pool: no crawl serves it
        store = None
        if (pool_dir / PAGES_DIRNAME).exists():
            store = PageStore.open_in_pool(pool_dir, create=False)
        try:
            return await collect_report(pool, str(pool_dir), store=store)
        finally:
            if store is not None:
                store.close()
    finally:
        await pool.close()


async def _redis_report(args: argparse.Namespace) -> ReportData:
    from crawler_gui.core.redis.pool import RedisPool

    location = args.pool_dir
    store_dir = existing_store(args.store_dir) if args.store_dir else None
    if store_dir is not None:
        outside_pool(args.output, store_dir, "report")
    if not await RedisPool.exists(location):
        raise ConfigError(f"there is no crawler-gui pool at {redact_url(location)}")
    pool = await open_redis_pool(location)
    try:
        data = await collect_report(pool, redact_url(location))
    finally:
        await pool.close()
    if store_dir is not None:
        store = PageStore.open_in_pool(store_dir, create=False)
        try:
            data.articles = article_stats(store)
        finally:
            store.close()
    return data
