"""The crawl report: one self-contained HTML file (``crawler-gui report``, File → Save report).

What it shows comes from the pool's per-minute counters (``core/counters.py``: the whole run,
across restarts and workers), the pool's totals, and, where a page store can be read, the
articles stored (exact delays from publication to fetch, the newest headlines). No external
asset, no script: inline CSS and inline SVG charts, readable in any browser or mail client.
Everything that comes from the crawled pages (titles, URLs, hosts, reasons) is escaped.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import html
import math
import os
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from crawler_gui.core.counters import (
    D_PREFIX,
    DELAY_BOUNDS,
    H_ARTICLES,
    H_FAILED,
    H_PAGES,
    M_ARTICLES,
    M_BYTES,
    M_ERROR,
    M_FEEDS,
    M_HUBS,
    M_PAGES,
    M_REFUSED,
    M_STATUS,
    Counters,
    delay_median,
)
from crawler_gui.core.freshness import published_seconds
from crawler_gui.core.frontier import PoolTotals
from crawler_gui.errors import CrawlerGuiError, DiskFullError, is_disk_full

if TYPE_CHECKING:
    from crawler_gui.engine.store import PageStore

__all__ = [
    "ArticleStats",
    "ReportData",
    "article_stats",
    "collect_report",
    "render_html",
    "save_report",
]

#: Hosts listed in the failing-hosts and articles-per-host tables.
TOP_HOSTS = 25
#: Newest articles listed (from the page store).
NEWEST_ARTICLES = 20
#: The throughput chart has at most this many bars: a longer run sums minutes per bar.
CHART_BARS = 360
#: Pages read from the store per step.
_STORE_STEP = 2000


@dataclass(frozen=True, slots=True)
class ArticleRow:
    url: str
    host: str
    title: str
    fetched_at: float
    published: str | None
    delay: float | None


@dataclass(slots=True)
class ArticleStats:
    """The articles of a page store, summed up (a bounded amount of memory but the delays)."""

    count: int = 0
    per_host: Counter[str] = field(default_factory=Counter)
    delays: list[float] = field(default_factory=list)
    newest: list[ArticleRow] = field(default_factory=list)


def article_stats(store: PageStore) -> ArticleStats:
    """Read every stored page's extraction (worker thread: a big store takes seconds)."""
    out = ArticleStats()
    heap: list[tuple[float, int, ArticleRow]] = []
    after = 0
    while True:
        rows = store.iter_rows_from(after, _STORE_STEP)
        if not rows:
            break
        for row, ex in rows:
            after = row.seq
            art = ex.get("article") if ex else None
            if not isinstance(art, dict) or ex is None or ex.get("kind") != "article":
                continue
            rec = row.record
            host = urlsplit(rec.final_url or rec.url).netloc
            out.count += 1
            out.per_host[host] += 1
            published = art.get("published")
            when = published_seconds(published if isinstance(published, str) else None)
            delay = None if when is None else max(0.0, rec.fetched_at - when)
            if delay is not None:
                out.delays.append(delay)
            item = ArticleRow(
                rec.url,
                host,
                str(art.get("title") or rec.title or ""),
                rec.fetched_at,
                published if isinstance(published, str) else None,
                delay,
            )
            entry = (rec.fetched_at, row.seq, item)
            if len(heap) < NEWEST_ARTICLES:
                heapq.heappush(heap, entry)
            else:
                heapq.heappushpop(heap, entry)
    out.newest = [item for _t, _s, item in sorted(heap, reverse=True)]
    return out


@dataclass(slots=True)
class ReportData:
    """Everything a report shows."""

    #: What was reported on: a pool folder, or a Redis pool URL without its password.
    source: str
    totals: PoolTotals | None
    counters: Counters
    #: From the page store; None when there is none to read (a Redis pool without
    #: ``--store-dir``, a pool a crawl holds in another process).
    articles: ArticleStats | None = None
    #: The state of the crawl that holds the pool ("running"), or None.
    state: str | None = None
    generated: float = field(default_factory=time.time)


# ---- formatting ----------------------------------------------------------------------------------
def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _n(value: int | float) -> str:
    return f"{value:,.0f}" if isinstance(value, int) or value == int(value) else f"{value:,.1f}"


def _when(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 5 min``, ``2 d 4 h``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    m = s // 60
    if m < 60:
        return f"{m} min"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h} h {m} min" if m else f"{h} h"
    d, h = divmod(h, 24)
    return f"{d} d {h} h" if h else f"{d} d"


def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} TB"  # pragma: no cover


