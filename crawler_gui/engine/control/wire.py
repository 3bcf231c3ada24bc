"""The control channel's wire format, shared by the server and the client: JSON lines of plain
data (``docs/control.md``; nothing is ever unpickled), its version, its errors, and the
conversions of pool snapshots, stats, settings and add reports to and from plain data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from crawler_gui.core.frontier import (
    AddReport,
    HostRow,
    HubRow,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    RetryRow,
)
from crawler_gui.core.redact import redact_url
from crawler_gui.engine.settings import CrawlMode, CrawlSettings
from crawler_gui.engine.stats import StatsSnapshot
from crawler_gui.errors import ConfigError, CrawlerGuiError

PROTOCOL = "crawler-gui-control"
#: The protocol version; a server answers a client of another version with an error line.
VERSION = 1
#: Seconds either end waits for the other's hello.
HELLO_TIMEOUT = 10.0


class ControlError(CrawlerGuiError):
    """The control channel of a running crawl failed (refused, lost, bad reply)."""


class AttachLostError(ControlError):
    """The connection to the crawl is gone (the crawl ended, was killed, or dropped us)."""


_ENCODER = json.JSONEncoder(separators=(",", ":"))


def encode(message: Mapping[str, Any]) -> bytes:
    # Tuples (the snapshot's named-tuple rows) are written as arrays as they are: no copies.
    # Python's json writes non-finite floats as Infinity/NaN (an unbounded histogram bucket).
    return _ENCODER.encode(message).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ControlError(f"not a JSON line: {exc}") from exc
    if not isinstance(data, dict):
        raise ControlError("a message must be a JSON object")
    return data


def totals_to_data(t: PoolTotals) -> dict[str, Any]:
    totals = {f.name: getattr(t, f.name) for f in fields(t)}
    totals["refused"] = dict(t.refused)
    return totals


def snapshot_to_data(snap: PoolSnapshot) -> dict[str, Any]:
    return {
        "time": snap.time,
        "version": snap.version,
        "totals": totals_to_data(snap.totals),
        "hosts": snap.hosts,
        "hosts_complete": snap.hosts_complete,
        "pending": snap.pending,
        "retrying": snap.retrying,
        "hubs": snap.hubs,
        "next_due": snap.next_due,
    }


def totals_from_data(d: Mapping[str, Any]) -> PoolTotals:
    try:
        totals = dict(d)
        totals["refused"] = dict(totals["refused"])
        return PoolTotals(**totals)
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"malformed pool totals from the crawl: {exc}") from exc


def snapshot_from_data(d: Mapping[str, Any]) -> PoolSnapshot:
    try:
        totals = dict(d["totals"])
        totals["refused"] = dict(totals["refused"])
        return PoolSnapshot(
            time=float(d["time"]),
            version=int(d["version"]),
            totals=PoolTotals(**totals),
            hosts=tuple(HostRow(*r) for r in d["hosts"]),
            hosts_complete=bool(d["hosts_complete"]),
            pending=tuple(PendingRow(*r) for r in d["pending"]),
            retrying=tuple(RetryRow(*r) for r in d["retrying"]),
            hubs=tuple(HubRow(*r) for r in d["hubs"]),
            next_due=None if d["next_due"] is None else float(d["next_due"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"a malformed pool snapshot from the crawl: {exc}") from exc


def stats_to_data(s: StatsSnapshot) -> dict[str, Any]:
    data = {f.name: getattr(s, f.name) for f in fields(s)}
    for key in ("status_counts", "error_counts", "status_classes", "disk_use"):
        data[key] = dict(data[key])
    return data


def stats_from_data(d: Mapping[str, Any]) -> StatsSnapshot:
    try:
        kw = dict(d)
        for key in ("status_counts", "error_counts", "status_classes"):
            kw[key] = dict(kw[key])
        kw["disk_use"] = {str(k): int(n) for k, n in dict(kw.get("disk_use", {})).items()}
        kw["response_hist"] = tuple((float(b), int(n)) for b, n in kw["response_hist"])
        kw["series"] = tuple((float(t), int(p), int(e)) for t, p, e in kw["series"])
        return StatsSnapshot(**kw)
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"malformed crawl stats from the crawl: {exc}") from exc


def settings_to_data(s: CrawlSettings) -> dict[str, Any]:
    """Settings as plain data; the proxy's password is hidden (``***``): an attached window
    never holds it (the crawl keeps its own when that comes back: ``with_own_proxy``)."""
    data: dict[str, Any] = {}
    for f in fields(s):
        value = getattr(s, f.name)
        if f.name == "proxy" and value:
            value = redact_url(value)
        elif isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        elif isinstance(value, CrawlMode):
            value = value.value
        data[f.name] = value
    return data


def with_own_proxy(new: CrawlSettings, own: CrawlSettings) -> CrawlSettings:
    """``new`` (settings from an attached window) with the crawl's own proxy where the window
    sent it back as it saw it (its password hidden by :func:`settings_to_data`)."""
    if own.proxy and new.proxy == redact_url(own.proxy):
        return replace(new, proxy=own.proxy)
    return new


def settings_from_data(d: Mapping[str, Any]) -> CrawlSettings:
    """Settings from plain data; unknown names are ignored (a newer peer), bad values raise
    ConfigError."""
    known = {f.name for f in fields(CrawlSettings)}
    kw: dict[str, Any] = {}
    for name, raw in d.items():
        if name not in known:
            continue
        value: Any = raw
        if name == "extra_headers":
            value = tuple((str(k), str(v)) for k, v in raw)
        elif isinstance(raw, list):
            value = tuple(raw)
        elif name == "mode":
            value = CrawlMode(raw)
        kw[name] = value
    try:
        return CrawlSettings(**kw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad settings: {exc}") from exc


def report_to_data(r: AddReport) -> dict[str, Any]:
    return {
        "added": r.added,
        "duplicate": r.duplicate,
        "refused": r.refused,
        "overflow": r.overflow,
    }


def report_from_data(d: Mapping[str, Any]) -> AddReport:
    try:
        return AddReport(
            added=int(d["added"]),
            duplicate=int(d["duplicate"]),
            refused=[(str(u), str(why)) for u, why in d["refused"]],
            overflow=int(d["overflow"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"a malformed report from the crawl: {exc}") from exc
