"""Feeds and sitemaps on real-shaped documents: RSS 2.0, Atom, sitemap index, news sitemap, gzip,
and broken or hostile XML that must not crash."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone

from crawler_gui.engine.feeds import (
    MAX_SITEMAP_URLS,
    HubKind,
    discover_feeds,
    parse_feed,
    parse_hub_document,
    parse_sitemap,
    parse_w3c_date,
    sitemaps_from_robots,
    sniff_kind,
)

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>滚动新闻 - 新闻中心</title>
  <link>http://news.example.cn/roll/</link>
  <item>
    <title>国务院常务会议部署稳就业举措</title>
    <link>http://news.example.cn/c/2024-05-01/doc-abc.shtml</link>
    <pubDate>Wed, 01 May 2024 10:20:30 +0800</pubDate>
    <dc:creator>记者 张三</dc:creator>
  </item>
  <item>
    <title>Relative link</title>
    <link>/c/2024-05-01/doc-def.shtml</link>
    <pubDate>Wed, 01 May 2024 09:00:00 GMT</pubDate>
  </item>
  <item><title>No link</title></item>
  <item><title>Script link</title><link>javascript:alert(1)</link></item>
</channel>
</rss>""".encode()

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>World News</title>
  <link href="https://news.example.com/world/"/>
  <updated>2024-05-01T12:00:00Z</updated>
  <entry>
    <title>Talks resume in Geneva</title>
    <link rel="alternate" href="https://news.example.com/world/2024/05/01/talks.html"/>
    <id>tag:news.example.com,2024:talks</id>
    <published>2024-05-01T11:30:00+02:00</published>
    <updated>2024-05-01T11:45:00+02:00</updated>
  </entry>
</feed>"""

NEWS_SITEMAP = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url>
    <loc>https://news.example.com/business/2024/05/01/rates.html</loc>
    <news:news>
      <news:publication><news:name>Example News</news:name><news:language>en</news:language>
      </news:publication>
      <news:publication_date>2024-05-01T08:15:00+08:00</news:publication_date>
      <news:title>Central bank holds rates</news:title>
    </news:news>
  </url>
  <url>
    <loc>https://news.example.com/about.html</loc>
    <lastmod>2023-01-02</lastmod>
  </url>
</urlset>"""

INDEX = b"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://news.example.com/sitemap-news.xml</loc>
    <lastmod>2024-05-01T10:00:00Z</lastmod></sitemap>
  <sitemap><loc>/sitemap-2024-04.xml.gz</loc></sitemap>
  <sitemap><loc>ftp://news.example.com/old.xml</loc></sitemap>
