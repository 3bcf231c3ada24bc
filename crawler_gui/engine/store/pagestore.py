"""The page store itself: opening it (schema check, upgrade, URL-form migration), the buffered
writer (records appended on the loop, encoded and written in one batch in a worker thread,
in order) and closing it. Reading, hub state and listings are its parts in ``reads``,
``hubs`` and ``listings``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import plyvel

from crawler_gui.core.leveldb import database_state
from crawler_gui.core.leveldb.db import CheckedDB, folder_error, open_failure, read_only_error
from crawler_gui.engine import store_migrate
from crawler_gui.engine.store.hubs import HubHistory
from crawler_gui.engine.store.listings import Listings
from crawler_gui.engine.store.reads import StoreReads
from crawler_gui.engine.store.records import (
    _K_LISTED_COUNT,
    _K_SCHEMA,
    _P_ART,
    _P_BODY,
    _P_DETAIL,
    _P_HUB,
    _P_PAGE,
    _P_REF,
    _P_URL,
    _READABLE,
    _REF_OUTCOMES,
    AUTO_FLUSH_RECORDS,
    HUB_HISTORY,
    PAGES_DIRNAME,
    SCHEMA_VERSION,
    PageRecord,
    _Buffered,
    _compress,
    _Detail,
    _Extracted,
    _HubState,
    _Listed,
    _meta_json,
    json_bytes,
)
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    StoreCorruptError,
    StoreError,
    StoreInUseError,
    StoreWriteError,
    is_disk_full,
)

log = logging.getLogger(__name__)


def _log_migration(what: str, seen: int, moved: int) -> None:
    log.info("page store migration: %s: %d seen, %d moved", what, seen, moved)


def _error_text(exc: BaseException) -> str:
    """plyvel puts LevelDB's message in ``args[0]`` as bytes."""
    if exc.args and isinstance(exc.args[0], bytes):
        return exc.args[0].decode("utf-8", "replace")
    return str(exc)


def store_damaged(path: Path) -> Callable[[BaseException], CrawlerGuiError]:
    """The error of a damaged block met reading the page store ``path``: one line naming it and
    ``crawler-gui repair`` (of the pool or store folder that holds it)."""

    def damaged(exc: BaseException) -> CrawlerGuiError:
        return StoreCorruptError(
            f"the page store {path} is damaged ({_error_text(exc)}){_hint(path)}"
        )

    return damaged


def _hint(path: Path) -> str:
    """What to do about a damaged page store ``path``: the repair of the folder that holds it
    (a pool folder, or a Redis worker's store folder)."""
    return (
        f"; its files were left untouched. `crawler-gui repair {path.parent}` recovers what "
        "can be read into a copy"
    )


def open_leveldb(path: Path, *, create: bool = False) -> CheckedDB:
    """The page store's LevelDB, its reads verified (``core.leveldb.db.CheckedDB``). Bodies
    are zlib-compressed already: snappy on top would only cost CPU. Paranoid checks: a damaged
    log or table index is reported, never dropped in silence."""
    db = plyvel.DB(str(path), create_if_missing=create, paranoid_checks=True, compression=None)
    return CheckedDB(db, store_damaged(path))


def open_error(path: Path, exc: BaseException) -> CrawlerGuiError:
    """The clear error of a page store whose LevelDB could not be opened (an I/O error)."""
    text = _error_text(exc)
    kind = open_failure(exc, path)
    if kind == "in_use":
        return StoreInUseError(
            f"the page store {path} is in use by another crawl (another process or window has "
            "it open)"
        )
    if kind in ("read_only", "not_writable"):
        return read_only_error(f"the page store {path}", path, kind)
    if kind == "full":
        return DiskFullError(f"cannot open the page store {path}: the disk is full ({text})")
    return StoreError(f"cannot open the page store {path}: {text}")


def _write_error(path: Path, exc: BaseException) -> CrawlerGuiError:
    """The error for a failed write: the disk is full, or another I/O error (never "corrupt";
    a damaged block that the write's own reads met, as of a listing, is said as it is)."""
    if isinstance(exc, StoreCorruptError):
        return exc
    if is_disk_full(exc):
        return DiskFullError(f"the page store {path} cannot be written: the disk is full")
    return StoreWriteError(f"writing to the page store {path} failed: {_error_text(exc)}")


