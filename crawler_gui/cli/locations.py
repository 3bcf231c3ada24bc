"""The places a command is given: a pool folder, a page store or a Redis pool URL that must be
there, and an output file that must lie outside the pool and is written whole or not at all."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawler_gui.core.leveldb import LevelDBPool
from crawler_gui.core.redis.location import is_pool_url
from crawler_gui.engine.export import atomic_file
from crawler_gui.engine.session import open_redis_pool
from crawler_gui.engine.store import PAGES_DIRNAME
from crawler_gui.errors import ConfigError, CrawlerGuiError, DiskFullError, is_disk_full

if TYPE_CHECKING:
    from crawler_gui.core.redis.pool import RedisPool


def existing_pool(path: str) -> Path:
    """A crawler-gui pool directory (one with ``frontier/``), or ConfigError."""
    p = Path(path)
    if not (p / "frontier").is_dir():
        raise ConfigError(f"{path} is not a crawler-gui pool directory (no frontier/ inside)")
    return p


def existing_store(path: str) -> Path:
    """A pool directory or a Redis worker's store directory: anything with ``pages/``."""
    p = Path(path)
    if not (p / PAGES_DIRNAME).is_dir():
        raise ConfigError(f"{path} holds no page store (no pages/ inside)")
    return p


def outside_pool(target: str | None, pool_dir: Path, what: str) -> None:
    """Refuse an output path inside a pool's own files (or the pool folder itself); None is
    standard output."""
    if target is None:
        return
    if not target.strip():
        raise ConfigError(f"{what} needs a file name (an empty one was given)")
    out = Path(target).expanduser().resolve()
    root = pool_dir.expanduser().resolve()
    if out == root or root in out.parents:
        raise ConfigError(
            f"{target} is inside the pool {pool_dir}: write the {what} somewhere else "
            "(the pool's own files must not be overwritten)"
        )


@contextlib.asynccontextmanager
async def opened_pool(
    location: str, *, create: bool = False
) -> AsyncIterator[LevelDBPool | RedisPool]:
    """The pool at ``location`` (a Redis pool URL or a pool folder), closed at the end."""
    pool: LevelDBPool | RedisPool
    if is_pool_url(location):
        pool = await open_redis_pool(location)
    else:
        pool = await LevelDBPool.open_async(location, create=create)
    try:
        yield pool
    finally:
        await pool.close()


@contextlib.contextmanager
def output(path: str | None, *, binary: bool = False) -> Iterator[Any]:
    """Standard output, or a file written whole or not at all (``engine.export.atomic_file``:
    a failure, such as no space or no permission, leaves the previous file as it was). Every
    OSError is one clear line. Text unless ``binary``."""
    if not path:
        yield sys.stdout.buffer if binary else sys.stdout
        return
    target = Path(path)
    try:
        with atomic_file(target, binary=binary) as fh:
            yield fh
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, IsADirectoryError) or target.is_dir():
            reason = "it is a folder"
        if is_disk_full(exc):
            raise DiskFullError(f"cannot write {target}: the disk is full") from exc
        raise CrawlerGuiError(f"cannot write {target}: {reason}") from exc
