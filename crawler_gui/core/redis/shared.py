"""What only a shared pool has: pause and control across workers, the workers' heartbeats,
lease reclaim by worker, the shared crawl scope, the per-minute counters every worker adds to,
and the change notices between workers (``notices.py``). The ``SharedFrontier`` part of
``core/frontier.py``, on Redis.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Callable, Iterable
from typing import Any

import redis
import redis.asyncio as aredis

from crawler_gui.core.counters import Counters
from crawler_gui.core.frontier import ChangeNotices, WorkerRow
from crawler_gui.core.redis.connection import RedisConnection
from crawler_gui.core.redis.layout import int_fields
from crawler_gui.core.redis.notices import RedisChangeNotices

log = logging.getLogger(__name__)

#: Commands per pipeline of a counters flush or read.
COUNTER_PIPELINE = 1000

#: A worker's row is dropped from the ``workers`` hash after this long without a heartbeat.
WORKER_FORGET_SECONDS = 86400.0


class SharedCoordination(RedisConnection):
    """The shared-pool operations of :class:`~crawler_gui.core.redis.pool.RedisPool`."""

    async def reclaim_worker(self, worker: str) -> int:
        """Put back every lease of ``worker`` now, expired or not, each counting an attempt.

        For a worker known to be dead (a supervisor saw it exit). ``open`` does this for its
        own worker id: a worker restarted under the same id reclaims its previous life's leases.
        """
        if not worker:
            return 0
        thresh = self.config.retry.failure_threshold
        return sum([int(await self._run("reclaim", g, thresh, worker)) for g in self.groups])

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
                    out.minutes[minute] = int_fields(fields)
            for group in self.groups:
                async for name, value in client.hscan_iter(group + "chost", count=1000):
                    host, _tab, what = str(name).partition("\t")
                    if what and str(value).lstrip("-").isdigit():
                        out.hosts.setdefault(host, {})[what] = int(value)
            out.delays = int_fields(await client.hgetall(self.prefix + "cdelays"))
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

    # ---- change notices between the workers ----------------------------------------------------
    def change_notices(self) -> ChangeNotices:
        """A fresh transport of change notices for one run of a crawl: PUBLISH/SUBSCRIBE on the
        pool's channel ``cg:<name>:changed`` (``notices.py``)."""
        return RedisChangeNotices(self.redis_url, self.prefix + "changed", self.worker)

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
