"""The page store's key layout (the package docstring describes it), its schema versions, and
the records it holds with their codecs: a page's metadata as compact JSON, zlib bodies, a
fetch's bounded detail, the records buffered for the writer, a row of the Pages pane and the
export fields of an extraction."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson
from isal import isal_zlib

from crawler_gui.core.text import header_text, mended

SCHEMA_VERSION = b"4"
#: Versions this program opens (1 lacks ``art/``, 2 lacks ``hub/`` and ``listed/``, 3 lacks
#: ``fx/`` and ``ref/``: no record changes shape, so opening upgrades by writing the new version
#: number only).
_READABLE = (b"1", b"2", b"3", b"4")
#: Name of the page store's directory inside a pool directory.
PAGES_DIRNAME = "pages"
#: ``add`` starts a flush when this many records are buffered.
AUTO_FLUSH_RECORDS = 200

_K_SCHEMA = b"meta/schema_version"
_P_PAGE = b"page/"
_P_BODY = b"body/"
_P_URL = b"url/"
_P_ART = b"art/"
_P_HUB = b"hub/"
_P_LISTED = b"listed/"
_K_LISTED_COUNT = b"meta/listed_count"
#: How many changed bodies of one hub are kept (older ones are deleted as new ones come).
HUB_HISTORY = 5


_P_DETAIL = b"fx/"
_P_REF = b"ref/"
#: Out-links kept per page in its ``fx/`` record (the rest are counted, not listed).
MAX_DETAIL_LINKS = 200
#: The out-link outcomes that get a ``ref/`` key (links in the crawl's scope: the pages that
#: link to a page of the crawl; off-scope links, often most of a page's, get none).
_REF_OUTCOMES = frozenset({"queued", "known", "queued_or_known", "refused", "robots"})
#: Headers kept per request or response, and characters kept of each value.
MAX_HEADERS = 100
MAX_HEADER_CHARS = 2000
# Level 1: nearly the ratio of level 6 on HTML at a third of the CPU (benchmarks/crawl.py).
_ZLIB_LEVEL = 1


def _compress(data: bytes) -> bytes:
    """A zlib stream of ``data``, made by ISA-L (``isal``): the same format (read back by
    ``zlib.decompress``, by older versions too) and the ratio of zlib's level 1 on news pages,
    at about a third of its CPU; bodies were most of the page store's writing cost."""
    return isal_zlib.compress(data, _ZLIB_LEVEL)


def json_bytes(obj: Any) -> bytes:
    """A stored JSON value: compact, UTF-8 (``orjson``: a twentieth of the standard
    library's CPU on a page's detail). Text that is not Unicode (a lone surrogate, if one
    reached here unmended) is mended first (``core.text``): a write never fails on it, and
    nothing stored stops a reader (the search index, an export) later."""
    try:
        return orjson.dumps(obj)
    except orjson.JSONEncodeError:
        return orjson.dumps(mended(obj))


@dataclass(frozen=True, slots=True)
class PageRecord:
    """One fetch of one page."""

    url: str
    final_url: str
    status: int
    #: POSIX seconds.
    fetched_at: float
    content_type: str
    encoding: str
    title: str
    depth: int
    #: Raw body size in bytes (as received, before any store compression).
    size: int
    #: Response time in seconds.
    elapsed: float
    referrer: str | None
    #: ``((url, status), ...)`` of the redirects followed before ``final_url``.
    redirect_chain: tuple[tuple[str, int], ...]
    body: bytes | None = None


def _meta_json(r: PageRecord) -> bytes:
    meta = {
        "url": r.url,
        "final_url": r.final_url,
        "status": r.status,
        "fetched_at": r.fetched_at,
        "content_type": r.content_type,
        "encoding": r.encoding,
        "title": r.title,
        "depth": r.depth,
        "size": r.size,
        "elapsed": r.elapsed,
        "referrer": r.referrer,
        "redirect_chain": [[u, s] for u, s in r.redirect_chain],
    }
    return json_bytes(meta)


