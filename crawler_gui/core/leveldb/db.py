"""Opening a LevelDB pool's database, and LevelDB's errors as the project's errors.

A database is made only where none was (a folder that is missing or holds nothing but a lock
and an info log); one whose metadata is missing is refused and left untouched, as are the
leftovers of a snapshot load that a crash interrupted (:func:`recover_interrupted_load`).
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import plyvel

from crawler_gui.core.leveldb.layout import DB_DIRNAME
from crawler_gui.errors import DiskFullError, PoolCorruptError, PoolInUseError, is_disk_full

_F = TypeVar("_F", bound=Callable[..., Any])


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


def open_db(path: Path, *, create: bool = True) -> Any:
    root = path.parent
    state = database_state(path)
    if state == "damaged":
        raise PoolCorruptError(
            f"the pool {root} is damaged: {path.name}/CURRENT is missing{repair_hint(root)}"
        )
    if state == "new" and not create:
        raise PoolCorruptError(f"{root} holds no crawler-gui pool ({path.name}/ is missing)")
    try:
        return plyvel.DB(
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
        text = error_text(exc)
        if "lock" in text.lower():
            raise PoolInUseError(
                f"the pool {root} is already open in another crawler-gui process "
                "(or another window); close that one first"
            ) from exc
        if is_disk_full(exc):
            raise DiskFullError(f"cannot open the pool {root}: the disk is full ({text})") from exc
        raise PoolCorruptError(f"cannot open the pool {root}: {text}{repair_hint(root)}") from exc
    except plyvel.CorruptionError as exc:
        raise PoolCorruptError(
            f"the pool {root} is corrupt: {error_text(exc)}{repair_hint(root)}"
        ) from exc
    except plyvel.Error as exc:
        raise PoolCorruptError(
            f"cannot open the pool {root}: {error_text(exc)}{repair_hint(root)}"
        ) from exc


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


def reads_checked(method: _F) -> _F:
    """A damaged table met while crawling (a queue or URL record in a bad block) is a clear
    PoolCorruptError, not a LevelDB exception."""

    @functools.wraps(method)
    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except plyvel.CorruptionError as exc:
            raise PoolCorruptError(
                f"the pool {self.path} is corrupt: {error_text(exc)}{repair_hint(self.path)}"
            ) from exc

    return checked  # type: ignore[return-value]
