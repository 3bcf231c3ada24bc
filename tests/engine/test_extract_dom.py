"""The one walk over a page (crawler_gui/engine/extract/dom.py) gives what a plain recursive
walk gives, on the demo's fixtures and on hand-made edge cases; and the small text helpers
give what their patterns give."""

from __future__ import annotations

import re

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from crawler_gui.demo.news_templates import (
    NewsArticle,
    english_article,
    english_list,
    js_only_page,
    portal_article,
    portal_list,
)
from crawler_gui.engine.extract.body import Anchors, cut_link_tail, is_link_line
from crawler_gui.engine.extract.dom import (
    BOILER,
    COMMENTS,
    FOOTER,
    HIDDEN,
    INLINE_TAGS,
    NAVIGATION,
    SKIP_TAGS,
    parse_page,
)
from crawler_gui.engine.extract.textutil import norm_key

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
_EDGES = [
    # Text straight in a block beside its child blocks; inline runs across elements.
    "<body><div>Before <b>bold</b>and after<p>A para <a href='/x'>with a link</a>.</p>tail"
    "<br>after a break<span> and a span</span></div></body>",
    # A link holding blocks; nested lists; a table; a line break first in a block.
    "<body><a href='/a'><div>Block in a link</div><p>and another</p></a><ul><li>One<ul>"
    "<li>Nested <i>item</i></li></ul>back in one</li></ul><table><tr><td>A</td><td><br>B"
    "</td></tr></table></body>",
    # Skipped elements inside text, whitespace only nodes, entities, a comment.
    "<body><p>Keep <script>var x = 'no';</script>this<style>p{}</style> &amp; that"
    "<!-- not text --> <select><option>no</option></select>end</p>   <p> </p>"
    "<ruby>漢<rt>kan</rt>字<rp>(</rp></ruby></body>",
    # A line that starts with a link (a teaser), one that ends with one.
    "<body><li><a href='/s'>A headline of a story</a> and its teaser text</li>"
    "<p>Text, then <a href='/l'>a link at the end</a></p></body>",
]


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
        *_EDGES,
    ]


def _plain_blocks(page: str) -> list[tuple[str, str, int]]:
    """(text, holding tag, link characters) of each text block, by a recursive walk that
    ends a line at every block element's start and end (and reads the page's navigation,
    footers and asides in one piece, a line each)."""
    tree = LexborHTMLParser(page)
    tree.strip_tags(["script", "style", "svg", "template", "select", "iframe"])
    out: list[tuple[str, str, int]] = []
    line: list[tuple[str, bool]] = []

    def flush(tag: str) -> None:
        raw = "".join(t for t, _ in line)
        n_all = sum(len(t) for t, _ in line if not t.isspace())
        n_link = sum(len(t) for t, linked in line if linked and not t.isspace())
        line.clear()
        text = "\n".join(y for y in (" ".join(x.split()) for x in raw.split("\n")) if y)
        if text:
            chars = len(text)
            out.append((text, tag, min(chars, round(n_link * chars / n_all)) if n_all else 0))

    def walk(node: LexborNode, tag: str, in_link: bool, in_article: bool) -> None:
        for child in node.iter(include_text=True):
            ct = child.tag
            if ct == "-text":
                line.append((child.text_content or "", in_link))
            elif ct is None or ct.startswith(("-", "_", "!")) or ct in SKIP_TAGS:
                continue
            elif ct in ("br", "hr"):
                line.append(("\n", in_link))
            elif ct in ("nav", "footer", "aside", "menu") and not in_article:
                # The page's parts: read in one piece, a line each (their links' share
                # spread over their lines).
                flush(tag)
                raw = child.text(deep=True, separator="\n") or ""
                lines = [y for y in (" ".join(x.split()) for x in raw.split("\n")) if y]
                chars = sum(map(len, lines))
                linked = sum(len(" ".join((a.text() or "").split())) for a in child.css("a"))
                share = min(1.0, linked / chars) if chars else 0.0
                out.extend((x, ct, round(len(x) * share)) for x in lines)
            elif ct in INLINE_TAGS:
                walk(child, tag, in_link or ct == "a", in_article)
            else:
                flush(tag)
                walk(child, ct, in_link or ct == "a", in_article or ct == "article")
                flush(ct)

    body = tree.body
    assert body is not None
    walk(body, "body", False, False)
    flush("body")
    return out


@pytest.mark.parametrize("index", range(len(_pages())))
def test_the_walk_finds_the_blocks_a_plain_recursive_walk_finds(index: int) -> None:
    page = _pages()[index]
    dom = parse_page(page)
    assert dom is not None
    assert [(b.text, b.tag, b.link_chars) for b in dom.blocks] == _plain_blocks(page)
    # Every element is numbered after its parent (the extractor's rules rely on it).
    assert all(p < i for i, p in enumerate(dom.parents) if i)


