"""Realistic news page templates for the demo site and the extraction tests: portal-style
Chinese (GBK or UTF-8) and English article and list pages, with the clutter real portals carry
(navigation, breadcrumbs, share buttons, related news, comments, galleries, video players,
copyright lines), and the copies a news crawl meets (AMP, mobile ``m.`` pages, multi-page
articles, a page that only renders with JavaScript).

Each function returns ``str`` HTML; the caller encodes it (``gbk`` or ``utf-8``, matching the
``charset`` it passes). The facts a test checks (headline, time, authors, paragraphs) are the
arguments, so a test knows the truth of every page it makes.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "NewsArticle",
    "comment_block",
    "dateline",
    "english_article",
    "english_list",
    "js_only_page",
    "portal_article",
    "portal_list",
]

_CN_NAV = (
    "首页",
    "新闻",
    "国内",
    "国际",
    "财经",
    "科技",
    "体育",
    "娱乐",
    "汽车",
    "房产",
    "视频",
    "图片",
)
_EN_NAV = ("Home", "World", "Politics", "Business", "Tech", "Science", "Sport", "Opinion", "Video")


@dataclass(slots=True)
class NewsArticle:
    """The facts of one article page."""

    title: str
    #: As printed on the page (``2019年09月05日 11:10``, ``2019-09-09 16:01:46``).
    printed_time: str
    paragraphs: list[str]
    authors: list[str] = field(default_factory=list)
    source: str = ""
    site: str = "某某新闻网"
    section: str = "国内"
    related: list[tuple[str, str]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    canonical: str | None = None
    amphtml: str | None = None
    next_page: str | None = None
    gallery: int = 0
    video: bool = False
    #: ISO 8601 time for ``article:published_time`` (English pages; portals often omit it).
    iso_time: str | None = None


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _links(items: Sequence[tuple[str, str]]) -> str:
    return "".join(f'<li><a href="{_e(u)}">{_e(t)}</a></li>' for t, u in items)


def dateline(printed_time: str, source: str, authors: Sequence[str] = ()) -> str:
    """A portal's line under the headline: time, source, authors, then the share bar."""
    byline = ""
    if authors:
        byline = f'<span class="author">作者：{"、".join(_e(x) for x in authors)}</span>'
    return (
        f'<div class="date-source"><span class="date">{_e(printed_time)}</span> '
        f'<span class="source">来源：<a href="/">{_e(source)}</a></span> {byline}</div>'
        '<div class="share">分享到：<a href="#">微信</a><a href="#">微博</a>'
        '<a href="#">QQ空间</a></div>'
    )


def comment_block(comments: Sequence[str]) -> str:
    """Readers' comments under an article."""
    items = "".join(
        f'<li class="comment"><span class="user">网友{i}</span><p>{_e(c)}</p></li>'
        for i, c in enumerate(comments)
    )
    return f'<div class="comments"><h3>网友评论</h3><ul>{items}</ul></div>'


