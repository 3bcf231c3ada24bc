"""A Redis pool's key layout and stored records: what lives where, and how it reads back.

The keys of a pool are split into key groups by host (``docs/redis.md``); the records are
tab-separated strings written by the scripts (``scripts/common.lua`` has their legend). This
module reads them back into the ``Frontier`` rows (``core/frontier.py``); the scripts alone
write them.
"""

from __future__ import annotations

import json
import logging
import zlib
from typing import Any, NamedTuple

from crawler_gui.core.freshness import RateState
from crawler_gui.core.frontier import HostRow, HubRow, PendingRow, RetryRow, hub_learned, retry_row
from crawler_gui.core.policy import Outcome
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError

log = logging.getLogger(__name__)

#: 2: URLs in the WHATWG URL Standard's canonical form. A schema 1 pool is refused until
#: ``crawler-gui migrate`` has rewritten it (:meth:`RedisPool.migrate`): two forms never mix.
SCHEMA_VERSION = 2

#: The URL states of a URL record (its first field), by their one-letter codes.
STATE_NAMES = {"W": "waiting", "D": "done", "F": "failed", "X": "redirected", "R": "retrying"}
#: The outcome of a result as ``status.lua`` takes it.
OUTCOME_CODES = {
    Outcome.DONE: "D",
    Outcome.FAILED: "F",
    Outcome.REFUSED: "N",
    Outcome.REDIRECTED: "X",
    Outcome.RETRY: "R",
    Outcome.THROTTLED: "T",
}

#: Key groups of a pool created on a Redis Cluster (unless ``groups=`` says otherwise): enough
#: to spread a pool over 16 primaries, few enough that an idle ``pop`` stays cheap.
DEFAULT_CLUSTER_GROUPS = 16


def group_of(host: str, groups: int) -> int:
    """The key group of ``host`` in a pool of ``groups`` groups (CRC-32 of the host name)."""
    return zlib.crc32(host.encode("utf-8")) % groups if groups > 1 else 0


def group_prefixes(name: str, groups: int) -> tuple[str, ...]:
    """The key prefixes of a pool's groups. ``groups == 0`` is the single-server layout: one
    group whose keys have no common hash tag (``cg:<name>:``). Otherwise every key of group
    ``k`` starts with ``cg:<name>:{<name>/<k>}:``, so a group lives on one Cluster slot."""
    if groups == 0:
        return (f"cg:{name}:",)
    return tuple(f"cg:{name}:{{{name}/{k}}}:" for k in range(groups))


def url_host(url: str) -> str:
    """The host key of a canonical URL (what the scripts' ``host_of`` reads)."""
    return url.split("://", 1)[-1].split("/", 1)[0]


def canonical_or_empty(url: str) -> str:
    """The canonical form of ``url`` (the key its record is stored under), or ``""``."""
    try:
        return canonicalize(url)[0]
    except InvalidURLError:
        return ""


def _f(value: Any) -> float:
    return float(value) if value not in (None, "") else 0.0


# ---- stored records, read back -----------------------------------------------------------------
def glob_escape(text: str) -> str:
    """``text`` matched literally by a Redis pattern (an IPv6 host has brackets)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def host_rows(hosts_raw: list[Any], now: float) -> list[HostRow]:
    return [
        HostRow(
            name,
            int(wait),
            int(infl),
            int(done),
            int(fail),
            int(retr),
            ls,
            max(_f(na), _f(bo)),
            _f(dl),
            _f(bo) if _f(bo) > now else 0.0,
            _f(le),
            _f(md),
            _f(ud),
            pa == "1",
            bs if _f(bo) > now else "",
            ra == "1",
            db,
        )
        for name, wait, infl, done, fail, retr, ls, na, bo, dl, le, md, ud, pa, bs, ra, db in (
            hosts_raw
        )
    ]


def pending_rows(leases_raw: list[Any]) -> list[PendingRow]:
    rows = []
    for i in range(0, len(leases_raw), 2):
        host, depth, _seq, is_hub, started, expires, worker = leases_raw[i + 1].split("\t", 6)
        rows.append(
            PendingRow(
                leases_raw[i],
                host,
                int(depth),
                is_hub == "1",
                float(started),
                float(expires),
                worker,
            )
        )
    return rows


def retry_rows(retry_raw: list[Any]) -> list[RetryRow]:
    rows = []
    for url, d, a, err, n, t in retry_raw:
        row = retry_row(url, url_host(url), int(d), int(a), err, float(n))
        if not row.backoff:  # the script chose it: from the failure to the next try
            row = row._replace(backoff=max(0.0, float(n) - float(t)))
        rows.append(row)
    return rows


class StoredHub(NamedTuple):
    """A hub record with its learned fields, as the plan needs it."""

    url: str
    host: str
    span: float
    last: float
    due: float
    due_text: str  #: the due time as stored (what the plan script compares)
    in_flight: bool
    fails: int
    parked: str
    planned: float
    reason: str
    state: RateState


def stored_hub(url: str, raw: str) -> StoredHub:
    f = raw.split("\t", 11)
    f += [""] * (12 - len(f))
    span = float(f[1])
    return StoredHub(
        url,
        f[0],
        span,
        float(f[2]),
        float(f[3]),
        f[3],
        f[4] == "1",
        _int_or0(f[7]),
        f[8],
        _float_or(f[9], span),
        f[10],
        _rate_state(url, f[11]),
    )


def _rate_state(url: str, text: str) -> RateState:
    """A stored rate state; an unreadable one is forgotten (the hub learns again)."""
    if not text:
        return RateState()
    try:
        data = json.loads(text)
    except ValueError:
        log.warning("hub %s: its learned rate is unreadable; learning it again", url)
        return RateState()
    return RateState.from_dict(data, url)


def _float_or(text: str, default: float) -> float:
    try:
        return float(text) if text else default
    except ValueError:
        return default


def stored_float(value: Any, default: float) -> float:
    """A number as a script stored it (``None``, empty or unreadable: ``default``), read back
    exactly (``fmt`` writes it again as the same double)."""
    return _float_or(str(value or ""), default)


def hub_fields(raw: str) -> tuple[str, str, str, str, str, str, int, int, str]:
    """A hub record (``common.lua`` ``get_hub``): host, span, last, due, in flight, result,
    crashes, fails, parked; the last three are absent in records of older versions."""
    f = raw.split("\t", 11)
    f += [""] * (12 - len(f))
    return f[0], f[1], f[2], f[3], f[4], f[5], _int_or0(f[6]), _int_or0(f[7]), f[8]


def int_fields(raw: Any) -> dict[str, int]:
    """A counters hash as ``{field: count}`` (fields that are not integers are skipped)."""
    return {str(k): int(v) for k, v in dict(raw or {}).items() if str(v).lstrip("-").isdigit()}


def _int_or0(text: str) -> int:
    try:
        return int(float(text)) if text else 0
    except ValueError:
        return 0


def hub_rows(hubs_raw: list[Any]) -> list[HubRow]:
    rows = []
    for i in range(0, len(hubs_raw), 2):
        host, span, last, due, infl, res, crashes, _fails, parked = hub_fields(hubs_raw[i + 1])
        rec = stored_hub(hubs_raw[i], hubs_raw[i + 1])
        rows.append(
            HubRow(
                hubs_raw[i],
                host,
                float(span),
                float(last),
                res,
                float(due),
                infl == "1",
                parked,
                crashes,
                *hub_learned(rec.span, rec.state, rec.planned, rec.reason or "new"),
            )
        )
    return rows


def fmt(x: float) -> str:
    return repr(float(x)) if x != int(x) else str(int(x))