def _record_from(meta_bytes: bytes, body: bytes | None) -> PageRecord:
    m: dict[str, Any] = json.loads(meta_bytes)
    return PageRecord(
        url=m["url"],
        final_url=m["final_url"],
        status=int(m["status"]),
        fetched_at=float(m["fetched_at"]),
        content_type=m["content_type"],
        encoding=m["encoding"],
        title=m["title"],
        depth=int(m["depth"]),
        size=int(m["size"]),
        elapsed=float(m["elapsed"]),
        referrer=m["referrer"],
        redirect_chain=tuple((str(u), int(s)) for u, s in m["redirect_chain"]),
        body=body,
    )


@dataclass(frozen=True, slots=True)
class _Extracted:
    """A buffered extraction of the record with the same sequence number."""

    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _HubState:
    """A buffered hub state (``hub/<url>``); ``drop`` lists body records to delete (the
    history's oldest, past its bound)."""

    url: str
    data: dict[str, Any]
    drop: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class _Listed:
    """Buffered feed/sitemap dates: ``(url, published, updated)`` as listed by ``via``."""

    via: str
    items: tuple[tuple[str, float | None, float | None], ...]


@dataclass(frozen=True, slots=True)
class _Detail:
    """A buffered fetch detail (``fx/``) of the record with the same sequence number."""

    data: dict[str, Any]


_Buffered = PageRecord | _Extracted | _HubState | _Listed | _Detail


def _bounded_headers(headers: Any) -> list[list[str]]:
    out: list[list[str]] = []
    for key, value in list(headers or ())[:MAX_HEADERS]:
        out.append([header_text(str(key)[:200]), header_text(str(value)[:MAX_HEADER_CHARS])])
    return out


def make_detail(
    *,
    request_headers: Any = (),
    response_headers: Any = (),
    decided_by: str = "",
    links: Any = (),
) -> dict[str, Any]:
    """A page's fetch detail as stored in ``fx/``: headers as ``[name, value]`` pairs,
    ``decided_by`` (how the encoding was chosen: ``engine.decode.DECIDED_BY``), and
    ``links``: ``[url, outcome, reason]`` for each out-link (outcome ``queued``, ``known``,
    ``queued_or_known``, ``off_scope``, ``refused``, ``robots``, ``not_followed``), the first
    :data:`MAX_DETAIL_LINKS` of them; ``links_total`` counts them all."""
    kept: list[list[str]] = []
    total = 0
    for item in links:
        total += 1
        if len(kept) < MAX_DETAIL_LINKS:
            url, outcome, reason = item
            kept.append([str(url), str(outcome), str(reason or "")])
    return {
        "request_headers": _bounded_headers(request_headers),
        "response_headers": _bounded_headers(response_headers),
        "decided_by": decided_by,
        "links": kept,
        "links_total": total,
    }


@dataclass(frozen=True, slots=True)
class PageRow:
    """One row of the Pages pane: a stored fetch and its extraction's kind ("" if none)."""

    seq: int
    record: PageRecord
    kind: str


#: The article fields of an export record, in order.
ARTICLE_FIELDS = ("title", "published", "updated", "authors", "lang", "text", "zone_inferred")


def export_fields(ex: dict[str, Any] | None) -> dict[str, Any]:
    """The extraction part of a page's export record: ``kind`` (``None`` while not extracted),
    ``why``, ``article`` (``None`` unless an article), ``article_url``, ``part``, ``js_only``."""
    if ex is None:
        return {"kind": None, "why": None, "article": None}
    art = ex.get("article")
    out: dict[str, Any] = {
        "kind": ex.get("kind"),
        "why": ex.get("why"),
        "article": {k: art.get(k) for k in ARTICLE_FIELDS} if isinstance(art, dict) else None,
    }
    if ex.get("article_url"):
        out["article_url"] = ex["article_url"]
        out["part"] = ex.get("part", 1)
    if ex.get("js_only"):
        out["js_only"] = True
    return out
