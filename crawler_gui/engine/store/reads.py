"""Reading the page store: one record by URL or sequence number, the newest rows, records in
fetch order or by depth, a fetch's detail and referrers, and the export records. Records still
buffered or being written are read from memory."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from crawler_gui.engine.store.base import StoreBase
from crawler_gui.engine.store.records import (
    _P_ART,
    _P_BODY,
    _P_DETAIL,
    _P_PAGE,
    _P_REF,
    _P_URL,
    PageRecord,
    PageRow,
    _record_from,
    export_fields,
)
from crawler_gui.errors import StoreError


def _iso(ts: float) -> str:
    text = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


class StoreReads(StoreBase):
    """The page store's reading methods."""

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