</sitemapindex>"""


def test_rss_items_with_their_dates_and_absolute_links() -> None:
    doc = parse_feed(RSS, "http://news.example.cn/roll/rss.xml")
    assert doc.kind is HubKind.FEED
    assert doc.problem == ""
    assert doc.title == "滚动新闻 - 新闻中心"
    assert [item.url for item in doc.items] == [
        "http://news.example.cn/c/2024-05-01/doc-abc.shtml",
        "http://news.example.cn/c/2024-05-01/doc-def.shtml",
    ]
    first = doc.items[0]
    assert first.title == "国务院常务会议部署稳就业举措"
    assert first.published == datetime(2024, 5, 1, 2, 20, 30, tzinfo=UTC)


def test_atom_entries_use_published_and_keep_updated() -> None:
    doc = parse_feed(ATOM, "https://news.example.com/world/atom.xml")
    assert [item.url for item in doc.items] == [
        "https://news.example.com/world/2024/05/01/talks.html"
    ]
    item = doc.items[0]
    assert item.published == datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
    assert item.updated == datetime(2024, 5, 1, 9, 45, tzinfo=UTC)


def test_a_broken_feed_gives_what_it_could_read_and_says_so() -> None:
    broken = RSS.replace(b"</channel>", b"<item><title>cut & <b>bad</title>")
    doc = parse_feed(broken, "http://news.example.cn/rss.xml")
    assert doc.problem.startswith("malformed feed")
    assert doc.items  # the well-formed items before the break still count
    garbage = parse_feed(b"\x00\xff not xml at all <<<", "http://news.example.cn/rss.xml")
    assert garbage.items == []
    assert garbage.problem


def test_text_that_is_not_unicode_in_a_feed_is_no_crash() -> None:
    """feedparser raises (it encodes what its loose parser read) on a character reference to
    a surrogate, as an emoji written as UTF-16 halves: such references read as U+FFFD and the
    feed's items still count. A charset label with a byte that is not UTF-8 (the fetcher
    hands on such a header as text, ``core.text``) would raise too: "unreadable", no crash."""
    whole = parse_feed(RSS, "http://news.example.cn/rss.xml")
    halves = RSS.replace(
        b"</channel>",
        b"<item><title>&#55357;&#56832; &#x0D83D; & </title>"
        b"<link>http://news.example.cn/e.html</link></item></channel>",
    )
    doc = parse_feed(halves, "http://news.example.cn/rss.xml")
    assert doc.problem.startswith("malformed feed")  # (the bare "&" made it loose)
    assert [i.url for i in doc.items][: len(whole.items)] == [i.url for i in whole.items]
    assert doc.items[-1].url == "http://news.example.cn/e.html"
    assert doc.items[-1].title == "\ufffd\ufffd \ufffd &"
    label = "application/rss+xml; charset=" + b"caf\xe9".decode("utf-8", "surrogateescape")
    doc = parse_feed(RSS, "http://news.example.cn/rss.xml", label)
    assert doc.problem.startswith("unreadable feed")


def test_a_feed_given_as_bytes_that_look_like_a_url_is_not_fetched() -> None:
    doc = parse_feed(b"http://127.0.0.1:9/never-fetched.xml", "http://news.example.cn/")
    assert doc.items == []
    assert doc.problem


def test_a_news_sitemap_gives_publication_dates_and_titles() -> None:
    doc = parse_sitemap(NEWS_SITEMAP, "https://news.example.com/sitemap-news.xml")
    assert doc.kind is HubKind.SITEMAP
    assert doc.problem == ""
    rates, about = doc.items
    assert rates.url == "https://news.example.com/business/2024/05/01/rates.html"
    assert rates.published == datetime(2024, 5, 1, 0, 15, tzinfo=UTC)
    assert rates.title == "Central bank holds rates"
    assert about.published is None
    assert about.updated == datetime(2023, 1, 2, tzinfo=UTC)


def test_a_sitemap_index_lists_its_children() -> None:
    doc = parse_sitemap(INDEX, "https://news.example.com/sitemap.xml")
    assert doc.kind is HubKind.SITEMAP_INDEX
    assert doc.items == []
    assert doc.sitemaps == [
        "https://news.example.com/sitemap-news.xml",
        "https://news.example.com/sitemap-2024-04.xml.gz",
    ]


def test_a_gzip_sitemap_is_read_and_sniffed() -> None:
    body = gzip.compress(NEWS_SITEMAP)
    assert sniff_kind(body) is HubKind.SITEMAP
    doc = parse_hub_document(body, "https://news.example.com/sitemap.xml.gz")
    assert len(doc.items) == 2


def test_a_gzip_bomb_is_refused() -> None:
    bomb = gzip.compress(b"<urlset>" + b" " * (60 * 1024 * 1024))
    doc = parse_sitemap(bomb, "https://news.example.com/s.xml.gz")
    assert doc.items == []
    assert "decompresses" in doc.problem


def test_broken_sitemap_xml_keeps_what_came_before_the_break() -> None:
    second = NEWS_SITEMAP.index(b"<url>", NEWS_SITEMAP.index(b"</url>"))
    cut = NEWS_SITEMAP[: second + 5] + b"<loc>unterminated"
    doc = parse_sitemap(cut, "https://news.example.com/s.xml")
    assert doc.problem.startswith("malformed sitemap")
    assert [item.url for item in doc.items] == [
        "https://news.example.com/business/2024/05/01/rates.html"
    ]


def test_entity_declarations_are_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
        b"<urlset><url><loc>http://x/&lol2;</loc></url></urlset>"
    )
    doc = parse_sitemap(laughs, "http://news.example.com/s.xml")
    assert doc.items == []
    assert "DTD" in doc.problem


def test_a_sitemap_stops_at_the_protocol_s_limit() -> None:
    entry = b"<url><loc>http://news.example.com/a%d.html</loc></url>"
    body = b"<urlset>" + b"".join(entry % i for i in range(MAX_SITEMAP_URLS + 10)) + b"</urlset>"
    doc = parse_sitemap(body, "http://news.example.com/s.xml")
    assert len(doc.items) == MAX_SITEMAP_URLS
    assert "50,000" in doc.problem


def test_w3c_dates() -> None:
    assert parse_w3c_date("2024") == datetime(2024, 1, 1, tzinfo=UTC)
    assert parse_w3c_date("2024-05-01T10:20:30.5+08:00") == datetime(
        2024, 5, 1, 2, 20, 30, tzinfo=UTC
    )
    assert parse_w3c_date("2024-05-01 10:20Z") == datetime(2024, 5, 1, 10, 20, tzinfo=UTC)
    assert parse_w3c_date("2024-13-01") is None
    assert parse_w3c_date("yesterday") is None
    cst = timezone(timedelta(hours=8))
    assert parse_w3c_date("2024-05-01T08:00+0800") == datetime(2024, 5, 1, 8, tzinfo=cst)
    west = parse_w3c_date("2024-12-31T23:30:00-05:30")  # crosses a year in UTC
    assert west == datetime(2025, 1, 1, 5, 0, tzinfo=UTC) and west.tzinfo is UTC
    assert parse_w3c_date("2024-05-01T08:00+99:00") is None  # no such offset: no date


def test_sniffing_by_content_and_type() -> None:
    assert sniff_kind(RSS) is HubKind.FEED
    assert sniff_kind(ATOM) is HubKind.FEED
    assert sniff_kind(INDEX) is HubKind.SITEMAP_INDEX
    assert sniff_kind(b"<!doctype html><html><head>") is HubKind.PAGE
    assert sniff_kind(b"{}", "application/rss+xml") is HubKind.FEED
    assert parse_hub_document(b"<html></html>", "http://x/").kind is HubKind.PAGE


def test_feeds_announced_in_a_page_head() -> None:
    html = """<html><head><title>t</title>
    <link rel="alternate" type="application/rss+xml" title="RSS" href="/rss/roll.xml">
    <LINK REL='alternate stylesheet' TYPE='application/atom+xml' HREF='https://x.example/a.atom'>
    <link rel="alternate" type="text/html" href="/m/">
    <link rel="stylesheet" href="/s.css">
    <link rel="alternate" type="application/rss+xml" href="javascript:void(0)">
    </head><body><link rel="alternate" type="application/rss+xml" href="/body.xml"></body></html>"""
    assert discover_feeds(html, "http://news.example.cn/index.html") == [
        "http://news.example.cn/rss/roll.xml",
        "https://x.example/a.atom",
    ]
    shouting = html.replace("</head>", "</HEAD>")
    assert discover_feeds(shouting, "http://news.example.cn/") == [
        "http://news.example.cn/rss/roll.xml",
        "https://x.example/a.atom",
    ]


def test_sitemap_lines_of_robots_txt() -> None:
    robots = [
        "User-agent: *",
        "Disallow: /private/",
        "Sitemap: https://news.example.com/sitemap.xml",
        "sitemap: /news-sitemap.xml # the news one",
        "Sitemap: https://news.example.com/sitemap.xml",
        "Sitemap: ftp://news.example.com/x.xml",
    ]
    assert sitemaps_from_robots(robots, "https://news.example.com/robots.txt") == [
        "https://news.example.com/sitemap.xml",
        "https://news.example.com/news-sitemap.xml",
    ]
