"""Export records, one definition for the command line (``crawler-gui export``) and the window
(File → Export): which record types there are, what each record holds, and how a file is
written (JSON Lines or CSV, whole or not at all).

Records are plain dicts (documented in ``docs/storage.md``): a page's comes from
:meth:`crawler_gui.engine.store.PageStore.iter_export_records`, a URL outcome from the pool's
``iter_outcomes``. Writing goes to a temporary file beside the target, fsynced and renamed over
it at the end: a failure or a cancel leaves the previous file as it was.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from crawler_gui.engine.store import PageStore

__all__ = [
    "CSV_FIELDS",
    "EXPORT_FORMATS",
    "EXPORT_RECORDS",
    "ExportCancelled",
    "article_records",
    "atomic_text_file",
    "page_records",
    "write_records",
]

#: The record types of ``export --records`` and what each holds (one place for all of them).
EXPORT_RECORDS = {
    "pages": "one record per stored page, as fetched",
    "articles": "one record per stored page judged an article, with its text",
    "outcomes": "one record per URL of the pool with its state; a failed or refused URL with "
    "its last status, reason and message, a redirected one with its target",
}
#: File formats: JSON Lines (one object per line) or CSV (nested values as JSON text).
EXPORT_FORMATS = ("jsonl", "csv")

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


def page_records(store: PageStore) -> Iterator[dict[str, Any]]:
    """Every stored page's export record, oldest first."""
    return store.iter_export_records()


def article_records(store: PageStore) -> Iterator[dict[str, Any]]:
    """The export records of the stored pages judged articles, oldest first."""
    return (r for r in store.iter_export_records() if r.get("kind") == "article")


@contextlib.contextmanager
def atomic_text_file(target: Path) -> Iterator[TextIO]:
    """A text file written whole or not at all: a temporary file in the target's folder,
    fsynced and renamed over it when the block ends without an error (any error, a cancel
    included, removes the temporary file and leaves the target as it was)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


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
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (one of {', '.join(EXPORT_FORMATS)})")
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
