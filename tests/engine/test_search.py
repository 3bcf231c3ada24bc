"""The pages' full-text index: Chinese two-character words, English words, newest first, one
row per URL, hostile query text, and foreign or newer files refused."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from crawler_gui.engine.search import (
    SearchDoc,
    SearchIndex,
    filter_text,
    prepare_query,
    prepare_text,
)
from crawler_gui.errors import StoreError

ZH = "国务院常务会议部署稳就业举措，要求各地加大对中小企业的支持力度。"
EN = "Central banks held interest rates steady on Thursday, citing resilient employment."


def doc(seq: int, url: str, text: str = "", title: str = "", kind: str = "article") -> SearchDoc:
    host = url.split("/")[2]
    return SearchDoc(seq, url, host, title, text, kind, 200, 1_700_000_000.0 + seq)


@pytest.fixture
def index(tmp_path: Path):
    idx = SearchIndex(tmp_path / "search.sqlite")
    idx.add_many(
        [
            doc(1, "http://news.example.cn/a.html", ZH, "稳就业举措出台"),
            doc(2, "http://world.example.com/rates.html", EN, "Rates held"),
            doc(3, "http://news.example.cn/list.html", "", "滚动新闻", kind="list"),
            doc(4, "http://news.example.cn/b.html", "就业形势总体稳定", "就业"),
        ]
    )
    yield idx
    idx.close()


def urls(hits) -> list[str]:
    return [h.url for h in hits]


def test_chinese_two_character_words_are_found(index: SearchIndex) -> None:
    assert urls(index.search("就业")) == [
        "http://news.example.cn/b.html",
        "http://news.example.cn/a.html",
    ]
    assert urls(index.search("中小企业")) == ["http://news.example.cn/a.html"]
    assert urls(index.search("企中")) == []  # bigrams must be adjacent and in order


def test_a_single_chinese_character_is_a_prefix_search(index: SearchIndex) -> None:
    assert "http://news.example.cn/a.html" in urls(index.search("稳"))


def test_english_words_any_case_and_every_term_must_match(index: SearchIndex) -> None:
    assert urls(index.search("RATES")) == ["http://world.example.com/rates.html"]
    assert urls(index.search("rates Thursday")) == ["http://world.example.com/rates.html"]
    assert urls(index.search("rates 就业")) == []


def test_urls_and_titles_are_searched(index: SearchIndex) -> None:
    assert urls(index.search("滚动新闻")) == ["http://news.example.cn/list.html"]
    assert urls(index.search("world")) == ["http://world.example.com/rates.html"]


def test_filters_and_paging(index: SearchIndex) -> None:
    assert urls(index.search("就业", host="news.example.cn", kinds=["article"])) == [
        "http://news.example.cn/b.html",
        "http://news.example.cn/a.html",
    ]
    assert urls(index.search("新闻", kinds=["article"])) == []
    first = index.search("就业", limit=1)
    assert urls(index.search("就业", before=first[-1].seq)) == ["http://news.example.cn/a.html"]


def test_filters_narrow_the_search_before_its_limit(tmp_path: Path) -> None:
    """A host (or its subdomains, any case; ``_`` and ``%`` taken literally) and a status
    class are searched for, not picked from the newest ``limit`` hits afterwards: one old page
    of a host behind 50 newer hits of others is found with ``limit=10``."""
    idx = SearchIndex(tmp_path / "search.sqlite")
    try:
        docs = [doc(1, "http://old.example.org/a.html", "market news")]
        docs.append(
            SearchDoc(
                2,
                "http://m.old.example.org/b.html",
                "m.old.example.org",
                "",
                "market news",
                "article",
                404,
                0.0,
            )
        )
        docs.append(doc(3, "http://xold.example.org/c.html", "market news"))  # not a subdomain
        docs.append(doc(4, "http://a_b.example.org/d.html", "market news"))
        docs.append(doc(5, "http://x.axb.example.org/e.html", "market news"))
        docs += [doc(10 + i, f"http://new.example.com/{i}.html", "market news") for i in range(50)]
        idx.add_many(docs)
        assert urls(idx.search("market", limit=10, host="OLD.example.org")) == [
            "http://m.old.example.org/b.html",
            "http://old.example.org/a.html",
        ]
        assert urls(idx.search("market", limit=10, host="old.example.org", status_class=2)) == [
            "http://old.example.org/a.html"
        ]
        assert urls(idx.search("market", limit=10, status_class=4)) == [
            "http://m.old.example.org/b.html"
        ]
        assert urls(idx.search("market", limit=10, host="a_b.example.org")) == [
            "http://a_b.example.org/d.html"
        ]
        assert urls(idx.search("market", limit=10, host="%.example.org")) == []
        assert len(idx.search("market", limit=10, host=" ")) == 10  # blank: no host filter
    finally:
        idx.close()


def test_a_page_fetched_again_shows_once_at_its_newest(index: SearchIndex) -> None:
    index.add_many([doc(9, "http://news.example.cn/a.html", "全新内容 经济", "更新")])
    assert urls(index.search("就业")) == ["http://news.example.cn/b.html"]
    hits = index.search("经济")
    assert [(h.url, h.seq, h.title) for h in hits] == [("http://news.example.cn/a.html", 9, "更新")]
    assert index.count() == 4
    assert index.last_seq() == 9


@pytest.mark.parametrize(
    "typed", ['"', "NEAR(a b)", "* OR -", 'rates" OR "x', "title:就业", "(", "a AND", "'; DROP"]
)
def test_hostile_query_text_is_only_ever_searched_for(index: SearchIndex, typed: str) -> None:
    index.search(typed)  # no FTS5 syntax error, no SQL
    assert index.count() == 4


def test_nothing_searchable_gives_nothing(index: SearchIndex) -> None:
    assert prepare_query("  ，。！ ") is None
    assert index.search("，。") == []


def test_prepared_text() -> None:
    """A CJK run's bigrams, in order, with its first and last character alone around them;
    the other words after; text without CJK as it is."""
    assert prepare_text("稳就业 ok").split() == ["稳", "稳就", "就业", "业", "ok"]
    assert prepare_text("a中b，国家x").split() == ["中", "中", "国", "国家", "家", "a", "b，", "x"]
    assert prepare_text("中").split() == ["中", "中"]
    assert prepare_text("Rates held.") == "Rates held."
    assert prepare_text("") == ""
    assert prepare_query('就业 "Rates"') == '{url title text} : ("就业" AND "Rates")'


def test_clear_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    idx = SearchIndex(path)
    idx.add_many([doc(1, "http://a.example.com/x", "hello world")])
    idx.close()
    idx = SearchIndex(path)
    assert urls(idx.search("hello")) == ["http://a.example.com/x"]
    idx.clear()
    assert idx.search("hello") == [] and idx.count() == 0
    idx.close()


def test_a_foreign_or_newer_file_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a crawler-gui search index"):
        SearchIndex(foreign)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(StoreError):
        SearchIndex(junk)
    newer = tmp_path / "newer.sqlite"
    SearchIndex(newer).close()
    con = sqlite3.connect(newer)
    con.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="rebuild"):
        SearchIndex(newer)


def test_bigrams_do_not_cross_punctuation_or_other_words(tmp_path: Path) -> None:
    idx = SearchIndex(tmp_path / "s.sqlite")
    try:
        idx.add_many([doc(1, "http://a.example.cn/1", "保就业。稳定 增长abc企业")])
        assert urls(idx.search("就业")) == ["http://a.example.cn/1"]
        assert urls(idx.search("保就业")) == ["http://a.example.cn/1"]
        assert idx.search("业稳") == []  # 业 and 稳 are apart, across 。
        assert idx.search("长企") == []  # across the Latin letters
        assert urls(idx.search("abc")) == ["http://a.example.cn/1"]
        assert urls(idx.search("定")) == ["http://a.example.cn/1"]  # a run's last character
    finally:
        idx.close()


def test_filter_terms_are_never_searched_by_query_words(index: SearchIndex) -> None:
    """The host, status and kind tokens live in a column the user's words do not search: a
    word spelled like one of them finds nothing."""
    assert index.search("s2") == []
    token = filter_text("news.example.cn", 200, "article").split()[0]
    assert index.search(token) == []


def test_host_filter_takes_parent_domains_and_unextracted_pages(tmp_path: Path) -> None:
    idx = SearchIndex(tmp_path / "s.sqlite")
    try:
        idx.add_many(
            [
                doc(1, "http://www.news.example.cn/1", "经济 增长"),
                doc(2, "http://news.example.com/2", "经济 增长"),
                doc(3, "http://127.0.0.1/3", "经济 增长", kind=""),
            ]
        )
        assert urls(idx.search("经济", host="example.cn")) == ["http://www.news.example.cn/1"]
        assert urls(idx.search("经济", host="cn.")) == ["http://www.news.example.cn/1"]
        assert urls(idx.search("经济", host="Example")) == []  # whole labels only
        assert urls(idx.search("经济", host="127.0.0.1")) == ["http://127.0.0.1/3"]
        assert urls(idx.search("经济", kinds=[""])) == ["http://127.0.0.1/3"]
        assert urls(idx.search("经济", kinds=["", "article"], host="com")) == [
            "http://news.example.com/2"
        ]
    finally:
        idx.close()


def test_a_search_answers_while_a_batch_is_being_written(index: SearchIndex) -> None:
    """Searches read through their own connection: a writer holding the index (a rebuild's big
    batch) does not make them wait."""
    with index._lock:  # what add_many holds while it writes
        done: list[list[str]] = []
        t = threading.Thread(target=lambda: done.append(urls(index.search("RATES"))))
        t.start()
        t.join(10)
        assert done == [["http://world.example.com/rates.html"]]


def test_an_index_of_an_older_schema_is_made_again(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        CREATE TABLE docs (seq INTEGER PRIMARY KEY, url TEXT);
        INSERT INTO docs VALUES (7, 'http://a.example.com/');
        CREATE TABLE latest (url TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
        CREATE VIRTUAL TABLE fts USING fts5(url, title, text, content='');
        """
    )
    con.commit()
    con.close()
    idx = SearchIndex(path)
    try:
        assert idx.last_seq() == 0 and idx.count() == 0  # the indexer starts again from nothing
        idx.add_many([doc(1, "http://a.example.com/x", "hello world")])
        assert urls(idx.search("hello", host="a.example.com")) == ["http://a.example.com/x"]
    finally:
        idx.close()
