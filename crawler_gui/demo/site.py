"""A built-in local news site, served from memory, for the demo crawl, the tests and the
benchmarks.

One port, many hosts: host ``i`` (1..N) is the loopback address ``127.0.0.i`` and every host
listens on the same port, so host keys look like ``127.0.0.3:8631``. The host of a request is
taken from its ``Host`` header (falling back to the address the connection came in on).

Everything is deterministic from ``seed`` (``random.Random``): the link graph is drawn up front
(cheap: no text), pages are rendered on first request and cached as bytes. Nothing depends on
the wall clock.

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
import html
import logging
import random
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Self

from aiohttp import web

from crawler_gui.demo.news_templates import comment_block, dateline

#: The demo site is in China: its pages print local times (+08:00) without the offset.
_CHINA = timezone(timedelta(hours=8))

__all__ = ["DemoSite", "ServedSite", "serve_on_hosts"]

log = logging.getLogger(__name__)

_SECTIONS: dict[str, str] = {
    "news": "要闻",
    "world": "国际",
    "china": "国内",
    "business": "财经",
    "tech": "科技",
    "sports": "体育",
    "culture": "文化",
    "opinion": "评论",
}
_CN_WORDS = (  # noqa: SIM905 - a word list reads better as text
    "经济 发展 城市 记者 报道 政府 市场 科技 公司 新闻 国际 体育 文化 教育 环境 社会 交通 "
    "天气 健康 旅游 投资 银行 企业 研究 学生 医院 农业 能源 数据 网络 手机 电影 音乐 比赛 "
    "球队 地区 计划 项目 会议 专家 表示 今年 增长 服务 建设 合作 安全 政策 人民 工作 问题 "
    "历史 国家 世界 生活 技术 管理 产品 信息 系统 方面 情况 重要 已经 认为 进行 相关 部门"
).split()
_EN_WORDS = (  # noqa: SIM905
    "the market city report government growth technology company news world sports culture "
    "education climate transport weather health travel investment bank research students "
    "hospital energy data network phone film music match team region plan project meeting "
    "experts said this year service building security policy people work history country "
    "life system product information according officials announced on Tuesday local"
).split()
_CITIES = (
    "Harbor",
    "Riverside",
    "Lakeview",
    "Hillcrest",
    "Eastport",
    "Northfield",
    "Westbrook",
    "Southgate",
    "Pinewood",
    "Stonebridge",
    "Maplewood",
    "Clearwater",
)
_REPORTERS = ("王明", "李华", "张伟", "刘洋", "陈静")
_CN_CITIES = ("港湾", "河畔", "湖景", "山城", "东港", "北原", "西溪", "南门", "松林", "石桥")

_CSS = (
    "body{margin:0;font-family:-apple-system,'Helvetica Neue',Arial,'PingFang SC',"
    "'Microsoft YaHei',sans-serif;color:#222;background:#fff}"
    ".top{background:#b00;color:#fff;padding:8px 16px}.top a{color:#fff;margin-right:12px}"
    ".wrap{max-width:1100px;margin:0 auto;display:flex}.main{flex:3;padding:16px}"
    ".side{flex:1;padding:16px;border-left:1px solid #eee}.side li{margin:6px 0}"
    "h1{font-size:28px;line-height:1.3}.meta{color:#888;font-size:13px}"
    "p{line-height:1.8;font-size:16px}.foot{background:#f4f4f4;padding:24px;color:#666}"
    ".list li{padding:8px 0;border-bottom:1px dashed #ddd}.teaser{color:#555;font-size:14px}"
    ".ad{height:90px;background:#fafafa;border:1px solid #eee;text-align:center}"
) * 3
_JS = (
    "<script>(function(){var d=document,w=window;w.dataLayer=w.dataLayer||[];"
    "function track(e){w.dataLayer.push({event:e,t:0})}"
    "d.addEventListener('DOMContentLoaded',function(){track('view');"
    "var a=d.querySelectorAll('a');for(var i=0;i<a.length;i++){a[i].addEventListener("
    "'click',function(){track('click')})}})})();</script>"
)


@dataclass(slots=True)
class _Article:
    index: int
    section: str
    path: str
    title: str
    same: list[int] = field(default_factory=list)
    cross: list[tuple[int, int]] = field(default_factory=list)
    tracking: int | None = None
    fragment: int | None = None
    dead: str | None = None
    old: int | None = None
    go: int | None = None
    failures: int = 0
    slow: bool = False
    size: int = 10_000
    #: The link mix (``aliases``, ``dead_links``): same-host articles linked through a 301
    #: alias of their own (``/r/a<n>-<k>.html``), and links to pages that never existed.
    aliases: list[int] = field(default_factory=list)
    gone: int = 0


@dataclass(slots=True)
class _Host:
    index: int
    address: str
    name: str
    gbk: bool
    disallow_private: bool
    sections: list[str]
    articles: list[_Article]
    go_targets: list[tuple[int, int]] = field(default_factory=list)
    key: str = ""

    @property
    def encoding(self) -> str:
        return "gbk" if self.gbk else "utf-8"

    @property
    def content_type(self) -> str:
        return "text/html" if self.gbk else "text/html; charset=utf-8"


def _share(rng: random.Random, mean: float) -> int:
    """A count whose mean is ``mean``: its whole part, plus one with the fraction's chance."""
    whole = int(mean)
    return whole + (rng.random() < mean - whole)


