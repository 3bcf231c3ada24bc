"""Crawl scope: which URLs the crawl follows.

A URL is in scope when its host's registered domain (``news.bbc.co.uk`` -> ``bbc.co.uk``, via an
offline tldextract) is one of the seeds' registered domains, or its host is an allowed domain or
a subdomain of one; unless ``follow_external`` is on, when every domain is. Denied domains and
deny patterns always win. When allow patterns are given, a URL must also match one of them.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from functools import lru_cache

import tldextract

from crawler_gui.core.i18n import QT_TRANSLATE_NOOP
from crawler_gui.errors import ConfigError

__all__ = ["DENY_REASONS", "REASONS", "Scope", "host_of_url", "registered_domain"]

#: Offline: the public suffix list snapshot bundled with tldextract; never fetched, never cached.
_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

REASONS: dict[str, str] = {
    "off_domain": QT_TRANSLATE_NOOP("reasons", "the URL is not on a seed's or an allowed domain"),
    "denied_domain": QT_TRANSLATE_NOOP("reasons", "the URL's host is on a denied domain"),
    "denied_pattern": QT_TRANSLATE_NOOP("reasons", "the URL matches a deny pattern"),
    "not_allowed_pattern": QT_TRANSLATE_NOOP(
        "reasons", "the URL matches none of the allow patterns"
    ),
    "no_host": QT_TRANSLATE_NOOP("reasons", "the URL has no host"),
}
#: The refusals of the deny rules, which hold for seeds too.
DENY_REASONS = frozenset({"denied_domain", "denied_pattern"})


#: Authorities whose verdict :meth:`Scope.check` remembers (cleared when full).
_HOST_MEMO = 4096
#: The verdict of an authority on its host alone (no host, denied domain, off domain), or None.
_HostVerdict = str | None


def _strip_host(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # [v6]:port
        end = host.find("]")
        return host[1:end] if end > 0 else host[1:]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


@lru_cache(maxsize=65536)
def _registered(host: str) -> str:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return host
    result = _EXTRACT(host).top_domain_under_public_suffix
    return result or host


def registered_domain(host: str) -> str:
    """``www.bbc.co.uk`` -> ``bbc.co.uk``; an IP address, or a name with no public suffix
    (``localhost``), is its own registered domain. A ``:port`` is ignored."""
    return _registered(_strip_host(host))


def host_of_url(url: str) -> str:
    """The lower-cased host name of an absolute URL (no port, no user info); ``""`` if none."""
    start = url.find("://")
    if start < 0:
        return ""
    rest = url[start + 3 :]
    end = len(rest)
    for sep in "/?#":
        at = rest.find(sep)
        if 0 <= at < end:
            end = at
    netloc = rest[:end]
    if "@" in netloc:
        netloc = netloc.rsplit("@", 1)[1]
    return _strip_host(netloc)


def _clean_domain(domain: str) -> str:
    domain = domain.strip()
    if "://" in domain:
        domain = host_of_url(domain)
    domain = _strip_host(domain)
    while domain.startswith(("*.", ".")):
        domain = domain[1:] if domain.startswith(".") else domain[2:]
    return domain


def _compile(patterns: Iterable[str], what: str) -> list[re.Pattern[str]]:
    out = []
    for pattern in patterns:
        try:
            out.append(re.compile(pattern))
        except re.error as exc:
            raise ConfigError(f"invalid {what} pattern {pattern!r}: {exc}") from exc
    return out


def _matches_domain(host: str, domains: frozenset[str] | set[str]) -> bool:
    """True when ``host`` is one of ``domains`` or a subdomain of one."""
    if not domains:
        return False
    if host in domains:
        return True
    at = host.find(".")
    while at >= 0:
        if host[at + 1 :] in domains:
            return True
        at = host.find(".", at + 1)
    return False


class Scope:
    """Decides whether a URL is followed. Cheap to call: a few set lookups and cached parsing."""

    def __init__(
        self,
        seed_urls: Iterable[str] = (),
        *,
        allow_domains: Iterable[str] = (),
        deny_domains: Iterable[str] = (),
        allow_patterns: Iterable[str] = (),
        deny_patterns: Iterable[str] = (),
        follow_external: bool = False,
    ) -> None:
        self.follow_external = follow_external
        self._seed_domains: set[str] = set()
        #: What each ``scheme://authority`` seen by :meth:`check` decides by its host alone
        #: (bounded; cleared when the seeds' domains grow).
        self._hosts: dict[str, _HostVerdict] = {}
        self._allow_domains = frozenset(d for d in map(_clean_domain, allow_domains) if d)
        self._deny_domains = frozenset(d for d in map(_clean_domain, deny_domains) if d)
        self._allow_patterns = _compile(allow_patterns, "allow")
        self._deny_patterns = _compile(deny_patterns, "deny")
        self.add_seeds(seed_urls)

    @property
    def seed_domains(self) -> frozenset[str]:
        return frozenset(self._seed_domains)

    @property
    def names_sites(self) -> bool:
        """True when the scope names any site (seeded, hub or allowed domains). One that names
        none (a pool from before scope files, URLs put in the pool by other means) cannot tell
        an off-site URL from another."""
        return bool(self._seed_domains or self._allow_domains)

    def add_seeds(self, urls: Iterable[str]) -> None:
        """Put the registered domains of ``urls`` in scope (seeds and hubs added later)."""
        for url in urls:
            host = host_of_url(url)
            if host:
                domain = _registered(host)
                if domain not in self._seed_domains:
                    self._seed_domains.add(domain)
                    self._hosts.clear()

    def check(self, url: str) -> str | None:
        """``None`` if ``url`` is in scope, else a short reason (a key of :data:`REASONS`)."""
        # A page's links name a few hosts many times: what the host decides is found once
        # per ``scheme://authority`` (everything before the path), not again per link.
        cut = url.find("/", url.find("://") + 3)
        head = url if cut < 0 else url[:cut]
        hosts = self._hosts
        if head in hosts:
            verdict = hosts[head]
        else:
            verdict = self._host_verdict(host_of_url(head))
            if len(hosts) >= _HOST_MEMO:
                hosts.clear()
            hosts[head] = verdict
        if verdict is not None and verdict != "off_domain":
            return verdict  # no host, a denied domain: before the patterns
        for pattern in self._deny_patterns:
            if pattern.search(url):
                return "denied_pattern"
        if verdict is not None:
            return verdict  # off the crawl's domains
        if self._allow_patterns and not any(p.search(url) for p in self._allow_patterns):
            return "not_allowed_pattern"
        return None

    def _host_verdict(self, host: str) -> _HostVerdict:
        if not host:
            return "no_host"
        if self._deny_domains and _matches_domain(host, self._deny_domains):
            return "denied_domain"
        if not self.follow_external and not (
            _registered(host) in self._seed_domains or _matches_domain(host, self._allow_domains)
        ):
            return "off_domain"
        return None

    def in_scope(self, url: str) -> bool:
        return self.check(url) is None
