"""The pages' full-text index: Chinese words of one, two and more characters, English words,
newest first, one document per URL, hostile query text, and foreign or newer indexes refused."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from crawler_gui.engine import search as search_mod
from crawler_gui.engine.search import (
    BULK_THREADS,
    SCHEMA_VERSION,
    VERSION_FILE,
    WRITER_THREADS,
    SearchDoc,
    SearchIndex,
    query_terms,
    split_cjk,
)
from crawler_gui.errors import StoreError

ZH = "国务院常务会议部署稳就业举措，要求各地加大对中小企业的支持力度。"
EN = "Central banks held interest rates steady on Thursday, citing resilient employment."


def doc(seq: int, url: str, text: str = "", title: str = "", kind: str = "article") -> SearchDoc:
    host = url.split("/")[2]
    return SearchDoc(seq, url, host, title, text, kind, 200, 1_700_000_000.0 + seq)


@pytest.fixture
def index(tmp_path: Path):
    idx = SearchIndex(tmp_path / "search")
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


def test_a_single_chinese_character_is_found_anywhere_in_a_run(index: SearchIndex) -> None:
    """One character is a term of its own (not the prefix of every pair it starts): found at
    the start, in the middle and at the end of a run, in the text and in the title."""
    assert urls(index.search("稳")) == [
        "http://news.example.cn/b.html",
        "http://news.example.cn/a.html",
    ]
    assert urls(index.search("务")) == ["http://news.example.cn/a.html"]  # mid-run
    assert urls(index.search("滚")) == ["http://news.example.cn/list.html"]  # a title's
    assert urls(index.search("度")) == ["http://news.example.cn/a.html"]  # before "。"
    assert index.search("龘") == []


def test_a_single_character_with_words_filters_and_paging(tmp_path: Path) -> None:
    """A character's pairs (listed from the term dictionaries) are one term among the others:
    with words, a host filter, a limit and paging, and at the end of a run (alone)."""
    idx = SearchIndex(tmp_path / "s")
    try:
        idx.add_many(
            [
                doc(1, "http://a.example.cn/1", "稳就业 alpha"),
                doc(2, "http://b.example.com/2", "稳 beta"),  # a run of one
                doc(3, "http://a.example.cn/3", "就业稳 alpha"),  # the run's last
                doc(4, "http://a.example.cn/4", "就业 alpha"),
            ]
        )
        seqs = lambda hits: [h.seq for h in hits]  # noqa: E731
        assert seqs(idx.search("稳")) == [3, 2, 1]
        assert seqs(idx.search("稳 alpha")) == [3, 1]
        assert seqs(idx.search("稳", host="example.com")) == [2]
        assert seqs(idx.search("稳", limit=1)) == [3]
        assert seqs(idx.search("稳", before=3)) == [2, 1]
        assert seqs(idx.search("就")) == [4, 3, 1]
        assert idx.search("稳 gamma") == [] and idx.search("龘 alpha") == []
    finally:
        idx.close()


def test_phrases_of_chinese_words_need_their_characters_adjacent_and_in_order(
    tmp_path: Path,
) -> None:
    """A word of three or more characters is the phrase of its pairs: each pair present
    somewhere is not enough."""
    idx = SearchIndex(tmp_path / "s")
    try:
        idx.add_many(
            [
                doc(1, "http://a.example.cn/1", "中小企业发展"),
                doc(2, "http://a.example.cn/2", "中小学校，小企业"),  # 中小 and 小企 apart
                doc(3, "http://a.example.cn/3", "企业小中"),
            ]
        )
        assert urls(idx.search("中小企业")) == ["http://a.example.cn/1"]
        assert urls(idx.search("小企业")) == ["http://a.example.cn/2", "http://a.example.cn/1"]
        assert urls(idx.search("中小")) == ["http://a.example.cn/2", "http://a.example.cn/1"]
        assert urls(idx.search("小中")) == ["http://a.example.cn/3"]
        assert idx.search("业小中企") == []
        assert urls(idx.search("中小 企业")) == ["http://a.example.cn/2", "http://a.example.cn/1"]
    finally:
        idx.close()


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
    idx = SearchIndex(tmp_path / "search")
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
    assert index.search("，。") == []
    assert index.search("就业", limit=0) == []


def test_prepared_text_and_query_terms() -> None:
    """A CJK run's pairs, in order, with its first and last character alone around them; no
    pair across other characters; a query's CJK run a term (one or two characters) or the
    phrase of its pairs, other words cut and folded as the index does."""

    def cut(text: str) -> tuple[list[str], list[str]]:
        pairs, rest = split_cjk(text)
        return pairs.split(), rest.split()

    assert cut("稳就业 ok") == (["稳", "稳就", "就业", "业"], ["ok"])
    assert cut("a中b，国家x") == (["中", "中", "国", "国家", "家"], ["a", "b，", "x"])
    assert cut("中") == (["中", "中"], [])
    assert cut("Rates held.") == ([], ["Rates", "held."])
    assert cut("Crème brûlée") == ([], ["Crème", "brûlée"])  # (not ASCII: the regex's way)
    assert cut("") == ([], [])
    assert cut("a稳就b") == (["稳", "稳就", "就"], ["a", "b"])
    assert query_terms('就业 "Rates"') == [("pairs", ["就业"]), ("words", ["rates"])]
    assert query_terms("稳就业") == [("pairs", ["稳就", "就业"])]
    assert query_terms("稳") == [("first", ["稳"])]
    assert query_terms("Crème-brûlée_2") == [("words", ["creme"]), ("words", ["brulee"]),
                                              ("words", ["2"])]  # fmt: skip
    assert query_terms("  ，。！ ") == []


def test_clear_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s"
    idx = SearchIndex(path)
    idx.add_many([doc(1, "http://a.example.com/x", "hello world"), doc(5, "http://b/", "x")])
    idx.close()
    idx = SearchIndex(path)
    assert urls(idx.search("hello")) == ["http://a.example.com/x"]
    assert idx.last_seq() == 5 and idx.count() == 2  # read back from the index
    assert idx.size_bytes() > 0
    idx.clear()
    assert idx.search("hello") == [] and idx.count() == 0 and idx.last_seq() == 0
    idx.close()


def test_a_transaction_is_seen_whole_or_not_at_all(tmp_path: Path) -> None:
    idx = SearchIndex(tmp_path / "s")
    try:
        with idx.transaction():
            idx.add_many([doc(1, "http://a.example.com/1", "first words")])
            assert idx.search("first") == []  # not committed yet
            idx.add_many([doc(2, "http://a.example.com/2", "second words")])
        assert urls(idx.search("words")) == ["http://a.example.com/2", "http://a.example.com/1"]
        with pytest.raises(RuntimeError), idx.transaction():
            idx.add_many([doc(3, "http://a.example.com/3", "third words")])
            raise RuntimeError("the page store failed")
        assert idx.search("third") == [] and idx.last_seq() == 2
        idx.add_many([doc(3, "http://a.example.com/3", "third words")])  # goes on after it
        assert urls(idx.search("third")) == ["http://a.example.com/3"]
    finally:
        idx.close()


def test_a_foreign_or_newer_index_is_refused(tmp_path: Path) -> None:
    """Refused, and left as it is: a folder of someone else's files, a file, a version file
    that cannot be read, an index of a newer schema."""
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a crawler-gui search index"):
        SearchIndex(foreign)
    assert (foreign / "notes.txt").read_text() == "mine"
    a_file = tmp_path / "file"
    a_file.write_bytes(b"not an index" * 100)
    with pytest.raises(StoreError, match="not a crawler-gui search index"):
        SearchIndex(a_file)
    junk = tmp_path / "junk"
    SearchIndex(junk).close()
    (junk / VERSION_FILE).write_text("{not json")
    with pytest.raises(StoreError, match="without a schema version"):
        SearchIndex(junk)
    newer = tmp_path / "newer"
    SearchIndex(newer).close()
    (newer / VERSION_FILE).write_text(json.dumps({"schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(StoreError, match="rebuild"):
        SearchIndex(newer)
    assert (newer / VERSION_FILE).exists()


def test_bigrams_do_not_cross_punctuation_or_other_words(tmp_path: Path) -> None:
    idx = SearchIndex(tmp_path / "s")
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
    """The host, status and kind terms live in fields the user's words do not search: a word
    spelled like one of them finds nothing (the URL's words are searched)."""
    assert index.search("article") == []
    assert index.search("rates list") == []  # "list" is in another page's URL only
    assert index.search("200") == []
    assert len(index.search("example")) == 4


def test_host_filter_takes_parent_domains_and_unextracted_pages(tmp_path: Path) -> None:
    idx = SearchIndex(tmp_path / "s")
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
    """Searches read the last commit: a writer holding the index (a rebuild's big batch) does
    not make them wait."""
    with index._lock:  # what add_many holds while it writes
        done: list[list[str]] = []
        t = threading.Thread(target=lambda: done.append(urls(index.search("RATES"))))
        t.start()
        t.join(10)
        assert done == [["http://world.example.com/rates.html"]]


def test_an_index_of_an_older_schema_is_made_again(tmp_path: Path) -> None:
    """An index folder of an older schema is emptied and made again (it is derived from the
    page store: the indexer catches up from the first page) instead of refusing to search."""
    path = tmp_path / "old"
    idx = SearchIndex(path)
    idx.add_many([doc(7, "http://a.example.com/old", "hello world")])
    idx.close()
    (path / VERSION_FILE).write_text(json.dumps({"schema_version": SCHEMA_VERSION - 1}))
    idx = SearchIndex(path)
    try:
        assert idx.last_seq() == 0 and idx.count() == 0 and idx.search("hello") == []
        assert json.loads((path / VERSION_FILE).read_text()) == {"schema_version": SCHEMA_VERSION}
        idx.add_many([doc(1, "http://a.example.com/x", "hello world")])
        assert urls(idx.search("hello", host="a.example.com")) == ["http://a.example.com/x"]
    finally:
        idx.close()


def test_the_newest_pages_of_a_host_whatever_their_text(tmp_path: Path) -> None:
    """A host's recent results (the Host detail): its pages and its subdomains', newest first,
    each URL once, with or without text; another host's never; no host, nothing."""
    idx = SearchIndex(tmp_path / "s")
    try:
        idx.add_many(
            [
                doc(1, "http://news.example.cn/a", "就业"),
                doc(2, "http://m.news.example.cn/b", "", kind=""),
                doc(3, "http://other.example.cn/c", "就业"),
                doc(4, "http://news.example.cn/a", "again"),
                doc(5, "http://news.example.cn/list", "", kind="list"),
            ]
        )
        hits = idx.newest(host="NEWS.example.cn")
        assert [(h.seq, h.url, h.kind) for h in hits] == [
            (5, "http://news.example.cn/list", "list"),
            (4, "http://news.example.cn/a", "article"),
            (2, "http://m.news.example.cn/b", ""),
        ]
        assert [h.seq for h in idx.newest(host="news.example.cn", limit=2)] == [5, 4]
        assert [h.seq for h in idx.newest(host="news.example.cn", before=5, kinds=["list"])] == []
        assert idx.newest(host=" . ") == []
    finally:
        idx.close()


def test_an_index_is_made_only_in_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot make the search index"):
        SearchIndex(tmp_path / "no such pool" / "search")
    assert not (tmp_path / "no such pool").exists()


def test_newest_first_through_widening_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newest sequence numbers are searched first, then wider windows: hits spread over
    the whole index are all found, newest first, whatever the window, paging included."""
    monkeypatch.setattr(search_mod, "WINDOW", 2)
    idx = SearchIndex(tmp_path / "s")
    try:
        idx.add_many(
            [doc(i, f"http://a.example.com/{i}", "rare" if i in (1, 40, 77) else "common")
             for i in range(1, 101)]
        )  # fmt: skip
        assert [h.seq for h in idx.search("rare")] == [77, 40, 1]
        assert [h.seq for h in idx.search("rare", limit=2)] == [77, 40]
        assert [h.seq for h in idx.search("rare", before=40)] == [1]
        assert [h.seq for h in idx.search("common", limit=3)] == [100, 99, 98]
        assert [h.seq for h in idx.search("common", limit=3, before=3)] == [2]
        assert len(idx.search("common", limit=500)) == 97
    finally:
        idx.close()


def _indexing_threads() -> int:
    """tantivy's indexing threads in this process, by their names (``thrd-tantivy-index0``...,
    cut to 15 bytes by Linux)."""
    tasks = Path("/proc/self/task")
    names = []
    for task in tasks.iterdir():
        try:
            names.append((task / "comm").read_text())
        except OSError:  # (a thread that ended meanwhile)
            continue
    return sum(1 for name in names if name.startswith("thrd-tantivy-in"))


def _wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout  # (a thread is named just after it starts)
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="counts threads by their names in /proc (Linux)"
)
def test_a_bulk_build_writes_with_more_indexing_threads_then_goes_back(tmp_path: Path) -> None:
    """A rebuild's writer has BULK_THREADS indexing threads, the writer beside a crawl
    WRITER_THREADS; what each wrote is committed when the other is made."""
    base = _indexing_threads()  # (other tests' writers still being let go, if any)
    idx = SearchIndex(tmp_path / "s")
    try:
        idx.add_many([doc(1, "http://a.example.com/0", "before")])
        _wait_for(lambda: _indexing_threads() == base + WRITER_THREADS)
        with idx.bulk():
            assert idx.writer_threads == BULK_THREADS
            with idx.transaction():
                idx.add_many([doc(i, f"http://a.example.com/{i}", "bulk") for i in range(2, 400)])
                _wait_for(lambda: _indexing_threads() == base + BULK_THREADS)
            assert len(idx.search("bulk", limit=1000)) == 398
            idx.add_many([doc(400, "http://a.example.com/400", "last")])
        assert idx.writer_threads == WRITER_THREADS
        assert urls(idx.search("last")) == ["http://a.example.com/400"]
        idx.add_many([doc(401, "http://a.example.com/0", "after")])  # replaces page 1
        _wait_for(lambda: _indexing_threads() == base + WRITER_THREADS)
        assert idx.search("before") == [] and idx.count() == 400
    finally:
        idx.close()


def test_where_the_first_window_starts(
    index: SearchIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the first window starts (the newest seq): the newest page this object wrote, or,
    for an index only read, a scan of the whole ``seq`` column once per commit. A start
    below the newest (a clear, a rollback) never hides the newer pages."""
    calls: list[int] = []
    real = index._top
    monkeypatch.setattr(index, "_top", lambda searcher: calls.append(1) or real(searcher))
    assert len(index.search("就业")) == 2 and len(index.search("rates")) == 1
    index.add_many([doc(9, "http://news.example.cn/c.html", "就业 again")])
    assert urls(index.search("就业"))[0] == "http://news.example.cn/c.html"
    assert calls == []  # (the writer knows its newest page)
    index.clear()
    assert index.search("就业") == []
    index.add_many([doc(3, "http://news.example.cn/d.html", "就业 anew")])
    assert urls(index.search("就业")) == ["http://news.example.cn/d.html"]
    with pytest.raises(RuntimeError), index.transaction():
        index.add_many([doc(20, "http://news.example.cn/e.html", "就业 lost")])
        raise RuntimeError("the page store failed")
    assert urls(index.search("就业")) == ["http://news.example.cn/d.html"]
    assert calls == [1]  # (a rollback forgets it: found again from the commit)

    # An index only read (another object's commits): once per commit it reads.
    index.add_many([doc(30, "http://news.example.cn/f.html", "就业 more")])
    reader = SearchIndex(tmp_path / "search")
    seen: list[int] = []
    real_reader = reader._top
    monkeypatch.setattr(reader, "_top", lambda searcher: seen.append(1) or real_reader(searcher))
    try:
        assert [h.seq for h in reader.search("就业")] == [30, 3]
        assert [h.seq for h in reader.search("就业", before=30)] == [3]
        assert seen == [1]
    finally:
        reader.close()
    # A start below the newest: the first window reaches up to the newest all the same.
    monkeypatch.setattr(search_mod, "WINDOW", 1)
    monkeypatch.setattr(index, "_last_seq", 1)
    assert [h.seq for h in index.search("就业", limit=1)] == [30]
    assert [h.seq for h in index.search("就业")] == [30, 3]


