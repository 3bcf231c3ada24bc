"""The crawl's run control: the façade the window, the command line and the control channel
use (``start``/``pause``/``resume``/``stop``, ``stats()``, seeds, hubs, settings, one host's
control). Knows nothing of Qt. It wires the parts that do the work, each testable alone:

* ``dispatcher.py``: leases from the pool become fetch tasks (concurrency, sleeping until due);
* ``pipeline.py``: one lease (robots.txt, fetch, decode and parse, store, links, feeds, hubs);
* ``committer.py``: the results into the pool in batches, the pause for our own full disk;
* ``counting.py``: the report's per-minute counters into the pool;
* ``shared_pause.py`` and ``notices.py``: a shared pool's pause flag and change notices;
* ``scope_file.py``: the scope (seeded domains, depth limit) kept next to the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crawler_gui.core.clock import Clock, SystemClock
from crawler_gui.core.counters import Counters
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
from crawler_gui.core.policy import ErrorKind, Politeness, PoolConfig, RetryPolicy
from crawler_gui.engine.committer import Committer
from crawler_gui.engine.counting import CounterFlusher
from crawler_gui.engine.dispatcher import POLL_SECONDS, Dispatcher
from crawler_gui.engine.faults import damaged_storage, log_error, own_storage_error
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.notices import WorkerNotices
from crawler_gui.engine.parsing import links_of_records
from crawler_gui.engine.pipeline import PagePipeline
from crawler_gui.engine.robots import RobotsCache, RobotsText
from crawler_gui.engine.scope import DENY_REASONS, Scope, host_of_url
from crawler_gui.engine.scope_file import load_links_limit, save_scope
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.engine.shared_pause import SharedPause
from crawler_gui.engine.stats import CrawlStats, StatsSnapshot, disk_use
from crawler_gui.engine.store import PageStore

if TYPE_CHECKING:
    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.warc import WarcWriter

log = logging.getLogger(__name__)

#: How often the crawl's disk use (pool, page store, WARC) is measured for ``stats()``.
DISK_USE_SECONDS = 10.0
#: The longest a stop waits, once the fetches in flight are done, for the pages queued for
#: extraction (the queue holds up to 8 pages a worker, each allowed 20 s: minutes at worst);
#: part of the stop's stated bound (``docs/server.md``, "How long a stop takes").
STOP_EXTRACTION_SECONDS = 10.0


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
        self.frontier = frontier
        self.allow_networks = tuple(allow_networks)
        self.store = store
        self.warc = warc
        #: The crawl's time (the pool's clock, injected by the session): due times, fetch
        #: times, idle checks. Loop time paces what is about I/O only (polls, disk checks).
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._stats = CrawlStats(self.clock.now)
        self._state = CrawlState.IDLE
        self._run_task: asyncio.Task[CrawlState] | None = None
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._stop_requested = False
        #: Set while a stop is asked: the page pipeline hands no more pages to extraction.
        self._stopping = asyncio.Event()
        self._retired_fetchers: list[Fetcher] = []
        self._retired_robots: list[RobotsCache] = []  # replaced by a settings change
        self._background: set[asyncio.Task[object]] = set()
        self.last_error: str | None = None
        self.state_listeners: list[Callable[[CrawlState], None]] = []
        #: The error that made the crawl fail (state FAILED), or None.
        self.failure: Exception | None = None
        #: Called with the message when the crawl pauses for its storage (the window shows
        #: a dialog; the command line stops and exits 1).
        self.storage_listeners: list[Callable[[str], None]] = []
        self._disk_use: dict[str, int] = {}
        self._disk_measured = -DISK_USE_SECONDS
        self._disk_task: asyncio.Task[dict[str, int]] | None = None
        if store is not None:
            store.hub_history = settings.hub_history
        #: The report's per-minute counts, on their way to the pool's counters.
        self.counting = CounterFlusher(frontier)
        if articles is not None:
            articles.on_article = self.counting.counters.article
        self.committer = Committer(
            frontier,
            store=store,
            resumed=self._resumed,
            min_free_mb=lambda: self.settings.min_free_mb,
            storage_paths=self._storage_paths,
            stopping=lambda: self._stop_requested,
            wake=self.wake,
            notify=self._notify,
            on_pause=self._storage_paused,
            on_fatal=self._fail,
        )
        self.pipeline = PagePipeline(
            frontier,
            settings=settings,
            fetcher=fetcher,
            robots=robots or self._robots_cache(settings),
            scope=scope,
            store=store,
            warc=warc,
            clock=self.clock,
            articles=articles,
            stats=self._stats,
            counters=self.counting.counters,
            complete=self.committer.complete,
            unstored=self.committer.unstored,
            changed=self._changed,
            fatal=self._page_fatal,
            stopping=self._stopping,
        )
        self.shared_pause = SharedPause(
            frontier,
            state=lambda: self._state,
            pause=self._pause_local,
            resume=self._resume_local,
            spawn=self._spawn,
        )
        self.dispatcher = Dispatcher(
            frontier,
            clock=self.clock,
            settings=lambda: self.settings,
            process=self.pipeline.process,
            resumed=self._resumed,
            stopping=lambda: self._stop_requested,
            poll_pause=self.shared_pause.poll,
            on_storage_error=self.committer.storage_pause,
            on_cancelled=self.committer.give_back,
            on_launch=self._launched,
        )
        if signal is None and isinstance(frontier, SharedFrontier):
            signal = frontier.change_notices()  # a shared pool's workers nudge each other
        #: Change notices between the workers of a shared pool (None: a pool of one).
        self.notices = WorkerNotices(
            signal,
            waiting=lambda: self.dispatcher.waiting_for_work,
            wake=self.wake,
            poll_seconds=POLL_SECONDS,
        )

    # ---- what the parts share, replaced live by a settings change -----------------------------
    @property
    def settings(self) -> CrawlSettings:
        return self.pipeline.settings

    @settings.setter
    def settings(self, settings: CrawlSettings) -> None:
        self.pipeline.settings = settings

    @property
    def fetcher(self) -> Fetcher:
        return self.pipeline.fetcher

    @fetcher.setter
    def fetcher(self, fetcher: Fetcher) -> None:
        self.pipeline.fetcher = fetcher

    @property
    def robots(self) -> RobotsCache:
        return self.pipeline.robots

    @robots.setter
    def robots(self, robots: RobotsCache) -> None:
        self.pipeline.robots = robots

    @property
    def scope(self) -> Scope:
        return self.pipeline.scope

    @scope.setter
    def scope(self, scope: Scope) -> None:
        self.pipeline.scope = scope

    @property
    def signal(self) -> ChangeNotices | None:
        """The change notices of a shared pool's workers (set before a run starts)."""
        return self.notices.signal

    @signal.setter
    def signal(self, signal: ChangeNotices | None) -> None:
        self.notices.signal = signal

    @property
    def storage_error(self) -> str | None:
        """Why the crawl is paused for our own storage (disk full), or None."""
        return self.committer.storage_error

    @property
    def hub_fetches(self) -> int:
        """Hub fetches started (hub refreshes), for the metrics."""
        return self.dispatcher.hub_fetches

    @property
    def in_flight(self) -> int:
        return self.dispatcher.in_flight

    def _robots_cache(self, settings: CrawlSettings) -> RobotsCache:
        return RobotsCache(settings.user_agent, settings.robots_lifetime, clock=self.clock.now)

    def _spawn(self, coro: Coroutine[Any, Any, object]) -> asyncio.Task[object]:
        """Run ``coro`` in the background (ended by :meth:`close_background`)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def wake(self) -> None:
        """Look at the pool again now, not at the next poll (the crawl's clock was moved:
        a test's ``ManualClock``)."""
        self.dispatcher.wake()

    def _notify(self) -> None:
        """This worker changed the pool: tell the others (who may be waiting for work)."""
        self.notices.notify()

    def _changed(self) -> None:
        self.wake()
        self._notify()

    def _launched(self, lease: Lease) -> None:
        if lease.is_hub:
            self.counting.counters.hub_fetch(self.clock.now())

    def _fail(self, exc: Exception) -> None:
        self.dispatcher.fail(exc)

    def _page_fatal(self, url: str, exc: Exception) -> None:
        """A page met a damaged pool or page store: its URL goes back, the crawl stops."""
        self.committer.unfinished(url)
        self._fail(exc)

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
        self._stopping.clear()
        self._set_state(CrawlState.RUNNING)
        self._stats.start()
        self.committer.start()
        self.counting.start()
        try:
            await self.fetcher.start()
            await self.notices.start()
            await self.reconsider_refusals()
            # The hubs as the pool has them (a shared pool's, set by another worker too): a
            # refresh counts the links to them as navigation, not as list items.
            self.pipeline.note_hubs(h.url for h in await self.hubs())
            final = await self.dispatcher.run()
        except asyncio.CancelledError:
            await self._drain(cancel=True)
            await self._stop_committer(quiet=True)
            await self.notices.stop()
            self._set_state(CrawlState.STOPPED)
            raise
        except Exception as exc:
            if damaged_storage(exc):  # a clear error: no traceback
                log.error("the crawl stopped: %s", exc)
            else:
                log_error(log, "the crawl stopped on an error", exc)
            self.last_error = str(exc)
            self.failure = exc
            try:
                await self._drain(cancel=True)
            except Exception:
                log.exception("unfinished fetches could not be given back to the pool")
            await self._stop_committer(quiet=True)
            await self.notices.stop()
            self._set_state(CrawlState.FAILED)
            return self._state
        await self._drain(cancel=False)
        await self._finish_extraction()  # (its records go with the last commit)
        try:
            await self._stop_committer()
        except Exception as exc:
            if not own_storage_error(exc):
                raise
            # Still no room for the last results: their URLs stay leased in the pool and come
            # back when it is next opened (docs/storage.md, "A full disk").
            self.committer.storage_pause(exc)
            final = CrawlState.STOPPED
        finally:
            await self.notices.stop()  # after the last commit: its notice goes out
        self._set_state(final)
        return final

    async def _finish_extraction(self) -> None:
        """Wait for the pages handed to extraction. After a stop, for at most
        :data:`STOP_EXTRACTION_SECONDS`: the stop has a bound (``docs/server.md``), and the
        pages still queued then are stored without their extraction (``crawler-gui extract``
        does it later; the session leaves their workers to end with the process)."""
        articles = self.articles
        if articles is None:
            return
        if not self._stop_requested:
            await articles.drain()
            return
        drain = asyncio.ensure_future(articles.drain())
        done, _pending = await asyncio.wait({drain}, timeout=STOP_EXTRACTION_SECONDS)
        if done:
            drain.result()
            return
        left = articles.backlog
        drain.cancel()
        await asyncio.gather(drain, return_exceptions=True)
        log.warning(
            "the stop did not wait for the extraction of %d pages (more than %g s): they are "
            "stored without it; `crawler-gui extract` extracts them",
            left,
            STOP_EXTRACTION_SECONDS,
        )

    async def _stop_committer(self, *, quiet: bool = False) -> None:
        try:
            await self.committer.stop(quiet=quiet)
        finally:
            await self.counting.stop()

    async def _drain(self, *, cancel: bool) -> None:
        """Wait for (or cancel) the fetches in flight; cancelled ones go back to the pool."""
        await self.dispatcher.drain(cancel=cancel)
        await self.committer.release_unfinished()
        for robots in self._retired_robots:  # their fetches use the retired sessions
            await robots.close()
        self._retired_robots.clear()
        for fetcher in self._retired_fetchers:
            await fetcher.close()
        self._retired_fetchers.clear()

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
        except Exception as exc:
            if damaged_storage(exc):  # the crawl cannot go on over it: said by the caller
                raise
            log.exception("refused URLs could not be looked at again")
            return 0
        if count:
            log.info("%d refused URL(s) queued again under the wider policy", count)
            self._changed()
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
                batch = await asyncio.to_thread(links_of_records, records, self.scope, 20)
                if not batch:
                    break
                for page_url, depth, links in batch:
                    offered += len(links)
                    await self.pipeline.add_links(depth + 1, page_url, links)
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
        self._spawn(self._reconsider_in_background())

    async def _reconsider_in_background(self) -> None:
        try:
            await self.reconsider_refusals()
        except Exception as exc:  # (a damaged pool or page store: the crawl stops on it)
            self._fail(exc)

    # ---- our own disk full: the committer pauses the crawl, the user resumes it ----------------
    def _storage_dirs(self) -> dict[str, Path | None]:
        """Our own folders: the pool's (None on Redis), the page store's and the WARC files'."""
        return {
            "pool": self.frontier.storage_dir,
            "pages": self.store.path if self.store is not None else None,
            "warc": self.warc.directory if self.warc is not None else None,
        }

    def _storage_paths(self) -> list[Path]:
        return [p for p in self._storage_dirs().values() if p is not None]

    def _storage_paused(self, message: str, first: bool) -> None:
        self.last_error = message
        self._pause_local()
        if first:
            for listener in list(self.storage_listeners):
                listener(message)

    # ---- the report's per-minute counters, in the pool ------------------------------------------
    def pending_counters(self) -> Counters:
        """A copy of what was counted and not yet flushed to the pool (a live report)."""
        return self.counting.pending()

    async def flush_counters(self) -> None:
        """Add what was counted since the last flush to the pool's counters (one batch; off
        the fetch path). What cannot be saved stays here for the next flush."""
        await self.counting.flush()

    # ---- pause, resume, stop ---------------------------------------------------------------------
    def pause(self) -> None:
        """No new fetches; those in flight finish. On a shared pool (Redis) the pause reaches
        every worker."""
        self._pause_local()
        self.shared_pause.share(True)

    def resume(self) -> None:
        if self.storage_error is not None and not self.committer.storage_back():
            return  # still no room: stays paused (and says so again)
        self._resume_local()
        self.shared_pause.share(False)

    def _pause_local(self) -> None:
        if self._state is CrawlState.RUNNING:
            self._resumed.clear()
            self._set_state(CrawlState.PAUSED)

    def _resume_local(self) -> None:
        if self._state is CrawlState.PAUSED:
            self._resumed.set()
            self._set_state(CrawlState.RUNNING)
            self.wake()

    async def stop(self, *, wait_in_flight: bool = True) -> None:
        """Stop: in-flight fetches finish (or, with ``wait_in_flight=False``, are cancelled and
        their URLs go back to the pool); everything is flushed."""
        task = self._run_task
        if task is None or task.done():
            return
        self._stop_requested = True
        self._stopping.set()
        if self._state in (CrawlState.RUNNING, CrawlState.PAUSED):
            self._set_state(CrawlState.STOPPING)
        self._resumed.set()
        self.wake()
        if not wait_in_flight:
            self.dispatcher.cancel_all()
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

    # ---- what the window shows -------------------------------------------------------------------
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
        self.pipeline.forget_recent()  # links refused as off-domain may be in scope now
        self._save_scope()
        report = await self.frontier.add_many([AddRequest(u, 0, None) for u in kept])
        report.refused.extend(denied)
        self.wake()
        self._notify()
        self._reconsider_later()  # redirects that left the scope may be in it now
        return report

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        self.scope.add_seeds([h.url for h in hubs])
        self.pipeline.forget_recent()
        self._save_scope()
        report = await self.frontier.set_hubs(hubs)
        refused = {url for url, _reason in report.refused}
        self.pipeline.note_hubs(h.url for h in hubs if h.url not in refused)
        self.wake()
        self._notify()
        self._reconsider_later()
        return report

    def refresh_scope(self, domains: Iterable[str]) -> None:
        """Registered domains that joined the crawl elsewhere (another worker's seeds)."""
        new = set(domains) - self.scope.seed_domains
        if new:
            self.scope.add_seeds(f"http://{d}/" for d in new)
            self.pipeline.forget_recent()  # links skipped as off-domain may be in scope now
            log.info("%d seeded domain(s) joined the scope", len(new))
            self._reconsider_later()

    async def add_scope_domains(self, domains: Iterable[str]) -> None:
        """Registered domains join the crawl's scope and are remembered (a loaded snapshot's
        scope, merged)."""
        self.refresh_scope(domains)
        self._save_scope()

    def _save_scope(self) -> None:
        """Remember the seeded domains next to the pool, so a resumed crawl keeps its scope."""
        if self.scope_file is not None:
            save_scope(self.scope_file, self.scope.seed_domains, self._links_limit)

    async def hubs(self) -> list[HubSpec]:
        """The hub list as the pool has it (every backend lists its hubs)."""
        return await self.frontier.hubs()

    # ---- per-host control (the window's host detail) --------------------------------------
    async def pause_host(self, host: str, paused: bool) -> None:
        """Pause or resume one host, in the pool (every worker of a shared pool obeys)."""
        await self.frontier.set_host_paused(host, paused)
        log.info("host %s %s", host, "paused" if paused else "resumed")
        self.wake()
        self._notify()

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        """The user's minimum delay for one host (``None``: the configured one again)."""
        await self.frontier.set_host_delay(host, seconds)
        if seconds is None:
            log.info("host %s: the configured minimum delay again", host)
        else:
            log.info("host %s: at least %.1f s between two requests", host, seconds)
        self.wake()
        self._notify()

    async def retry_failed_host(self, host: str) -> int:
        """Queue again the URLs of ``host`` that failed for good; returns how many."""
        n = await self.frontier.retry_failed(host)
        log.info("host %s: %d failed URLs queued again", host, n)
        self.wake()
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
            self.pipeline.forget_recent()
            widened = True
        if widened:
            self._reconsider_later()
        self.wake()
