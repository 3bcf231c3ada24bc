"""The URL pool on Redis: one frontier shared by many headless workers.

Same semantics as the LevelDB pool (``docs/frontier.md``): breadth-first queues per host, one
URL per host in flight (across *all* workers), politeness delays, leases that expire and come
back, retries with backoff, hubs, snapshots in the same portable file format. Every change that
must be atomic is one Lua script (``scripts/``), run with EVALSHA; Python canonicalizes,
applies the pool's rules (``core/pool_rules.py``), classifies results and shapes the replies.
Time is the pool's injected clock, passed into every script (never the Redis server's
``TIME``).

The key layout, the Redis Cluster story and the durability advice are in ``docs/redis.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import redis

from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.frontier import (
    AddReport,
    AddRequest,
    HubSpec,
    Lease,
    Refusal,
    pack_failure,
    pack_retry,
    referrer_of,
)
from crawler_gui.core.policy import FetchResult, Outcome, PoolConfig
from crawler_gui.core.pool_rules import (
    checked_adds,
    checked_hubs,
    host_delay_and_basis,
    outcome_of,
    retry_schedule,
)
from crawler_gui.core.redact import redact_url
from crawler_gui.core.redis.connection import RECONNECT_SECONDS, connect_error, unique_worker_id
from crawler_gui.core.redis.hubplan import REDIS_REPLAN_SECONDS, HubPlanning, HubUpdate
from crawler_gui.core.redis.layout import (
    DEFAULT_CLUSTER_GROUPS,
    OUTCOME_CODES,
    SCHEMA_VERSION,
    canonical_or_empty,
    fmt,
    group_prefixes,
    stored_float,
    url_host,
)
from crawler_gui.core.redis.location import parse_pool_url_full
from crawler_gui.core.redis.snapshot_io import SnapshotIO, merge_spellings
from crawler_gui.core.redis.views import PoolViews
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import (
    InvalidURLError,
    PoolClosedError,
    PoolError,
    PoolURLError,
    PoolVersionError,
)

log = logging.getLogger(__name__)

CHUNK = 2000  # URLs per add script: one script blocks Redis for a few milliseconds at most

#: Waiting URLs one ``forget`` edit drops (a host's whole queue takes several).
FORGET_CHUNK = 1000
#: Tries of a ``set_host_delay`` whose host's inputs change between its read and its script.
HOST_DELAY_TRIES = 10


class RedisPool(SnapshotIO, HubPlanning, PoolViews):
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

    Its parts: the connection (``connection.py``), the shared-pool operations
    (``shared.py``), the hub refresh plan (``hubplan.py``), snapshot I/O (``snapshot_io.py``),
    what callers read (``views.py``); here the operations that change the pool.
    """

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
        worker = worker or url_worker or unique_worker_id()
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
            raise connect_error(self.redis_url, exc) from exc
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

        One pipelined read of every group's due hubs and hosts whose held hubs may go back
        (their wait has ended), first ``count`` ready hosts, and first due retry and expired
        lease. Then: groups with due or held hubs first (hubs come first in a batch); then the
        ``count`` ready hosts that have waited longest *across all groups* (ready time, then
        name: the single group's order), each group asked for its share;
        then, with whatever room is left, groups whose retries or expired leases are due
        (their scripts put those URLs back and lease them)."""

        async def read() -> list[Any]:
            client = await self._client()
            pipe = client.pipeline(transaction=False)
            for group in self.groups:
                pipe.zrangebyscore(group + "hubdue", "-inf", now, start=0, num=max(1, quota))
                pipe.zrangebyscore(group + "held", "-inf", now, start=0, num=max(1, quota))
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
            due_hubs, held, hosts, retries, expired = found[5 * k : 5 * k + 5]
            if (due_hubs or held) and quota > 0:
                n = min(quota, len(due_hubs) + len(held))  # (a held host: a hub at least)
                plan.append((group, n, n))
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
        """Record results, one script per key group. A hub's next due time is the worker's
        (``pool_rules.hub_next_due``, from the hub record it reads): the hub refreshes that
        reported their links are known hubs and read first; any other hub result comes back
        from the script untouched and goes again, once, with its hub's values."""
        if self._closed:
            raise PoolClosedError("the pool is closed")
        if not results:
            return
        now = self.clock.now()
        reported = [(url, result) for url, result in results if result.hub_new is not None]
        hubs = await self._hub_updates(reported, now) if reported else {}
        follow, seen, unsent = await self._send_results(results, hubs, now, ask=True)
        if unsent:
            again = [(url, result) for url, result in results if url in unsent]
            hubs = await self._hub_updates(again, now)
            follow2, seen2, _none = await self._send_results(again, hubs, now, ask=False)
            follow += follow2
            for group, marks in seen2.items():
                seen.setdefault(group, []).extend(marks)
        for group, args4 in seen.items():  # redirect targets in other groups: done there too
            await self._run("edit", group, "seen", *args4)
        if follow:
            await self.add_many(follow)
        if self.clock.now() - self._planned_at >= REDIS_REPLAN_SECONDS:
            await self._replan()

    async def _send_results(
        self,
        results: Sequence[tuple[str, FetchResult]],
        hubs: dict[str, HubUpdate],
        now: float,
        *,
        ask: bool,
    ) -> tuple[list[AddRequest], dict[str, list[str | int]], set[str]]:
        """Run the status script of every group the results touch: the redirect targets to
        add, the final URLs to mark in other groups, and (``ask``) the results the script did
        not take, computed from host inputs or a hub record that changed meanwhile."""
        retry = self.config.retry
        head: list[str | int | float] = [
            retry.failure_threshold,
            " ".join(fmt(d) for d in retry_schedule(retry)),
            "1" if ask else "0",
        ]
        keys = [(url, canonical_or_empty(url), result) for url, result in results]
        inputs = await self._host_inputs(url_host(canonical or url) for url, canonical, _r in keys)
        by_group: dict[str, list[str | int | float]] = {}
        for url, canonical, result in keys:
            host = url_host(canonical or url)
            group = self._group(host)
            fields = self._status_fields(
                url, canonical, result, inputs[host], hubs.get(canonical or url)
            )
            final_host = str(fields[15])
            fields.insert(19, "1" if not final_host or self._group(final_host) == group else "0")
            by_group.setdefault(group, []).extend(fields)
        follow: list[AddRequest] = []
        seen: dict[str, list[str | int]] = {}
        unsent: set[str] = set()
        for group, args in by_group.items():
            reply = await self._run("status", group, *head, *args, now=now)
            cut = reply.index("")
            for url in reply[:cut]:
                log.warning("result for %s ignored: it is not in flight", url)
            rest = reply[cut + 1 :]
            cut = rest.index("")
            follow += [AddRequest(rest[i], int(rest[i + 1]), rest[i + 2]) for i in range(0, cut, 3)]
            rest = rest[cut + 1 :]
            cut = rest.index("")
            marks, unsent_here = rest[:cut], rest[cut + 1 :]
            for i in range(0, len(marks), 4):
                final, fhost, depth, referrer = marks[i : i + 4]
                seen.setdefault(self._group(fhost), []).extend((final, fhost, depth, referrer))
            unsent.update(unsent_here)
        return follow, seen, unsent

    async def _host_inputs(self, hosts: Iterable[str]) -> dict[str, tuple[float, float]]:
        """Each host's own inputs of its politeness delay, as stored now: its robots.txt
        ``Crawl-delay`` and the user's minimum delay (< 0: none). One pipelined read."""
        names = sorted(set(hosts))

        async def read() -> list[Any]:
            pipe = (await self._client()).pipeline(transaction=False)
            for host in names:
                pipe.hmget(f"{self._group(host)}h:{{{host}}}", ["md", "ud"])
            return list(await pipe.execute())

        with self._errors():
            found = await self._retrying(read)
        return {
            host: (stored_float(md, 0.0), stored_float(ud, -1.0))
            for host, (md, ud) in zip(names, found, strict=True)
        }

    def _status_fields(
        self,
        url: str,
        canonical: str,
        result: FetchResult,
        host_inputs: tuple[float, float],
        hub: HubUpdate | None,
    ) -> list[str | int | float]:
        """A result as ``status.lua`` takes it, but for ``final_here`` (the caller's)."""
        status = result.status
        outcome = outcome_of(result)
        final = final_host = ""
        if outcome is Outcome.DONE and result.final_url:
            with contextlib.suppress(InvalidURLError):
                final, final_host = canonicalize(result.final_url)
        crawl_delay, user_delay = host_inputs
        delay, basis = host_delay_and_basis(
            self.config.politeness, result.elapsed, crawl_delay, user_delay
        )
        due, fails, planned, reason, rate = hub or ("", "", "", "", "")
        return [
            url,
            canonical,
            OUTCOME_CODES[outcome],
            str(status) if status is not None else result.label,
            fmt(result.elapsed),
            fmt(delay),
            basis,
            fmt(crawl_delay),  # the inputs it was made from: the script checks them
            fmt(user_delay),
            self.config.retry.throttle_delay(result.retry_after),
            # the retry's backoff is the script's (0 here: read as next try - failure time)
            pack_retry(result, 0.0, outcome is Outcome.THROTTLED),
            result.label,
            due,
            fails,
            final,
            final_host,
            (result.redirect_to or "") if outcome is Outcome.REDIRECTED else "",
            # after the referrer the script takes from the URL record
            pack_failure(None, result) if outcome is not Outcome.DONE else "",
            Refusal.pack(result) if outcome is Outcome.REFUSED else "",
            planned,
            reason,
            rate,
            "1" if result.retry_after is not None else "0",
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
        canonical = canonical_or_empty(url)
        group = self._group_of_url(canonical or url)
        return bool(await self._run("edit", group, op, url, canonical))

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
        """Set the user's minimum delay of ``host``; the delay in force is made again from the
        host's last response (``pool_rules.host_delay_and_basis``) and a wait under way grows to
        match. Read, computed here, then stored by a script that checks the inputs are still
        those read (else read again: a result of the host may land in between)."""
        pol = self.config.politeness
        value = -1.0 if seconds is None else max(0.0, float(seconds))
        group = self._group(host)
        key = f"{group}h:{{{host}}}"
        for _attempt in range(HOST_DELAY_TRIES):

            async def read() -> list[Any]:
                client = await self._client()
                return list(await client.hmget(key, ["le", "md", "na", "dl", "db"]))

            with self._errors():
                le_raw, md_raw, na_raw, dl_raw, db_raw = await self._retrying(read)
            le, md = stored_float(le_raw, 0.0), stored_float(md_raw, 0.0)
            na, dl, db = stored_float(na_raw, 0.0), stored_float(dl_raw, 0.0), str(db_raw or "")
            new_dl, new_db, new_na = dl, db, na
            if db:  # a result was seen: the delay in force, made again from its inputs
                new_dl, new_db = host_delay_and_basis(pol, le, md, value)
                new_na = max(na, na - dl + new_dl)
            done = await self._run(
                "edit", group, "host_delay", host, value, fmt(new_dl), new_db, fmt(new_na),
                fmt(le), fmt(md), fmt(na), fmt(dl), db,
            )  # fmt: skip
            if int(done):
                return
        raise PoolError(f"the delay of {host} kept changing while it was set; set it again")

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

    @classmethod
    async def migrate(cls, url: str, work_dir: str | Path) -> int | None:
        """Rewrite a pool of an older schema with its URLs in the current canonical form;
        ``None`` when it is current already, else the number of records rewritten.

        The pool is saved to a snapshot file in ``work_dir`` and loaded back: loading
        canonicalizes every URL and swaps each key group in at once (``load_snapshot``), and
        the schema is raised only after the last group. A migration stopped half-way (a
        killed process) leaves an older-schema pool that is refused as before; running it
        again finishes it (a canonical URL is its own canonical form). Two old spellings of
        one URL become one record, the one the LevelDB pool's migration keeps too
        (``pool_rules.spelling_rank``: the furthest state). Needs every worker stopped
        (``load_snapshot`` refuses while URLs are in flight)."""
        pool = await cls.open(url, older_schema=True, worker="migrate")
        try:
            if pool.schema >= SCHEMA_VERSION:
                return None
            path = Path(work_dir) / f"{pool.name}.migrate.snapshot"
            try:
                spellings: set[bytes] = set()
                await pool._save(path, (), spellings)
                if spellings:
                    dropped = await asyncio.to_thread(merge_spellings, path, spellings)
                    log.info("redis pool %s: %d old spellings merged", pool.name, dropped)
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
