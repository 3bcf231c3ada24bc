"""Opening a LevelDB pool's database, and LevelDB's errors as the project's errors.

A database is made only where none was (a folder that is missing or holds nothing but a lock
and an info log); one whose metadata is missing is refused and left untouched, as are the
leftovers of a snapshot load that a crash interrupted (:func:`recover_interrupted_load`).

Every read verifies the checksums of the blocks it reads (:class:`CheckedDB`, also used by
the page store): LevelDB's default reads hand a damaged block's bytes over as they are, and a
changed value reached the decoders (a ``UnicodeDecodeError`` deep in an export). Why an open
failed is decided by the error number LevelDB's message carries (:func:`open_failure`): a
lock another process holds is "in use", a read-only file system or a folder this user may
not write is said as such.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import plyvel

from crawler_gui.core.leveldb.layout import DB_DIRNAME
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    PoolCorruptError,
    PoolError,
    PoolInUseError,
    ReadOnlyError,
    is_disk_full,
)

#: What a LevelDB directory may hold before a database is made in it: its lock and info log.
_NOT_DATA = frozenset({"LOCK", "LOG", "LOG.old"})


def database_state(path: Path) -> str:
    """``"new"`` (missing, or nothing but a lock and an info log), ``"ok"`` (has ``CURRENT``)
    or ``"damaged"`` (files but no ``CURRENT``: never make a database over them)."""
    try:
        names = {p.name for p in path.iterdir()}
    except FileNotFoundError:
        return "new"
    except NotADirectoryError:
        return "damaged"
    if not names - _NOT_DATA:
        return "new"
    return "ok" if "CURRENT" in names else "damaged"


def error_text(exc: BaseException) -> str:
    """plyvel puts LevelDB's message in ``args[0]`` as bytes."""
    if exc.args and isinstance(exc.args[0], bytes):
        return exc.args[0].decode("utf-8", "replace")
    return str(exc)


def repair_hint(root: Path) -> str:
    return (
        f"; its files were left untouched. `crawler-gui repair {root}` recovers what can be "
        "read into a copy"
    )


# ---- why an open failed ----------------------------------------------------------------------
#: LevelDB says an I/O error as ``IO error: <what>: <strerror(errno)>``, made by this process's
#: C library, as ``os.strerror`` is: the text names the error number exactly.
_ERRNO_OF_TEXT = {os.strerror(number): number for number in errno.errorcode}
#: What a lock request answers when another process holds the lock (``fcntl``'s F_SETLK).
_LOCK_HELD = frozenset({errno.EAGAIN, errno.EACCES})
#: Opening or making a file fails with these where the folder cannot be written.
_NOT_WRITABLE = frozenset({errno.EACCES, errno.EPERM})


def leveldb_errno(exc: BaseException) -> int | None:
    """The error number of a LevelDB I/O error, from the ``strerror`` text that ends it."""
    return _ERRNO_OF_TEXT.get(error_text(exc).rpartition(": ")[2])


def open_failure(exc: BaseException, folder: Path) -> str | None:
    """Why LevelDB could not open the database in ``folder``, by the error's kind: ``"in_use"``
    (its lock is held: by another process, as ``fcntl`` answers, or by another database object
    of this one, as LevelDB's own lock table says), ``"read_only"`` (the file system is
    read-only), ``"not_writable"`` (no permission to write in the folder: ``EACCES`` or
    ``EPERM``, and the folder is not writable), ``"full"`` (no space), or None (something
    else)."""
    text = error_text(exc)
    number = leveldb_errno(exc)
    if text.startswith("IO error: lock "):
        if text.endswith(": already held by process") or number in _LOCK_HELD:
            return "in_use"
        return None  # (such as ENOLCK: a file system without locks)
    if number == errno.EROFS:
        return "read_only"
    if number in _NOT_WRITABLE and not os.access(folder, os.W_OK):
        return "not_writable"
    if is_disk_full(exc):
        return "full"
    return None


def _unwritable(kind: str, folder: Path) -> str:
    if kind == "read_only":
        return "the file system is read-only"
    return f"{folder} cannot be written (no permission)"


