"""decode_body: declared charsets verified, CJK aliases, fallbacks; sniff_kind."""

from __future__ import annotations

import codecs

from crawler_gui.engine.decode import decode_body, normalize_label, sniff_kind

CHINESE = "<p>新闻中心 今日要闻 国际新闻 体育新闻 财经频道 科技动态 北京 上海 广州</p>\n" * 30


def test_fast_path_pure_ascii() -> None:
    assert decode_body(b"<html>plain ascii</html>", "text/html; charset=utf-8") == (
        "<html>plain ascii</html>",
        "ascii",
    )
    assert decode_body(b"", None) == ("", "utf-8")


def test_fast_path_valid_utf8_without_label() -> None:
    text = "<html>café — naïve 日本語</html>"
    assert decode_body(text.encode(), None) == (text, "utf-8")
    assert decode_body(text.encode(), "text/html; charset=utf-8") == (text, "utf-8")


def test_header_charset_used_when_bytes_fit() -> None:
    text = "<html>Привет, мир! Новости дня</html>"
    got, encoding = decode_body(text.encode("cp1251"), 'text/html; charset="windows-1251"')
    assert got == text
    assert encoding == "cp1251"


def test_page_labelled_utf8_that_is_gbk_falls_through() -> None:
    html = "<html><head><title>新闻</title></head><body>" + CHINESE + "</body></html>"
    got, encoding = decode_body(html.encode("gbk"), "text/html; charset=UTF-8")
    assert got == html
    assert encoding == "gb18030"


def test_gb2312_labelled_only_in_meta_charset() -> None:
    html = '<html><head><meta charset="gb2312"><title>新闻</title></head>' + CHINESE
    got, encoding = decode_body(html.encode("gb2312"), "text/html")
    assert got == html
    assert encoding == "gb18030"


def test_meta_http_equiv_content_type_charset() -> None:
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=GBK">'
        "<title>标题</title></head>" + CHINESE
    )
    got, encoding = decode_body(html.encode("gbk"), None)
    assert got == html and encoding == "gb18030"


def test_gbk_only_characters_decode_under_gb2312_label() -> None:
    html = '<meta charset="gb2312">' + "镕 喆 堃 " * 20  # outside GB2312, inside GBK
    got, _ = decode_body(html.encode("gbk"), "text/html; charset=gb2312")
    assert got == html


def test_big5_reads_as_big5hkscs() -> None:
    html = "<meta charset=big5>" + "香港新聞 今日頭條 " * 20
    got, encoding = decode_body(html.encode("big5hkscs"), "text/html; charset=big5")
    assert got == html and encoding == "big5hkscs"


def test_bom_wins_over_nothing() -> None:
    text = "<html>ünïcödé</html>"
    got, encoding = decode_body(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), None)
    assert got == text and encoding == "utf-16-le"
    got, encoding = decode_body(codecs.BOM_UTF8 + text.encode(), "text/html")
    assert got == text and encoding == "utf-8"


def test_unknown_and_non_text_labels_do_not_crash() -> None:
    text = "<html>grüße</html>"
    for label in ("x-no-such-charset", "base64", "rot13", "zlib", "", '""', "utf-8;;;"):
        got, _ = decode_body(text.encode(), f"text/html; charset={label}")
        assert got == text, label
    assert normalize_label("bogus") is None
    assert normalize_label("base64") is None


def test_latin1_label_on_utf8_body_reads_utf8() -> None:
    text = "<html>Crème brûlée</html>"
    assert decode_body(text.encode(), "text/html; charset=ISO-8859-1") == (text, "utf-8")


def test_real_latin1_page_reads_as_windows_1252() -> None:
    text = "<html>café “quoted” déjà vu</html>"
    got, encoding = decode_body(text.encode("cp1252"), "text/html; charset=iso-8859-1")
    assert got == text and encoding == "cp1252"


def test_body_cut_inside_a_character_still_decodes() -> None:
    body = ("新闻" * 100).encode("gbk")[:-1]
    got, encoding = decode_body(body, "text/html; charset=gbk")
    assert encoding == "gb18030"
    assert got.startswith("新闻" * 99) and got.endswith("\ufffd")


def test_undecodable_garbage_falls_back_with_replacement() -> None:
    body = bytes(range(128, 256)) * 4
    got, _ = decode_body(body, "text/html; charset=utf-8")
    assert isinstance(got, str) and len(got) > 0


def test_sniff_binary_served_as_html() -> None:
    samples = {
        "png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 50,
        "gif": b"GIF89a" + b"\x01" * 50,
        "jpeg": b"\xff\xd8\xff\xe0" + b"JFIF" * 10,
        "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        "zip": b"PK\x03\x04" + b"\x14" * 40,
        "gzip": b"\x1f\x8b\x08\x00" + b"\x01" * 40,
        "nul": b"<html>" + b"\x00\x01\x02" * 20,
    }
    for name, body in samples.items():
        assert sniff_kind("text/html; charset=utf-8", body) == "binary", name


def test_sniff_html_text_and_declared_binary() -> None:
    page = b"<!DOCTYPE html><html><head><title>t</title></head></html>"
    assert sniff_kind("text/html", page) == "html"
    assert sniff_kind("application/xhtml+xml", page) == "html"
    assert sniff_kind(None, page) == "html"
    assert sniff_kind("application/octet-stream", b"  \n" + page) == "html"
    assert sniff_kind("text/plain", b"just words") == "text"
    assert sniff_kind("application/json", b'{"a": 1}') == "text"
    assert sniff_kind("application/rss+xml", b"<rss></rss>") == "text"
    assert sniff_kind("image/jpeg", b"anything") == "binary"
    assert sniff_kind("application/octet-stream", "\u6587".encode("gbk") * 500) == "binary"
    assert sniff_kind(None, b"plain words, no markup") == "text"


def test_sniff_utf16_html_with_bom_is_not_binary() -> None:
    body = codecs.BOM_UTF16_LE + "<html><body>hi</body></html>".encode("utf-16-le")
    assert sniff_kind("text/html", body) == "html"
