"""The commands that look after a pool as a whole: ``stats`` (its totals, or a running crawl's
live ones), ``save`` and ``load`` (portable snapshot files with the crawl scope) and ``repair``
(a damaged pool into a copy), ``migrate`` (an older pool's URLs in the current form)."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import sys
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawler_gui.core import snapshot_file
from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.scope_file import SCOPE_FILE, load_seed_domains, write_scope_file
from crawler_gui.engine.session import merged_scope, open_redis_pool
from crawler_gui.engine.stats import disk_use
from crawler_gui.engine.store import PAGES_DIRNAME, PageStore
from crawler_gui.errors import ConfigError, CrawlerGuiError, PoolInUseError

from .locations import existing_pool, existing_store, opened_pool, outside_pool

if TYPE_CHECKING:
    from crawler_gui.core.redis.pool import RedisPool


async def stats_command(args: argparse.Namespace) -> int:
    """The pool's totals as JSON; ``pages_stored`` from the local page store when there is one
    (a Redis pool's workers each keep their own: give ``--store-dir``)."""
    pool_path: Path | None = None  # a local pool's folder (its disk use is measured)
    store_dir: Path | None
    if is_pool_url(args.pool_dir):
        store_dir = existing_store(args.store_dir) if args.store_dir else None
        redis_pool = await open_redis_pool(args.pool_dir)
        try:
            totals = await _totals(redis_pool)
            totals["paused"] = await redis_pool.paused()
        finally:
            await redis_pool.close()
    else:
        if args.store_dir:
            raise ConfigError("--store-dir is for a Redis pool URL only")
        pool_path = store_dir = existing_pool(args.pool_dir)
        try:
            pool = await LevelDBPool.open_async(pool_path, create=False)
        except PoolInUseError as exc:  # a crawl runs: ask it (its control channel)
            print(json.dumps(await _live_stats(pool_path, exc), indent=2, sort_keys=True))
            return 0
        try:
            from crawler_gui.engine.control.address import remove_stale

            remove_stale(pool_path)  # we hold the pool: no crawl serves it
            totals = await _totals(pool)
        finally:
            await pool.close()
    if store_dir is not None and (store_dir / PAGES_DIRNAME).exists():
        store = PageStore.open_in_pool(store_dir, create=False)
        try:
            totals["pages_stored"] = store.count()
        finally:
            store.close()
    pages_path = store_dir / PAGES_DIRNAME if store_dir is not None else None
    totals["disk_use"] = await asyncio.to_thread(disk_use, pool_path, pages_path)
    print(json.dumps(totals, indent=2, sort_keys=True))
    return 0


async def _totals(pool: LevelDBPool | RedisPool) -> dict[str, Any]:
    totals = asdict(await pool.totals())
    totals["refused"] = dict(totals["refused"])
    return totals


async def _live_stats(pool_dir: Path, error: PoolInUseError) -> dict[str, Any]:
    """The totals of the crawl that holds ``pool_dir`` (its control channel), with the disk
    use measured here; ``error`` is raised when no crawl answers."""
    from crawler_gui.engine.control.client import read_live_stats

    live = await read_live_stats(pool_dir, error)
    live["refused"] = dict(live["refused"])
    measured = await asyncio.to_thread(disk_use, pool_dir, pool_dir / PAGES_DIRNAME)
    if "warc" in live.get("disk_use", {}):  # the crawl's WARC folder, wherever it is
        measured["warc"] = live["disk_use"]["warc"]
        measured["total"] += measured["warc"]
    live["disk_use"] = measured
    return live


async def save_command(args: argparse.Namespace) -> int:
    """The pool into a snapshot file, with its crawl scope (a local pool's ``scope.json``; a
    Redis pool carries its own)."""
    scope: Iterable[str] = ()
    if not is_pool_url(args.pool_dir):
        pool_dir = existing_pool(args.pool_dir)
        outside_pool(args.file, pool_dir, "snapshot")
        scope = load_seed_domains(pool_dir / SCOPE_FILE)
    async with opened_pool(args.pool_dir) as pool:
        count = await pool.save_snapshot(args.file, scope=scope)
        print(f"saved {count} records to {args.file}", file=sys.stderr)
    return 0


async def load_command(args: argparse.Namespace) -> int:
    """Replace the pool's contents with a snapshot file; its crawl scope is merged with the
    pool's, replaces it or is left out (``--scope``)."""
    if is_pool_url(args.pool_dir):
        return await _load_redis(args)
    pool_dir = Path(args.pool_dir)
    if pool_dir.exists() and not pool_dir.is_dir():
        raise ConfigError(f"{pool_dir} is a file, not a pool directory")
    scope_file = pool_dir / SCOPE_FILE
    async with opened_pool(args.pool_dir, create=True) as pool:
        loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(args.file))
        count = await pool.load_snapshot(args.file)
        print(f"loaded {count} records from {args.file} into {pool_dir}", file=sys.stderr)
        current = set(load_seed_domains(scope_file))
        after = merged_scope(current, loaded, args.scope)
        if after != current:
            write_scope_file(scope_file, after)
        _say_scope(loaded, current, after)
    return 0


