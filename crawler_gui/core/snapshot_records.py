"""The records of a pool snapshot file, typed and checked once for every backend.

``snapshot_file`` reads the file (header, lines, trailer); this module turns each record into
a typed value, or refuses it with :class:`~crawler_gui.errors.SnapshotFormatError`, so that
both backends' loads accept and refuse exactly the same files (``docs/storage.md``).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawler_gui.core import snapshot_file
from crawler_gui.core.freshness import RateState
from crawler_gui.core.frontier import STATE_BY_CODE
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError, SnapshotFormatError

#: A URL state's one-letter code by its name in a snapshot record.
STATE_CODES = {name: code for code, name in STATE_BY_CODE.items()}


@dataclass(frozen=True, slots=True)
class UrlRecord:
    url: str  #: canonical
    host: str
    state: str  #: its one-letter code (``frontier.STATE_BY_CODE``)
    depth: int
    attempts: int
    seq: int
    time: float
    #: The redirect target of a redirected URL, the referrer of any other (None: none).
    extra: str | None
    #: A retrying URL: when it is due, and its last error ("" otherwise).
    next_try: float
    last_error: str


@dataclass(frozen=True, slots=True)
class HubRecord:
    url: str
    host: str
    span: float
    last_refresh: float
    last_result: str
    due: float
    crashes: int
    fails: int
    parked: str
    rate: RateState


@dataclass(frozen=True, slots=True)
class HostRecord:
    host: str
    min_delay: float
    backoff_until: float
    paused: bool = False  #: paused by the user (``Frontier.set_host_paused``)
    user_delay: float = -1.0  #: the user's minimum delay (``Frontier.set_host_delay``; <0: none)


@dataclass(frozen=True, slots=True)
class ScopeRecord:
    domain: str


#: A hub's counters, absent in records of older versions.
_COUNTERS = ("crashes", "fails")

SnapshotRecord = UrlRecord | HubRecord | HostRecord | ScopeRecord


def read_records(path: Path) -> Generator[SnapshotRecord, None, None]:
    """Every record of a snapshot file, checked. Raises SnapshotFormatError (naming the file
    for a malformed record) at the first record that is not valid. Close it to close the
    file early."""
    records = snapshot_file.read_snapshot(path)
    try:
        for rec in records:
            try:
                parsed = parse_record(rec)
            except (KeyError, TypeError, ValueError) as exc:
                if isinstance(exc, SnapshotFormatError):
                    raise
                raise SnapshotFormatError(f"{path}: a record is malformed ({exc!r})") from exc
            yield parsed
    finally:
        records.close()


def parse_record(rec: dict[str, Any]) -> SnapshotRecord:
    """One record (a JSON object of the file) as a typed value; raises SnapshotFormatError,
    or KeyError / TypeError / ValueError for a record of the wrong shape."""
    kind = rec["t"]
    if kind == "url":
        url, host = _valid_url(rec["url"])
        state = STATE_CODES.get(rec["state"])
        if state is None:
            raise SnapshotFormatError(f"unknown URL state {rec['state']!r}")
        extra = rec.get("target") if state == "X" else rec.get("referrer")
        if extra is not None and not isinstance(extra, str):
            raise SnapshotFormatError("a referrer or target is not text")
        retrying = state == "R"
        return UrlRecord(
            url,
            host,
            state,
            _int(rec, "depth"),
            _int(rec, "attempts"),
            _int(rec, "seq"),
            _num(rec, "time"),
            extra,
            _num(rec, "next_try") if retrying else 0.0,
            str(rec.get("last_error", "")) if retrying else "",
        )
    if kind == "hub":
        url, host = _valid_url(rec["url"])
        span = _num(rec, "span")
        if span <= 0:
            raise SnapshotFormatError(f"hub {url} has a span that is not positive")
        crashes, fails = (_int(rec, k) if rec.get(k) is not None else 0 for k in _COUNTERS)
        return HubRecord(
            url,
            host,
            span,
            _num(rec, "last_refresh"),
            str(rec.get("last_result", "")),
            _num(rec, "due"),
            crashes,
            fails,
            str(rec.get("parked", "") or ""),
            RateState.from_dict(rec.get("rate"), url),
        )
    if kind == "scope":
        return ScopeRecord(snapshot_file.scope_domain(rec))
    if kind == "host":
        name = rec["host"]
        if not isinstance(name, str) or not name or "\t" in name:
            raise SnapshotFormatError("a host record has no host")
        name = _canonical_host(name)
        paused, user_delay = snapshot_file.host_control(rec)
        return HostRecord(
            name, _num(rec, "min_delay"), _num(rec, "backoff_until"), paused, user_delay
        )
    raise SnapshotFormatError(f"unknown record type {kind!r}")


def _valid_url(value: object) -> tuple[str, str]:
    if not isinstance(value, str):
        raise SnapshotFormatError("a URL record holds no URL")
    try:
        return canonicalize(value)
    except InvalidURLError as exc:
        raise SnapshotFormatError(f"the snapshot holds an invalid URL: {exc}") from exc


def _canonical_host(name: str) -> str:
    """A snapshot's host name in the current canonical form (a snapshot from an older version
    may hold an older one); a name that is no valid host is kept as it is."""
    try:
        return canonicalize(f"http://{name}/")[1]
    except InvalidURLError:
        return name


def _int(rec: dict[str, Any], key: str) -> int:
    v = rec[key]
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise SnapshotFormatError(f"field {key!r} must be a non-negative integer")
    return v


def _num(rec: dict[str, Any], key: str) -> float:
    v = rec[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise SnapshotFormatError(f"field {key!r} must be a number")
    return float(v)
