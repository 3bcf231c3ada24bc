"""extract_links: absolute links in document order, base href, areas, entities, schemes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawler_gui.core.urls import canonicalize, join
from crawler_gui.engine.links import extract_links

PAGE = "https://news.example.com/world/asia/index.html"


def test_relative_root_and_protocol_relative_links_made_absolute() -> None:
    html = """<html><body>
      <a href="story.html">a</a>
      <a href="/sport/">b</a>
      <a href="//cdn.example.net/x.html">c</a>
      <a href="../europe/">d</a>
      <a href="./local?x=1">e</a>
      <a href="?page=2">f</a>
      <a href="https://other.org/abs">g</a>
    </body></html>"""
    links, _ = extract_links(html, PAGE)
    assert links == [
        "https://news.example.com/world/asia/story.html",
        "https://news.example.com/sport/",
        "https://cdn.example.net/x.html",
        "https://news.example.com/world/europe/",
        "https://news.example.com/world/asia/local?x=1",
        "https://news.example.com/world/asia/index.html?page=2",
        "https://other.org/abs",
    ]


def test_base_href_first_one_resolved_against_page() -> None:
    html = """<html><head><base href="/archive/2024/"><base href="http://wrong.example/">
      </head><body><a href="item.html">x</a><a href="/root">y</a></body></html>"""
    links, _ = extract_links(html, PAGE)
    assert links == [
        "https://news.example.com/archive/2024/item.html",
        "https://news.example.com/root",
    ]


def test_base_href_with_non_http_scheme_ignored() -> None:
    html = '<base href="javascript:alert(1)"><a href="a.html">x</a>'
    links, _ = extract_links(html, PAGE)
    assert links == ["https://news.example.com/world/asia/a.html"]


def test_area_href_and_entities_decoded() -> None:
    html = """<map><area href="/map/region?a=1&amp;b=2" alt=r></map>
      <a href="/q?x=1&amp;y=caf&#233;">x</a>"""
    links, _ = extract_links(html, PAGE)
    assert links == [
        "https://news.example.com/map/region?a=1&b=2",
        "https://news.example.com/q?x=1&y=café",
    ]


def test_non_http_schemes_ignored() -> None:
    html = """
      <a href="javascript:void(0)">1</a><a href=" JavaScript:go()">2</a>
      <a href="mailto:desk@example.com">3</a><a href="data:text/html,hi">4</a>
      <a href="tel:+123">5</a><a href="ftp://files.example.com/x">6</a>
      <a href="about:blank">7</a><a href="file:///etc/passwd">8</a>
      <a href="sms:123">9</a><a href="/kept">10</a>"""
    links, _ = extract_links(html, PAGE)
    assert links == ["https://news.example.com/kept"]


def test_fragment_only_links_dropped_and_fragments_cut() -> None:
    html = """<a href="#top">top</a><a href="#">x</a>
      <a href="/page#section">s</a><a href="/page#other">o</a>
      <a href="https://other.org/p#f">f</a>"""
    links, _ = extract_links(html, PAGE)
    assert links == ["https://news.example.com/page", "https://other.org/p"]


def test_whitespace_around_and_inside_hrefs() -> None:
    html = '<a href="  /spaced  ">a</a><a href="\n/multi\nline\t">b</a><a href="   ">c</a>'
    links, _ = extract_links(html, PAGE)
    assert links == ["https://news.example.com/spaced", "https://news.example.com/multiline"]


def test_duplicates_removed_document_order_kept() -> None:
    html = '<a href="/b">1</a><a href="/a">2</a><a href="/b">3</a><a href="https://news.example.com/a">'
    links, _ = extract_links(html, PAGE)
    assert links == ["https://news.example.com/b", "https://news.example.com/a"]


def test_anchors_without_href_and_empty_href_ignored() -> None:
    links, _ = extract_links('<a name="x">n</a><a href="">e</a><link href="/style.css">', PAGE)
    assert links == []


def test_title_stripped_and_whitespace_collapsed() -> None:
    _, title = extract_links("<title>\n  Breaking:\t big   news &amp; more \n</title>", PAGE)
    assert title == "Breaking: big news & more"
    assert extract_links("<html><body>no title</body></html>", PAGE)[1] == ""


def test_fast_paths_agree_with_the_standard_join() -> None:
    """The fast string joins give the pool the same keys as the WHATWG join."""
    hrefs = [
        "a",
        "a/b",
        "a?q=1",
        "/x",
        "/x/../y",
        "//h.example/p",
        "https://h.example/z",
        "HTTPS://H.example/Up",
        "./dot",
        "../up",
        "?only=query",
        "x:y",
        "a:b/c",
        "/./z",
        "/a%20b",
        "/ü",
        "b\\c",
        "/q?u=http://x",
        "http://h.example/a/./b",
    ]
    html = "".join(f'<a href="{h}">x</a>' for h in hrefs)
    for page in (PAGE, "http://h.example", "http://h.example:8080/dir/"):
        links, _ = extract_links(html, page)
        expected: list[str] = []
        for h in hrefs:
            url = (join(page, h) or "").split("#", 1)[0]
            if url.startswith(("http://", "https://")) and url not in expected:
                expected.append(url)
        assert [canonicalize(u)[0] for u in links] == [canonicalize(u)[0] for u in expected]


def test_large_page_many_links() -> None:
    html = "<html><body>" + "".join(f'<a href="/n/{i}">{i}</a>' for i in range(5000)) + "</body>"
    links, _ = extract_links(html, PAGE)
    assert len(links) == 5000
    assert links[0] == "https://news.example.com/n/0"
    assert links[-1] == "https://news.example.com/n/4999"


@pytest.mark.parametrize(
    "base",
    [
        "http://example.com/",
        "https://example.com/a/b/c.html",
        "https://example.com/a/b/?q=/x/y#f/g",
        "http://example.com:8080/dir/",
        "http://user:pw@example.com/p/q",
        "http://[::1]:81/a/b",
        "https://example.com/a?b/c",
        "https://example.com/#x/y",
        "http://example.com",  # (no path: the split)
        "http://example.com?x=/y",  # (a query before any path: the split)
        "HTTP://Example.com/A/b",  # (not as the standard writes it: the split)
        "ftp://example.com/a/",
        "http:///nohost",
        "http://ex ample.com/a/",
    ],
)
def test_the_base_cut_by_hand_agrees_with_urlsplit(base: str) -> None:
    from crawler_gui.engine.links import _origin_and_dir, _origin_and_dir_split

    assert _origin_and_dir(base) == _origin_and_dir_split(base)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http://", "https://", "HTTP://", "ftp://"]),
    st.text(alphabet="ab.:@[]1", min_size=0, max_size=12),
    st.text(alphabet="ab/?#.%\\ \t", min_size=0, max_size=16),
)
def test_the_base_cut_agrees_on_any_url(scheme: str, authority: str, rest: str) -> None:
    from crawler_gui.engine.links import _origin_and_dir, _origin_and_dir_split

    base = scheme + authority + rest
    assert _origin_and_dir(base) == _origin_and_dir_split(base)
