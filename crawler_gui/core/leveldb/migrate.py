"""Key migration of a LevelDB pool to the current canonical URL form (pool schema 2).

The canonical URL is the pool's de-duplication key. Schema 1 pools were keyed by the form of the
hand-written canonicalizer (``urlsplit`` and IDNA 2003); schema 2 by the WHATWG URL Standard's
(``core/urls.py``): ``http://ß.de/`` is ``http://xn--zca.de/`` now, ``http://0x7f.1/`` is
``http://127.0.0.1/``, backslashes are slashes. Almost every key is the same in both forms;
the few that are not are moved, so that a URL found again after the upgrade is recognised and
never fetched twice under two spellings.

It stays crash-safe (a ``kill -9`` at any point leaves a pool that opens and migrates again)
by the loop it shares with the page store's migration (``rekey.py``): a synced marker first,
atomic batches, an idempotent canonical form, a fixed rule for records that meet. Then, once
any key moved, the host counters and waiting queues are rebuilt from the URL records
(``invariants.restore_invariants``, itself idempotent), and the schema version is raised only
at the very end, in the same batch that removes the marker.
"""

from __future__ import annotations

import functools
import logging
import struct
from pathlib import Path
from typing import Any

from crawler_gui.core.leveldb import layout
from crawler_gui.core.leveldb.db import open_db
from crawler_gui.core.leveldb.invariants import RepairReport, restore_invariants
from crawler_gui.core.leveldb.rekey import KeyKind, Progress, host_key, move_keys, url_key
from crawler_gui.core.pool_rules import spelling_rank
from crawler_gui.errors import PoolCorruptError, PoolVersionError

log = logging.getLogger(__name__)

#: Present while a migration is under way: ``keys`` (moving keys) or ``rebuild`` (a key moved:
#: the host counters and queues are rebuilt before the schema is raised).
K_MIGRATING = b"m/migrating"
#: Keys moved per atomic write batch.
BATCH = 2000


def needs_migration(db: Any, found_schema: int) -> bool:

    return found_schema < layout.SCHEMA_VERSION or db.get(K_MIGRATING) is not None


def migrate(db: Any, progress: Progress | None = None, *, fail_after: int | None = None) -> int:
    """Move every URL-keyed record of the open pool database ``db`` to its canonical key and
    raise the schema version. Returns the number of records moved. ``fail_after`` (tests)
    raises ``RuntimeError`` after that many batches were written, as a crash would stop it."""

    moved = migrate_keys(db, progress, fail_after=fail_after)
    if moved or db.get(K_MIGRATING) == b"rebuild":
        report = RepairReport(output=Path("."))
        if progress is not None:
            progress("host counters and queues", 0, 0)
        restore_invariants(db, report)
        if report.dropped:
            log.warning("pool migration dropped unreadable records: %s", dict(report.dropped))
    wb = db.write_batch()
    wb.delete(K_MIGRATING)
    wb.put(layout.K_SCHEMA, str(layout.SCHEMA_VERSION).encode())
    wb.write()
    db.put(layout.K_SCHEMA, str(layout.SCHEMA_VERSION).encode(), sync=True)
    return moved


def migrate_keys(
    db: Any, progress: Progress | None = None, *, fail_after: int | None = None
) -> int:
    """Step 1 of :func:`migrate`: move the keys, merging records that meet. Idempotent."""

    def kind(what: str, prefix: bytes) -> KeyKind:
        new_key = host_key if prefix == layout.P_HOST else url_key
        return KeyKind(what, prefix, new_key, functools.partial(_merge, prefix))

    kinds = (
        kind("URL records", layout.P_URL),
        kind("leases", layout.P_LEASE),
        kind("retry records", layout.P_RETRY),
        kind("hubs", layout.P_HUB),
        kind("refusals", layout.P_REFUSAL),
        kind("host records", layout.P_HOST),
    )
    return move_keys(
        db,
        kinds,
        marker=K_MIGRATING,
        name="pool migration",
        moved_marker=b"rebuild",
        progress=progress,
        batch=BATCH,
        fail_after=fail_after,
    )


def _merge(prefix: bytes, existing: bytes | None, incoming: bytes) -> bytes | None:
    """The value to keep under a canonical key that ``existing`` (or nothing) holds already,
    when the record ``incoming`` of an old spelling moves there; ``existing`` itself (the same
    object) when it stays."""

    if existing is None:
        return incoming
    if prefix == layout.P_URL:
        try:
            old = layout.read_url_record(existing)
            new = layout.read_url_record(incoming)
        except (ValueError, UnicodeDecodeError):
            return existing
        if spelling_rank(new[0].decode("ascii", "replace"), new[3]) > spelling_rank(
            old[0].decode("ascii", "replace"), old[3]
        ):
            return incoming
        return existing
    if prefix == layout.P_HOST:
        try:
            a, b = layout.Host("a"), layout.Host("b")
            a.unpack(existing)
            b.unpack(incoming)
        except struct.error:
            return existing
        a.min_delay = max(a.min_delay, b.min_delay)
        a.backoff_until = max(a.backoff_until, b.backoff_until)
        a.next_allowed = max(a.next_allowed, b.next_allowed)
        return a.pack()  # counters are recounted from the URL records afterwards
    return existing


def migrate_path(root: str | Path, progress: Progress | None = None) -> int | None:
    """Migrate the pool in folder ``root`` (``crawler-gui migrate``): ``None`` when it is
    current already, else the number of records moved. Opening a pool migrates it as well;
    this says how far it has got while it works."""
    db = open_db(Path(root) / layout.DB_DIRNAME, create=False)
    try:
        raw = db.get(layout.K_SCHEMA)
        try:
            found = int(raw or b"")
        except ValueError as exc:
            raise PoolCorruptError(f"{root}: not a crawler-gui pool (no schema version)") from exc
        if found > layout.SCHEMA_VERSION:
            raise PoolVersionError(f"{root} was written by a newer crawler-gui (schema {found})")
        if not needs_migration(db, found):
            return None
        return migrate(db, progress)
    finally:
        db.close()


__all__ = ["K_MIGRATING", "migrate", "migrate_keys", "migrate_path", "needs_migration"]
