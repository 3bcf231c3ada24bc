"""Export records, one definition for the command line (``crawler-gui export``) and the window
(File → Export): which record types there are, what each record holds, and how a file is
written (JSON Lines, CSV or WARC, whole or not at all).

Records are plain dicts (documented in ``docs/storage.md``): a page's comes from
:meth:`crawler_gui.engine.store.PageStore.iter_export_records`, a URL outcome from the pool's
``iter_outcomes``. Writing goes to a temporary file beside the target, fsynced and renamed over
it at the end: a failure or a cancel leaves the previous file as it was.

A WARC export (pages and articles only: a URL outcome has no body) holds one ``response``
record per stored page with its body, its status and the response headers as the fetch
recorded them (pages stored before the page store's schema 4 get their ``Content-Type``
only), and for an article a ``metadata`` record with the extraction, as a crawl's own
``--warc`` output does.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TextIO, cast

from warcio.warcwriter import WARCWriter

from crawler_gui.engine.store import PageStore
from crawler_gui.engine.warc import metadata_record, response_record, write_warcinfo
from crawler_gui.errors import ConfigError

__all__ = [
    "CSV_FIELDS",
    "EXPORT_FORMATS",
    "EXPORT_RECORDS",
    "WARC_RECORDS",
    "ExportCancelled",
    "WarcExport",
    "article_records",
    "atomic_file",
    "atomic_text_file",
    "check_choice",
    "page_records",
    "write_records",
    "write_warc",
]

#: The record types of ``export --records`` and what each holds (one place for all of them).
EXPORT_RECORDS = {
    "pages": "one record per stored page, as fetched",
    "articles": "one record per stored page judged an article, with its text",
    "outcomes": "one record per URL of the pool with its state; a failed or refused URL with "
    "its last status, reason and message, a redirected one with its target",
}
#: File formats: JSON Lines (one object per line), CSV (nested values as JSON text), or WARC
#: (gzip-compressed: the stored bodies as they were fetched, the articles as metadata).
EXPORT_FORMATS = ("jsonl", "csv", "warc")
#: The record types a WARC file can carry: those with a stored body.
WARC_RECORDS = ("pages", "articles")

_PAGE_FIELDS = (
    "url",
    "final_url",
    "status",
    "fetched_at",
    "fetched_at_ts",
    "depth",
    "encoding",
    "title",
    "content_type",
    "size",
    "elapsed",
    "referrer",
    "redirect_chain",
    "kind",
    "why",
    "article",
    "article_url",
    "part",
    "js_only",
)
#: The CSV columns of each record type (a key outside them is an error, never dropped).
CSV_FIELDS: dict[str, tuple[str, ...]] = {
    "pages": _PAGE_FIELDS,
    "articles": _PAGE_FIELDS,
    "outcomes": (
        "kind",
        "url",
        "state",
        "depth",
        "attempts",
        "changed_at",
        "changed_at_ts",
        "referrer",
        "status",
        "reason",
        "message",
        "target",
        "next_try_ts",
    ),
}


class ExportCancelled(Exception):
    """The export was cancelled (nothing was written)."""


def check_choice(kind: str, fmt: str) -> None:
    """Raise :class:`ConfigError` for a record type or format that does not exist, or a
    record type the format cannot carry."""
    if kind not in EXPORT_RECORDS:
        raise ConfigError(f"unknown record type {kind!r} (one of {', '.join(EXPORT_RECORDS)})")
    if fmt not in EXPORT_FORMATS:
        raise ConfigError(f"unknown export format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
    if fmt == "warc" and kind not in WARC_RECORDS:
        raise ConfigError(
            f"a WARC file holds pages or articles (their bodies), not {kind}: "
            "export those as jsonl or csv"
        )


def page_records(store: PageStore) -> Iterator[dict[str, Any]]:
    """Every stored page's export record, oldest first."""
    return store.iter_export_records()


def article_records(store: PageStore) -> Iterator[dict[str, Any]]:
    """The export records of the stored pages judged articles, oldest first."""
    return (r for r in store.iter_export_records() if r.get("kind") == "article")


