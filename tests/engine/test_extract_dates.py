"""Dates as pages write them and as a reader finds them (extract/dates.py, extract/published.py),
and headlines wherever the page shows them (extract/headline.py): one small page per rule."""

from __future__ import annotations

from datetime import date

import pytest

from crawler_gui.engine.extract import extract_page
from crawler_gui.engine.extract.dates import Stamp, parse_machine_date, text_dates

_PARAS = "".join(
    f"<p>{s}</p>"
    for s in (
        "The regional water board approved a new rate plan on Monday after months of hearings.",
        "Households will pay about four dollars more a month under the plan, the board said.",
        "Farmers had asked for a longer transition, arguing that the change came at a bad time.",
        "The board agreed to phase in the increase for agricultural users over three years.",
        "A final vote on the budget that depends on the new rates is expected next month.",
    )
)
_CN_PARAS = "".join(
    f"<p>{s}</p>"
    for s in (
        "9月5日下午，河畔区召开智能公交建设推进会，区交通局、各街道负责人参加会议，会议总结了上半年的建设情况。",
        "会上，区交通局通报了首批智能站台的使用情况，并就下一步在郊区推广电子站牌、优化线路等工作作出部署。",
        "区领导要求，各部门要加强协作，按时完成年底前改造三百个站台的目标，让市民出行更加方便快捷。",
    )
)


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Veröffentlicht am 5. März 2024 um 10:30 Uhr", "de", ("2024-03-05", (10, 30, 0))),
        ("March 5, 2024 at 3:15 pm", "en", ("2024-03-05", (15, 15, 0))),
        ("5 de marzo de 2024", "es", ("2024-03-05", None)),
        ("publié le 12 décembre 2019", "fr", ("2019-12-12", None)),
        ("Pubblicato il 7 febbraio 2021, 18:05", "it", ("2021-02-07", (18, 5, 0))),
        ("05.03.2024", "de", ("2024-03-05", None)),
        ("12/03/2021", "en-GB", ("2021-03-12", None)),
        ("12/03/2021", "en-US", ("2021-12-03", None)),
        ("2019年10月31日 23:00", "zh", ("2019-10-31", (23, 0, 0))),
        ("时间：2019-09-26 12:11来源：某某", "zh", ("2019-09-26", (12, 11, 0))),
        ("2020년 3월 5일", "ko", ("2020-03-05", None)),
        ("Mar. 5th 2024", "en", ("2024-03-05", None)),
        ("2024. március 5.", "hu", ("2024-03-05", None)),
        ("5 марта 2024", "ru", ("2024-03-05", None)),
        ("7 stycznia 2022", "pl", ("2022-01-07", None)),
    ],
)
def test_a_printed_date_in_many_languages(
    text: str, lang: str, expected: tuple[str, tuple[int, int, int] | None]
) -> None:
    found = text_dates(f"Text before it. {text}. Text after it.", lang)
    assert [(t.stamp.day.isoformat(), t.stamp.time) for t in found] == [expected]


def test_numbers_that_are_not_dates_are_not_dates() -> None:
    assert text_dates("31/31/2020, 13.13.2019, 2019-13-01, in 2019 and 2020, 1999 to 2005") == []
    assert text_dates("30 February 2021") == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2007-08-20-23:59:59", Stamp(date(2007, 8, 20), (23, 59, 59))),  # a portal's meta
        ("2019-09-26T12:11:01+0800", Stamp(date(2019, 9, 26), (12, 11, 1), "+08:00")),
        ("2020-04-25T07:25:06Z", Stamp(date(2020, 4, 25), (7, 25, 6), "+00:00")),
        ("20190926", Stamp(date(2019, 9, 26))),
        ("Tue, 20 Aug 2019 10:00:00 GMT", Stamp(date(2019, 8, 20), (10, 0, 0), "+00:00")),
        ("1568000000", Stamp(date(2019, 9, 9), (3, 33, 20), "+00:00")),
        ("1568000000123", Stamp(date(2019, 9, 9), (3, 33, 20), "+00:00")),
        ("Mi., 26.01.2022 - 14:30", Stamp(date(2022, 1, 26), (14, 30, 0))),
        ("not a date", None),
    ],
)
def test_machine_dates(value: str, expected: Stamp | None) -> None:
    assert parse_machine_date(value) == expected


def _cn(body: str, head: str = "", title: str = "智能公交建设推进会召开_河畔新闻网") -> bytes:
    return (
        f"<html><head><title>{title}</title>{head}</head><body>"
        '<ul class="menu">'
        + "".join(f'<li><a href="/c{i}/">栏目{i}</a></li>' for i in range(8))
        + f"</ul>{body}</body></html>"
    ).encode()


_CN_URL = "http://news.example.cn/2019/0905/c123.html"


