"""Article extraction on realistic portal and news fixtures (crawler_gui/demo/news_templates)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from crawler_gui.demo.news_templates import (
    NewsArticle,
    english_article,
    english_list,
    js_only_page,
    portal_article,
    portal_list,
)
from crawler_gui.engine.extract import extract_page, learn_suffix, strip_site_suffix
from crawler_gui.engine.extract.pool import ExtractJob, ExtractPool

CN_PARAS = [
    "9月5日，记者从市交通运输局获悉，全市首批智能公交站台已在主城区投入使用，市民可以通过电子屏实时查询车辆到站信息。",
    "据介绍，新站台配备了太阳能供电系统和夜间照明设备，同时增加了无障碍通道，方便老年人和残障人士出行。",
    "市交通运输局相关负责人表示，下一步将根据市民反馈，在年底前完成全市三百个公交站台的改造工作，并同步优化线路。",
    "不少市民对新站台表示欢迎。“以前等车心里没底，现在看一眼屏幕就知道还要等几分钟。”家住河畔小区的李女士说。",
]
EN_PARAS = [
    "The city council voted on Tuesday to expand the riverside park, ending a two-year dispute over the old rail yard.",  # noqa: E501
    "Supporters said the plan would add twelve acres of green space and a new footbridge linking the two halves of town.",  # noqa: E501
    "Opponents argued that the land should be used for housing, and several residents spoke against the plan at the meeting.",  # noqa: E501
    "Construction is expected to begin next spring, with the first section of the park opening to visitors in late summer.",  # noqa: E501
]


def cn_article(**kw: object) -> NewsArticle:
    base: dict[str, object] = {
        "title": "智能公交站台投入使用 市民可实时查询“到站时间”",
        "printed_time": "2019年09月05日 11:10",
        "paragraphs": CN_PARAS,
        "authors": ["张三"],
        "source": "河畔日报",
        "site": "河畔新闻网",
        "related": [
            (f"相关新闻标题第{i}条关于城市交通建设的报道", f"/news/r{i}.html") for i in range(8)
        ],
        "comments": ["这个好，终于不用在站台干等了，希望尽快推广到郊区。", "支持！"],
    }
    base.update(kw)
    return NewsArticle(**base)  # type: ignore[arg-type]


def en_article(**kw: object) -> NewsArticle:
    base: dict[str, object] = {
        "title": "Council backs riverside park expansion after two-year fight",
        "printed_time": "March 5, 2024",
        "iso_time": "2024-03-05T09:30:00-05:00",
        "paragraphs": EN_PARAS,
        "authors": ["Jane Roe", "John Doe"],
        "site": "Harbor Daily",
        "related": [
            (f"Related story number {i} about the city budget", f"/news/r{i}") for i in range(6)
        ],
        "comments": ["Great news for the neighbourhood, finally some green space."],
    }
    base.update(kw)
    return NewsArticle(**base)  # type: ignore[arg-type]


def test_gbk_portal_article_fields() -> None:
    page = portal_article(cn_article(gallery=3), charset="gbk").encode("gbk")
    ex = extract_page(page, "http://news.example.cn/2019/0905/a123.shtml", "text/html")
    assert ex.kind == "article", ex.why
    a = ex.article
    assert a is not None
    # Inner quotation marks kept; site suffix and the logo <h1> left out.
    assert a.title == "智能公交站台投入使用 市民可实时查询“到站时间”"
    assert a.published == "2019-09-05T11:10:00+08:00"
    assert a.zone_inferred is True
    assert a.authors == ["张三"]
    assert a.lang == "zh"
    assert a.text.split("\n") == CN_PARAS
    for noise in ("相关新闻", "网友", "Copyright", "责任编辑", "分享到", "版权所有"):
        assert noise not in a.text


def test_utf8_portal_with_labelled_time_and_configured_zone() -> None:
    page = portal_article(
        cn_article(printed_time="发布时间：2019-09-09 16:01:46", video=True, authors=[])
    ).encode("utf-8")
    ex = extract_page(
        page,
        "http://www.example.com.cn/news/20190909/123456.html",
        "text/html; charset=utf-8",
        zones={".example.com.cn": "+08:00"},
    )
    assert ex.kind == "article", ex.why
    assert ex.article is not None
    assert ex.article.published == "2019-09-09T16:01:46+08:00"
    assert ex.article.zone_inferred is False  # read from the configuration, not guessed
    assert ex.article.text.split("\n") == CN_PARAS


def test_english_article_fields() -> None:
    page = english_article(en_article()).encode("utf-8")
    ex = extract_page(page, "https://harbor.example/news/2024/03/05/park-expansion", None)
    assert ex.kind == "article", ex.why
    a = ex.article
    assert a is not None
    assert a.title == "Council backs riverside park expansion after two-year fight"
    assert a.published == "2024-03-05T09:30:00-05:00"
    assert a.zone_inferred is False
    assert a.authors == ["Jane Roe", "John Doe"]
    assert a.lang == "en"
    assert a.text.split("\n") == EN_PARAS


@pytest.mark.parametrize("charset", ["gbk", "utf-8"])
def test_portal_list_is_not_an_article(charset: str) -> None:
    items = [
        (
            f"第{i}条新闻标题关于本市经济发展的最新报道",
            f"/news/2019/a{i}.shtml",
            f"2019-09-0{i % 9 + 1} 10:{i:02d}",
        )
        for i in range(20)
    ]
    page = portal_list("河畔新闻网", "国内新闻", items, charset=charset).encode(charset)
    ex = extract_page(page, "http://news.example.cn/china/", None)
    assert ex.kind == "list", ex.why
    assert ex.article is None


def test_english_list_is_not_an_article() -> None:
    items = [
        (
            f"Story number {i} about the harbour front redevelopment",
            f"/news/s{i}",
            "A short teaser line.",
        )
        for i in range(15)
    ]
    ex = extract_page(
        english_list("Harbor Daily", "World", items).encode(), "https://harbor.example/world/", None
    )
    assert ex.kind == "list", ex.why


def test_javascript_only_page_is_labelled() -> None:
    ex = extract_page(js_only_page("新闻客户端").encode(), "https://m.example.cn/article/1", None)
    assert ex.js_only is True
    assert ex.kind == "other"
    assert "JavaScript" in ex.why
    assert ex.article is None


def test_canonical_amp_mobile_and_multipage_are_tied() -> None:
    main_url = "https://www.example.cn/news/2019/a100.html"
    desktop = extract_page(
        portal_article(
            cn_article(amphtml="https://www.example.cn/amp/news/2019/a100.html")
        ).encode(),
        main_url,
        None,
    )
    amp = extract_page(
        portal_article(cn_article(canonical=main_url), amp=True).encode(),
        "https://www.example.cn/amp/news/2019/a100.html",
        None,
    )
    mobile = extract_page(
        portal_article(cn_article()).encode(), "https://m.example.cn/news/2019/a100.html", None
    )
    amp_no_canonical = extract_page(
        portal_article(cn_article(), amp=True).encode(),
        "https://www.example.cn/amp/news/2019/a100.html",
        None,
    )
    second = extract_page(
        portal_article(cn_article()).encode(), "https://www.example.cn/news/2019/a100_2.html", None
    )
    assert desktop.article_url == main_url and desktop.part == 1
    assert amp.article_url == main_url
    assert mobile.article_url == main_url
    assert amp_no_canonical.article_url == main_url
    assert second.article_url == main_url and second.part == 2
    assert {e.kind for e in (desktop, amp, mobile, second)} == {"article"}


def test_site_suffix_learned_per_host() -> None:
    titles = [f"标题{i}_国内_某某新闻网" for i in range(4)]
    assert learn_suffix(titles) == "_国内_某某新闻网"
    assert learn_suffix(titles[:2]) is None  # too few pages to tell
    assert (
        strip_site_suffix("长标题_含下划线_国内_某某新闻网", ["_国内_某某新闻网"])
        == "长标题_含下划线"
    )


def _pool_pages() -> list[bytes]:
    ok = portal_article(cn_article()).encode()
    return [ok, b"<html><body>CRASH</body></html>", ok, b"<html><body>HANG</body></html>", ok]


def test_a_crash_or_hang_costs_only_that_page() -> None:
    async def main() -> list[str]:
        pool = ExtractPool(2, time_limit=8.0, function="tests.engine.extract_faults:extract")
        async with pool:
            futs = [
                await pool.submit(ExtractJob(f"http://news.example.cn/a{i}.html", body))
                for i, body in enumerate(_pool_pages())
            ]
            results = await asyncio.gather(*futs)
            after = await pool.extract(
                ExtractJob("http://news.example.cn/b.html", _pool_pages()[0])
            )
            assert after.kind == "article"
            assert pool.failures == 2
        return [r.kind + ":" + (r.error or "") for r in results]

    start = time.monotonic()
    kinds = asyncio.run(main())
    assert kinds[0] == kinds[2] == kinds[4] == "article:"
    assert kinds[1].startswith("other:the extraction worker died (signal SIGSEGV")
    assert kinds[3] == "other:took longer than 8 s"
    assert time.monotonic() - start < 60


def test_workers_run_below_the_crawl_so_the_loop_takes_the_cpu_back_at_once() -> None:
    from crawler_gui.engine.extract.pool import WORKER_NICE

    async def main() -> str | None:
        async with ExtractPool(1, function="tests.engine.extract_faults:extract") as pool:
            got = await pool.extract(ExtractJob("http://x.example/n", b"<html>NICENESS</html>"))
        return got.error

    expected = min(19, os.nice(0) + WORKER_NICE)
    assert asyncio.run(main()) == f"nice {expected}"


def test_submit_waits_while_the_queue_is_full() -> None:
    async def main() -> None:
        async with ExtractPool(
            1, queue_size=1, time_limit=5.0, function="tests.engine.extract_faults:extract"
        ) as pool:
            hang = ExtractJob("http://x.example/h", b"<html>HANG</html>")
            await pool.submit(hang)
            while pool.running == 0:  # taken by the worker
                await asyncio.sleep(0.01)
            await pool.submit(ExtractJob("http://x.example/1", b"<html>one</html>"))  # queued
            third = asyncio.ensure_future(
                pool.submit(ExtractJob("http://x.example/2", b"<html>2</html>"))
            )
            await asyncio.sleep(0.5)
            assert not third.done()  # backpressure: the queue is full
            assert pool.backlog == 2
            await asyncio.wait_for(third, 10)  # room once the hang hits its time limit

    asyncio.run(main())


def test_workers_go_on_while_the_loop_is_busy() -> None:
    """A worker takes its next page without the loop: while the loop is held up (a window
    repainting, a burst of fetches), the queued pages are still extracted."""

    async def main() -> int:
        async with ExtractPool(1, function="tests.engine.extract_faults:extract") as pool:
            await pool.extract(ExtractJob("http://x.example/w", b"<html>SLOW</html>"))  # warm
            futs = [
                await pool.submit(ExtractJob(f"http://x.example/{i}", b"<html>SLOW</html>"))
                for i in range(4)
            ]
            time.sleep(2.0)  # the loop is busy for 2 s; the four pages need 0.4 s
            for _ in range(10):
                await asyncio.sleep(0)  # the results handed over meanwhile land
            done = sum(f.done() for f in futs)
            await asyncio.gather(*futs)
            assert pool.backlog == 0
        return done

    # Fed by the loop, the worker would have finished one page (the one it had) by then.
    assert asyncio.run(main()) == 4


def test_articles_go_to_the_store_and_the_warc(tmp_path: Path) -> None:
    from warcio.archiveiterator import ArchiveIterator

    from crawler_gui.engine.extract.service import Articles
    from crawler_gui.engine.store import PageRecord, PageStore
    from crawler_gui.engine.warc import WarcWriter

    page = portal_article(cn_article()).encode()
    url = "http://news.example.cn/2019/a1.html"

    async def main() -> None:
        store = PageStore.open(tmp_path / "pages")
        warc = WarcWriter(tmp_path / "warc")
        async with ExtractPool(1) as pool:
            articles = Articles(pool, store, warc=warc)
            seq = store.add(
                PageRecord(
                    url, url, 200, 1.0, "text/html", "utf-8", "", 0, len(page), 0.1, None, ()
                )
            )
            await articles.page(seq, url, page, "text/html", is_html=True)
            await articles.page(seq + 1, url + "?img", b"\x89PNG", "image/png", is_html=False)
            await articles.drain()
            assert articles.found == 1 and articles.kinds["other"] == 1
            assert articles.recent[0].title == cn_article().title
        await store.flush()
        stored = store.extraction(seq)
        assert stored is not None and stored["kind"] == "article"
        assert stored["article"]["published"] == "2019-09-05T11:10:00+08:00"
        await store.aclose()
        warc.close()

    asyncio.run(main())
    (warc_file,) = (tmp_path / "warc").iterdir()
    with warc_file.open("rb") as fh:
        meta = [
            json.loads(r.content_stream().read())
            for r in ArchiveIterator(fh)
            if r.rec_type == "metadata"
        ]
    assert [m["article"]["title"] for m in meta] == [cn_article().title]


def test_the_delay_counts_only_pages_fetched_by_the_crawl(tmp_path: Path) -> None:
    """A page handed over with its fetch time counts its delay from publication; one extracted
    later from the store (no fetch time: ``crawler-gui extract``) does not."""
    from datetime import datetime

    from crawler_gui.engine.extract.service import Articles

    page = portal_article(cn_article()).encode()
    url = "http://news.example.cn/2019/a1.html"
    published = datetime.fromisoformat("2019-09-05T11:10:00+08:00").timestamp()

    async def main() -> tuple[int, int, float]:
        async with ExtractPool(1) as pool:
            articles = Articles(pool, None)
            await articles.page(1, url, page, "text/html", is_html=True)
            await articles.drain()
            later = articles.delays.snapshot().count
            await articles.page(2, url, page, "text/html", is_html=True, fetched_at=published + 95)
            await articles.drain()
            snap = articles.delays.snapshot()
            assert articles.recent[-1].found_at == published + 95
            return later, snap.count, snap.total

    later, count, total = asyncio.run(main())
    assert later == 0
    assert count == 1 and total == 95.0


def test_delay_histogram_buckets_and_unknown_times() -> None:
    from crawler_gui.engine.extract.service import DelayHistogram, delay_seconds

    assert delay_seconds("2024-03-01T10:00:00+08:00", 1709258400.0 + 30) == 30.0
    assert delay_seconds("2024-03-01T02:00:00Z", 1709258400.0 + 30) == 30.0
    for unknown in (None, "", "2024-03-01", "2024-03-01T10:00:00", "yesterday at noon"):
        assert delay_seconds(unknown, 1709258400.0) is None, unknown
    h = DelayHistogram((10.0, 60.0, float("inf")))
    for seconds in (-5.0, 10.0, 10.5, 60.0, 3600.0):  # a publication "after" the fetch: 0
        h.observe(seconds)
    snap = h.snapshot()
    assert snap.counts == (2, 2, 1) and snap.count == 5
    assert snap.total == 0 + 10 + 10.5 + 60 + 3600


def test_a_headless_crawl_keeps_no_recent_articles() -> None:
    """``keep_recent(0)`` (the headless crawl, which has no window): articles are counted and
    their delays kept, but none of them (nor their text) is held in memory."""
    from crawler_gui.engine.extract.service import Articles

    page = portal_article(cn_article()).encode()
    url = "http://news.example.cn/2019/a1.html"

    async def main() -> None:
        async with ExtractPool(1) as pool:
            articles = Articles(pool, None)
            await articles.page(1, url, page, "text/html", is_html=True, fetched_at=2e9)
            await articles.page(2, url + "?b", page, "text/html", is_html=True, fetched_at=2e9)
            await articles.drain()
            assert [a.url for a in articles.recent] == [url, url + "?b"]
            articles.keep_recent(1)
            assert [a.url for a in articles.recent] == [url + "?b"]
            articles.keep_recent(0)
            await articles.page(3, url + "?c", page, "text/html", is_html=True, fetched_at=2e9)
            await articles.drain()
            assert list(articles.recent) == []
            assert articles.found == 3 and articles.delays.snapshot().count == 3

    asyncio.run(main())


def test_an_extraction_as_a_dict_has_every_field_and_reads_back() -> None:
    """``to_dict`` is written field by field (``asdict`` deep-copied everything on the loop):
    it must give what ``asdict`` gives, for every field a later change may add, and read back
    to the same extraction."""
    import dataclasses

    from crawler_gui.engine.extract.model import Article, Extraction

    article = Article(
        title="稳就业", published="2020-02-11T10:47:50+08:00", updated=None,
        authors=["A. Writer"], lang="zh", text="第一段\n第二段", zone_inferred=True,
    )  # fmt: skip
    ex = Extraction(
        kind="article", why="a headline and 2 paragraphs", article=article,
        article_url="http://127.0.0.1:8631/a.html", part=2, js_only=False, raw_title="t - site",
        error=None, extra={"words": 6, "listed": {"at": [1.0, 2.0]}},
    )  # fmt: skip
    as_dict = ex.to_dict()
    assert as_dict == dataclasses.asdict(ex)
    assert as_dict["article"] == dataclasses.asdict(article) == article.to_dict()
    assert Extraction.from_dict(as_dict) == ex
    assert as_dict["extra"] is not ex.extra and as_dict["article"]["authors"] is not article.authors
    bare = Extraction.failed("timeout")
    assert bare.to_dict() == dataclasses.asdict(bare)


def test_a_json_ld_lone_surrogate_costs_the_worker_nothing() -> None:
    """A JSON-LD escape of half a UTF-16 pair (``"\\ud83d"``) leaves a lone surrogate in
    the article's fields, which UTF-8 refuses: the worker once died on sending it back. It
    is mended (U+FFFD) and the article comes back whole."""
    page = (
        b'<html><head><title>x</title><script type="application/ld+json">'
        b'{"@type":"NewsArticle","headline":"Breaking \\ud83d news",'
        b'"datePublished":"2024-03-01T10:00:00Z","author":{"@type":"Person","name":"A \\udce9"}}'
        b"</script></head><body><article><h1>Breaking news</h1><p>"
        + b"Some long paragraph text about things. " * 40
        + b"</p></article></body></html>"
    )

    async def main() -> None:
        async with ExtractPool(1) as pool:
            got = await pool.extract(ExtractJob("http://news.example.cn/a.html", page))
            assert pool.failures == 0
        assert not got.error and got.kind == "article"
        data = got.to_dict()
        json.dumps(data, ensure_ascii=False).encode("utf-8")  # text UTF-8 takes
        assert "\ufffd" in json.dumps(data, ensure_ascii=False)

    asyncio.run(main())
