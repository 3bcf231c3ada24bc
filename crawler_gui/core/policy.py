"""Policy as small values with pure functions: fetch results, how each is classified, retry
backoff, and per-host politeness.

Nothing here keeps state or reads a clock; the pool passes ``now`` in. A value out of range
is a :class:`~crawler_gui.errors.ConfigError` (a ``ValueError`` too).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crawler_gui.core.freshness import ListSample

from crawler_gui.errors import ConfigError


class ErrorKind(enum.StrEnum):
    """Why a fetch produced no usable HTTP status. Values are stable (they are persisted)."""

    TIMEOUT = "timeout"  #: connect, read or total timeout
    CONNECT = "connect"  #: connection refused / unreachable
    DNS = "dns"  #: the name did not resolve
    RESET = "reset"  #: connection closed or reset mid-response
    PROTOCOL = "protocol"  #: malformed HTTP
    TOO_LARGE = "too_large"  #: body or decompressed body over the cap
    BLOCKED_ADDRESS = "blocked_address"  #: resolved to a loopback/private/... address
    ROBOTS = "robots"  #: disallowed by robots.txt
    OUT_OF_SCOPE = "out_of_scope"  #: a redirect left the crawl's scope
    BAD_REDIRECT = "bad_redirect"  #: 3xx without a usable Location
    REDIRECT_LOOP = "redirect_loop"  #: a redirect chain came back to itself
    TOO_MANY_REDIRECTS = "too_many_redirects"
    UNSUPPORTED = "unsupported"  #: content type not stored and not parsed
    INTERNAL = "internal"  #: a bug in the crawler while handling this URL
    #: robots.txt could not be fetched (5xx, 429, network): the host's pages wait (RFC 9309)
    ROBOTS_UNREACHABLE = "robots_unreachable"

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE_ERRORS

    @property
    def refusal(self) -> bool:
        """A refusal by the crawl's own policy (address, robots.txt, scope), not a failure:
        decided once, never retried, never counted as an error. The pool keeps the reason, so
        a wider policy (``--allow-private``, robots off, a wider scope) can look again."""
        return self in REFUSALS


_RETRYABLE_ERRORS = frozenset(
    {
        ErrorKind.TIMEOUT,
        ErrorKind.CONNECT,
        ErrorKind.DNS,
        ErrorKind.RESET,
        ErrorKind.PROTOCOL,
        ErrorKind.INTERNAL,
        ErrorKind.ROBOTS_UNREACHABLE,
    }
)


#: The error kinds that are refusals by policy (:attr:`ErrorKind.refusal`).
REFUSALS = frozenset({ErrorKind.BLOCKED_ADDRESS, ErrorKind.ROBOTS, ErrorKind.OUT_OF_SCOPE})


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What became of one fetch; the engine hands it to ``Frontier.set_status``.

    ``status`` is the HTTP status of the last response (``None`` when the fetch failed before
    any response: then ``error`` says why, the replaced crawler's "status 0").
    ``redirect_to`` is the canonical-or-raw target of a 3xx the engine did not follow itself;
    ``final_url`` is where a followed redirect chain ended. ``elapsed`` is the response time
    in seconds, used for the politeness delay; ``retry_after`` comes from a 429/503
    ``Retry-After`` header.
    """

    status: int | None = None
    error: ErrorKind | None = None
    retry_after: float | None = None
    redirect_to: str | None = None
    final_url: str | None = None
    elapsed: float = 0.0
    message: str = ""
    #: A hub refresh only: how many of its links the pool had not seen (new articles), for the
    #: hub's rate estimate; None when the refresh was not counted (no page, no links parsed).
    hub_new: int | None = None
    #: A hub refresh only: how many items its list showed (0: unknown).
    hub_listed: int = 0
    #: A hub refresh only: its list's items as the hub's memory of its last list keeps them
    #: (``core/freshness.py``): an item new to *this hub* counts for its own publication rate
    #: even when the pool knew it (a feed found it first). None: no list was read (a 304).
    hub_items: ListSample | None = None

    @property
    def label(self) -> str:
        """Short text for tables: ``"200"``, ``"timeout"``, ``"503"``."""
        if self.status is not None:
            return str(self.status)
        return str(self.error or "error")


class Outcome(enum.Enum):
    DONE = "done"  #: permanent success
    FAILED = "failed"  #: permanent failure
    REFUSED = "refused"  #: refused by policy (address, robots.txt, scope): permanent, no error
    REDIRECTED = "redirected"  #: done; the target is queued
    RETRY = "retry"  #: try again later with backoff
    THROTTLED = "throttled"  #: try again after Retry-After; slow the whole host down


