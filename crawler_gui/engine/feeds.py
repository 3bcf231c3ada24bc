"""Feeds and sitemaps as hubs: what a refresh of one finds, with the dates it gives.

- RSS 0.9x/1.0/2.0 and Atom feeds, parsed by ``feedparser`` (it copes with the broken XML feeds in
  the wild: a malformed feed yields what could be read, never an exception).
- XML sitemaps, sitemap indexes and Google News sitemaps (``news:publication_date``), gzip or
  not, parsed with the standard library's expat (no external entities, no DTD fetching, expat's
  own guard against entity expansion) under size caps: the sitemap protocol's 50,000 URLs and
  50 MB uncompressed.
- Discovery: ``<link rel="alternate" type="application/rss+xml|atom+xml">`` on pages, and
  ``Sitemap:`` lines in robots.txt (read by :mod:`crawler_gui.engine.robots`).

Everything returns plain data; dates are timezone-aware (UTC when the document gives none).
Nothing here touches the network: callers hand in bytes they fetched.
"""

from __future__ import annotations

import calendar
import enum
import gzip
import io
import logging
import re
import xml.etree.ElementTree as ET  # expat, no external entities; DTDs refused (parse_sitemap)
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import urljoin, urlsplit

import feedparser

__all__ = [
    "MAX_SITEMAP_BYTES",
    "MAX_SITEMAP_URLS",
    "HubDocument",
    "HubItem",
    "HubKind",
    "discover_feeds",
    "parse_feed",
    "parse_hub_document",
    "parse_sitemap",
    "sniff_kind",
]

log = logging.getLogger(__name__)

#: The sitemap protocol's limits: at most 50,000 URLs and 50 MB (uncompressed) per file.
MAX_SITEMAP_URLS = 50_000
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
#: Feeds are read whole by feedparser; one larger than this is cut (a feed lists its newest items
#: first, so the cut loses only the oldest).
MAX_FEED_BYTES = 20 * 1024 * 1024

_FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml")


class HubKind(enum.StrEnum):
    """What kind of hub a document is. Values are stable (they are persisted with hubs)."""

    PAGE = "page"
    FEED = "feed"
    SITEMAP = "sitemap"
    SITEMAP_INDEX = "sitemap_index"


@dataclass(frozen=True, slots=True)
class HubItem:
    """One entry of a feed or sitemap: an article URL with what the document says of it."""

    url: str
    published: datetime | None = None  #: when the document says it was published
    updated: datetime | None = None  #: a feed's ``updated`` or a sitemap's ``lastmod``
    title: str = ""


@dataclass(slots=True)
class HubDocument:
    """What one refresh of a feed or sitemap found."""

    kind: HubKind
    items: list[HubItem] = field(default_factory=list)
    #: child sitemaps of a sitemap index (absolute URLs)
    sitemaps: list[str] = field(default_factory=list)
    title: str = ""
    #: what was wrong with the document, if anything ("" when it parsed cleanly); a document
    #: with a problem may still have items (feedparser's "bozo" feeds).
    problem: str = ""


def _http_url(raw: str, base: str) -> str | None:
    raw = raw.strip()
    if not raw:
        return None
    try:
        url = urljoin(base, raw)
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


