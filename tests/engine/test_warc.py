"""WarcWriter: records read back with warcio's own reader."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from crawler_gui.engine.warc import WarcError, WarcWriter

T0 = 1_700_000_000.0


def _responses(path: Path) -> list[tuple[str, int, str, bytes, str | None, str | None]]:
    out = []
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            out.append(
                (
                    rec.rec_headers.get_header("WARC-Target-URI"),
                    int(rec.http_headers.get_statuscode()),
                    rec.http_headers.get_header("Content-Type"),
                    rec.content_stream().read(),
                    rec.rec_headers.get_header("WARC-IP-Address"),
                    rec.rec_headers.get_header("WARC-Date"),
                )
            )
    return out


def test_two_records_round_trip(tmp_path: Path) -> None:
    body1 = "<html><title>你好</title>hello</html>".encode()
    body2 = b"not found"
    with WarcWriter(tmp_path) as w:
        w.write(
            "http://127.0.0.1:8631/a.html",
            200,
            [("Content-Type", "text/html; charset=utf-8"), ("Content-Encoding", "gzip")],
            body1,
            T0,
            "127.0.0.1",
        )
        w.write(
            "http://127.0.0.2:8631/gone", 404, [("Content-Type", "text/plain")], body2, T0 + 1, None
        )
        assert w.records == 2
    files = sorted(tmp_path.glob("crawler-gui-*.warc.gz"))
    assert len(files) == 1
    # Real gzip members.
    assert gzip.decompress(files[0].read_bytes()).startswith(b"WARC/1.")
    with open(files[0], "rb") as fh:
        types = [r.rec_type for r in ArchiveIterator(fh)]
    assert types == ["warcinfo", "response", "response"]
    recs = _responses(files[0])
    assert recs[0][:4] == ("http://127.0.0.1:8631/a.html", 200, "text/html; charset=utf-8", body1)
    assert recs[0][4] == "127.0.0.1"
    assert recs[0][5] == "2023-11-14T22:13:20Z"
    assert recs[1][:4] == ("http://127.0.0.2:8631/gone", 404, "text/plain", body2)
    assert recs[1][4] is None


def test_decoded_body_headers_are_consistent(tmp_path: Path) -> None:
    body = b"x" * 1234
    with WarcWriter(tmp_path) as w:
        w.write(
            "http://127.0.0.1/x",
            200,
            [
                ("Content-Encoding", "br"),
                ("Transfer-Encoding", "chunked"),
                ("Content-Length", "99"),
            ],
            body,
            T0,
            None,
        )
    (path,) = tmp_path.glob("*.warc.gz")
    seen = 0
    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response":
                continue
            seen += 1
            assert rec.http_headers.get_header("Content-Encoding") is None
            assert rec.http_headers.get_header("Transfer-Encoding") is None
            assert rec.http_headers.get_header("Content-Length") == "1234"
            assert rec.content_stream().read() == body
    assert seen == 1


def test_rotation_over_max_size(tmp_path: Path) -> None:
    import random

    rng = random.Random(3)
    bodies = [rng.randbytes(3000) for _ in range(5)]  # incompressible
    with WarcWriter(tmp_path, prefix="t", max_size=5000) as w:
        for i, b in enumerate(bodies):
            w.write(f"http://127.0.0.1/{i}", 200, [], b, T0 + i, None)
        assert len(w.files) >= 3
    files = sorted(tmp_path.glob("t-*.warc.gz"))
    assert files == sorted(w.files)
    got = [r for f in files for r in _responses(f)]
    assert [u for u, *_ in got] == [f"http://127.0.0.1/{i}" for i in range(5)]
    assert [r[3] for r in got] == bodies


def test_write_async_runs_off_loop(tmp_path: Path) -> None:
    import threading

    w = WarcWriter(tmp_path)
    threads: set[int] = set()
    original = w.write

    def spy(*args: object) -> None:
        threads.add(threading.get_ident())
        original(*args)  # type: ignore[arg-type]

    w.write = spy  # type: ignore[method-assign,assignment]

    async def main() -> None:
        await asyncio.gather(
            *(
                w.write_async(f"http://127.0.0.1/{i}", 200, [], b"b%d" % i, T0, None)
                for i in range(20)
            )
        )

    asyncio.run(main())
    w.close()
    assert threading.get_ident() not in threads
    (path,) = tmp_path.glob("*.warc.gz")
    got = _responses(path)
    assert sorted(u for u, *_ in got) == sorted(f"http://127.0.0.1/{i}" for i in range(20))
    assert {u: b for u, _s, _c, b, *_ in got}["http://127.0.0.1/7"] == b"b7"


def test_write_after_close_raises(tmp_path: Path) -> None:
    w = WarcWriter(tmp_path)
    w.close()
    with pytest.raises(WarcError):
        w.write("http://127.0.0.1/", 200, [], b"", T0, None)