def read_only_error(what: str, folder: Path, kind: str) -> ReadOnlyError:
    """One line for a pool or page store (``what``) that cannot be opened because its
    ``folder`` cannot be written (``kind`` is :func:`open_failure`'s)."""
    return ReadOnlyError(
        f"{what} cannot be opened: {_unwritable(kind, folder)} (LevelDB writes its lock and "
        "log even to read a database); nothing was written. Copy the folder to a writable "
        "place and open the copy"
    )


def folder_error(
    what: str, folder: Path, exc: OSError, hint: str = "give a folder in a writable place"
) -> CrawlerGuiError | None:
    """The clear error for making ``what`` in ``folder`` that failed with ``exc`` when its
    error number says the place cannot be written (``EROFS``; ``EACCES``/``EPERM``), with
    ``hint``; None for any other failure."""
    if exc.errno == errno.EROFS:
        kind = "read_only"
    elif exc.errno in _NOT_WRITABLE:
        kind = "not_writable"
    else:
        return None
    return ReadOnlyError(f"cannot make {what}: {_unwritable(kind, folder)}; {hint}")


# ---- reads that verify -----------------------------------------------------------------------
class CheckedDB:
    """A plyvel database whose every read verifies the checksums of the table blocks it reads
    (``verify_checksums``; blocks already in the block cache were verified when read), and
    says a mismatch as ``damaged(exc)``: its owner's clear error, naming its database and
    ``crawler-gui repair``. Writes and everything else are the database's own.

    LevelDB's default reads (and paranoid checks, which cover the log and a table's index,
    not its data blocks) hand a damaged block's bytes over as they are: a changed value reached
    the decoders as a ``UnicodeDecodeError`` or worse. Verifying costs a CRC32C of each block
    read from the disk, under 1 % of a crawl's CPU (``docs/storage.md``)."""

    __slots__ = ("_damaged", "_db")

    def __init__(self, db: Any, damaged: Callable[[BaseException], CrawlerGuiError]) -> None:
        self._db = db
        self._damaged = damaged

    @property
    def raw(self) -> Any:
        """The plyvel database itself (for LevelDB's own tools)."""
        return self._db

    def get(self, key: bytes, default: Any = None) -> Any:
        try:
            return self._db.get(key, default, verify_checksums=True)
        except plyvel.CorruptionError as exc:
            raise self._damaged(exc) from exc

    def iterator(self, **kwargs: Any) -> CheckedIterator:
        return CheckedIterator(self._db, kwargs, self._damaged)

    def snapshot(self) -> CheckedSnapshot:
        return CheckedSnapshot(self._db.snapshot(), self._damaged)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class CheckedSnapshot:
    """A LevelDB snapshot whose reads verify checksums (:class:`CheckedDB`)."""

    __slots__ = ("_damaged", "_snap")

    def __init__(self, snap: Any, damaged: Callable[[BaseException], CrawlerGuiError]) -> None:
        self._snap = snap
        self._damaged = damaged

    def get(self, key: bytes, default: Any = None) -> Any:
        try:
            return self._snap.get(key, default, verify_checksums=True)
        except plyvel.CorruptionError as exc:
            raise self._damaged(exc) from exc

    def iterator(self, **kwargs: Any) -> CheckedIterator:
        return CheckedIterator(self._snap, kwargs, self._damaged)

    def close(self) -> None:
        self._snap.close()

    def __enter__(self) -> CheckedSnapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self._snap.close()