def _index_maps(folder: Path) -> dict[str, bool]:
    """This process's memory maps of the index's files read at random (all but the fast
    fields, read whole): file name -> advised random reads (``rr`` among the map's
    ``VmFlags`` in ``/proc/self/smaps``)."""
    prefix = str(folder.resolve()) + "/"
    out: dict[str, bool] = {}
    current: str | None = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(None, 5)
        if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            name = head[5] if len(head) == 6 else ""
            current = name if name.startswith(prefix) and not name.endswith(".fast") else None
        elif current is not None and line.startswith("VmFlags:"):
            out[Path(current).name] = out.get(Path(current).name, True) and (
                "rr" in line.split()[1:]
            )
    return out


@pytest.mark.skipif(
    not Path("/proc/self/smaps").is_file(), reason="reads the maps' flags in /proc (Linux)"
)
def test_the_index_files_are_read_at_random_without_read_ahead(tmp_path: Path) -> None:
    """Every map of the index's files is advised random reads, those of segments made by a
    later commit too: a page fault then reads that page, not the device's read-ahead window
    around it (8 MB on some disks: a cold search read a third of the index)."""
    folder = tmp_path / "search"
    idx = SearchIndex(folder)
    try:
        idx.add_many([doc(1, "http://news.example.cn/a.html", ZH, "稳就业举措出台")])
        assert urls(idx.search("就业")) == ["http://news.example.cn/a.html"]
        first = _index_maps(folder)
        assert any(name.endswith(".idx") for name in first), first
        assert all(first.values()), first
        idx.add_many([doc(2, "http://world.example.com/rates.html", EN, "Rates held")])
        assert urls(idx.search("rates")) == ["http://world.example.com/rates.html"]
        later = _index_maps(folder)
        assert set(later) - set(first), "the second commit's segment is mapped"
        assert all(later.values()), later
    finally:
        idx.close()
    reopened = SearchIndex(folder)
    try:
        assert len(reopened.search("就业")) == 1
        maps = _index_maps(folder)
        assert maps and all(maps.values()), maps
    finally:
        reopened.close()
