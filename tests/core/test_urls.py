from __future__ import annotations

import pytest

from crawler_gui.core.urls import canonicalize, check_lines, host_of
from crawler_gui.errors import InvalidURLError


@pytest.mark.parametrize(
    ("raw", "url", "host"),
    [
        (
            "HTTP://News.Sina.COM.cn:80/a/./b/../c.html#frag",
            "http://news.sina.com.cn/a/c.html",
            "news.sina.com.cn",
        ),
        ("https://example.com:443", "https://example.com/", "example.com"),
        ("http://example.com:8080/x", "http://example.com:8080/x", "example.com:8080"),
        (
            "https://例子.中国/路径",
            "https://xn--fsqu00a.xn--fiqs8s/%E8%B7%AF%E5%BE%84",
            "xn--fsqu00a.xn--fiqs8s",
        ),
        ("http://a.com/%7euser/%2f?x=%e4%b8%ad", "http://a.com/~user/%2F?x=%E4%B8%AD", "a.com"),
        ("http://a.com/a b", "http://a.com/a%20b", "a.com"),
        ("http://a.com/100%", "http://a.com/100%25", "a.com"),
        ("http://a.com/p?utm_source=x&id=3&fbclid=y&UTM_medium=z", "http://a.com/p?id=3", "a.com"),
        ("http://a.com/../../x", "http://a.com/x", "a.com"),
        ("  http://a.com/x\n", "http://a.com/x", "a.com"),
        ("http://127.0.0.5:8631/s/1", "http://127.0.0.5:8631/s/1", "127.0.0.5:8631"),
        ("http://a.com./x", "http://a.com/x", "a.com"),
        ("http://a.com/a\x00b", "http://a.com/a%00b", "a.com"),  # the standard escapes a NUL
    ],
)
def test_canonical_forms(raw: str, url: str, host: str) -> None:
    assert canonicalize(raw) == (url, host)
    assert host_of(url) == host
    assert canonicalize(url) == (url, host)  # idempotent


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("", "empty"),
        ("javascript:alert(1)", "scheme"),
        ("mailto:a@b.com", "scheme"),
        ("//a.com/x", "scheme"),
        ("http://localhost/", "host_without_dot"),
        ("http://a.com:99999/", "bad_port"),
        ("http://a.com:x/", "bad_port"),
        ("http://a..com/", "bad_host"),
        ("http://a_b$.com/", "bad_host"),
        ("http://" + "a" * 64 + ".com/", "long_host"),
        ("http://www." + "\u00e9" * 64 + ".com/", "long_host"),
        ("http://" + "abcdefghi." * 25 + "comx/", "long_host"),  # 254 characters
        ("http://" + "a" * 64 + ".com./", "long_host"),
        ("http://u:p@a.com/", "userinfo"),
        ("http://[::1]/", "host_without_dot"),
        ("http://a.com/" + "x" * 2100, "too_long"),
    ],
)
def test_refusals_carry_a_reason(raw: str, reason: str) -> None:
    with pytest.raises(InvalidURLError) as info:
        canonicalize(raw)
    assert info.value.reason == reason


def test_hosts_at_the_dns_limits_are_accepted() -> None:
    label = "a" * 63
    assert canonicalize(f"http://{label}.com/")[1] == f"{label}.com"
    host = "abcdefghi." * 24 + "abcdefghi.com"  # 253 characters
    assert len(host) == 253 and canonicalize(f"http://{host}/")[1] == host


def test_check_lines_reports_each_line() -> None:
    rows = check_lines(["# comment", "", "http://a.com/", "ftp://b.com/", "  https://C.com "])
    assert rows == [
        (3, "http://a.com/", "http://a.com/", None),
        (4, "ftp://b.com/", None, "scheme"),
        (5, "https://C.com", "https://c.com/", None),
    ]
