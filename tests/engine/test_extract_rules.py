"""One small real-shaped page per extraction rule (content.py, body.py, extractor.py): each
test fails without its rule."""

from __future__ import annotations

from crawler_gui.engine.extract import extract_page
from crawler_gui.engine.extract.content import MainText, main_text
from crawler_gui.engine.extract.dom import parse_page

_SENTENCES = [
    "The regional water board approved a new rate plan on Monday after months of public hearings"
    " in three towns.",
    "Households will pay about four dollars more a month under the plan, the board said in a"
    " statement on its website.",
    "Farmers had asked for a longer transition, arguing that the change came at a bad time for"
    " growers across the valley.",
    "The board agreed to phase in the increase for agricultural users over three years, starting"
    " with the next billing cycle.",
    "A final vote on the budget that depends on the new rates is expected next month, the"
    " board's chair told reporters.",
]


def _page(article: str, *, sidebar_paragraphs: int = 0) -> str:
    """A news page: menu, the article, a sidebar of linked headlines (with teasers), footer."""
    menu = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    side = "".join(
        f'<li><a href="/news/story-{i}">Another regional story number {i} in the news</a></li>'
        for i in range(10)
    )
    teasers = "".join(
        f"<p>Teaser {i}: the town council met again on Tuesday evening, and once more nothing"
        " was decided about the bridge.</p>"
        for i in range(sidebar_paragraphs)
    )
    return (
        "<html><head><title>Water board approves new rates | Valley News</title></head><body>"
        f'<header><nav><ul>{menu}</ul></nav></header><div class="page"><div class="main">'
        f'<div class="story" id="story"><h1>Water board approves new rates</h1>{article}</div>'
        f'</div><div class="rail"><h3>Most read</h3><ul>{side}</ul>{teasers}</div></div>'
        "<footer><p>Valley News, 1 Main Street. Call us any day of the week, we listen.</p>"
        "</footer></body></html>"
    )


def _article_body() -> str:
    return (
        f'<div class="text"><p>{_SENTENCES[0]}</p><p>{_SENTENCES[1]}</p>'
        f"<p>{_SENTENCES[2]}</p><p>{_SENTENCES[3]}</p><p>{_SENTENCES[4]}</p></div>"
        "<h2>What changes for customers</h2>"
        "<ul><li>Monthly base charge rises to eleven dollars</li>"
        "<li>Discounts for low-income households stay in place</li></ul>"
    )


def _main(page: str) -> MainText:
    dom = parse_page(page)
    assert dom is not None
    return main_text(dom)


def test_the_article_container_holds_the_paragraphs_headings_and_lists() -> None:
    page = _page(_article_body())
    dom = parse_page(page)
    assert dom is not None
    found = main_text(dom)
    # Not the inner paragraph block: the heading and the list beside it belong to the
    # article; the rail and the menu are left out.
    assert dom.names[found.container] in ("story story", "main")
    assert found.lines[1:6] == _SENTENCES  # (after the headline: extract_page drops it)
    assert "What changes for customers" in found.lines
    assert "- Discounts for low-income households stay in place" in found.lines
    assert not any("Another regional story" in x or "Section" in x for x in found.lines)


def test_the_text_keeps_heading_and_list() -> None:
    e = extract_page(
        _page(_article_body()).encode(), "https://valley.example/news/2024/water-rates"
    )
    assert e.kind == "article" and e.article is not None
    text = e.article.text
    assert _SENTENCES[0] in text and _SENTENCES[4] in text
    assert "What changes for customers" in text
    assert "Discounts for low-income households stay in place" in text
    assert "Another regional story" not in text and "Section 3" not in text


def test_a_page_with_one_paragraph_has_content_but_is_not_an_article() -> None:
    e = extract_page(_page(f"<p>{_SENTENCES[0]}</p>").encode(), "https://valley.example/news/")
    assert e.kind != "article", e.why
    assert e.article is None  # 17 words: not readable main text


def test_teasers_in_the_rail_are_not_the_article_text() -> None:
    # As many sentence-like paragraphs in the rail as in the story: the story's block is the
    # one with the prose and without the rail's links.
    found = _main(_page(_article_body(), sidebar_paragraphs=6))
    assert found.lines[1:6] == _SENTENCES  # (after the headline: extract_page drops it)
    assert not any(x.startswith("Teaser") for x in found.lines)


