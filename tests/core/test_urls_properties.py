"""Properties of URL canonicalization and link joining over generated URLs (hypothesis): the
canonical form is a fixed point, the host key is the URL's host, fragments and tracking
parameters never make two keys, and the link extractor's fast joins agree with the standard's."""

from __future__ import annotations

import html

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawler_gui.core.urls import canonicalize, host_of, join
from crawler_gui.engine.links import extract_links
from crawler_gui.errors import InvalidURLError

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

label = st.text(
    alphabet=st.sampled_from("abcxyz019-_ABZßéü中文") | st.characters(codec="utf-8"),
    min_size=1,
    max_size=12,
)
hosts = st.lists(label, min_size=1, max_size=4).map(".".join)
segment = st.text(
    alphabet=st.sampled_from("aZ09-._~!$&'()*+,;=:@%/ é中?#\\") | st.characters(codec="utf-8"),
    max_size=10,
)
paths = st.lists(segment, max_size=5).map(lambda s: "/" + "/".join(s))
ports = st.sampled_from(["", ":80", ":443", ":8080", ":0", ":65536", ":x"])
schemes = st.sampled_from(["http://", "https://", "HTTP://", "hTtPs://", "ftp://", "http:"])
urls = st.builds(lambda s, h, p, path: s + h + p + path, schemes, hosts, ports, paths)
params = st.lists(
    st.tuples(
        st.sampled_from(["a", "id", "page", "utm_source", "gclid", "fbclid", "Q", "x y"]),
        st.text(alphabet="ab1 %é+", max_size=4),
    ),
    max_size=5,
)


def _canonical(raw: str) -> tuple[str, str] | None:
    try:
        return canonicalize(raw)
    except InvalidURLError:
        return None


@SETTINGS
@given(urls)
def test_the_canonical_form_is_a_fixed_point_with_its_host_key(raw: str) -> None:
    got = _canonical(raw)
    if got is None:
        return
    url, host = got
    assert canonicalize(url) == (url, host)
    assert host_of(url) == host
    assert url.isascii() and " " not in url and "#" not in url


@SETTINGS
@given(st.text(max_size=60))
def test_any_text_is_canonicalized_or_refused_with_a_reason(raw: str) -> None:
    try:
        canonicalize(raw)
    except InvalidURLError as exc:
        assert exc.reason


@SETTINGS
@given(urls, st.text(max_size=10))
def test_a_fragment_never_makes_another_key(raw: str, fragment: str) -> None:
    if "#" in raw:
        return
    assert _canonical(raw + "#" + fragment) == _canonical(raw)


@SETTINGS
@given(hosts, params)
def test_tracking_parameters_go_and_the_others_stay_in_order(
    host: str, pairs: list[tuple[str, str]]
) -> None:
    base = f"http://news.{host}/a"
    query = "&".join(f"{k}={v}" for k, v in pairs)
    got = _canonical(f"{base}?{query}")
    if got is None:
        return
    kept = [k for k, _v in pairs if k not in ("utm_source", "gclid", "fbclid")]
    url = got[0]
    names = [p.split("=", 1)[0] for p in url.partition("?")[2].split("&") if p]
    assert names == [canonicalize(f"http://a.com/?{k}")[0].partition("?")[2] for k in kept]


relative = st.text(alphabet=st.sampled_from("ab09-_./?=&%~:#\\ é"), min_size=1, max_size=20)
bases = st.sampled_from(
    ["http://news.example.com/a/b/c.html", "https://example.org/", "http://example.net/dir/"]
)


@SETTINGS
@given(bases, relative)
def test_the_link_extractor_joins_as_the_standard(base: str, href: str) -> None:
    """The extractor's fast string joins give the pool the key the standard's join gives."""
    links, _title = extract_links(f'<a href="{html.escape(href)}">x</a>', base)
    href = href.strip(" ")
    expected = join(base, href) if href and not href.startswith("#") else None
    if expected is not None and not expected.startswith(("http://", "https://")):
        expected = None
    if expected is None:  # nothing, or what the pool refuses (``//`` joins to ``http://``)
        assert all(_canonical(link) is None for link in links)
        return
    assert len(links) == 1
    assert _canonical(links[0]) == _canonical(expected.partition("#")[0])