def classify(result: FetchResult) -> Outcome:
    """Map a fetch result to what the pool does with the URL."""
    status = result.status
    if result.error is not None and result.error.refusal:
        return Outcome.REFUSED  # also a 3xx whose target left the scope
    if status is None:
        if result.error is not None and result.error.retryable:
            return Outcome.RETRY
        return Outcome.FAILED
    if 200 <= status < 300:
        return Outcome.DONE
    if 300 <= status < 400:
        if status == 304:
            return Outcome.DONE
        return Outcome.REDIRECTED if result.redirect_to else Outcome.FAILED
    if status in (429, 503):
        return Outcome.THROTTLED
    if status in (408, 425) or status >= 500:
        return Outcome.RETRY
    return Outcome.FAILED  # 404, 410 and the other 4xx are permanent


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how late a failing URL is tried again.

    ``failure_threshold`` is the replaced crawler's: the number of failed attempts a URL may
    have; the attempt that goes over it makes the failure permanent. The delay before attempt
    ``n + 1`` after ``n`` failures is ``base * factor ** (n - 1)``, at most ``maximum``.
    """

    failure_threshold: int = 3
    base: float = 30.0
    factor: float = 2.0
    maximum: float = 3600.0
    #: Delay used for 429/503 without a Retry-After header.
    throttle_default: float = 60.0
    #: A Retry-After longer than this is capped (a hostile server cannot park a URL for years).
    throttle_maximum: float = 6 * 3600.0

    def __post_init__(self) -> None:
        if self.failure_threshold < 0:
            raise ConfigError("failure_threshold must be >= 0")
        if self.base < 0 or self.factor < 1 or self.maximum < 0:
            raise ConfigError("backoff must be non-negative and not shrink")

    def gives_up(self, failures: int) -> bool:
        """True when ``failures`` failed attempts make the failure permanent."""
        return failures > self.failure_threshold

    def delay(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return float(min(self.maximum, self.base * self.factor ** (failures - 1)))

    def throttle_delay(self, retry_after: float | None) -> float:
        if retry_after is None or retry_after < 0:
            return self.throttle_default
        return float(min(self.throttle_maximum, retry_after))


@dataclass(frozen=True, slots=True)
class Politeness:
    """Per-host politeness, as Heritrix does it.

    After a response the host waits ``max(min_delay, delay_factor * response_time)`` (capped at
    ``max_delay``) before its next request; a robots.txt ``Crawl-delay`` raises the minimum for that
    host. ``max_in_flight`` is the number of URLs one host may have in flight at once.
    """

    min_delay: float = 1.0
    delay_factor: float = 2.0
    max_delay: float = 30.0
    max_in_flight: int = 1

    def __post_init__(self) -> None:
        if self.min_delay < 0 or self.delay_factor < 0 or self.max_delay < 0:
            raise ConfigError("politeness delays must be non-negative")
        if self.max_in_flight < 1:
            raise ConfigError("max_in_flight must be at least 1")

    def delay_after(self, elapsed: float, host_minimum: float = 0.0) -> float:
        floor = max(self.min_delay, host_minimum)
        return float(max(floor, min(self.max_delay, self.delay_factor * max(0.0, elapsed))))


@dataclass(frozen=True, slots=True)
class PoolConfig:
    """Everything that shapes a pool's behaviour; persisted nowhere, given at open."""

    #: Seconds a popped URL stays leased before the pool takes it back (the replaced crawler's
    #: ``pending_threshold``).
    pending_threshold: float = 300.0
    #: Maximum depth of an added URL (the replaced crawler's ``limit_level``); ``None``: no
    #: limit.
    max_depth: int | None = None
    #: Maximum waiting URLs per host; further adds are counted as overflow. ``None`` is unlimited.
    max_per_host: int | None = None
    max_url_length: int = 2048
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    politeness: Politeness = field(default_factory=Politeness)
    #: ``adaptive``: hubs share the budget of their spans by learned rate
    #: (``core/freshness.py``); ``fixed``: each hub on its own span.
    hub_refresh: str = "adaptive"
    #: Adaptive refresh: no hub faster than this (nor than its host's politeness), seconds.
    hub_span_min: float = 5.0
    #: Adaptive refresh: no hub slower than this (a silent hub is still checked), seconds.
    hub_span_max: float = 3600.0
    #: fsync every write batch (survives power loss, slowest). Off: see ``sync_seconds``.
    sync: bool = False
    #: With ``sync`` off, a thread fsyncs the database's log at most this many seconds after a
    #: write (the writer never waits for the disk): a power cut loses at most about this much
    #: of the crawl's writes. 0: every batch is synced, as with ``sync``. ``None``:
    #: never (a crash of the process still loses nothing; a power cut can lose whatever the
    #: OS had not written yet). docs/storage.md, "What a power cut can lose".
    sync_seconds: float | None = 1.0

    def __post_init__(self) -> None:
        if self.pending_threshold <= 0:
            raise ConfigError("pending_threshold must be positive")
        if self.max_depth is not None and self.max_depth < 0:
            raise ConfigError("max_depth must be >= 0")
        if self.max_per_host is not None and self.max_per_host < 1:
            raise ConfigError("max_per_host must be >= 1")
        if self.sync_seconds is not None and not self.sync_seconds >= 0:
            raise ConfigError("sync_seconds must be >= 0")
