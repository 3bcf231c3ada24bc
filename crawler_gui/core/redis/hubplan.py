"""The hub refresh plan of a Redis pool (``docs/freshness.md``): computed by each worker in
Python from the hub records (``core/freshness.py``), only stored by the scripts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from crawler_gui.core.freshness import HubInput, plan_one, plan_spans
from crawler_gui.core.policy import FetchResult
from crawler_gui.core.pool_rules import hub_next_due, hub_outcome, outcome_of, retry_schedule
from crawler_gui.core.redis.connection import RedisConnection
from crawler_gui.core.redis.layout import StoredHub, canonical_or_empty, fmt, stored_hub

#: A worker makes the hub refresh plan again at most this often (seconds): it reads every hub
#: record. In between, a hub whose rate changed gets its span at the last plan's level.
REDIS_REPLAN_SECONDS = 10.0


class HubUpdate(NamedTuple):
    """What ``status.lua`` stores for a hub's result (the worker's computed values)."""

    due: str  #: the next due time (``pool_rules.hub_next_due``)
    fails: str  #: failed refreshes in a row
    planned: str = ""  #: the span at the last plan's level ('' = the hub keeps its own)
    reason: str = ""  #: why that span
    rate: str = ""  #: the learned rate state (JSON)


class HubPlanning(RedisConnection):
    """The refresh-plan part of :class:`~crawler_gui.core.redis.pool.RedisPool`."""

    # ---- the refresh plan (docs/freshness.md): computed here, only stored by the scripts -----
    async def _hub_updates(
        self, results: Sequence[tuple[str, FetchResult]], now: float
    ) -> dict[str, HubUpdate]:
        """For the results of hub refreshes: the hub's next due time and failures in a row
        (``pool_rules.hub_next_due``), and, for a refresh that reported its new links, its new
        rate state and span at the last plan's level; from the hub records read now. Keyed by
        canonical URL; a URL that is no hub is left out."""
        wanted: dict[str, FetchResult] = {}
        for url, result in results:
            wanted[canonical_or_empty(url) or url] = result
        if not wanted:
            return {}
        by_group: dict[str, list[str]] = {}
        for key in wanted:
            by_group.setdefault(self._group_of_url(key), []).append(key)
        client = await self._client()
        cfg = self.config
        retry = cfg.retry
        out: dict[str, HubUpdate] = {}
        with self._errors():
            for group, keys in by_group.items():
                raws = await client.hmget(group + "hubs", keys)
                for key, raw in zip(keys, raws, strict=True):
                    if raw is None:
                        continue
                    rec = stored_hub(key, str(raw))
                    result = wanted[key]
                    planned, learned = rec.planned, ("", "", "")
                    # A 200 with its new links, or a 304 (nothing new): both teach the rate.
                    if result.hub_new is not None and result.status in (200, 304):
                        planned, learned = self._hub_learned(rec, result, now)
                    due, fails = hub_next_due(
                        now,
                        hub_outcome(result, outcome_of(result)),
                        fails=rec.fails,
                        span=rec.span,
                        planned=planned,
                        throttle=retry.throttle_delay(result.retry_after),
                        schedule=retry_schedule(retry),
                    )
                    out[key] = HubUpdate(fmt(due), str(fails), *learned)
        return out

    def _hub_learned(
        self, rec: StoredHub, result: FetchResult, now: float
    ) -> tuple[float, tuple[str, str, str]]:
        """A refresh that reported its new links: the hub's span at the last plan's level, and
        the status script's planned, reason and rate fields."""
        cfg = self.config
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
        return planned, (fmt(planned), str(reason), state.to_json())

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
        records: list[tuple[str, StoredHub]] = []
        with self._errors():
            pipe = client.pipeline(transaction=False)
            for group in self.groups:
                pipe.hgetall(group + "hubs")
            for group, raw in zip(self.groups, await pipe.execute(), strict=True):
                records += [(group, stored_hub(str(u), str(r))) for u, r in raw.items()]
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
                    fmt(span),
                    reason.value,
                    r.due_text,
                    "" if new_due is None else fmt(new_due),
                )
            )
        for group, args in by_group.items():
            await self._run("edit", group, "plan", *args)
