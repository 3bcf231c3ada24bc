"""The URL pool on Redis: one frontier shared by many headless workers.

Same semantics as :class:`~crawler_gui.core.leveldb_pool.LevelDBPool` (``docs/frontier.md``):
breadth-first queues per host, one URL per host in flight (across *all* workers), politeness
delays, leases that expire and come back, retries with backoff, hubs, snapshots in the same
portable file format. Every change that must be atomic is one Lua script (``redis_scripts/``),
run with EVALSHA; Python only canonicalizes, classifies results and shapes the replies. Time
is the pool's injected clock, passed into every script (never the Redis server's ``TIME``).

The key layout, the Redis Cluster story and the durability advice are in ``docs/redis.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import math
import os
import socket
import uuid
import zlib
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import redis
import redis.asyncio as aredis
import redis.asyncio.cluster as acluster
import redis.cluster
import redis.exceptions
from redis.commands.core import AsyncScript
from redis.typing import EncodableT, FieldT

from crawler_gui.core import snapshot_file
from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.counters import Counters
from crawler_gui.core.freshness import HubInput, RateState, plan_one, plan_spans
from crawler_gui.core.frontier import (
    AddReport,
    AddRequest,
    FailedRow,
    HostRow,
    HubRow,
    HubSpec,
    Lease,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    Refusal,
    RetryRow,
    WaitingPage,
    WaitingRow,
    WorkerRow,
    hub_learned,
    outcome_record,
    pack_failure,
    pack_retry,
    referrer_of,
    retry_row,
    unpack_failure,
    unpack_retry,
)
from crawler_gui.core.policy import ErrorKind, FetchResult, Outcome, PoolConfig
from crawler_gui.core.pool_rules import (
    checked_adds,
    checked_hubs,
    hub_outcome,
    outcome_of,
    retry_schedule,
)
from crawler_gui.core.pool_url import parse_pool_url, parse_pool_url_full
from crawler_gui.core.redact import redact_url
from crawler_gui.core.snapshot_records import (
    HostRecord,
    HubRecord,
    SnapshotRecord,
    UrlRecord,
    read_records,
)
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import (
    InvalidURLError,
    PoolBusyError,
    PoolClosedError,
    PoolError,
    PoolURLError,
    PoolVersionError,
    RedisAuthError,
    RedisUnreachableError,
    SnapshotFormatError,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: 2: URLs in the WHATWG URL Standard's canonical form. A schema 1 pool is refused until
#: ``crawler-gui migrate`` has rewritten it (:meth:`RedisPool.migrate`): two forms never mix.
SCHEMA_VERSION = 2
CHUNK = 2000  # URLs per add script: one script blocks Redis for a few milliseconds at most
#: A worker makes the hub refresh plan again at most this often (seconds): it reads every hub
#: record. In between, a hub whose rate changed gets its span at the last plan's level.
REDIS_REPLAN_SECONDS = 10.0
#: URLs (or hubs, or hosts) per export script of a snapshot save: a few milliseconds each.
EXPORT_CHUNK = 2000
#: Waiting URLs one ``forget`` edit drops (a host's whole queue takes several).
FORGET_CHUNK = 1000
#: Commands per pipeline of a counters flush or read.
COUNTER_PIPELINE = 1000
STAGING_TTL = 3600  # seconds a half-built snapshot load may linger after a crash

STATE_NAMES = {"W": "waiting", "D": "done", "F": "failed", "X": "redirected", "R": "retrying"}
_OUTCOME_CODES = {
    Outcome.DONE: "D",
    Outcome.FAILED: "F",
    Outcome.REFUSED: "N",
    Outcome.REDIRECTED: "X",
    Outcome.RETRY: "R",
    Outcome.THROTTLED: "T",
}
_SCRIPTS = (
    "pop",
    "add",
    "status",
    "reclaim",
    "release",
    "hubs",
    "edit",
    "snapshot",
    "next_due",
    "export",
    "swap",
)
#: Key groups of a pool created on a Redis Cluster (unless ``groups=`` says otherwise): enough
#: to spread a pool over 16 primaries, few enough that an idle ``pop`` stays cheap.
DEFAULT_CLUSTER_GROUPS = 16
#: Snapshot versions remembered per client, to answer ``snapshot(since=...)`` on a pool of
#: several key groups (whose version is a vector; see ``RedisPool.snapshot``).
_VERSION_MEMO = 16
#: The ``since`` of :meth:`RedisPool.totals`'s read: above any real version, so that the
#: snapshot script returns no host rows.
_NO_HOSTS = 2**53
#: A worker's row is dropped from the ``workers`` hash after this long without a heartbeat.
WORKER_FORGET_SECONDS = 86400.0
#: Seconds to wait for a TCP connection to the server unless the URL says otherwise
#: (``socket_connect_timeout=``): an unreachable host fails fast with a clear error.
CONNECT_TIMEOUT = 10.0
#: Seconds a pool operation keeps retrying (with backoff) while the server cannot be reached,
#: e.g. during a redis-server restart, before it fails (``--redis-retry`` on the command line).
RECONNECT_SECONDS = 120.0
#: Pauses between two tries: from the first to the last, doubling.
_RETRY_FIRST, _RETRY_MAX = 0.1, 5.0
#: Scripts never tried twice: a swap whose reply was lost may have happened.
_NO_RETRY = frozenset({"swap"})
#: What "the server is not there right now" looks like (BusyLoadingError, a server still
#: loading its data after a restart, is a ConnectionError).
_TRANSIENT = (redis.ConnectionError, redis.TimeoutError, ConnectionError, TimeoutError)


def _connect_error(url: str, exc: Exception) -> PoolError:
    """A clear PoolError for a failure to talk to the server at all."""
    shown = redact_url(url)
    text = str(exc)
    if isinstance(
        exc, redis.exceptions.AuthenticationError | redis.exceptions.AuthorizationError
    ) or text.startswith(("NOAUTH", "WRONGPASS", "NOPERM", "invalid username-password")):
        return RedisAuthError(
            f"the Redis server at {shown} refused the credentials: {text} (give them in the "
            "URL: redis://user:password@host:port/db?name=...)"
        )
    if isinstance(exc, redis.ConnectionError | redis.TimeoutError):
        return RedisUnreachableError(
            f"cannot reach the Redis server at {shown}: {text} (is redis-server running, and "
            "are the host and port right?)"
        )
    return PoolError(f"the Redis server at {shown} failed: {text}")


def _load_scripts() -> dict[str, str]:
    folder = resources.files("crawler_gui.core").joinpath("redis_scripts")
    common = folder.joinpath("common.lua").read_text(encoding="utf-8")
    return {
        name: common + "\n" + folder.joinpath(f"{name}.lua").read_text(encoding="utf-8")
        for name in _SCRIPTS
    }


_SOURCES = _load_scripts()
#: Small scripts on one key of their own (no common prelude).
_PLAIN_SOURCES = {
    # init(schema, groups) on the pool-wide meta hash: create the pool unless it exists, in one
    # step (two workers creating one pool agree on its layout) -> {schema, groups}
    "init": """
if redis.call('HEXISTS', KEYS[1], 'schema') == 0 then
  redis.call('HSET', KEYS[1], 'schema', ARGV[1], 'groups', ARGV[2])
end
return redis.call('HMGET', KEYS[1], 'schema', 'groups')
""",
    # set_paused(flag) -> the new generation
    "pause": """
