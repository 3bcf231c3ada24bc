"""The page pipeline: one lease from start to end. Scope and robots.txt first (a refusal is
decided without a request), then the fetch, the decode and parse (off the loop for a big
page), the page store and the WARC, the links back to the pool, and feeds and sitemaps found
on the way joined to the hubs. The result goes to the committer (``complete``)."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from crawler_gui.core.clock import Clock
from crawler_gui.core.counters import Counters
from crawler_gui.core.freshness import ListSample, list_sample
from crawler_gui.core.frontier import AddRequest, Frontier, HubSpec, Lease
from crawler_gui.core.policy import ErrorKind, FetchResult
from crawler_gui.core.text import header_text
from crawler_gui.core.urls import canonicalize
from crawler_gui.engine.decode import decode_body_explained, sniff_kind
from crawler_gui.engine.faults import damaged_storage, log_error, own_storage_error
from crawler_gui.engine.feeds import HubKind, discover_feeds
from crawler_gui.engine.feeds import sniff_kind as sniff_hub_kind
from crawler_gui.engine.fetch import Fetcher, FetchOutcome
from crawler_gui.engine.parsing import hub_items, parse_page, parse_page_big
from crawler_gui.engine.robots import RobotsCache
from crawler_gui.engine.scope import Scope, host_of_url
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.engine.stats import CrawlStats
from crawler_gui.engine.store import MAX_DETAIL_LINKS, PageRecord, PageStore, make_detail
from crawler_gui.engine.turns import TurnBudget
from crawler_gui.errors import InvalidURLError

if TYPE_CHECKING:
    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.warc import WarcWriter

log = logging.getLogger(__name__)

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


@functools.lru_cache(maxsize=8192)
def _canonical_or_none(url: str) -> str | None:
    """The canonical form of a hub page's link (cached: a list page repeats its navigation
    and most of its items on every refresh)."""
    try:
        return canonicalize(url)[0]
    except InvalidURLError:
        return None


def _pool_knows(frontier: Frontier) -> Callable[[str], bool]:
    """Whether a redirect's target is worth handing to the pool: not when the pool says it
    has it; when it cannot say at once (None), the pool de-duplicates it."""
    known = frontier.known

    def check(url: str) -> bool:
        return known(url) is not False

    return check


class PagePipeline:
    """Processes the leases of one crawler (:meth:`process`).

    ``settings``, ``fetcher``, ``robots`` and ``scope`` are the crawl's current ones (the
    crawler replaces them when its settings change: the next lease uses the new ones).
    ``stats`` and ``counters`` count each URL; ``complete(url, result)`` hands a result to the
    committer and ``unstored(url, exc)`` a URL whose page our full storage could not take;
    ``changed()`` says the hubs changed (look at the pool again, tell the other workers);
    ``fatal(url, exc)`` stops the crawl on a damaged pool or page store (the URL goes back
    unfetched)."""

    def __init__(
        self,
        frontier: Frontier,
        *,
        settings: CrawlSettings,
        fetcher: Fetcher,
        robots: RobotsCache,
        scope: Scope,
        store: PageStore | None,
        warc: WarcWriter | None,
        clock: Clock,
        articles: Articles | None,
        stats: CrawlStats,
        counters: Counters,
        complete: Callable[[str, FetchResult], None],
        unstored: Callable[[str, BaseException], None],
        changed: Callable[[], None],
        fatal: Callable[[str, Exception], None],
        stopping: asyncio.Event | None = None,
    ) -> None:
        self.frontier = frontier
        self.settings = settings
        self.fetcher = fetcher
        self.robots = robots
        self.scope = scope
        self.store = store
        self.warc = warc
        self.clock = clock
        self.articles = articles
        self._stats = stats
        self._counters = counters
        self._complete = complete
        self._unstored = unstored
        self._changed = changed
        self._fatal = fatal
        #: Set when the crawl is stopping: pages are no longer handed to extraction.
        self._stopping = stopping if stopping is not None else asyncio.Event()
        self._recent: dict[str, None] = {}
        self._delays_sent: dict[str, float] = {}
        #: The hubs' canonical URLs (what links are compared with), for :meth:`is_item`.
        self._hub_urls: frozenset[str | None] = frozenset()
        #: Hubs this crawl added by itself, per host (bounded by :data:`AUTO_HUBS_PER_HOST`),
        #: and every URL it considered (so each is looked at once).
        self._auto_hubs: dict[str, int] = {}
        self._auto_seen: set[str] = set()
        self._hub_lock = asyncio.Lock()
        # A cheap "does the pool have it" check where the backend answers from memory (a
        # local pool); elsewhere every redirect is handed back to the pool, which
        # de-duplicates its target.
        self._known: Callable[[str], bool] = _pool_knows(frontier)
        #: Page work per loop turn (engine/turns.py).
        self.turns = TurnBudget()

    def forget_recent(self) -> None:
        """Forget the links submitted lately: the scope grew, and links refused as off-domain
        may be in it now."""
        self._recent.clear()

    def hop_check(self, url: str) -> ErrorKind | None:
        if self.scope.check(url) is not None:
            return ErrorKind.OUT_OF_SCOPE
        if self.settings.obey_robots and self.robots.allowed_cached(url) is False:
            return ErrorKind.ROBOTS
        return None

    async def process(self, lease: Lease) -> None:
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
                url, hop_check=self.hop_check, known=self._known, conditional=conditional
            )
            fetched_at = self.clock.now()
            if outcome.ok:
                # Pages that end together (a crawl's first burst) share out the loop's turns
                # for their parse, links and store: none runs long enough to stall the window
                # or a timer (engine/turns.py). An answer without a page (a redirect, a dead
                # link, an error) has next to nothing left to do: it does not wait for a turn
                # (about half of a crawl's answers; a wait costs a loop turn per deferral).
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
                await self._extract(seq, outcome, kind == "html", fetched_at)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if own_storage_error(exc):
                # The page could not be stored: the URL goes back unfetched, no attempt
                # counted, once there is room again.
                self._unstored(url, exc)
                return
            if damaged_storage(exc):  # our own files, not the URL: the crawl stops on it
                self._fatal(url, exc)
                return
            log_error(log, f"while crawling {url}", exc)
            self._complete(
                url, FetchResult(error=ErrorKind.INTERNAL, message=f"internal error: {exc}")
            )

    async def _extract(
        self, seq: int, outcome: FetchOutcome, is_html: bool, fetched_at: float
    ) -> None:
        """Hand the stored page ``seq`` to extraction. Once the crawl is stopping it is not
        handed over, and a page waiting for room in a full queue waits no more: a stop is
        not held to extraction's pace (``docs/server.md``, "How long a stop takes"). Such a
        page stays stored without its extraction: ``crawler-gui extract`` does it later."""
        articles = self.articles
        assert articles is not None
        if self._stopping.is_set():
            return
        work = articles.page(
            seq,
            outcome.final_url,
            outcome.body,
            outcome.content_type,
            is_html=is_html,
            fetched_at=fetched_at,
        )
        pool = articles.pool
        if pool.backlog < pool.queue_size + pool.workers:
            await work  # room in the queue: handed over at once
            return
        task = asyncio.ensure_future(work)
        stop = asyncio.ensure_future(self._stopping.wait())
        try:
            done, _pending = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in (task, stop):
                if not waiting.done():
                    waiting.cancel()
            await asyncio.gather(task, stop, return_exceptions=True)
        if task in done:
            task.result()  # (its error, if any)

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
                    await self.add_found_hubs(sitemaps)
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
        followed how many of its list's items (:meth:`is_item`) the pool had not seen and
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
                parsed = await asyncio.to_thread(parse_page_big, outcome, scope, detailed)
            else:
                parsed = parse_page(outcome, scope, detailed)
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
                    items: list[str] = []
                    nav: list[str] = []
                    for link in links:
                        (items if self.is_item(link) else nav).append(link)
                else:
                    items, nav = links, []
                await self.add_links(lease.depth + 1, outcome.final_url, nav, detail)
                added = await self.add_links(lease.depth + 1, outcome.final_url, items, detail)
                if len(items) > THREAD_SAMPLE_LINKS:  # a sitemap: hashed off the loop
                    found = added, await asyncio.to_thread(list_sample, items)
                else:
                    found = added, list_sample(items)
            elif links:
                await self.add_links(lease.depth + 1, outcome.final_url, links, detail)
        if kind == "html" and hub_kind is HubKind.PAGE and self.settings.discover_feeds:
            # The head only: a big page is not lowercased whole on the loop.
            head = outcome.body[:HEAD_BYTES]
            feeds = discover_feeds(head, outcome.final_url, AUTO_HUBS_PER_HOST)
            if feeds:
                await self.add_found_hubs(feeds)
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
                [(k, header_text(v)) for k, v in (outcome.headers or {}).items()],
                outcome.body,
                self.clock.now(),
                outcome.peer,
            )
        return seq, kind, found

    def note_hubs(self, urls: Iterable[str]) -> None:
        """Remember the hubs' canonical URLs: links to them are navigation (:meth:`is_item`)."""
        self._hub_urls = frozenset(_canonical_or_none(url) for url in urls) - {None}

    def is_item(self, link: str) -> bool:
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
            doc, items = await asyncio.to_thread(hub_items, *args)
        else:
            doc, items = hub_items(*args)
        if doc.problem:
            log.info("%s: %s", outcome.final_url, doc.problem)
        if self.store is not None:
            self.store.add_listed(outcome.final_url, items)
        if doc.sitemaps:
            await self.add_found_hubs(doc.sitemaps[:INDEX_CHILDREN])
        return doc.title, [url for url, _published, _updated in items] if follow else []

    async def add_found_hubs(self, urls: Iterable[str]) -> int:
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
            self.note_hubs([*(hub.url for hub in current), *fresh])
            log.info("%d feed(s) or sitemap(s) found became hubs", report.added)
            self._changed()
        return report.added

    async def add_links(
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
