"""Key migration of a page store to the current canonical URL form (the pool's schema 2).

The page store keys four things by URL: ``url/<url>`` (the latest record of a URL), ``hub/<url>``
(a hub's validators and body history), ``listed/<url>`` (what a feed said of an article) and
``ref/<url>\\x00<seq>`` (the pages that link to a URL). The crawl looks them up by the pool's
canonical URL, so when the canonical form changed (``core/leveldb/migrate.py``: the WHATWG URL
Standard's form since pool schema 2) a key written under an old spelling was no longer found:
the hub lost its validators (a full refresh) and its body history, the article its feed dates.
These keys are moved like the pool's, crash-safely, by the loop the two migrations share
(``core/leveldb/rekey.py``):

1. ``meta/migrating`` is written (synced) before the first change; ``meta/url_form`` is written
   at the very end, in the batch that removes the marker. A store made since has it from the
   start.
2. Keys move in write batches, each atomic (the old key's removal with the new key's write,
   and the listing count with a listing dropped). Canonicalizing is idempotent, so a second run
   moves what the first did not.
3. Two spellings that meet in one key keep, by a fixed rule: the latest record (``url/``), the
   hub state with the latest body (``hub/``), the listing already there (``listed/``).

Page records themselves (``page/<seq>``) keep the URLs they were fetched under: they say what
was fetched.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

from crawler_gui.core.leveldb.rekey import KeyKind, Progress, canonical_url, move_keys, url_key

#: The URL form of the keys: "2" (the WHATWG form). Absent in a store made before it.
K_URL_FORM = b"meta/url_form"
URL_FORM = b"2"
#: Present while a migration is under way.
K_MIGRATING = b"meta/migrating"
K_LISTED_COUNT = b"meta/listed_count"
P_URL = b"url/"
P_HUB = b"hub/"
P_LISTED = b"listed/"
P_REF = b"ref/"
#: Keys moved per atomic write batch.
BATCH = 2000


def needs_migration(db: Any) -> bool:
    return db.get(K_URL_FORM) != URL_FORM or db.get(K_MIGRATING) is not None


def mark_current(db: Any) -> None:
    """A new store: its keys are in the current form from the start."""
    db.put(K_URL_FORM, URL_FORM, sync=True)


def _ref_key(rest: bytes) -> bytes | None:
    """The new rest of a ``ref/`` key: the referred URL, then NUL and a sequence number."""
    url, sep, tail = rest.rpartition(b"\x00")
    name = url.decode("utf-8", "replace")
    new = canonical_url(name)
    return None if new is None or new == name else new.encode("utf-8") + sep + tail


def _hub_latest(raw: bytes) -> int:
    try:
        state = json.loads(raw)
        return max((int(s) for s in state.get("bodies", ())), default=0)
    except (ValueError, TypeError, AttributeError):
        return -1


def _keep(prefix: bytes, existing: bytes | None, incoming: bytes) -> bytes | None:
    """The value a canonical key keeps when ``incoming`` (an old spelling's) moves there;
    ``existing`` itself (the same object) when it stays."""
    if existing is None:
        return incoming
    if prefix == P_URL:  # the latest record of the URL
        return (
            incoming
            if int.from_bytes(incoming, "big") > int.from_bytes(existing, "big")
            else existing
        )
    if prefix == P_HUB:  # the state that knows the latest body
        return incoming if _hub_latest(incoming) > _hub_latest(existing) else existing
    return existing  # listed/: the listing already kept; ref/: the same empty value


def migrate(db: Any, progress: Progress | None = None, *, fail_after: int | None = None) -> int:
    """Move every URL-keyed key of the open page store database ``db`` to its canonical form
    and mark the store current. Returns the number of keys moved. ``fail_after`` (tests)
    raises ``RuntimeError`` after that many batches were written, as a crash would stop it."""
    listed_count = int(db.get(K_LISTED_COUNT) or b"0")

    def listing_dropped(wb: Any) -> None:  # two listings became one
        nonlocal listed_count
        listed_count -= 1
        wb.put(K_LISTED_COUNT, str(max(0, listed_count)).encode("ascii"))

    total = move_keys(
        db,
        (
            KeyKind("page URLs", P_URL, url_key, partial(_keep, P_URL)),
            KeyKind("hub states", P_HUB, url_key, partial(_keep, P_HUB)),
            KeyKind("listings", P_LISTED, url_key, partial(_keep, P_LISTED), listing_dropped),
            KeyKind("referrers", P_REF, _ref_key, partial(_keep, P_REF)),
        ),
        marker=K_MIGRATING,
        name="page store migration",
        progress=progress,
        batch=BATCH,
        fail_after=fail_after,
    )
    wb = db.write_batch()
    wb.delete(K_MIGRATING)
    wb.put(K_URL_FORM, URL_FORM)
    wb.write()
    db.put(K_URL_FORM, URL_FORM, sync=True)
    return total


def migrate_path(folder: str | Path, progress: Progress | None = None) -> int | None:
    """Migrate the page store in ``folder`` (``crawler-gui migrate``): ``None`` when there is
    none or it is current already, else the number of keys moved. Opening a page store
    migrates it as well; this says how far it has got while it works."""
    import plyvel

    from crawler_gui.engine.store.pagestore import open_error, open_leveldb

    path = Path(folder)
    if not (path / "CURRENT").exists():
        return None
    try:
        db = open_leveldb(path)
    except plyvel.Error as exc:
        raise open_error(path, exc) from exc
    try:
        if not needs_migration(db):
            return None
        return migrate(db, progress)
    finally:
        db.close()