redis.call('HSET', KEYS[1], 'paused', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'generation', 1)
""",
}


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


def _unique_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _f(value: Any) -> float:
    return float(value) if value not in (None, "") else 0.0


async def _close_with_loop(client: aredis.Redis) -> AsyncIterator[None]:
    """Closes ``client`` when its event loop shuts down (``asyncio.run`` finalizes async
    generators before closing the loop), so no connection outlives its loop."""
    try:
        yield
    finally:
        await client.aclose()


@dataclass(slots=True)
class _LoopClient:
    loop: asyncio.AbstractEventLoop
    client: aredis.Redis
    guard: AsyncIterator[None]
    scripts: dict[str, AsyncScript] = field(default_factory=dict)


class RedisPool:
    """A URL pool in Redis, shared by every worker that opens the same server and name.

    Implements the ``Frontier`` interface. ``worker`` identifies this client's leases: a worker
    that opens the pool again under the same id is taken to be the same worker restarted, and
    the leases of its previous life are reclaimed at once (one attempt counted), as the LevelDB
    pool does at open. Leases of a worker that never comes back return when they expire.

    The pool's keys are split into *key groups* by host (``docs/redis.md``): one group on a
    single server by default, 16 on a Redis Cluster, each group on one Cluster slot. Every
    script runs within one group; an operation over many hosts runs one script per group.

    One ``RedisPool`` object is used from one event loop at a time; when the loop changes (a
    new ``asyncio.run``) it reconnects, and the old loop's connections are closed with it.
    """

    def __init__(
        self,
        redis_url: str,
        name: str,
        worker: str,
        config: PoolConfig,
        clock: Clock,
        *,
        groups: int | None = None,
        reconnect_seconds: float = RECONNECT_SECONDS,
    ) -> None:
        self.redis_url = redis_url
        #: How long an operation keeps retrying while the server cannot be reached.
        self.reconnect_seconds = reconnect_seconds
        self._outage_since: float | None = None
        self.name = name
        self.worker = worker
        self.config = config
        self.clock = clock
        #: Prefix of the pool-wide keys (``meta``: schema, layout, pause, generation; ``scope``).
        self.prefix = f"cg:{name}:"
        #: Key prefix of each key group (set at open from the pool's own record).
        self.groups: tuple[str, ...] = (self.prefix,)
        #: True when the server is a Redis Cluster node.
        self.cluster = False
        self._groups_wanted = groups
        self._versions: dict[int, tuple[int, ...]] = {}
        self._closed = False
        #: The refresh plan's water level (``core/freshness.py``), when this worker made it,
        #: and the hubs per host it saw (the politeness bound).
        self._plan_level: float | None = None
        self._planned_at = -math.inf
        self._hubs_per_host: dict[str, int] = {}
        self._lc: _LoopClient | None = None
        self._sync: redis.Redis | redis.cluster.RedisCluster | None = None
        self._scope_listener: Callable[[set[str]], None] | None = None
        self._scope_seen = -1
        self._older_schema = False
        #: The schema the pool was written with (found at open).
        self.schema = SCHEMA_VERSION

    # ---- opening ------------------------------------------------------------------------------
    @classmethod
    async def open(
        cls,
        url: str,
        config: PoolConfig | None = None,
        clock: Clock | None = None,
        *,
        worker: str | None = None,
        reconnect_seconds: float = RECONNECT_SECONDS,
        older_schema: bool = False,
    ) -> RedisPool:
        """Open (or create) the pool ``name`` on the Redis server of ``url``.

        ``url`` is ``redis://host:port/db?name=news`` (name defaults to ``default``; a
        ``worker=`` query parameter is the same as the ``worker`` argument; ``groups=N`` sets
        the number of key groups of a pool being created). The URL may name any node of a
        Redis Cluster: the cluster is detected. Without a worker id a unique one is made up
        (``hostname:pid:random``). Raises PoolError when the server cannot be reached,
        PoolVersionError when the pool was written by a newer version.

        A pool of an older schema is refused (PoolVersionError saying how to migrate it)
        unless ``older_schema`` (only :meth:`migrate` opens one, to rewrite it).

        Once open, an operation that finds the server gone (a redis-server restart, a network
        cut) retries with backoff for up to ``reconnect_seconds`` before it fails; the worker's
        leases stay in the pool meanwhile (nothing is reclaimed on reconnection).
        """
        redis_url, name, url_worker, groups = parse_pool_url_full(url)
        worker = worker or url_worker or _unique_worker_id()
        if "\t" in worker:
            raise PoolError("a worker id cannot contain a tab")
        pool = cls(
            redis_url,
            name,
            worker,
            config or PoolConfig(),
            clock or SystemClock(),
            groups=groups,
            reconnect_seconds=reconnect_seconds,
        )
        pool._older_schema = older_schema
        try:
            await pool._start()
        except (ValueError, TypeError) as exc:  # redis-py's URL parser: a bad value, ...
            await pool.close()
            raise PoolURLError(f"invalid Redis URL {redact_url(url)!r}: {exc}") from exc
        except BaseException:
            await pool.close()
            raise
        return pool

    @classmethod
    async def exists(cls, url: str) -> bool:
        """Is there a pool of that name on that server? (Opening one would create it: a
        read-only command asks first.)"""
        redis_url, name, _worker, _groups = parse_pool_url_full(url)
        pool = cls(redis_url, name, "probe", PoolConfig(), SystemClock())
        try:
            await pool._detect_cluster()
            client = await pool._client()
            with pool._errors():
                return bool(await client.exists(pool.prefix + "meta"))
        except (ValueError, TypeError) as exc:  # redis-py's URL parser
            raise PoolURLError(f"invalid Redis URL {redact_url(url)!r}: {exc}") from exc
        finally:
            await pool.close()

    async def _start(self) -> None:
        await self._detect_cluster()
        lc = await self._loop_client()
        wanted = self._groups_wanted or (DEFAULT_CLUSTER_GROUPS if self.cluster else 0)
        try:
            found, layout = await lc.scripts["init"](
                keys=[self.prefix + "meta"], args=[SCHEMA_VERSION, wanted]
            )
        except (redis.RedisError, OSError) as exc:
            raise _connect_error(self.redis_url, exc) from exc
        try:
            version = int(str(found))
            groups = int(str(layout or 0))  # no field: a pool made before key groups existed
        except (TypeError, ValueError) as exc:
            raise PoolError(f"{self.prefix}meta holds an unreadable schema or layout") from exc
        if version > SCHEMA_VERSION:
            raise PoolVersionError(
                f"the Redis pool {self.name!r} was written by a newer crawler-gui (pool schema "
                f"{version}; this version reads {SCHEMA_VERSION})"
            )
        if self._groups_wanted is not None and self._groups_wanted != groups:
            raise PoolError(
                f"the Redis pool {self.name!r} exists with {groups or 1} key group(s); groups= "
                "only applies when a pool is created (move it with save and load)"
            )
        if self.cluster and groups == 0:
            raise PoolError(
                f"the Redis pool {self.name!r} has the single-server key layout, which a Redis "
                "Cluster cannot serve; save it on its server and load it into the cluster"
            )
        if version < SCHEMA_VERSION and not self._older_schema:
            raise PoolVersionError(
                f"the Redis pool {self.name!r} keeps its URLs in the form of an older "
                f"crawler-gui (pool schema {version}); stop its workers and run "
                "'crawler-gui migrate' once with this pool's URL"
            )
        self.schema = version
        self.groups = group_prefixes(self.name, groups)
        n = await self.reclaim_worker(self.worker)
        if n:
            log.warning("reclaimed %d leases left by a previous run of worker %s", n, self.worker)
        log.info(
            "redis pool %s opened on %s%s as worker %s",
            self.name,
            redact_url(self.redis_url),
            f" (cluster, {len(self.groups)} key groups)" if self.cluster else "",
            self.worker,
        )

    async def _detect_cluster(self) -> None:
        """Is the server a Cluster node? One INFO on a plain connection."""
        probe = aredis.Redis.from_url(
            self.redis_url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT
        )
        try:
            info = await probe.info("cluster")
        except (redis.RedisError, OSError) as exc:
            raise _connect_error(self.redis_url, exc) from exc
        finally:
            await probe.aclose()
        self.cluster = str(info.get("cluster_enabled", "0")) == "1"

    # ---- connection per event loop ------------------------------------------------------------
    async def _client(self) -> aredis.Redis:
        return (await self._loop_client()).client

    async def _loop_client(self) -> _LoopClient:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        loop = asyncio.get_running_loop()
        lc = self._lc
        if lc is None or lc.loop is not loop:
            client: Any
            if self.cluster:
                client = acluster.RedisCluster.from_url(
                    self.redis_url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT
                )
            else:
                client = aredis.Redis.from_url(
                    self.redis_url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT
                )
            guard = _close_with_loop(client)
            await guard.__anext__()  # registered with this loop's async generator hooks
            lc = _LoopClient(loop, client, guard)
            lc.scripts = {name: client.register_script(src) for name, src in _SOURCES.items()}
            for name, src in _PLAIN_SOURCES.items():
                lc.scripts[name] = client.register_script(src)
            self._lc = lc
        return lc

    def _group(self, host: str) -> str:
        """The key prefix of ``host``'s group."""
        groups = self.groups
        return groups[group_of(host, len(groups))] if len(groups) > 1 else groups[0]

    def _group_of_url(self, url: str) -> str:
        return self._group(url_host(url))

    async def _run(
        self, script: str, group: str, *args: str | int | float, now: float | None = None
    ) -> Any:
        """Run a pool script on one key group (``group`` is its prefix)."""
        head: list[str | int | float] = [
            group,
            self.clock.now() if now is None else now,
            self.config.politeness.max_in_flight,
        ]

        async def call() -> Any:
            lc = await self._loop_client()
            return await lc.scripts[script](keys=[group + "meta"], args=head + list(args))

        try:
            if script in _NO_RETRY:
                return await call()
            return await self._retrying(call)
        except redis.ResponseError as exc:
            if str(exc).startswith("BUSY "):
                raise PoolBusyError(
                    f"{str(exc)[5:]} URLs are in flight; stop every worker before loading a "
                    "snapshot"
                ) from exc
            raise PoolError(f"the Redis pool script {script!r} failed: {exc}") from exc
        except redis.RedisError as exc:
            raise PoolError(
                f"the Redis pool at {redact_url(self.redis_url)} failed: {exc}"
            ) from exc

    async def _retrying(self, call: Callable[[], Awaitable[_T]]) -> _T:
        """``call()``, tried again with backoff while the server cannot be reached, for up to
        :attr:`reconnect_seconds` from the start of the outage; then its error is raised.

        A script whose reply was lost with the connection may have run: every pool script is
        safe to run twice (a result for a URL no longer in flight is ignored, an added URL is
        deduplicated), except a ``pop``, whose leases then wait for their expiry (as after a
        SIGKILL), and ``swap``, which is never retried."""
        delay = _RETRY_FIRST
        while True:
            try:
                result = await call()
            except _TRANSIENT as exc:
                if self._closed:
                    raise
                loop_now = asyncio.get_running_loop().time()
                if self._outage_since is None:
                    self._outage_since = loop_now
                    log.warning(
                        "lost the Redis server at %s (%s); retrying for up to %.0f s",
                        redact_url(self.redis_url),
                        exc,
                        self.reconnect_seconds,
                    )
                left = self._outage_since + self.reconnect_seconds - loop_now
                if left <= 0:
                    raise
                await asyncio.sleep(min(delay, left))
                delay = min(delay * 2, _RETRY_MAX)
                continue
            if self._outage_since is not None:
                gone = asyncio.get_running_loop().time() - self._outage_since
                self._outage_since = None
                log.warning(
                    "the Redis server at %s is back after %.1f s",
                    redact_url(self.redis_url),
                    gone,
                )
            return result

    def _sync_client(self) -> Any:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if self._sync is None:
            kind: Any = redis.cluster.RedisCluster if self.cluster else redis.Redis
            self._sync = kind.from_url(
                self.redis_url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT
            )
        return self._sync

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Plain Redis commands (outside the scripts) fail with a clear PoolError too."""
        try:
            yield
        except redis.RedisError as exc:
            raise PoolError(
                f"the Redis pool at {redact_url(self.redis_url)} failed: {exc}"
            ) from exc

    # ---- adding -------------------------------------------------------------------------------
    async def add(
        self, url: str, depth: int = 0, referrer: str | None = None, *, always: bool = False
    ) -> AddReport:
        return await self.add_many([AddRequest(url, depth, referrer)], always=always)

    async def add_many(
        self, items: Iterable[AddRequest | str], *, always: bool = False
    ) -> AddReport:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        report = AddReport()
        chunk: list[AddRequest | str] = []
        for item in items:
            chunk.append(item)
            if len(chunk) >= CHUNK:
                report.merge(await self._add_chunk(chunk, always))
                chunk = []
        if chunk:
            report.merge(await self._add_chunk(chunk, always))
        return report

    async def _add_chunk(self, items: list[AddRequest | str], always: bool) -> AddReport:
        report = AddReport()
        refused: Counter[str] = Counter()
        batch: dict[str, None] = {}
        by_group: dict[str, tuple[list[str | int], list[str]]] = {}
        for raw, url, host, depth, referrer in checked_adds(items, self.config, report, refused):
            if url in batch:
                report.duplicate += 1
                continue
            batch[url] = None
            args, raws = by_group.setdefault(self._group(host), ([], []))
            raws.append(raw)
            args += [url, host, min(max(0, int(depth)), 65535), referrer or ""]
        if refused and not by_group:
            by_group[self.groups[0]] = ([], [])
        cap = -1 if self.config.max_per_host is None else self.config.max_per_host
        for group, (args, raws) in by_group.items():
            head: list[str | int] = ["1" if always else "0", cap, len(refused)]
            for reason, n in refused.items():
                head += [reason, n]
            refused = Counter()  # counted once, by the first group's script
            reply = await self._run("add", group, *head, *args)
            report.added += int(reply[0])
            report.duplicate += int(reply[1])
            for index in reply[2:]:
                report.overflow += 1
                report.refused.append((raws[int(index) - 1], "host_full"))
        return report

    # ---- popping ------------------------------------------------------------------------------
    async def pop(self, count: int, hub_percent: int = 50) -> list[Lease]:
        """Lease up to ``count`` URLs (``docs/frontier.md``). On a pool of several key groups
        one pipelined read plans the batch (:meth:`_plan_pop`) and one script per group that
        has something due leases it."""
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if count <= 0:
            return []
        cfg = self.config
        now = self.clock.now()
        expires = now + cfg.pending_threshold
        quota = math.ceil(count * max(0, min(100, hub_percent)) / 100)
        if len(self.groups) == 1:
            plan = [(self.groups[0], count, quota)]
        else:
            plan = await self._plan_pop(count, quota, now)
        leases: list[Lease] = []
        hubs = 0
        for group, asked, want_hubs in plan:
            want = min(asked, count - len(leases))
            if want <= 0:
                continue
            reply = await self._run(
                "pop",
                group,
                want,
                min(want_hubs, quota - hubs),
                expires,
                self.worker,
                cfg.retry.failure_threshold,
                now=now,
            )
            for i in range(0, len(reply), 5):
                lease = Lease(
                    reply[i],
                    reply[i + 1],
                    int(reply[i + 2]),
                    reply[i + 3] == "1",
                    now,
                    expires,
                    reply[i + 4] or None,
                )
                hubs += lease.is_hub
                leases.append(lease)
        if leases and self._scope_listener is not None:
            await self._check_scope((await self._loop_client()).client)
        return leases

    async def _plan_pop(self, count: int, quota: int, now: float) -> list[tuple[str, int, int]]:
        """Which groups to ask, in which order, for how many leases (and hubs).

        One pipelined read of every group's due hubs, first ``count`` ready hosts, and first
        due retry and expired lease. Then: groups with due hubs first (hubs come first in a
        batch); then the ``count`` ready hosts that have waited longest *across all groups*
        (ready time, then name: the single group's order), each group asked for its share;
        then, with whatever room is left, groups whose retries or expired leases are due
        (their scripts put those URLs back and lease them)."""

        async def read() -> list[Any]:
            client = await self._client()
            pipe = client.pipeline(transaction=False)
            for group in self.groups:
                pipe.zrangebyscore(group + "hubdue", "-inf", now, start=0, num=max(1, quota))
                pipe.zrangebyscore(
                    group + "ready", "-inf", now, start=0, num=count, withscores=True
                )
                pipe.zrangebyscore(group + "retry", "-inf", now, start=0, num=1)
                pipe.zrangebyscore(group + "lease", "-inf", now, start=0, num=1)
            return list(await pipe.execute())

        with self._errors():
            found = await self._retrying(read)
        plan: list[tuple[str, int, int]] = []
        ready: list[tuple[float, str, str]] = []
        chores: list[str] = []
        for k, group in enumerate(self.groups):
            due_hubs, hosts, retries, expired = found[4 * k : 4 * k + 4]
            if due_hubs and quota > 0:
                plan.append((group, len(due_hubs), len(due_hubs)))
            ready += [(float(score), str(name), group) for name, score in hosts]
            if retries or expired:
                chores.append(group)
        ready.sort()
        share: dict[str, int] = {}
        for _score, _name, group in ready[:count]:
            share[group] = share.get(group, 0) + 1  # first seen = earliest host: visit order
        plan += [(group, n, 0) for group, n in share.items()]
        plan += [(group, count, 0) for group in chores]
        return plan

    async def reclaim_expired(self) -> int:
        thresh = self.config.retry.failure_threshold
        return sum([int(await self._run("reclaim", g, thresh, "")) for g in self.groups])

    async def reclaim_worker(self, worker: str) -> int:
        """Put back every lease of ``worker`` now, expired or not, each counting an attempt.

        For a worker known to be dead (a supervisor saw it exit). ``open`` does this for its
        own worker id: a worker restarted under the same id reclaims its previous life's leases.
        """
        if not worker:
            return 0
        thresh = self.config.retry.failure_threshold
        return sum([int(await self._run("reclaim", g, thresh, worker)) for g in self.groups])

    async def iter_outcomes(self) -> AsyncIterator[dict[str, Any]]:
        """Every URL's outcome as an export record (``outcome_record``), group by group,
        read in batches (HSCAN): the server is never blocked for long, and a crawl may run
        meanwhile (the records are then not one atomic picture)."""
        client = await self._client()
        for group in self.groups:
            with self._errors():
                refusals: Any = await client.hgetall(group + "refusals")
                rdata: Any = await client.hgetall(group + "rdata")
                scored: Any = await client.zrange(group + "retry", 0, -1, withscores=True)
            retry = dict(scored)
            cursor: Any = 0
            while True:
                with self._errors():
                    reply: Any = await client.hscan(group + "url", cursor, count=CHUNK)
                cursor, batch = reply
                for url, raw in batch.items():
                    st, depth, attempts, _seq, t, extra = raw.split("\t", 5)
                    yield outcome_record(
                        url,
                        st,
                        int(depth),
                        int(attempts),
                        float(t),
                        extra,
                        refusal=refusals.get(url),
                        next_try=retry.get(url),
                        last_error=rdata.get(url),
                    )
                if not cursor:
                    break

    async def requeue_refused(self, keep: Callable[[Refusal], bool]) -> int:
        """Queue again the refused URLs ``keep`` accepts (see ``Frontier.requeue_refused``)."""
        client = await self._client()
        wanted: list[AddRequest] = []
        for group in self.groups:
            with self._errors():
                index: Any = await client.hgetall(group + "refusals")  # decoded: str
            chosen = [url for url, value in index.items() if keep(Refusal.unpack(url, value))]
            for start in range(0, len(chosen), CHUNK):
                part = chosen[start : start + CHUNK]
                with self._errors():
                    recs: Any = await client.hmget(group + "url", part)
                for url, raw in zip(part, recs, strict=True):
                    if raw is None or not raw.startswith("F"):
                        continue
                    _st, depth, _att, _seq, _t, extra = raw.split("\t", 5)
                    wanted.append(AddRequest(url, int(depth), referrer_of(extra)))
        report = await self.add_many(wanted, always=True)
        return report.added

    async def release(self, urls: Sequence[str]) -> int:
        """Give leases back unfetched (a stop that cannot wait), no attempt counted."""
        by_group: dict[str, list[str]] = {}
        for url in urls:
            by_group.setdefault(self._group_of_url(url), []).append(url)
        thresh = self.config.retry.failure_threshold
        n = 0
        for group, part in by_group.items():
            n += int(await self._run("release", group, thresh, *part))
        return n

    # ---- results ------------------------------------------------------------------------------
    async def set_status(self, url: str, result: FetchResult) -> None:
        await self.set_status_many([(url, result)])

    async def set_status_many(self, results: Sequence[tuple[str, FetchResult]]) -> None:
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if not results:
            return
        pol, retry = self.config.politeness, self.config.retry
        head: list[str | int | float] = [
            retry.failure_threshold,
            pol.min_delay,
            pol.delay_factor,
            pol.max_delay,
            " ".join(_fmt(d) for d in retry_schedule(retry)),
        ]
        by_group: dict[str, list[str | int | float]] = {}
        learned = await self._hub_learning(results)
        for url, result in results:
            fields = self._status_fields(url, result)
            group = self._group_of_url(str(fields[1]) or url)
            final_host = str(fields[10])
            fields.append("1" if not final_host or self._group(final_host) == group else "0")
            fields += learned.get(str(fields[1]) or url, ("", "", ""))
            fields.append("1" if result.retry_after is not None else "0")
            by_group.setdefault(group, []).extend(fields)
        follow: list[AddRequest] = []
        seen: dict[str, list[str | int]] = {}
        for group, args in by_group.items():
            reply = await self._run("status", group, *head, *args)
            cut = reply.index("")
            for url in reply[:cut]:
                log.warning("result for %s ignored: it is not in flight", url)
            rest = reply[cut + 1 :]
            cut = rest.index("")
            follow += [AddRequest(rest[i], int(rest[i + 1]), rest[i + 2]) for i in range(0, cut, 3)]
            marks = rest[cut + 1 :]
            for i in range(0, len(marks), 4):
                final, fhost, depth, referrer = marks[i : i + 4]
                seen.setdefault(self._group(fhost), []).extend((final, fhost, depth, referrer))
        for group, args4 in seen.items():  # redirect targets in other groups: done there too
            await self._run("edit", group, "seen", *args4)
        if follow:
            await self.add_many(follow)
        if self.clock.now() - self._planned_at >= REDIS_REPLAN_SECONDS:
            await self._replan()

    # ---- the refresh plan (docs/freshness.md): computed here, only stored by the scripts -----
    async def _hub_learning(
        self, results: Sequence[tuple[str, FetchResult]]
    ) -> dict[str, tuple[str, str, str]]:
        """For the hub refreshes that reported their new links: the hub's new rate state and
        its span at the last plan's level, as the status script's last three fields."""
        wanted: dict[str, FetchResult] = {}
        for url, result in results:
            # A 200 with its new links, or a 304 (nothing new): both teach the rate.
            if result.hub_new is not None and result.status in (200, 304):
                wanted[self._canonical_or_empty(url) or url] = result
        if not wanted:
            return {}
        by_group: dict[str, list[str]] = {}
        for key in wanted:
            by_group.setdefault(self._group_of_url(key), []).append(key)
        client = await self._client()
        now = self.clock.now()
        cfg = self.config
        out: dict[str, tuple[str, str, str]] = {}
        with self._errors():
            for group, keys in by_group.items():
                raws = await client.hmget(group + "hubs", keys)
                for key, raw in zip(keys, raws, strict=True):
                    if raw is None:
                        continue
                    rec = _hub_record(key, str(raw))
                    result = wanted[key]
                    # A first refresh (the whole list new): counted, no rate learned.
                    elapsed = now - rec.last if rec.last > 0 else 0.0
                    state = rec.state.observe(
                        result.hub_new or 0,
                        result.hub_listed,
                        elapsed,
                        1.0 / rec.span,
                        result.hub_items,
                    )
                    one = plan_one(
                        HubInput(rec.span, state, self._min_span(rec.host)),
                        self._plan_level,
                        adaptive=cfg.hub_refresh == "adaptive",
                        span_min=cfg.hub_span_min,
                        span_max=cfg.hub_span_max,
                    )
                    planned, reason = (rec.planned, rec.reason) if one is None else one
                    if one is None and elapsed > 0:
                        # no level yet and this refresh taught a rate: plan again at once
                        self._planned_at = -math.inf
                    out[key] = (_fmt(planned), str(reason), state.to_json())
        return out

    def _min_span(self, host: str) -> float:
        """The fastest a hub may go: the politeness delay, shared by its host's hubs."""
        return self.config.politeness.min_delay * max(1, self._hubs_per_host.get(host, 1))

    async def _replan(self) -> None:
        """Share the hub budget (``Σ 1/span``) by the learned rates of every worker's hubs,
        and move each hub that waits on its planned span to last refresh + its new span.
        Every worker does it (at most every ``REDIS_REPLAN_SECONDS``); the plan script only stores
        the spans and moves a due time that nobody changed meanwhile."""
        now = self.clock.now()
        self._planned_at = now
        client = await self._client()
        records: list[tuple[str, _HubRecord]] = []
        with self._errors():
            pipe = client.pipeline(transaction=False)
            for group in self.groups:
                pipe.hgetall(group + "hubs")
            for group, raw in zip(self.groups, await pipe.execute(), strict=True):
                records += [(group, _hub_record(str(u), str(r))) for u, r in raw.items()]
        live = [(g, r) for g, r in records if not r.parked]
        per_host: dict[str, int] = {}
        for _g, r in live:
            per_host[r.host] = per_host.get(r.host, 0) + 1
        self._hubs_per_host = per_host
        if not live:
            self._plan_level = None
            return
        cfg = self.config
        plans, self._plan_level = plan_spans(
            [HubInput(r.span, r.state, self._min_span(r.host)) for _g, r in live],
            adaptive=cfg.hub_refresh == "adaptive",
            span_min=cfg.hub_span_min,
            span_max=cfg.hub_span_max,
        )
        by_group: dict[str, list[str]] = {}
        for (group, r), (span, reason) in zip(live, plans, strict=True):
            on_plan = (
                r.last > 0 and r.fails == 0 and not r.in_flight and r.due == r.last + r.planned
            )
            new_due = r.last + span if on_plan else None
            if span == r.planned and reason.value == r.reason and new_due in (None, r.due):
                continue
            by_group.setdefault(group, []).extend(
                (
                    r.url,
                    _fmt(span),
                    reason.value,
                    r.due_text,
                    "" if new_due is None else _fmt(new_due),
                )
            )
        for group, args in by_group.items():
            await self._run("edit", group, "plan", *args)

    def _status_fields(self, url: str, result: FetchResult) -> list[str | int | float]:
        status = result.status
        outcome = outcome_of(result)
        try:
            canonical = canonicalize(url)[0]
        except InvalidURLError:
            canonical = ""
        final = final_host = ""
        if outcome is Outcome.DONE and result.final_url:
            with contextlib.suppress(InvalidURLError):
                final, final_host = canonicalize(result.final_url)
        return [
            url,
            canonical,
            _OUTCOME_CODES[outcome],
            str(status) if status is not None else result.label,
            # the politeness delay is the script's, from the host's own inputs (delay_and_basis)
            float(result.elapsed),
            self.config.retry.throttle_delay(result.retry_after),
            # the retry's backoff is the script's (0 here: read as next try - failure time)
            pack_retry(result, 0.0, outcome is Outcome.THROTTLED),
            result.label,
            hub_outcome(result, outcome).value,
            final,
            final_host,
            (result.redirect_to or "") if outcome is Outcome.REDIRECTED else "",
            # after the referrer the script takes from the URL record
            pack_failure(None, result) if outcome is not Outcome.DONE else "",
            Refusal.pack(result) if outcome is Outcome.REFUSED else "",
        ]

    # ---- hubs, retries, delays ----------------------------------------------------------------
    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        """Replace the hub list. On a pool of several key groups each group's hubs are replaced
        by one script of their own, one group after another."""
        if self._closed:
            raise PoolClosedError("the pool is closed")
        report = AddReport()
        refused: Counter[str] = Counter()
        wanted = checked_hubs(hubs, self.config, report, refused)
        by_group: dict[str, list[str | float]] = {g: [] for g in self.groups}
        for url, (host, span) in wanted.items():
            by_group[self._group(host)] += [url, host, span]
        for group, args in by_group.items():
            report.added += int(await self._run("hubs", group, *args))
        if refused:
            client = await self._client()
            with self._errors():
                for reason, n in refused.items():
                    await client.hincrby(self.groups[0] + "refused", reason, n)
        return report

    async def hubs(self) -> list[HubSpec]:
        client = await self._client()
        out: list[HubSpec] = []
        with self._errors():
            for group in self.groups:
                raw = await client.hgetall(group + "hubs")
                out += [
                    HubSpec(str(url), float(str(rec).split("\t")[1])) for url, rec in raw.items()
                ]
        return out

    async def _edit(self, op: str, url: str) -> bool:
        canonical = self._canonical_or_empty(url)
        group = self._group_of_url(canonical or url)
        return bool(await self._run("edit", group, op, url, canonical))

    @staticmethod
    def _canonical_or_empty(url: str) -> str:
        try:
            return canonicalize(url)[0]
        except InvalidURLError:
            return ""

    async def refresh_hub(self, url: str) -> bool:
        return await self._edit("refresh_hub", url)

    async def retry_now(self, url: str) -> bool:
        return await self._edit("retry_now", url)

    async def give_up(self, url: str) -> bool:
        return await self._edit("give_up", url)

    async def set_delay(self, host: str, seconds: float) -> None:
        await self._run("edit", self._group(host), "set_delay", host, max(0.0, float(seconds)))

    async def set_host_paused(self, host: str, paused: bool) -> None:
        await self._run("edit", self._group(host), "pause", host, 1 if paused else 0)

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        pol = self.config.politeness
        value = -1.0 if seconds is None else max(0.0, float(seconds))
        await self._run(
            "edit",
            self._group(host),
            "host_delay",
            host,
            value,
            pol.delay_factor,
            pol.min_delay,
            pol.max_delay,
        )

    async def waiting_urls(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        """A page of a host's queue: two reads (the queue's slice, then its URL records),
        not one script: a picture of a moment, as the window shows it."""
        client = await self._client()
        group = self._group(host)
        start = max(0, page) * max(1, page_size)
        with self._errors():
            total: Any = await client.zcard(f"{group}q:{{{host}}}")
            urls: Any = await client.zrange(f"{group}q:{{{host}}}", start, start + page_size - 1)
            raws: Any = await client.hmget(group + "url", urls) if urls else []
        rows = []
        for url, raw in zip(urls, raws, strict=True):
            if raw is None:
                continue
            _st, depth, attempts, _seq, t, extra = raw.split("\t", 5)
            rows.append(WaitingRow(url, int(depth), float(t), int(attempts), extra or None))
        return WaitingPage(int(total), tuple(rows))

    async def _host_urls(self, host: str) -> AsyncIterator[tuple[str, str, bool]]:
        """Every URL record of a host (url, record, refused), read in batches (HSCAN with a
        pattern: the server walks its group's whole URL hash, a batch at a time)."""
        client = await self._client()
        group = self._group(host)
        pattern = "http*://" + _glob_escape(host) + "/*"
        cursor: Any = 0
        while True:
            with self._errors():
                reply: Any = await client.hscan(group + "url", cursor, match=pattern, count=CHUNK)
            cursor, batch = reply
            failed = [url for url, raw in batch.items() if raw.startswith("F\t")]
            if failed:
                with self._errors():
                    refused: Any = await client.hmget(group + "refusals", failed)
                marks = dict(zip(failed, refused, strict=True))
            else:
                marks = {}
            for url, raw in batch.items():
                yield url, raw, marks.get(url) is not None
            if not cursor:
                break

    async def failed_urls(self, host: str, limit: int = 200) -> list[FailedRow]:
        rows: list[FailedRow] = []
        async for url, raw, refused in self._host_urls(host):
            if len(rows) >= limit:
                break
            st, depth, attempts, _seq, t, extra = raw.split("\t", 5)
            if st != "F" or url_host(url) != host:
                continue
            d = unpack_failure(extra)
            rows.append(
                FailedRow(
                    url, int(depth), int(attempts), float(t), d.status, d.reason, d.message, refused
                )
            )
        return rows

    async def forget_waiting(self, host: str) -> int:
        group = self._group(host)
        forgotten = 0
        while True:
            n = int(await self._run("edit", group, "forget", host, FORGET_CHUNK))
            forgotten += n
            if n < FORGET_CHUNK:
                return forgotten

    async def retry_failed(self, host: str) -> int:
        wanted: list[AddRequest] = []
        async for url, raw, refused in self._host_urls(host):
            st, depth, _a, _seq, _t, extra = raw.split("\t", 5)
            if st == "F" and not refused and url_host(url) == host:
                wanted.append(AddRequest(url, int(depth), referrer_of(extra)))
        report = await self.add_many(wanted, always=True)
        return report.added

    def set_config(self, config: PoolConfig) -> None:
        """Change policy live for this client (each worker passes its own config)."""
        self.config = config
        self._planned_at = -math.inf  # the hub refresh mode or its bounds may have changed

    # ---- pool-wide control (the GUI's pause reaches every worker) -----------------------------
    async def set_paused(self, paused: bool) -> int:
        """Set the pool-wide pause flag; returns the new generation number."""
        lc = await self._loop_client()
        with self._errors():
            generation = await lc.scripts["pause"](
                keys=[self.prefix + "meta"], args=["1" if paused else "0"]
            )
        return int(generation)

    async def paused(self) -> bool:
        return (await self.control())[0]

    async def control(self) -> tuple[bool, int]:
        """(paused, generation) in one round trip: what a worker polls. The generation is
        raised by every pause/resume and every snapshot load: a worker that sees it change
        re-reads the control state (and drops any cached view of the pool)."""

        async def read() -> list[Any]:
            client = await self._client()
            return list(await client.hmget(self.prefix + "meta", ["paused", "generation"]))

        with self._errors():
            paused, generation = await self._retrying(read)
        return paused == "1", int(str(generation or 0))

    # ---- per-minute counters (core/counters.py) ----------------------------------------------
    async def add_counters(self, delta: Counters) -> None:
        """Add ``delta`` to the pool's counters with ``HINCRBY``: several workers add up.
        Pipelined, not one transaction (the keys span slots on a Cluster): a flush cut off
        half way keeps what reached the server, and the caller adds the rest again later."""
        if not delta:
            return
        client = await self._client()
        ops: list[tuple[str, str, str, int]] = []  # (command, key, field, n)
        minutes_key = self.prefix + "cminutes"
        for minute, fields in delta.minutes.items():
            ops.append(("sadd", minutes_key, str(minute), 0))
            key = f"{self.prefix}cm:{minute}"
            ops.extend(("hincrby", key, name, n) for name, n in fields.items() if n)
        for host, fields in delta.hosts.items():
            key = self._group(host) + "chost"
            ops.extend(("hincrby", key, f"{host}\t{name}", n) for name, n in fields.items() if n)
        key = self.prefix + "cdelays"
        ops.extend(("hincrby", key, name, n) for name, n in delta.delays.items() if n)
        for i in range(0, len(ops), COUNTER_PIPELINE):
            pipe = client.pipeline(transaction=False)
            for op, key, name, n in ops[i : i + COUNTER_PIPELINE]:
                if op == "sadd":
                    pipe.sadd(key, name)
                else:
                    pipe.hincrby(key, name, n)
            with self._errors():
                await pipe.execute()

    async def counters(self) -> Counters:
        """All the counters of the pool (every worker's, added up)."""
        client = await self._client()
        out = Counters()
        with self._errors():
            minutes = sorted(int(m) for m in await client.smembers(self.prefix + "cminutes"))
            for i in range(0, len(minutes), COUNTER_PIPELINE):
                part = minutes[i : i + COUNTER_PIPELINE]
                pipe = client.pipeline(transaction=False)
                for minute in part:
                    pipe.hgetall(f"{self.prefix}cm:{minute}")
                for minute, fields in zip(part, await pipe.execute(), strict=True):
                    out.minutes[minute] = _int_fields(fields)
            for group in self.groups:
                async for name, value in client.hscan_iter(group + "chost", count=1000):
                    host, _tab, what = str(name).partition("\t")
                    if what and str(value).lstrip("-").isdigit():
                        out.hosts.setdefault(host, {})[what] = int(value)
            out.delays = _int_fields(await client.hgetall(self.prefix + "cdelays"))
        return out

    async def _clear_counters(self) -> None:
        """A snapshot load replaces the pool: its counters start afresh (docs/redis.md)."""
        client = await self._client()
        with self._errors():
            minutes = [str(m) for m in await client.smembers(self.prefix + "cminutes")]
            keys = [f"{self.prefix}cm:{m}" for m in minutes]
            keys += [self.prefix + "cminutes", self.prefix + "cdelays"]
            keys += [g + "chost" for g in self.groups]
            for i in range(0, len(keys), COUNTER_PIPELINE):
                pipe = client.pipeline(transaction=False)
                for key in keys[i : i + COUNTER_PIPELINE]:
                    pipe.delete(key)
                await pipe.execute()

    # ---- the workers' heartbeats ------------------------------------------------------------
    async def heartbeat(self, state: str, pages: int, rate: float, started: float) -> None:
        """Tell the pool this worker is alive and what it does (every ``HEARTBEAT_SECONDS``).
        One row per worker id in the pool-wide ``workers`` hash: what the window's Workers
        pane shows, and how an operator tells a dead worker from a slow one."""
        row = {
            "machine": socket.gethostname(),
            "pid": os.getpid(),
            "state": state,
            "started": started,
            "seen": self.clock.now(),
            "pages": int(pages),
            "rate": float(rate),
        }
        client = await self._client()
        with self._errors():
            await client.hset(self.prefix + "workers", self.worker, json.dumps(row))

    async def forget_worker(self, worker: str | None = None) -> None:
        """Remove a worker's row (this worker's by default: a clean exit says goodbye)."""
        client = await self._client()
        with self._errors():
            await client.hdel(self.prefix + "workers", worker or self.worker)

    async def workers(self) -> list[WorkerRow]:
        """Every worker that sent a heartbeat in the last day, sorted by id. Rows that are not
        readable are skipped; rows older than a day are dropped."""
        client = await self._client()
        with self._errors():
            raw = await client.hgetall(self.prefix + "workers")
        now = self.clock.now()
        rows: list[WorkerRow] = []
        stale: list[str] = []
        for worker, text in raw.items():
            try:
                d = json.loads(text)
                row = WorkerRow(
                    str(worker),
                    str(d["machine"]),
                    int(d["pid"]),
                    str(d["state"]),
                    float(d["started"]),
                    float(d["seen"]),
                    int(d["pages"]),
                    float(d["rate"]),
                )
            except (ValueError, KeyError, TypeError):
                log.warning("unreadable heartbeat of worker %r", worker)
                continue
            if now - row.last_seen > WORKER_FORGET_SECONDS:
                stale.append(str(worker))
            else:
                rows.append(row)
        if stale:
            with self._errors():
                await client.hdel(self.prefix + "workers", *stale)
        return sorted(rows)

    # ---- the shared crawl scope -----------------------------------------------------------
    # The registered domains of the seeds and hubs, shared by every worker: a worker must
    # follow the links of a page whose domain another worker seeded. The pool stores plain
    # strings; the engine decides what they mean (``engine.scope``).
    async def add_scope_domains(self, domains: Iterable[str]) -> int:
        """Add domains to the pool-wide scope set; returns how many were new.

        The set is written before its change counter (``meta.scopegen``) is raised: a reader
        that sees the new count reads the new domains (two keys, two slots on a Cluster)."""
        items = sorted({d for d in domains if d})
        if not items:
            return 0
        client = await self._client()
        with self._errors():
            added = await client.sadd(self.prefix + "scope", *items)
            await client.hincrby(self.prefix + "meta", "scopegen", 1)
        return int(added)

    async def replace_scope_domains(self, domains: Iterable[str]) -> None:
        """Make the pool-wide scope set exactly ``domains`` (a snapshot loaded with
        ``--scope replace``). Workers running meanwhile keep what they knew."""
        items = sorted({d for d in domains if d})
        client = await self._client()
        with self._errors():
            pipe = client.pipeline(transaction=True)  # one key: one slot, also on a Cluster
            pipe.delete(self.prefix + "scope")
            if items:
                pipe.sadd(self.prefix + "scope", *items)
            await pipe.execute()
            await client.hincrby(self.prefix + "meta", "scopegen", 1)

    async def scope_domains(self) -> set[str]:
        """Every domain in the pool-wide scope set."""
        client = await self._client()
        with self._errors():
            return {str(d) for d in await client.smembers(self.prefix + "scope")}

    def watch_scope(self, listener: Callable[[set[str]], None] | None) -> None:
        """Call ``listener(domains)`` with the whole scope set whenever it has grown, checked
        right after every ``pop`` that returns leases (before they are processed). Domains are
        published before the URLs that need them are added, so a worker always knows the
        domain of a lease before it looks at that page's links. ``None`` stops watching."""
        self._scope_listener = listener
        self._scope_seen = -1

    async def _check_scope(self, client: aredis.Redis) -> None:
        try:
            gen = int(str(await client.hget(self.prefix + "meta", "scopegen") or 0))
            if gen == self._scope_seen:
                return
            domains = {str(d) for d in await client.smembers(self.prefix + "scope")}
        except redis.RedisError as exc:
            log.warning("cannot read the shared scope: %s", exc)
            return
        self._scope_seen = gen
        listener = self._scope_listener
        if listener is not None:
            listener(domains)

    # ---- observing ----------------------------------------------------------------------------
    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot:
        """The pool-wide picture. Each key group is read by one script (a consistent picture
        per group). On several groups the snapshot's ``version`` is the sum of the groups'
        versions, and this client remembers which group versions each sum stood for: a
        ``since`` it did not hand out itself gives every host (``hosts_complete``)."""
        return await self._picture(since, retry_limit, totals_only=False)

    async def totals(self) -> PoolTotals:
        return (await self._picture(None, 0, totals_only=True)).totals

    async def _picture(
        self, since: int | None, retry_limit: int, *, totals_only: bool
    ) -> PoolSnapshot:
        """A snapshot; ``totals_only`` asks the scripts for no host rows (a version above any
        real one) and leaves the version memo alone."""
        now = self.clock.now()
        groups = self.groups
        limit = max(0, int(retry_limit))
        if totals_only:
            sinces: tuple[int, ...] | None = (_NO_HOSTS,) * len(groups)
        elif since is None:
            sinces = None
        elif len(groups) == 1:
            sinces = (int(since),) * len(groups)
        else:
            sinces = self._versions.get(int(since))
        complete = sinces is None
        versions: list[int] = []
        totals_sum = [0] * 7
        refused: dict[str, int] = {}
        hosts: list[HostRow] = []
        pending: list[PendingRow] = []
        retrying: list[RetryRow] = []
        hub_rows: list[HubRow] = []
        next_dues: list[float] = []
        n_hosts = 0
        for k, group in enumerate(groups):
            reply = await self._run(
                "snapshot", group, -1 if sinces is None else sinces[k], limit, now=now
            )
            version, t, refused_raw, hosts_raw, leases_raw, retry_raw, hubs_raw, nd, nh = reply
            versions.append(int(version))
            for i in range(7):
                totals_sum[i] += int(t[i])
            for i in range(0, len(refused_raw), 2):
                reason = refused_raw[i]
                refused[reason] = refused.get(reason, 0) + int(refused_raw[i + 1])
            hosts += _host_rows(hosts_raw, now)
            pending += _pending_rows(leases_raw)
            retrying += _retry_rows(retry_raw)
            hub_rows += _hub_rows(hubs_raw)
            if nd:
                next_dues.append(float(nd))
            n_hosts += int(nh)
        if len(groups) > 1:
            retrying.sort(key=lambda r: r.next_try)
            del retrying[limit:]
            version_total = sum(versions)
            if not totals_only:
                self._versions.pop(version_total, None)
                self._versions[version_total] = tuple(versions)  # newest last
                while len(self._versions) > _VERSION_MEMO:
                    del self._versions[next(iter(self._versions))]
        else:
            version_total = versions[0]
        cfg = self.config
        totals = PoolTotals(
            waiting=totals_sum[0],
            pending=len(pending),
            done=totals_sum[1],
            failed=totals_sum[2],
            retrying=totals_sum[3],
            hosts=n_hosts,
            hubs=len(hub_rows),
            redirected=totals_sum[4],
            refused=refused,
            overflow=totals_sum[5],
            refused_urls=totals_sum[6],
            failure_threshold=cfg.retry.failure_threshold,
            pending_threshold=cfg.pending_threshold,
        )
        return PoolSnapshot(
            time=now,
            version=version_total,
            totals=totals,
            hosts=tuple(hosts),
            hosts_complete=complete,
            pending=tuple(pending),
            retrying=tuple(retrying),
            hubs=tuple(hub_rows),
            next_due=min(next_dues) if next_dues else None,
        )

    async def next_due(self) -> float | None:
        now = self.clock.now()
        dues = [await self._run("next_due", g, now=now) for g in self.groups]
        found = [float(d) for d in dues if d]
        return min(found) if found else None

    # Blocking helpers with the LevelDB pool's names (tests, diagnostics, the CLI).
    def url_state(self, url: str) -> str | None:
        """The state of one URL: waiting, pending, done, failed, redirected, retrying, or None.
        Blocking (a synchronous round trip); not for the event loop's hot path."""
        try:
            url = canonicalize(url)[0]
        except InvalidURLError:
            return None
        r = self._sync_client()
        group = self._group_of_url(url)
        if r.hexists(group + "ldata", url):
            return "pending"
        raw = r.hget(group + "url", url)
        return STATE_NAMES[raw[0]] if raw else None

    def url_attempts(self, url: str) -> int:
        url = canonicalize(url)[0]
        raw = self._sync_client().hget(self._group_of_url(url) + "url", url)
        return int(str(raw).split("\t")[2]) if raw else 0

    def known(self, url: str) -> bool | None:
        return None  # a round trip: the pool de-duplicates what it is given

    @property
    def storage_dir(self) -> Path | None:
        return None  # on the server

    def recover(self) -> bool:
        return False  # nothing local to reopen

    def is_known(self, url: str) -> bool:
        try:
            url = canonicalize(url, max_length=self.config.max_url_length)[0]
        except InvalidURLError:
            return False
        r = self._sync_client()
        group = self._group_of_url(url)
        return any(r.hexists(group + key, url) for key in ("url", "ldata", "hubs"))

    # ---- snapshots ----------------------------------------------------------------------------
    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Write the pool to a snapshot file (the LevelDB pool's format), with the crawl's
        scope: ``scope`` and the pool's shared scope set.

        The pool is read in bounded chunks (``export.lua``: one HSCAN step of
        :data:`EXPORT_CHUNK` URLs per script, a few milliseconds each), streamed into the file
        from a thread: neither the server nor this process holds the whole pool at once, and
        the workers keep running between two chunks. Each URL is written once (a URL that
        HSCAN returns twice, as it may while the hash grows, is skipped by its 8-byte digest),
        in the state of the chunk that read it; pause the crawl for a file of one instant."""
        domains = set(scope) | await self.scope_domains()
        head = [self.clock.now(), self.config.politeness.max_in_flight]
        client = self._sync_client()
        script = client.register_script(_SOURCES["export"])

        def chunks() -> Iterator[dict[str, Any]]:
            seen: set[bytes] = set()
            for group in self.groups:
                for part in ("hosts", "hubs", "urls"):
                    cursor = "0"
                    while True:
                        try:
                            args = [group, *head, part, cursor, EXPORT_CHUNK]
                            reply = script(keys=[group + "meta"], args=args)
                        except redis.RedisError as exc:
                            raise PoolError(
                                f"the Redis pool at {redact_url(self.redis_url)} failed while "
                                f"saving a snapshot: {exc}"
                            ) from exc
                        cursor = str(reply[0])
                        for rec in _export_records(reply[1:]):
                            if rec["t"] != "host":
                                key = hashlib.blake2b(
                                    (rec["t"] + rec["url"]).encode(), digest_size=8
                                ).digest()
                                if key in seen:
                                    continue
                                seen.add(key)
                            yield rec
                        if cursor == "0":
                            break

        records = itertools.chain(snapshot_file.scope_records(domains), chunks())
        return await asyncio.to_thread(snapshot_file.write_snapshot, Path(path), records)

    @classmethod
    async def migrate(cls, url: str, work_dir: str | Path) -> int | None:
        """Rewrite a pool of an older schema with its URLs in the current canonical form;
        ``None`` when it is current already, else the number of records rewritten.

        The pool is saved to a snapshot file in ``work_dir`` and loaded back: loading
        canonicalizes every URL and swaps each key group in at once (``load_snapshot``), and
        the schema is raised only after the last group. A migration stopped half-way (a
        killed process) leaves an older-schema pool that is refused as before; running it
        again finishes it (a canonical URL is its own canonical form). Needs every worker
        stopped (``load_snapshot`` refuses while URLs are in flight)."""
        pool = await cls.open(url, older_schema=True, worker="migrate")
        try:
            if pool.schema >= SCHEMA_VERSION:
                return None
            path = Path(work_dir) / f"{pool.name}.migrate.snapshot"
            try:
                await pool.save_snapshot(path)
                count = await pool.load_snapshot(path)
            finally:
                path.unlink(missing_ok=True)
            client = await pool._client()
            with pool._errors():
                await client.hset(pool.prefix + "meta", "schema", SCHEMA_VERSION)
            log.info("redis pool %s migrated to schema %d", pool.name, SCHEMA_VERSION)
            return count
        finally:
            await pool.close()

    async def load_snapshot(self, path: str | Path) -> int:
        """Replace the pool with a snapshot file. Needs nothing in flight (PoolBusyError).

        The file is streamed, never held whole: each batch of records is checked and written
        under a staging prefix per key group (``cg:…~load:<random>:``, keys that expire after
        :data:`STAGING_TTL`), in pipelines of bounded size; a URL named twice is caught by
        looking each batch's URLs up in the staging hash before writing them. Only the
        per-host counters stay in memory. When the whole file has been read
        and checked, each group is swapped in by one script (``swap.lua``). On a bad file the
        staging keys are removed and the pool is unchanged."""
        client = await self._client()
        with self._errors():
            busy = 0
            for group in self.groups:
                busy += int(await client.hlen(group + "ldata"))
        if busy:
            raise PoolBusyError(
                f"{busy} URLs are in flight; stop every worker before loading a snapshot"
            )
        tag = uuid.uuid4().hex
        stage = _StreamStaging(self, client, {g: f"{g}~load:{tag}:" for g in self.groups})
        try:
            count = await stage.fill(Path(path))
            for group in self.groups:
                await self._run("swap", group, stage.prefixes[group])
        except BaseException:
            await stage.discard()
            raise
        await self._clear_counters()
        if len(self.groups) > 1 or self.groups[0] != self.prefix:
            with self._errors():  # the swaps raised each group's; the workers read this one
                await client.hincrby(self.prefix + "meta", "generation", 1)
        log.info("loaded %d records from snapshot %s into redis pool %s", count, path, self.name)
        return count

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        lc, self._lc = self._lc, None
        if lc is not None:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:  # pragma: no cover - close() is always awaited
                running = None
            if running is lc.loop:
                await lc.guard.aclose()  # type: ignore[attr-defined]
            # else: that loop's shutdown closes its connections (see _close_with_loop)
        if self._sync is not None:
            self._sync.close()
            self._sync = None


# ---- snapshot rows ------------------------------------------------------------------------------
def _glob_escape(text: str) -> str:
    """``text`` matched literally by a Redis pattern (an IPv6 host has brackets)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def _host_rows(hosts_raw: list[Any], now: float) -> list[HostRow]:
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


def _pending_rows(leases_raw: list[Any]) -> list[PendingRow]:
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


def _retry_rows(retry_raw: list[Any]) -> list[RetryRow]:
    rows = []
    for url, d, a, err, n, t in retry_raw:
        row = retry_row(url, url_host(url), int(d), int(a), err, float(n))
        if not row.backoff:  # the script chose it: from the failure to the next try
            row = row._replace(backoff=max(0.0, float(n) - float(t)))
        rows.append(row)
    return rows


class _HubRecord(NamedTuple):
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


def _hub_record(url: str, raw: str) -> _HubRecord:
    f = raw.split("\t", 11)
    f += [""] * (12 - len(f))
    span = float(f[1])
    return _HubRecord(
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


def _hub_fields(raw: str) -> tuple[str, str, str, str, str, str, int, int, str]:
    """A hub record (``common.lua`` ``get_hub``): host, span, last, due, in flight, result,
    crashes, fails, parked; the last three are absent in records of older versions."""
    f = raw.split("\t", 11)
    f += [""] * (12 - len(f))
    return f[0], f[1], f[2], f[3], f[4], f[5], _int_or0(f[6]), _int_or0(f[7]), f[8]


def _int_fields(raw: Any) -> dict[str, int]:
    """A counters hash as ``{field: count}`` (fields that are not integers are skipped)."""
    return {str(k): int(v) for k, v in dict(raw or {}).items() if str(v).lstrip("-").isdigit()}


def _int_or0(text: str) -> int:
    try:
        return int(float(text)) if text else 0
    except ValueError:
        return 0


def _hub_rows(hubs_raw: list[Any]) -> list[HubRow]:
    rows = []
    for i in range(0, len(hubs_raw), 2):
        host, span, last, due, infl, res, crashes, _fails, parked = _hub_fields(hubs_raw[i + 1])
        rec = _hub_record(hubs_raw[i], hubs_raw[i + 1])
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


# ---- snapshot records ---------------------------------------------------------------------------
def _export_records(reply: list[Any]) -> Iterable[dict[str, Any]]:
    """The records of ``export.lua``'s reply, shaped as ``leveldb_pool._export_records``."""
    urls_raw, retry_raw, rdata_raw, hubs_raw, hosts_raw, leased_raw = reply
    for i in range(0, len(hosts_raw), 5):
        min_delay, backoff = float(hosts_raw[i + 1]), float(hosts_raw[i + 2])
        paused, user_delay = hosts_raw[i + 3] == "1", float(hosts_raw[i + 4])
        if min_delay or backoff or paused or user_delay >= 0:
            yield snapshot_file.host_record(hosts_raw[i], min_delay, backoff, paused, user_delay)
    for i in range(0, len(hubs_raw), 2):
        _host, span, last, due, _infl, res, crashes, fails, parked = _hub_fields(hubs_raw[i + 1])
        hub: dict[str, Any] = {
            "t": "hub",
            "url": hubs_raw[i],
            "span": float(span),
            "last_refresh": float(last),
            "last_result": res,
            "due": float(due),
        }
        for key, value in (("crashes", crashes), ("fails", fails), ("parked", parked)):
            if value:
                hub[key] = value
        state = _hub_record(hubs_raw[i], hubs_raw[i + 1]).state
        if state.refreshes or state.observed:
            hub["rate"] = state.to_dict()
        yield hub
    next_try = {retry_raw[i]: float(retry_raw[i + 1]) for i in range(0, len(retry_raw), 2)}
    errors = {rdata_raw[i]: rdata_raw[i + 1] for i in range(0, len(rdata_raw), 2)}
    leased = set(leased_raw)
    for i in range(0, len(urls_raw), 2):
        url = urls_raw[i]
        st, depth, attempts, seq, t, extra = urls_raw[i + 1].split("\t", 5)
        out: dict[str, Any] = {
            "t": "url",
            "url": url,
            "state": STATE_NAMES[st],
            "depth": int(depth),
            "attempts": int(attempts),
            "seq": int(seq),
            "time": float(t),
        }
        if st == "X":
            out["target"] = extra or None
        elif referrer_of(extra):
            out["referrer"] = referrer_of(extra)
        if st == "R" and url in next_try:
            out["next_try"] = next_try[url]
            out["last_error"] = unpack_retry(errors.get(url, "")).message
        if url in leased:
            out["state"] = "waiting"  # in flight when saved: fetched again after a load
        yield out


@dataclass(slots=True)
class _StagingHost:
    wait: int = 0
    done: int = 0
    fail: int = 0
    retr: int = 0
    redir: int = 0
    md: float = 0.0
    bo: float = 0.0
    na: float = 0.0
    pa: bool = False
    ud: float = -1.0

    def fields(self) -> dict[FieldT, EncodableT]:
        return {
            "wait": self.wait,
            "infl": 0,
            "done": self.done,
            "fail": self.fail,
            "retr": self.retr,
            "redir": self.redir,
            "md": repr(self.md),
            "bo": repr(self.bo),
            "na": repr(self.na),
            "dl": "0",
            "ls": "",
            "pa": 1 if self.pa else 0,
            "ud": repr(self.ud),
        }


def _fmt(x: float) -> str:
    return repr(float(x)) if x != int(x) else str(int(x))


#: Records read from a snapshot file per step, and commands per pipeline of a load: what a
#: load holds at once, whatever the size of the file.
LOAD_BATCH = 1000


def _take(records: Iterator[_T], n: int) -> list[_T]:
    return list(itertools.islice(records, n))


class _StreamStaging:
    """A snapshot file streamed into staging keys, one group prefix per key group, its records
    checked by ``snapshot_records`` as every backend's are (``RedisPool.load_snapshot``)."""

    def __init__(self, pool: RedisPool, client: aredis.Redis, prefixes: dict[str, str]) -> None:
        self.pool = pool
        self.client = client
        self.prefixes = prefixes
        self.hosts: dict[str, _StagingHost] = {}
        self.max_seq = 0
        self.keys: dict[str, None] = {}  # every staging key written: about two per host
        self.pipe: Any = client.pipeline(transaction=False)
        self.ops = 0
        #: The batch being gathered: staging key -> field -> value (hashes) or member -> score
        #: (sorted sets), written by one command per key at the next flush.
        self.hashes: dict[str, dict[str, str]] = {}
        self.zsets: dict[str, dict[str, float]] = {}

    async def fill(self, src: Path) -> int:
        records = read_records(src)  # (read and checked in a worker thread, a batch at a time)
        count = 0
        try:
            while batch := await asyncio.to_thread(_take, records, LOAD_BATCH):
                for rec in batch:
                    self._write(rec)
                    if self.ops >= LOAD_BATCH:
                        await self._flush()
                count += len(batch)
            self._finish()
            await self._flush()
        finally:
            records.close()  # the file, also when a check failed
        return count

    def _sp(self, host: str) -> str:
        return self.prefixes[self.pool._group(host)]

    def _host(self, name: str) -> _StagingHost:
        return self.hosts.get(name) or self.hosts.setdefault(name, _StagingHost())

    def _wrote(self, key: str) -> None:
        """Count a command written to ``key`` (which exists now): the first one also sets
        the key's expiry, so that a crash mid-load leaves nothing for good."""
        if key not in self.keys:
            self.keys[key] = None
            self.pipe.expire(key, STAGING_TTL)
            self.ops += 1
        self.ops += 1

    def _hset(self, key: str, field: str, value: str) -> None:
        self.hashes.setdefault(key, {})[field] = value
        self.ops += 1

    def _zadd(self, key: str, member: str, score: float) -> None:
        self.zsets.setdefault(key, {})[member] = score
        self.ops += 1

    def _write(self, rec: SnapshotRecord) -> None:
        if isinstance(rec, UrlRecord):
            url, host, state = rec.url, rec.host, rec.state
            self.max_seq = max(self.max_seq, rec.seq)
            depth, attempts = min(rec.depth, 65535), min(rec.attempts, 65535)
            sp, h = self._sp(host), self._host(host)
            value = "\t".join(
                (state, str(depth), str(attempts), str(rec.seq), _fmt(rec.time), rec.extra or "")
            )
            batch = self.hashes.get(sp + "url")
            if batch is not None and url in batch:
                raise SnapshotFormatError(f"the snapshot holds {url} twice")
            self._hset(sp + "url", url, value)  # (a URL of an earlier batch: caught at flush)
            if state == "W":
                self._zadd(f"{sp}q:{{{host}}}", url, float(min(depth, 8191) * (1 << 40) + rec.seq))
                h.wait += 1
            elif state == "D":
                h.done += 1
            elif state == "F":
                h.fail += 1
            elif state == "X":
                h.redir += 1
            else:
                h.retr += 1
                self._zadd(sp + "retry", url, rec.next_try)
                self._hset(sp + "rdata", url, rec.last_error)
        elif isinstance(rec, HubRecord):
            url, host = rec.url, rec.host
            self._host(host)
            result = rec.last_result.replace("\t", " ")
            parked = rec.parked.replace("\t", " ")
            fields = [host, _fmt(rec.span), _fmt(rec.last_refresh), _fmt(rec.due), "0", result]
            fields += [str(rec.crashes), str(rec.fails), parked, _fmt(rec.span), ""]
            learned = rec.rate
            fields.append(learned.to_json() if learned.refreshes or learned.observed else "")
            sp = self._sp(host)
            self._hset(sp + "hubs", url, "\t".join(fields))
            if not parked:  # a parked hub is due only when the user refreshes it
                self._zadd(sp + "hubdue", url, rec.due)
        elif isinstance(rec, HostRecord):
            h = self._host(rec.host)
            h.md = rec.min_delay
            h.bo = rec.backoff_until
            h.pa, h.ud = rec.paused, rec.user_delay
        # (a ScopeRecord is the crawl's, not the pool's: kept by the caller)

    def _finish(self) -> None:
        """The per-host rows, the host and ready sets and each group's totals."""
        totals = {sp: {"seq": self.max_seq, "tw": 0, "td": 0, "tf": 0, "tr": 0, "tx": 0}
                  for sp in self.prefixes.values()}  # fmt: skip
        for name, h in self.hosts.items():
            sp = self._sp(name)
            self.pipe.hset(f"{sp}h:{{{name}}}", mapping=h.fields())
            self._wrote(f"{sp}h:{{{name}}}")
            self.pipe.zadd(sp + "hosts", {name: 0})
            self._wrote(sp + "hosts")
            if h.wait > 0:
                self.pipe.zadd(sp + "ready", {name: max(h.na, h.bo)})
                self._wrote(sp + "ready")
            t = totals[sp]
            t["tw"] += h.wait
            t["td"] += h.done
            t["tf"] += h.fail
            t["tr"] += h.retr
            t["tx"] += h.redir
        for sp, t in totals.items():  # every group gets its meta, so every group is replaced
            mapping: dict[FieldT, EncodableT] = {k: v for k, v in t.items()}
            self.pipe.hset(sp + "meta", mapping=mapping)
            self._wrote(sp + "meta")

    async def _flush(self) -> None:
        """Write the gathered batch: one command per key (after a look at which of its URLs
        an earlier batch staged already: a URL named twice)."""
        url_keys = [sp + "url" for sp in self.prefixes.values() if sp + "url" in self.hashes]
        if url_keys:
            check = self.client.pipeline(transaction=False)
            for key in url_keys:
                check.hmget(key, list(self.hashes[key]))
            with self.pool._errors():
                found = await check.execute()
            for key, values in zip(url_keys, found, strict=True):
                for url, old in zip(self.hashes[key], values, strict=True):
                    if old is not None:
                        raise SnapshotFormatError(f"the snapshot holds {url} twice")
        pipe = self.pipe
        for key, mapping in self.hashes.items():
            pipe.hset(key, mapping=mapping)
            self._wrote(key)
        for key, members in self.zsets.items():
            pipe.zadd(key, members)
            self._wrote(key)
        self.pipe = self.client.pipeline(transaction=False)
        self.ops = 0
        self.hashes, self.zsets = {}, {}
        with self.pool._errors():
            await pipe.execute()

    async def discard(self) -> None:
        """Remove every staging key written (the pool itself was not touched)."""
        with contextlib.suppress(redis.RedisError, PoolClosedError):
            keys = list(self.keys)
            for i in range(0, len(keys), 500):
                pipe = self.client.pipeline(transaction=False)
                for key in keys[i : i + 500]:  # one key per command: any layout
                    pipe.execute_command("UNLINK", key)
                await pipe.execute()


__all__ = [
    "SCHEMA_VERSION",
    "ErrorKind",
    "RedisAuthError",
    "RedisPool",
    "RedisUnreachableError",
    "group_of",
    "parse_pool_url",
    "parse_pool_url_full",
    "redact_url",
]