@pytest.mark.parametrize(
    ("body", "head", "expected"),
    [
        # A "时间：" line in a block of its own under the headline.
        (
            '<h1>智能公交建设推进会召开</h1><div class="title_blow">时间：2019年10月31日 23:00'
            f"　来源：河畔日报</div>{_CN_PARAS}",
            "",
            "2019-10-31T23:00:00+08:00",
        ),
        # The date right under an <h2> headline, before its source.
        (
            '<div class="intal_tit"><h2>智能公交建设推进会召开</h2><div class="info">'
            f"2019-09-26 12:11<span>来源：河畔日报</span></div></div>{_CN_PARAS}",
            "",
            "2019-09-26T12:11:00+08:00",
        ),
        # A meta name of the portal's own, with a dash before the time.
        (
            f"<h1>智能公交建设推进会召开</h1>{_CN_PARAS}",
            '<meta name="firstpublishedtime" content="2007-08-20-23:59:59">',
            "2007-08-20T23:59:59+08:00",
        ),
        # A script variable.
        (
            f"<h1>智能公交建设推进会召开</h1>{_CN_PARAS}"
            "<script>var publishdate = '2019-09-26 12:11:01';</script>",
            "",
            "2019-09-26T12:11:01+08:00",
        ),
        # A labelled publication date far from the headline wins over a date the first
        # paragraph opens with.
        (
            f"<h1>智能公交建设推进会召开</h1><p>2019年2月27日下午，{_CN_PARAS[3:]}"
            "<table><tr><td>发布日期：2019-03-06<br>责任编辑：龙慧</td></tr></table>",
            "",
            "2019-03-06",
        ),
    ],
)
def test_chinese_portal_dates(body: str, head: str, expected: str) -> None:
    e = extract_page(_cn(body, head), _CN_URL)
    assert e.article is not None, e.why
    assert e.article.published == expected, e.why


def _en(body: str, head: str = "") -> bytes:
    return (
        f"<html lang='en-US'><head><title>Water board approves new rates | Valley News</title>"
        f"{head}</head><body><nav><a href='/'>Home</a></nav>{body}</body></html>"
    ).encode()


_URL = "https://valley.example/news/water-rates"


def test_an_instant_in_utc_takes_the_day_the_page_prints() -> None:
    # Published at 10:35 pm in California: the next day in UTC. The page's own dateline
    # gives its day, and the offset follows from the time it prints.
    page = _en(
        "<article><h1>Water board approves new rates</h1>"
        "<p class='byline'>Posted: Nov 8, 2023 / 10:35 PM PST</p>"
        f"{_PARAS}</article>",
        '<script type="application/ld+json">{"@type": "NewsArticle",'
        ' "datePublished": "2023-11-09T06:35:29+00:00"}</script>',
    )
    e = extract_page(page, _URL)
    assert e.article is not None
    assert e.article.published == "2023-11-08T22:35:29-08:00"


def test_dates_of_comments_related_stories_and_the_headline_are_not_the_pages() -> None:
    related = "".join(
        f'<li><a href="/news/s{i}">Another story about the valley, number {i}</a>'
        f"<span class='date'>{i + 1} May 2020</span></li>"
        for i in range(4)
    )
    page = _en(
        "<article><h1>Water board approves new rates, 2 June 2020</h1>"
        f"{_PARAS}<p class='dateline'>Published 3 June 2020</p></article>"
        f'<ul class="related">{related}</ul>'
        '<div id="comments"><div class="comment"><span>4 June 2020</span>'
        "<p>I do not agree with this at all, the rates are too high already.</p></div></div>",
    )
    e = extract_page(page, _URL)
    assert e.article is not None
    assert e.article.published == "2020-06-03"


def test_a_page_whose_only_date_is_its_update_is_dated_so() -> None:
    page = _en(
        f"<article><h1>Water board approves new rates</h1><p class='info'>Aktualisiert: "
        f"30.12.2016</p>{_PARAS}</article>"
    )
    e = extract_page(page, _URL)
    assert e.article is not None
    assert e.article.published == "2016-12-30"
    assert "update" in e.why


@pytest.mark.parametrize(
    ("body", "title", "expected"),
    [
        # The headline in an <h2>, the site's name after it in the title.
        (
            "<div class='intal_tit'>"
            "<h2>央行：三季度末金融机构人民币各项贷款余额增长12.5%</h2></div>",
            "央行：三季度末金融机构人民币各项贷款余额增长12.5%_证券时报网",
            "央行：三季度末金融机构人民币各项贷款余额增长12.5%",
        ),
        # The headline in a styled <strong>, a gazette's issue and the site after it.
        (
            "<p><strong>国务院关于同意设立河畔智能交通示范区的批复</strong></p>",
            "国务院关于同意设立河畔智能交通示范区的批复__2007年第23号国务院公报_中国政府网",
            "国务院关于同意设立河畔智能交通示范区的批复",
        ),
    ],
)
def test_a_headline_without_the_sites_name_on_a_hosts_first_page(
    body: str, title: str, expected: str
) -> None:
    e = extract_page(_cn(body + _CN_PARAS, title=title), _CN_URL)
    assert e.article is not None
    assert e.article.title == expected
    assert e.article.text.split("\n")[0].startswith("9月5日下午")
