"""Extraction during a crawl (and over a stored crawl): pages go to the :class:`ExtractPool`,
results go into the page store beside their page, and the crawl keeps the counters and the
newest articles for the window and the metrics.

Per host it learns the site suffix of ``<title>`` (the part every page of the host shares)
from the raw titles coming back, and passes it with the host's next pages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from crawler_gui.core.counters import DELAY_BOUNDS as COUNTER_DELAY_BOUNDS
from crawler_gui.core.freshness import FreshnessWindow, published_seconds
from crawler_gui.engine.extract.headline import learn_suffix
from crawler_gui.engine.extract.model import Extraction
from crawler_gui.engine.extract.pool import ExtractJob, ExtractPool
from crawler_gui.engine.extract.textutil import word_count

if TYPE_CHECKING:
    from crawler_gui.engine.store import PageStore
    from crawler_gui.engine.warc import WarcWriter

__all__ = [
    "DELAY_BOUNDS",
    "ArticleSummary",
    "Articles",
    "DelayHistogram",
    "DelaySnapshot",
    "ExtractMode",
    "delay_seconds",
]

log = logging.getLogger(__name__)

#: Titles remembered per host for learning its site suffix.
_TITLES_PER_HOST = 12
#: Newest articles kept for the window.
RECENT_ARTICLES = 2000
#: Upper bounds (seconds) of the article-delay histogram's buckets: 10 s to a day, the range
#: in which news is found; older articles (an archive page, a late find) go to ``inf``. The
#: pool's counters (``core/counters.py``) keep the same buckets for the report.
DELAY_BOUNDS: tuple[float, ...] = COUNTER_DELAY_BOUNDS


def delay_seconds(published: str | None, found_at: float) -> float | None:
    """Seconds from ``published`` (ISO 8601 with a time and a UTC offset) to ``found_at``
    (POSIX seconds); None when the publication time, or its offset, is unknown: a date alone
    or a time without a zone would make the delay up to a day wrong."""
    when = published_seconds(published)
    return None if when is None else found_at - when


@dataclass(frozen=True, slots=True)
class DelaySnapshot:
    """The article-delay histogram at one moment (plain data)."""

    #: Bucket upper bounds (seconds), the last ``inf``.
    bounds: tuple[float, ...]
    #: Articles per bucket (not cumulative), one a bound.
    counts: tuple[int, ...]
    #: The sum of the delays counted (seconds).
    total: float

    @property
    def count(self) -> int:
        return sum(self.counts)


class DelayHistogram:
    """Delays from publication to first fetch, in fixed buckets (:data:`DELAY_BOUNDS`): a few
    integers whatever the crawl's size. A publication time after the fetch (a clock or zone
    wrong on the site) counts as a delay of 0."""

    def __init__(self, bounds: tuple[float, ...] = DELAY_BOUNDS) -> None:
        self.bounds = bounds
        self.counts = [0] * len(bounds)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        for i, bound in enumerate(self.bounds):
            if seconds <= bound:
                self.counts[i] += 1
                break
        self.total += seconds

    def snapshot(self) -> DelaySnapshot:
        return DelaySnapshot(self.bounds, tuple(self.counts), self.total)


class ExtractMode:
    """``--extract``: during the crawl, not at all, or later (``crawler-gui extract``)."""

    ON = "on"
    OFF = "off"
    LATER = "later"
    ALL = (ON, OFF, LATER)


@dataclass(frozen=True, slots=True)
class ArticleSummary:
    """One article as the window lists it (plain data)."""

    url: str
    found_at: float
    published: str | None
    host: str
    title: str
    words: int
    kind: str
    text: str


class Articles:
    """Extraction for one crawl. ``page()`` is awaited from a page task: it waits while the
    pool's queue is full (that is the backpressure on fetching)."""

    def __init__(
        self,
        pool: ExtractPool,
        store: PageStore | None,
        zones: dict[str, str] | None = None,
        *,
        warc: WarcWriter | None = None,
    ) -> None:
        self.pool = pool
        self.store = store
        #: Articles also go into the WARC files, as ``metadata`` records.
        self.warc = warc
        #: Records waiting for a page store look-up or a WARC write (both in a thread).
        self._tasks: set[asyncio.Task[None]] = set()
        self.zones = dict(zones or {})
        self.judged = 0
        self.found = 0
        self.failed = 0
        self.kinds: dict[str, int] = {"article": 0, "list": 0, "other": 0}
        self.recent: deque[ArticleSummary] = deque(maxlen=RECENT_ARTICLES)
        #: Articles found in the last hour and their delay from publication (the overview).
        self.freshness = FreshnessWindow()
        #: Publication to fetch, of the articles whose publication time is known.
        self.delays = DelayHistogram()
        self._titles: dict[str, deque[str]] = {}
        self._suffix: dict[str, str] = {}
        #: Titles seen per host while its suffix is not learned.
        self._tried: dict[str, int] = {}
        self._pending: set[asyncio.Future[Extraction]] = set()
        #: Told of every article found during the crawl: (found at, host, delay from
        #: publication or None); the crawl's per-minute counters in the pool.
        self.on_article: Callable[[float, str, float | None], None] | None = None

    def keep_recent(self, n: int) -> None:
        """Keep only the newest ``n`` articles in :attr:`recent` (0: none). A headless crawl
        has no window to show them: 2,000 articles with their text are 15 MB or so, which
        its memory would otherwise fill up to over its first half hour or more."""
        self.recent = deque(list(self.recent)[-n:] if n else (), maxlen=n)

    @property
    def backlog(self) -> int:
        return len(self._pending)

    def suffixes(self, host: str) -> list[str]:
        s = self._suffix.get(host)
        return [s] if s else []

    async def page(
        self,
        seq: int,
        url: str,
        body: bytes,
        content_type: str | None,
        *,
        is_html: bool,
        fetched_at: float | None = None,
    ) -> None:
        """Hand a page over. ``fetched_at`` is when the crawl fetched it (POSIX seconds): the
        article's found time, and its delay from publication is counted. Pages extracted later
        from the store give none: found is then now, and no delay is counted."""
        if not is_html:
            self._record(seq, url, Extraction(kind="other", why="not HTML"), 0.0)
            return
        # Found when fetched, not when the extraction queue had room for it.
        wall = time.time() if fetched_at is None else fetched_at
        host = urlsplit(url).netloc
        job = ExtractJob(url, body, content_type, self.suffixes(host), self.zones)
        fut = await self.pool.submit(job)
        self._pending.add(fut)
        timed = fetched_at is not None

        def done(f: asyncio.Future[Extraction]) -> None:
            self._pending.discard(f)
            if f.cancelled():
                return
            ex = f.result()
            if self._may_be_listed(ex):
                self._spawn(self._record_listed(seq, url, ex, wall, timed))
            else:
                self._record(seq, url, ex, wall, timed=timed)

        fut.add_done_callback(done)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _may_be_listed(self, ex: Extraction) -> bool:
        """An article without a published (or updated) time, while feeds or sitemaps have
        listed pages: what they said of it is looked up (in the page store, so in a thread:
        a look-up on the loop took up to 47 ms behind the store's own writes)."""
        article = ex.article
        return (
            article is not None
            and (article.published is None or article.updated is None)
            and self.store is not None
            and not self.store.closed
            and self.store.has_listings()
        )

    async def _record_listed(
        self, seq: int, url: str, ex: Extraction, found_at: float, timed: bool
    ) -> None:
        store = self.store
        assert store is not None
        try:
            listed = await asyncio.to_thread(store.listed, url)
        except Exception:  # the store closed meanwhile: the page's own dates stand
            listed = None
        self._record(seq, url, with_listed_dates(ex, listed), found_at, timed=timed)

    def _record(
        self, seq: int, url: str, ex: Extraction, found_at: float, *, timed: bool = False
    ) -> None:
        self.judged += 1
        self.kinds[ex.kind] = self.kinds.get(ex.kind, 0) + 1
        if ex.error:
            self.failed += 1
        host = urlsplit(url).netloc
        if ex.raw_title and host not in self._suffix:
            titles = self._titles.setdefault(host, deque(maxlen=_TITLES_PER_HOST))
            titles.append(ex.raw_title)
            tried = self._tried.get(host, 0) + 1
            self._tried[host] = tried
            # (Tried as titles come while there are few, then every twelfth title: a host
            # whose titles share no suffix would otherwise be compared on every page.)
            if tried <= _TITLES_PER_HOST or tried % _TITLES_PER_HOST == 0:
                suffix = learn_suffix(titles)
                if suffix:
                    self._suffix[host] = suffix
                    del self._titles[host]
        # (Every page with readable text keeps its content; the articles found, their
        # freshness and the newest list count the pages judged articles.)
        if ex.article is not None and ex.kind == "article":
            self.found += 1
            self.freshness.add(found_at, published_seconds(ex.article.published))
            delay = delay_seconds(ex.article.published, found_at) if timed else None
            if delay is not None:
                self.delays.observe(delay)
            if self.on_article is not None and timed:
                self.on_article(found_at, host, delay)
            self.recent.append(
                ArticleSummary(
                    url=url,
                    found_at=found_at,
                    published=ex.article.published,
                    host=host,
                    title=ex.article.title,
                    words=int(ex.extra.get("words") or word_count(ex.article.text)),
                    kind=ex.kind,
                    text=ex.article.text,
                )
            )
        if self.warc is not None and ex.article is not None:
            data: dict[str, object] = {
                "kind": ex.kind,
                "why": ex.why,
                "article": ex.article.to_dict(),
            }
            self._spawn(self._warc_write(url, data, found_at))
        if self.store is not None and not self.store.closed:
            try:
                self.store.add_extraction(seq, ex.to_dict())
            except Exception:
                log.exception("the extraction of %s could not be stored", url)

    async def _warc_write(self, url: str, data: dict[str, object], at: float) -> None:
        assert self.warc is not None
        try:
            await asyncio.to_thread(self.warc.write_metadata, url, data, at)
        except Exception:
            log.exception("the article of %s could not be written to the WARC file", url)

    async def drain(self) -> None:
        """Wait for every page handed over so far (and its WARC record)."""
        while self._pending or self._tasks:
            await asyncio.gather(*self._pending, *self._tasks, return_exceptions=True)


def with_listed_dates(ex: Extraction, listed: dict[str, Any] | None) -> Extraction:
    """An article whose page gives no published (or updated) time takes the one the feed or
    sitemap that listed it gave (``listed``: the page store's entry, times in UTC)."""
    article = ex.article
    if article is None or listed is None:
        return ex

    def iso(ts: object) -> str | None:
        if not isinstance(ts, int | float):
            return None
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")

    published = article.published or iso(listed.get("published"))
    updated = article.updated or iso(listed.get("updated"))
    if (published, updated) == (article.published, article.updated):
        return ex
    return replace(ex, article=replace(article, published=published, updated=updated))
