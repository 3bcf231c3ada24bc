"""What feeds and sitemaps say of the articles they list (``listed/<url>``): the first listing's
dates, bounded in number, readable before they are written."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

from crawler_gui.engine.store.base import StoreBase
from crawler_gui.engine.store.records import _P_LISTED, _Listed, json_bytes

#: At most this many ``listed/`` entries (feed and sitemap dates of articles) are kept: a
#: crawl of days over sitemaps of millions of URLs must not grow the store without bound.
MAX_LISTED = 1_000_000
#: Listings kept in memory for reading before they are written.
_LISTED_CACHE = 50_000


class Listings(StoreBase):
    """The listings of feeds and sitemaps, kept by the page store."""

    # -- feed and sitemap dates of the articles they list (``listed/<url>``) -----------------

    def add_listed(self, via: str, items: Iterable[tuple[str, float | None, float | None]]) -> None:
        """Keep what feed or sitemap ``via`` says of articles it lists: ``(url, published,
        updated)`` (POSIX seconds or None). The first listing of a URL is kept; items without
        a date are not stored; at most :data:`MAX_LISTED` URLs in all."""
        dated = tuple(item for item in items if item[1] is not None or item[2] is not None)
        self._forget_written_listings()
        if dated:
            self._check()
            cache = self._listed_cache
            for url, published, updated in dated:
                if url not in cache:
                    cache[url] = {"published": published, "updated": updated, "via": via}
            if len(cache) > _LISTED_CACHE:
                # The newest three quarters kept, in a new dict, at once: deleting the oldest
                # one by one cost seconds for a sitemap of 50,000 new URLs (each first key is
                # found past the slots of every key deleted before it).
                drop = len(cache) - _LISTED_CACHE * 3 // 4
                self._listed_cache = dict(itertools.islice(cache.items(), drop, None))
            self._buffer.append((0, _Listed(via, dated)))
            self._maybe_flush()

    def _forget_written_listings(self) -> None:
        """Drop from the cache the listings written since the last call: the database answers
        for them now (a feed lists the same URLs at every refresh; kept here, they only took
        memory, up to the cache's bound, which a crawl reaches after days)."""
        with self._list_lock:
            written, self._listed_written = self._listed_written, []
        cache = self._listed_cache
        for url in written:
            cache.pop(url, None)

    @property
    def listed_in_memory(self) -> int:
        """Listings held in memory for reading (those not yet written)."""
        self._forget_written_listings()
        return len(self._listed_cache)

    def _encode_listed(self, r: _Listed) -> list[tuple[bytes, bytes | None]]:
        out: list[tuple[bytes, bytes | None]] = []
        seen = self._listed_batch
        for url, published, updated in r.items:
            key = _P_LISTED + url.encode("utf-8")
            if key in seen or self._db.get(key) is not None:
                continue
            if self._listed_count >= MAX_LISTED:
                break
            seen.add(key)
            self._listed_count += 1
            data = {"published": published, "updated": updated, "via": r.via}
            out.append((key, json_bytes(data)))
        return out

    def listed(self, url: str) -> dict[str, Any] | None:
        """What a feed or sitemap said of ``url`` (``published``, ``updated``, ``via``), or
        None."""
        raw = self._db.get(_P_LISTED + url.encode("utf-8"))
        if raw is not None:
            return json.loads(raw)  # type: ignore[no-any-return]
        return self._listed_cache.get(url)  # listed lately, not written yet

    def has_listings(self) -> bool:
        """Whether any feed or sitemap listed a page (on disk or not yet written)."""
        return self._listed_count > 0 or bool(self._listed_cache)

    def listed_count(self) -> int:
        """How many ``listed/`` entries are on disk."""
        return self._listed_count
