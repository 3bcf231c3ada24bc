"""A Redis pool's footing: the connection per event loop, its scripts, outages and errors.

Every part of the pool (``pool.py``, ``shared.py``, ``hubplan.py``, ``snapshot_io.py``) is a
:class:`RedisConnection`: it runs a script on one key group with :meth:`RedisConnection._run`,
plain commands inside :meth:`RedisConnection._errors`, and rides out a server restart with
:meth:`RedisConnection._retrying`. The scripts are the ``.lua`` files of ``scripts/``, read
through ``importlib.resources`` (package data in the wheel and in the frozen app).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

import redis
import redis.asyncio as aredis
import redis.asyncio.cluster as acluster
import redis.cluster
import redis.exceptions
from redis.commands.core import AsyncScript

from crawler_gui.core.clock import Clock
from crawler_gui.core.policy import PoolConfig
from crawler_gui.core.redact import redact_url
from crawler_gui.core.redis.layout import SCHEMA_VERSION, group_of, url_host
from crawler_gui.errors import (
    PoolBusyError,
    PoolClosedError,
    PoolError,
    RedisAuthError,
    RedisUnreachableError,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: The scripts that start with the common prelude (``common.lua``), one file each.
SCRIPTS = (
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
#: Small scripts on one key of their own (the pool-wide ``meta``), without the prelude.
PLAIN_SCRIPTS = ("init", "pause")
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


def connect_error(url: str, exc: Exception) -> PoolError:
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


def load_scripts() -> dict[str, str]:
    """Every pool script's source, read from this package's ``scripts/`` folder (package data,
    also in the frozen app): the common prelude first, except for the plain ones."""
    folder = resources.files(__package__).joinpath("scripts")
    common = folder.joinpath("common.lua").read_text(encoding="utf-8")
    sources = {
        name: common + "\n" + folder.joinpath(f"{name}.lua").read_text(encoding="utf-8")
        for name in SCRIPTS
    }
    for name in PLAIN_SCRIPTS:
        sources[name] = folder.joinpath(f"{name}.lua").read_text(encoding="utf-8")
    return sources


SOURCES = load_scripts()


def unique_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


async def close_with_loop(client: aredis.Redis) -> AsyncIterator[None]:
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


class RedisConnection:
    """What every part of a Redis pool stands on: its identity (server, name, worker, key
    groups), one connection per event loop with the scripts registered on it, the retries
    through a server outage, and the errors that say which server failed.

    One object is used from one event loop at a time; when the loop changes (a new
    ``asyncio.run``) it reconnects, and the old loop's connections are closed with it.
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

    async def _detect_cluster(self) -> None:
        """Is the server a Cluster node? One INFO on a plain connection."""
        probe = aredis.Redis.from_url(
            self.redis_url, decode_responses=True, socket_connect_timeout=CONNECT_TIMEOUT
        )
        try:
            info = await probe.info("cluster")
        except (redis.RedisError, OSError) as exc:
            raise connect_error(self.redis_url, exc) from exc
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
            guard = close_with_loop(client)
            await guard.__anext__()  # registered with this loop's async generator hooks
            lc = _LoopClient(loop, client, guard)
            lc.scripts = {name: client.register_script(src) for name, src in SOURCES.items()}
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
            # else: that loop's shutdown closes its connections (see close_with_loop)
        if self._sync is not None:
            self._sync.close()
            self._sync = None
