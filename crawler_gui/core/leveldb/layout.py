"""The LevelDB pool's key layout and record codecs (documented in ``docs/storage.md``).

Every key prefix, every packed record (URL, lease, host, queue entry) and the in-memory
records that mirror a stored one (:class:`Host`, :class:`Hub`, :class:`Retry`) live here, so
that the pool, its snapshot I/O, its repair and its migration all read and write one format.
"""

from __future__ import annotations

import struct
from typing import Any

from crawler_gui.core import snapshot_file
from crawler_gui.core.freshness import RateState, SpanReason

#: 2: keys are the WHATWG URL Standard's canonical form (``migrate.py`` moves the keys of a
#: schema 1 pool when it is opened).
SCHEMA_VERSION = 2
DB_DIRNAME = "frontier"

# ---- key layout (docs/storage.md) -------------------------------------------------------------
K_SCHEMA = b"m/schema_version"
K_SEQ = b"m/seq"
P_URL = b"u/"  # u/<url> -> URL record
P_QUEUE = b"q/"  # q/<host>\x00<depth u16><seq u64> -> url
P_LEASE = b"l/"  # l/<url> -> lease record
P_RETRY = b"r/"  # r/<url> -> retry record (JSON)
P_HUB = b"h/"  # h/<url> -> hub record (JSON)
P_HOST = b"s/"  # s/<host> -> host record
P_COUNTER_MINUTE = b"c/m/"  # c/m/<minute u64> -> that minute's counters (JSON)
P_COUNTER_HOST = b"c/h/"  # c/h/<host> -> the host's counters (JSON)
K_COUNTER_DELAYS = b"c/d"  # the article-delay histogram (JSON)
P_REFUSAL = b"n/"  # n/<url> -> reason TAB redirect target (a URL refused by policy; also F)

# URL record: state, depth, attempts, seq, time; then the referrer (or redirect target), UTF-8.
UREC = struct.Struct(">cHHQd")
# Lease record: started, expires, depth, seq, is_hub.
LREC = struct.Struct(">ddHQB")
# Host record: waiting, done, failed, retrying, redirected, min_delay, backoff_until, next_allowed.
HREC = struct.Struct(">QQQQQddd")
# ... then (absent in records of older versions) the inputs of the host's wait: the delay in
# force f64, the last response time f64, the user's delay f64 (< 0: none), flags u8 (1 paused,
# 2 backoff from Retry-After), the status that started the backoff u16, and the delay's basis
# (1 byte, DELAY_BASES).
HEXT = struct.Struct(">dddBHc")
QSUFFIX = struct.Struct(">HQ")
SEQ = struct.Struct(">Q")

W, D, F, X, R = b"W", b"D", b"F", b"X", b"R"  # waiting, done, failed, redirected, retrying
STATE_NAMES = {W: "waiting", D: "done", F: "failed", X: "redirected", R: "retrying"}


def queue_key(host: str, depth: int, seq: int) -> bytes:
    return P_QUEUE + host.encode() + b"\x00" + QSUFFIX.pack(depth, seq)


QVAL = struct.Struct(">H")


def queue_value(url: str, attempts: int, referrer: str | None) -> bytes:
    """Queue value: attempts (u16), the URL, then NUL and the referrer if any."""
    head = QVAL.pack(min(attempts, 65535)) + url.encode()
    if not referrer:
        return head
    return head + b"\x00" + referrer.replace("\x00", "").encode("utf-8", "backslashreplace")


def read_queue_value(raw: bytes) -> tuple[str, int, str | None]:
    (attempts,) = QVAL.unpack_from(raw)
    url, sep, ref = raw[QVAL.size :].partition(b"\x00")
    return url.decode(), attempts, ref.decode() if sep else None


def url_record(
    state: bytes, depth: int, attempts: int, seq: int, t: float, extra: str | None
) -> bytes:
    rec = UREC.pack(state, min(depth, 65535), min(attempts, 65535), seq, t)
    return rec + extra.encode("utf-8", "backslashreplace") if extra else rec


def read_url_record(raw: bytes) -> tuple[bytes, int, int, int, float, str | None]:
    state, depth, attempts, seq, t = UREC.unpack_from(raw)
    extra = raw[UREC.size :].decode() if len(raw) > UREC.size else None
    return state, depth, attempts, seq, t, extra


