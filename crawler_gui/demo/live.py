"""A *live* local news site: hubs that keep publishing, for soak tests and hub-refresh benchmarks.

The demo site (``site.py``) is a fixed link graph: a crawl of it ends. This one never ends:
articles arrive on its list pages as time goes by, the way a news site's sections fill up, and
old articles scroll off. Its parameters are fixed (and its randomness seeded) so that results
compare across runs:

* :data:`HOSTS` hosts ``127.0.0.1`` .. ``127.0.0.12`` on one port, :data:`HUBS_PER_HOST` list
  pages (hubs) each: 24 hubs;
* each hub publishes as a Poisson process; the rates are drawn log-uniformly between
  :data:`RATE_MIN` and :data:`RATE_MAX` articles a minute (``random.Random(seed)``); hub
  :data:`SILENT_HUB` never publishes; hub :data:`BURSTY_HUB` alternates between
  :data:`BURST_RATES` (0.5 and 30 a minute) every :data:`BURST_PERIOD` seconds;
* a list page shows only its newest :data:`LIST_SIZE` articles (older ones scroll off for good);
* hosts :data:`FEED_HOSTS` also offer ``/feed.xml``, an RSS 2.0 feed of the host's newest
  :data:`FEED_SIZE` articles;
* an article links only to its own list page and home page, so hubs and feeds are the only way
  to discover new articles.

Time is injected (``clock``) and publication is a pure function of the seconds since
``epoch``, so a test can move a fake clock and get the same articles every run. Nothing is
generated ahead of the clock, article pages are rendered on request from a per-article seed,
and the server keeps per hub only its newest :data:`FEED_SIZE` articles plus, for the report,
two numbers per article published in the last :data:`RECORD_SECONDS` (older ones are folded
into totals): memory stays bounded however long it runs.

The server records each article's publication time and first fetch and every hub and feed
fetch; :meth:`LiveNewsSite.report` sums them up (articles found, lost and pending; delay from
publication to first fetch; hub and feed fetches), also served as JSON at
``/_live/report.json`` (and the hub list, for ``crawl --hubs-file``, at ``/_live/hubs.txt``).
Both paths are disallowed in ``robots.txt`` and linked from nowhere.

Serve it alone with ``python -m crawler_gui.demo --live`` or crawl it in one process with
``crawler-gui crawl --demo --live``.
"""

from __future__ import annotations

import email.utils
import html
import logging
import math
import random
import time
from array import array
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from aiohttp import web

from crawler_gui.demo.server import ServedSite, serve_on_hosts
from crawler_gui.demo.words import _CN_WORDS, _EN_WORDS, _SECTIONS

__all__ = [
    "BURSTY_HUB",
    "BURST_PERIOD",
    "BURST_RATES",
    "FEED_HOSTS",
    "FEED_SIZE",
    "HOSTS",
    "HUBS_PER_HOST",
    "LIST_SIZE",
    "RATE_MAX",
    "RATE_MIN",
    "RECORD_SECONDS",
    "SILENT_HUB",
    "LiveNewsSite",
]

log = logging.getLogger(__name__)

HOSTS = 12
HUBS_PER_HOST = 2
RATE_MIN = 0.2  #: articles a minute
RATE_MAX = 20.0
SILENT_HUB = 5
BURSTY_HUB = 11
BURST_RATES = (0.5, 30.0)
BURST_PERIOD = 120.0
LIST_SIZE = 20
FEED_SIZE = 50
FEED_HOSTS = (1, 4, 7, 10)
#: Articles published longer ago than this leave the per-article records (their outcome is
#: kept in the totals): what bounds the report's memory over days.
RECORD_SECONDS = 4 * 3600.0
DEFAULT_SEED = 12
_REPORT_PATH = "/_live/report.json"
_HUBS_PATH = "/_live/hubs.txt"
_FEED_PATH = "/feed.xml"
_NOT_FETCHED = math.nan