def _table(head: Iterable[str], rows: Iterable[Iterable[object]], cls: str = "") -> str:
    out = [f'<table class="{_e(cls)}"><thead><tr>']
    out += [f"<th>{_e(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    empty = True
    for row in rows:
        empty = False
        out.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>")
    if empty:
        out.append('<tr><td class="none">none</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def _link(url: str, text: str | None = None) -> str:
    """An escaped link for http(s) URLs; anything else as plain text (no ``javascript:``)."""
    label = _e(text if text is not None else url)
    if urlsplit(url).scheme.lower() in ("http", "https"):
        return f'<a href="{_e(url)}" rel="noreferrer noopener">{label}</a>'
    return label


# ---- sections ------------------------------------------------------------------------------------
def _chart(counters: Counters) -> str:
    """Pages (and errors) per minute as inline SVG bars, from the first to the last minute
    counted (minutes without fetches show as gaps)."""
    minutes = counters.minutes
    if not minutes:
        return '<p class="none">No fetches counted yet.</p>'
    first, last = min(minutes), max(minutes)
    span = last - first + 1
    per_bar = max(1, math.ceil(span / CHART_BARS))
    bars = math.ceil(span / per_bar)
    pages = [0] * bars
    errors = [0] * bars
    for minute, rec in minutes.items():
        i = (minute - first) // per_bar
        pages[i] += rec.get(M_PAGES, 0)
        errors[i] += sum(n for k, n in rec.items() if k.startswith(M_ERROR))
    top = max(1, *(p + e for p, e in zip(pages, errors, strict=True)))
    width, height, left, bottom = 720, 200, 48, 24
    bar_w = (width - left) / bars
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + bottom}" '
        f'viewBox="0 0 {width} {height + bottom}" role="img" '
        f'aria-label="pages per {per_bar} min">'
    ]
    for frac in (0.0, 0.5, 1.0):
        y = height - frac * (height - 10)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{round(top * frac):,}</text>'
        )
    for i, (p, e) in enumerate(zip(pages, errors, strict=True)):
        x = left + i * bar_w
        hp = p / top * (height - 10)
        he = e / top * (height - 10)
        if p:
            parts.append(
                f'<rect x="{x:.2f}" y="{height - hp:.2f}" width="{max(bar_w - 0.5, 0.5):.2f}" '
                f'height="{hp:.2f}" class="pages"><title>{_e(_when((first + i * per_bar) * 60))}'
                f": {p} pages, {e} errors</title></rect>"
            )
        if e:
            parts.append(
                f'<rect x="{x:.2f}" y="{height - hp - he:.2f}" '
                f'width="{max(bar_w - 0.5, 0.5):.2f}" height="{he:.2f}" class="errors"/>'
            )
    parts.append(
        f'<text x="{left}" y="{height + 16}">{_e(_when(first * 60))}</text>'
        f'<text x="{width}" y="{height + 16}" text-anchor="end">'
        f"{_e(_when((last + 1) * 60))}</text></svg>"
    )
    unit = "minute" if per_bar == 1 else f"{per_bar} minutes"
    legend = (
        f'<p class="legend"><span class="key pages"></span> pages per {unit} '
        f'<span class="key errors"></span> errors (no response)</p>'
    )
    return "".join(parts) + legend


