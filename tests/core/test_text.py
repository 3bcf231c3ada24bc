"""Text from the network made fit to store (core/text.py)."""

from __future__ import annotations

from crawler_gui.core.text import header_text, mend_text, mended

#: A header's "café" in ISO-8859-1, as the HTTP client hands it on (``surrogateescape``).
RAW_LATIN1 = b"caf\xe9".decode("utf-8", "surrogateescape")


def test_a_header_whose_bytes_are_not_utf8_reads_as_latin1() -> None:
    assert header_text(RAW_LATIN1) == "café"
    assert header_text("text/html; charset=utf-8") == "text/html; charset=utf-8"
    assert header_text("café") == "café"  # UTF-8 already: as it is
    # One byte that is not UTF-8 makes the whole value Latin-1 (its UTF-8 "é" reads as two).
    assert header_text("café " + RAW_LATIN1) == "cafÃ© café"
    assert header_text("x\ud800") == "x\ufffd"  # a surrogate no byte could have made


def test_text_is_mended_into_text_utf8_takes() -> None:
    assert mend_text("plain") == "plain"
    assert mend_text("新闻 😀") == "新闻 😀"
    assert mend_text("a\ud83d\ude00b") == "a😀b"  # a pair, as JSON escapes write one
    assert mend_text("a\ud83db\ude00") == "a\ufffdb\ufffd"  # lone halves
    assert mended({"t\ud800": ["x\udce9", 1, None, ("y",)], "n": 2.5}) == {
        "t\ufffd": ["x\ufffd", 1, None, ["y"]],
        "n": 2.5,
    }
    for value in ("a\ud83db", RAW_LATIN1, "\udfff\ud800"):
        mend_text(value).encode("utf-8")  # never raises