def _gunzip(body: bytes, limit: int = MAX_SITEMAP_BYTES) -> bytes:
    """Decompress a gzip body, refusing to inflate past ``limit`` (a decompression bomb)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=io.BytesIO(body)) as stream:
        while chunk := stream.read(1 << 16):
            out.write(chunk)
            if out.tell() > limit:
                raise ValueError(f"decompresses to more than {limit // (1024 * 1024)} MB")
    return out.getvalue()


def sniff_kind(body: bytes, content_type: str = "", url: str = "") -> HubKind:
    """Tell a feed, a sitemap (index) and an HTML page apart by their first bytes, then by the
    content type and the URL. A gzip body is looked into."""
    head = body[:2048]
    if head[:2] == b"\x1f\x8b":
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body[:65536], 2048)
        except zlib.error:
            return HubKind.PAGE
    lowered = head.lower()
    if b"<urlset" in lowered:
        return HubKind.SITEMAP
    if b"<sitemapindex" in lowered:
        return HubKind.SITEMAP_INDEX
    if b"<rss" in lowered or b"<feed" in lowered or b"<rdf:rdf" in lowered:
        return HubKind.FEED
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype in _FEED_TYPES:
        return HubKind.FEED
    if b"<html" in lowered or b"<!doctype html" in lowered or ctype == "text/html":
        return HubKind.PAGE
    path = urlsplit(url).path.lower() if url else ""
    if path.endswith((".rss", "/rss", "/feed", ".atom")):
        return HubKind.FEED
    return HubKind.PAGE


def _struct_time_to_datetime(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromtimestamp(calendar.timegm(value), tz=UTC)
    except (TypeError, ValueError, OverflowError):
        return None


#: A character reference to a UTF-16 surrogate (55296-57343, D800-DFFF), which no XML allows.
_SURROGATE_REF = re.compile(
    rb"&#(?:0*(?:5529[6-9]|55[3-9]\d\d|56\d{3}|57[0-2]\d\d|573[0-3]\d|5734[0-3])"
    rb"|[xX]0*[dD][89a-fA-F][0-9a-fA-F]{2});"
)


def _feedparse(body: bytes, headers: dict[str, str]) -> Any:
    # Bytes, never a str: feedparser treats a str that looks like a URL as one to fetch.
    return feedparser.parse(
        body, response_headers=headers, resolve_relative_uris=False, sanitize_html=False
    )


def parse_feed(body: bytes, base_url: str, content_type: str = "") -> HubDocument:
    """Items of an RSS or Atom feed, newest as the feed orders them. Never raises on bad XML."""
    if body[:2] == b"\x1f\x8b":
        try:
            body = _gunzip(body, MAX_FEED_BYTES)
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            return HubDocument(HubKind.FEED, problem=f"bad gzip: {exc}")
    body = body[:MAX_FEED_BYTES]
    headers = {"content-type": content_type or "application/xml", "content-location": base_url}
    try:
        parsed = _feedparse(body, headers)
    except ValueError:
        # feedparser's loose parser encodes what it parsed: a character reference to a
        # surrogate raises there (UnicodeEncodeError is a ValueError). Such references are
        # an emoji written as UTF-16 halves (``&#55357;&#56832;``): read as U+FFFD instead.
        try:
            parsed = _feedparse(_SURROGATE_REF.sub(b"&#65533;", body), headers)
        except ValueError as exc:
            return HubDocument(HubKind.FEED, problem=f"unreadable feed: {exc}")
    problem = ""
    if parsed.get("bozo"):
        problem = f"malformed feed: {parsed.get('bozo_exception')}"
    items: list[HubItem] = []
    seen: set[str] = set()
    for entry in parsed.get("entries", []):
        link = entry.get("link") or ""
        if not link:
            for alt in entry.get("links", []):
                if alt.get("rel", "alternate") == "alternate" and alt.get("href"):
                    link = alt["href"]
                    break
        url = _http_url(link, base_url)
        if url is None or url in seen:
            continue
        seen.add(url)
        # dict.get: feedparser's own get() maps a missing published_parsed to updated_parsed
        # with a DeprecationWarning; the two are kept apart here.
        published = _struct_time_to_datetime(dict.get(entry, "published_parsed"))
        updated = _struct_time_to_datetime(dict.get(entry, "updated_parsed"))
        items.append(
            HubItem(
                url=url,
                published=published or updated,
                updated=updated,
                title=" ".join(str(entry.get("title", "")).split()),
            )
        )
    title = " ".join(str(parsed.get("feed", {}).get("title", "")).split())
    if not items and not problem and not parsed.get("version"):
        problem = "not a feed"
    return HubDocument(HubKind.FEED, items=items, title=title, problem=problem)


_W3C_DATE = re.compile(
    r"^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
    r"\s*(Z|z|[+-]\d{2}:?\d{2})?)?)?)?$"
)


def parse_w3c_date(text: str) -> datetime | None:
    """A sitemap date (W3C Datetime: ``2024``, ``2024-05-01``, ``2024-05-01T10:20+08:00``)."""
    match = _W3C_DATE.match(text.strip())
    if not match:
        return None
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        zone_info = UTC
        if zone and zone not in ("Z", "z"):
            digits = zone[1:].replace(":", "")
            minutes = int(digits[:2]) * 60 + int(digits[2:])
            zone_info = timezone(timedelta(minutes=minutes if zone[0] == "+" else -minutes))
        stamp = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=zone_info,
        )
    except ValueError:  # no such day, or an offset of a day or more
        return None
    return stamp.astimezone(UTC)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def parse_sitemap(body: bytes, base_url: str) -> HubDocument:
    """URLs of a sitemap (with ``lastmod`` and a news sitemap's ``publication_date``), or the
    child sitemaps of a sitemap index. Bounded; broken XML gives what was read before the break
    and a ``problem``, never an exception."""
    if body[:2] == b"\x1f\x8b":
        try:
            body = _gunzip(body)
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            return HubDocument(HubKind.SITEMAP, problem=f"bad gzip: {exc}")
    if len(body) > MAX_SITEMAP_BYTES:
        return HubDocument(HubKind.SITEMAP, problem="larger than the sitemap limit of 50 MB")
    if b"<!DOCTYPE" in body[:4096] or b"<!ENTITY" in body[:65536]:
        # Sitemaps have no business declaring entities; refuse rather than expand them.
        return HubDocument(HubKind.SITEMAP, problem="a sitemap with a DTD is not read")
    doc = HubDocument(HubKind.SITEMAP)
    entry: dict[str, str] = {}
    in_news = False
    try:
        for event, elem in _xml_events(body):
            name = _local(elem.tag)
            if event == "start":
                if name == "sitemapindex":
                    doc.kind = HubKind.SITEMAP_INDEX
                elif name in ("url", "sitemap"):
                    entry = {}
                elif name == "news":
                    in_news = True
                continue
            text = (elem.text or "").strip()
            if name in ("loc", "lastmod", "publication_date") or (name == "title" and in_news):
                entry[name] = " ".join(text.split()) if name == "title" else text
            elif name == "news":
                in_news = False
            elif name in ("url", "sitemap"):
                _add_entry(doc, name, entry, base_url)
                elem.clear()
                if len(doc.items) + len(doc.sitemaps) >= MAX_SITEMAP_URLS:
                    doc.problem = "more than 50,000 entries: the rest is not read"
                    break
    except ET.ParseError as exc:
        doc.problem = f"malformed sitemap: {exc}"
    return doc


def _xml_events(body: bytes) -> Iterator[tuple[str, ET.Element]]:
    """Start and end events of ``body``, read in slices; a syntax error is raised where it
    stands, after the events before it (so a cut-off sitemap still gives its first entries)."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    step = 1 << 16
    for offset in range(0, len(body), step):
        parser.feed(body[offset : offset + step])
        yield from parser.read_events()  # type: ignore[misc]
    parser.close()
    yield from parser.read_events()  # type: ignore[misc]


def _add_entry(doc: HubDocument, name: str, entry: dict[str, str], base_url: str) -> None:
    absolute = _http_url(entry.get("loc", ""), base_url)
    if absolute is None:
        return
    if name == "sitemap":
        doc.sitemaps.append(absolute)
        return
    published = entry.get("publication_date")
    modified = entry.get("lastmod")
    doc.items.append(
        HubItem(
            url=absolute,
            published=parse_w3c_date(published) if published else None,
            updated=parse_w3c_date(modified) if modified else None,
            title=entry.get("title", ""),
        )
    )


def parse_hub_document(body: bytes, base_url: str, content_type: str = "") -> HubDocument:
    """Parse a fetched feed or sitemap by what it is; an HTML page gives a ``PAGE`` document
    with no items (its links are the page's own business)."""
    kind = sniff_kind(body, content_type, base_url)
    if kind is HubKind.FEED:
        return parse_feed(body, base_url, content_type)
    if kind in (HubKind.SITEMAP, HubKind.SITEMAP_INDEX):
        return parse_sitemap(body, base_url)
    return HubDocument(HubKind.PAGE)


_LINK_TAG = re.compile(rb"<link\b[^>]*>", re.IGNORECASE)
#: Found where it is (a page's head is short): no lower-cased copy of the whole page first.
_HEAD_END = re.compile(rb"</head>", re.IGNORECASE)
_ATTR = re.compile(rb"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


def discover_feeds(html: bytes | str, page_url: str, limit: int = 20) -> list[str]:
    """Feeds a page announces with ``<link rel="alternate" type="application/rss+xml">`` (or
    Atom), absolute, in document order, at most ``limit``. Only the ``<head>`` is looked at."""
    data = html.encode("utf-8", "replace") if isinstance(html, str) else html
    end = _HEAD_END.search(data)
    head = data[: end.start() if end is not None else 262144]
    found: list[str] = []
    for tag in _LINK_TAG.finditer(head):
        attrs = {
            key.decode("ascii", "replace").lower(): (a or b or c).decode("utf-8", "replace")
            for key, a, b, c in _ATTR.findall(tag.group(0))
        }
        rels = attrs.get("rel", "").lower().split()
        ctype = attrs.get("type", "").lower().strip()
        if "alternate" not in rels or ctype not in _FEED_TYPES:
            continue
        url = _http_url(attrs.get("href", ""), page_url)
        if url is not None and url not in found:
            found.append(url)
            if len(found) >= limit:
                break
    return found


def sitemaps_from_robots(lines: Iterable[str], robots_url: str) -> list[str]:
    """``Sitemap:`` URLs of a robots.txt (absolute, http(s) only, in order, no duplicates)."""
    found: list[str] = []
    for line in lines:
        key, sep, value = line.partition(":")
        if not sep or key.strip().lower() != "sitemap":
            continue
        url = _http_url(value.split("#", 1)[0], robots_url)
        if url is not None and url not in found:
            found.append(url)
    return found