def _totals(data: ReportData) -> str:
    c = data.counters
    pages = c.total(M_PAGES)
    errors = sum(c.prefixed(M_ERROR).values())
    minutes = len(c.minutes)
    rows: list[tuple[str, str]] = [
        ("Pages fetched (with an HTTP status)", _n(pages)),
        ("Fetches without a response (errors)", _n(errors)),
        ("Bytes received", _bytes(c.total(M_BYTES))),
        ("Articles found", _n(c.total(M_ARTICLES))),
        (
            "Hub fetches (of which feeds and sitemaps)",
            f"{_n(c.total(M_HUBS))} ({_n(c.total(M_FEEDS))})",
        ),
        ("URLs refused by policy (not fetched)", _n(c.total(M_REFUSED))),
        ("Minutes with fetches", _n(minutes)),
        ("Pages per minute, on average over those", _n(pages / minutes) if minutes else "0"),
    ]
    if c.minutes:
        first, last = min(c.minutes), max(c.minutes)
        rows.insert(
            0,
            (
                "Period",
                f"{_e(_when(first * 60))} to {_e(_when((last + 1) * 60))} "
                f"({_e(duration((last + 1 - first) * 60))})",
            ),
        )
    t = data.totals
    if t is not None:
        rows += [
            ("URLs done", _n(t.done)),
            ("URLs failed for good", _n(t.failed)),
            ("URLs waiting", _n(t.waiting)),
            ("URLs retrying", _n(t.retrying)),
            ("URLs in flight", _n(t.pending)),
            ("URLs redirected", _n(t.redirected)),
            ("Hosts", _n(t.hosts)),
            ("Hubs", _n(t.hubs)),
        ]
    body = "".join(f'<tr><th scope="row">{_e(k)}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="totals"><tbody>{body}</tbody></table>'


def _statuses(counters: Counters) -> str:
    codes = counters.prefixed(M_STATUS)
    errors = counters.prefixed(M_ERROR)
    total = sum(codes.values()) + sum(errors.values())
    classes: Counter[str] = Counter()
    for code, n in codes.items():
        classes[f"{code[:1]}xx" if code[:1] in "2345" else "other"] += n
    if errors:
        classes["error"] = sum(errors.values())

    def share(n: int) -> str:
        return f"{100.0 * n / total:.1f} %" if total else ""

    def code_key(item: tuple[str, int]) -> tuple[int, str]:
        return (int(item[0]) if item[0].isdigit() else 10**6, item[0])

    by_class = _table(
        ("class", "fetches", "share"),
        ((_e(k), _n(n), share(n)) for k, n in sorted(classes.items())),
        "narrow",
    )
    by_code = _table(
        ("status", "fetches", "share"),
        ((_e(k), _n(n), share(n)) for k, n in sorted(codes.items(), key=code_key)),
        "narrow",
    )
    by_error = _table(
        ("error (no response)", "fetches", "share"),
        ((_e(k), _n(n), share(n)) for k, n in sorted(errors.items(), key=lambda kv: -kv[1])),
        "narrow",
    )
    return f'<div class="cols">{by_class}{by_code}{by_error}</div>'


def _failing_hosts(counters: Counters) -> str:
    rows = []
    for host, rec in counters.hosts.items():
        reasons = {k[len(H_FAILED) :]: n for k, n in rec.items() if k.startswith(H_FAILED)}
        failed = sum(reasons.values())
        if failed:
            rows.append((failed, host, rec, reasons))
    rows.sort(key=lambda r: (-r[0], r[1]))
    return _table(
        ("host", "failed fetches", "fetched", "reasons"),
        (
            (
                _e(host),
                _n(failed),
                _n(rec.get(H_PAGES, 0)),
                _e(
                    ", ".join(f"{k} × {n}" for k, n in sorted(reasons.items(), key=lambda x: -x[1]))
                ),
            )
            for failed, host, rec, reasons in rows[:TOP_HOSTS]
        ),
    ) + (
        f'<p class="note">{len(rows)} hosts had failures; the top {TOP_HOSTS} are listed.</p>'
        if len(rows) > TOP_HOSTS
        else ""
    )


def _articles_per_host(data: ReportData) -> str:
    c = data.counters
    per_host: Mapping[str, int]
    if data.articles is not None:
        per_host = data.articles.per_host
        note = "from the page store"
    else:
        per_host = {h: r.get(H_ARTICLES, 0) for h, r in c.hosts.items() if r.get(H_ARTICLES)}
        note = "from the pool's counters"
    rows = sorted(per_host.items(), key=lambda kv: (-kv[1], kv[0]))
    table = _table(
        ("host", "articles", "pages fetched"),
        ((_e(h), _n(n), _n(c.hosts.get(h, {}).get(H_PAGES, 0))) for h, n in rows[:TOP_HOSTS]),
    )
    more = f"; the top {TOP_HOSTS} of {len(rows)} hosts are listed" if len(rows) > TOP_HOSTS else ""
    return table + f'<p class="note">Articles {note}{more}.</p>'


def _freshness(data: ReportData) -> str:
    c = data.counters
    rows: list[tuple[str, str]] = []
    if data.articles is not None:
        a = data.articles
        delays = a.delays
        median = statistics.median(delays) if delays else None
        rows += [
            ("Articles stored", _n(a.count)),
            ("With a known publication time", _n(len(delays))),
            (
                "Median delay, publication to fetch",
                _e(duration(median)) if median is not None else "unknown",
            ),
        ]
        hist = Counter(_bucket(d) for d in delays)
        source = "the page store"
    else:
        median = delay_median(c.delays)
        known = sum(c.delays.values())
        rows += [
            ("Articles found", _n(c.total(M_ARTICLES))),
            ("With a known publication time", _n(known)),
            (
                "Median delay, publication to fetch (within its bucket)",
                _e(duration(median)) if median is not None else "unknown",
            ),
        ]
        hist = Counter({k[len(D_PREFIX) :]: n for k, n in c.delays.items()})
        source = "the pool's counters"
    body = "".join(f'<tr><th scope="row">{_e(k)}</th><td>{v}</td></tr>' for k, v in rows)
    labels = [f"{b:g}" for b in DELAY_BOUNDS]
    lower = 0.0
    hist_rows = []
    for bound, label in zip(DELAY_BOUNDS, labels, strict=True):
        n = hist.get(label, 0)
        if n:
            upper = "later" if math.isinf(bound) else duration(bound)
            hist_rows.append((_e(f"{duration(lower)} – {upper}"), _n(n)))
        lower = bound
    return (
        f'<table class="totals"><tbody>{body}</tbody></table>'
        + _table(("delay", "articles"), hist_rows, "narrow")
        + f'<p class="note">From {source}.</p>'
    )


def _bucket(delay: float) -> str:
    for bound in DELAY_BOUNDS:
        if delay <= bound:
            return f"{bound:g}"
    return "inf"  # pragma: no cover


def _newest(data: ReportData) -> str:
    if data.articles is None or not data.articles.newest:
        return ""
    rows = (
        (
            _e(_when(a.fetched_at)),
            _e(a.host),
            _link(a.url, a.title or a.url),
            _e(duration(a.delay)) if a.delay is not None else "unknown",
        )
        for a in data.articles.newest
    )
    return "<h2>Newest articles</h2>" + _table(("fetched", "host", "headline", "delay"), rows)


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222;
padding:0 12px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 16px 8px 0}td,th{padding:3px 10px;text-align:left;
border-bottom:1px solid #eee;vertical-align:top}thead th{background:#f4f4f4}
table.totals th{font-weight:normal;color:#555}td:nth-child(n+2){font-variant-numeric:tabular-nums}
.cols{display:flex;flex-wrap:wrap;align-items:flex-start}.none,.note,.meta{color:#777}
svg text{font-size:11px;fill:#555}svg .grid{stroke:#e4e4e4}svg .pages{fill:#3b7dd8}
svg .errors{fill:#d9534f}.key{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
.key.pages{background:#3b7dd8}.key.errors{background:#d9534f}a{color:#1a5fb4}
"""


def render_html(data: ReportData) -> str:
    """The report as one HTML document (a string; the caller writes it)."""
    state = f" · the crawl is {_e(data.state)}" if data.state else ""
    no_counts = (
        ""
        if data.counters
        else '<p class="note">The pool holds no per-minute counters: it was crawled by an '
        "older version, or not yet (they are saved about once a minute).</p>"
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Crawl report: {_e(data.source)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f'<h1>Crawl report</h1><p class="meta">{_e(data.source)} · made '
        f"{_e(_when(data.generated))}{state}</p>",
        no_counts,
        "<h2>Totals</h2>",
        _totals(data),
        "<h2>Throughput</h2>",
        _chart(data.counters),
        "<h2>Status codes and errors</h2>",
        _statuses(data.counters),
        "<h2>Top failing hosts</h2>",
        _failing_hosts(data.counters),
        "<h2>Articles per host</h2>",
        _articles_per_host(data),
        "<h2>Freshness</h2>",
        _freshness(data),
        _newest(data),
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


class ReportSource(Protocol):
    """The pool a report reads: any ``Frontier``, or the window's attached one."""

    async def counters(self) -> Counters: ...

    async def totals(self) -> PoolTotals: ...


async def collect_report(
    frontier: ReportSource,
    source: str,
    *,
    store: PageStore | None = None,
    pending: Counters | None = None,
    state: str | None = None,
) -> ReportData:
    """A report's data from a pool (any ``Frontier``, or the window's attached one): its
    counters (plus ``pending``, what a crawl in this process has not flushed yet), its
    totals, and the articles of ``store`` when given (read in a worker thread)."""
    counters = await frontier.counters()
    if pending is not None:
        counters.merge(pending)
    totals = await frontier.totals()
    articles = None
    if store is not None:
        await store.flush()  # the records a crawl buffered: read from the disk
        articles = await asyncio.to_thread(article_stats, store)
    return ReportData(source, totals, counters, articles, state)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file in its folder, renamed
    over it); an OSError is one clear CrawlerGuiError."""
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        with open(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # a report is for reading (mkstemp makes it owner-only)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        if is_disk_full(exc):
            raise DiskFullError(f"cannot write {path}: the disk is full") from exc
        raise CrawlerGuiError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


async def save_report(
    frontier: ReportSource,
    source: str,
    path: Path,
    *,
    store: PageStore | None = None,
    pending: Counters | None = None,
    state: str | None = None,
) -> ReportData:
    """The window's File → Save report: the report of ``frontier`` written to ``path``.
    Gathering, rendering and writing run off the event loop (the pool's reads in its own
    threads, the page store's and the HTML in a worker thread). An attached session asks the
    crawl that holds the pool (the page store is that process's: no headlines then)."""
    data = await collect_report(frontier, source, store=store, pending=pending, state=state)
    text = await asyncio.to_thread(render_html, data)
    await asyncio.to_thread(write_atomically, Path(path), text)
    return data