def portal_article(a: NewsArticle, *, charset: str = "utf-8", amp: bool = False) -> str:
    """A Chinese portal article: ``<title>`` with the site suffix, a logo ``<h1>`` before the
    headline's, navigation, breadcrumb, time and source line, share bar, gallery or video,
    related news, comments, footer with copyright and ICP number."""
    head_links = ""
    if a.canonical:
        head_links += f'<link rel="canonical" href="{_e(a.canonical)}">'
    if a.amphtml:
        head_links += f'<link rel="amphtml" href="{_e(a.amphtml)}">'
    if a.next_page:
        head_links += f'<link rel="next" href="{_e(a.next_page)}">'
    nav = "".join(f'<li><a href="/{i}/">{n}</a></li>' for i, n in enumerate(_CN_NAV))
    gallery = ""
    if a.gallery:
        imgs = "".join(
            f'<li><img src="/img/{i}.jpg" alt="图{i + 1}"><p class="pic-note">图{i + 1}</p></li>'
            for i in range(a.gallery)
        )
        gallery = (
            f'<div class="gallery"><ul>{imgs}</ul><span class="count">1/{a.gallery}</span></div>'
        )
    video = ""
    if a.video:
        video = (
            '<div class="video-player"><video src="/v/1.mp4" controls></video>'
            '<p class="video-note">视频加载中...</p></div>'
        )
    body = "".join(f"<p>{_e(p)}</p>" for p in a.paragraphs)
    pager = ""
    if a.next_page:
        pager = f'<div class="page-nav"><a href="{_e(a.next_page)}">下一页</a></div>'
    html_attr = ' amp=""' if amp else ""
    return (
        f'<!DOCTYPE html><html lang="zh-CN"{html_attr}><head><meta charset="{charset}">'
        f"<title>{_e(a.title)}_{_e(a.section)}_{_e(a.site)}</title>"
        f'<meta name="keywords" content="{_e(a.section)},新闻">'
        f'<meta name="description" content="{_e(a.paragraphs[0][:60])}">'
        f"{head_links}"
        '<script>var _hmt=_hmt||[];(function(){var hm=document.createElement("script");'
        "hm.src='/s.js';})();</script></head><body>"
        f'<div class="top-bar"><h1 class="logo"><a href="/">{_e(a.site)}</a></h1>'
        f'<ul class="nav">{nav}</ul><form class="search"><input name="q"></form></div>'
        f'<div class="crumb"><a href="/">首页</a> &gt; <a href="/news/">{_e(a.section)}</a> &gt; 正文</div>'  # noqa: E501
        '<div class="main-content"><div class="article-wrap">'
        f'<h1 class="main-title">{_e(a.title)}</h1>'
        f"{dateline(a.printed_time, a.source or a.site, a.authors)}"
        f'<div class="article" id="artibody">{gallery}{video}{body}'
        '<p class="editor">责任编辑：王小明</p></div>'
        f"{pager}</div>"
        f'<div class="related"><h3>相关新闻</h3><ul>{_links(a.related)}</ul></div>'
        f"{comment_block(a.comments)}"
        f'<div class="side"><h3>热点排行</h3><ul>{_links(a.related[::-1])}</ul></div></div>'
        f'<div class="footer"><p>Copyright &copy; 1998-2024 {_e(a.site)} All Rights Reserved</p>'
        "<p>版权所有 未经授权禁止转载 京ICP证000000号</p></div></body></html>"
    )


def portal_list(
    site: str, section: str, items: Sequence[tuple[str, str, str]], *, charset: str = "utf-8"
) -> str:
    """A portal section page: ``items`` are ``(headline, url, printed time)``, each listed
    with its time and a short teaser, plus navigation, a focus slider and paging."""
    nav = "".join(f'<li><a href="/{i}/">{n}</a></li>' for i, n in enumerate(_CN_NAV))
    rows = "".join(
        f'<li><a href="{_e(u)}">{_e(t)}</a><span class="time">{_e(when)}</span>'
        f'<p class="summary">{_e(t)}，详细内容请点击查看。</p></li>'
        for t, u, when in items
    )
    focus = _links([(t, u) for t, u, _w in items[:4]])
    return (
        f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="{charset}">'
        f"<title>{_e(section)}_{_e(site)}</title></head><body>"
        f'<div class="top-bar"><h1 class="logo"><a href="/">{_e(site)}</a></h1>'
        f'<ul class="nav">{nav}</ul></div>'
        f'<div class="focus"><ul>{focus}</ul></div>'
        f'<div class="list"><h2>{_e(section)}</h2><ul>{rows}</ul>'
        '<div class="pages"><a href="?p=2">下一页</a><a href="?p=3">3</a></div></div>'
        f'<div class="footer"><p>Copyright &copy; {_e(site)} 版权所有</p></div></body></html>'
    )


