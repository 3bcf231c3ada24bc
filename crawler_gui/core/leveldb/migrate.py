"""Key migration of a LevelDB pool to the current canonical URL form (pool schema 2).

The canonical URL is the pool's de-duplication key. Schema 1 pools were keyed by the form of the
hand-written canonicalizer (``urlsplit`` and IDNA 2003); schema 2 by the WHATWG URL Standard's
(``core/urls.py``): ``http://ß.de/`` is ``http://xn--zca.de/`` now, ``http://0x7f.1/`` is
``http://127.0.0.1/``, backslashes are slashes. Almost every key is the same in both forms;
the few that are not are moved, so that a URL found again after the upgrade is recognised and
never fetched twice under two spellings.

How it stays crash-safe (a ``kill -9`` at any point leaves a pool that opens and migrates
again):

1. ``m/migrating`` is written (synced) before the first change; the schema version is raised
   only at the very end, in the same batch that removes the marker.
2. Keys are moved in write batches, each atomic: the old key's removal and the new key's write
   land together or not at all. Canonicalizing is idempotent (a canonical URL is its own
   canonical form, ``tests/core/test_urls_wpt.py`` checks it), so a second run moves exactly
   what the first did not.
3. When two old keys meet in one new key, the records are merged by a fixed rule (the URL's
   furthest state wins), so a rerun makes the same choice.
4. Once any key moved, the host counters and waiting queues are rebuilt from the URL records
   (``invariants.restore_invariants``, itself idempotent), then the schema is raised.

A stored URL the standard now refuses (an over-long host label, say) keeps its key: it can
never meet a canonical key, and fetching it fails as any bad URL does.
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import plyvel

from crawler_gui.core.leveldb import layout
from crawler_gui.core.leveldb.invariants import RepairReport, restore_invariants
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError, PoolCorruptError, PoolInUseError, PoolVersionError

log = logging.getLogger(__name__)

#: Present while a migration is under way: ``keys`` (moving keys) or ``rebuild`` (a key moved:
#: the host counters and queues are rebuilt before the schema is raised).
K_MIGRATING = b"m/migrating"
#: Keys moved per atomic write batch.
BATCH = 2000
#: A stored URL is not refused for its length here (the limit is a policy of adds).
_NO_LIMIT = 1 << 30

#: Called with (what, records seen, records moved) every :data:`BATCH` records and at the end
#: of each kind.
Progress = Callable[[str, int, int], None]

# Which of two URL records for one canonical URL is kept: the further its state, the better
# (a done URL must not be fetched again because an alias of it was still waiting).
_STATE_RANK = {b"D": 4, b"X": 3, b"F": 2, b"R": 1, b"W": 0}


def _canonical(url: str) -> str | None:
    try:
        return canonicalize(url, max_length=_NO_LIMIT)[0]
    except InvalidURLError:
        return None


def _canonical_host(host: str) -> str | None:
    try:
        return canonicalize(f"http://{host}/", max_length=_NO_LIMIT)[1]
    except InvalidURLError:
        return None


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

    if db.get(K_MIGRATING) is None:
        db.put(K_MIGRATING, b"keys", sync=True)
    batches = 0
    total = 0
    kinds = (
        ("URL records", layout.P_URL),
        ("leases", layout.P_LEASE),
        ("retry records", layout.P_RETRY),
        ("hubs", layout.P_HUB),
        ("refusals", layout.P_REFUSAL),
        ("host records", layout.P_HOST),
    )
    for what, prefix in kinds:
        seen = moved = 0
        wb = db.write_batch()
        pending: dict[bytes, bytes | None] = {}  # new keys of the unwritten batch
        cut = len(prefix)
        with db.iterator(prefix=prefix) as it:
            for key, raw in it:
                seen += 1
                name = key[cut:].decode("utf-8", "replace")
                new = _canonical_host(name) if prefix == layout.P_HOST else _canonical(name)
                if new is not None and new != name:
                    new_key = prefix + new.encode()
                    existing = pending[new_key] if new_key in pending else db.get(new_key)
                    value = _merge(prefix, existing, raw)
                    wb.delete(key)
                    pending[key] = None
                    if value is not existing:
                        wb.put(new_key, value)
                        pending[new_key] = value
                    if total == 0 and moved == 0:
                        wb.put(K_MIGRATING, b"rebuild")
                    moved += 1
                if len(pending) >= BATCH or (seen % (BATCH * 10) == 0):
                    wb.write()
                    batches += 1
                    if fail_after is not None and batches >= fail_after:
                        raise RuntimeError("injected failure in the middle of a migration")
                    wb = db.write_batch()
                    pending.clear()
                    if progress is not None:
                        progress(what, seen, moved)
        wb.write()
        total += moved
        if progress is not None:
            progress(what, seen, moved)
        if moved:
            log.info("pool migration: %d of %d %s moved to the canonical form", moved, seen, what)
    return total


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
        # Furthest state first; then the lower sequence number (the older record), so the
        # choice does not depend on which spelling is met first.
        if (_STATE_RANK.get(new[0], -1), -new[3]) > (_STATE_RANK.get(old[0], -1), -old[3]):
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
    folder = Path(root) / layout.DB_DIRNAME
    try:
        db = plyvel.DB(str(folder), create_if_missing=False)
    except plyvel.IOError as exc:
        raise PoolInUseError(f"{root} is open in another crawler-gui process: stop it") from exc
    except plyvel.Error as exc:
        raise PoolCorruptError(f"{root}: the pool cannot be read ({exc})") from exc
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
