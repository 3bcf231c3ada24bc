"""Crawl settings (a plain value) and the crawl's run states.

One place builds a :class:`CrawlSettings` (the command line or the GUI's settings dialog);
everything else receives it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from crawler_gui import __version__

DEFAULT_USER_AGENT = (
    f"crawler-gui/{__version__} (+https://example.invalid/crawler-gui; contact: crawl-operator)"
)


class CrawlMode(enum.StrEnum):
    #: Hubs keep coming due forever, like the ``while 1`` loop of the crawler this one replaced.
    CONTINUOUS = "continuous"
    #: Stop when nothing is waiting, nothing is in flight and no hub is due within ``idle_span``.
    UNTIL_IDLE = "until_idle"


class CrawlState(enum.StrEnum):
    IDLE = "idle"  #: built, not started
    RUNNING = "running"
    PAUSED = "paused"  #: no new fetches; in-flight ones finish
    STOPPING = "stopping"
    STOPPED = "stopped"  #: stopped by the user (or max_pages reached)
    FINISHED = "finished"  #: until-idle mode ran out of work
    FAILED = "failed"  #: stopped by an error (see the log)


#: The pool's sync modes (``CrawlSettings.sync``), safest first.
SYNC_MODES = ("batch", "second", "off")
_ZONE = re.compile(r"[+-](0\d|1[0-4]):[0-5]\d")


@dataclass(frozen=True, slots=True)
class CrawlSettings:
    concurrency: int = 16
    #: Politeness: minimum seconds between two requests to one host, and a multiple of the
    #: last response time (Heritrix's delay factor); at most ``max_delay``.
    min_delay: float = 1.0
    delay_factor: float = 2.0
    max_delay: float = 30.0
    per_host: int = 1
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 60.0
    max_body: int = 10 * 1024 * 1024
    max_decompressed: int = 20 * 1024 * 1024
    max_redirects: int = 10
    user_agent: str = DEFAULT_USER_AGENT
    obey_robots: bool = True
    robots_lifetime: float = 24 * 3600.0
    #: Allow requests to loopback, private, link-local addresses (the demo and tests only).
    allow_private: bool = False
    #: Registered domains (or hosts) in scope besides those of the seeds and hubs.
    allow_domains: tuple[str, ...] = ()
    deny_domains: tuple[str, ...] = ()
    allow_patterns: tuple[str, ...] = ()
    deny_patterns: tuple[str, ...] = ()
    #: Follow links off the seeds' registered domains (off: the tldextract scope of the crawler
    #: this one replaced).
    follow_external: bool = False
    max_depth: int | None = None
    max_pages: int | None = None
    mode: CrawlMode = CrawlMode.CONTINUOUS
    idle_span: float = 60.0
    hub_percent: int = 50
    hub_span: float = 300.0
    #: Feeds announced on pages of the scope (``<link rel="alternate">``) and sitemaps named
    #: in robots.txt become hubs by themselves (bounded per host).
    discover_feeds: bool = True
    #: How many changed bodies of each hub the page store keeps.
    hub_history: int = 5
    #: ``adaptive``: the hubs' spans (their average is ``hub_span``) are shared by learned
    #: rate, the same number of hub fetches; ``fixed``: every hub on its own span
    #: (docs/freshness.md).
    hub_refresh: str = "adaptive"
    #: Adaptive refresh: no hub faster than this, nor than its host's politeness (seconds).
    hub_span_min: float = 5.0
    #: Adaptive refresh: no hub slower than this, so a silent hub is still checked (seconds).
    hub_span_max: float = 3600.0
    failure_threshold: int = 3
    #: Seconds before the first retry of a failed fetch; doubles with each failure.
    retry_base: float = 30.0
    pending_threshold: float = 300.0
    store_bodies: bool = True
    warc_dir: str | None = None
    #: When the pool's writes reach the disk for good (``SYNC_MODES``): ``"batch"`` every write
    #: batch, ``"second"`` at least once a second, ``"off"`` when the OS decides. What a power
    #: cut can lose: docs/storage.md.
    sync: str = "second"
    #: The crawl pauses when the disk of the pool, the page store or the WARC folder has less
    #: free space than this (MB), so that it stops cleanly before the disk is full; 0: never.
    min_free_mb: float = 100.0
    #: Article extraction: ``on`` (during the crawl, in worker processes), ``off``, or
    #: ``later`` (bodies kept for ``crawler-gui extract``).
    extract: str = "off"
    #: Extraction worker processes (None: every CPU but one).
    extract_workers: int | None = None
    #: Keep the pages' full-text search index (``search/`` beside the page store) up to date as
    #: they arrive, in a thread of low CPU priority (``engine.indexer``): what the window's
    #: Pages pane searches, ready when a window opens a pool a headless crawl made. Off saves
    #: the indexing's CPU and disk (the window then lists pages without search).
    search_index: bool = True
    #: ``((host or .domain, offset), ...)``: time zones for pages that print local times.
    zones: tuple[tuple[str, str], ...] = ()
    extra_headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    #: Fetch through this proxy (``http://``, ``https://``, ``socks4://``, ``socks5://``; user
    #: and password in the URL): off by default, never taken from the environment.
    proxy: str | None = None

    def __post_init__(self) -> None:
        from crawler_gui.errors import ConfigError

        if self.concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        if self.per_host < 1:
            raise ConfigError("per-host connections must be at least 1")
        for name in ("min_delay", "delay_factor", "max_delay", "idle_span", "retry_base"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must not be negative")
        for name in (
            "connect_timeout",
            "read_timeout",
            "total_timeout",
            "hub_span",
            "hub_span_min",
            "hub_span_max",
            "pending_threshold",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be positive")
        if self.hub_refresh not in ("adaptive", "fixed"):
            raise ConfigError("hub refresh must be adaptive or fixed")
        if self.hub_span_min > self.hub_span_max:
            raise ConfigError("the minimum hub span must not exceed the maximum")
        if self.max_body < 1 or self.max_decompressed < 1:
            raise ConfigError("size caps must be positive")
        if self.hub_history < 1:
            raise ConfigError("hub history must be at least 1")
        if not 0 <= self.hub_percent <= 100:
            raise ConfigError("hub percent must be between 0 and 100")
        if self.max_depth is not None and self.max_depth < 0:
            raise ConfigError("max depth must not be negative")
        if self.max_pages is not None and self.max_pages < 1:
            raise ConfigError("max pages must be at least 1")
        if self.failure_threshold < 0:
            raise ConfigError("failure threshold must not be negative")
        if self.extract not in ("on", "off", "later"):
            raise ConfigError("extract must be on, off or later")
        if self.extract == "later" and not self.store_bodies:
            raise ConfigError("extract later needs the page bodies stored")
        if self.extract_workers is not None and self.extract_workers < 1:
            raise ConfigError("extraction workers must be at least 1")
        for _host, offset in self.zones:
            if not _ZONE.fullmatch(offset):
                raise ConfigError(f"time zone offset {offset!r} is not like +08:00")
        if self.max_redirects < 0:
            raise ConfigError("max redirects must not be negative")
        if self.sync not in SYNC_MODES:
            raise ConfigError(f"sync must be one of {', '.join(SYNC_MODES)}")
        if not self.min_free_mb >= 0:
            raise ConfigError("the free space floor must not be negative")
        if self.proxy is not None:
            check_proxy_url(self.proxy)
        from crawler_gui.engine.http1 import check_header

        for name, value in (("User-Agent", self.user_agent), *self.extra_headers):
            problem = check_header(str(name), str(value))
            if problem is not None:
                raise ConfigError(problem)


#: Proxy URL schemes: HTTP(S) proxies through aiohttp itself, SOCKS through aiohttp-socks.
PROXY_SCHEMES = ("http", "https", "socks4", "socks5")


def check_proxy_url(url: str) -> None:
    """Raise ConfigError (with the password hidden) unless ``url`` is a usable proxy URL."""
    from urllib.parse import urlsplit

    from crawler_gui.core.redact import redact_url
    from crawler_gui.errors import ConfigError

    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ConfigError(f"proxy {shown}: not a valid URL") from None
    if parts.scheme.lower() not in PROXY_SCHEMES:
        raise ConfigError(f"proxy {shown}: the scheme must be one of {', '.join(PROXY_SCHEMES)}")
    if not parts.hostname:
        raise ConfigError(f"proxy {shown}: no host")
    if port is None:
        raise ConfigError(f"proxy {shown}: give the port (such as :3128 or :1080)")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(f"proxy {shown}: only scheme://[user:password@]host:port")