def _other_host(rng: random.Random, n: int, this: int) -> int:
    """A random host index in 1..n other than ``this`` (n >= 2), in O(1)."""
    k = rng.randrange(1, n)
    return k + 1 if k >= this else k


_PRIVATE_PATH = "/private/drafts.html"
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


_CACHE_PAGES = 4096


async def serve_on_hosts(
    handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
    addresses: Sequence[str],
    port: int,
) -> tuple[web.ServerRunner, int]:
    """Serve ``handler`` on one TCP site per address, all on one port; return the runner (to
    clean up) and the port.

    With ``port`` 0 the OS picks a free port for the first address and the others take the
    same number; when one of them has it taken already, every site is stopped and a new port
    is tried (20 times at most). A port that was asked for is not retried."""
    server = web.Server(handler, access_log=None)
    runner = web.ServerRunner(server, shutdown_timeout=1.0)
    await runner.setup()
    try:
        attempts = 0
        while True:
            sites: list[web.TCPSite] = []
            try:
                first = web.TCPSite(runner, addresses[0], port)
                await first.start()
                sites.append(first)
                bound = int(runner.addresses[0][1])
                for address in addresses[1:]:
                    site = web.TCPSite(runner, address, bound)
                    await site.start()
                    sites.append(site)
                return runner, bound
            except OSError:
                for site in sites:
                    await site.stop()
                attempts += 1
                if port or attempts == 20:
                    raise
    except BaseException:
        await runner.cleanup()
        raise


class ServedSite:
    """What the demo sites share: stopping, and ``async with`` (``start`` is their own)."""

    _runner: web.ServerRunner | None = None

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


