"""Moving the URL-keyed records of a LevelDB database to the current canonical URL form: the
resumable loop that the pool's migration (``migrate.py``) and the page store's
(``engine/store_migrate.py``) share. Each says which keys it holds and how two records that
meet under one new key are merged; the loop does the rest, the same way for both:

1. A marker key is written (synced) before the first change; the caller removes it at the very
   end, in the batch that records the new form.
2. Keys move in write batches, each atomic: the old key's removal and the new key's write (and
   whatever a merge changes beside them) land together or not at all. Canonicalizing is
   idempotent (a canonical URL is its own canonical form, ``tests/core/test_urls_wpt.py``
   checks it), so a run stopped anywhere (``kill -9``) is finished by the next, which moves
   exactly what the first did not.
3. Two old keys that meet in one new key are merged by the caller's fixed rule, so a rerun
   makes the same choice.

A stored URL the standard now refuses (an over-long host label, say) keeps its key: it can
never meet a canonical key, and fetching it fails as any bad URL does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError

log = logging.getLogger(__name__)

#: Keys moved per atomic write batch (unless the caller says otherwise).
BATCH = 2000
#: A stored URL is not refused for its length here (the limit is a policy of adds).
_NO_LIMIT = 1 << 30

#: Called with (what, keys seen, keys moved) every :data:`BATCH` keys and at the end of each
#: kind.
Progress = Callable[[str, int, int], None]


def canonical_url(url: str) -> str | None:
    """The canonical form of a stored URL, or None when the standard refuses it."""
    try:
        return canonicalize(url, max_length=_NO_LIMIT)[0]
    except InvalidURLError:
        return None


def canonical_host(host: str) -> str | None:
    """The canonical form of a stored host name, or None when the standard refuses it."""
    try:
        return canonicalize(f"http://{host}/", max_length=_NO_LIMIT)[1]
    except InvalidURLError:
        return None


def url_key(rest: bytes) -> bytes | None:
    """The new rest of a key that is a URL after its prefix (None: it stays)."""
    name = rest.decode("utf-8", "replace")
    new = canonical_url(name)
    return None if new is None or new == name else new.encode("utf-8")


def host_key(rest: bytes) -> bytes | None:
    """The new rest of a key that is a host name after its prefix (None: it stays)."""
    name = rest.decode("utf-8", "replace")
    new = canonical_host(name)
    return None if new is None or new == name else new.encode("utf-8")


@dataclass(frozen=True, slots=True)
class KeyKind:
    """One kind of record keyed by URL (or host): its keys start with ``prefix``."""

    #: What the progress callback and the log call these records.
    what: str
    prefix: bytes
    #: The key after its prefix -> the new rest of the key, or None when it stays.
    new_key: Callable[[bytes], bytes | None]
    #: ``keep(existing, incoming)``: the value the new key keeps when the record ``incoming``
    #: of an old spelling moves there and the key holds ``existing`` (or nothing: None);
    #: ``existing`` itself (the same object) when it stays.
    keep: Callable[[bytes | None, bytes], bytes | None]
    #: Called with the write batch when a moved record was dropped for the one its new key
    #: held (a count to lower in the same batch).
    dropped: Callable[[Any], None] | None = None


def move_keys(
    db: Any,
    kinds: Sequence[KeyKind],
    *,
    marker: bytes,
    name: str,
    moved_marker: bytes | None = None,
    progress: Progress | None = None,
    batch: int = BATCH,
    fail_after: int | None = None,
) -> int:
    """Move every record of ``kinds`` in the open database ``db`` (plyvel) to its canonical
    key, merging records that meet. Idempotent. Returns the number of records moved.

    ``marker`` is written (``b"keys"``, synced) first unless present; ``moved_marker``, when
    given, is written to it in the batch of the first move (a caller with more to do after a
    move: the pool rebuilds its counters). ``name`` heads the log lines. ``fail_after``
    (tests) raises ``RuntimeError`` after that many batches were written, as a crash would
    stop it. ``batch``: records moved per write batch."""
    if db.get(marker) is None:
        db.put(marker, b"keys", sync=True)
    batches = 0
    total = 0
    for kind in kinds:
        prefix = kind.prefix
        seen = moved = 0
        wb = db.write_batch()
        pending: dict[bytes, bytes | None] = {}  # keys of the unwritten batch
        cut = len(prefix)
        with db.iterator(prefix=prefix) as it:
            for key, raw in it:
                seen += 1
                rest = kind.new_key(key[cut:])
                if rest is not None:
                    new_key = prefix + rest
                    existing = pending[new_key] if new_key in pending else db.get(new_key)
                    value = kind.keep(existing, raw)
                    wb.delete(key)
                    pending[key] = None
                    if value is not existing:
                        wb.put(new_key, value)
                        pending[new_key] = value
                    elif kind.dropped is not None:
                        kind.dropped(wb)
                    if moved_marker is not None and total == 0 and moved == 0:
                        wb.put(marker, moved_marker)
                    moved += 1
                if len(pending) >= batch or seen % (batch * 10) == 0:
                    wb.write()
                    batches += 1
                    if fail_after is not None and batches >= fail_after:
                        raise RuntimeError("injected failure in the middle of a migration")
                    wb = db.write_batch()
                    pending.clear()
                    if progress is not None:
                        progress(kind.what, seen, moved)
        wb.write()
        total += moved
        if progress is not None:
            progress(kind.what, seen, moved)
        if moved:
            log.info("%s: %d of %d %s moved to the canonical form", name, moved, seen, kind.what)
    return total


__all__ = [
    "BATCH",
    "KeyKind",
    "Progress",
    "canonical_host",
    "canonical_url",
    "host_key",
    "move_keys",
    "url_key",
]
