"""Snapshot files of a LevelDB pool: saving one from a consistent view of the database,
loading one into a staging database that is swapped in whole.

A save runs in a worker thread over a LevelDB snapshot (the crawl goes on); closing the pool
or cancelling the save stops it at its next record. A load validates every record while it
writes the staging database (``snapshot_records.py``: the same checks as the Redis pool's),
so a bad file leaves the pool as it was; the swap itself (two renames) is finished by the
next open if the process dies in it (``db.recover_interrupted_load``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import struct
import threading
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import plyvel

from crawler_gui.core import snapshot_file
from crawler_gui.core.frontier import referrer_of, unpack_retry
from crawler_gui.core.leveldb.layout import (
    DB_DIRNAME,
    K_SCHEMA,
    K_SEQ,
    P_HOST,
    P_HUB,
    P_RETRY,
    P_URL,
    SCHEMA_VERSION,
    SEQ,
    STATE_NAMES,
    D,
    F,
    Host,
    Hub,
    R,
    W,
    X,
    queue_key,
    queue_value,
    read_url_record,
    url_record,
)
from crawler_gui.core.snapshot_records import HostRecord, HubRecord, UrlRecord, read_records
from crawler_gui.errors import PoolBusyError, SnapshotError, SnapshotFormatError

if TYPE_CHECKING:
    from crawler_gui.core.leveldb.database import PoolDatabase

log = logging.getLogger(__name__)


async def save(pool: PoolDatabase, path: str | Path, scope: Iterable[str] = ()) -> int:
    """Write the whole pool to a snapshot file, in a worker thread, from a consistent
    LevelDB snapshot. Cancelled, the thread stops at its next record and removes its
    temporary file; closing the pool stops it first too (it reads the database)."""
    pool._check_open()
    target = Path(path)
    if not str(path).strip():
        raise SnapshotError("a snapshot needs a file name (an empty one was given)")
    resolved, root = target.expanduser().resolve(), pool.path.resolve()
    if resolved == root or root in resolved.parents:
        raise SnapshotError(
            f"{path} is inside the pool {pool.path}: save the snapshot somewhere else"
        )
    leases = {url for url, entry in pool._sched.leases.items() if not entry[0].is_hub}
    stop, done = threading.Event(), threading.Event()
    snap = pool._db.snapshot()

    def all_records() -> Generator[dict[str, Any], None, None]:
        yield from snapshot_file.scope_records(scope)
        yield from export_records(snap, leases, stop)

    records = all_records()

    def work() -> int:
        try:
            return snapshot_file.write_snapshot(target, records)
        finally:
            records.close()  # its iterators end here, in the thread that used them
            done.set()

    reader = (stop, done)
    pool._readers.append(reader)
    future = asyncio.get_running_loop().run_in_executor(None, work)

    def finished(f: asyncio.Future[int] | None = None) -> None:
        if f is not None and not f.cancelled():
            f.exception()  # a cancelled save's "stopped": expected, nobody to tell
        if reader in pool._readers:
            pool._readers.remove(reader)
        snap.close()

    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        stop.set()
        # The thread stops at its next record and removes its temporary file: a
        # cancelled save has left nothing behind when it returns.
        with contextlib.suppress(BaseException):  # (its "stopped" error)
            await asyncio.shield(future)
        raise
    finally:
        if future.done():
            finished()
        else:  # cancelled again while it stopped: released when the thread has stopped
            future.add_done_callback(finished)


async def load(pool: PoolDatabase, path: str | Path) -> int:
    """Replace the pool's contents with the snapshot file ``path`` (validated and written into
    a staging database first, then swapped in by two renames): see ``Frontier.load_snapshot``."""
    pool._check_open()
    if pool._sched.leases:
        raise PoolBusyError(
            f"{len(pool._sched.leases)} URLs are in flight; "
            "stop the crawl before loading a snapshot"
        )
    staging = pool.path / (DB_DIRNAME + ".loading")
    pool._loading = True  # until the swap is done, every other call gets PoolBusyError
    try:
        count = await asyncio.to_thread(build_staging, Path(path), staging)
        # Swap the databases with two renames; reopen and clean up off the loop thread.
        # From here on the swap runs to its end even if the caller is cancelled: a pool
        # left between two databases would hold a closed one.
        pool._db.close()
        swap = asyncio.ensure_future(asyncio.to_thread(_swap_in, pool, staging))
        try:
            fresh = await asyncio.shield(swap)
        except asyncio.CancelledError:
            fresh = await swap
            pool._take_over(fresh)
            raise
        pool._take_over(fresh)
        old = pool.path / (DB_DIRNAME + ".old")
        await asyncio.to_thread(shutil.rmtree, old, True)
    finally:
        pool._loading = False
    log.info("loaded %d records from snapshot %s", count, path)
    return count


def _swap_in(pool: PoolDatabase, staging: Path) -> PoolDatabase:
    live = pool.path / DB_DIRNAME
    old = pool.path / (DB_DIRNAME + ".old")
    live.rename(old)
    staging.rename(live)
    snapshot_file.fsync_dir(pool.path)  # the renames survive a power cut
    return type(pool).open(pool.path, pool.config, pool.clock)


def export_records(
    snap: Any, leases: set[str], stop: threading.Event | None = None
) -> Generator[dict[str, Any], None, None]:
    """Every record of a pool as snapshot dicts, from a consistent LevelDB snapshot. Raises
    SnapshotError as soon as ``stop`` is set (the pool is closing, the save was cancelled)."""

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    halt = SnapshotError("the snapshot save was stopped")
    with snap.iterator(prefix=P_HOST) as it:
        for key, raw in it:
            if stopped():
                raise halt
            h = Host(key[len(P_HOST) :].decode())
            h.unpack(raw)
            if h.min_delay or h.backoff_until or h.paused or h.user_delay >= 0:
                yield snapshot_file.host_record(
                    h.name, h.min_delay, h.backoff_until, h.paused, h.user_delay
                )
    with snap.iterator(prefix=P_HUB) as it:
        for key, raw in it:
            if stopped():
                raise halt
            rec = snapshot_file.loads(raw)
            yield {
                "t": "hub",
                "url": key[len(P_HUB) :].decode(),
                "span": rec["span"],
                "last_refresh": rec["last"],
                "last_result": rec["result"],
                "due": rec["due"],
                **{k: rec[k] for k in ("crashes", "fails", "parked", "rate") if rec.get(k)},
            }
    with snap.iterator(prefix=P_RETRY) as it:
        retry = {key[len(P_RETRY) :].decode(): snapshot_file.loads(raw) for key, raw in it}
    with snap.iterator(prefix=P_URL) as it:
        for key, raw in it:
            if stopped():
                raise halt
            url = key[len(P_URL) :].decode()
            state, depth, attempts, seq, t, extra = read_url_record(raw)
            out: dict[str, Any] = {
                "t": "url",
                "url": url,
                "state": STATE_NAMES[state],
                "depth": depth,
                "attempts": attempts,
                "seq": seq,
                "time": t,
            }
            if state == X:
                out["target"] = extra
            elif referrer_of(extra):
                out["referrer"] = referrer_of(extra)
            if state == R and url in retry:
                out["next_try"] = retry[url]["n"]
                out["last_error"] = unpack_retry(str(retry[url]["e"])).message
            if url in leases:
                out["state"] = "waiting"  # in flight when saved: fetched again after a load
            yield out


def build_staging(src: Path, staging: Path) -> int:
    """Validate a snapshot file and write it into a fresh database at ``staging``."""
    if staging.exists():
        shutil.rmtree(staging)
    db = plyvel.DB(
        str(staging),
        create_if_missing=True,
        error_if_exists=True,
        bloom_filter_bits=10,
        compression="snappy",
    )
    ok = False
    try:
        hosts: dict[str, Host] = {}
        max_seq = 0
        count = 0
        wb = db.write_batch()
        pending_ops = 0
        in_batch: set[str] = set()  # URLs of the unwritten batch; earlier ones are in the db
        for rec in read_records(src):
            count += 1
            if isinstance(rec, UrlRecord):
                url, hostname, state = rec.url, rec.host, rec.state.encode()
                depth, attempts, seq, extra = rec.depth, rec.attempts, rec.seq, rec.extra
                max_seq = max(max_seq, seq)
                h = hosts.get(hostname) or hosts.setdefault(hostname, Host(hostname))
                ukey = P_URL + url.encode()
                if url in in_batch or db.get(ukey) is not None:
                    raise SnapshotFormatError(f"the snapshot holds {url} twice")
                in_batch.add(url)
                wb.put(ukey, url_record(state, depth, attempts, seq, rec.time, extra))
                if state == W:
                    wb.put(queue_key(hostname, depth, seq), queue_value(url, attempts, extra))
                    h.waiting += 1
                elif state == D:
                    h.done += 1
                elif state == F:
                    h.failed += 1
                elif state == X:
                    h.redirected += 1
                else:
                    h.retrying += 1
                    wb.put(
                        P_RETRY + url.encode(),
                        snapshot_file.dumps(
                            {"a": attempts, "e": rec.last_error, "n": rec.next_try}
                        ),
                    )
            elif isinstance(rec, HubRecord):
                hosts.setdefault(rec.host, Host(rec.host))
                hub = Hub(rec.url, rec.host, rec.span)
                hub.last_refresh = rec.last_refresh
                hub.last_result = rec.last_result
                hub.due = rec.due
                hub.crashes, hub.fails, hub.parked, hub.rate = (
                    rec.crashes,
                    rec.fails,
                    rec.parked,
                    rec.rate,
                )
                wb.put(P_HUB + rec.url.encode(), snapshot_file.dumps(hub.to_json()))
            elif isinstance(rec, HostRecord):
                h = hosts.get(rec.host) or hosts.setdefault(rec.host, Host(rec.host))
                h.min_delay = rec.min_delay
                h.backoff_until = rec.backoff_until
                h.paused, h.user_delay = rec.paused, rec.user_delay
            # (a ScopeRecord is the crawl's, not the pool's: kept by the caller)
            pending_ops += 1
            if pending_ops >= 20000:
                wb.write()
                wb = db.write_batch()
                pending_ops = 0
                in_batch.clear()
        for h in hosts.values():
            wb.put(P_HOST + h.name.encode(), h.pack())
        wb.put(K_SEQ, SEQ.pack(max_seq))
        wb.put(K_SCHEMA, str(SCHEMA_VERSION).encode())
        wb.write()
        # One synced write: LevelDB fsyncs its log, which holds everything not yet in its
        # (already synced) tables: the staged database is on the disk before the swap.
        db.put(K_SCHEMA, str(SCHEMA_VERSION).encode(), sync=True)
        ok = True
    except (KeyError, TypeError, ValueError, struct.error) as exc:
        if isinstance(exc, SnapshotFormatError):
            raise
        raise SnapshotFormatError(f"{src}: a record is malformed ({exc!r})") from exc
    finally:
        db.close()
        if not ok:
            shutil.rmtree(staging, ignore_errors=True)
    marker = staging / ".complete"
    with open(marker, "wb") as f:
        os.fsync(f.fileno())
    snapshot_file.fsync_dir(staging)
    return count