@contextlib.contextmanager
def atomic_file(target: Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A file written whole or not at all: a temporary file in the target's folder, fsynced
    and renamed over it when the block ends without an error (any error, a cancel included,
    removes the temporary file and leaves the target as it was). Text (UTF-8) unless
    ``binary``."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        mode: dict[str, Any] = {"mode": "wb"} if binary else {"mode": "w", "encoding": "utf-8"}
        with open(fd, newline=None if binary else "", **mode) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


@contextlib.contextmanager
def atomic_text_file(target: Path) -> Iterator[TextIO]:
    """:func:`atomic_file` for text."""
    with atomic_file(target) as fh:
        yield cast(TextIO, fh)


def _cell(value: Any) -> Any:
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if value is None:
        return ""
    return value


def write_records(
    fh: TextIO,
    records: Iterable[dict[str, Any]],
    *,
    fmt: str = "jsonl",
    kind: str = "pages",
    progress: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    every: int = 500,
    header: bool = True,
) -> int:
    """Write ``records`` to ``fh`` as JSON Lines or CSV; returns how many. ``progress(n)``
    and ``cancelled()`` are called every ``every`` records (a cancel raises
    :class:`ExportCancelled`), and once more at the end. ``header=False``: no CSV header
    line (a later batch of the same file)."""
    if fmt not in ("jsonl", "csv"):
        raise ValueError(f"unknown text export format {fmt!r} (jsonl or csv; WARC: write_warc)")
    writer = None
    if fmt == "csv":
        writer = csv.DictWriter(fh, fieldnames=CSV_FIELDS[kind], extrasaction="raise")
        if header:
            writer.writeheader()
    n = 0
    for rec in records:
        if writer is not None:
            writer.writerow({k: _cell(v) for k, v in rec.items()})
        else:
            fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
            fh.write("\n")
        n += 1
        if n % every == 0:
            if cancelled is not None and cancelled():
                raise ExportCancelled(f"cancelled after {n} records")
            if progress is not None:
                progress(n)
    if cancelled is not None and cancelled():
        raise ExportCancelled(f"cancelled after {n} records")
    if progress is not None:
        progress(n)
    return n


@dataclass(frozen=True, slots=True)
class WarcExport:
    """What :func:`write_warc` wrote: ``pages`` response records (each article with its
    metadata record), and how many matching pages had no stored body (a crawl that did not
    keep bodies, or a hub refresh whose body had not changed) and were left out."""

    pages: int
    without_body: int


def write_warc(
    fh: IO[bytes],
    store: PageStore,
    *,
    kind: str = "pages",
    name: str = "export.warc.gz",
    progress: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    every: int = 500,
) -> WarcExport:
    """Write the stored pages (``kind="articles"``: those judged articles) to ``fh`` as a
    gzip-compressed WARC file named ``name`` (its ``warcinfo`` record), oldest first.
    ``progress(n)`` and ``cancelled()`` as in :func:`write_records` (n counts the pages looked
    at)."""
    check_choice(kind, "warc")
    writer = WARCWriter(fh, gzip=True)
    write_warcinfo(writer, name)
    written = without_body = seen = 0
    for seq, record in store.iter_seq_records(with_body=True):
        seen += 1
        if seen % every == 0:
            if cancelled is not None and cancelled():
                raise ExportCancelled(f"cancelled after {written} pages")
            if progress is not None:
                progress(seen)
        ex = store.extraction(seq)
        if kind == "articles" and (ex is None or ex.get("kind") != "article"):
            continue
        if record.body is None:
            without_body += 1
            continue
        detail = store.detail(seq)
        if detail is not None:
            headers = [(str(k), str(v)) for k, v in detail.get("response_headers", ())]
        else:  # stored before schema 4: what the record itself says
            headers = [("Content-Type", record.content_type)] if record.content_type else []
        url = record.final_url or record.url
        writer.write_record(
            response_record(
                writer, url, record.status, headers, record.body, record.fetched_at, None
            )
        )
        if ex is not None and ex.get("article"):
            data = {"kind": ex.get("kind"), "why": ex.get("why"), "article": ex["article"]}
            writer.write_record(metadata_record(writer, url, data, record.fetched_at))
        written += 1
    if cancelled is not None and cancelled():
        raise ExportCancelled(f"cancelled after {written} pages")
    if progress is not None:
        progress(seen)
    return WarcExport(written, without_body)
