"""A built-in local news site, served from memory, for the demo crawl, the tests and the
benchmarks.

One port, many hosts: host ``i`` (1..N) is the loopback address ``127.0.0.i`` and every host
listens on the same port, so host keys look like ``127.0.0.3:8631``. The host of a request is
taken from its ``Host`` header (falling back to the address the connection came in on).

Everything is deterministic from ``seed`` (``random.Random``): the link graph is drawn up front
(cheap: no text, ``linkgraph.py``), pages are rendered on first request and cached as bytes
(``render.py``); this module serves them. Nothing depends on the wall clock.

Per host:

* ``/`` -- the home page (a hub) linking to 3-5 section pages and the top stories;
* ``/<section>/`` -- section pages (hubs) listing every article of the section;
* ``/<section>/a<n>.html`` -- articles, 5-30 KB, linking to 3-6 articles on the same host and
  1-2 on other hosts;
* ``/old/a<n>.html`` -- 301 to the article (relative ``Location``);
* ``/go/<n>.html`` -- 302 to an article on another host (absolute ``Location``);
* with a link mix (``aliases``, ``dead_links``: the mean number per article, e.g. 0.5): links
  from an article to ``/r/a<n>-<k>.html``, a 301 alias of its own for a same-host article, and
  to ``/gone/a<n>-<k>.html``, a page that never existed (404) -- the mix of a real news site,
  where a crawler makes about two requests per page it stores (``benchmarks/crawl.py --mix``);
* ``/robots.txt`` -- allow all; some hosts disallow ``/private/`` and link to a page there.

With ``feeds=True`` (the demo crawl), every third host (1, 4, 7, ...) also serves ``/feed.xml``
(RSS 2.0, its newest 50 articles with their publication times), announced by a ``<link
rel="alternate">`` in its home page's head, and ``/sitemap.xml``, a sitemap index named by a
``Sitemap:`` line in its robots.txt, whose one child ``/sitemap-news.xml`` is a Google News
sitemap of its articles (``feed_urls()``, ``sitemap_urls()``).

Hub pages, feeds and sitemaps carry ``ETag`` and ``Last-Modified`` and answer a conditional
request whose validator matches with ``304 Not Modified`` (no body); ``not_modified`` counts
those answers and ``hub_bytes`` the body bytes served for hubs, feeds and sitemaps.

Realism: about 15 % of hosts serve GBK-encoded Chinese labelled only by
``<meta charset="gbk">`` (``Content-Type: text/html``, no charset); the others UTF-8 with mixed
Chinese and English. Some links carry ``#comments`` or ``?utm_source=hub&utm_medium=x`` (the
same page again); some point to missing articles (404); some articles answer 500 once or
twice before 200 (counted per host and path); ``slow_share`` of the articles sleep
``slow_delay`` seconds; ``latency`` is added to every response.

Counters for tests: ``requests_by_host``, ``max_concurrent_by_host`` (peak simultaneous
requests per host), ``total_requests`` and ``fetch_counts`` (by ``http://host/path``, the
query string ignored, so a crawler that fetches a tracking-parameter duplicate is caught).
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from crawler_gui.demo.linkgraph import _Article, _Host
from crawler_gui.demo.render import NewsPages
from crawler_gui.demo.server import ServedSite, serve_on_hosts

__all__ = ["DemoSite"]

log = logging.getLogger(__name__)


#: Routes that are hubs (home and section pages), feeds and sitemaps: they carry validators.
_HUB_KINDS = frozenset({"home", "section", "feed", "sitemap_index", "news_sitemap"})
#: The demo's pages never change: one fixed Last-Modified for all of them.
_LAST_MODIFIED = "Fri, 01 Mar 2024 00:00:00 GMT"


def _not_after(modified: str, since: str) -> bool:
    """``Last-Modified`` is not after ``If-Modified-Since`` (an unreadable date: False)."""
    try:
        return email.utils.parsedate_to_datetime(modified) <= email.utils.parsedate_to_datetime(
            since
        )
    except (TypeError, ValueError):
        return False


class DemoSite(NewsPages, ServedSite):
    """The demo news site. ``await start()`` (or ``async with``) serves it on loopback."""

    def __init__(
        self,
        hosts: int = 12,
        articles_per_host: int = 40,
        *,
        port: int = 0,
        latency: float = 0.0,
        slow_share: float = 0.03,
        slow_delay: float = 1.5,
        seed: int = 1,
        base: str = "127.0.0.",
        feeds: bool = False,
        validators: bool = True,
        now: float | None = None,
        aliases: float = 0.0,
        dead_links: float = 0.0,
    ) -> None:
        if not 1 <= hosts <= 254:
            raise ValueError("hosts must be between 1 and 254")
        if articles_per_host < 8:
            raise ValueError("articles_per_host must be at least 8")
        if not base.startswith("127.") or base.count(".") != 3 or not base.endswith("."):
            raise ValueError("base must be a loopback prefix like '127.0.0.'")
        if latency < 0 or slow_delay < 0 or not 0 <= slow_share <= 1:
            raise ValueError("latency, slow_delay and slow_share must be non-negative")
        if not (0 <= aliases <= 20 and 0 <= dead_links <= 20):
            raise ValueError("aliases and dead_links must be between 0 and 20")
        self.aliases = aliases
        self.dead_links = dead_links
        self.port = port
        self.feeds = feeds
        #: Off: hubs carry no ETag/Last-Modified and conditional requests are not honoured
        #: (a server without validators; benchmarks/hub_refresh.py compares).
        self.validators = validators
        #: Conditional requests answered 304, and body bytes served for hubs, feeds, sitemaps.
        self.not_modified = 0
        self.hub_bytes = 0
        self.latency = latency
        self.slow_delay = slow_delay
        self.seed = seed
        #: The site's "now" (POSIX seconds, a whole minute; default: when it was made). Its
        #: articles were published in the day and a half before it, so a demo crawl's
        #: freshness (delay from publication to fetch) reads hours, not years.
        self.now = float(int(time.time() if now is None else now) // 60 * 60)
        self.base = base
        self.articles_per_host = articles_per_host
        self.hosts: list[str] = []
        self.requests_by_host: dict[str, int] = {}
        self.max_concurrent_by_host: dict[str, int] = {}
        self.total_requests = 0
        self.fetch_counts: Counter[str] = Counter()
        self._open: dict[str, int] = {}
        self._served_500: Counter[tuple[int, str]] = Counter()
        self._cache: OrderedDict[tuple[int, str], bytes] = OrderedDict()
        self._by_address: dict[str, _Host] = {}
        self._routes: list[dict[str, tuple[str, Any]]] = []
        self._hosts = self._generate(hosts, articles_per_host, slow_share)
        self._boiler: dict[int, tuple[str, str]] = {}

    # -- serving -----------------------------------------------------------------------------

    def _host_for(self, request: web.BaseRequest) -> _Host:
        host_header = request.headers.get("Host", "")
        address = host_header.rsplit(":", 1)[0] if host_header else ""
        h = self._by_address.get(address)
        if h is not None:
            return h
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        if sock:
            h = self._by_address.get(sock[0])
            if h is not None:
                return h
        return self._hosts[0]

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        h = self._host_for(request)
        key = h.key
        path = request.path
        self.total_requests += 1
        self.requests_by_host[key] += 1
        self.fetch_counts[f"http://{key}{path}"] += 1
        now_open = self._open[key] + 1
        self._open[key] = now_open
        self.max_concurrent_by_host[key] = max(self.max_concurrent_by_host[key], now_open)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            return await self._respond(h, path, request.headers)
        finally:
            self._open[key] -= 1

    async def _respond(
        self, h: _Host, path: str, headers: Mapping[str, str] | None = None
    ) -> web.StreamResponse:
        route = self._routes[h.index - 1].get(path)
        if route is None:
            return web.Response(
                status=404,
                body=b"<html><title>404 Not Found</title><h1>404</h1></html>",
                headers={"Content-Type": "text/html; charset=utf-8"},
            )
        kind, arg = route
        if kind == "robots":
            return web.Response(body=self._robots(h), headers={"Content-Type": "text/plain"})
        if kind == "old":
            return web.Response(status=301, headers={"Location": arg.path})
        if kind == "go":
            other, k = h.go_targets[arg]
            target = self._url(other, self._hosts[other - 1].articles[k].path)
            return web.Response(status=302, headers={"Location": target})
        if kind == "article":
            art: _Article = arg
            if art.failures:
                state = (h.index, path)
                if self._served_500[state] < art.failures:
                    self._served_500[state] += 1
                    return web.Response(
                        status=500,
                        body=b"<html><title>500</title><h1>Internal Server Error</h1></html>",
                        headers={"Content-Type": "text/html; charset=utf-8"},
                    )
            if art.slow and self.slow_delay:
                await asyncio.sleep(self.slow_delay)
        body = self._render(h, path, kind, arg)
        if kind not in _HUB_KINDS:
            return web.Response(body=body, headers={"Content-Type": h.content_type})
        ctype = "application/rss+xml" if kind == "feed" else "application/xml"
        if kind in ("home", "section"):
            ctype = h.content_type
        if not self.validators:
            self.hub_bytes += len(body)
            return web.Response(body=body, headers={"Content-Type": ctype})
        # Hubs, feeds and sitemaps: validators, and 304 to a request that has them.
        etag = f'"{hashlib.blake2b(body, digest_size=8).hexdigest()}"'
        validators = {"ETag": etag, "Last-Modified": _LAST_MODIFIED}
        asked = headers or {}
        match = asked.get("If-None-Match")
        if match is not None:
            fresh = etag in [tag.strip() for tag in match.split(",")] or match.strip() == "*"
        else:
            since = asked.get("If-Modified-Since")
            fresh = since is not None and _not_after(_LAST_MODIFIED, since)
        if fresh:
            self.not_modified += 1
            return web.Response(status=304, headers=validators)
        self.hub_bytes += len(body)
        return web.Response(body=body, headers={"Content-Type": ctype, **validators})

    async def start(self) -> None:
        """Bind one TCP site per host address, all on one port (chosen by the OS when
        ``port`` is 0), and start serving."""
        if self._runner is not None:
            raise RuntimeError("the demo site is already running")
        runner, port = await serve_on_hosts(
            self._handle, [h.address for h in self._hosts], self.port
        )
        self._runner = runner
        self.port = port
        self._cache.clear()  # pages hold absolute URLs with the port
        self._served_500.clear()
        for h in self._hosts:
            h.key = f"{h.address}:{port}"
            self._by_address[h.address] = h
        self.hosts = [h.key for h in self._hosts]
        self.requests_by_host = dict.fromkeys(self.hosts, 0)
        self.max_concurrent_by_host = dict.fromkeys(self.hosts, 0)
        self._open = dict.fromkeys(self.hosts, 0)
        log.info(
            "demo site: %d hosts on %s1..%s%d port %d",
            len(self._hosts),
            self.base,
            self.base,
            len(self._hosts),
            port,
        )
