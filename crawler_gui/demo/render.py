"""The fixed demo site's pages, rendered from its link graph on first request and cached as
bytes: articles, section and home pages, RSS feeds, sitemaps and robots.txt, in GBK or UTF-8.
A part of :class:`~crawler_gui.demo.site.DemoSite`."""

from __future__ import annotations

import email.utils
import html
import random
from collections import OrderedDict
from datetime import datetime, timedelta, timezone
from typing import Any

from crawler_gui.demo.linkgraph import _PRIVATE_PATH, LinkGraph, _Article, _Host
from crawler_gui.demo.news_templates import comment_block, dateline
from crawler_gui.demo.words import _CN_WORDS, _EN_WORDS, _REPORTERS, _SECTIONS

#: The demo site is in China: its pages print local times (+08:00) without the offset.
_CHINA = timezone(timedelta(hours=8))


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


_CACHE_PAGES = 4096


class NewsPages(LinkGraph):
    """Renders and caches the site's pages."""

    now: float
    _boiler: dict[int, tuple[str, str]]
    _cache: OrderedDict[tuple[int, str], bytes]

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
