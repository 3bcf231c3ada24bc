"""The page store: every fetched page's metadata (and, optionally, its body) in an embedded
LevelDB of its own, normally ``<pool_dir>/pages/``.

Key layout (also in ``docs/storage.md``, "Page store"):

* ``meta/schema_version`` -> ``b"4"`` (an older store is upgraded in place, nothing
  rewritten: 2 added ``art/``, 3 added ``hub/``, ``listed/`` and ``meta/listed_count``, 4 added
  ``fx/`` and ``ref/``; pages stored before 4 have no fetch detail)
* ``page/<seq>`` -> compact JSON metadata (UTF-8); ``<seq>`` is 8 bytes big-endian, from 1
* ``body/<seq>`` -> the zlib-compressed body (absent when bodies are not stored)
* ``url/<url>`` -> ``<seq>`` of the latest record fetched for that URL; written for both the
  requested URL and the final URL after redirects
* ``art/<seq>`` -> the page's extraction (kind, why, article), JSON; absent until extracted
* ``hub/<url>`` -> a hub's refresh state, JSON: its validators (``etag``, ``last_modified``)
  for conditional refreshes, the content hash of its last stored body, the sequence numbers of
  the records that carry its last bodies (bounded history), and counts of unchanged and
  not-modified refreshes
* ``listed/<url>`` -> what a feed or sitemap said of an article it listed, JSON: ``published``
  and ``updated`` (POSIX seconds or null) and ``via`` (the feed); the first listing is kept.
  At most :data:`MAX_LISTED` entries (``meta/listed_count`` counts them).
* ``fx/<seq>`` -> what the fetch saw beyond the page record (schema 4): request and response
  headers, how the encoding was decided, the out-links and what became of each (zlib-compressed
  JSON, bounded:
  :data:`MAX_DETAIL_LINKS` links, :data:`MAX_HEADERS` headers of :data:`MAX_HEADER_CHARS`)
* ``ref/<url>\x00<seq>`` -> empty: page ``<seq>`` links to ``<url>`` (the referrers of a page;
  one key per out-link in the crawl's scope kept in ``fx/``)
* ``meta/url_form`` -> ``b"2"``: the URLs of ``url/``, ``hub/``, ``listed/``, ``ref/`` keys are in
  the pool's schema 2 form (a store without it has them moved when opened: ``store_migrate.py``)

Writes are buffered: :meth:`PageStore.add` only appends to a list. :meth:`PageStore.flush`
encodes and writes the buffer in one ``write_batch`` in a worker thread, so the event loop
never waits on zlib or the disk. When the buffer reaches :data:`AUTO_FLUSH_RECORDS` records
``add`` starts that flush itself (as a task when called from a running event loop, inline
otherwise).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import plyvel

from crawler_gui.core.leveldb import database_state
from crawler_gui.engine import store_migrate
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    StoreError,
    StoreInUseError,
    StoreWriteError,
    is_disk_full,
)

__all__ = [
    "AUTO_FLUSH_RECORDS",
    "MAX_DETAIL_LINKS",
    "PAGES_DIRNAME",
    "SCHEMA_VERSION",
    "PageRecord",
    "PageRow",
    "PageStore",
    "make_detail",
]

log = logging.getLogger(__name__)

SCHEMA_VERSION = b"4"
#: Versions this program opens (1 lacks ``art/``, 2 lacks ``hub/`` and ``listed/``, 3 lacks
#: ``fx/`` and ``ref/``: no record changes shape, so opening upgrades by writing the new version
#: number only).
_READABLE = (b"1", b"2", b"3", b"4")
#: Name of the page store's directory inside a pool directory.
PAGES_DIRNAME = "pages"
#: ``add`` starts a flush when this many records are buffered.
AUTO_FLUSH_RECORDS = 200

_K_SCHEMA = b"meta/schema_version"
_P_PAGE = b"page/"
_P_BODY = b"body/"
_P_URL = b"url/"
_P_ART = b"art/"
_P_HUB = b"hub/"
_P_LISTED = b"listed/"
_K_LISTED_COUNT = b"meta/listed_count"
#: How many changed bodies of one hub are kept (older ones are deleted as new ones come).
HUB_HISTORY = 5
#: At most this many ``listed/`` entries (feed and sitemap dates of articles) are kept: a
#: crawl of days over sitemaps of millions of URLs must not grow the store without bound.
MAX_LISTED = 1_000_000
#: Listings kept in memory for reading before they are written.
_LISTED_CACHE = 50_000
_P_DETAIL = b"fx/"
_P_REF = b"ref/"
#: Out-links kept per page in its ``fx/`` record (the rest are counted, not listed).
MAX_DETAIL_LINKS = 200
#: The out-link outcomes that get a ``ref/`` key (links in the crawl's scope: the pages that
#: link to a page of the crawl; off-scope links, often most of a page's, get none).
_REF_OUTCOMES = frozenset({"queued", "known", "queued_or_known", "refused", "robots"})
#: Headers kept per request or response, and characters kept of each value.
MAX_HEADERS = 100
MAX_HEADER_CHARS = 2000
# Level 1: nearly the ratio of level 6 on HTML at a third of the CPU (benchmarks/crawl.py).
_ZLIB_LEVEL = 1


@dataclass(frozen=True, slots=True)
class PageRecord:
    """One fetch of one page."""

    url: str
    final_url: str
    status: int
    #: POSIX seconds.
    fetched_at: float
    content_type: str
    encoding: str
    title: str
    depth: int
    #: Raw body size in bytes (as received, before any store compression).
    size: int
    #: Response time in seconds.
    elapsed: float
    referrer: str | None
    #: ``((url, status), ...)`` of the redirects followed before ``final_url``.
    redirect_chain: tuple[tuple[str, int], ...]
    body: bytes | None = None


def _meta_json(r: PageRecord) -> bytes:
    meta = {
        "url": r.url,
        "final_url": r.final_url,
        "status": r.status,
        "fetched_at": r.fetched_at,
        "content_type": r.content_type,
        "encoding": r.encoding,
        "title": r.title,
        "depth": r.depth,
        "size": r.size,
        "elapsed": r.elapsed,
        "referrer": r.referrer,
        "redirect_chain": [[u, s] for u, s in r.redirect_chain],
    }
    return json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _record_from(meta_bytes: bytes, body: bytes | None) -> PageRecord:
    m: dict[str, Any] = json.loads(meta_bytes)
    return PageRecord(
        url=m["url"],
        final_url=m["final_url"],
        status=int(m["status"]),
        fetched_at=float(m["fetched_at"]),
        content_type=m["content_type"],
        encoding=m["encoding"],
        title=m["title"],
        depth=int(m["depth"]),
        size=int(m["size"]),
        elapsed=float(m["elapsed"]),
        referrer=m["referrer"],
        redirect_chain=tuple((str(u), int(s)) for u, s in m["redirect_chain"]),
        body=body,
    )


@dataclass(frozen=True, slots=True)
class _Extracted:
    """A buffered extraction of the record with the same sequence number."""

    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _HubState:
    """A buffered hub state (``hub/<url>``); ``drop`` lists body records to delete (the
    history's oldest, past its bound)."""

    url: str
    data: dict[str, Any]
    drop: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class _Listed:
    """Buffered feed/sitemap dates: ``(url, published, updated)`` as listed by ``via``."""

    via: str
    items: tuple[tuple[str, float | None, float | None], ...]


@dataclass(frozen=True, slots=True)
class _Detail:
    """A buffered fetch detail (``fx/``) of the record with the same sequence number."""

    data: dict[str, Any]


_Buffered = PageRecord | _Extracted | _HubState | _Listed | _Detail


def _bounded_headers(headers: Any) -> list[list[str]]:
    out: list[list[str]] = []
    for key, value in list(headers or ())[:MAX_HEADERS]:
        out.append([str(key)[:200], str(value)[:MAX_HEADER_CHARS]])
    return out


def make_detail(
    *,
    request_headers: Any = (),
    response_headers: Any = (),
    decided_by: str = "",
    links: Any = (),
) -> dict[str, Any]:
    """A page's fetch detail as stored in ``fx/``: headers as ``[name, value]`` pairs,
    ``decided_by`` (how the encoding was chosen: ``engine.decode.DECIDED_BY``), and
    ``links``: ``[url, outcome, reason]`` for each out-link (outcome ``queued``, ``known``,
    ``queued_or_known``, ``off_scope``, ``refused``, ``robots``, ``not_followed``), the first
    :data:`MAX_DETAIL_LINKS` of them; ``links_total`` counts them all."""
    kept: list[list[str]] = []
    total = 0
    for item in links:
        total += 1
        if len(kept) < MAX_DETAIL_LINKS:
            url, outcome, reason = item
            kept.append([str(url), str(outcome), str(reason or "")])
    return {
        "request_headers": _bounded_headers(request_headers),
        "response_headers": _bounded_headers(response_headers),
        "decided_by": decided_by,
        "links": kept,
        "links_total": total,
    }


@dataclass(frozen=True, slots=True)
class PageRow:
    """One row of the Pages pane: a stored fetch and its extraction's kind ("" if none)."""

    seq: int
    record: PageRecord
    kind: str


#: The article fields of an export record, in order.
ARTICLE_FIELDS = ("title", "published", "updated", "authors", "lang", "text", "zone_inferred")


def export_fields(ex: dict[str, Any] | None) -> dict[str, Any]:
    """The extraction part of a page's export record: ``kind`` (``None`` while not extracted),
    ``why``, ``article`` (``None`` unless an article), ``article_url``, ``part``, ``js_only``."""
    if ex is None:
        return {"kind": None, "why": None, "article": None}
    art = ex.get("article")
    out: dict[str, Any] = {
        "kind": ex.get("kind"),
        "why": ex.get("why"),
        "article": {k: art.get(k) for k in ARTICLE_FIELDS} if isinstance(art, dict) else None,
    }
    if ex.get("article_url"):
        out["article_url"] = ex["article_url"]
        out["part"] = ex.get("part", 1)
    if ex.get("js_only"):
        out["js_only"] = True
    return out


def _log_migration(what: str, seen: int, moved: int) -> None:
    log.info("page store migration: %s: %d seen, %d moved", what, seen, moved)


def _error_text(exc: BaseException) -> str:
    """plyvel puts LevelDB's message in ``args[0]`` as bytes."""
    if exc.args and isinstance(exc.args[0], bytes):
        return exc.args[0].decode("utf-8", "replace")
    return str(exc)


def _write_error(path: Path, exc: BaseException) -> CrawlerGuiError:
    """The error for a failed write: the disk is full, or another I/O error (never "corrupt")."""
    if is_disk_full(exc):
        return DiskFullError(f"the page store {path} cannot be written: the disk is full")
    return StoreWriteError(f"writing to the page store {path} failed: {_error_text(exc)}")


def _keep_validators(state: dict[str, Any], headers: Mapping[str, str] | None) -> None:
    """The ``ETag`` and ``Last-Modified`` of a response into a hub's state (a response
    without them forgets the old ones: the server no longer offers conditional requests)."""
    if headers is None:
        return
    state["etag"] = headers.get("ETag") or ""
    state["last_modified"] = headers.get("Last-Modified") or ""


def _iso(ts: float) -> str:
    text = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


class PageStore:
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
                f"the page store {path} is damaged ({path.name}/CURRENT is missing); its files "
                "were left untouched"
            )
        if state == "new" and not create:
            raise StoreError(f"there is no page store in {path}")
        if create:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the page store directory {path}: {exc}") from exc
        try:
            # Bodies are zlib-compressed already; snappy on top would only cost CPU. Paranoid
            # checks: a damaged log or table is reported, never dropped in silence.
            db = plyvel.DB(
                str(path),
                create_if_missing=state == "new",
                paranoid_checks=True,
                compression=None,
            )
        except plyvel.IOError as exc:
            text = _error_text(exc)
            if "already held" in text or "temporarily unavailable" in text:
                raise StoreInUseError(
                    f"the page store {path} is in use by another crawl (another process or "
                    f"window has it open)"
                ) from exc
            if is_disk_full(exc):
                raise DiskFullError(
                    f"cannot open the page store {path}: the disk is full ({text})"
                ) from exc
            raise StoreError(f"cannot open the page store {path}: {text}") from exc
        except plyvel.CorruptionError as exc:
            raise StoreError(f"the page store {path} is corrupt: {_error_text(exc)}") from exc
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

    def detail(self, seq: int) -> dict[str, Any] | None:
        """The fetch detail of record ``seq`` (flushed records only); ``None`` for a page
        stored before schema 4 (or by a crawl that did not record it)."""
        raw = self._db.get(_P_DETAIL + seq.to_bytes(8, "big"))
        return json.loads(zlib.decompress(raw)) if raw is not None else None

    def record_at(self, seq: int, *, with_body: bool = True) -> PageRecord | None:
        """The written record ``seq`` (with its body when stored and asked for), or None."""
        key = seq.to_bytes(8, "big")
        meta = self._db.get(_P_PAGE + key)
        if meta is None:
            return None
        body = self._db.get(_P_BODY + key) if with_body else None
        return _record_from(meta, zlib.decompress(body) if body is not None else None)

    def seq_of(self, url: str) -> int | None:
        """The sequence number of the latest written record of ``url`` (requested or final)."""
        key = self._db.get(_P_URL + url.encode("utf-8"))
        return int.from_bytes(key, "big") if key is not None else None

    def referrers(self, url: str, limit: int = 200) -> list[int]:
        """Sequence numbers of written pages that link to ``url`` (newest first, at most
        ``limit``), from the out-links recorded since schema 4."""
        prefix = _P_REF + url.encode("utf-8") + b"\x00"
        out: list[int] = []
        for key in self._db.iterator(prefix=prefix, reverse=True, include_value=False):
            out.append(int.from_bytes(key[len(prefix) :], "big"))
            if len(out) >= limit:
                break
        return out

    def last_written_seq(self) -> int:
        """The newest written record's sequence number (0 for none)."""
        last = next(self._db.iterator(prefix=_P_PAGE, reverse=True, include_value=False), None)
        return int.from_bytes(last[len(_P_PAGE) :], "big") if last else 0

    def newest(
        self,
        limit: int,
        *,
        before: int | None = None,
        accept: Any = None,
        scan_limit: int = 50_000,
        after: int = 0,
    ) -> tuple[list[PageRow], int | None]:
        """Written records, newest first: at most ``limit`` rows with ``seq < before``, each
        kept when ``accept(row)`` is true (all when None). Reads at most ``scan_limit`` records,
        so a filter that matches little answers in bounded time; returns the rows and where to
        go on from (``before`` of the next call), None at the oldest record. ``after`` stops
        at that sequence number (only newer rows: a live list's new rows). For a worker
        thread: reads only what is on disk."""
        rows: list[PageRow] = []
        stop = _P_PAGE + (before.to_bytes(8, "big") if before is not None else b"\xff" * 8)
        scanned = 0
        last_seq: int | None = None
        with self._db.snapshot() as snap:
            # Just past ``after``'s key, not at ``after + 1``'s: plyvel's reverse iterator
            # yields nothing when the one key in its range is its ``start`` (a store of one
            # page listed none).
            start = _P_PAGE + after.to_bytes(8, "big") + b"\x00"
            it = snap.iterator(start=start, stop=stop, reverse=True)
            for key, meta in it:
                k = key[len(_P_PAGE) :]
                last_seq = int.from_bytes(k, "big")
                scanned += 1
                art = snap.get(_P_ART + k)
                kind = ""
                if art is not None:
                    kind = str(json.loads(art).get("kind") or "")
                row = PageRow(last_seq, _record_from(meta, None), kind)
                if accept is None or accept(row):
                    rows.append(row)
                if len(rows) >= limit or scanned >= scan_limit:
                    break
            else:
                return rows, None
        return rows, (last_seq if last_seq is not None and last_seq > 1 else None)

    def iter_rows_from(self, after: int, limit: int) -> list[tuple[PageRow, dict[str, Any] | None]]:
        """Up to ``limit`` written records with ``seq > after``, oldest first, each with its
        extraction (None if none yet): what the search indexer reads (worker thread)."""
        out: list[tuple[PageRow, dict[str, Any] | None]] = []
        with self._db.snapshot() as snap:
            start = _P_PAGE + (after + 1).to_bytes(8, "big")
            for key, meta in snap.iterator(start=start, stop=_P_PAGE + b"\xff" * 8):
                k = key[len(_P_PAGE) :]
                raw = snap.get(_P_ART + k)
                ex = json.loads(raw) if raw is not None else None
                kind = str(ex.get("kind") or "") if ex else ""
                out.append((PageRow(int.from_bytes(k, "big"), _record_from(meta, None), kind), ex))
                if len(out) >= limit:
                    break
        return out

    def extraction(self, seq: int) -> dict[str, Any] | None:
        """The stored extraction of record ``seq`` (flushed records only), or None."""
        raw = self._db.get(_P_ART + seq.to_bytes(8, "big"))
        return json.loads(raw) if raw is not None else None

    def iter_seq_records(
        self, *, with_body: bool = True, only_unextracted: bool = False
    ) -> Iterator[tuple[int, PageRecord]]:
        """``(seq, record)`` for every record, oldest first (buffered ones flushed first);
        ``only_unextracted`` skips records that have an extraction."""
        self.flush_sync()
        with self._db.snapshot() as snap:
            for key, meta in snap.iterator(prefix=_P_PAGE):
                k = key[len(_P_PAGE) :]
                if only_unextracted and snap.get(_P_ART + k) is not None:
                    continue
                body = None
                if with_body:
                    raw = snap.get(_P_BODY + k)
                    body = zlib.decompress(raw) if raw is not None else None
                yield int.from_bytes(k, "big"), _record_from(meta, body)

    # -- hubs: validators, changed bodies only, bounded history (``hub/<url>``) --------------

    def hub_state(self, url: str) -> dict[str, Any]:
        """The refresh state of hub ``url`` (empty for a hub never fetched)."""
        state = self._hubs.get(url)
        if state is None:
            if self._closed:
                raise StoreError("the page store is closed")
            raw = self._db.get(_P_HUB + url.encode("utf-8"))
            state = json.loads(raw) if raw is not None else {}
            self._hubs[url] = state
        return state

    def hub_validators(self, url: str) -> dict[str, str]:
        """The conditional request headers for refreshing hub ``url``: ``If-None-Match`` and
        ``If-Modified-Since`` from the ``ETag`` and ``Last-Modified`` of its last fetch."""
        state = self.hub_state(url)
        headers: dict[str, str] = {}
        if state.get("etag"):
            headers["If-None-Match"] = state["etag"]
        if state.get("last_modified"):
            headers["If-Modified-Since"] = state["last_modified"]
        return headers

    def add_hub_fetch(self, record: PageRecord, headers: Mapping[str, str] | None) -> int:
        """Store one fetch of a hub: the record always (its fetch noted), its body only when
        the body's content hash differs from the last stored one; the last
        :attr:`hub_history` changed bodies are kept, older ones deleted. The response's
        validators are kept for the next, conditional, refresh. Returns the sequence number."""
        state = dict(self.hub_state(record.url))
        _keep_validators(state, headers)
        body = record.body
        drop: tuple[int, ...] = ()
        if body is not None and self.store_bodies:
            digest = hashlib.blake2b(body, digest_size=16).hexdigest()
            if digest == state.get("hash") and state.get("bodies"):
                record = replace(record, body=None)
                state["unchanged"] = int(state.get("unchanged", 0)) + 1
            else:
                state["hash"] = digest
                state["changed"] = int(state.get("changed", 0)) + 1
        seq = self.add(record)
        if record.body is not None and self.store_bodies:
            bodies = [*state.get("bodies", ()), seq]
            cut = max(0, len(bodies) - self.hub_history)
            drop, state["bodies"] = tuple(bodies[:cut]), bodies[cut:]
        state["fetched_at"] = record.fetched_at
        self._put_hub(record.url, state, drop)
        return seq

    def note_not_modified(
        self, url: str, fetched_at: float, headers: Mapping[str, str] | None
    ) -> None:
        """A conditional refresh of hub ``url`` answered ``304 Not Modified``: nothing is
        stored but the count and the time (and validators the answer may renew)."""
        state = dict(self.hub_state(url))
        _keep_validators(state, headers)
        state["not_modified"] = int(state.get("not_modified", 0)) + 1
        state["fetched_at"] = fetched_at
        self._put_hub(url, state, ())

    def _put_hub(self, url: str, state: dict[str, Any], drop: tuple[int, ...]) -> None:
        self._check()
        self._hubs[url] = state
        self._buffer.append((0, _HubState(url, dict(state), drop)))
        self._maybe_flush()

    def hub_bodies(self, url: str) -> list[tuple[int, bytes]]:
        """The stored bodies of hub ``url`` (``(seq, body)``, oldest first; flushed only)."""
        out = []
        for seq in self.hub_state(url).get("bodies", ()):
            raw = self._db.get(_P_BODY + int(seq).to_bytes(8, "big"))
            if raw is not None:
                out.append((int(seq), zlib.decompress(raw)))
        return out

    def hub_body_as_of(self, url: str, seq: int) -> bytes | None:
        """The body hub ``url`` had at its fetch ``seq`` (flushed only): a refresh that found
        the same body again stored none, it is the last changed body stored before it. None
        when that body is no longer kept (older than the hub's history) or ``url`` is no hub."""
        kept = [int(s) for s in self.hub_state(url).get("bodies", ()) if int(s) <= seq]
        if not kept:
            return None
        raw = self._db.get(_P_BODY + max(kept).to_bytes(8, "big"))
        return zlib.decompress(raw) if raw is not None else None

    # -- feed and sitemap dates of the articles they list (``listed/<url>``) -----------------

    def add_listed(self, via: str, items: Iterable[tuple[str, float | None, float | None]]) -> None:
        """Keep what feed or sitemap ``via`` says of articles it lists: ``(url, published,
        updated)`` (POSIX seconds or None). The first listing of a URL is kept; items without
        a date are not stored; at most :data:`MAX_LISTED` URLs in all."""
        dated = tuple(item for item in items if item[1] is not None or item[2] is not None)
        self._forget_written_listings()
        if dated:
            self._check()
            cache = self._listed_cache
            for url, published, updated in dated:
                if url not in cache:
                    cache[url] = {"published": published, "updated": updated, "via": via}
            if len(cache) > _LISTED_CACHE:
                # The newest three quarters kept, in a new dict, at once: deleting the oldest
                # one by one cost seconds for a sitemap of 50,000 new URLs (each first key is
                # found past the slots of every key deleted before it).
                drop = len(cache) - _LISTED_CACHE * 3 // 4
                self._listed_cache = dict(itertools.islice(cache.items(), drop, None))
            self._buffer.append((0, _Listed(via, dated)))
            self._maybe_flush()

    def _forget_written_listings(self) -> None:
        """Drop from the cache the listings written since the last call: the database answers
        for them now (a feed lists the same URLs at every refresh; kept here, they only took
        memory, up to the cache's bound, which a crawl reaches after days)."""
        with self._list_lock:
            written, self._listed_written = self._listed_written, []
        cache = self._listed_cache
        for url in written:
            cache.pop(url, None)

    @property
    def listed_in_memory(self) -> int:
        """Listings held in memory for reading (those not yet written)."""
        self._forget_written_listings()
        return len(self._listed_cache)

    def _encode_listed(self, r: _Listed) -> list[tuple[bytes, bytes | None]]:
        out: list[tuple[bytes, bytes | None]] = []
        seen = self._listed_batch
        for url, published, updated in r.items:
            key = _P_LISTED + url.encode("utf-8")
            if key in seen or self._db.get(key) is not None:
                continue
            if self._listed_count >= MAX_LISTED:
                break
            seen.add(key)
            self._listed_count += 1
            data = {"published": published, "updated": updated, "via": r.via}
            out.append((key, json.dumps(data, separators=(",", ":")).encode("utf-8")))
        return out

    def listed(self, url: str) -> dict[str, Any] | None:
        """What a feed or sitemap said of ``url`` (``published``, ``updated``, ``via``), or
        None."""
        raw = self._db.get(_P_LISTED + url.encode("utf-8"))
        if raw is not None:
            return json.loads(raw)  # type: ignore[no-any-return]
        return self._listed_cache.get(url)  # listed lately, not written yet

    def has_listings(self) -> bool:
        """Whether any feed or sitemap listed a page (on disk or not yet written)."""
        return self._listed_count > 0 or bool(self._listed_cache)

    def listed_count(self) -> int:
        """How many ``listed/`` entries are on disk."""
        return self._listed_count

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
        OS's hands: LevelDB's log is not fsynced)."""
        self._check()
        self._seal()
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
            data = json.dumps(r.data, ensure_ascii=False, separators=(",", ":"))
            writes.append((_P_HUB + r.url.encode("utf-8"), data.encode("utf-8")))
            return writes
        if isinstance(r, _Listed):
            return self._encode_listed(r)
        if isinstance(r, _Detail):
            data = json.dumps(r.data, ensure_ascii=False, separators=(",", ":"))
            refs = [
                (_P_REF + str(link[0]).encode("utf-8") + b"\x00" + key, b"")
                for link in r.data.get("links", ())
                if link[1] in _REF_OUTCOMES
            ]
            packed = zlib.compress(data.encode("utf-8"), _ZLIB_LEVEL)
            return [(_P_DETAIL + key, packed), *refs]
        if isinstance(r, _Extracted):
            data = json.dumps(r.data, ensure_ascii=False, separators=(",", ":"))
            return [(_P_ART + key, data.encode("utf-8"))]
        out: list[tuple[bytes, bytes | None]] = [(_P_PAGE + key, _meta_json(r))]
        if self.store_bodies and r.body is not None:
            out.append((_P_BODY + key, zlib.compress(r.body, _ZLIB_LEVEL)))
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
            self._db = plyvel.DB(str(self.path), paranoid_checks=True, compression=None)
        except plyvel.Error:
            # Still no room to reopen: a handle again for reads (its writes stay blocked).
            self._db = plyvel.DB(str(self.path), paranoid_checks=True, compression=None)
            raise
        self._reopen = False
        log.info("the page store %s was reopened after a failed write", self.path)

    # -- reading -----------------------------------------------------------------------------

    def count(self) -> int:
        """Number of records added (stored or still buffered)."""
        return self._next_seq - 1

    def _unwritten(self, url: str) -> PageRecord | None:
        for seq_record in reversed(self._buffer):
            r = seq_record[1]
            if isinstance(r, PageRecord) and url in (r.url, r.final_url):
                return r
        with self._list_lock:
            for batch in (*reversed(self._pending), *reversed(self._writing)):
                for _seq, r in reversed(batch):
                    if isinstance(r, PageRecord) and url in (r.url, r.final_url):
                        return r
        return None

    def get(self, url: str) -> PageRecord | None:
        """The latest record fetched for ``url`` (requested or final URL), with its body if
        stored; ``None`` if never fetched."""
        if self._closed:
            raise StoreError("the page store is closed")
        r = self._unwritten(url)
        if r is not None:
            if not self.store_bodies and r.body is not None:
                return replace(r, body=None)
        else:
            # Not buffered, pending nor being written: it is in the database (or nowhere).
            key = self._db.get(_P_URL + url.encode("utf-8"))
            if key is None:
                return None
            meta = self._db.get(_P_PAGE + key)
            body = self._db.get(_P_BODY + key)
            if meta is None:
                return None
            r = _record_from(meta, zlib.decompress(body) if body is not None else None)
        if r.body is None and self.store_bodies:
            # A hub refreshed with the same body again: its body is the last one stored.
            bodies = self.hub_state(r.url).get("bodies")
            if bodies:
                r = replace(r, body=self._body_of(int(bodies[-1])))
        return r

    def _body_of(self, seq: int) -> bytes | None:
        """The body of record ``seq``, buffered or stored."""
        with self._list_lock:
            batches = [self._buffer, *self._pending, *self._writing]
        for batch in batches:
            for s, r in batch:
                if s == seq and isinstance(r, PageRecord):
                    return r.body
        raw = self._db.get(_P_BODY + seq.to_bytes(8, "big"))
        return zlib.decompress(raw) if raw is not None else None

    def iter_records(self, with_body: bool = False) -> Iterator[PageRecord]:
        """Every record, oldest first (buffered records are flushed first)."""
        self.flush_sync()
        with self._db.snapshot() as snap:
            for key, meta in snap.iterator(prefix=_P_PAGE):
                body = None
                if with_body:
                    raw = snap.get(_P_BODY + key[len(_P_PAGE) :])
                    body = zlib.decompress(raw) if raw is not None else None
                yield _record_from(meta, body)

    def records_at_depths(self, low: int, high: int | None) -> Iterator[PageRecord]:
        """The written records with ``low <= depth < high`` (no upper bound when ``high`` is
        None), with their bodies, oldest first. Reads only what is on disk (nothing buffered
        is flushed), so a worker thread may advance it while the loop adds records."""
        with self._db.snapshot() as snap:
            for key, meta in snap.iterator(prefix=_P_PAGE):
                record = _record_from(meta, None)
                if record.depth < low or (high is not None and record.depth >= high):
                    continue
                raw = snap.get(_P_BODY + key[len(_P_PAGE) :])
                yield replace(record, body=zlib.decompress(raw) if raw is not None else None)

    def export_jsonl(self, out: TextIO | Path | str) -> int:
        """Write one JSON object per record (no bodies) to ``out`` (an open text file or a
        path); return the number of records written."""
        if isinstance(out, str | Path):
            with open(out, "w", encoding="utf-8", newline="\n") as fh:
                return self._export(fh)
        return self._export(out)

    def _export(self, fh: TextIO) -> int:
        n = 0
        for obj in self.iter_export_records():
            fh.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
            fh.write("\n")
            n += 1
        return n

    def iter_export_records(self) -> Iterator[dict[str, Any]]:
        """Every record's export record (``export --records pages``, documented in
        ``docs/storage.md``), oldest first; buffered records are flushed first."""
        for seq, r in self.iter_seq_records(with_body=False):
            ex = self.extraction(seq)
            yield {
                "url": r.url,
                "final_url": r.final_url,
                "status": r.status,
                "fetched_at": _iso(r.fetched_at),
                "fetched_at_ts": r.fetched_at,
                "depth": r.depth,
                "encoding": r.encoding,
                "title": r.title,
                "content_type": r.content_type,
                "size": r.size,
                "elapsed": r.elapsed,
                "referrer": r.referrer,
                "redirect_chain": [[u, s] for u, s in r.redirect_chain],
                **export_fields(ex),
            }

    # -- closing -----------------------------------------------------------------------------

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
