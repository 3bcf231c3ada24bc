"""The crawl engine: pops leases from the frontier, fetches politely, stores pages, feeds links
back. Knows nothing of Qt; the GUI and the command line call its run-control API
(``start``/``pause``/``resume``/``stop``) and read ``stats()`` and the frontier's snapshot.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import gc
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.counters import Counters
from crawler_gui.core.freshness import ListSample, list_sample
from crawler_gui.core.frontier import (
    AddReport,
    AddRequest,
    ChangeNotices,
    FailedRow,
    Frontier,
    HubSpec,
    Lease,
    Refusal,
    SharedFrontier,
    WaitingPage,
)
from crawler_gui.core.policy import ErrorKind, FetchResult, Politeness, PoolConfig, RetryPolicy
from crawler_gui.core.urls import canonicalize
from crawler_gui.engine.decode import decode_body_explained, sniff_kind
from crawler_gui.engine.feeds import HubDocument, HubKind, discover_feeds, parse_hub_document
from crawler_gui.engine.feeds import sniff_kind as sniff_hub_kind
from crawler_gui.engine.fetch import Fetcher, FetchOutcome
from crawler_gui.engine.links import extract_links
from crawler_gui.engine.robots import RobotsCache, RobotsText
from crawler_gui.engine.scope import DENY_REASONS, Scope, host_of_url
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.stats import CrawlStats, StatsSnapshot, disk_use
from crawler_gui.engine.store import MAX_DETAIL_LINKS, PageRecord, PageStore, make_detail
from crawler_gui.engine.turns import TurnBudget
from crawler_gui.errors import (
    CrawlerGuiError,
    DiskFullError,
    InvalidURLError,
    PoolCorruptError,
    PoolWriteError,
    StoreWriteError,
    is_disk_full,
)

if TYPE_CHECKING:
    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.warc import WarcWriter

log = logging.getLogger(__name__)


def _log_error(what: str, exc: BaseException) -> None:
    """One line for our own clear errors (a pool that cannot be reached, a full disk: the
    message says it all); the traceback for anything else, which is a bug."""
    if isinstance(exc, CrawlerGuiError):
        log.error("%s: %s", what, exc)
    else:
        log.error("%s", what, exc_info=exc)


#: Pages bigger than this are decoded, parsed and their links checked against the scope in a
#: worker thread, off the event loop (the GUI thread under the window): a 512 KB page of links
#: costs about 80 ms to parse and 40 ms to check; 64 KB about a tenth of that.
THREAD_PARSE_BYTES = 64 * 1024
#: A hub list longer than this is hashed for the hub's memory of it on a worker thread (some
#: 3-8 µs a link: a sitemap of 50,000 links would hold the loop 150-400 ms).
THREAD_SAMPLE_LINKS = 2000
#: The links of one page go to the pool in slices of this many, the loop free in between (a
#: 10 MB page has some 300,000 links; a slice costs the loop about 5 ms).
LINK_SLICE = 500
#: How many recently submitted link strings the engine remembers, so that the navigation links
#: every page repeats are not canonicalized and looked up again and again.
RECENT_LINKS = 200_000
#: Results are committed as soon as the previous commit is done: while one commit waits for the
#: disk, the next batch gathers by itself. (A fixed gathering delay would keep hosts busy longer.)
COMMIT_SECONDS = 0.0
#: Consecutive failed commits (disk full, Redis gone) before the crawl stops as failed.
COMMIT_ATTEMPTS = 5
#: How often the free space of our own disks is looked at while crawling.
FREE_SPACE_SECONDS = 1.0
#: How often the crawl, paused for a full disk, looks whether there is room again.
ROOM_POLL_SECONDS = 2.0
#: How often a worker on a shared pool reads the pool-wide pause flag.
SHARED_POLL_SECONDS = 1.0
#: The longest the dispatcher waits for work without looking at the pool again: what catches
#: the changes no event announces (another worker's, without change notices:
#: :class:`~crawler_gui.core.frontier.ChangeNotices`).
POLL_SECONDS = 1.0
#: Feeds and sitemaps found by themselves (a page's ``<link rel="alternate">``, robots.txt's
#: ``Sitemap:`` lines, a sitemap index's children) become hubs, at most this many per host:
#: a site that announces a feed on every page, or an index of thousands of sitemaps, does not
#: flood the hub list.
AUTO_HUBS_PER_HOST = 10
#: Feeds are looked for in this many first bytes of a page (its head).
HEAD_BYTES = 256 * 1024
#: At most this many child sitemaps of one sitemap index become hubs (the first listed; an
#: index lists its newest first as a rule).
INDEX_CHILDREN = 20
#: How often the crawl's disk use (pool, page store, WARC) is measured for ``stats()``.
DISK_USE_SECONDS = 10.0
#: How often the per-minute counters reach the pool (``Frontier.add_counters``): a crash
#: loses at most this much of the report's history, never anything of the crawl.
COUNTERS_SECONDS = 60.0
#: A worker waiting for work looks at the pool at most this often when other workers announce
#: changes (``SharedFrontier.change_notices``): bounds its round trips while the others crawl.
REMOTE_WAKE_SECONDS = 0.05


@functools.lru_cache(maxsize=8192)
def _canonical_or_none(url: str) -> str | None:
    """The canonical form of a hub page's link (cached: a list page repeats its navigation
    and most of its items on every refresh)."""
    try:
        return canonicalize(url)[0]
    except InvalidURLError:
        return None


def pool_config(settings: CrawlSettings) -> PoolConfig:
    """The pool policy that follows from the crawl settings."""
    return PoolConfig(
        pending_threshold=settings.pending_threshold,
        max_depth=settings.max_depth,
        retry=RetryPolicy(failure_threshold=settings.failure_threshold, base=settings.retry_base),
        politeness=Politeness(
            min_delay=settings.min_delay,
            delay_factor=settings.delay_factor,
            max_delay=max(settings.max_delay, settings.min_delay),
            max_in_flight=settings.per_host,
        ),
        hub_refresh=settings.hub_refresh,
        hub_span_min=settings.hub_span_min,
        hub_span_max=settings.hub_span_max,
        sync=settings.sync == "batch",
        sync_seconds=1.0 if settings.sync == "second" else None,
    )


class _GcState:
    lock = threading.Lock()
    pausers = 0
    was_enabled = False


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a worker thread parses a big page.

    Parsing a page of 300,000 links makes as many short-lived node objects (freed by their
    reference counts, never cyclic); collections triggered meanwhile would walk the whole heap,
    and a full one holds the GIL, so the event loop (the GUI thread), for 100 ms or more. The
    collector is switched back on (if it was on) when the last such parse ends."""
    state = _GcState
    with state.lock:
        if state.pausers == 0:
            state.was_enabled = gc.isenabled()
            gc.disable()
        state.pausers += 1
    try:
        yield
    finally:
        with state.lock:
            state.pausers -= 1
            if state.pausers == 0 and state.was_enabled:
                gc.enable()


def _header_text(value: str) -> str:
    """Header values arrive with raw non-UTF-8 bytes as lone surrogates: make them text."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _pool_knows(frontier: Frontier) -> Callable[[str], bool]:
    """Whether a redirect's target is worth handing to the pool: not when the pool says it
    has it; when it cannot say at once (None), the pool de-duplicates it."""
    known = frontier.known

    def check(url: str) -> bool:
        return known(url) is not False

    return check


def own_storage_error(exc: BaseException) -> bool:
    """A write to our own disk failed (pool, page store, WARC): never the URL's fault."""
    return isinstance(exc, DiskFullError | PoolWriteError | StoreWriteError) or is_disk_full(exc)


