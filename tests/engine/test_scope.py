"""Scope: registered domains (offline tldextract), allow/deny domains and patterns."""

from __future__ import annotations

import pytest

from crawler_gui.engine import scope as scope_module
from crawler_gui.engine.scope import Scope, host_of_url, registered_domain
from crawler_gui.errors import ConfigError


def test_registered_domain_uses_public_suffixes() -> None:
    assert registered_domain("www.bbc.co.uk") == "bbc.co.uk"
    assert registered_domain("news.sina.com.cn") == "sina.com.cn"
    assert registered_domain("Example.COM.") == "example.com"
    assert registered_domain("a.b.example.com:8080") == "example.com"


def test_registered_domain_of_ips_and_bare_names() -> None:
    assert registered_domain("127.0.0.1") == "127.0.0.1"
    assert registered_domain("127.0.0.1:8080") == "127.0.0.1"
    assert registered_domain("[::1]:443") == "::1"
    assert registered_domain("localhost") == "localhost"


def test_tldextract_is_offline() -> None:
    extractor = scope_module._EXTRACT
    assert tuple(extractor.suffix_list_urls) == ()
    assert extractor._cache.enabled is False


def test_host_of_url() -> None:
    assert host_of_url("https://user@WWW.Example.com:8443/p?q#f") == "www.example.com"
    assert host_of_url("http://example.com") == "example.com"
    assert host_of_url("not a url") == ""


def test_seed_domains_include_subdomains_not_others() -> None:
    scope = Scope(["https://www.bbc.co.uk/news"])
    assert scope.check("https://www.bbc.co.uk/sport") is None
    assert scope.check("http://news.bbc.co.uk/x") is None
    assert scope.check("https://bbc.co.uk/") is None
    assert scope.check("https://www.cnn.com/") == "off_domain"
    assert scope.check("https://bbc.co.uk.evil.com/") == "off_domain"
    assert scope.in_scope("https://www.cnn.com/") is False


def test_add_seeds_extends_scope() -> None:
    scope = Scope(["https://example.com/"])
    assert scope.check("https://example.org/") == "off_domain"
    scope.add_seeds(["https://www.example.org/start"])
    assert scope.check("https://blog.example.org/") is None
    # The host refused before is not remembered as refused.
    assert scope.check("https://example.org/page") is None
    assert scope.seed_domains == frozenset({"example.com", "example.org"})


def test_empty_scope_admits_nothing_until_seeded() -> None:
    assert Scope().check("https://example.com/") == "off_domain"


def test_allow_domains_match_host_and_subdomains_only() -> None:
    scope = Scope(["https://example.com/"], allow_domains=["partner.net", "*.cdn.org"])
    assert scope.check("https://partner.net/a") is None
    assert scope.check("https://www.partner.net/a") is None
    assert scope.check("https://otherpartner.net/a") == "off_domain"
    assert scope.check("https://img.cdn.org/a") is None


def test_deny_domain_wins_over_seed() -> None:
    scope = Scope(["https://example.com/"], deny_domains=["ads.example.com"])
    assert scope.check("https://ads.example.com/x") == "denied_domain"
    assert scope.check("https://eu.ads.example.com/x") == "denied_domain"
    assert scope.check("https://www.example.com/x") is None


def test_deny_and_allow_patterns() -> None:
    scope = Scope(
        ["https://example.com/"],
        deny_patterns=[r"\.(jpg|png)$", r"/login"],
        allow_patterns=[r"/news/", r"/$"],
    )
    assert scope.check("https://example.com/news/1.png") == "denied_pattern"
    assert scope.check("https://example.com/login?next=/news/") == "denied_pattern"
    assert scope.check("https://example.com/shop/item") == "not_allowed_pattern"
    assert scope.check("https://example.com/news/2024/story") is None
    assert scope.check("https://example.com/") is None


def test_follow_external_admits_any_domain_but_deny_still_wins() -> None:
    scope = Scope(["https://example.com/"], follow_external=True, deny_domains=["evil.com"])
    assert scope.check("https://anything.org/") is None
    assert scope.check("https://www.evil.com/") == "denied_domain"


def test_bad_regex_is_config_error_naming_the_pattern() -> None:
    with pytest.raises(ConfigError, match=r"invalid deny pattern '\(unclosed'"):
        Scope(deny_patterns=["(unclosed"])
    with pytest.raises(ConfigError, match="allow"):
        Scope(allow_patterns=["[z-a]"])


def test_ip_seed_scopes_to_that_ip() -> None:
    scope = Scope(["http://127.0.0.1:8080/"])
    assert scope.check("http://127.0.0.1:9090/x") is None
    assert scope.check("http://127.0.0.2:8080/x") == "off_domain"


def test_a_host_remembered_per_authority_judges_every_form_alike() -> None:
    """``check`` finds a URL's host once per ``scheme://authority``: URLs whose host hides
    behind a query, a fragment, user info or an odd case judge as a fresh parse does, and
    the memory stays bounded."""
    scope = Scope(["https://www.bbc.co.uk/news"], deny_patterns=[r"/private/"])
    urls = [
        "https://www.bbc.co.uk?evil.com/x",
        "https://evil.com?www.bbc.co.uk/x",
        "https://evil.com#www.bbc.co.uk/x",
        "https://www.bbc.co.uk@evil.com/x",
        "https://evil.com@www.bbc.co.uk/x",
        "https://WWW.BBC.CO.UK/x",
        "https://www.bbc.co.uk/private/x",
        "not a url",
    ]
    for _round in range(2):  # the second round answers from the memory
        assert [scope.check(u) for u in urls] == [
            None,
            "off_domain",
            "off_domain",
            "off_domain",
            None,
            None,
            "denied_pattern",
            "no_host",
        ]
    for i in range(scope_module._HOST_MEMO + 10):
        scope.check(f"https://h{i}.example.org/")
    assert len(scope._hosts) <= scope_module._HOST_MEMO


def test_each_url_of_a_host_gets_the_rules_in_their_order() -> None:
    """What a host decides is found once per authority; the patterns still see each URL, and
    the order of the reasons holds (a denied domain, then deny patterns, then off the
    domains, then allow patterns), the second time as the first."""
    scope = Scope(
        ["https://example.com/"],
        deny_domains=["ads.example.com"],
        deny_patterns=[r"/private/"],
        allow_patterns=[r"/news/"],
    )
    for _ in range(2):
        assert scope.check("https://example.com/news/a") is None
        assert scope.check("https://example.com/about") == "not_allowed_pattern"
        assert scope.check("https://example.com/news/private/a") == "denied_pattern"
        assert scope.check("https://ads.example.com/private/x") == "denied_domain"
        assert scope.check("https://other.org/private/x") == "denied_pattern"
        assert scope.check("https://other.org/news/x") == "off_domain"
        assert scope.check("file:///news/x") == "no_host"
