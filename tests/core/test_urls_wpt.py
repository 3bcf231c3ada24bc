"""Differential test of URL parsing and canonicalization against the WHATWG URL Standard's own
test vectors (web-platform-tests, vendored in tests/data/wpt-url/ with their attribution).

* Every http(s) input the standard refuses, we refuse.
* Every http(s) input the standard accepts gives the standard's host, port, path and query from
  :func:`parse` (before our own rules).
* :func:`canonicalize` either refuses with one of our documented reasons, or gives a URL on the
  standard's host whose canonical form is a fixed point (canonicalizing it again changes nothing).
* Hosts are IDNA-encoded by UTS #46 as ``IdnaTestV2.json`` says.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from crawler_gui.core.urls import REASONS, canonicalize, parse
from crawler_gui.errors import InvalidURLError

DATA = Path(__file__).resolve().parent.parent / "data" / "wpt-url"
# An absolute URL with an authority: its meaning does not depend on the base URL.
_ABSOLUTE = re.compile(r"^[\x00-\x20]*https?:[/\\]{2}", re.IGNORECASE)
#: Our own refusals on top of the standard (documented in core/urls.py).
OWN_RULES = {"userinfo", "host_without_dot", "bad_host", "long_host", "no_host"}


def _http_cases() -> list[dict[str, Any]]:
    cases = json.loads((DATA / "urltestdata.json").read_text(encoding="utf-8"))
    out = []
    for case in cases:
        if not isinstance(case, dict):
            continue
        text = case["input"]
        if case.get("base") is not None and not _ABSOLUTE.match(text):
            continue  # relative to a base: the link extractor joins those, not the pool's gate
        if not _ABSOLUTE.match(text):
            continue
        out.append(case)
    return out


HTTP_CASES = _http_cases()


def test_the_vendored_vectors_are_there_and_many() -> None:
    assert len(HTTP_CASES) > 150
    assert sum(1 for c in HTTP_CASES if c.get("failure")) > 40


@pytest.mark.parametrize("case", HTTP_CASES, ids=lambda c: repr(c["input"])[:60])
def test_parse_agrees_with_the_standard(case: dict[str, Any]) -> None:
    text = case["input"]
    if case.get("failure"):
        with pytest.raises(InvalidURLError):
            parse(text)
        with pytest.raises(InvalidURLError):
            canonicalize(text)
        return
    std = parse(text)
    assert f"{std.scheme}:" == case["protocol"]
    assert std.hostname == case["hostname"]
    assert std.port == case["port"]
    assert std.path == case["pathname"]
    assert std.query == case["search"][1:]


@pytest.mark.parametrize(
    "case", [c for c in HTTP_CASES if not c.get("failure")], ids=lambda c: repr(c["input"])[:60]
)
def test_canonical_form_is_on_the_standard_s_host_and_a_fixed_point(case: dict[str, Any]) -> None:
    try:
        url, host = canonicalize(case["input"])
    except InvalidURLError as exc:
        assert exc.reason in OWN_RULES, exc.reason
        return
    assert host.rsplit(":", 1)[0] if not host.startswith("[") else host
    assert host.split(":")[0] == case["hostname"].rstrip(".")
    assert canonicalize(url) == (url, host)


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