class Host:
    """Per-host bookkeeping kept in RAM (and mirrored in ``s/<host>``)."""

    __slots__ = (
        "backoff_status",
        "backoff_until",
        "basis",
        "buf",
        "buf_complete",
        "cursor",
        "delay",
        "done",
        "failed",
        "in_flight",
        "last_elapsed",
        "last_status",
        "min_delay",
        "name",
        "next_allowed",
        "paused",
        "prefix",
        "queued",
        "redirected",
        "retry_after",
        "retrying",
        "user_delay",
        "version",
        "waiting",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.waiting = 0
        self.in_flight = 0
        self.done = 0
        self.failed = 0
        self.retrying = 0
        self.redirected = 0
        self.min_delay = 0.0
        self.backoff_until = 0.0
        self.next_allowed = 0.0
        self.delay = 0.0
        self.last_status = ""
        self.last_elapsed = 0.0
        self.user_delay = -1.0
        self.paused = False
        self.backoff_status = 0
        self.retry_after = False
        self.basis = b" "
        self.version = 0
        # Read-ahead: the first queue entries of this host, in key order. Each entry is the
        # queue key's suffix (depth, seq; 10 bytes) followed by the queue value.
        self.buf: list[bytes] = []
        self.buf_complete = True  # the buffer holds the whole queue
        # Every queued key of this host is >= cursor: refills seek here instead of the prefix
        # start, so they never wade through the tombstones of popped entries.
        self.cursor = b""  # a queue-key suffix (depth, seq)
        self.prefix = P_QUEUE + name.encode() + b"\x00"
        self.queued = False  # in the ready deque or the sleep heap

    def pack(self) -> bytes:
        return HREC.pack(
            self.waiting,
            self.done,
            self.failed,
            self.retrying,
            self.redirected,
            self.min_delay,
            self.backoff_until,
            self.next_allowed,
        ) + HEXT.pack(
            self.delay,
            self.last_elapsed,
            self.user_delay,
            (1 if self.paused else 0) | (2 if self.retry_after else 0),
            self.backoff_status,
            self.basis,
        )

    def unpack(self, raw: bytes) -> None:
        (
            self.waiting,
            self.done,
            self.failed,
            self.retrying,
            self.redirected,
            self.min_delay,
            self.backoff_until,
            self.next_allowed,
        ) = HREC.unpack_from(raw)
        if len(raw) >= HREC.size + HEXT.size:
            dl, le, ud, flags, bs, basis = HEXT.unpack_from(raw, HREC.size)
            self.delay, self.last_elapsed, self.user_delay, self.backoff_status = dl, le, ud, bs
            self.basis = basis
            self.paused, self.retry_after = bool(flags & 1), bool(flags & 2)
        self.buf_complete = self.waiting == 0

    def allowed_at(self) -> float:
        return max(self.next_allowed, self.backoff_until)


class Hub:
    __slots__ = (
        "crashes",
        "due",
        "fails",
        "host",
        "in_flight",
        "last_refresh",
        "last_result",
        "parked",
        "planned",
        "rate",
        "reason",
        "span",
        "url",
    )

    def __init__(self, url: str, host: str, span: float) -> None:
        self.url = url
        self.host = host
        self.span = span
        self.last_refresh = 0.0
        self.last_result = ""
        self.due = 0.0
        self.in_flight = False
        #: Leases of this hub lost in a row (the process died, or the lease expired): a hub
        #: that kills the process is parked after as many as a page may lose.
        self.crashes = 0
        #: Ordinary failed refreshes in a row: the backoff grows with them, up to the span.
        self.fails = 0
        #: Why the hub is parked (``hub_parked``), "" when it is not. A parked hub is never
        #: due until the user refreshes it.
        self.parked = ""
        #: What its refreshes taught (``core/freshness.py``), persisted with the record.
        self.rate = RateState()
        #: The span the refresh plan gives it, and why (recomputed on open: not stored).
        self.planned = span
        self.reason = SpanReason.FIXED.value

    def to_json(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "span": self.span,
            "last": self.last_refresh,
            "result": self.last_result,
            "due": self.due,
        }
        if self.crashes:
            rec["crashes"] = self.crashes
        if self.fails:
            rec["fails"] = self.fails
        if self.parked:
            rec["parked"] = self.parked
        if self.rate.refreshes or self.rate.observed:
            rec["rate"] = self.rate.to_dict()
        return rec

    def read_extra(self, rec: dict[str, Any]) -> None:
        """The counters, the parked reason and the rate state of a stored or snapshot hub
        record (absent in records of older versions: zero, not parked, nothing learned)."""
        self.crashes = int(rec.get("crashes", 0) or 0)
        self.fails = int(rec.get("fails", 0) or 0)
        self.parked = str(rec.get("parked", "") or "")
        self.rate = RateState.from_dict(rec.get("rate"), self.url)


class Retry:
    __slots__ = ("attempts", "depth", "host", "last_error", "next_try", "referrer", "seq", "url")

    def __init__(
        self,
        url: str,
        host: str,
        depth: int,
        attempts: int,
        last_error: str,
        next_try: float,
        seq: int,
        referrer: str | None,
    ) -> None:
        self.url = url
        self.host = host
        self.depth = depth
        self.attempts = attempts
        self.last_error = last_error
        self.next_try = next_try
        self.seq = seq
        self.referrer = referrer

    def to_json(self) -> bytes:
        return snapshot_file.dumps({"a": self.attempts, "e": self.last_error, "n": self.next_try})
