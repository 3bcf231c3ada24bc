"""The LevelDB pool's invariants, restored from its URL records (``crawler-gui repair`` and
the key migration of ``migrate.py`` both end with it), and the report of what that found."""

from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crawler_gui.core import snapshot_file
from crawler_gui.core.leveldb.layout import (
    K_SCHEMA,
    K_SEQ,
    P_HOST,
    P_HUB,
    P_LEASE,
    P_QUEUE,
    P_RETRY,
    P_URL,
    SCHEMA_VERSION,
    SEQ,
    STATE_NAMES,
    D,
    F,
    Host,
    R,
    W,
    X,
    queue_key,
    queue_value,
    read_url_record,
)
from crawler_gui.core.urls import host_of
from crawler_gui.errors import InvalidURLError


@dataclass
class RepairReport:
    """What ``repair_pool`` recovered and what it lost (``crawler-gui repair``)."""

    output: Path
    #: False for a Redis worker's store folder: a page store alone, no URL pool.
    pool: bool = True
    #: URLs recovered, by state name.
    urls: Counter[str] = field(default_factory=Counter)
    hubs: int = 0
    #: What the pool's own counters claimed before the repair, by state name.
    claimed: Counter[str] = field(default_factory=Counter)
    #: Records dropped because they could not be read or pointed nowhere, by kind.
    dropped: Counter[str] = field(default_factory=Counter)
    #: Fixes made to keep the pool consistent, by kind.
    fixed: Counter[str] = field(default_factory=Counter)
    #: Damaged files LevelDB's repair set aside (in ``<db>/lost/``), per database.
    lost_files: dict[str, int] = field(default_factory=dict)
    pages: int | None = None

    def lines(self) -> list[str]:
        out = [f"repaired copy: {self.output}"]
        names = ("waiting", "done", "failed", "retrying", "redirected")
        got = ", ".join(f"{self.urls[n]:,} {n}" for n in names)
        if self.pool:
            out.append(f"recovered: {sum(self.urls.values()):,} URLs ({got}), {self.hubs:,} hubs")
        if self.pages is not None:
            out.append(f"page store: {self.pages:,} page records")
        lost = {n: self.claimed[n] - self.urls[n] for n in names if self.claimed[n] > self.urls[n]}
        if lost:
            out.append(
                "lost (the pool's counters named more): "
                + ", ".join(f"{v:,} {n}" for n, v in lost.items())
            )
        for db, n in self.lost_files.items():
            if n:
                out.append(f"{db}: {n} damaged table file(s) set aside in {db}/lost/")
        if self.dropped:
            out.append(
                "dropped records: "
                + ", ".join(f"{v:,} {k}" for k, v in sorted(self.dropped.items()))
            )
        if self.fixed:
            out.append("fixed: " + ", ".join(f"{v:,} {k}" for k, v in sorted(self.fixed.items())))
        if not lost and not self.dropped and not any(self.lost_files.values()):
            out.append("nothing was lost")
        return out


def restore_invariants(db: Any, report: RepairReport) -> None:
    """Make the records of the pool database ``db`` agree again, counting in ``report`` what
    was dropped and fixed: host counters recounted from the URL records, every waiting URL
    with its queue entry and nothing else queued, every retrying URL with its retry record,
    leases back to waiting (no attempt counted), unreadable records dropped, the sequence
    counter past every URL's. Idempotent."""
    hosts: dict[str, Host] = {}
    for key, raw in db.iterator(prefix=P_HOST):
        try:
            h = Host(key[len(P_HOST) :].decode())
            h.unpack(raw)
        except (struct.error, UnicodeDecodeError):
            report.dropped["host records"] += 1
            db.delete(key)
            continue
        for name in ("waiting", "done", "failed", "retrying", "redirected"):
            report.claimed[name] += getattr(h, name)
        h.waiting = h.done = h.failed = h.retrying = h.redirected = 0
        hosts[h.name] = h
    wb = db.write_batch()
    for key in db.iterator(prefix=P_QUEUE, include_value=False):  # rebuilt from the URLs
        wb.delete(key)
    for key in db.iterator(prefix=P_LEASE, include_value=False):
        report.fixed["leases put back to waiting"] += 1
        wb.delete(key)
    retries = {}
    for key, raw in db.iterator(prefix=P_RETRY):
        try:
            rec = snapshot_file.loads(raw)
            retries[key[len(P_RETRY) :].decode()] = (int(rec["a"]), float(rec["n"]))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            report.dropped["retry records"] += 1
            wb.delete(key)
    wb.write()
    max_seq = 0
    wb = db.write_batch()
    for key, raw in db.iterator(prefix=P_URL):
        try:
            url = key[len(P_URL) :].decode()
            state, depth, attempts, seq, _t, extra = read_url_record(raw)
            hostname = host_of(url)
            name = STATE_NAMES[state]
        except (struct.error, UnicodeDecodeError, KeyError, ValueError, InvalidURLError):
            report.dropped["URL records"] += 1
            wb.delete(key)
            continue
        max_seq = max(max_seq, seq)
        h = hosts.get(hostname) or hosts.setdefault(hostname, Host(hostname))
        report.urls[name] += 1
        if state == W:
            h.waiting += 1
            wb.put(queue_key(hostname, depth, seq), queue_value(url, attempts, extra))
        elif state == D:
            h.done += 1
        elif state == F:
            h.failed += 1
        elif state == X:
            h.redirected += 1
        else:
            h.retrying += 1
            if url not in retries:
                report.fixed["retry records made again"] += 1
                wb.put(
                    P_RETRY + url.encode(),
                    snapshot_file.dumps({"a": attempts, "e": "repaired", "n": 0.0}),
                )
        if state == R:
            retries.pop(url, None)
    for url in retries:  # a retry record of a URL that is not retrying
        report.dropped["stray retry records"] += 1
        wb.delete(P_RETRY + url.encode())
    for key, raw in db.iterator(prefix=P_HUB):
        try:
            rec = snapshot_file.loads(raw)
            if not float(rec["span"]) > 0:
                raise ValueError("span")
            float(rec["due"])
            host_of(key[len(P_HUB) :].decode())
            report.hubs += 1
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, InvalidURLError):
            report.dropped["hub records"] += 1
            wb.delete(key)
    for h in hosts.values():
        wb.put(P_HOST + h.name.encode(), h.pack())
    raw_seq = db.get(K_SEQ)
    try:
        old_seq = SEQ.unpack(raw_seq)[0] if raw_seq else 0
    except struct.error:
        old_seq = 0
    if old_seq < max_seq:
        report.fixed["sequence counter"] += 1
    wb.put(K_SEQ, SEQ.pack(max(old_seq, max_seq)))
    wb.put(K_SCHEMA, str(SCHEMA_VERSION).encode())
    wb.write()
    db.put(K_SCHEMA, str(SCHEMA_VERSION).encode(), sync=True)
