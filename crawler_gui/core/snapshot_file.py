"""The pool snapshot file: one portable, versioned, safe file holding a whole pool.

Format (documented in ``docs/storage.md``): gzip-compressed JSON Lines, UTF-8.

* line 1, the header: ``{"format": "crawler-gui-pool-snapshot", "version": 2, "created": <time>,
  "generator": "crawler-gui <version>"}``
* then one JSON object per record, each with a ``"t"`` field: ``"scope"``, ``"url"``, ``"hub"``
  or ``"host"``;
* last line, the trailer: ``{"t": "end", "records": <number of records before it>}``.

Version 2 added the crawl's scope: one ``{"t": "scope", "domain": "example.com"}`` record per
registered domain of the crawl's seeds and hubs (so that a snapshot loaded into a new pool
follows the same sites' links), and the optional ``crashes``/``fails``/``parked`` fields of hub
records. Files of version 1 still load (no scope: the pool's own is kept). A reader of version
1 refuses a version 2 file as "newer" rather than drop its scope in silence.

A missing trailer (a truncated file), a count that does not match, a bad gzip CRC, a line that is
not a JSON object, a foreign header or a pickle all raise
:class:`~crawler_gui.errors.SnapshotFormatError`; nothing in the file is ever executed.
Files are written atomically: a temporary file in the same folder, fsync, rename, fsync of the
folder.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import time
import zlib
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

from crawler_gui import __version__
from crawler_gui.errors import SnapshotError, SnapshotFormatError, SnapshotVersionError

FORMAT = "crawler-gui-pool-snapshot"
VERSION = 2
MAX_LINE = 1 << 20
#: The longest registered domain a scope record may hold (a DNS name's limit).
MAX_DOMAIN = 253

_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_decoder = json.JSONDecoder()


def dumps(obj: Any) -> bytes:
    """Compact JSON as UTF-8 bytes (also the encoding of small records inside the pool)."""
    return _encoder.encode(obj).encode()


def loads(raw: bytes) -> Any:
    return _decoder.decode(raw.decode())


def write_snapshot(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write ``records`` to ``path`` atomically; return how many were written."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    _remove_stale_temporaries(folder, path.name)
    count = 0
    try:
        with (
            open(tmp, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=5, mtime=0) as gz,
        ):
            header = {
                "format": FORMAT,
                "version": VERSION,
                "created": time.time(),
                "generator": f"crawler-gui {__version__}",
            }
            gz.write(dumps(header) + b"\n")
            lines: list[bytes] = []
            for rec in records:
                lines.append(dumps(rec))
                count += 1
                if len(lines) >= 4096:
                    gz.write(b"\n".join(lines) + b"\n")
                    lines.clear()
            if lines:
                gz.write(b"\n".join(lines) + b"\n")
            gz.write(dumps({"t": "end", "records": count}) + b"\n")
            gz.flush()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
        fsync_dir(folder)
    except OSError as exc:
        raise SnapshotError(f"cannot write the snapshot {path}: {exc.strerror or exc}") from exc
    finally:
        if tmp.exists():
            tmp.unlink()
    return count


def _remove_stale_temporaries(folder: Path, name: str) -> None:
    """Remove the ``.NAME.PID.tmp`` files that saves of processes no longer running left
    (killed mid-save, or a power cut)."""
    if os.name != "posix":  # os.kill(pid, 0) is a probe only on POSIX
        return
    prefix, suffix = f".{name}.", ".tmp"
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        middle = entry.name[len(prefix) : -len(suffix)]
        if not (entry.name.startswith(prefix) and entry.name.endswith(suffix)):
            continue
        if not middle.isdigit() or int(middle) == os.getpid():
            continue
        try:
            os.kill(int(middle), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                entry.unlink()
        except OSError:
            pass  # alive (another user's process)


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries (a rename, a new file) survive a power cut (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def scope_records(domains: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The scope records of a crawl whose seeds and hubs cover ``domains``."""
    for domain in sorted({d for d in domains if d}):
        yield {"t": "scope", "domain": domain}


def scope_domain(rec: dict[str, Any]) -> str:
    """The domain of a scope record, checked: a short, lower-case name without spaces."""
    domain = rec.get("domain")
    if (
        not isinstance(domain, str)
        or not domain
        or len(domain) > MAX_DOMAIN
        or domain != domain.strip().lower()
        or any(c.isspace() or c in "/:@?#" for c in domain)
    ):
        raise SnapshotFormatError(f"a scope record holds no valid domain ({domain!r:.80})")
    return domain