def test_a_list_of_other_stories_with_teasers_does_not_take_the_container() -> None:
    # Below a short story, a longer feed of other stories: each a headline link and a
    # teaser of prose. Their teasers are not prose of the page.
    feed = "".join(
        f'<article class="card"><h2><a href="/news/other-{i}">The council delays the bridge'
        f" vote again, part {i}</a></h2><p>Teaser {i}: the council met again on Tuesday"
        " evening and, once more, nothing was decided about the old bridge.</p></article>"
        for i in range(12)
    )
    page = (
        "<html><body><main><article><h1>Water board approves new rates</h1>"
        f"{''.join(f'<p>{s}</p>' for s in _SENTENCES[:3])}</article>"
        f'<section class="feed">{feed}</section></main></body></html>'
    )
    found = _main(page)
    assert found.lines == ["Water board approves new rates", *_SENTENCES[:3]]


def _blog_page(h1: str, title: str) -> bytes:
    """A small WordPress-style page: a dated post with a short body and a comment form."""
    paras = "".join(f"<p>{s}</p>" for s in _SENTENCES[:4])
    return (
        f"<html><head><title>{title}</title></head><body>"
        '<div class="site"><h3 class="widget-title">Shopping cart</h3>'
        f'<article class="post"><h1 class="entry-title">{h1}</h1>'
        '<time class="entry-date" datetime="2019-07-01T10:00:00+00:00">July 1, 2019</time>'
        f'<div class="entry-content">{paras}</div></article>'
        '<div id="respond"><h3 class="comment-reply-title">Leave a Reply</h3>'
        '<form><textarea name="comment"></textarea></form></div></div></body></html>'
    ).encode()


def test_a_short_h1_that_is_the_title_before_the_site_name_is_the_headline() -> None:
    page = _blog_page("About bugs", "About bugs – Valley Games Studio")
    e = extract_page(page, "https://games.example/2019/07/about-bugs.html")
    assert e.kind == "article" and e.article is not None
    assert e.article.title == "About bugs"
    assert "headline from h1" in e.why


def test_a_hyphenated_slug_ending_in_a_slash_is_not_an_index() -> None:
    page = _blog_page("How we handle bug reports", "How we handle bug reports – Valley Games")
    e = extract_page(page, "https://games.example/bug-reports/")
    assert e.kind == "article", e.why
    assert "index-like URL" not in e.why
    # A section's index is still one.
    e = extract_page(page, "https://games.example/news/")
    assert "index-like URL" in e.why


def test_promotion_links_inside_the_article_are_left_out() -> None:
    # trafilatura's precision setting on the container: a linked promotion line and a linked
    # heading between the paragraphs are not the article's text.
    body = (
        f'<div class="text"><p>{_SENTENCES[0]}</p><p>{_SENTENCES[1]}</p>'
        '<p><strong><a href="/newsletter">Click here to subscribe to The Valley Newsletter'
        f"</a></strong></p><p>{_SENTENCES[2]}</p>"
        '<h2><a href="/popular">Popular on Valley News</a></h2>'
        f"<p>{_SENTENCES[3]}</p><p>{_SENTENCES[4]}</p></div>"
    )
    e = extract_page(_page(body).encode(), "https://valley.example/news/2024/water-rates")
    assert e.article is not None
    text = e.article.text
    assert _SENTENCES[0] in text and _SENTENCES[2] in text and _SENTENCES[4] in text
    assert "Click here to subscribe" not in text
    assert "Popular on Valley News" not in text


_URL = "https://valley.example/news/2024/water-rates"


def _paragraphs() -> str:
    return "".join(f"<p>{s}</p>" for s in _SENTENCES)


def test_a_plain_container_is_read_directly_without_its_byline_and_share_bar() -> None:
    article = (
        '<div class="byline">By Jane Roe, Valley News staff writer</div>'
        '<div class="share-tools"><span>Share this story with your friends today</span></div>'
        f"{_paragraphs()}"
        "<figure><img src='/p.jpg'><figcaption>The board room on Monday evening, before the"
        " vote.</figcaption></figure>"
    )
    e = extract_page(_page(article).encode(), _URL)
    assert e.kind == "article" and e.article is not None
    assert "text by our rules" in e.why
    text = e.article.text
    assert text.split("\n") == _SENTENCES
    assert "Jane Roe" not in text and "Share this" not in text and "board room" not in text


def test_a_list_of_stories_in_the_container_is_left_out_with_its_heading() -> None:
    teasers = "".join(
        f'<li><a href="/news/other-{i}">Council delays the bridge vote again, number {i}</a>'
        " The council met on Tuesday and put off the decision once more.</li>"
        for i in range(4)
    )
    article = f"{_paragraphs()}<h3>More from the valley</h3><ul>{teasers}</ul>"
    e = extract_page(_page(article).encode(), _URL)
    assert e.article is not None
    assert "text by our rules" in e.why
    assert e.article.text.split("\n") == _SENTENCES


