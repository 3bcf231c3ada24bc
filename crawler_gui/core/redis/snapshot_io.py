"""A Redis pool's snapshot I/O: save it to the portable snapshot file, load one into it.

Both stream: a save reads the pool in bounded chunks (``scripts/export.lua``) into the file
from a thread; a load reads the file a batch at a time (``core/snapshot_records.py`` checks
every record, as for every backend) into staging keys, swapped in per key group at the end
(``scripts/swap.lua``). Neither holds the whole pool, and a crawl may run during a save.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import redis
import redis.asyncio as aredis
from redis.typing import EncodableT, FieldT

from crawler_gui.core import snapshot_file
from crawler_gui.core.frontier import referrer_of, unpack_retry
from crawler_gui.core.pool_rules import spelling_rank
from crawler_gui.core.redact import redact_url
from crawler_gui.core.redis.connection import SOURCES, RedisConnection
from crawler_gui.core.redis.layout import STATE_NAMES, fmt, hub_fields, stored_hub
from crawler_gui.core.redis.shared import SharedCoordination
from crawler_gui.core.snapshot_records import (
    STATE_CODES,
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
    SnapshotError,
    SnapshotFormatError,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: URLs (or hubs, or hosts) per export script of a snapshot save: a few milliseconds each.
EXPORT_CHUNK = 2000

STAGING_TTL = 3600  # seconds a half-built snapshot load may linger after a crash
#: A stored URL is not refused for its length when a migration looks for its spellings.
_NO_LIMIT = 1 << 30


class SnapshotIO(SharedCoordination):
    """The snapshot part of :class:`~crawler_gui.core.redis.pool.RedisPool` (a load also
    clears the shared counters, and a save writes the shared scope)."""

    # ---- snapshots ----------------------------------------------------------------------------
    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Write the pool to a snapshot file (the LevelDB pool's format), with the crawl's
        scope: ``scope`` and the pool's shared scope set.

        The pool is read in bounded chunks (``export.lua``: one HSCAN step of
        :data:`EXPORT_CHUNK` URLs per script, a few milliseconds each), streamed into the file
        from a thread: neither the server nor this process holds the whole pool at once, and
        the workers keep running between two chunks. Each URL is written once (a URL that
        HSCAN returns twice, as it may while the hash grows, is skipped by its 8-byte digest),
        in the state of the chunk that read it; pause the crawl for a file of one instant.
        Cancelled, the thread stops before its next chunk and removes its temporary file."""
        return await self._save(Path(path), scope)

    async def _save(
        self, path: Path, scope: Iterable[str], spellings: set[bytes] | None = None
    ) -> int:
        """:meth:`save_snapshot`; with ``spellings`` (a migration), a URL record is told apart
        by its *canonical* URL, and every record of a canonical URL met before is written too
        and its key (:func:`spelling_key`) put in ``spellings``, for :func:`merge_spellings`."""
        domains = set(scope) | await self.scope_domains()
        head = [self.clock.now(), self.config.politeness.max_in_flight]
        client = self._sync_client()
        script = client.register_script(SOURCES["export"])
        stop = threading.Event()

        def chunks() -> Iterator[dict[str, Any]]:
            seen: set[bytes] = set()
            for group in self.groups:
                for part in ("hosts", "hubs", "urls"):
                    cursor = "0"
                    while True:
                        if stop.is_set():
                            raise SnapshotError("the snapshot save was stopped")
                        try:
                            args = [group, *head, part, cursor, EXPORT_CHUNK]
                            reply = script(keys=[group + "meta"], args=args)
                        except redis.RedisError as exc:
                            raise PoolError(
                                f"the Redis pool at {redact_url(self.redis_url)} failed while "
                                f"saving a snapshot: {exc}"
                            ) from exc
                        cursor = str(reply[0])
                        for rec in export_records(reply[1:]):
                            if spellings is not None and rec["t"] == "url":
                                key = spelling_key(rec["url"])
                                if key in seen:
                                    spellings.add(key)  # written too: the merge picks one
                                seen.add(key)
                            elif rec["t"] != "host":
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
        future = asyncio.get_running_loop().run_in_executor(
            None, snapshot_file.write_snapshot, path, records
        )
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()
            # The thread stops before its next chunk and removes its temporary file: a
            # cancelled save has left nothing behind when it returns.
            with contextlib.suppress(BaseException):  # (its "stopped" error)
                await asyncio.shield(future)
            raise

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
        stage = StreamStaging(self, client, {g: f"{g}~load:{tag}:" for g in self.groups})
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


