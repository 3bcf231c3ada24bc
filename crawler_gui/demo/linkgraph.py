"""The fixed demo site's link graph, drawn up front from its seed (cheap: no text): hosts, their
sections and articles, the links between them, redirects, dead links and failing pages, and
the URL sets tests compare a crawl with. A part of :class:`~crawler_gui.demo.site.DemoSite`."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from crawler_gui.demo.words import _CITIES, _CN_CITIES, _CN_WORDS, _EN_WORDS, _SECTIONS


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


class LinkGraph:
    """Draws the site's link graph and answers which URLs it has."""

    aliases: float
    dead_links: float
    port: int
    feeds: bool
    seed: int
    base: str
    _hosts: list[_Host]
    _routes: list[dict[str, tuple[str, Any]]]

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
