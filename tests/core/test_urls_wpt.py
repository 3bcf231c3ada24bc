"""Differential test of URL parsing and canonicalization against the WHATWG URL Standard's own
test vectors (web-platform-tests, vendored in tests/data/wpt-url/ with their attribution).

The whole ``urltestdata.json`` is run: each input alone through the pool's gate, each input
with a base URL through the link extractor's :func:`join`.

* Every input the standard refuses, we refuse; every input of another scheme is refused
  (``scheme``).
* Every http(s) input the standard accepts gives the standard's host, port, path and query from
  :func:`parse` (before our own rules); every relative input joins to the standard's ``href``.
* :func:`canonicalize` either refuses with one of our documented reasons, or gives a URL on the
  standard's host whose canonical form is a fixed point (canonicalizing it again changes nothing).
* Hosts are IDNA-encoded by UTS #46 as ``IdnaTestV2.json`` says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.urls import REASONS, canonicalize, join, parse
from crawler_gui.errors import InvalidURLError

DATA = Path(__file__).resolve().parent.parent / "data" / "wpt-url"
#: Our own refusals on top of the standard (documented in core/urls.py).
OWN_RULES = {"userinfo", "host_without_dot", "bad_host", "long_host", "no_host"}
HTTP = ("http:", "https:")

ALL_CASES = [
    c
    for c in json.loads((DATA / "urltestdata.json").read_text(encoding="utf-8"))
    if isinstance(c, dict)  # the strings are comments
]
#: Inputs parsed alone: what the pool's gate (``canonicalize``) meets.
ABSOLUTE = [c for c in ALL_CASES if c.get("base") is None]
#: Inputs against a base URL: what the link extractor meets (``join``).
RELATIVE = [c for c in ALL_CASES if c.get("base") is not None]


def test_the_whole_vendored_vector_set_is_run() -> None:
    assert len(ABSOLUTE) + len(RELATIVE) == len(ALL_CASES) > 800
    assert sum(1 for c in ALL_CASES if c.get("failure")) > 250
    assert sum(1 for c in ABSOLUTE if c.get("protocol") in HTTP) > 120


def _check_canonical(href: str, hostname: str) -> None:
    """``href`` is valid http(s) by the standard: we refuse it by a rule of ours, or give a
    URL on the standard's host whose canonical form is a fixed point."""
    try:
        url, host = canonicalize(href)
    except InvalidURLError as exc:
        assert exc.reason in OWN_RULES, exc.reason
        return
    assert host.split(":")[0] == hostname.rstrip(".")
    assert canonicalize(url) == (url, host)


@pytest.mark.parametrize("case", ABSOLUTE, ids=lambda c: repr(c["input"])[:60])
def test_every_input_alone_agrees_with_the_standard(case: dict[str, Any]) -> None:
    text = case["input"]
    if case.get("failure"):
        with pytest.raises(InvalidURLError):
            canonicalize(text)
        return
    if case["protocol"] not in HTTP:
        with pytest.raises(InvalidURLError) as info:
            canonicalize(text)
        assert info.value.reason == "scheme"
        return
    std = parse(text)
    assert f"{std.scheme}:" == case["protocol"]
    assert std.hostname == case["hostname"]
    assert std.port == case["port"]
    assert std.path == case["pathname"]
    assert std.query == case["search"][1:]
    _check_canonical(text, case["hostname"])


@pytest.mark.parametrize("case", RELATIVE, ids=lambda c: repr(c["input"])[:60])
def test_every_input_against_a_base_joins_as_the_standard(case: dict[str, Any]) -> None:
    joined = join(case["base"], case["input"])
    if case.get("failure"):
        assert joined is None
        return
    assert joined == case["href"]
    if case["protocol"] in HTTP:
        _check_canonical(joined, case["hostname"])
    else:
        with pytest.raises(InvalidURLError) as info:
            canonicalize(joined)
        assert info.value.reason == "scheme"


def _idna_cases() -> list[dict[str, Any]]:
    cases = json.loads((DATA / "IdnaTestV2.json").read_text(encoding="utf-8"))
    return [c for c in cases if isinstance(c, dict)]


IDNA_CASES = _idna_cases()


def test_idna_vectors_are_there() -> None:
    assert len(IDNA_CASES) > 2000


def test_hosts_are_encoded_by_uts46() -> None:
    """For every UTS #46 vector: a host the standard refuses is refused; a host it encodes is
    either encoded the same way or refused by one of our own rules."""
    wrong = []
    own = 0
    for case in IDNA_CASES:
        text, expected = case["input"], case["output"]
        if any(ch in text for ch in "/?#\\%@:[]") or not text.strip():
            continue  # not a bare host in a URL
        try:
            _url, host = canonicalize(f"http://{text}/")
        except InvalidURLError as exc:
            if expected is not None:
                if exc.reason not in OWN_RULES:
                    wrong.append((text, expected, exc.reason))
                own += 1
            continue
        if expected is None or host != expected.rstrip(".").lower():
            wrong.append((text, expected, host))
    assert not wrong, wrong[:10]
    assert own < len(IDNA_CASES)


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("http://ß.de/", "http://xn--zca.de/"),  # UTS #46 nontransitional, as browsers
        ("http://faß.de/", "http://xn--fa-hia.de/"),
        ("http://0x7f.1/a", "http://127.0.0.1/a"),  # IPv4 forms normalised
        ("http://example.com\\a\\b", "http://example.com/a/b"),
        ("http:example.com/a", "http://example.com/a"),
        ("http://EXAMPLE.com:80/a/%2e%2E/b", "http://example.com/b"),
        ("http://a.com/a|b^c", "http://a.com/a%7Cb%5Ec"),  # our escapes on top, stable
    ],
)
def test_standard_forms(raw: str, url: str) -> None:
    assert canonicalize(raw)[0] == url
    assert canonicalize(url)[0] == url


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("http://" + "a" * 64 + ".com/", "long_host"),
        ("http://" + ".".join(["abcdefghij"] * 24) + ".com/", "long_host"),
        ("http://a.com:99999/", "bad_port"),
        ("http://exa mple.com/", "bad_host"),
        ("http://[::1]/", "host_without_dot"),
        ("ftp://a.com/", "scheme"),
        ("a.com/x", "scheme"),
    ],
)
def test_our_refusals_have_reasons(raw: str, reason: str) -> None:
    with pytest.raises(InvalidURLError) as info:
        canonicalize(raw)
    assert info.value.reason == reason
    assert reason in REASONS