def load_links_limit(scope_file: Path | None) -> int | None:
    """The depth limit under which the pool's pages had their links taken (saved by
    :meth:`Crawler._save_scope`); None when unlimited or unknown."""
    if scope_file is None:
        return None
    try:
        data = json.loads(scope_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("links_limit") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _links_of_records(
    records: Iterator[PageRecord], scope: Scope, count: int
) -> list[tuple[str, int, list[str]]]:
    """The next ``count`` stored pages' links in ``scope`` (a worker thread's work)."""
    out: list[tuple[str, int, list[str]]] = []
    for record in records:
        if record.body is None or sniff_kind(record.content_type, record.body) != "html":
            continue
        page = FetchOutcome(
            url=record.url,
            final_url=record.final_url,
            content_type=record.content_type,
            body=record.body,
        )
        _title, _encoding, links = Crawler._parse_big(page, scope)
        out.append((record.final_url, record.depth, links))
        if len(out) >= count:
            break
    return out


def _hub_items(
    body: bytes, url: str, content_type: str, scope: Scope
) -> tuple[HubDocument, list[tuple[str, float | None, float | None]]]:
    """A feed or sitemap parsed, and its items in ``scope`` as ``(url, published, updated)``
    (POSIX seconds or None). A worker thread's work for a big one: a sitemap of 50,000 URLs
    costs the loop some 120 ms of scope checks alone."""
    doc = parse_hub_document(body, url, content_type)
    check = scope.check
    items = [
        (
            item.url,
            item.published.timestamp() if item.published else None,
            item.updated.timestamp() if item.updated else None,
        )
        for item in doc.items
        if check(item.url) is None
    ]
    return doc, items


def load_seed_domains(scope_file: Path) -> list[str]:
    """The seeded domains saved by :meth:`Crawler._save_scope` (empty if none or unreadable)."""
    try:
        data = json.loads(scope_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    domains = data.get("seed_domains") if isinstance(data, dict) else None
    if not isinstance(domains, list):
        return []
    return [d for d in domains if isinstance(d, str)]


def make_scope(settings: CrawlSettings, seed_domains: Iterable[str] = ()) -> Scope:
    """The crawl scope from settings, plus registered domains already seeded."""
    scope = Scope(
        allow_domains=settings.allow_domains,
        deny_domains=settings.deny_domains,
        allow_patterns=settings.allow_patterns,
        deny_patterns=settings.deny_patterns,
        follow_external=settings.follow_external,
    )
    scope.add_seeds(f"http://{domain}/" for domain in seed_domains)
    return scope


class Crawler:
    """Run control over one crawl. Build it in the composition root (``session.py``)."""

    def __init__(
        self,
        frontier: Frontier,
        settings: CrawlSettings,
        *,
        fetcher: Fetcher,
        scope: Scope,
        store: PageStore | None = None,
        warc: WarcWriter | None = None,
        robots: RobotsCache | None = None,
        clock: Clock | None = None,
        allow_networks: Sequence[str] = (),
        scope_file: Path | None = None,
        signal: ChangeNotices | None = None,
        articles: Articles | None = None,
    ) -> None:
        #: Article extraction (``settings.extract == "on"``), None otherwise.
        self.articles = articles
        self.scope_file = scope_file
        #: Pages at this depth or deeper had their links dropped (None: no limit so far).
        self._links_limit = load_links_limit(scope_file)
        if signal is None and isinstance(frontier, SharedFrontier):
            signal = frontier.change_notices()  # a shared pool's workers nudge each other
        #: Change notices between the workers of a shared pool (None: a pool of one).
        self.signal = signal
        self._signal_live = False  # started for the current run
        self._waiting_for_work = False  # nothing to pop, nothing in flight: waits for work
        self._remote_wake: asyncio.TimerHandle | None = None
        self._last_remote_wake = 0.0
        self.frontier = frontier
        self.allow_networks = tuple(allow_networks)
        self.settings = settings
        self.fetcher = fetcher
        self.scope = scope
        self.store = store
        self.warc = warc
        #: The crawl's time (the pool's clock, injected by the session): due times, fetch
        #: times, idle checks. Loop time paces what is about I/O only (polls, disk checks).
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.robots = robots or self._robots_cache(settings)
        self._stats = CrawlStats(self.clock.now)
        self._state = CrawlState.IDLE
        self._run_task: asyncio.Task[CrawlState] | None = None
        self._tasks: dict[asyncio.Task[None], Lease] = {}
        #: Page work per loop turn (engine/turns.py).
        self.turns = TurnBudget()
        self._wake = asyncio.Event()
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._stop_requested = False
        self._recent: dict[str, None] = {}
        self._pages_started = 0
        #: Hub fetches started (hub refreshes), for the metrics.
        self.hub_fetches = 0
        self._delays_sent: dict[str, float] = {}
        #: The hubs' canonical URLs (what links are compared with), for :meth:`_is_item`.
        self._hub_urls: frozenset[str | None] = frozenset()
        self._retired_fetchers: list[Fetcher] = []
        self._retired_robots: list[RobotsCache] = []  # replaced by a settings change
        self._unfinished: list[str] = []  # cancelled fetches whose URLs go back to the pool
        self._background: set[asyncio.Task[object]] = set()
        self._results: list[tuple[str, FetchResult]] = []
        self._results_ready = asyncio.Event()
        self._fatal: Exception | None = None  # set when results cannot be saved
        self._committer_stopping = False
        self._last_poll = 0.0
        #: Pause/resume clicks here so far, and their writes to a shared pool not yet done.
        self._pause_changes = 0
        self._pause_writes = 0
        self.last_error: str | None = None
        # A cheap "does the pool have it" check where the backend answers from memory (a
        # local pool); elsewhere every redirect is handed back to the pool, which
        # de-duplicates its target.
        self._known: Callable[[str], bool] = _pool_knows(frontier)
        self.state_listeners: list[Callable[[CrawlState], None]] = []
        #: Why the crawl is paused for our own storage (disk full), or None.
        self.storage_error: str | None = None
        #: The error that made the crawl fail (state FAILED), or None.
        self.failure: Exception | None = None
        #: Called with the message when the crawl pauses for its storage (the window shows
        #: a dialog; the command line stops and exits 1).
        self.storage_listeners: list[Callable[[str], None]] = []
        self._free_checked = 0.0
        #: Hubs this crawl added by itself, per host (bounded by :data:`AUTO_HUBS_PER_HOST`),
        #: and every URL it considered (so each is looked at once).
        self._auto_hubs: dict[str, int] = {}
        self._auto_seen: set[str] = set()
        self._hub_lock = asyncio.Lock()
        self._disk_use: dict[str, int] = {}
        self._disk_measured = -DISK_USE_SECONDS
        self._disk_task: asyncio.Task[dict[str, int]] | None = None
        if store is not None:
            store.hub_history = settings.hub_history
        #: Per-minute counts not yet added to the pool's counters (``core/counters.py``):
        #: flushed every :data:`COUNTERS_SECONDS` and when the run ends.
        self._counters = Counters()
        self._counters_flushing = asyncio.Lock()
        self._counters_task: asyncio.Task[None] | None = None
        self._counters_stop = asyncio.Event()
        if articles is not None:
            articles.on_article = self._counters.article

    # ---- run control ---------------------------------------------------------------------------
    @property
    def state(self) -> CrawlState:
        return self._state

    def _set_state(self, state: CrawlState) -> None:
        if state is self._state:
            return
        self._state = state
        log.info("crawl %s", state.value)
        for listener in list(self.state_listeners):
            listener(state)

    def start(self) -> None:
        """Start (or restart after a stop) on the running loop."""
        if self._run_task is not None and not self._run_task.done():
            return
        self._stop_requested = False
        self._resumed.set()
        self._run_task = asyncio.get_running_loop().create_task(self.run(), name="crawl")

    async def run(self) -> CrawlState:
        """Crawl until stopped, or (until-idle mode) until there is no work left."""
        self._stop_requested = False
        self._set_state(CrawlState.RUNNING)
        self._stats.start()
        committer = asyncio.get_running_loop().create_task(self._committer(), name="results")
        self._counters_stop.clear()
        self._counters_task = asyncio.get_running_loop().create_task(
            self._counters_loop(), name="counters"
        )
        try:
            await self.fetcher.start()
            await self._start_signal()
            await self.reconsider_refusals()
            # The hubs as the pool has them (a shared pool's, set by another worker too): a
            # refresh counts the links to them as navigation, not as list items.
            self._note_hubs(h.url for h in await self.hubs())
            final = await self._dispatch()
        except asyncio.CancelledError:
            await self._drain(cancel=True)
            await self._stop_committer(committer, quiet=True)
            await self._stop_signal()
            self._set_state(CrawlState.STOPPED)
            raise
        except Exception as exc:
            if isinstance(exc, PoolCorruptError):  # a clear error: no traceback
                log.error("the crawl stopped: %s", exc)
            else:
                _log_error("the crawl stopped on an error", exc)
            self.last_error = str(exc)
            self.failure = exc
            try:
                await self._drain(cancel=True)
            except Exception:
                log.exception("unfinished fetches could not be given back to the pool")
            await self._stop_committer(committer, quiet=True)
            await self._stop_signal()
            self._set_state(CrawlState.FAILED)
            return self._state
        await self._drain(cancel=False)
        if self.articles is not None:
            await self.articles.drain()  # their records go with the last commit
        try:
            await self._stop_committer(committer)
        except Exception as exc:
            if not own_storage_error(exc):
                raise
            # Still no room for the last results: their URLs stay leased in the pool and come
            # back when it is next opened (docs/storage.md, "A full disk").
            self._storage_pause(exc)
            final = CrawlState.STOPPED
        finally:
            await self._stop_signal()  # after the last commit: its notice goes out
        self._set_state(final)
        return final

    # ---- refusals: final under one policy, looked at again when the policy grows wider -------
    def _still_refused(self, refusal: Refusal) -> bool:
        """Would today's settings refuse this URL again, for the reason it was refused?"""
        reason = refusal.reason
        if reason == ErrorKind.BLOCKED_ADDRESS.value:
            policy = self.fetcher.policy
            verdict = policy.check_host(host_of_url(refusal.url))
            if verdict is not None:  # an IP literal: known at once
                return not verdict
            # A name: its addresses are known only by resolving it again.
            return not (policy.allow_private or policy.allow_networks)
        if reason == ErrorKind.ROBOTS.value:
            return self.settings.obey_robots
        if reason == ErrorKind.OUT_OF_SCOPE.value:
            target = refusal.target or refusal.url
            return self.scope.check(target) is not None
        return True

    async def reconsider_refusals(self) -> int:
        """Queue again the refused URLs that the current settings and scope no longer refuse
        (private addresses allowed, robots.txt off, a domain added): at every start and after
        every change that widens the policy. Returns how many went back to the queue."""
        try:
            count = await self.frontier.requeue_refused(lambda r: not self._still_refused(r))
            count += await self._follow_beyond_old_limit()
        except Exception:
            log.exception("refused URLs could not be looked at again")
            return 0
        if count:
            log.info("%d refused URL(s) queued again under the wider policy", count)
            self._wake.set()
            self._notify()
        return count

    async def _follow_beyond_old_limit(self) -> int:
        """A raised depth limit: the links of the stored pages at the old limit (dropped when
        they were fetched) are taken from their stored bodies now, parsed in a worker thread.
        Returns how many links were offered to the pool."""
        old, new = self._links_limit, self.settings.max_depth
        if old is not None and (new is None or new > old) and self.store is not None:
            await self.store.flush()
            records = self.store.records_at_depths(old, new)
            offered = 0
            while True:
                batch = await asyncio.to_thread(_links_of_records, records, self.scope, 20)
                if not batch:
                    break
                for page_url, depth, links in batch:
                    offered += len(links)
                    await self._add_links(depth + 1, page_url, links)
            log.info("depth limit raised from %d: %d links of its pages offered", old, offered)
            self._links_limit = new
            self._save_scope()
            return offered
        if new is not None and (old is None or new < old):
            self._links_limit = new  # pages at the new limit keep their links to themselves
            self._save_scope()
        return 0

    def _reconsider_later(self) -> None:
        """The policy grew wider while crawling: look at the refusals in the background."""
        if self._run_task is None or self._run_task.done():
            return  # the next run looks at them when it starts
        task = asyncio.get_running_loop().create_task(self.reconsider_refusals())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- change notices between the workers of a shared pool ------------------------------------
    async def _start_signal(self) -> None:
        if self.signal is None or self._signal_live:
            return
        try:
            await self.signal.start(self._pool_changed)
        except Exception as exc:
            log.warning(
                "cannot hear the other workers' change notices (%s); looking at the pool "
                "every %.0f s instead",
                exc,
                POLL_SECONDS,
            )
            return
        self._signal_live = True

    async def _stop_signal(self) -> None:
        if self._remote_wake is not None:
            self._remote_wake.cancel()
            self._remote_wake = None
        if self.signal is None or not self._signal_live:
            return
        self._signal_live = False
        try:
            await self.signal.close()
        except Exception:
            log.warning("closing the change notices failed", exc_info=True)

    def _notify(self) -> None:
        """This worker changed the pool: tell the others (who may be waiting for work)."""
        if self._signal_live and self.signal is not None:
            self.signal.notify()

    def _pool_changed(self) -> None:
        """Another worker changed the pool: a dispatcher waiting for work, with no fetch in
        flight, looks again (at most every REMOTE_WAKE_SECONDS)."""
        if not self._waiting_for_work or self._remote_wake is not None:
            return
        loop = asyncio.get_running_loop()
        delay = self._last_remote_wake + REMOTE_WAKE_SECONDS - loop.time()
        if delay <= 0:
            self._wake_for_remote()
        else:
            self._remote_wake = loop.call_later(delay, self._wake_for_remote)

    def _wake_for_remote(self) -> None:
        self._remote_wake = None
        self._last_remote_wake = asyncio.get_running_loop().time()
        self._wake.set()

    # ---- results: pages on disk first, then their URLs done, in batches -------------------------
    def _complete(self, url: str, result: FetchResult) -> None:
        """A fetch is over. Its result reaches the pool with the next commit, after the page
        records buffered so far are on disk: a crash never leaves a URL done without its page."""
        self._results.append((url, result))
        self._results_ready.set()

    async def _committer(self) -> None:
        failures = 0
        while not self._committer_stopping:
            await self._results_ready.wait()
            if self._committer_stopping:
                return  # the last batch is committed by _stop_committer
            await asyncio.sleep(COMMIT_SECONDS)  # let a batch gather
            try:
                if self.storage_error is not None:
                    await self._wait_for_room()
                    if self.storage_error is not None:  # stopping: _stop_committer ends it
                        await asyncio.sleep(ROOM_POLL_SECONDS / 10)
                        self._results_ready.set()
                        continue
                await self._give_back_unstored()
                self._check_free_space()
                await self._commit()
            except Exception as exc:
                if own_storage_error(exc):
                    # Our disk, not the URLs: pause (nothing charged, results kept in memory)
                    # and try again once the user resumes or there is room again.
                    self._storage_pause(exc)
                    await self._wait_for_room()
                    self._results_ready.set()
                    continue
                failures += 1
                if failures >= COMMIT_ATTEMPTS:
                    log.error("results cannot be saved (%s); stopping the crawl", exc)
                    self._fatal = exc
                    self._wake.set()
                    return
                log.warning("saving results failed (%s); trying again", exc)
                self._results_ready.set()
                await asyncio.sleep(min(5.0, 0.2 * 2**failures))
            else:
                failures = 0

    # ---- our own disk full: pause, keep everything, go on once there is room -------------------
    def _storage_dirs(self) -> dict[str, Path | None]:
        """Our own folders: the pool's (None on Redis), the page store's and the WARC files'."""
        return {
            "pool": self.frontier.storage_dir,
            "pages": self.store.path if self.store is not None else None,
            "warc": self.warc.directory if self.warc is not None else None,
        }

    def _storage_paths(self) -> list[Path]:
        return [p for p in self._storage_dirs().values() if p is not None]

    def _check_free_space(self, *, force: bool = False) -> None:
        """Raise DiskFullError when a disk of ours has less room than ``min_free_mb``: the
        crawl pauses while there is still room to finish cleanly."""
        floor = self.settings.min_free_mb * 1024 * 1024
        now = time.monotonic()
        if floor <= 0 or (not force and now - self._free_checked < FREE_SPACE_SECONDS):
            return
        self._free_checked = now
        for path in self._storage_paths():
            try:
                free = shutil.disk_usage(path).free
            except OSError:
                continue
            if free < floor:
                raise DiskFullError(
                    f"only {free / 1024 / 1024:.0f} MB left on the disk of {path} (the crawl "
                    f"pauses below {self.settings.min_free_mb:g} MB)"
                )

    def _storage_pause(self, exc: BaseException) -> None:
        first = self.storage_error is None
        self.storage_error = str(exc)
        self.last_error = self.storage_error
        if first:
            log.info("%s; the crawl is paused until there is room again", exc)
        self._pause_local()
        if first:
            for listener in list(self.storage_listeners):
                listener(self.storage_error)

    async def _wait_for_room(self) -> None:
        """Until the user resumes (or stops), or (CLI) the crawl stops."""
        while not self._committer_stopping and not self._resumed.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._resumed.wait(), ROOM_POLL_SECONDS)

    def _storage_back(self) -> bool:
        """Resume after a storage pause: reopen what a failed write left blocked and look at
        the free space again. False (and paused again) when there is still no room."""
        try:
            self.frontier.recover()
            if self.store is not None:
                self.store.forget_failure()  # its records are pending: the next flush retries
            self._check_free_space(force=True)
        except Exception as exc:
            if not own_storage_error(exc):
                raise
            self.storage_error = None  # a new pause: said again
            self._storage_pause(exc)
            return False
        self.storage_error = None
        log.info("there is room again: the crawl goes on")
        return True

    async def _give_back_unstored(self) -> None:
        """The URLs whose pages could not be stored go back unfetched (no attempt counted)."""
        if self._unfinished and self.storage_error is None and not self._stop_requested:
            urls, self._unfinished = self._unfinished, []
            try:
                await self.frontier.release(urls)
            except BaseException:
                self._unfinished = urls + self._unfinished
                raise

    async def _commit(self) -> None:
        self._results_ready.clear()
        if not self._results:
            return
        batch, self._results = self._results, []
        try:
            if self.store is not None:
                await self.store.flush()
            await self.frontier.set_status_many(batch)
        except BaseException:
            self._results = batch + self._results  # kept for the next try: nothing is lost
            raise
        self._wake.set()  # hosts are free again
        self._notify()  # for the other workers too

    async def _stop_committer(self, committer: asyncio.Task[None], *, quiet: bool = False) -> None:
        # Stopped by a flag, not by cancel(): a cancellation that lands inside a pool call can
        # be swallowed by a client library (redis-py), leaving the task waiting forever.
        self._committer_stopping = True
        self._results_ready.set()
        done, _pending = await asyncio.wait({committer}, timeout=30)
        if not done:
            log.warning("the results task did not stop; cancelling it")
            committer.cancel()
            await asyncio.wait({committer}, timeout=5)
        self._committer_stopping = False
        counting, self._counters_task = self._counters_task, None
        if counting is not None:  # (a flag, not cancel(): see above)
            self._counters_stop.set()
            await asyncio.wait({counting}, timeout=30)
        try:
            await self._commit()
            await self._flush()
        except Exception as exc:
            if not quiet:
                raise
            _log_error("results of the last fetches could not be saved", exc)
        finally:
            await self.flush_counters()

    # ---- the report's per-minute counters, in the pool ------------------------------------------
    async def _counters_loop(self) -> None:
        stop = self._counters_stop
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), COUNTERS_SECONDS)
            if not stop.is_set():
                await self.flush_counters()

    def pending_counters(self) -> Counters:
        """A copy of what was counted and not yet flushed to the pool (a live report)."""
        out = Counters()
        out.merge(self._counters)
        return out

    async def flush_counters(self) -> None:
        """Add what was counted since the last flush to the pool's counters (one batch; off
        the fetch path). What cannot be saved stays here for the next flush."""
        async with self._counters_flushing:
            delta = self._counters.take()
            if not delta:
                return
            try:
                await self.frontier.add_counters(delta)
            except asyncio.CancelledError:
                self._counters.merge(delta)
                raise
            except Exception as exc:
                self._counters.merge(delta)
                log.warning("the report's counters could not be saved (%s); kept for later", exc)

    def pause(self) -> None:
        """No new fetches; those in flight finish. On a shared pool (Redis) the pause reaches
        every worker."""
        self._pause_local()
        self._share_pause(True)

    def resume(self) -> None:
        if self.storage_error is not None and not self._storage_back():
            return  # still no room: stays paused (and says so again)
        self._resume_local()
        self._share_pause(False)

    def _pause_local(self) -> None:
        if self._state is CrawlState.RUNNING:
            self._resumed.clear()
            self._set_state(CrawlState.PAUSED)

    def _resume_local(self) -> None:
        if self._state is CrawlState.PAUSED:
            self._resumed.set()
            self._set_state(CrawlState.RUNNING)
            self._wake.set()

    def _share_pause(self, paused: bool) -> None:
        pool = self.frontier
        if not isinstance(pool, SharedFrontier):
            return
        # Until the pool holds this change, a read of its flag is older than the user's
        # click: it must not undo it (Resume flicked back to Paused for a poll's time).
        self._pause_changes += 1
        self._pause_writes += 1
        task = asyncio.get_running_loop().create_task(pool.set_paused(paused))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(self._pause_written)

    def _robots_cache(self, settings: CrawlSettings) -> RobotsCache:
        return RobotsCache(settings.user_agent, settings.robots_lifetime, clock=self.clock.now)

    def wake(self) -> None:
        """Look at the pool again now, not at the next poll (the crawl's clock was moved:
        a test's ``ManualClock``)."""
        self._wake.set()

    def _pause_written(self, _task: object) -> None:
        self._pause_writes -= 1

    async def _poll_shared_pause(self) -> None:
        """Follow the pool-wide pause flag that another worker or the GUI may have set."""
        pool = self.frontier
        now = time.monotonic()  # (a poll of the server: loop time, not the crawl's clock)
        if not isinstance(pool, SharedFrontier) or now - self._last_poll < SHARED_POLL_SECONDS:
            return
        self._last_poll = now
        changes = self._pause_changes
        try:
            paused, _generation = await pool.control()
        except Exception as exc:
            log.warning("cannot read the shared pause flag: %s", exc)
            return
        if self._pause_writes or changes != self._pause_changes:
            return  # read before this worker's own pause or resume reached the pool
        if paused and self._state is CrawlState.RUNNING:
            log.info("paused by another worker or the GUI")
            self._pause_local()
        elif not paused and self._state is CrawlState.PAUSED:
            log.info("resumed by another worker or the GUI")
            self._resume_local()

    async def stop(self, *, wait_in_flight: bool = True) -> None:
        """Stop: in-flight fetches finish (or, with ``wait_in_flight=False``, are cancelled and
        their URLs go back to the pool); everything is flushed."""
        task = self._run_task
        if task is None or task.done():
            return
        self._stop_requested = True
        if self._state in (CrawlState.RUNNING, CrawlState.PAUSED):
            self._set_state(CrawlState.STOPPING)
        self._resumed.set()
        self._wake.set()
        if not wait_in_flight:
            for t in list(self._tasks):
                t.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def close_background(self) -> None:
        """End the background work: pause flags and refusal re-checks still running, and the
        robots.txt fetches of this cache and of any replaced by a settings change."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._disk_task is not None:  # a disk measure: a short walk, let it end
            await asyncio.gather(self._disk_task, return_exceptions=True)
        for robots in [*self._retired_robots, self.robots]:
            await robots.close()
        self._retired_robots.clear()

    async def close_fetchers(self) -> None:
        """Close the HTTP session (and any left over from live settings changes)."""
        for fetcher in [*self._retired_fetchers, self.fetcher]:
            await fetcher.close()
        self._retired_fetchers.clear()

    async def wait(self) -> CrawlState:
        if self._run_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._run_task
        return self._state

    def stats(self) -> StatsSnapshot:
        snap = self._stats.snapshot()
        self._measure_disk()
        if self._disk_use:
            snap = replace(snap, disk_use=self._disk_use)
        if self.articles is not None:
            snap = replace(
                snap,
                articles_found=self.articles.found,
                extraction_backlog=self.articles.backlog,
            )
        return snap

    def _measure_disk(self) -> None:
        """Measure the disk use again in a worker thread when the last measure is older than
        :data:`DISK_USE_SECONDS` (``stats()`` shows the last one meanwhile)."""
        now = time.monotonic()
        if self._disk_task is not None or now - self._disk_measured < DISK_USE_SECONDS:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._disk_measured = now
        task = loop.create_task(asyncio.to_thread(disk_use, **self._storage_dirs()))
        self._disk_task = task
        task.add_done_callback(self._disk_measured_done)

    def _disk_measured_done(self, task: asyncio.Task[dict[str, int]]) -> None:
        self._disk_task = None
        if not task.cancelled() and task.exception() is None:
            self._disk_use = task.result()

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    # ---- steering ------------------------------------------------------------------------------
    async def add_seeds(self, urls: Iterable[str]) -> AddReport:
        """Add seed URLs (depth 0); their registered domains join the scope. A seed on a
        denied domain or matching a deny pattern is refused with that reason (deny rules win
        over seeds, as over every other URL)."""
        urls = [u.strip() for u in urls if u.strip()]
        denied: list[tuple[str, str]] = []
        kept: list[str] = []
        for url in urls:
            reason = self.scope.check(url)
            if reason in DENY_REASONS:
                denied.append((url, reason))
            else:
                kept.append(url)
        self.scope.add_seeds(kept)
        self._recent.clear()  # links refused as off-domain may be in scope now
        self._save_scope()
        report = await self.frontier.add_many([AddRequest(u, 0, None) for u in kept])
        report.refused.extend(denied)
        self._wake.set()
        self._notify()
        self._reconsider_later()  # redirects that left the scope may be in it now
        return report

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        self.scope.add_seeds([h.url for h in hubs])
        self._recent.clear()
        self._save_scope()
        report = await self.frontier.set_hubs(hubs)
        refused = {url for url, _reason in report.refused}
        self._note_hubs(h.url for h in hubs if h.url not in refused)
        self._wake.set()
        self._notify()
        self._reconsider_later()
        return report

    def refresh_scope(self, domains: Iterable[str]) -> None:
        """Registered domains that joined the crawl elsewhere (another worker's seeds)."""
        new = set(domains) - self.scope.seed_domains
        if new:
            self.scope.add_seeds(f"http://{d}/" for d in new)
            self._recent.clear()  # links skipped as off-domain may be in scope now
            log.info("%d seeded domain(s) joined the scope", len(new))
            self._reconsider_later()

    async def add_scope_domains(self, domains: Iterable[str]) -> None:
        """Registered domains join the crawl's scope and are remembered (a loaded snapshot's
        scope, merged)."""
        self.refresh_scope(domains)
        self._save_scope()

    def _save_scope(self) -> None:
        """Remember the seeded domains next to the pool, so a resumed crawl keeps its scope."""
        if self.scope_file is None:
            return
        data = {
            "version": 1,
            "seed_domains": sorted(self.scope.seed_domains),
            "links_limit": self._links_limit,
        }
        tmp = self.scope_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.scope_file)

    async def hubs(self) -> list[HubSpec]:
        """The hub list as the pool has it (every backend lists its hubs)."""
        return await self.frontier.hubs()

    # ---- per-host control (the window's host detail) --------------------------------------
    async def pause_host(self, host: str, paused: bool) -> None:
        """Pause or resume one host, in the pool (every worker of a shared pool obeys)."""
        await self.frontier.set_host_paused(host, paused)
        log.info("host %s %s", host, "paused" if paused else "resumed")
        self._wake.set()
        self._notify()

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        """The user's minimum delay for one host (``None``: the configured one again)."""
        await self.frontier.set_host_delay(host, seconds)
        if seconds is None:
            log.info("host %s: the configured minimum delay again", host)
        else:
            log.info("host %s: at least %.1f s between two requests", host, seconds)
        self._wake.set()
        self._notify()

    async def retry_failed_host(self, host: str) -> int:
        """Queue again the URLs of ``host`` that failed for good; returns how many."""
        n = await self.frontier.retry_failed(host)
        log.info("host %s: %d failed URLs queued again", host, n)
        self._wake.set()
        self._notify()
        return n

    async def forget_host_waiting(self, host: str) -> int:
        """Drop the waiting URLs of ``host`` from the pool; returns how many."""
        n = await self.frontier.forget_waiting(host)
        log.info("host %s: %d waiting URLs forgotten", host, n)
        self._notify()
        return n

    async def host_waiting(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        return await self.frontier.waiting_urls(host, page, page_size)

    async def host_failed(self, host: str, limit: int = 200) -> list[FailedRow]:
        return await self.frontier.failed_urls(host, limit)

    async def host_robots(self, host: str) -> RobotsText | None:
        """The robots.txt this crawl last fetched for ``host``, if it is still kept."""
        return self.robots.text_of_host(host)

    def apply_settings(self, settings: CrawlSettings) -> None:
        """Change settings live: politeness, limits and concurrency at once; timeouts, caps
        and the user agent for the next fetches (a fresh HTTP session)."""
        old, self.settings = self.settings, settings
        if self.store is not None:
            self.store.hub_history = settings.hub_history
        self.frontier.set_config(pool_config(settings))
        fetch_fields = (
            "connect_timeout",
            "read_timeout",
            "total_timeout",
            "max_body",
            "max_decompressed",
            "max_redirects",
            "user_agent",
            "allow_private",
            "per_host",
            "concurrency",
            "extra_headers",
            "proxy",
        )
        if any(getattr(old, f) != getattr(settings, f) for f in fetch_fields):
            self._retired_fetchers.append(self.fetcher)
            self.fetcher = Fetcher(settings, allow_networks=self.allow_networks)
        widened = (
            (settings.allow_private and not old.allow_private)
            or (old.obey_robots and not settings.obey_robots)
            or old.max_depth != settings.max_depth  # (kept in scope.json when it shrinks)
        )
        if old.user_agent != settings.user_agent or old.allow_private != settings.allow_private:
            # (robots.txt refused for the host's address is fetched again under the new rule)
            self._retired_robots.append(self.robots)
            self.robots = self._robots_cache(settings)
        scope_fields = (
            "allow_domains",
            "deny_domains",
            "allow_patterns",
            "deny_patterns",
            "follow_external",
        )
        if any(getattr(old, f) != getattr(settings, f) for f in scope_fields):
            self.scope = make_scope(settings, self.scope.seed_domains)
            self._recent.clear()
            widened = True
        if widened:
            self._reconsider_later()
        self._wake.set()

    # ---- the dispatcher ------------------------------------------------------------------------
    async def _dispatch(self) -> CrawlState:
        frontier = self.frontier
        while True:
            # Cleared before the pool is looked at: whatever happens from here on (a fetch
            # ends, a commit, another worker's notice) ends the wait below at once.
            self._wake.clear()
            self._waiting_for_work = False
            if self._fatal is not None:
                raise self._fatal
            if self._stop_requested:
                return CrawlState.STOPPED
            await self._poll_shared_pause()
            if not self._resumed.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._resumed.wait(), SHARED_POLL_SECONDS)
                continue
            s = self.settings
            if s.max_pages is not None and self._pages_started >= s.max_pages:
                log.info("max pages (%d) reached", s.max_pages)
                return CrawlState.STOPPED
            free = s.concurrency - len(self._tasks)
            if s.max_pages is not None:
                free = min(free, s.max_pages - self._pages_started)
            leases: list[Lease] = []
            if free > 0:
                try:
                    leases = await frontier.pop(free, s.hub_percent)
                except Exception as exc:
                    if not own_storage_error(exc):
                        raise
                    self._storage_pause(exc)  # our disk: paused, not failed
                    continue
                for lease in leases:
                    self._launch(lease)
            if leases and len(self._tasks) < s.concurrency:
                await asyncio.sleep(0)  # let fetches start before asking again
                continue
            # Nothing in flight and nothing to pop: only another worker's change can bring work
            # (a worker with fetches in flight is woken by them).
            self._waiting_for_work = not self._tasks and not leases
            idle_mode = s.mode is CrawlMode.UNTIL_IDLE
            if idle_mode and not self._tasks and not leases and await self._idle():
                return CrawlState.FINISHED
            await self._sleep_until_due(full=len(self._tasks) >= s.concurrency)

    def _launch(self, lease: Lease) -> None:
        self._pages_started += 1
        if lease.is_hub:
            self.hub_fetches += 1
            self._counters.hub_fetch(self.clock.now())
        task = asyncio.get_running_loop().create_task(self._process(lease))
        self._tasks[task] = lease
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        lease = self._tasks.pop(task, None)
        self._wake.set()
        if task.cancelled():
            if lease is not None:
                self._unfinished.append(lease.url)
        elif task.exception() is not None:
            log.error("fetch task failed", exc_info=task.exception())

    async def _idle(self) -> bool:
        t = await self.frontier.totals()
        if t.waiting or t.pending or t.retrying:
            return False
        # Nothing waiting, in flight or retrying: what the pool says is due next is a hub's
        # refresh (a parked hub waits for the user, not for the crawl: it keeps nobody busy).
        due = await self.frontier.next_due()
        return due is None or due - self.clock.now() > self.settings.idle_span

    async def _sleep_until_due(self, *, full: bool = False) -> None:
        """Wait for a wake-up (a fetch ends, a commit, a notice) or until the pool's next URL
        is due. With every fetch slot busy (``full``) only a fetch that ends makes room, so
        the pool is not asked when its next URL is due (one round trip less per wait)."""
        timeout = POLL_SECONDS
        if not full:
            due = await self.frontier.next_due()
            if due is not None:
                timeout = min(POLL_SECONDS, max(0.005, due - self.clock.now()))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout)

    async def _drain(self, *, cancel: bool) -> None:
        """Wait for (or cancel) the fetches in flight; cancelled ones go back to the pool."""
        if cancel:
            for t in list(self._tasks):
                t.cancel()
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._unfinished:
            urls, self._unfinished = self._unfinished, []
            released = await self.frontier.release(urls)
            log.info("%d unfinished fetches went back to the pool", released)
            self._notify()
        for robots in self._retired_robots:  # their fetches use the retired sessions
            await robots.close()
        self._retired_robots.clear()
        for fetcher in self._retired_fetchers:
            await fetcher.close()
        self._retired_fetchers.clear()

    async def _flush(self) -> None:
        if self.store is not None:
            await self.store.flush()

    # ---- one URL -------------------------------------------------------------------------------
    def _hop_check(self, url: str) -> ErrorKind | None:
        if self.scope.check(url) is not None:
            return ErrorKind.OUT_OF_SCOPE
        if self.settings.obey_robots and self.robots.allowed_cached(url) is False:
            return ErrorKind.ROBOTS
        return None

    async def _process(self, lease: Lease) -> None:
        url = lease.url
        try:
            await self.turns.checkpoint()  # many leases start together: spread their first steps
            refusal = None if lease.is_hub else self.scope.check(url)
            if refusal is not None and (refusal != "off_domain" or self.scope.names_sites):
                # A URL that reached the pool without the scope check links pass (a loaded
                # snapshot, a scope narrowed since): refused, never fetched. (A scope that
                # names no site at all refuses nothing as off-site.)
                result = FetchResult(
                    error=ErrorKind.OUT_OF_SCOPE, message="outside the crawl's scope"
                )
                self._count(result, host=lease.host)
                self._complete(url, result)
                return
            if self.settings.obey_robots and not await self._robots_allow(lease):
                refusal = self.robots.refusal(url)
                if refusal:  # the host's address is not allowed: a refusal, decided once
                    result = FetchResult(error=ErrorKind.BLOCKED_ADDRESS, message=refusal)
                elif self.robots.unreachable(url):
                    # robots.txt could not be fetched: a temporary refusal (RFC 9309), retried
                    result = FetchResult(
                        error=ErrorKind.ROBOTS_UNREACHABLE,
                        message="robots.txt unreachable; trying again later",
                    )
                else:
                    result = FetchResult(error=ErrorKind.ROBOTS, message="disallowed by robots.txt")
                self._count(result, host=lease.host)
                self._complete(url, result)
                return
            conditional = (
                self.store.hub_validators(url) if lease.is_hub and self.store is not None else None
            )
            outcome = await self.fetcher.fetch(
                url, hop_check=self._hop_check, known=self._known, conditional=conditional
            )
            fetched_at = self.clock.now()
            # Fetches that end together (a crawl's first burst) share out the loop's turns:
            # none runs long enough to stall the window or a timer (engine/turns.py).
            await self.turns.checkpoint()
            result = outcome.to_result()
            if result.redirect_to is not None and self.scope.check(result.redirect_to):
                # Kept with the refusal: a wider scope later covers this target.
                result = replace(
                    result,
                    error=ErrorKind.OUT_OF_SCOPE,
                    message=f"redirect to {result.redirect_to} leaves the scope",
                )
            self._count(result, outcome.size, outcome.elapsed, host=lease.host)
            extract: tuple[int, str] | None = None
            if outcome.ok:
                seq, kind, found = await self._handle_page(lease, outcome, conditional)
                extract = seq, kind
                if lease.is_hub and found is not None:
                    # What the refresh found, for the hub's learned rate (core/freshness.py).
                    result = replace(
                        result, hub_new=found[0], hub_listed=found[1].links, hub_items=found[1]
                    )
            elif outcome.not_modified and lease.is_hub:
                # Nothing new since the last refresh: a successful refresh that found no
                # links (the pool counts a 304 as done). No body, no parse, nothing stored;
                # for the hub's learned rate it is an interval with no new article (its
                # list's size is unknown here: 0).
                result = replace(result, hub_new=0, hub_listed=0)
                if self.store is not None:
                    self.store.note_not_modified(url, self.clock.now(), outcome.headers)
            self._complete(url, result)
            if extract is not None and self.articles is not None:
                # After the result is in: a page waiting here for room in the extraction
                # queue holds its fetch slot (fetching slows to the extraction rate), not
                # its URL.
                seq, kind = extract
                await self.articles.page(
                    seq,
                    outcome.final_url,
                    outcome.body,
                    outcome.content_type,
                    is_html=kind == "html",
                    fetched_at=fetched_at,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if own_storage_error(exc):
                # The page could not be stored: the URL goes back unfetched, no attempt
                # counted, once there is room again.
                self._unfinished.append(url)
                self._storage_pause(exc)
                self._results_ready.set()
                return
            _log_error(f"while crawling {url}", exc)
            self._complete(
                url, FetchResult(error=ErrorKind.INTERNAL, message=f"internal error: {exc}")
            )

    def _count(
        self, result: FetchResult, size: int = 0, elapsed: float = 0.0, *, host: str = ""
    ) -> None:
        """Count one URL in the stats and the pool's counters: a refusal by our own policy
        where no request was sent (address, robots.txt, scope) is not a fetch and not an
        error."""
        if result.status is None and result.error is not None and result.error.refusal:
            self._stats.record_refusal()
            self._counters.refusal(self.clock.now())
        else:
            error = result.error.value if result.error else None
            self._stats.record(result.status, error, size, elapsed)
            self._counters.fetch(self.clock.now(), host, result.status, error, size)

    async def _robots_allow(self, lease: Lease) -> bool:
        robots = self.robots
        verdict = robots.allowed_cached(lease.url)
        if verdict is None:
            verdict = await robots.allowed(lease.url, self.fetcher.fetch_robots)
            if self.settings.discover_feeds:
                sitemaps = robots.sitemaps(lease.url)
                if sitemaps:
                    await self._add_found_hubs(sitemaps)
            delay = robots.crawl_delay(lease.url)
            if delay is not None and self._delays_sent.get(lease.host) != delay:
                self._delays_sent[lease.host] = delay
                await self.frontier.set_delay(lease.host, min(delay, 120.0))
        return verdict

    async def _handle_page(
        self, lease: Lease, outcome: FetchOutcome, conditional: Mapping[str, str] | None = None
    ) -> tuple[int, str, tuple[int, ListSample] | None]:
        """Parse, queue the links, store the page with its fetch detail (``conditional``: the
        validators a hub's refresh sent, recorded with the request headers); returns its store
        sequence number and sniffed kind (for extraction), and for a page whose links were
        followed how many of its list's items (:meth:`_is_item`) the pool had not seen and
        the items as the hub's memory keeps them (``core/freshness.py``)."""
        found: tuple[int, ListSample] | None = None
        kind = sniff_kind(outcome.content_type, outcome.body)
        title, encoding, decided_by, links = "", "", "", list[str]()
        others: list[tuple[str, str, str]] = []  # out-links not submitted, with why
        big = len(outcome.body) > THREAD_PARSE_BYTES
        follow = self.settings.max_depth is None or lease.depth + 1 <= self.settings.max_depth
        detailed = self.store is not None
        hub_kind = HubKind.PAGE
        if lease.is_hub:
            hub_kind = sniff_hub_kind(outcome.body, outcome.content_type or "", outcome.final_url)
        if hub_kind is not HubKind.PAGE:
            self._counters.feed_fetch(self.clock.now())
            # A feed or a sitemap: its items are its links, as a list page's.
            title, links = await self._feed_links(outcome, big, follow)
        elif kind == "html":
            # Only links in scope come back (checked where they were parsed).
            scope = self.scope if follow else None
            if big:
                parsed = await asyncio.to_thread(self._parse_page_big, outcome, scope, detailed)
            else:
                parsed = self._parse_page(outcome, scope, detailed)
            title, encoding, decided_by, links, others = parsed
        elif kind == "text":
            if big:
                _text, encoding, decided_by = await asyncio.to_thread(
                    decode_body_explained, outcome.body, outcome.content_type
                )
            else:
                _text, encoding, decided_by = decode_body_explained(
                    outcome.body, outcome.content_type
                )
        outcomes: list[tuple[str, str, str]] = []
        detail = outcomes if detailed else None
        if follow and (kind == "html" or hub_kind is not HubKind.PAGE):
            if lease.is_hub:
                # Only the list's items count as what the refresh found (not its navigation;
                # a feed's or a sitemap's links are all items).
                if hub_kind is HubKind.PAGE:
                    items = [link for link in links if self._is_item(link)]
                    nav = [link for link in links if not self._is_item(link)]
                else:
                    items, nav = links, []
                await self._add_links(lease.depth + 1, outcome.final_url, nav, detail)
                added = await self._add_links(lease.depth + 1, outcome.final_url, items, detail)
                if len(items) > THREAD_SAMPLE_LINKS:  # a sitemap: hashed off the loop
                    found = added, await asyncio.to_thread(list_sample, items)
                else:
                    found = added, list_sample(items)
            elif links:
                await self._add_links(lease.depth + 1, outcome.final_url, links, detail)
        if kind == "html" and hub_kind is HubKind.PAGE and self.settings.discover_feeds:
            # The head only: a big page is not lowercased whole on the loop.
            head = outcome.body[:HEAD_BYTES]
            feeds = discover_feeds(head, outcome.final_url, AUTO_HUBS_PER_HOST)
            if feeds:
                await self._add_found_hubs(feeds)
        seq = 0
        if self.store is not None:
            add = self.store.add_hub_fetch if lease.is_hub else None
            record = PageRecord(
                url=lease.url,
                final_url=outcome.final_url,
                status=outcome.status or 0,
                fetched_at=self.clock.now(),
                content_type=outcome.content_type or "",
                encoding=encoding,
                title=title,
                depth=lease.depth,
                size=outcome.size,
                elapsed=outcome.elapsed,
                referrer=lease.referrer,
                redirect_chain=tuple(outcome.chain),
                body=outcome.body
                if self.settings.store_bodies and (kind != "binary" or hub_kind is not HubKind.PAGE)
                else None,
            )
            seq = add(record, outcome.headers) if add is not None else self.store.add(record)
            self.store.add_detail(
                seq,
                make_detail(
                    request_headers=[
                        *self.fetcher.request_headers(),
                        *(conditional or {}).items(),
                    ],
                    response_headers=(outcome.headers or {}).items(),
                    decided_by=decided_by,
                    links=(*outcomes, *others),
                ),
            )
        if self.warc is not None:
            await self.warc.write_async(
                outcome.final_url,
                outcome.status or 0,
                [(k, _header_text(v)) for k, v in (outcome.headers or {}).items()],
                outcome.body,
                self.clock.now(),
                outcome.peer,
            )
        return seq, kind, found

    def _note_hubs(self, urls: Iterable[str]) -> None:
        """Remember the hubs' canonical URLs: links to them are navigation (:meth:`_is_item`)."""
        self._hub_urls = frozenset(_canonical_or_none(url) for url in urls) - {None}

    def _is_item(self, link: str) -> bool:
        """Is a hub's link one of its list's items? Not a site's home page nor a hub (the
        navigation every list page of a site repeats)."""
        canonical = _canonical_or_none(link)
        return (
            canonical is not None
            and canonical not in self._hub_urls
            and urlsplit(canonical).path not in ("", "/")
        )

    async def _feed_links(
        self, outcome: FetchOutcome, big: bool, follow: bool
    ) -> tuple[str, list[str]]:
        """The title and the article links (in scope) of a hub that is a feed or a sitemap.
        Their dates are kept in the page store (the article's published time when its page
        gives none); a sitemap index's children become hubs (bounded, in scope)."""
        args = (outcome.body, outcome.final_url, outcome.content_type or "", self.scope)
        if big:
            doc, items = await asyncio.to_thread(_hub_items, *args)
        else:
            doc, items = _hub_items(*args)
        if doc.problem:
            log.info("%s: %s", outcome.final_url, doc.problem)
        if self.store is not None:
            self.store.add_listed(outcome.final_url, items)
        if doc.sitemaps:
            await self._add_found_hubs(doc.sitemaps[:INDEX_CHILDREN])
        return doc.title, [url for url, _published, _updated in items] if follow else []

    async def _add_found_hubs(self, urls: Iterable[str]) -> int:
        """Feeds and sitemaps found by the crawl join the hub list: in scope only, each URL
        considered once, at most :data:`AUTO_HUBS_PER_HOST` per host in a run, refreshed on
        the crawl's hub span. Returns how many became hubs."""
        async with self._hub_lock:
            fresh: list[str] = []
            for url in urls:
                if url in self._auto_seen or self.scope.check(url) is not None:
                    continue
                host = host_of_url(url)
                if self._auto_hubs.get(host, 0) >= AUTO_HUBS_PER_HOST:
                    continue
                self._auto_seen.add(url)
                self._auto_hubs[host] = self._auto_hubs.get(host, 0) + 1
                fresh.append(url)
            if not fresh:
                return 0
            current = await self.frontier.hubs()
            known = {hub.url for hub in current}
            fresh = [url for url in fresh if url not in known]
            if not fresh:
                return 0
            span = self.settings.hub_span
            report = await self.frontier.set_hubs([*current, *(HubSpec(u, span) for u in fresh)])
        if report.added:
            self._note_hubs([*(hub.url for hub in current), *fresh])
            log.info("%d feed(s) or sitemap(s) found became hubs", report.added)
            self._wake.set()
            self._notify()
        return report.added

    @classmethod
    def _parse_big(cls, outcome: FetchOutcome, scope: Scope | None) -> tuple[str, str, list[str]]:
        """:meth:`_parse` in a worker thread, with the garbage collector paused."""
        with _gc_paused():
            return cls._parse(outcome, scope)

    @classmethod
    def _parse(cls, outcome: FetchOutcome, scope: Scope | None) -> tuple[str, str, list[str]]:
        """Decode and parse a page; its links in ``scope`` (none without a scope)."""
        title, encoding, _how, links, _others = cls._parse_page(outcome, scope, False)
        return title, encoding, links

    @classmethod
    def _parse_page_big(
        cls, outcome: FetchOutcome, scope: Scope | None, others: bool
    ) -> tuple[str, str, str, list[str], list[tuple[str, str, str]]]:
        """:meth:`_parse_page` in a worker thread, with the garbage collector paused."""
        with _gc_paused():
            return cls._parse_page(outcome, scope, others)

    @staticmethod
    def _parse_page(
        outcome: FetchOutcome, scope: Scope | None, others: bool
    ) -> tuple[str, str, str, list[str], list[tuple[str, str, str]]]:
        """Decode and parse a page: its title, encoding, how the encoding was decided, its
        links in ``scope`` (none without a scope) and, with ``others``, up to
        :data:`MAX_DETAIL_LINKS` of the rest as ``(url, "off_scope", reason)`` (or
        ``not_followed`` without a scope: the depth limit). Runs in a worker thread for a big
        page: nothing here touches the crawler's state."""
        body = outcome.body
        text, encoding, how = decode_body_explained(body, outcome.content_type)
        source: str | bytes = text
        if (
            encoding in ("utf-8", "ascii")
            and "\ufffd" not in text
            and not body.startswith(codecs.BOM_UTF8)
        ):
            # The whole body decoded strictly: ``text.encode()`` would give back these very
            # bytes, which extract_links passes to the parser as they are (saves a re-encode).
            source = body
        links, title = extract_links(source, outcome.final_url)
        rest: list[tuple[str, str, str]] = []
        if scope is None:
            if others:
                rest = [(link, "not_followed", "depth limit") for link in links]
            return title, encoding, how, [], rest[:MAX_DETAIL_LINKS]
        check = scope.check
        kept: list[str] = []
        for link in links:
            why = check(link)
            if why is None:
                kept.append(link)
            elif others and len(rest) < MAX_DETAIL_LINKS:
                rest.append((link, "off_scope", why))
        return title, encoding, how, kept, rest

    async def _add_links(
        self,
        depth: int,
        page_url: str,
        links: list[str],
        outcomes: list[tuple[str, str, str]] | None = None,
    ) -> int:
        """Queue a page's links in scope that were not submitted lately, one slice at a time:
        the loop is free between slices, and a huge page never holds all its requests at
        once (hundreds of thousands of objects make every garbage collection slow). Returns
        how many the pool had not seen (the page's new links).

        With ``outcomes``, what became of each link (up to :data:`MAX_DETAIL_LINKS`) is
        appended as ``(url, outcome, reason)``, from the pool's add report: ``refused`` with
        its reason, ``queued`` or ``known`` (``queued_or_known`` when a slice had both: the
        report counts them, it does not name them), ``robots`` when robots.txt (cached)
        disallows it, ``known`` when submitted lately."""
        added = 0
        recent = self._recent
        robots_check = self.settings.obey_robots
        for start in range(0, len(links), LINK_SLICE):
            if start:
                await asyncio.sleep(0)
            batch: list[AddRequest] = []
            skipped: list[str] = []
            for link in links[start : start + LINK_SLICE]:
                if link not in recent:
                    recent[link] = None
                    batch.append(AddRequest(link, depth, page_url))
                elif outcomes is not None:
                    skipped.append(link)
            report = await self.frontier.add_many(batch) if batch else None
            if report is not None:
                added += report.added
            if outcomes is None or len(outcomes) >= MAX_DETAIL_LINKS:
                continue
            refused = dict(report.refused) if report is not None else {}
            if report is None or not report.added:
                fresh = "known"
            elif not report.duplicate:
                fresh = "queued"
            else:
                fresh = "queued_or_known"
            for req in batch:
                if req.url in refused:
                    outcomes.append((req.url, "refused", refused[req.url]))
                elif robots_check and self.robots.allowed_cached(req.url) is False:
                    outcomes.append((req.url, "robots", "disallowed by robots.txt"))
                else:
                    outcomes.append((req.url, fresh, ""))
            outcomes.extend((link, "known", "submitted lately") for link in skipped)
        if len(recent) > RECENT_LINKS:
            for stale in list(recent)[: RECENT_LINKS // 4]:
                del recent[stale]
        return added
