"""What callers read of a Redis pool: the pool-wide picture (snapshot, totals, next due time),
a host's waiting and failed URLs, one URL's state, every URL's outcome for an export. Reads
only; a picture per key group (one script each), or plain commands read in batches.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from crawler_gui.core.frontier import (
    FailedRow,
    HostRow,
    HubRow,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    RetryRow,
    WaitingPage,
    WaitingRow,
    outcome_record,
    unpack_failure,
)
from crawler_gui.core.redis.connection import RedisConnection
from crawler_gui.core.redis.layout import (
    STATE_NAMES,
    glob_escape,
    host_rows,
    hub_rows,
    pending_rows,
    retry_rows,
    url_host,
)
from crawler_gui.core.urls import canonicalize
from crawler_gui.errors import InvalidURLError

#: URL records per HSCAN step of a read over many URLs.
SCAN_CHUNK = 2000
#: Snapshot versions remembered per client, to answer ``snapshot(since=...)`` on a pool of
#: several key groups (whose version is a vector; see ``RedisPool.snapshot``).
_VERSION_MEMO = 16
#: The ``since`` of :meth:`RedisPool.totals`'s read: above any real version, so that the
#: snapshot script returns no host rows.
_NO_HOSTS = 2**53


class PoolViews(RedisConnection):
    """The read-only part of :class:`~crawler_gui.core.redis.pool.RedisPool`."""

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
                    reply: Any = await client.hscan(group + "url", cursor, count=SCAN_CHUNK)
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
        pattern = "http*://" + glob_escape(host) + "/*"
        cursor: Any = 0
        while True:
            with self._errors():
                reply: Any = await client.hscan(
                    group + "url", cursor, match=pattern, count=SCAN_CHUNK
                )
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
        hub_list: list[HubRow] = []
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
            hosts += host_rows(hosts_raw, now)
            pending += pending_rows(leases_raw)
            retrying += retry_rows(retry_raw)
            hub_list += hub_rows(hubs_raw)
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
            hubs=len(hub_list),
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
            hubs=tuple(hub_list),
            next_due=min(next_dues) if next_dues else None,
        )

    async def next_due(self, *, hubs: bool = True) -> float | None:
        now = self.clock.now()
        dues = [await self._run("next_due", g, int(hubs), now=now) for g in self.groups]
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
