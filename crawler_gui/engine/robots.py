"""robots.txt (RFC 9309) with Protego, cached per origin.

The cache does not fetch by itself: the caller passes a ``fetch`` function, so robots.txt goes
through the same per-host slot as the pages and politeness holds. ``fetch(robots_url)`` returns
``(status, body)``, ``status`` being ``None`` for a network error.

* 2xx: the rules are parsed (at most the first 500 KB);
* 3xx (a redirect the fetch did not follow) and 4xx except 429: "unavailable", everything allowed;
* 429, 5xx and network errors: "unreachable", everything disallowed, remembered for
  ``error_lifetime`` (10 minutes) only, then tried again.

Concurrent calls for one origin share one fetch.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urlsplit

from protego import Protego

from crawler_gui.engine.feeds import sitemaps_from_robots

__all__ = [
    "MAX_ROBOTS_SIZE",
    "RobotsCache",
    "RobotsFetch",
    "RobotsRefused",
    "RobotsText",
    "origin_of",
    "robots_url",
]

logger = logging.getLogger(__name__)

MAX_ROBOTS_SIZE = 500 * 1024
RobotsFetch = Callable[[str], Awaitable[tuple[int | None, bytes]]]
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, default port dropped; ``""`` if none."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host:
        return ""
    if ":" in host:
        host = f"[{host}]"
    if port is None or port == _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}"
    return f"{scheme}://{host}:{port}"


def robots_url(url: str) -> str:
    """The robots.txt URL for a URL's origin (``""`` if the URL has no http(s) origin)."""
    origin = origin_of(url)
    return origin + "/robots.txt" if origin else ""


#: Bytes of robots.txt texts kept as fetched, newest first, for the window's host detail (the
#: parsed rules are kept for every origin; the texts only for the last ones fetched).
TEXTS_BUDGET = 4 * 1024 * 1024


class RobotsText(NamedTuple):
    """A robots.txt as the crawl fetched it."""

    url: str
    status: int | None  #: None: the fetch failed (network error) or was refused
    fetched: float  #: when (the cache's clock)
    text: str  #: its text (the first MAX_ROBOTS_SIZE bytes, decoded as UTF-8)
    crawl_delay: float | None
    unreachable: bool  #: 429, 5xx, network error: every page of the host waits


class RobotsRefused(Exception):
    """Raised by a robots fetch that our own policy refused (the host's address is not
    allowed): the site is not unreachable, it is out of bounds, and so are its pages."""


@dataclass(slots=True)
class _Entry:
    expires: float
    parser: Protego | None  # None: no rules (allow_all) or unreachable (disallow_all)
    allow_all: bool
    status: int | None
    refusal: str = ""  # why our policy refused the robots fetch (then nothing is allowed)
    sitemaps: tuple[str, ...] = ()  # its ``Sitemap:`` lines (absolute URLs)