def english_article(a: NewsArticle, *, amp: bool = False) -> str:
    """An English news article with JSON-LD-free meta tags, a byline, a figure, inline
    "Read more" and newsletter boxes, related stories and a comment section."""
    head_links = ""
    if a.canonical:
        head_links += f'<link rel="canonical" href="{_e(a.canonical)}">'
    if a.amphtml:
        head_links += f'<link rel="amphtml" href="{_e(a.amphtml)}">'
    meta_time = (
        f'<meta property="article:published_time" content="{_e(a.iso_time)}">' if a.iso_time else ""
    )
    nav = "".join(f'<li><a href="/{n.lower()}/">{n}</a></li>' for n in _EN_NAV)
    paras = list(a.paragraphs)
    middle = len(paras) // 2
    body = "".join(f"<p>{_e(p)}</p>" for p in paras[:middle])
    body += (
        '<aside class="newsletter"><h4>Sign up for our morning briefing</h4>'
        '<form><input name="email"></form></aside>'
    )
    body += "".join(f"<p>{_e(p)}</p>" for p in paras[middle:])
    comments = "".join(f'<div class="comment"><p>{_e(c)}</p></div>' for c in a.comments)
    authors = " and ".join(
        f'<a rel="author" href="/by/{i}">{_e(x)}</a>' for i, x in enumerate(a.authors)
    )
    html_attr = ' amp=""' if amp else ""
    return (
        f'<!DOCTYPE html><html lang="en"{html_attr}><head><meta charset="utf-8">'
        f"<title>{_e(a.title)} | {_e(a.site)}</title>"
        f'<meta property="og:type" content="article">'
        f'<meta property="og:title" content="{_e(a.title)}">'
        f'<meta name="author" content="{_e(", ".join(a.authors))}">'
        f"{meta_time}{head_links}</head><body>"
        f'<header><a class="logo" href="/">{_e(a.site)}</a><nav><ul>{nav}</ul></nav></header>'
        f"<main><article><h1>{_e(a.title)}</h1>"
        f'<div class="byline">By {authors} &middot; <time>{_e(a.printed_time)}</time></div>'
        '<figure><img src="/img/lead.jpg"><figcaption>Photo: Staff</figcaption></figure>'
        f'<div class="article-body">{body}</div>'
        '<div class="share"><a href="#">Share on Facebook</a> <a href="#">Tweet</a></div>'
        "</article>"
        f'<section class="related"><h2>More stories</h2><ul>{_links(a.related)}</ul></section>'
        f'<section id="comments"><h2>Comments</h2>{comments}</section></main>'
        f"<footer><p>&copy; 2024 {_e(a.site)}. All rights reserved.</p>"
        '<a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>'
    )


def english_list(site: str, section: str, items: Sequence[tuple[str, str, str]]) -> str:
    """An English section front: ``items`` are ``(headline, url, teaser)``."""
    nav = "".join(f'<li><a href="/{n.lower()}/">{n}</a></li>' for n in _EN_NAV)
    cards = "".join(
        f'<div class="card"><h3><a href="{_e(u)}">{_e(t)}</a></h3><p>{_e(teaser)}</p></div>'
        for t, u, teaser in items
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(section)} | {_e(site)}</title></head><body>"
        f'<header><a class="logo" href="/">{_e(site)}</a><nav><ul>{nav}</ul></nav></header>'
        f"<main><h1>{_e(section)}</h1>{cards}</main>"
        f"<footer><p>&copy; 2024 {_e(site)}</p></footer></body></html>"
    )


def js_only_page(title: str) -> str:
    """A single-page-app shell: an empty root, a bundle, a noscript notice."""
    bundle = "window.__INITIAL_STATE__={};" + "function r(){return 1}" * 200
    return (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title></head><body>"
        "<noscript>You need to enable JavaScript to run this app.</noscript>"
        f'<div id="app"></div><script src="/static/app.js"></script><script>{bundle}</script>'
        "</body></html>"
    )