async def _load_redis(args: argparse.Namespace) -> int:
    pool = await open_redis_pool(args.pool_dir)
    try:
        loaded = await asyncio.to_thread(snapshot_file.read_scope, Path(args.file))
        count = await pool.load_snapshot(args.file)
        print(
            f"loaded {count} records from {args.file} into the Redis pool {pool.name!r}",
            file=sys.stderr,
        )
        current = await pool.scope_domains()
        after = merged_scope(current, loaded, args.scope)
        if after != current:
            if after >= current:
                await pool.add_scope_domains(after - current)
            else:
                await pool.replace_scope_domains(after)
        _say_scope(loaded, current, after)
    finally:
        await pool.close()
    return 0


def _say_scope(loaded: Iterable[str], before: set[str], after: set[str]) -> None:
    loaded = set(loaded)
    if not loaded:
        print(
            "the snapshot carries no crawl scope (an older file): scope unchanged",
            file=sys.stderr,
        )
        return
    print(
        f"crawl scope: {len(loaded)} domain(s) in the snapshot; {len(before)} before, "
        f"{len(after)} now",
        file=sys.stderr,
    )


def repair_command(args: argparse.Namespace) -> int:
    """Repair a copy: LevelDB's repair, then the pool's invariants; the original is only
    read, and is refused while a crawl has it open."""
    from crawler_gui.core.leveldb import repair_pool

    if is_pool_url(args.pool_dir):
        raise ConfigError("repair works on a pool directory (a Redis pool has no files here)")
    src = Path(args.pool_dir)
    whole = (src / "frontier").is_dir()  # else a Redis worker's store folder: its pages
    if not whole and not (src / PAGES_DIRNAME).is_dir():
        raise ConfigError(
            f"{src} is not a crawler-gui pool directory (no frontier/ inside) nor a store "
            "folder (no pages/ inside)"
        )
    dest = Path(args.output) if args.output else src.with_name(src.name + ".repaired")
    outside_pool(args.output, src, "repaired copy")
    if dest.exists():
        raise ConfigError(f"{dest} exists already: give another folder with --output")
    _refuse_if_open(src)
    report = repair_pool(src, dest)
    for line in report.lines():
        print(line, file=sys.stderr)
    use = f"crawl the copy with `crawler-gui crawl {dest}`" if whole else "use the copy"
    print(
        f"the damaged {'pool' if whole else 'store folder'} {src} was left as it is; {use}, "
        "or move it in place of the old one",
        file=sys.stderr,
    )
    return 0


async def migrate_command(args: argparse.Namespace) -> int:
    """Rewrite an older pool's URL keys in the current canonical form, saying how far it got."""
    import tempfile

    from crawler_gui.core.leveldb import migrate
    from crawler_gui.core.redis.pool import RedisPool
    from crawler_gui.engine import store_migrate
    from crawler_gui.engine.store import PAGES_DIRNAME

    if is_pool_url(args.pool_dir):
        with tempfile.TemporaryDirectory(prefix="crawler-gui-migrate-") as work:
            count = await RedisPool.migrate(args.pool_dir, work)
    else:
        src = existing_pool(args.pool_dir)

        def progress(what: str, seen: int, moved: int) -> None:
            print(f"migrating {what}: {seen:,} read, {moved:,} moved", file=sys.stderr)

        count = await asyncio.to_thread(migrate.migrate_path, src, progress)
        # The page store's URL keys too (``url/``, ``hub/``, ``listed/``, ``ref/``).
        pages = await asyncio.to_thread(store_migrate.migrate_path, src / PAGES_DIRNAME, progress)
        if pages is not None:
            count = (count or 0) + pages
    if count is None:
        print("the pool is current: nothing to migrate", file=sys.stderr)
    else:
        print(f"migrated: {count:,} records rewritten in the current URL form", file=sys.stderr)
    return 0


def _refuse_if_open(pool_dir: Path) -> None:
    """A pool (or page store) a crawl has open is not copied (the copy would be torn). The
    lock is only asked for shared, through a read-only handle: a pool on a read-only disk can
    be repaired into a copy elsewhere."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: LevelDB's own lock is checked later
        return
    for lock in (pool_dir / "frontier" / "LOCK", pool_dir / PAGES_DIRNAME / "LOCK"):
        try:
            fh = open(lock, "rb")  # noqa: SIM115 - closed below, after the lock test
        except FileNotFoundError:
            continue
        with fh:
            try:
                fcntl.lockf(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise CrawlerGuiError(f"cannot look at {lock}: {exc.strerror}") from exc
                raise PoolInUseError(
                    f"the pool {pool_dir} is open in a crawler-gui process; stop it first"
                ) from exc
            fcntl.lockf(fh, fcntl.LOCK_UN)
