"""How the crawl's parts tell their own storage failing (a full disk: the crawl pauses) from
everything else, and how they log an error."""

from __future__ import annotations

import logging

from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    PoolCorruptError,
    PoolWriteError,
    StoreCorruptError,
    StoreWriteError,
    is_disk_full,
)


def log_error(log: logging.Logger, what: str, exc: BaseException) -> None:
    """One line for our own clear errors (a pool that cannot be reached, a full disk: the
    message says it all); the traceback for anything else, which is a bug."""
    if isinstance(exc, CrawlerGuiError):
        log.error("%s: %s", what, exc)
    else:
        log.error("%s", what, exc_info=exc)


def own_storage_error(exc: BaseException) -> bool:
    """A write to our own disk failed (pool, page store, WARC): never the URL's fault."""
    return isinstance(exc, DiskFullError | PoolWriteError | StoreWriteError) or is_disk_full(exc)


def damaged_storage(exc: BaseException) -> bool:
    """A read of our own pool or page store met a damaged block: the crawl cannot go on (and no
    URL is to blame); ``crawler-gui repair`` is the way on."""
    return isinstance(exc, PoolCorruptError | StoreCorruptError)