def host_record(
    host: str, min_delay: float, backoff_until: float, paused: bool, user_delay: float
) -> dict[str, Any]:
    """A ``host`` record; ``paused`` and ``user_delay`` (the user's per-host control) only
    when set (a reader that does not know them ignores them)."""
    rec: dict[str, Any] = {
        "t": "host",
        "host": host,
        "min_delay": min_delay,
        "backoff_until": backoff_until,
    }
    if paused:
        rec["paused"] = True
    if user_delay >= 0:
        rec["user_delay"] = user_delay
    return rec


def host_control(rec: dict[str, Any]) -> tuple[bool, float]:
    """The user's control of a host in a ``host`` record: (paused, user delay; < 0: none)."""
    paused = rec.get("paused", False)
    if not isinstance(paused, bool):
        raise SnapshotFormatError("a host record's paused is not true or false")
    delay = rec.get("user_delay", -1.0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not math.isfinite(delay):
        raise SnapshotFormatError("a host record's user_delay is not a number")
    return paused, float(delay) if delay >= 0 else -1.0


def read_scope(path: Path) -> frozenset[str]:
    """The scope domains of a snapshot file (empty for a version 1 file), reading and checking
    the whole file as :func:`read_snapshot` does."""
    return frozenset(scope_domain(rec) for rec in read_snapshot(path) if rec.get("t") == "scope")


def read_snapshot(path: Path) -> Generator[dict[str, Any], None, None]:
    """Yield the records of a snapshot file, checking everything; raise SnapshotFormatError."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(2)
    except OSError as exc:
        raise SnapshotError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if magic[:1] == b"\x80":
        raise SnapshotFormatError(
            f"{path} looks like a Python pickle; crawler-gui never loads pickles "
            "(a pickle can run code). Export the pool with crawler-gui instead."
        )
    if magic != b"\x1f\x8b":
        raise SnapshotFormatError(f"{path} is not a crawler-gui pool snapshot (not gzip data)")
    count = 0
    try:
        with gzip.open(path, "rb") as gz:
            first = gz.readline(MAX_LINE + 1)
            if len(first) > MAX_LINE:
                raise SnapshotFormatError(f"{path}: line 1 is too long")
            header = _parse(first, 1, path)
            if header.get("format") != FORMAT:
                raise SnapshotFormatError(f"{path} is not a crawler-gui pool snapshot")
            version = header.get("version")
            if not isinstance(version, int) or version < 1:
                raise SnapshotFormatError(f"{path} has an invalid format version")
            if version > VERSION:
                raise SnapshotVersionError(
                    f"{path} was written by a newer crawler-gui (snapshot format {version}; "
                    f"this version reads {VERSION})"
                )
            line_no = 1
            ended = False
            while True:
                # Bounded: a line longer than MAX_LINE is never read whole.
                line = gz.readline(MAX_LINE + 1)
                if not line:
                    break
                line_no += 1
                if ended:
                    raise SnapshotFormatError(f"{path}: data after the end record")
                if len(line) > MAX_LINE:
                    raise SnapshotFormatError(f"{path}: line {line_no} is too long")
                rec = _parse(line, line_no, path)
                kind = rec.get("t")
                if kind == "end":
                    if rec.get("records") != count:
                        raise SnapshotFormatError(
                            f"{path}: the end record counts {rec.get('records')} records, "
                            f"the file holds {count}"
                        )
                    ended = True
                    continue
                if not isinstance(kind, str):
                    raise SnapshotFormatError(f"{path}: line {line_no} has no record type")
                count += 1
                yield rec
            if not ended:
                raise SnapshotFormatError(f"{path} is truncated (no end record)")
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise SnapshotFormatError(f"{path} is truncated or corrupt ({exc})") from exc
    except OSError as exc:
        raise SnapshotError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _parse(line: bytes, line_no: int, path: Path) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise SnapshotFormatError(f"{path}: line {line_no} is not JSON") from exc
    except RecursionError as exc:  # "[[[[..." nested deeper than Python's stack allows
        raise SnapshotFormatError(f"{path}: line {line_no} is nested too deeply") from exc
    if not isinstance(obj, dict):
        raise SnapshotFormatError(f"{path}: line {line_no} is not a JSON object")
    return obj
