"""The page records: ``export`` (the stored pages, the articles among them, or every URL's
outcome, as JSON Lines, CSV or WARC; the record types are defined in ``engine.export``, shared
with the window) and ``extract`` (articles from the stored pages)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.export import (
    article_records,
    check_choice,
    page_records,
    write_records,
    write_warc,
)
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import ConfigError

from .locations import existing_pool, existing_store, opened_pool, output, outside_pool


def export_command(args: argparse.Namespace) -> int:
    fmt = args.export_format
    check_choice(args.records, fmt)
    if fmt == "warc" and not args.output:
        raise ConfigError("a WARC export is binary: give the file with -o FILE.warc.gz")
    if args.records == "outcomes":
        return asyncio.run(_export_outcomes(args))
    if is_pool_url(args.pool_dir):
        raise ConfigError(
            "export reads a local page store: give the worker's store directory "
            "(crawl --store-dir, default ./crawler-gui-NAME), not the Redis URL"
        )
    pool_dir = existing_store(args.pool_dir)
    outside_pool(args.output, pool_dir, "export")
    store = PageStore.open_in_pool(pool_dir, create=False)
    try:
        if fmt == "warc":
            target = Path(args.output)
            with output(args.output, binary=True) as out:
                done = write_warc(out, store, kind=args.records, name=target.name)
            left = (
                f" ({done.without_body} without a stored body left out)"
                if done.without_body
                else ""
            )
            print(f"{done.pages} pages exported{left}", file=sys.stderr)
            return 0
        records = article_records if args.records == "articles" else page_records
        with output(args.output) as out:
            count = write_records(out, records(store), fmt=fmt, kind=args.records)
    finally:
        store.close()
    print(f"{count} records exported", file=sys.stderr)
    return 0


async def _export_outcomes(args: argparse.Namespace) -> int:
    """Every URL's outcome from the pool (a directory or a Redis pool URL)."""
    if not is_pool_url(args.pool_dir):
        outside_pool(args.output, existing_pool(args.pool_dir), "export")
    fmt = args.export_format
    count = 0
    async with opened_pool(args.pool_dir) as pool:
        with output(args.output) as out:
            # read in batches (every backend's iter_outcomes is async); one CSV header
            batch: list[dict[str, Any]] = []
            async for rec in pool.iter_outcomes():
                batch.append(rec)
                if len(batch) >= 1000:
                    count += write_records(out, batch, fmt=fmt, kind="outcomes", header=count == 0)
                    batch = []
            if batch or count == 0:
                count += write_records(out, batch, fmt=fmt, kind="outcomes", header=count == 0)
    print(f"{count} records exported", file=sys.stderr)
    return 0


async def extract_command(args: argparse.Namespace) -> int:
    """Extract (or with --all re-extract) the stored pages, with progress on stderr."""
    from crawler_gui.engine.decode import sniff_kind
    from crawler_gui.engine.extract.pool import ExtractPool
    from crawler_gui.engine.extract.service import Articles

    if is_pool_url(args.pool_dir):
        raise ConfigError("extract reads a local page store: give the worker's store directory")
    pool_dir = existing_store(args.pool_dir)
    store = await asyncio.to_thread(PageStore.open_in_pool, pool_dir)
    interactive = sys.stderr.isatty()
    done = no_body = 0
    try:
        total = store.count()
        async with ExtractPool(args.extract_workers) as pool:
            articles = Articles(pool, store, dict(args.zone))
            last = 0.0
            for seq, record in store.iter_seq_records(only_unextracted=not args.all):
                if record.body is None:
                    no_body += 1
                    continue
                kind = sniff_kind(record.content_type, record.body)
                await articles.page(
                    seq, record.final_url, record.body, record.content_type, is_html=kind == "html"
                )
                done += 1
                now = time.monotonic()
                if now - last >= 1.0:
                    last = now
                    line = (
                        f"extracting: {done} pages handed over of {total}, "
                        f"{articles.judged} judged, {articles.found} articles"
                    )
                    print(("\r" + line) if interactive else line, end="", file=sys.stderr)
                    if not interactive:
                        print(file=sys.stderr)
            await articles.drain()
        await store.flush()
    finally:
        await store.aclose()
    if interactive:
        print(file=sys.stderr)
    print(
        f"{articles.judged} pages extracted: {articles.found} articles, "
        f"{articles.kinds.get('list', 0)} lists, {articles.kinds.get('other', 0)} other "
        f"({articles.failed} failed); {no_body} without a stored body skipped",
        file=sys.stderr,
    )
    return 0
