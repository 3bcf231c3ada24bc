"""Every exception crawler-gui raises on purpose, in one tree.

Callers catch :class:`CrawlerGuiError` for "a clear error the user should see";
anything else escaping is a bug.
"""

from __future__ import annotations

import errno


class CrawlerGuiError(Exception):
    """Base of every error crawler-gui raises on purpose."""


class InvalidURLError(CrawlerGuiError, ValueError):
    """A URL was refused. ``reason`` is a short machine-readable word (``core.urls.REASONS``)."""

    def __init__(self, url: str, reason: str, detail: str = "") -> None:
        self.url = url
        self.reason = reason
        self.detail = detail
        shown = url if len(url) <= 120 else url[:117] + "..."
        super().__init__(f"{reason}: {detail or 'refused'} ({shown!r})")


class PoolError(CrawlerGuiError):
    """Something is wrong with a URL pool as a whole."""


class PoolInUseError(PoolError):
    """Another process (or another pool object) already has this pool open."""


class PoolCorruptError(PoolError):
    """The pool's files cannot be read as a crawler-gui pool."""


class PoolWriteError(PoolError):
    """A write to the pool's database failed (an I/O error of our own disk). The pool's
    state is what it was before that write: nothing was half-applied."""


class PoolVersionError(PoolError):
    """The pool was written by an incompatible version of crawler-gui."""


class PoolClosedError(PoolError):
    """The pool was used after close()."""


class PoolBusyError(PoolError):
    """The operation needs the pool idle (for example nothing in flight during a snapshot load)."""


class SnapshotError(CrawlerGuiError):
    """A pool snapshot file could not be written or read. The pool is unchanged."""


class SnapshotFormatError(SnapshotError):
    """The file is not a crawler-gui snapshot, or it is truncated or corrupt."""


class SnapshotVersionError(SnapshotError):
    """The snapshot's format version is newer than this program understands."""


class ConfigError(CrawlerGuiError, ValueError):
    """A setting or a command-line argument is invalid."""


class RedisUnreachableError(PoolError):
    """The Redis server of a pool URL cannot be reached (refused, unknown host, timeout)."""


class RedisAuthError(PoolError):
    """The Redis server refused our credentials (or needs some and got none)."""


class PoolURLError(PoolError, ConfigError):
    """A pool URL that cannot be used as written (a bad port, an unknown option, a bad name):
    an argument error (exit code 2 on the command line), never a traceback."""


class StoreError(CrawlerGuiError):
    """The page store cannot be opened or written."""


class StoreInUseError(StoreError):
    """Another process (or another ``PageStore``) has this page store open."""


class StoreWriteError(StoreError):
    """A write to the page store failed (an I/O error of our own disk, not a corrupt store)."""


class StoreCorruptError(StoreError):
    """A read of the page store met a damaged block (its checksum does not match): the
    message names the store and ``crawler-gui repair``; nothing was changed."""


class ReadOnlyError(PoolError, StoreError):
    """The folder of a pool (or of a page store) cannot be written: it is on a read-only file
    system, or this user may not write in it. LevelDB writes its lock and its log even to read
    a database, so nothing there can be opened; a copy in a writable place can. Decided by the
    error number the system gave (``EROFS``; ``EACCES``/``EPERM`` on a folder that cannot be
    written), never guessed from a failure to lock."""


class DiskFullError(CrawlerGuiError):
    """Our own disk (or quota) is full: the pool, the page store, a WARC or export file could
    not be written. Nothing already saved is lost; the write can be tried again once there is
    room. Never an attempt charged to a URL."""


#: How LevelDB (through plyvel) and the OS say that a disk or a quota is full.
_FULL_TEXTS = ("no space left", "disk quota exceeded", "enospc", "edquot")


def is_disk_full(exc: BaseException | None) -> bool:
    """True when ``exc`` (or an exception it was raised from) says the disk is full."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, DiskFullError):
            return True
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        args = getattr(exc, "args", ())
        text = args[0] if args else ""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        if any(t in str(text).lower() for t in _FULL_TEXTS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False