def export_records(reply: list[Any]) -> Iterable[dict[str, Any]]:
    """The records of ``export.lua``'s reply, shaped as the LevelDB pool's."""
    urls_raw, retry_raw, rdata_raw, hubs_raw, hosts_raw, leased_raw = reply
    for i in range(0, len(hosts_raw), 5):
        min_delay, backoff = float(hosts_raw[i + 1]), float(hosts_raw[i + 2])
        paused, user_delay = hosts_raw[i + 3] == "1", float(hosts_raw[i + 4])
        if min_delay or backoff or paused or user_delay >= 0:
            yield snapshot_file.host_record(hosts_raw[i], min_delay, backoff, paused, user_delay)
    for i in range(0, len(hubs_raw), 2):
        _host, span, last, due, _infl, res, crashes, fails, parked = hub_fields(hubs_raw[i + 1])
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
        state = stored_hub(hubs_raw[i], hubs_raw[i + 1]).state
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


def spelling_key(url: str) -> bytes:
    """The 8-byte digest of a stored URL's canonical form (of the URL itself when the standard
    now refuses it): two old spellings of one URL have the same key."""
    with contextlib.suppress(InvalidURLError):
        url = canonicalize(url, max_length=_NO_LIMIT)[0]
    return hashlib.blake2b(("url" + url).encode(), digest_size=8).digest()


def merge_spellings(path: Path, spellings: set[bytes]) -> int:
    """Rewrite the snapshot file ``path`` with one URL record for each key of ``spellings``
    (old spellings of one URL, which a migration's load would refuse as a URL named twice):
    the record :func:`~crawler_gui.core.pool_rules.spelling_rank` ranks first, as the LevelDB
    pool's migration keeps. Two passes over the file, holding only the merged URLs' choices;
    returns how many records were dropped."""
    best: dict[bytes, tuple[tuple[int, int], int]] = {}
    for index, rec in enumerate(snapshot_file.read_snapshot(path)):
        if rec.get("t") == "url" and (key := spelling_key(rec["url"])) in spellings:
            rank = spelling_rank(STATE_CODES.get(rec["state"], ""), int(rec["seq"]))
            if key not in best or rank > best[key][0]:
                best[key] = (rank, index)
    keep = {index for _rank, index in best.values()}
    dropped = 0

    def merged() -> Iterator[dict[str, Any]]:
        nonlocal dropped
        for index, rec in enumerate(snapshot_file.read_snapshot(path)):
            if rec.get("t") == "url" and index not in keep and spelling_key(rec["url"]) in best:
                dropped += 1
                continue
            yield rec

    out = path.with_name(path.name + ".merged")
    try:
        snapshot_file.write_snapshot(out, merged())
        out.replace(path)
    finally:
        out.unlink(missing_ok=True)
    return dropped


@dataclass(slots=True)
class StagingHost:
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


#: Records read from a snapshot file per step, and commands per pipeline of a load: what a
#: load holds at once, whatever the size of the file.
LOAD_BATCH = 1000


def _take(records: Iterator[_T], n: int) -> list[_T]:
    return list(itertools.islice(records, n))


class StreamStaging:
    """A snapshot file streamed into staging keys, one group prefix per key group, its records
    checked by ``snapshot_records`` as every backend's are (``RedisPool.load_snapshot``)."""

    def __init__(
        self, pool: RedisConnection, client: aredis.Redis, prefixes: dict[str, str]
    ) -> None:
        self.pool = pool
        self.client = client
        self.prefixes = prefixes
        self.hosts: dict[str, StagingHost] = {}
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

    def _host(self, name: str) -> StagingHost:
        return self.hosts.get(name) or self.hosts.setdefault(name, StagingHost())

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
                (state, str(depth), str(attempts), str(rec.seq), fmt(rec.time), rec.extra or "")
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
            fields = [host, fmt(rec.span), fmt(rec.last_refresh), fmt(rec.due), "0", result]
            fields += [str(rec.crashes), str(rec.fails), parked, fmt(rec.span), ""]
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