class PageStore(StoreReads, HubHistory, Listings):
    """Fetched pages, appended in fetch order. Open with :meth:`open`; close with
    :meth:`close` (or :meth:`aclose` from a coroutine, which also waits for running flushes).

    ``add``/``flush``/``get``/``count`` are called from one thread (the engine's loop); the
    actual writes happen in worker threads, serialised and in order.
    """

    def __init__(
        self,
        db: Any,
        path: Path,
        *,
        store_bodies: bool,
        next_seq: int,
        hub_history: int = HUB_HISTORY,
        listed_count: int = 0,
    ) -> None:
        self._db = db
        #: How many changed bodies of each hub are kept.
        self.hub_history = max(1, hub_history)
        #: Hub states read or written this session (one small dict per hub).
        self._hubs: dict[str, dict[str, Any]] = {}
        self._listed_count = listed_count
        self._listed_batch: set[bytes] = set()
        #: The listings added and not yet written (read before they are), bounded; entries
        #: leave once written (their URLs come back from the writer in ``_listed_written``).
        self._listed_cache: dict[str, dict[str, Any]] = {}
        self._listed_written: list[str] = []
        self.path = path
        self.store_bodies = store_bodies
        self._next_seq = next_seq
        self._buffer: list[tuple[int, _Buffered]] = []
        #: Sealed buffers waiting for a worker thread, oldest first.
        self._pending: list[list[tuple[int, _Buffered]]] = []
        #: The batches a worker thread is writing right now (still readable by ``get``).
        self._writing: list[list[tuple[int, _Buffered]]] = []
        #: Guards ``_pending`` and ``_writing``; held only for list operations, never for I/O,
        #: so ``add`` on the loop thread never waits for a write.
        self._list_lock = threading.Lock()
        #: Serialises writes (and closing the database).
        self._write_lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._failure: BaseException | None = None
        #: A write failed: reopen the database before the next one (``_drain``).
        self._reopen = False
        self._closed = False

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        directory: Path | str,
        *,
        store_bodies: bool = True,
        create: bool = True,
        hub_history: int = HUB_HISTORY,
    ) -> PageStore:
        """Open (with ``create``, making it if it is new) the page store LevelDB at
        ``directory``.

        Raises :class:`~crawler_gui.errors.StoreError` if another process (or another
        ``PageStore``) has it open, if it is corrupt or damaged (files but no ``CURRENT``: left
        untouched, never replaced by an empty store), or if it is not a page store of this
        schema version.
        """
        path = Path(directory)
        state = database_state(path)
        if state == "damaged":
            raise StoreError(
                f"the page store {path} is damaged ({path.name}/CURRENT is missing){_hint(path)}"
            )
        if state == "new" and not create:
            raise StoreError(f"there is no page store in {path}")
        if create:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                unwritable = folder_error(f"the page store {path}", path.parent.parent, exc)
                if unwritable is not None:
                    raise unwritable from exc
                raise StoreError(f"cannot create the page store directory {path}: {exc}") from exc
        try:
            db = open_leveldb(path, create=state == "new")
        except plyvel.IOError as exc:
            raise open_error(path, exc) from exc
        except plyvel.CorruptionError as exc:
            raise StoreCorruptError(
                f"the page store {path} is corrupt: {_error_text(exc)}{_hint(path)}"
            ) from exc
        except plyvel.Error as exc:
            raise StoreError(f"cannot open the page store {path}: {_error_text(exc)}") from exc
        try:
            version = db.get(_K_SCHEMA)
            if version is None:
                if next(db.iterator(include_value=False), None) is not None:
                    raise StoreError(f"{path} is not a crawler-gui page store")
                db.put(_K_SCHEMA, SCHEMA_VERSION, sync=True)
                store_migrate.mark_current(db)
            elif version in _READABLE and version != SCHEMA_VERSION:
                db.put(_K_SCHEMA, SCHEMA_VERSION, sync=True)
            elif version != SCHEMA_VERSION:
                raise StoreError(
                    f"the page store {path} has schema version "
                    f"{version.decode('ascii', 'replace')!r}; this program reads only "
                    f"version {SCHEMA_VERSION.decode()} (written by a newer crawler-gui?)"
                )
            if store_migrate.needs_migration(db):  # keys of an older URL form
                log.warning("page store %s: moving its keys to the current URL form", path)
                moved = store_migrate.migrate(db, _log_migration)
                log.warning("page store %s: %d keys moved", path, moved)
            last = next(db.iterator(prefix=_P_PAGE, reverse=True, include_value=False), None)
            next_seq = int.from_bytes(last[len(_P_PAGE) :], "big") + 1 if last else 1
            listed_count = int(db.get(_K_LISTED_COUNT) or b"0")
        except StoreError:
            db.close()
            raise
        except plyvel.Error as exc:
            db.close()
            if is_disk_full(exc):
                raise DiskFullError(
                    f"cannot open the page store {path}: the disk is full ({_error_text(exc)})"
                ) from exc
            raise StoreError(f"the page store {path} cannot be read: {_error_text(exc)}") from exc
        return cls(
            db,
            path,
            store_bodies=store_bodies,
            next_seq=next_seq,
            hub_history=hub_history,
            listed_count=listed_count,
        )

    @classmethod
    def open_in_pool(
        cls,
        pool_dir: Path | str,
        *,
        store_bodies: bool = True,
        create: bool = True,
        hub_history: int = HUB_HISTORY,
    ) -> PageStore:
        """Open the page store of a pool: ``<pool_dir>/pages/``."""
        return cls.open(
            Path(pool_dir) / PAGES_DIRNAME,
            store_bodies=store_bodies,
            create=create,
            hub_history=hub_history,
        )

    # -- writing -----------------------------------------------------------------------------

    def _check(self) -> None:
        if self._closed:
            raise StoreError("the page store is closed")
        if self._failure is not None:
            exc, self._failure = self._failure, None
            raise _write_error(self.path, exc) from exc

    def add(self, record: PageRecord) -> int:
        """Buffer one record (cheap); return its sequence number. Flushes by itself every
        :data:`AUTO_FLUSH_RECORDS`."""
        self._check()
        seq = self._next_seq
        self._buffer.append((seq, record))
        self._next_seq += 1
        self._maybe_flush()
        return seq

    def add_extraction(self, seq: int, extraction: dict[str, Any]) -> None:
        """Buffer the extraction (kind, why, article: ``Extraction.to_dict()``) of the page
        record ``seq``; it replaces an earlier one (re-extraction)."""
        self._check()
        self._buffer.append((seq, _Extracted(extraction)))
        self._maybe_flush()

    def add_detail(self, seq: int, detail: dict[str, Any]) -> None:
        """Buffer the fetch detail (:func:`make_detail`) of the page record ``seq``."""
        self._check()
        self._buffer.append((seq, _Detail(detail)))
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if len(self._buffer) >= AUTO_FLUSH_RECORDS:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.flush_sync()
            else:
                self._seal()
                # One background writer at a time: it takes every sealed batch on each turn,
                # so it never occupies more than one thread of the loop's default executor.
                if not self._tasks:
                    task = loop.create_task(self._background_flush())
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)

    def _seal(self) -> None:
        if self._buffer:
            batch, self._buffer = self._buffer, []
            with self._list_lock:
                self._pending.append(batch)

    def _has_pending(self) -> bool:
        with self._list_lock:
            return bool(self._pending)

    async def _background_flush(self) -> None:
        try:
            while self._has_pending() and not self._closed:
                await asyncio.to_thread(self._drain)
        except Exception as exc:  # kept and raised at the next call
            log.exception("page store flush failed")
            self._failure = exc

    async def flush(self) -> None:
        """Write everything buffered, in a worker thread; returns when it is on disk (in the
        OS's hands: LevelDB's log is not fsynced). With nothing buffered and nothing being
        written it returns at once: the crawl flushes before every commit of results, and
        about half of them (dead links, redirects) stored nothing; a trip to a worker thread
        for nothing cost the loop more than most writes."""
        self._check()
        self._seal()
        with self._list_lock:
            # (Only this thread seals batches: nothing can become pending after this look.
            # A batch a background write took is in ``_writing`` until it is on disk.)
            idle = not self._pending and not self._writing
        if idle:
            return
        try:
            await asyncio.to_thread(self._drain)
        except plyvel.Error as exc:
            raise _write_error(self.path, exc) from exc
        self._check()

    def flush_sync(self) -> None:
        """Write everything buffered, in this thread (for shutdown and non-async callers)."""
        self._check()
        self._seal()
        try:
            self._drain()
        except plyvel.Error as exc:
            raise _write_error(self.path, exc) from exc

    def _encode(self, seq: int, r: _Buffered) -> list[tuple[bytes, bytes | None]]:
        """The writes of one buffered item (a value of None deletes the key)."""
        key = seq.to_bytes(8, "big")
        if isinstance(r, _HubState):
            writes: list[tuple[bytes, bytes | None]] = [
                (_P_BODY + old.to_bytes(8, "big"), None) for old in r.drop
            ]
            writes.append((_P_HUB + r.url.encode("utf-8"), json_bytes(r.data)))
            return writes
        if isinstance(r, _Listed):
            return self._encode_listed(r)
        if isinstance(r, _Detail):
            refs = [
                (_P_REF + str(link[0]).encode("utf-8") + b"\x00" + key, b"")
                for link in r.data.get("links", ())
                if link[1] in _REF_OUTCOMES
            ]
            return [(_P_DETAIL + key, _compress(json_bytes(r.data))), *refs]
        if isinstance(r, _Extracted):
            return [(_P_ART + key, json_bytes(r.data))]
        out: list[tuple[bytes, bytes | None]] = [(_P_PAGE + key, _meta_json(r))]
        if self.store_bodies and r.body is not None:
            out.append((_P_BODY + key, _compress(r.body)))
        out.append((_P_URL + r.url.encode("utf-8"), key))
        if r.final_url != r.url:
            out.append((_P_URL + r.final_url.encode("utf-8"), key))
        return out

    def _drain(self) -> None:
        """Write all sealed batches, oldest first (runs in a worker thread or inline).

        The write lock keeps batches in order even when two worker threads race: whoever gets
        it takes everything sealed so far; the other then finds less (or nothing) to write.
        """
        with self._write_lock:
            with self._list_lock:
                if not self._pending:
                    return
                batches, self._pending = self._pending, []
                self._writing = batches
            listed = self._listed_count
            try:
                if self._reopen:
                    self._reopen_db()
                items: list[tuple[bytes, bytes | None]] = []
                self._listed_batch.clear()  # keys of this write batch (not yet readable)
                for batch in batches:
                    for seq, record in batch:
                        items.extend(self._encode(seq, record))
                if self._listed_count != listed:
                    items.append((_K_LISTED_COUNT, str(self._listed_count).encode("ascii")))
                with self._db.write_batch() as wb:
                    for key, value in items:
                        if value is None:
                            wb.delete(key)
                        else:
                            wb.put(key, value)
            except BaseException as exc:
                self._listed_count = listed
                if isinstance(exc, plyvel.Error):
                    # LevelDB would append the next batch after a half-written record of its
                    # log (a corrupt log at the next open): reopen before writing again.
                    self._reopen = True
                with self._list_lock:  # keep them for the next attempt (close retries)
                    self._pending = batches + self._pending
                    self._writing = []
                raise
            written = [
                url
                for batch in batches
                for _seq, record in batch
                if isinstance(record, _Listed)
                for url, _published, _updated in record.items
            ]
            with self._list_lock:
                self._writing = []
                self._listed_written.extend(written)

    def forget_failure(self) -> None:
        """The caller dealt with a failed background write (the crawl paused for a full disk
        and is resuming): do not raise it again. Its records are still pending and are
        written by the next flush."""
        self._failure = None

    def _reopen_db(self) -> None:
        """After a failed write: a fresh handle (LevelDB reads its log back up to the last
        whole record and starts a new one). Needs the write lock."""
        self._db.close()
        try:
            self._db = open_leveldb(self.path)
        except plyvel.Error:
            # Still no room to reopen: a handle again for reads (its writes stay blocked).
            self._db = open_leveldb(self.path)
            raise
        self._reopen = False
        log.info("the page store %s was reopened after a failed write", self.path)

    @property
    def closed(self) -> bool:
        return self._closed

    async def aclose(self) -> None:
        """Wait for background flushes, write the rest off-thread, and close."""
        if self._closed:
            return
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._seal()
        try:
            await asyncio.to_thread(self._drain)
        except plyvel.Error as exc:
            self._failure = exc  # close() closes the database and raises it
        self.close()

    def close(self) -> None:
        """Flush what is buffered and close the database. Idempotent."""
        if self._closed:
            return
        try:
            self._seal()
            self._drain()
        except plyvel.Error as write_exc:
            self._failure = self._failure or write_exc
        finally:
            self._closed = True
            with self._write_lock:
                self._db.close()
        if self._failure is not None:
            exc, self._failure = self._failure, None
            raise _write_error(self.path, exc) from exc

    def __enter__(self) -> PageStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            with contextlib.suppress(Exception):
                self.close()