class DemoSite(ServedSite):
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

    # -- the link graph ----------------------------------------------------------------------

    def _generate(self, n: int, per_host: int, slow_share: float) -> list[_Host]:
        rng = random.Random(self.seed)
        gbk_count = max(1, round(0.15 * n)) if n >= 2 else 0
        gbk = set(rng.sample(range(1, n + 1), gbk_count))
        private_count = max(1, round(0.25 * n)) if n >= 2 else 0
        private = set(rng.sample(range(1, n + 1), private_count))
        out: list[_Host] = []
        for i in range(1, n + 1):
            sections = rng.sample(list(_SECTIONS), rng.randint(3, 5))
            if i in gbk:
                name = f"{rng.choice(_CN_CITIES)}日报 {i}"
            else:
                name = f"{rng.choice(_CITIES)} Daily {i} {rng.choice(_CN_CITIES)}新闻"
            articles = []
            for j in range(per_host):
                section = sections[j % len(sections)]
                articles.append(
                    _Article(
                        index=j,
                        section=section,
                        path=f"/{section}/a{j}.html",
                        title=self._title(rng, i in gbk, j),
                    )
                )
            out.append(
                _Host(
                    index=i,
                    address=f"{self.base}{i}",
                    name=name,
                    gbk=i in gbk,
                    disallow_private=i in private,
                    sections=sections,
                    articles=articles,
                )
            )
        for host in out:
            for art in host.articles:
                picks = rng.sample(range(per_host), 7)
                others = [k for k in picks if k != art.index]
                art.same = others[: rng.randint(3, 6)]
                if n >= 2:
                    for _ in range(rng.randint(1, 2)):
                        other = _other_host(rng, n, host.index)
                        art.cross.append((other, rng.randrange(per_host)))
                roll = rng.random()
                if roll < 0.25:
                    art.tracking = rng.choice(art.same)
                elif roll < 0.45:
                    art.fragment = rng.choice(art.same)
                if rng.random() < 0.10:
                    art.dead = f"/{art.section}/a{per_host + 1000 + art.index}.html"
                if rng.random() < 0.06:
                    art.old = others[-1]
                if n >= 2 and rng.random() < 0.04:
                    other = _other_host(rng, n, host.index)
                    art.go = len(host.go_targets)
                    host.go_targets.append((other, rng.randrange(per_host)))
                if rng.random() < 0.05:
                    art.failures = rng.randint(1, 2)
                art.slow = rng.random() < slow_share
                art.size = rng.randint(5_000, 30_000)
        # Make sure every feature appears at least once, whatever the seed.
        first = out[0].articles
        if not any(a.failures for h in out for a in h.articles):
            first[1].failures = 1
        if not any(a.dead for h in out for a in h.articles):
            first[2].dead = f"/{first[2].section}/a{per_host + 1002}.html"
        if not any(a.old is not None for h in out for a in h.articles):
            first[3].old = 4
        if n >= 2 and not any(h.go_targets for h in out):
            first[5].go = 0
            out[0].go_targets.append((2, 0))
        if not any(a.tracking is not None for h in out for a in h.articles):
            first[6].tracking = first[6].same[0]
        if self.aliases or self.dead_links:  # own generator: the default site stays the same
            mix = random.Random(f"{self.seed}/mix")
            for host in out:
                for art in host.articles:
                    art.aliases = [
                        mix.randrange(per_host) for _ in range(_share(mix, self.aliases))
                    ]
                    art.gone = _share(mix, self.dead_links)
        for host in out:
            routes: dict[str, tuple[str, Any]] = {
                "/": ("home", None),
                "/robots.txt": ("robots", None),
            }
            for section in host.sections:
                routes[f"/{section}/"] = ("section", section)
            for art in host.articles:
                routes[art.path] = ("article", art)
                routes[f"/old/a{art.index}.html"] = ("old", art)
                for k, target in enumerate(art.aliases):
                    routes[f"/r/a{art.index}-{k}.html"] = ("old", host.articles[target])
            for k in range(len(host.go_targets)):
                routes[f"/go/{k}.html"] = ("go", k)
            if host.disallow_private:
                routes[_PRIVATE_PATH] = ("private", None)
            if self._has_feeds(host.index):
                routes["/feed.xml"] = ("feed", None)
                routes["/sitemap.xml"] = ("sitemap_index", None)
                routes["/sitemap-news.xml"] = ("news_sitemap", None)
            self._routes.append(routes)
        return out

    @staticmethod
    def _title(rng: random.Random, gbk: bool, j: int) -> str:
        cn = "".join(rng.sample(_CN_WORDS, 4))
        if gbk:
            return f"{cn}：{''.join(rng.sample(_CN_WORDS, 3))}（{j}）"
        en = " ".join(rng.sample(_EN_WORDS, 4)).capitalize()
        return f"{cn}：{en} ({j})"

    # -- URLs --------------------------------------------------------------------------------

    def _key(self, host_index: int) -> str:
        if not self.port:
            raise RuntimeError("the demo site has no port yet: await start() first")
        return f"{self.base}{host_index}:{self.port}"

    def _url(self, host_index: int, path: str) -> str:
        return f"http://{self._key(host_index)}{path}"

    def seed_urls(self) -> list[str]:
        """Every host's home page."""
        return [self._url(h.index, "/") for h in self._hosts]

    def hub_urls(self) -> list[str]:
        """Every host's home page and section pages (the pages that change: hubs)."""
        out = []
        for h in self._hosts:
            out.append(self._url(h.index, "/"))
            out.extend(self._url(h.index, f"/{s}/") for s in h.sections)
        return out

    def _has_feeds(self, host_index: int) -> bool:
        return self.feeds and host_index % 3 == 1

    def feed_hosts(self) -> list[int]:
        """The indexes of the hosts that serve a feed and sitemaps (none without ``feeds``)."""
        return [h.index for h in self._hosts if self._has_feeds(h.index)]

    def feed_urls(self) -> list[str]:
        """The RSS feeds (announced on their host's home page; empty without ``feeds``)."""
        return [self._url(h.index, "/feed.xml") for h in self._hosts if self._has_feeds(h.index)]

    def sitemap_urls(self) -> list[str]:
        """The sitemap indexes named in robots.txt and their news sitemaps."""
        out = []
        for h in self._hosts:
            if self._has_feeds(h.index):
                out += [self._url(h.index, "/sitemap.xml"), self._url(h.index, "/sitemap-news.xml")]
        return out

    def expected_urls(self) -> set[str]:
        """Canonical URLs of every reachable page that ends as a 2xx: home pages, sections and
        articles (redirect targets and recovering 500s included; robots-disallowed pages,
        redirects themselves and 404s excluded)."""
        out = set(self.hub_urls()) | set(self.feed_urls()) | set(self.sitemap_urls())
        for h in self._hosts:
            out.update(self._url(h.index, a.path) for a in h.articles)
        return out

    def dead_urls(self) -> set[str]:
        """Linked URLs that answer 404."""
        out = {self._url(h.index, a.dead) for h in self._hosts for a in h.articles if a.dead}
        for h in self._hosts:
            for a in h.articles:
                out.update(self._url(h.index, f"/gone/a{a.index}-{k}.html") for k in range(a.gone))
        return out

    def private_urls(self) -> set[str]:
        """Linked URLs under a robots.txt ``Disallow: /private/`` (they would answer 200)."""
        return {self._url(h.index, _PRIVATE_PATH) for h in self._hosts if h.disallow_private}

    def redirects(self) -> dict[str, tuple[int, str]]:
        """Linked redirecting URLs: ``{url: (301 or 302, canonical target URL)}``."""
        out: dict[str, tuple[int, str]] = {}
        for h in self._hosts:
            for a in h.articles:
                if a.old is not None:
                    target = h.articles[a.old]
                    out[self._url(h.index, f"/old/a{target.index}.html")] = (
                        301,
                        self._url(h.index, target.path),
                    )
                if a.go is not None:
                    other, k = h.go_targets[a.go]
                    tgt = self._hosts[other - 1].articles[k]
                    out[self._url(h.index, f"/go/{a.go}.html")] = (302, self._url(other, tgt.path))
                for n, alias_of in enumerate(a.aliases):
                    out[self._url(h.index, f"/r/a{a.index}-{n}.html")] = (
                        301,
                        self._url(h.index, h.articles[alias_of].path),
                    )
        return out

    def recovering_urls(self) -> dict[str, int]:
        """Articles that answer 500 at first: ``{url: number of 500s before the 200}``."""
        return {
            self._url(h.index, a.path): a.failures
            for h in self._hosts
            for a in h.articles
            if a.failures
        }

    def slow_urls(self) -> set[str]:
        return {self._url(h.index, a.path) for h in self._hosts for a in h.articles if a.slow}

    def gbk_hosts(self) -> list[str]:
        """Host keys of the hosts that serve GBK labelled only in ``<meta charset>``."""
        return [self._key(h.index) for h in self._hosts if h.gbk]

    def robots_disallow_hosts(self) -> list[str]:
        return [self._key(h.index) for h in self._hosts if h.disallow_private]

    # -- rendering ---------------------------------------------------------------------------

    def _text(self, rng: random.Random, gbk: bool, words: int) -> str:
        parts = []
        for _ in range(words):
            if gbk or rng.random() < 0.6:
                parts.append(rng.choice(_CN_WORDS))
            else:
                parts.append(" " + rng.choice(_EN_WORDS) + " ")
        return "".join(parts) + "。"

    def _boilerplate(self, h: _Host) -> tuple[str, str]:
        cached = self._boiler.get(h.index)
        if cached is not None:
            return cached
        rng = random.Random(f"{self.seed}/{h.index}/boilerplate")
        nav = "".join(
            f'<a href="/{s}/">{_SECTIONS[s]}{"" if h.gbk else " " + s.title()}</a>'
            for s in h.sections
        )
        popular = "".join(
            f'<li><a href="{a.path}">{html.escape(a.title)}</a></li>'
            for a in rng.sample(h.articles, 5)
        )
        head = (
            f'<meta charset="{"gbk" if h.gbk else "utf-8"}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{_CSS}</style>"
        )
        top = (
            f'<div class="top" id="top"><a href="/">{html.escape(h.name)}</a>{nav}</div>'
            '<div class="ad">广告 AD</div>'
        )
        side = f'<div class="side"><h3>热门 Most read</h3><ul>{popular}</ul></div>'
        about = self._text(rng, h.gbk, 60)
        foot = (
            f'<div class="foot"><p>{about}</p><p>版权所有 {html.escape(h.name)} '
            '<a href="/#top">返回顶部</a></p></div>' + _JS
        )
        result = (head, top + "\n<!--MAIN-->\n" + side + foot)
        self._boiler[h.index] = result
        return result

    def _page(self, h: _Host, title: str, main: str, extra_head: str = "") -> bytes:
        head, frame = self._boilerplate(h)
        top, rest = frame.split("\n<!--MAIN-->\n", 1)
        doc = (
            f'<!DOCTYPE html>\n<html lang="zh"><head>{head}{extra_head}'
            f"<title>{html.escape(title)}</title>"
            f'</head><body>{top}<div class="wrap"><div class="main">{main}</div>{rest}'
            "</div></body></html>\n"
        )
        return doc.encode(h.encoding)

    def _link(self, h: _Host, target: int, k: int, suffix: str = "") -> str:
        art = self._hosts[target - 1].articles[k]
        href = art.path if target == h.index else self._url(target, art.path)
        return f'<a href="{href}{suffix}">{html.escape(art.title)}</a>'

    def _render_article(self, h: _Host, a: _Article) -> bytes:
        rng = random.Random(f"{self.seed}/{h.index}{a.path}")
        links = [f"<li>{self._link(h, h.index, k)}</li>" for k in a.same]
        if a.tracking is not None:
            links.append(
                f"<li>{self._link(h, h.index, a.tracking, '?utm_source=hub&utm_medium=x')}</li>"
            )
        if a.fragment is not None:
            links.append(f"<li>{self._link(h, h.index, a.fragment, '#comments')}</li>")
        if a.dead:
            links.append(f'<li><a href="{a.dead}">已删除 removed story</a></li>')
        if a.old is not None:
            links.append(f'<li><a href="/old/a{a.old}.html">旧链接 archived link</a></li>')
        if a.go is not None:
            links.append(f'<li><a href="/go/{a.go}.html">合作媒体 partner story</a></li>')
        for k, target in enumerate(a.aliases):
            title = html.escape(h.articles[target].title)
            links.append(f'<li><a href="/r/a{a.index}-{k}.html">{title}</a></li>')
        links += [
            f'<li><a href="/gone/a{a.index}-{k}.html">已删除 removed story</a></li>'
            for k in range(a.gone)
        ]
        elsewhere = [f"<li>{self._link(h, o, k)}</li>" for o, k in a.cross]
        section = _SECTIONS[a.section]
        when = self.published(h.index, a.index)
        printed = (
            f"{when[:4]}年{when[5:7]}月{when[8:10]}日 {when[11:16]}"
            if h.gbk
            else f"发布时间：{when[:10]} {when[11:19]}"
        )
        head = (
            f"<h1>{html.escape(a.title)}</h1>"
            f"{dateline(printed, h.name, [_REPORTERS[a.index % len(_REPORTERS)]])}"
            f'<p class="meta">{section} | <a href="/{a.section}/">{section}</a> | '
            f'<a href="#comments">评论 comments</a></p>'
        )
        tail = (
            f"<h3>相关 Related</h3><ul>{''.join(links)}</ul>"
            f"<h3>其他媒体 Elsewhere</h3><ul>{''.join(elsewhere)}</ul>"
            f'<div id="comments">{comment_block(["说得好，支持！", "希望持续关注。"])}</div>'
        )
        paragraphs: list[str] = []
        base = len(self._page(h, a.title, head + tail))
        factor = 2 if h.gbk else 3
        budget = a.size - base
        while budget > 0 or len(paragraphs) < 3:  # an article has a few paragraphs at least
            p = self._text(rng, h.gbk, rng.randint(20, 80))
            paragraphs.append(f"<p>{p}</p>")
            budget -= len(p) * factor
        return self._page(h, a.title, head + "".join(paragraphs) + tail)

    def published(self, host_index: int, article_index: int) -> str:
        """When an article was published, in the local time its page prints (the site is in
        China: +08:00, not printed): ``yyyy-mm-ddThh:mm:ss``, 5 minutes to 36 hours before the
        site's :attr:`now`, deterministic from the seed and ``now``."""
        rng = random.Random(f"{self.seed}/{host_index}/{article_index}/time")
        back = rng.randrange(5, 36 * 60) * 60  # whole minutes
        when = datetime.fromtimestamp(self.now - back, _CHINA)
        return when.strftime("%Y-%m-%dT%H:%M:%S")

    def article_title(self, host_index: int, article_index: int) -> str:
        return self._hosts[host_index - 1].articles[article_index].title

    def _render_section(self, h: _Host, section: str) -> bytes:
        rng = random.Random(f"{self.seed}/{h.index}/{section}/")
        items = []
        for a in h.articles:
            if a.section != section:
                continue
            teaser = self._text(rng, h.gbk, rng.randint(15, 40))
            extra = ""
            if a.index % 5 == 0:
                extra += f' <a href="{a.path}#comments">{rng.randint(1, 99)} 评论</a>'
            if a.index % 7 == 3:
                extra += f' <a href="{a.path}?utm_source=hub&amp;utm_medium=x">分享 share</a>'
            items.append(
                f'<li><a href="{a.path}">{html.escape(a.title)}</a>{extra}'
                f'<div class="teaser">{teaser}</div></li>'
            )
        title = f"{_SECTIONS[section]} - {h.name}"
        main = f'<h1>{_SECTIONS[section]}</h1><ul class="list">{"".join(items)}</ul>'
        return self._page(h, title, main)

    def _render_home(self, h: _Host) -> bytes:
        rng = random.Random(f"{self.seed}/{h.index}/")
        tops = []
        for a in h.articles[:12]:
            teaser = self._text(rng, h.gbk, rng.randint(20, 50))
            tops.append(
                f'<li><a href="{self._url(h.index, a.path)}">{html.escape(a.title)}</a>'
                f'<div class="teaser">{teaser}</div></li>'
            )
        first = h.articles[0]
        tops.append(
            f'<li><a href="{first.path}?utm_source=hub&amp;utm_medium=x">头条 Top story</a></li>'
        )
        tops.append(f'<li><a href="{first.path}#comments">讨论 Discuss</a></li>')
        sections = "".join(f'<li><a href="/{s}/">{_SECTIONS[s]}</a></li>' for s in h.sections)
        private = (
            f'<p><a href="{_PRIVATE_PATH}">内部稿件 drafts</a></p>' if h.disallow_private else ""
        )
        main = (
            f"<h1>{html.escape(h.name)}</h1><h2>栏目 Sections</h2><ul>{sections}</ul>"
            f'<h2>头条 Top stories</h2><ul class="list">{"".join(tops)}</ul>{private}'
        )
        feed = (
            '<link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml">'
            if self._has_feeds(h.index)
            else ""
        )
        return self._page(h, h.name, main, feed)

    def _published_w3c(self, h: _Host, a: _Article) -> str:
        return self.published(h.index, a.index) + "+08:00"

    def _render_feed(self, h: _Host) -> bytes:
        newest = sorted(h.articles, key=lambda a: self.published(h.index, a.index))[-50:]
        items = []
        for a in reversed(newest):
            when = datetime.fromisoformat(self._published_w3c(h, a))
            items.append(
                f"<item><title>{html.escape(a.title)}</title>"
                f"<link>{self._url(h.index, a.path)}</link>"
                f"<guid>{self._url(h.index, a.path)}</guid>"
                f"<pubDate>{email.utils.format_datetime(when)}</pubDate></item>"
            )
        doc = (
            '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
            f"<title>{html.escape(h.name)}</title><link>{self._url(h.index, '/')}</link>"
            f"<description>{html.escape(h.name)}</description>{''.join(items)}</channel></rss>\n"
        )
        return doc.encode("utf-8")

    def _render_sitemap_index(self, h: _Host) -> bytes:
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<sitemap><loc>{self._url(h.index, '/sitemap-news.xml')}</loc></sitemap>"
            "</sitemapindex>\n"
        ).encode()

    def _render_news_sitemap(self, h: _Host) -> bytes:
        urls = "".join(
            f"<url><loc>{self._url(h.index, a.path)}</loc><news:news>"
            f"<news:publication><news:name>{html.escape(h.name)}</news:name>"
            "<news:language>zh</news:language></news:publication>"
            f"<news:publication_date>{self._published_w3c(h, a)}</news:publication_date>"
            f"<news:title>{html.escape(a.title)}</news:title></news:news></url>"
            for a in h.articles
        )
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
            f"{urls}</urlset>\n"
        ).encode()

    def _render(self, h: _Host, path: str, kind: str, arg: Any) -> bytes:
        key = (h.index, path)
        body = self._cache.get(key)
        if body is not None:
            self._cache.move_to_end(key)
            return body
        if kind == "home":
            body = self._render_home(h)
        elif kind == "section":
            body = self._render_section(h, arg)
        elif kind == "article":
            body = self._render_article(h, arg)
        elif kind == "feed":
            body = self._render_feed(h)
        elif kind == "sitemap_index":
            body = self._render_sitemap_index(h)
        elif kind == "news_sitemap":
            body = self._render_news_sitemap(h)
        else:  # private
            body = self._page(h, "内部 Private", "<h1>内部稿件</h1><p>不应被抓取。</p>")
        self._cache[key] = body
        if len(self._cache) > _CACHE_PAGES:
            self._cache.popitem(last=False)
        return body

    def _robots(self, h: _Host) -> bytes:
        lines = ["User-agent: *"]
        lines.append("Disallow: /private/" if h.disallow_private else "Disallow:")
        if self._has_feeds(h.index):
            lines.append(f"Sitemap: {self._url(h.index, '/sitemap.xml')}")
        return ("\n".join(lines) + "\n").encode("ascii")

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
