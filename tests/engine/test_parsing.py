"""Decoding and parsing a page, a feed and stored pages, alone (``engine/parsing.py``)."""

from __future__ import annotations

from crawler_gui.engine.fetch import FetchOutcome
from crawler_gui.engine.parsing import hub_items, links_of_records, parse_page
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.store import MAX_DETAIL_LINKS, PageRecord

BASE = "http://news.example.com"
PAGE = (
    '<html><head><meta charset="gb18030"><title>\u65b0\u95fb</title></head><body>'
    '<a href="/a.html">a</a> <a href="https://other.example.org/b.html">b</a>'
    "</body></html>"
).encode("gb18030")


def outcome(body: bytes, content_type: str = "text/html") -> FetchOutcome:
    return FetchOutcome(url=BASE + "/", final_url=BASE + "/", content_type=content_type, body=body)


def test_a_page_gives_its_title_encoding_and_links_in_scope_and_why_the_others_are_not() -> None:
    title, encoding, how, kept, others = parse_page(outcome(PAGE), Scope([BASE + "/"]), True)
    assert title == "\u65b0\u95fb" and encoding == "gb18030" and how
    assert kept == [BASE + "/a.html"]
    assert [(url, what) for url, what, _why in others] == [
        ("https://other.example.org/b.html", "off_scope")
    ]


def test_without_a_scope_no_link_is_kept_and_all_are_not_followed() -> None:
    _title, _encoding, _how, kept, others = parse_page(outcome(PAGE), None, True)
    assert kept == []
    assert [what for _url, what, why in others] == ["not_followed", "not_followed"]
    many = b"".join(b'<a href="/%d.html">x</a>' % i for i in range(MAX_DETAIL_LINKS + 50))
    assert len(parse_page(outcome(many), None, True)[4]) == MAX_DETAIL_LINKS
    assert parse_page(outcome(many), None, False)[4] == []


def test_a_feeds_items_outside_the_scope_are_left_out() -> None:
    feed = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Latest</title>'
        f"<item><link>{BASE}/story-1.html</link>"
        "<pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item>"
        "<item><link>https://other.example.org/story-2.html</link></item>"
        "</channel></rss>"
    ).encode()
    doc, items = hub_items(feed, BASE + "/feed.xml", "application/rss+xml", Scope([BASE + "/"]))
    assert doc.title == "Latest"
    assert [(url, published is not None) for url, published, _updated in items] == [
        (BASE + "/story-1.html", True)
    ]


def test_the_links_of_stored_pages_are_taken_from_their_bodies() -> None:
    def stored(url: str, body: bytes | None, depth: int) -> PageRecord:
        return PageRecord(
            url=url,
            final_url=url,
            status=200,
            fetched_at=0.0,
            content_type="text/html",
            encoding="",
            title="",
            depth=depth,
            size=len(body or b""),
            elapsed=0.0,
            referrer=None,
            redirect_chain=(),
            body=body,
        )

    records = iter(
        [
            stored(BASE + "/1.html", PAGE, 2),
            stored(BASE + "/2.html", None, 2),  # its body was not kept: nothing to take
            stored(BASE + "/3.html", b'<a href="/c.html">c</a>', 3),
            stored(BASE + "/4.html", b'<a href="/d.html">d</a>', 3),
        ]
    )
    scope = Scope([BASE + "/"])
    assert links_of_records(records, scope, 2) == [
        (BASE + "/1.html", 2, [BASE + "/a.html"]),
        (BASE + "/3.html", 3, [BASE + "/c.html"]),
    ]
    assert links_of_records(records, scope, 2) == [(BASE + "/4.html", 3, [BASE + "/d.html"])]