@dataclass(slots=True)
class _Hub:
    index: int
    host: int  #: 1-based host index
    section: str
    #: articles a minute; for the bursty hub the mean of its two rates
    rate: float
    bursty: bool
    rng: random.Random
    #: articles published so far (article numbers are 0 .. count - 1)
    count: int = 0
    #: seconds after the epoch when article ``count`` is published (inf: never)
    next_at: float = 0.0
    #: the newest articles: (number, seconds after the epoch), oldest first
    recent: deque[tuple[int, float]] = field(default_factory=lambda: deque(maxlen=FEED_SIZE))
    #: per-article records from article ``base`` on: publication and first fetch (absolute
    #: POSIX seconds; NaN until fetched), for articles published within RECORD_SECONDS
    base: int = 0
    published_at: array[float] = field(default_factory=lambda: array("d"))
    fetched_at: array[float] = field(default_factory=lambda: array("d"))
    #: totals of the articles that left the records (and of those counted since the start)
    old_found: int = 0
    old_lost: int = 0
    old_delay_sum: float = 0.0
    #: articles published before recording began (fast-forwarded on resume): not counted
    unrecorded: int = 0
    fetches: int = 0
    not_modified: int = 0
    articles_fetched: int = 0

    @property
    def path(self) -> str:
        return f"/{self.section}/"

    def rate_at(self, t: float) -> float:
        """Articles a second at ``t`` seconds after the epoch."""
        if self.bursty:
            return BURST_RATES[int(t // BURST_PERIOD) % 2] / 60.0
        return self.rate / 60.0

    def draw_after(self, t: float) -> float:
        """The next publication after ``t`` (inter-arrival times are memoryless, so a draw
        that crosses a burst boundary restarts at the boundary with the new rate)."""
        while True:
            rate = self.rate_at(t)
            end = (math.floor(t / BURST_PERIOD) + 1) * BURST_PERIOD if self.bursty else math.inf
            if rate <= 0:
                if math.isinf(end):
                    return math.inf
                t = end
                continue
            nxt = t + self.rng.expovariate(rate)
            if nxt <= end:
                return nxt
            t = end


def _quantile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


class LiveNewsSite(ServedSite):
    """The live news site. ``await start()`` (or ``async with``) serves it on loopback.

    ``epoch`` is when publication began (POSIX seconds; default: the clock at ``start``): a
    site restarted with the same epoch goes on with the same articles (those published while
    it was down appear at once, and are left out of the report)."""

    def __init__(
        self,
        *,
        port: int = 0,
        seed: int = DEFAULT_SEED,
        epoch: float | None = None,
        clock: Callable[[], float] = time.time,
        base: str = "127.0.0.",
    ) -> None:
        if not base.startswith("127.") or base.count(".") != 3 or not base.endswith("."):
            raise ValueError("base must be a loopback prefix like '127.0.0.'")
        self.port = port
        self.seed = seed
        self.base = base
        self.clock = clock
        self.epoch = epoch
        self.recording_since = 0.0
        self.hosts: list[str] = []
        self.total_requests = 0
        self.feed_fetches: dict[int, int] = dict.fromkeys(FEED_HOSTS, 0)
        self._hubs = self._generate()
        self._by_path: list[dict[str, _Hub]] = [{} for _ in range(HOSTS)]
        for hub in self._hubs:
            self._by_path[hub.host - 1][hub.path] = hub
        self._now_t = 0.0  # seconds after the epoch, as of the last advance

    # -- the schedule ------------------------------------------------------------------------

    def _generate(self) -> list[_Hub]:
        rng = random.Random(self.seed)
        hubs: list[_Hub] = []
        names = list(_SECTIONS)
        for i in range(HOSTS * HUBS_PER_HOST):
            host = i // HUBS_PER_HOST + 1
            section = names[(i * 3 + host) % len(names)]
            while any(h.host == host and h.section == section for h in hubs):
                section = names[(names.index(section) + 1) % len(names)]
            rate = math.exp(rng.uniform(math.log(RATE_MIN), math.log(RATE_MAX)))
            if i == SILENT_HUB:
                rate = 0.0
            bursty = i == BURSTY_HUB
            if bursty:
                rate = sum(BURST_RATES) / 2
            hubs.append(
                _Hub(
                    index=i,
                    host=host,
                    section=section,
                    rate=rate,
                    bursty=bursty,
                    rng=random.Random(f"{self.seed}/hub/{i}"),
                )
            )
        for hub in hubs:
            hub.next_at = hub.draw_after(0.0)
        return hubs

    def true_rates(self) -> dict[str, float]:
        """Each hub URL's true mean rate in articles a minute."""
        return {self.hub_url(h): h.rate for h in self._hubs}

    def advance(self) -> float:
        """Publish everything due by the clock; returns the clock. Called on every request."""
        now = self.clock()
        if self.epoch is None:
            raise RuntimeError("the live site has not started: await start() first")
        t = now - self.epoch
        if t < self._now_t:
            return now  # the clock went back: publish nothing until it catches up
        self._now_t = t
        horizon = now - RECORD_SECONDS
        for hub in self._hubs:
            while hub.next_at <= t:
                published = self.epoch + hub.next_at
                hub.recent.append((hub.count, hub.next_at))
                if published >= self.recording_since:
                    if not hub.published_at:
                        hub.base = hub.count
                    hub.published_at.append(published)
                    hub.fetched_at.append(_NOT_FETCHED)
                else:
                    hub.unrecorded += 1
                hub.count += 1
                hub.next_at = hub.draw_after(hub.next_at)
            self._prune(hub, horizon)
        return now

    @staticmethod
    def _prune(hub: _Hub, horizon: float) -> None:
        k = 0
        pubs, fetched = hub.published_at, hub.fetched_at
        while k < len(pubs) and pubs[k] < horizon:
            first = fetched[k]
            if math.isnan(first):
                hub.old_lost += 1
            else:
                hub.old_found += 1
                hub.old_delay_sum += first - pubs[k]
            k += 1
        if k:
            del pubs[:k]
            del fetched[:k]
            hub.base += k

    # -- URLs --------------------------------------------------------------------------------

    def _key(self, host: int) -> str:
        if not self.port:
            raise RuntimeError("the live site has no port yet: await start() first")
        return f"{self.base}{host}:{self.port}"

    def hub_url(self, hub: _Hub) -> str:
        return f"http://{self._key(hub.host)}{hub.path}"

    def seed_urls(self) -> list[str]:
        """Every host's home page."""
        return [f"http://{self._key(h)}/" for h in range(1, HOSTS + 1)]

    def list_urls(self) -> list[str]:
        """The 24 list pages."""
        return [self.hub_url(h) for h in self._hubs]

    def feed_urls(self) -> list[str]:
        """The RSS feeds of the hosts that have one."""
        return [f"http://{self._key(h)}{_FEED_PATH}" for h in FEED_HOSTS]

    def hub_urls(self) -> list[str]:
        """Everything a crawler should keep refreshing: the list pages and the feeds."""
        return self.list_urls() + self.feed_urls()

    def report_url(self) -> str:
        return f"http://{self._key(1)}{_REPORT_PATH}"

    # -- the record --------------------------------------------------------------------------

    def _listed(self, hub: _Hub, n: int) -> bool:
        """Is article ``n`` of ``hub`` still on its list page or its host's feed?"""
        if hub.count - n <= LIST_SIZE:
            return True
        if hub.host not in FEED_HOSTS or hub.count - n > FEED_SIZE:
            return False  # (not even among the hub's newest 50: off the feed too)
        pub = None
        for number, t in hub.recent:
            if number == n:
                pub = t
                break
        if pub is None:
            return False
        newer = sum(
            1 for other in self._hubs if other.host == hub.host for _n, t in other.recent if t > pub
        )
        return newer < FEED_SIZE

    def report(self) -> dict[str, Any]:
        """What the site saw: per hub and in total, articles published, found (fetched at
        least once), lost (never fetched and no longer listed anywhere) and pending (not
        fetched yet, still listed); delays from publication to first fetch (quantiles over
        the articles of the last RECORD_SECONDS, the mean over all); hub and feed fetches."""
        now = self.advance()
        delays: list[float] = []
        hubs_out = []
        total = {"published": 0, "found": 0, "lost": 0, "pending": 0}
        delay_sum = 0.0
        for hub in self._hubs:
            found = hub.old_found
            lost = hub.old_lost
            pending = 0
            hub_delay = hub.old_delay_sum
            for k, (pub, first) in enumerate(zip(hub.published_at, hub.fetched_at, strict=True)):
                if not math.isnan(first):
                    found += 1
                    delays.append(first - pub)
                    hub_delay += first - pub
                elif self._listed(hub, hub.base + k):
                    pending += 1
                else:
                    lost += 1
            published = hub.count - hub.unrecorded
            total["published"] += published
            total["found"] += found
            total["lost"] += lost
            total["pending"] += pending
            delay_sum += hub_delay
            hubs_out.append(
                {
                    "url": self.hub_url(hub),
                    "rate_per_min": round(hub.rate, 4),
                    "kind": "silent" if hub.rate == 0 else "bursty" if hub.bursty else "steady",
                    "published": published,
                    "found": found,
                    "lost": lost,
                    "pending": pending,
                    "fetches": hub.fetches,
                    "not_modified": hub.not_modified,
                    "mean_delay": hub_delay / found if found else None,
                }
            )
        delays.sort()
        elapsed = max(0.0, now - self.recording_since) if self.recording_since else 0.0
        hub_fetches = sum(h.fetches for h in self._hubs)
        feed_fetches = sum(self.feed_fetches.values())
        return {
            "now": now,
            "epoch": self.epoch,
            "recording_since": self.recording_since,
            "elapsed": elapsed,
            "articles": {
                **total,
                "delay_mean": delay_sum / total["found"] if total["found"] else None,
                "delay_median": _quantile(delays, 0.5),
                "delay_p90": _quantile(delays, 0.9),
            },
            "hub_fetches": hub_fetches,
            "feed_fetches": feed_fetches,
            "hub_fetches_per_min": hub_fetches / elapsed * 60 if elapsed else 0.0,
            "feed_fetches_per_min": feed_fetches / elapsed * 60 if elapsed else 0.0,
            "oracle_mean_delay": self.oracle_mean_delay(
                (hub_fetches + feed_fetches) / elapsed if elapsed else 0.0
            ),
            "hubs": hubs_out,
            "feeds": {
                f"http://{self._key(h)}{_FEED_PATH}": n for h, n in self.feed_fetches.items()
            },
        }

    def oracle_mean_delay(self, fetches_per_second: float) -> float | None:
        """The least mean delay ``B`` hub fetches a second can give with the true rates:
        each hub refreshed in proportion to the square root of its rate, mean delay
        ``(Σ√λᵢ)² / (2·B·Σλᵢ)`` (issue 12; λ in articles a second)."""
        rates = [h.rate / 60.0 for h in self._hubs if h.rate > 0]
        if fetches_per_second <= 0 or not rates:
            return None
        return sum(math.sqrt(r) for r in rates) ** 2 / (2 * fetches_per_second * sum(rates))

    # -- rendering ---------------------------------------------------------------------------

    @staticmethod
    def _title(rng: random.Random, n: int) -> str:
        cn = "".join(rng.sample(_CN_WORDS, 4))
        en = " ".join(rng.sample(_EN_WORDS, 5)).capitalize()
        return f"{cn}：{en} ({n})"

    def _article_title(self, hub: _Hub, n: int) -> str:
        return self._title(random.Random(f"{self.seed}/{hub.index}/{n}/title"), n)

    def _page(self, host: int, title: str, main: str) -> bytes:
        feed = (
            f'<link rel="alternate" type="application/rss+xml" href="{_FEED_PATH}">'
            if host in FEED_HOSTS
            else ""
        )
        nav = "".join(
            f'<a href="{h.path}">{_SECTIONS[h.section]}</a> ' for h in self._hubs if h.host == host
        )
        doc = (
            f'<!DOCTYPE html>\n<html lang="zh"><head><meta charset="utf-8">{feed}'
            f"<title>{html.escape(title)}</title></head><body>"
            f'<div class="top"><a href="/">Live {host}</a> {nav}</div>'
            f'<div class="main">{main}</div></body></html>\n'
        )
        return doc.encode("utf-8")

    def _iso(self, t: float) -> str:
        assert self.epoch is not None
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.epoch + t))

    def _render_list(self, hub: _Hub) -> bytes:
        items = []
        for n, t in reversed(list(hub.recent)[-LIST_SIZE:]):
            items.append(
                f'<li><a href="/{hub.section}/{n}.html">'
                f"{html.escape(self._article_title(hub, n))}</a> "
                f'<time datetime="{self._iso(t)}">{self._iso(t)}</time></li>'
            )
        name = _SECTIONS[hub.section]
        main = f'<h1>{name}</h1><ul class="list">{"".join(items)}</ul>'
        return self._page(hub.host, f"{name} - Live {hub.host}", main)

    def _render_article(self, hub: _Hub, n: int) -> bytes:
        rng = random.Random(f"{self.seed}/{hub.index}/{n}")
        paragraphs = []
        for _ in range(rng.randint(8, 24)):
            words = [
                rng.choice(_CN_WORDS) if rng.random() < 0.6 else f" {rng.choice(_EN_WORDS)} "
                for _ in range(rng.randint(30, 90))
            ]
            paragraphs.append(f"<p>{''.join(words)}。</p>")
        title = self._article_title(hub, n)
        main = (
            f"<h1>{html.escape(title)}</h1>"
            f'<p class="meta"><a href="{hub.path}">{_SECTIONS[hub.section]}</a></p>'
            + "".join(paragraphs)
        )
        return self._page(hub.host, title, main)

    def _render_home(self, host: int) -> bytes:
        items = "".join(
            f'<li><a href="{h.path}">{_SECTIONS[h.section]}</a></li>'
            for h in self._hubs
            if h.host == host
        )
        feed = f'<p><a href="{_FEED_PATH}">RSS</a></p>' if host in FEED_HOSTS else ""
        return self._page(host, f"Live {host}", f"<h1>Live {host}</h1><ul>{items}</ul>{feed}")

    def _render_feed(self, host: int) -> bytes:
        items = [(t, hub, n) for hub in self._hubs if hub.host == host for n, t in hub.recent]
        items.sort(key=lambda item: item[0], reverse=True)
        key = self._key(host)
        out = []
        for t, hub, n in items[:FEED_SIZE]:
            assert self.epoch is not None
            link = f"http://{key}/{hub.section}/{n}.html"
            date = email.utils.formatdate(self.epoch + t, usegmt=True)
            out.append(
                f"<item><title>{xml_escape(self._article_title(hub, n))}</title>"
                f"<link>{link}</link><guid>{link}</guid><pubDate>{date}</pubDate></item>"
            )
        doc = (
            '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
            f"<title>Live {host}</title><link>http://{key}/</link>"
            f"<description>Live {host}</description>{''.join(out)}</channel></rss>\n"
        )
        return doc.encode("utf-8")

    # -- serving -----------------------------------------------------------------------------

    def _host_of(self, request: web.BaseRequest) -> int:
        header = request.headers.get("Host", "")
        address = header.rsplit(":", 1)[0] if header else ""
        if not address:
            sock = request.transport.get_extra_info("sockname") if request.transport else None
            address = sock[0] if sock else ""
        prefix, _, last = address.rpartition(".")
        if prefix + "." == self.base and last.isdigit() and 1 <= int(last) <= HOSTS:
            return int(last)
        return 1

    @staticmethod
    def _validated(request: web.BaseRequest, etag: str, body: bytes, ctype: str) -> web.Response:
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(body=body, headers={"Content-Type": ctype, "ETag": etag})

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        now = self.advance()
        self.total_requests += 1
        host = self._host_of(request)
        path = request.path
        html_type = "text/html; charset=utf-8"
        if path == "/":
            return web.Response(body=self._render_home(host), headers={"Content-Type": html_type})
        if path == "/robots.txt":
            body = b"User-agent: *\nDisallow: /_live/\n"
            return web.Response(body=body, headers={"Content-Type": "text/plain"})
        if path == _REPORT_PATH:
            return web.json_response(self.report())
        if path == _HUBS_PATH:
            text = "".join(f"{url}\n" for url in self.hub_urls())
            return web.Response(text=text, content_type="text/plain")
        if path == _FEED_PATH and host in FEED_HOSTS:
            self.feed_fetches[host] += 1
            # Any new article of the host changes the feed: the sum of counts is its version.
            version = sum(h.count for h in self._hubs if h.host == host)
            return self._validated(
                request,
                f'"feed-{host}-{version}"',
                self._render_feed(host),
                "application/rss+xml; charset=utf-8",
            )
        hub = self._by_path[host - 1].get(path)
        if hub is not None:
            hub.fetches += 1
            if request.headers.get("If-None-Match") == f'"{hub.index}-{hub.count}"':
                hub.not_modified += 1
            return self._validated(
                request, f'"{hub.index}-{hub.count}"', self._render_list(hub), html_type
            )
        section, _, name = path.lstrip("/").partition("/")
        hub = self._by_path[host - 1].get(f"/{section}/")
        if hub is not None and name.endswith(".html") and name[:-5].isdigit():
            n = int(name[:-5])
            if n < hub.count:
                hub.articles_fetched += 1
                k = n - hub.base
                if 0 <= k < len(hub.fetched_at) and math.isnan(hub.fetched_at[k]):
                    hub.fetched_at[k] = now
                return web.Response(
                    body=self._render_article(hub, n), headers={"Content-Type": html_type}
                )
        return web.Response(
            status=404,
            body=b"<html><title>404 Not Found</title><h1>404</h1></html>",
            headers={"Content-Type": html_type},
        )

    async def start(self) -> None:
        """Bind one TCP site per host address, all on one port (chosen by the OS when
        ``port`` is 0), and start serving; publication starts at ``epoch``."""
        if self._runner is not None:
            raise RuntimeError("the live site is already running")
        runner, port = await serve_on_hosts(
            self._handle, [f"{self.base}{h}" for h in range(1, HOSTS + 1)], self.port
        )
        self._runner = runner
        self.port = port
        self.hosts = [self._key(h) for h in range(1, HOSTS + 1)]
        now = self.clock()
        if self.epoch is None:
            self.epoch = now
        self.recording_since = now
        self.advance()
        log.info(
            "live news site: %d hubs on %s1..%s%d port %d",
            len(self._hubs),
            self.base,
            self.base,
            HOSTS,
            port,
        )
