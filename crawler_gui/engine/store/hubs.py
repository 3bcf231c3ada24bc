"""A hub's refresh state in the page store (``hub/<url>``): its validators for conditional
refreshes, its changed bodies only, in a bounded history."""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from crawler_gui.core.text import is_unicode
from crawler_gui.engine.store.base import StoreBase
from crawler_gui.engine.store.records import _P_BODY, _P_HUB, PageRecord, _HubState
from crawler_gui.errors import StoreError


def _keep_validators(state: dict[str, Any], headers: Mapping[str, str] | None) -> None:
    """The ``ETag`` and ``Last-Modified`` of a response into a hub's state (a response
    without them forgets the old ones: the server no longer offers conditional requests).
    A validator with a byte that is not UTF-8 (kept by the HTTP client as a lone surrogate)
    is forgotten too: it could be neither stored as text nor sent back as it came, and the
    hub is refreshed in full instead."""
    if headers is None:
        return
    for key, name in (("etag", "ETag"), ("last_modified", "Last-Modified")):
        value = headers.get(name) or ""
        state[key] = value if is_unicode(value) else ""


class HubHistory(StoreBase):
    """A hub's refresh state, kept by the page store."""

    # -- hubs: validators, changed bodies only, bounded history (``hub/<url>``) --------------

    def hub_state(self, url: str) -> dict[str, Any]:
        """The refresh state of hub ``url`` (empty for a hub never fetched)."""
        state = self._hubs.get(url)
        if state is None:
            if self._closed:
                raise StoreError("the page store is closed")
            raw = self._db.get(_P_HUB + url.encode("utf-8"))
            state = json.loads(raw) if raw is not None else {}
            self._hubs[url] = state
        return state

    def hub_validators(self, url: str) -> dict[str, str]:
        """The conditional request headers for refreshing hub ``url``: ``If-None-Match`` and
        ``If-Modified-Since`` from the ``ETag`` and ``Last-Modified`` of its last fetch."""
        state = self.hub_state(url)
        headers: dict[str, str] = {}
        if state.get("etag"):
            headers["If-None-Match"] = state["etag"]
        if state.get("last_modified"):
            headers["If-Modified-Since"] = state["last_modified"]
        return headers

    def add_hub_fetch(self, record: PageRecord, headers: Mapping[str, str] | None) -> int:
        """Store one fetch of a hub: the record always (its fetch noted), its body only when
        the body's content hash differs from the last stored one; the last
        :attr:`hub_history` changed bodies are kept, older ones deleted. The response's
        validators are kept for the next, conditional, refresh. Returns the sequence number."""
        state = dict(self.hub_state(record.url))
        _keep_validators(state, headers)
        body = record.body
        drop: tuple[int, ...] = ()
        if body is not None and self.store_bodies:
            digest = hashlib.blake2b(body, digest_size=16).hexdigest()
            if digest == state.get("hash") and state.get("bodies"):
                record = replace(record, body=None)
                state["unchanged"] = int(state.get("unchanged", 0)) + 1
            else:
                state["hash"] = digest
                state["changed"] = int(state.get("changed", 0)) + 1
        seq = self.add(record)
        if record.body is not None and self.store_bodies:
            bodies = [*state.get("bodies", ()), seq]
            cut = max(0, len(bodies) - self.hub_history)
            drop, state["bodies"] = tuple(bodies[:cut]), bodies[cut:]
        state["fetched_at"] = record.fetched_at
        self._put_hub(record.url, state, drop)
        return seq

    def note_not_modified(
        self, url: str, fetched_at: float, headers: Mapping[str, str] | None
    ) -> None:
        """A conditional refresh of hub ``url`` answered ``304 Not Modified``: nothing is
        stored but the count and the time (and validators the answer may renew)."""
        state = dict(self.hub_state(url))
        _keep_validators(state, headers)
        state["not_modified"] = int(state.get("not_modified", 0)) + 1
        state["fetched_at"] = fetched_at
        self._put_hub(url, state, ())

    def _put_hub(self, url: str, state: dict[str, Any], drop: tuple[int, ...]) -> None:
        self._check()
        self._hubs[url] = state
        self._buffer.append((0, _HubState(url, dict(state), drop)))
        self._maybe_flush()

    def hub_bodies(self, url: str) -> list[tuple[int, bytes]]:
        """The stored bodies of hub ``url`` (``(seq, body)``, oldest first; flushed only)."""
        out = []
        for seq in self.hub_state(url).get("bodies", ()):
            raw = self._db.get(_P_BODY + int(seq).to_bytes(8, "big"))
            if raw is not None:
                out.append((int(seq), zlib.decompress(raw)))
        return out

    def hub_body_as_of(self, url: str, seq: int) -> bytes | None:
        """The body hub ``url`` had at its fetch ``seq`` (flushed only): a refresh that found
        the same body again stored none, it is the last changed body stored before it. None
        when that body is no longer kept (older than the hub's history) or ``url`` is no hub."""
        kept = [int(s) for s in self.hub_state(url).get("bodies", ()) if int(s) <= seq]
        if not kept:
            return None
        raw = self._db.get(_P_BODY + max(kept).to_bytes(8, "big"))
        return zlib.decompress(raw) if raw is not None else None
