"""Runs ``crawler-gui`` in this process with a memory probe, for ``soak.py`` (diagnosis only).

    python benchmarks/soak_probe.py OUT.jsonl [--tracemalloc FRAMES] [--trim]
        [--write-buffer BYTES] [--block-cache BYTES] -- ARGS...

runs ``crawler-gui ARGS...`` as ``python -m crawler_gui ARGS...`` would, and answers signals
with one JSON line appended to ``OUT.jsonl`` (the handler runs on the main thread between two
bytecodes, so it never races the crawl's own use of its databases):

* ``SIGUSR1`` -- a sample: ``rss_kb`` and ``anon_kb`` (``/proc/self/status``); Python's heap,
  ``py_blocks`` (``sys.getallocatedblocks()``: pymalloc blocks and larger objects in use) and
  ``gc_objects`` (objects the collector tracks); glibc's ``malloc`` (``mallinfo2``: bytes
  ``malloc_used``, ``malloc_free`` held in its arenas, ``malloc_mmap`` in large blocks of their
  own); per LevelDB database opened, ``leveldb.approximate-memory-usage`` (its memtables and
  block cache) as ``ldb_<name>``. With ``--trim`` it then calls ``malloc_trim(0)`` and reports
  ``rss_kb_trimmed``: what glibc gave back is freed memory it was holding, not a leak;
* ``SIGUSR2`` -- a deep sample: the object counts by type (``types``, the 40 most common), and
  with ``--tracemalloc`` the 15 source lines whose allocations grew most since the first deep
  sample (``grown``).

The databases are found by wrapping ``plyvel.DB`` (it cannot be subclassed) before the crawl
imports anything: every database opened is remembered with its folder's name (``frontier``:
the pool, ``pages``: the page store). ``--write-buffer`` and ``--block-cache`` open every one
with that memtable size and block cache instead of the crawl's own (an experiment: small
bounds are reached within a short run, to see LevelDB's memory level off at them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import signal
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import plyvel


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
_mallinfo2 = getattr(_libc, "mallinfo2", None)
if _mallinfo2 is not None:
    _mallinfo2.restype = _MallInfo2
_databases: list[tuple[str, Any]] = []
_first_snapshot: tracemalloc.Snapshot | None = None


def _wrap_plyvel(overrides: dict[str, int]) -> None:
    real = plyvel.DB

    def opened(name: str, *args: Any, **kwargs: Any) -> Any:
        db = real(name, *args, **{**kwargs, **overrides})
        _databases.append((Path(name).name, db))
        return db

    plyvel.DB = opened  # type: ignore[misc,assignment]


def _status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            parts = value.split()
            if parts and parts[0].isdigit():
                out[key] = int(parts[0])
    return out


def sample(trim: bool) -> dict[str, Any]:
    status = _status()
    row: dict[str, Any] = {
        "kind": "sample",
        "time": time.time(),
        "rss_kb": status.get("VmRSS", 0),
        "anon_kb": status.get("RssAnon", 0),
        "py_blocks": sys.getallocatedblocks(),
        "gc_objects": len(gc.get_objects()),
    }
    if _mallinfo2 is not None:
        mi = _mallinfo2()
        row["malloc_used"] = mi.uordblks
        row["malloc_free"] = mi.fordblks
        row["malloc_mmap"] = mi.hblkhd
    for name, db in _databases:
        try:
            value = db.get_property(b"leveldb.approximate-memory-usage")
        except RuntimeError:  # closed
            continue
        if value is not None:
            key = f"ldb_{name}"
            row[key] = row.get(key, 0) + int(value)
    if trim:
        _libc.malloc_trim(0)
        row["rss_kb_trimmed"] = _status().get("VmRSS", 0)
    return row


def deep() -> dict[str, Any]:
    global _first_snapshot  # noqa: PLW0603 - one probe a process
    gc.collect()
    types = Counter(type(o).__name__ for o in gc.get_objects())
    row: dict[str, Any] = {
        "kind": "deep",
        "time": time.time(),
        "types": dict(types.most_common(40)),
    }
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        row["traced_kb"] = tracemalloc.get_traced_memory()[0] // 1024
        if _first_snapshot is None:
            _first_snapshot = snap
        else:
            row["grown"] = [
                {
                    "where": str(stat.traceback),
                    "kb": round(stat.size_diff / 1024, 1),
                    "count": stat.count_diff,
                }
                for stat in snap.compare_to(_first_snapshot, "lineno")[:15]
            ]
    return row


def main() -> int:
    argv = sys.argv[1:]
    if "--" not in argv or not argv or argv[0] == "--":
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    own, args = argv[:split], argv[split + 1 :]
    out = Path(own[0])
    trim = "--trim" in own
    if "--tracemalloc" in own:
        tracemalloc.start(int(own[own.index("--tracemalloc") + 1]))

    def write(row: dict[str, Any]) -> None:
        with out.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")

    def on_usr1(_sig: int, _frame: FrameType | None) -> None:
        write(sample(trim))

    def on_usr2(_sig: int, _frame: FrameType | None) -> None:
        write(deep())

    overrides = {}
    for option, key in (
        ("--write-buffer", "write_buffer_size"),
        ("--block-cache", "lru_cache_size"),
    ):
        if option in own:
            overrides[key] = int(own[own.index(option) + 1])
    _wrap_plyvel(overrides)
    signal.signal(signal.SIGUSR1, on_usr1)
    signal.signal(signal.SIGUSR2, on_usr2)
    from crawler_gui.main import main as crawler_main

    return crawler_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
