"""The extraction's fast paths give what the slower way they replace gives, on the fixtures:
each test compares a fast path with the plain version of the same step (trafilatura's loader,
a walk over every element, every link compared with every line)."""

from __future__ import annotations

from typing import Any

import pytest
from lxml import etree
from trafilatura.utils import load_html

from crawler_gui.demo.news_templates import (
    NewsArticle,
    english_article,
    english_list,
    js_only_page,
    portal_article,
    portal_list,
)
from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.extract import extract_page
from crawler_gui.engine.extract.body import (
    Anchors,
    PageWalk,
    cut_link_tail,
    is_link_line,
    main_container,
    paragraph_lines,
    parse_html,
)
from crawler_gui.engine.extract.headline import element_showing, find_headline, shown_elements
from crawler_gui.engine.extract.textutil import element_text, norm_key, string_value

_CN = NewsArticle(
    title="智能公交站台投入使用 市民可实时查询“到站时间”",
    printed_time="2019年09月05日 11:10",
    paragraphs=[
        "9月5日，记者从市交通运输局获悉，全市首批智能公交站台已在主城区投入使用，市民可以实时查询。",
        "据介绍，新站台配备了太阳能供电系统和夜间照明设备，同时增加了无障碍通道，方便老年人出行。",
    ],
    authors=["张三"],
    source="河畔日报",
    site="河畔新闻网",
    related=[(f"相关新闻标题第{i}条关于城市交通建设的报道", f"/news/r{i}.html") for i in range(8)],
    comments=["这个好，终于不用在站台干等了，希望尽快推广到郊区。"],
    gallery=2,
)
_EN = NewsArticle(
    title="Council backs riverside park expansion after two-year fight",
    printed_time="March 5, 2024",
    iso_time="2024-03-05T09:30:00-05:00",
    paragraphs=[
        "The city council voted on Tuesday to expand the riverside park, ending a long dispute.",
        "Supporters said the plan would add twelve acres of green space and a new footbridge.",
    ],
    authors=["Jane Roe"],
    site="Harbor Daily",
    related=[(f"Related story number {i} about the city budget", f"/news/r{i}") for i in range(6)],
    comments=["Great news for the neighbourhood, finally some green space."],
)


def _pages() -> list[str]:
    return [
        portal_article(_CN),
        portal_article(_CN, charset="gbk"),
        portal_article(_CN, amp=True),
        portal_list(
            "河畔新闻网",
            "国内",
            [(f"第{i}条新闻标题关于城市建设", f"/n/{i}.html", "2019-09-05") for i in range(12)],
        ),
        english_article(_EN),
        english_list(
            "Harbor Daily",
            "World",
            [(f"Story {i} about the harbor", f"/world/s{i}", "A teaser.") for i in range(10)],
        ),
        js_only_page("App"),
    ]


def _variants(page: str) -> list[str]:
    """The page as served, and with what trafilatura's loader repairs before parsing."""
    xhtml = (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">'
    )
    return [
        page,
        "<!DOCTYPE html>\n" + page,
        xhtml + "\n" + page,
        xhtml + page,  # the doctype and the page on one line
        page.replace("<body", "\x0b<body\x01", 1).replace("</p>", "\ufffe</p>", 1),
        page.replace("</p>", "\uffff</p>", 1),
        page.replace("<html", "<html/>\n<html", 1),
        "  \n" + page,
        "<div><p>A fragment, not a page.</p></div>",
        "plain text, not HTML at all",
    ]


def _dump(tree: Any) -> bytes | None:
    return None if tree is None else etree.tostring(tree)


@pytest.mark.parametrize("index", range(7))
def test_parse_html_builds_the_tree_trafilaturas_loader_builds(index: int) -> None:
    for text in _variants(_pages()[index]):
        assert _dump(parse_html(text)) == _dump(load_html(text)), text[:80]