def test_edge_cases_read_as_a_reader_sees_them() -> None:
    texts = [[b.text for b in d.blocks] for d in map(parse_page, _EDGES) if d is not None]
    assert texts[0] == [
        "Before boldand after",
        "A para with a link.",
        "tail\nafter a break and a span",
    ]
    assert texts[1] == [
        "Block in a link",
        "and another",
        "One",
        "Nested item",
        "back in one",
        "A",
        "B",
    ]
    assert texts[2] == ["Keep this & that end", "漢字"]
    teaser, trailing = parse_page(_EDGES[3]).blocks  # type: ignore[union-attr]
    assert teaser.lead_link == len("A headline of a story") and trailing.lead_link == 0


def test_a_page_ten_thousand_elements_deep_is_walked() -> None:
    depth = 10_000
    dom = parse_page("<body>" + "<div>" * depth + "deep text" + "</div>" * depth + "</body>")
    assert dom is not None
    assert [b.text for b in dom.blocks] == ["deep text"]
    assert len(dom.tags) == depth + 1


def test_names_and_tags_say_what_a_block_is() -> None:
    page = (
        "<body><nav><a href='/'>Home</a></nav><div class='share-bar'>Share</div>"
        "<div class='entry-content has-comments'>Story</div><div id='comments'>Nice</div>"
        "<div class='hidden'>Hidden</div><div class='hidden-xs'>Shown on big screens</div>"
        "<article><footer>Posted on 5 March 2024</footer></article><footer>Site footer</footer>"
        "<div class='post tag-share category-comments'>Filed under words only</div>"
        "<ps-newsletter-module>Sign up</ps-newsletter-module></body>"
    )
    dom = parse_page(page)
    assert dom is not None
    flags = {b.text: dom.within[b.el] for b in dom.blocks}
    assert flags["Home"] & NAVIGATION
    assert flags["Share"] & BOILER
    assert not flags["Story"] & (BOILER | COMMENTS)  # "has-comments" is a state
    assert flags["Nice"] & COMMENTS
    assert flags["Hidden"] & HIDDEN and not flags["Shown on big screens"] & HIDDEN
    assert not flags["Posted on 5 March 2024"] & FOOTER  # the article's own footer
    assert flags["Site footer"] & FOOTER
    assert not flags["Filed under words only"] & (BOILER | COMMENTS)  # its category's name
    assert flags["Sign up"] & BOILER  # a custom element's own name


def _link_line_by_all(line: str, keys: set[str]) -> bool:
    key = norm_key(line.lstrip("-•* "))
    return bool(key) and any(k == key or (k in key and len(key) <= 1.5 * len(k)) for k in keys)


def test_link_lines_are_told_as_by_comparing_every_link() -> None:
    yes = no = 0
    for page in _pages():
        dom = parse_page(page)
        assert dom is not None
        keys = {norm_key(t) for t in dom.link_texts}
        keys = {k for k in keys if len(k) >= 8}
        anchors = Anchors(keys)
        lines = [b.text for b in dom.blocks]
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


def test_units_norm_key_and_cjk_share_are_as_with_the_patterns() -> None:
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
        "中文and English混合，text。 x中y 3月5日 COVID-19疫情",
        "ひらがな、カタカナ・漢字 mixed with café",
        "emoji 🙂 beyond the BMP",
        "",
        "   ",
        "\u2fff\u3000\u303f\u3040",
        "a!b\"c#d$e%f&g'h(i)j*k+l,m-n.o/p:q;r<s=t>u?v@w[x\\y]z^_`{|}~0",
        "0\x00\x1f1\x7f2 \t\n\x0b\x0c\r3",
        "__ _ 9_9 -_-",
        "\u2019\u2018\u201c\u201d\u2014\u2013\u2026\xa0\u00b7\u2022",
        "don\u2019t\u2014won\u2019t\u2026 \u201cquoted\u201d\xa0\u2022 item\u00b7dot",
        "Ça va\u2014d\u2019accord, \u00bd and \u00b2 and \u2163 count as words",
        "The \u201cHeadline\u201d \u2014 Mayor\u2019s PLAN_B\u2026 In 2024",
        "Москва\u2014столица: \u201cтекст\u201d",
        "\u00a0\u2007\u202f\u2028 other wide spaces \u00ab guillemets \u00bb \u00a9 2024",
    ]
    for page in _pages():
        dom = parse_page(page)
        assert dom is not None
        samples += [b.text for b in dom.blocks] + dom.link_texts
    fast = 0
    assert all(not re.match(r"\w", ch) for ch in textutil._WIDE_PUNCT)
    for text in samples:
        assert textutil.units(text) == len(unit.findall(text)), text
        assert textutil.norm_key(text) == re.sub(r"[\W_]+", "", text).lower(), text
        assert textutil.cjk_share(text) == share(text), text
        fast += textutil.no_cjk(text)
    assert 5 < fast < len(samples)
