"""engine.export: one record definition for the command line and the window; JSON Lines and
CSV; written whole or not at all."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from crawler_gui.engine.export import (
    CSV_FIELDS,
    ExportCancelled,
    article_records,
    atomic_text_file,
    page_records,
    write_records,
)
from crawler_gui.engine.store import PageRecord, PageStore


def rec(i: int) -> PageRecord:
    u = f"http://127.0.0.1:8631/a{i}.html"
    return PageRecord(
        u, u, 200, 1_700_000_000.0 + i, "text/html", "utf-8", f"标题{i}", 1, 10, 0.1, None, ()
    )


@pytest.fixture
def store(tmp_path: Path):
    with PageStore.open(tmp_path / "pages") as s:
        for i in range(1, 8):
            seq = s.add(rec(i))
            if i % 2:
                art = {"title": f"t{i}", "text": f"正文 {i}\nline 2", "authors": ["A, B"]}
                s.add_extraction(
                    seq,
                    {"kind": "article", "why": "w", "article": art, "part": 2, "article_url": "u"},
                )
            else:
                s.add_extraction(seq, {"kind": "list", "why": "w"})
        s.flush_sync()
        yield s


def test_pages_and_articles_as_jsonl_match_the_store_export(store: PageStore) -> None:
    out = io.StringIO()
    assert write_records(out, page_records(store)) == 7
    legacy = io.StringIO()
    store.export_jsonl(legacy)
    assert out.getvalue() == legacy.getvalue()
    arts = io.StringIO()
    assert write_records(arts, article_records(store), kind="articles") == 4
    lines = [json.loads(x) for x in arts.getvalue().splitlines()]
    assert all(x["kind"] == "article" for x in lines)
    assert lines[0]["article"]["text"] == "正文 1\nline 2"


def test_csv_has_every_field_and_nested_values_as_json(store: PageStore) -> None:
    out = io.StringIO()
    assert write_records(out, page_records(store), fmt="csv", kind="pages") == 7
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == CSV_FIELDS["pages"]
    assert len(rows) == 7
    assert json.loads(rows[0]["article"])["authors"] == ["A, B"]
    assert rows[0]["part"] == "2" and rows[1]["part"] == "" and rows[1]["kind"] == "list"
    assert rows[0]["redirect_chain"] == "[]" and rows[0]["referrer"] == ""
    with pytest.raises(ValueError):  # a key outside the columns is an error, never dropped
        write_records(io.StringIO(), [{"nope": 1}], fmt="csv", kind="pages")
    with pytest.raises(ValueError, match="unknown text export format"):
        write_records(io.StringIO(), [], fmt="xml")


def test_a_cancelled_or_failed_export_leaves_the_old_file(store: PageStore, tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    seen: list[int] = []
    with pytest.raises(ExportCancelled), atomic_text_file(target) as fh:
        write_records(
            fh, page_records(store), progress=seen.append, cancelled=lambda: len(seen) >= 1, every=2
        )
    assert target.read_text() == "old\n"
    assert seen == [2]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    with atomic_text_file(target) as fh:
        assert write_records(fh, page_records(store), progress=seen.append, every=2) == 7
    assert len(target.read_text().splitlines()) == 7
    assert seen[-1] == 7


def _warc_records(path: Path) -> list[tuple[str, str, bytes, dict[str, str]]]:
    """(type, target URI, payload, HTTP headers) of every record, read back with warcio."""
    from warcio.archiveiterator import ArchiveIterator

    out = []
    with open(path, "rb") as fh:
        for r in ArchiveIterator(fh):
            headers = dict(r.http_headers.headers) if r.http_headers else {}
            out.append(
                (
                    r.rec_type,
                    r.rec_headers.get_header("WARC-Target-URI"),
                    r.content_stream().read(),
                    headers,
                )
            )
    return out


def test_warc_export_of_pages_and_articles(tmp_path: Path) -> None:
    from crawler_gui.engine.export import atomic_file, check_choice, write_warc
    from crawler_gui.engine.store import make_detail
    from crawler_gui.errors import ConfigError

    with PageStore.open(tmp_path / "pages") as s:
        # 1: an article with its fetch detail; 2: a list page stored before detail existed;
        # 3: a page whose body was not kept
        a = "http://127.0.0.1:8631/a1.html"
        s.add_detail(
            s.add(replace_body(rec(1), "<p>正文</p>".encode())),
            make_detail(
                response_headers=[
                    ("Content-Type", "text/html; charset=utf-8"),
                    ("ETag", '"x"'),
                    ("Content-Encoding", "gzip"),
                ]
            ),
        )
        s.add_extraction(
            1, {"kind": "article", "why": "w", "article": {"title": "标题", "text": "正文"}}
        )
        s.add(replace_body(rec(2), b"<ul><li>list</li></ul>"))
        s.add_extraction(2, {"kind": "list", "why": "links"})
        s.add(rec(3))
        s.flush_sync()
        target = tmp_path / "out.warc.gz"
        seen: list[int] = []
        with atomic_file(target, binary=True) as fh:
            result = write_warc(fh, s, kind="pages", progress=seen.append, every=1)
        assert (result.pages, result.without_body) == (2, 1)
        assert seen[-1] == 3
        recs = _warc_records(target)
        assert [(t, u) for t, u, _, _ in recs] == [
            ("warcinfo", None),
            ("response", a),
            ("metadata", a),
            ("response", "http://127.0.0.1:8631/a2.html"),
        ]
        _, _, body, headers = recs[1]
        assert body == "<p>正文</p>".encode()
        assert headers["ETag"] == '"x"' and "Content-Encoding" not in headers
        assert headers["Content-Length"] == str(len(body))
        assert json.loads(recs[2][2])["article"]["title"] == "标题"
        assert recs[3][3] == {"Content-Type": "text/html", "Content-Length": "22"}

        arts = tmp_path / "arts.warc.gz"
        with atomic_file(arts, binary=True) as fh:
            assert write_warc(fh, s, kind="articles").pages == 1
        assert [t for t, *_ in _warc_records(arts)] == ["warcinfo", "response", "metadata"]

        # cancelled: the old file stays
        arts.write_bytes(b"old")
        with pytest.raises(ExportCancelled), atomic_file(arts, binary=True) as fh:
            write_warc(fh, s, kind="pages", cancelled=lambda: True, every=1)
        assert arts.read_bytes() == b"old"
    with pytest.raises(ConfigError, match="WARC file holds pages or articles"):
        check_choice("outcomes", "warc")
    with pytest.raises(ConfigError, match="unknown export format"):
        check_choice("pages", "xml")


def replace_body(r: PageRecord, body: bytes) -> PageRecord:
    from dataclasses import replace

    return replace(r, body=body, size=len(body))