class CheckedIterator:
    """A LevelDB iterator (over a :class:`CheckedDB` or its snapshot) whose damaged block is
    its owner's clear error.

    plyvel raises a damaged block met in the middle of a forward iteration, but not one that
    ends it: LevelDB skips the block and keeps the error, and plyvel stops at the end without
    asking for it (the range came out short, in silence). So a forward iteration that ends
    looks once more past its last key, with a raw iterator, whose seek does ask: a damaged
    block there is the error. Keys are needed for that (``include_key`` stays on)."""

    __slots__ = ("_damaged", "_forward", "_it", "_keys_only", "_last", "_owner", "_start")

    def __init__(
        self, owner: Any, kwargs: dict[str, Any], damaged: Callable[[BaseException], Any]
    ) -> None:
        if not kwargs.get("include_key", True):
            raise ValueError("a checked iterator yields keys (include_key=False is not offered)")
        self._owner = owner
        self._damaged = damaged
        self._it = owner.iterator(verify_checksums=True, **kwargs)
        self._forward = not kwargs.get("reverse", False)
        self._start: bytes = kwargs.get("start") or kwargs.get("prefix") or b""
        self._keys_only = not kwargs.get("include_value", True)
        self._last: bytes | None = None

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            item = next(self._it)
        except StopIteration:
            if self._forward:
                self._check_the_rest()
            raise
        except plyvel.CorruptionError as exc:
            raise self._damaged(exc) from exc
        self._last = item if self._keys_only else item[0]
        return item

    def _check_the_rest(self) -> None:
        """The iteration ended: no damaged block where it would have gone on."""
        at = self._start if self._last is None else self._last + b"\x00"
        raw = self._owner.raw_iterator(verify_checksums=True, fill_cache=False)
        try:
            raw.seek(at)
        except plyvel.CorruptionError as exc:
            raise self._damaged(exc) from exc
        finally:
            raw.close()

    def close(self) -> None:
        self._it.close()

    def __enter__(self) -> CheckedIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self._it.close()


def pool_damaged(root: Path) -> Callable[[BaseException], CrawlerGuiError]:
    """The error of a damaged block met reading the pool in ``root``."""

    def damaged(exc: BaseException) -> CrawlerGuiError:
        return PoolCorruptError(
            f"the pool {root} is damaged ({DB_DIRNAME}/: {error_text(exc)}){repair_hint(root)}"
        )

    return damaged


def open_db(path: Path, *, create: bool = True) -> CheckedDB:
    root = path.parent
    state = database_state(path)
    if state == "damaged":
        raise PoolCorruptError(
            f"the pool {root} is damaged: {path.name}/CURRENT is missing{repair_hint(root)}"
        )
    if state == "new" and not create:
        raise PoolCorruptError(f"{root} holds no crawler-gui pool ({path.name}/ is missing)")
    try:
        db = plyvel.DB(
            str(path),
            create_if_missing=state == "new",
            # Corruption (a damaged write-ahead log, a bad table block) is an error, never
            # dropped in silence.
            paranoid_checks=True,
            bloom_filter_bits=10,
            lru_cache_size=8 * 1024 * 1024,
            write_buffer_size=16 * 1024 * 1024,
            compression="snappy",
        )
    except plyvel.IOError as exc:
        raise _open_error(root, path, exc) from exc
    except plyvel.CorruptionError as exc:
        raise PoolCorruptError(
            f"the pool {root} is corrupt: {error_text(exc)}{repair_hint(root)}"
        ) from exc
    except plyvel.Error as exc:
        raise PoolCorruptError(
            f"cannot open the pool {root}: {error_text(exc)}{repair_hint(root)}"
        ) from exc
    return CheckedDB(db, pool_damaged(root))


def _open_error(root: Path, path: Path, exc: BaseException) -> CrawlerGuiError:
    """The clear error of a pool whose database LevelDB could not open (an I/O error)."""
    text = error_text(exc)
    kind = open_failure(exc, path)
    if kind == "in_use":
        return PoolInUseError(
            f"the pool {root} is already open in another crawler-gui process "
            "(or another window); close that one first"
        )
    if kind in ("read_only", "not_writable"):
        return read_only_error(f"the pool {root}", path, kind)
    if kind == "full":
        return DiskFullError(f"cannot open the pool {root}: the disk is full ({text})")
    if leveldb_errno(exc) is not None:  # the system refused something else: not our files
        return PoolError(f"cannot open the pool {root}: {text}")
    return PoolCorruptError(f"cannot open the pool {root}: {text}{repair_hint(root)}")


def recover_interrupted_load(root: Path) -> None:
    """A crash during a snapshot load's directory swap leaves one of these states."""
    live, old, staging = (
        root / DB_DIRNAME,
        root / (DB_DIRNAME + ".old"),
        root / (DB_DIRNAME + ".loading"),
    )
    if not live.exists() and old.exists():
        if staging.exists() and (staging / "CURRENT").exists() and (staging / ".complete").exists():
            staging.rename(live)
        else:
            old.rename(live)
    if old.exists() and live.exists():
        shutil.rmtree(old, ignore_errors=True)
    if staging.exists():
        shutil.rmtree(staging, ignore_errors=True)