def test_link_lines_between_the_paragraphs_are_left_out() -> None:
    links = "".join(
        f'<p><a href="/news/other-{i}">Read also: the council delays the bridge vote, part {i}'
        "</a></p>"
        for i in range(4)
    )
    e = extract_page(_page(_paragraphs() + links).encode(), _URL)
    assert e.article is not None
    assert e.article.text.split("\n") == _SENTENCES


def test_a_wrapper_named_like_boilerplate_is_read_when_it_holds_the_article() -> None:
    article = f'<div class="content-bottom">{_paragraphs()}</div>'
    e = extract_page(_page(article).encode(), _URL)
    assert e.article is not None
    assert "text by our rules" in e.why
    assert e.article.text.split("\n") == _SENTENCES


_CN_HEAD = "河畔区召开智能公交建设推进会"
_CN_PARAS = [
    "9月5日下午，河畔区召开智能公交建设推进会，区交通局、各街道负责人参加会议，会议总结了上半年的建设情况。",
    "会上，区交通局通报了首批智能站台的使用情况，并就下一步在郊区推广电子站牌、优化线路等工作作出部署。",
    "区领导要求，各部门要加强协作，按时完成年底前改造三百个站台的目标，让市民出行更加方便快捷。",
]


def _cn_page(body: str) -> bytes:
    """A district government news page: a breadcrumb, the headline again in the text box,
    a source line, the text, a disclaimer and a reward panel."""
    menu = "".join(f'<li><a href="/c{i}/">栏目{i}</a></li>' for i in range(10))
    return (
        f"<html><head><title>{_CN_HEAD} 河畔区政府网</title></head><body>"
        f'<ul class="menu">{menu}</ul><div class="main"><div class="box">'
        f"<h1>{_CN_HEAD}</h1><div class='info'>2019-09-05 16:30</div>{body}</div></div>"
        "<div class='foot'><p>河畔区人民政府主办 版权所有，未经授权不得转载。</p></div>"
        "</body></html>"
    ).encode()


def test_chinese_source_breadcrumb_repeated_headline_and_disclaimer_are_not_text() -> None:
    body = (
        "<div>现在位置： 首页 >> 区内新闻 >> 正文</div>"
        f"<div>{_CN_HEAD}</div><div>来源于：河畔区交通局</div>"
        + "".join(f"<p>{p}</p>" for p in _CN_PARAS)
        + "<p>【免责声明】本文仅代表作者本人观点，与本站无关，请读者仅作参考，"
        "并自行承担全部责任。</p>"
        + "<p>“十大城市建设人物评选”火热进行中！【点击投票】选出你心中的城市建设者</p>"
        + '<p class="reward_button"><span class="reward_qrcode">微信扫一扫赞赏作者</span></p>'
    )
    e = extract_page(_cn_page(body), "http://www.hepan.example.cn/2019/0905/c123.html")
    assert e.article is not None and e.article.title == _CN_HEAD
    assert e.article.text.split("\n") == _CN_PARAS


def test_a_statement_keeps_its_opening_salutation() -> None:
    body = "<p>女士们、先生们：</p>" + "".join(f"<p>{p}</p>" for p in _CN_PARAS)
    e = extract_page(_cn_page(body), "http://www.hepan.example.cn/2019/0905/c124.html")
    assert e.article is not None
    assert e.article.text.split("\n") == ["女士们、先生们：", *_CN_PARAS]


def test_an_article_inside_a_page_wide_form_is_read_directly() -> None:
    # Sites built as one server form wrap the whole page, the article with it, in <form>.
    article = f'<form action="/page.aspx" method="post"><div>{_paragraphs()}</div></form>'
    e = extract_page(_page(article).encode(), _URL)
    assert e.article is not None
    assert "text by our rules" in e.why
    assert e.article.text.split("\n") == _SENTENCES


def test_a_page_nested_ten_thousand_deep_is_read_without_recursion() -> None:
    # The walk is a loop over lexbor's own iterator: no Python stack to overflow.
    depth = 10_000
    page = (
        "<html><body>"
        + "<div>" * depth
        + "".join(f"<p>{s}</p>" for s in _SENTENCES)
        + "</div>" * depth
        + "</body></html>"
    )
    found = _main(page)
    assert found.lines == _SENTENCES