def test_parse_html_makes_one_element_class_and_trafilatura_reads_its_tree_alike() -> None:
    """Our parse makes every element a plain ``HtmlElement`` (no per-element Python lookup:
    lxml.html's would make the pages' ``<form>`` and ``<input>`` special classes), and
    trafilatura reads that tree as it reads its loader's: the same text, on the page and on
    a container in a document of its own (how the extractor hands it a part of the page)."""
    from lxml import html
    from trafilatura import extract

    from crawler_gui.engine.extract.body import trafilatura_lines

    forms = 0
    for page in _pages():
        ours, theirs = parse_html(page), load_html(page)
        forms += len(theirs.findall(".//form"))
        assert {type(el) for el in ours.iter() if isinstance(el.tag, str)} == {html.HtmlElement}
        for fast in (True, False):
            assert extract(ours, fast=fast) == extract(theirs, fast=fast)
        body = ours.find(".//body")
        scope = body[len(body) // 2] if body is not None and len(body) else None
        if scope is not None and scope.find(".//p") is not None:
            url = "https://news.example/a.html"
            ref = load_html(page).find(".//body")[len(body) // 2]
            assert trafilatura_lines(ours, url, "", fast=True, scope=scope) == trafilatura_lines(
                load_html(page), url, "", fast=True, scope=ref
            )
    assert forms >= 2  # the pages have forms to tell the classes apart


def _showing_by_walk(tree: Any, headline: str) -> Any:
    """element_showing as a walk over every candidate element (the plain way)."""
    key = norm_key(headline)
    body = tree.find(".//body")
    if not key or body is None:
        return None
    for el in body.iter("h1", "h2", "h3", "div", "span", "p", "strong", "td"):
        text = el.text_content() if len(el) < 4 else ""
        if text and len(text) < len(headline) * 2 + 20 and norm_key(text) == key:
            return el
    return None


def test_element_showing_finds_the_element_a_walk_finds() -> None:
    tried = found = 0
    for page in _pages():
        tree = parse_html(page)
        # Every element's text is tried as a headline (and a text no element shows).
        texts = {element_text(el) for el in tree.iter() if isinstance(el.tag, str)}
        # One search for the longest text serves every shorter one (find_headline's pieces).
        shown = shown_elements(tree, max(len(t) for t in texts) * 2 + 20)
        for text in [*sorted(texts), "no element shows this text"]:
            tried += 1
            expected = _showing_by_walk(tree, text)
            assert element_showing(tree, text) is expected, text
            assert element_showing(tree, text, shown) is expected, text
            found += expected is not None
    assert found > 20 and tried > found  # both outcomes were compared


def _link_line_by_all(line: str, anchors: set[str]) -> bool:
    """is_link_line comparing the line with every link (the plain way)."""
    key = norm_key(line.lstrip("-•* "))
    return bool(key) and (
        key in anchors or any(k in key for k in anchors if len(key) <= 1.5 * len(k))
    )


def test_link_lines_are_told_as_by_comparing_every_link() -> None:
    yes = no = 0
    for page in _pages():
        tree = parse_html(page)
        keys = {norm_key(t) for t in PageWalk(tree).link_texts}
        keys = {k for k in keys if len(k) >= 8}
        anchors = Anchors(keys)
        lines = [element_text(el) for el in tree.iter() if isinstance(el.tag, str)]
        # Link texts inside longer lines, and lines with a list marker, too.
        lines += [f"- {t} more words around it" for t in list(keys)[:5]] + ["- x", ""]
        for line in lines:
            expected = _link_line_by_all(line, keys)
            assert is_link_line(line, anchors) is expected, line
            yes += expected
            no += not expected
        # A closing run of list items that start with links' texts is cut off.
        story = "A sentence of the story itself, which no link on the page shows."
        if len(keys) >= 3:
            tail = [story, *[f"- {k} and a teaser after it" for k in sorted(keys)[:4]]]
            assert cut_link_tail(tail, anchors) == [story]
    assert yes > 10 and no > 10


def test_visible_text_is_the_text_outside_scripts_styles_and_noscript() -> None:
    full = etree.XPath(
        "//body//text()[not(ancestor::script) and not(ancestor::style)"
        " and not(ancestor::noscript)]",
        smart_strings=False,
    )
    extra = (
        "<script>var headline = 'not text';</script><style>p { color: red }</style>"
        '<div><script type=\'application/ld+json\'>{"a": "not text"}</script>Kept text</div>'
    )
    compared = 0
    for page in _pages():
        for variant in (
            page,
            page.replace("</body>", extra + "</body>", 1),
            page.replace("</body>", "<noscript><p>Please enable scripts</p></noscript></body>"),
            page.replace(
                "</body>",
                "<noscript><div><p>Please <b>enable</b> scripts</p><style>p{}</style></div>"
                "</noscript>" + extra + "</body>",
            ),
        ):
            tree = parse_html(variant)
            expected = " ".join(t for t in full(tree) if t.strip())
            assert PageWalk(tree).visible == expected
            assert "not text" not in expected and "enable scripts" not in expected
            compared += 1
    assert compared == 28


def test_units_norm_key_and_cjk_share_are_as_with_the_patterns() -> None:
    import re

    from crawler_gui.engine.extract import textutil

    cjk = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
    unit = re.compile(f"[{cjk}]|[^\\W{cjk}]+")

    def share(text: str) -> float:
        letters = len(re.sub(r"\s+", "", text))
        return len(re.findall(f"[{cjk}]", text)) / letters if letters else 0.0

    samples = [
        "plain ASCII words, snake_case and 3.14",
        "“Curly” quotes — dashes, non\u00a0breaking spaces, café, naïve, Zürich",
        "ideographic\u3000space and 「brackets」〔U+3014〕 are not CJK characters",
        "ひらがな and カタカナ",
        "한국어 문장",
        "㐀 extension A, 豈 compatibility",
        "中文，标点。",
        "emoji 🙂 beyond the BMP",
        "",
        "   ",
        "\u2fff\u3000\u303f\u3040",
        # ASCII punctuation of every kind between words, and control characters.
        "a!b\"c#d$e%f&g'h(i)j*k+l,m-n.o/p:q;r<s=t>u?v@w[x\\y]z^_`{|}~0",
        "0\x00\x1f1\x7f2 \t\n\x0b\x0c\r3",
        "__ _ 9_9 -_-",
        # Wide punctuation only, between words, and beside letters and digits beyond ASCII.
        "\u2019\u2018\u201c\u201d\u2014\u2013\u2026\xa0\u00b7\u2022",
        "don\u2019t\u2014won\u2019t\u2026 \u201cquoted\u201d\xa0\u2022 item\u00b7dot",
        "Ça va\u2014d\u2019accord, \u00bd and \u00b2 and \u2163 count as words",
        "The \u201cHeadline\u201d \u2014 Mayor\u2019s PLAN_B\u2026 In 2024",
        "Москва\u2014столица: \u201cтекст\u201d",
        "\u00a0\u2007\u202f\u2028 other wide spaces \u00ab guillemets \u00bb \u00a9 2024",
    ]
    for page in _pages():
        tree = parse_html(page)
        walk = PageWalk(tree)
        samples += [walk.visible, *walk.link_texts]
    fast = 0
    assert all(not re.match(r"\w", ch) for ch in textutil._WIDE_PUNCT)
    for text in samples:
        assert textutil.units(text) == len(unit.findall(text)), text
        assert textutil.norm_key(text) == re.sub(r"[\W_]+", "", text).lower(), text
        assert textutil.cjk_share(text) == share(text), text
        fast += textutil.no_cjk(text)
    assert 5 < fast < len(samples)


def test_element_text_is_the_text_itertext_joins() -> None:
    """element_text reads an element's text with one XPath ``string()`` call: the same text
    as joining its ``itertext()`` (the plain way), also around comments, entities, inline
    markup, scripts inside the element and text after its children. string_value is the
    text ``text_content()`` gives, without its method."""
    extra = (
        "<div id='x'>A<!-- a comment -->B &amp; C<b>bold <i>both</i></b> tail"
        "<script>var s = 1;</script> after <br/>the break<?pi x?> end</div>"
    )
    compared = 0
    for page in _pages():
        for variant in (page, page.replace("</body>", extra + "</body>", 1)):
            tree = parse_html(variant)
            for el in tree.iter():
                if isinstance(el.tag, str):
                    assert element_text(el) == " ".join("".join(el.itertext()).split())
                    assert string_value(el) == el.text_content()
                    compared += 1
    div = parse_html("<html><body>" + extra + "</body></html>").find(".//div")
    assert element_text(div) == "AB & Cbold both tailvar s = 1; after the break end"
    assert compared > 500


def test_paragraphs_and_container_with_what_is_known_of_ancestors_are_as_without() -> None:
    """paragraph_lines and main_container told once per ancestor whether it is outside the
    article (navigation, footers, asides, links, comment blocks) find what they find asking
    every paragraph's ancestors anew (the plain way)."""
    story = "".join(
        f"<p>Sentence {i} of the story, which is long enough to count as one of its paragraphs.</p>"
        for i in range(6)
    )
    outside = (
        "<div class='Comment-List'><p>A reader wrote a long comment here, which is not "
        "part of the story at all.</p></div>"
        "<nav><ul><li>A menu item that is long enough to count</li></ul></nav>"
        "<aside><p>A sidebar sentence of some length, not the story either.</p></aside>"
        "<footer><h3>About the site and its many sections</h3></footer>"
    )
    compared = found = 0
    pages = [
        *_pages(),
        f"<html><body><div id='main'><article>{story}</article>{outside}</div></body></html>",
    ]
    for page in pages:
        for variant in (page, page.replace("</body>", outside + "</body>", 1)):
            tree = parse_html(variant)
            plain = paragraph_lines(tree)
            known: dict[Any, bool] = {}
            assert paragraph_lines(tree, known) == plain
            walk = PageWalk(tree)
            expected = main_container(tree, plain, walk.link_chars)
            assert main_container(tree, plain, walk.link_chars, known) is expected
            assert main_container(tree, plain, walk.link_chars, walk.outside) is expected
            compared += 1
            found += expected is not None
    assert found >= 2 and compared == 16
    tree = parse_html(pages[-1])
    texts = [t for _p, t in paragraph_lines(tree, {})]
    assert len(texts) == 6 and not any("comment" in t or "sidebar" in t for t in texts)


def test_the_headlines_search_serves_finding_the_element_that_shows_it() -> None:
    """When no <h1> names the headline, the elements looked at for the <title>'s pieces
    serve finding the element that shows the headline taken from og:title: the element
    found among them is the one a search of its own finds."""
    headline = "Council backs riverside park expansion plan"
    text = "".join(
        f"<p>Sentence {i} of the story, which is long enough to count as one of its paragraphs.</p>"
        for i in range(8)
    )
    page = (
        "<html><head><title>Harbor Daily | Local news and more from the harbor town</title>"
        f"<meta property='og:title' content='{headline}'></head><body>"
        "<div class='top'><span>Menu</span></div>"
        f"<div class='headline'>{headline}</div>"
        "<div class='meta'>Published 2024-03-05 09:30</div>"
        f"<div class='story'>{text}</div></body></html>"
    )
    tree = parse_html(page)
    title = element_text(tree.find(".//title"))
    searched: dict[str, Any] = {}
    found, src, el = find_headline(tree, {"og:title": headline}, [], title, [], searched)
    assert (found, src, el) == (headline, "og:title", None)
    longest, shown = searched["shown"]
    assert len(headline) <= longest
    div = element_showing(tree, headline)
    assert div is not None and div.get("class") == "headline"
    assert element_showing(tree, headline, shown) is div
    # extract_page takes that element, and the dateline after it.
    e = extract_page(page.encode(), "https://harbor.example/news/2024/03/05/park")
    assert e.article is not None and e.article.published == "2024-03-05T09:30:00"
    assert "headline from og:title (shown on the page)" in e.why


def test_htmldate_on_the_parsed_tree_finds_the_date_it_finds_in_the_page() -> None:
    """htmldate handed the tree we parsed (no decoding and parsing anew) finds the date it
    finds in the page's bytes, and leaves the tree as it was (later passes read it)."""
    from dataclasses import replace

    from crawler_gui.engine.extract.markup import htmldate_stamp

    undated = replace(_EN, iso_time=None)
    pages = [
        *_pages(),
        english_article(undated),
        english_article(undated).replace(
            "<head>", '<head><meta name="date" content="2024-03-05">', 1
        ),
        portal_article(replace(_CN, printed_time="2019-09-05 11:10"), charset="gbk"),
    ]
    found = 0
    for page in pages:
        body = page.encode("gbk" if "charset=gbk" in page.lower() else "utf-8")
        tree = parse_html(decode_body(body, None)[0])
        before = etree.tostring(tree)
        from_tree = htmldate_stamp(tree, "https://news.example/2024/03/05/story.html")
        assert from_tree == htmldate_stamp(body, "https://news.example/2024/03/05/story.html")
        assert etree.tostring(tree) == before
        found += from_tree is not None
    assert found >= 3