class RobotsCache:
    """robots.txt rules per origin, with a lifetime and an LRU bound on the number of origins."""

    def __init__(
        self,
        user_agent: str,
        lifetime: float = 86400.0,
        max_hosts: int = 20000,
        clock: Callable[[], float] = time.time,
        *,
        error_lifetime: float = 600.0,
    ) -> None:
        if max_hosts < 1:
            raise ValueError("max_hosts must be at least 1")
        self.user_agent = user_agent
        self.lifetime = lifetime
        self.error_lifetime = min(error_lifetime, lifetime)
        self.max_hosts = max_hosts
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._inflight: dict[str, asyncio.Task[_Entry]] = {}
        self._texts: OrderedDict[str, RobotsText] = OrderedDict()  # origin -> newest last
        self._text_bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def _fresh(self, origin: str) -> _Entry | None:
        entry = self._entries.get(origin)
        if entry is None:
            return None
        if entry.expires <= self._clock():
            del self._entries[origin]
            return None
        self._entries.move_to_end(origin)
        return entry

    def _verdict(self, entry: _Entry, url: str) -> bool:
        if entry.parser is None:
            return entry.allow_all
        return bool(entry.parser.can_fetch(url, self.user_agent))

    def cached(self, url: str) -> bool:
        """True when fresh rules for the URL's origin are in the cache (no fetch needed)."""
        origin = origin_of(url)
        return bool(origin) and self._fresh(origin) is not None

    def allowed_cached(self, url: str) -> bool | None:
        """The verdict from the cache alone; ``None`` when robots.txt must be fetched first."""
        origin = origin_of(url)
        if not origin:
            return False
        entry = self._fresh(origin)
        return None if entry is None else self._verdict(entry, url)

    async def allowed(self, url: str, fetch: RobotsFetch) -> bool:
        """May ``url`` be fetched? Fetches robots.txt through ``fetch`` when not cached."""
        origin = origin_of(url)
        if not origin:
            return False
        entry = self._fresh(origin)
        if entry is None:
            task = self._inflight.get(origin)
            if task is None:
                task = asyncio.ensure_future(self._load(origin, fetch))
                self._inflight[origin] = task
                task.add_done_callback(functools.partial(self._finished, origin))
            # shield: one caller being cancelled must not cancel the others' shared fetch.
            entry = await asyncio.shield(task)
        return self._verdict(entry, url)

    def _finished(self, origin: str, _task: asyncio.Task[_Entry]) -> None:
        self._inflight.pop(origin, None)

    def crawl_delay(self, url: str) -> float | None:
        """The ``Crawl-delay`` for our user agent from the cached rules, if any."""
        origin = origin_of(url)
        entry = self._fresh(origin) if origin else None
        if entry is None or entry.parser is None:
            return None
        delay = entry.parser.crawl_delay(self.user_agent)
        return None if delay is None else float(delay)

    def forget(self, url: str) -> None:
        self._entries.pop(origin_of(url), None)

    async def close(self) -> None:
        """Cancel robots fetches still running."""
        tasks = list(self._inflight.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _load(self, origin: str, fetch: RobotsFetch) -> _Entry:
        url = origin + "/robots.txt"
        try:
            status, body = await fetch(url)
        except asyncio.CancelledError:
            raise
        except RobotsRefused as exc:
            entry = _Entry(self._clock() + self.error_lifetime, None, False, None, str(exc))
            self._store(origin, entry)
            return entry
        except Exception as exc:  # the caller's fetch should not raise; treat it as unreachable
            logger.warning("robots.txt fetch for %s raised %r", origin, exc)
            status, body = None, b""
        entry = self._entry_for(status, body, url)
        self._store(origin, entry)
        self._keep_text(origin, url, status, body)
        return entry

    def _keep_text(self, origin: str, url: str, status: int | None, body: bytes) -> None:
        text = body[:MAX_ROBOTS_SIZE].decode("utf-8", "replace")
        old = self._texts.pop(origin, None)
        if old is not None:
            self._text_bytes -= len(old.text)
        self._texts[origin] = RobotsText(
            url, status, self._clock(), text, self.crawl_delay(url), self.unreachable(url)
        )
        self._text_bytes += len(text)
        while self._text_bytes > TEXTS_BUDGET and len(self._texts) > 1:
            _o, gone = self._texts.popitem(last=False)
            self._text_bytes -= len(gone.text)

    def text_of_host(self, host: str) -> RobotsText | None:
        """The robots.txt last fetched for ``host`` (``host[:port]``, either scheme), if kept."""
        for origin in reversed(self._texts):
            if origin.split("://", 1)[-1] == host:
                return self._texts[origin]
        return None

    def unreachable(self, url: str) -> bool:
        """True when the cached verdict for ``url``'s origin is "robots.txt could not be
        fetched" (5xx, 429, network error): a temporary refusal, not a rule."""
        entry = self._fresh(origin_of(url))
        return (
            entry is not None and entry.parser is None and not entry.allow_all and not entry.refusal
        )

    def refusal(self, url: str) -> str:
        """Why our own policy refused the robots.txt fetch of ``url``'s origin ("" if not)."""
        entry = self._fresh(origin_of(url))
        return entry.refusal if entry is not None else ""

    def sitemaps(self, url: str) -> list[str]:
        """The ``Sitemap:`` URLs of the cached robots.txt of ``url``'s origin."""
        entry = self._fresh(origin_of(url))
        return list(entry.sitemaps) if entry is not None else []

    def _entry_for(self, status: int | None, body: bytes, url: str = "") -> _Entry:
        now = self._clock()
        if status is not None and 200 <= status < 300:
            text = body[:MAX_ROBOTS_SIZE].decode("utf-8", "replace")
            sitemaps = tuple(sitemaps_from_robots(text.splitlines(), url)) if url else ()
            try:
                parser = Protego.parse(text)
            except Exception as exc:  # Protego is lenient; a crash here must not stop a crawl
                logger.warning("robots.txt could not be parsed: %r", exc)
                return _Entry(now + self.lifetime, None, True, status, sitemaps=sitemaps)
            return _Entry(now + self.lifetime, parser, True, status, sitemaps=sitemaps)
        if status is not None and status != 429 and 300 <= status < 500:
            return _Entry(now + self.lifetime, None, True, status)
        return _Entry(now + self.error_lifetime, None, False, status)

    def _store(self, origin: str, entry: _Entry) -> None:
        self._entries[origin] = entry
        self._entries.move_to_end(origin)
        while len(self._entries) > self.max_hosts:
            self._entries.popitem(last=False)
