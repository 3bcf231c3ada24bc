"""The headline of a page, reconciled from its ``<h1>``, ``og:title``, JSON-LD and ``<title>``
(site suffixes learned per host), and where the page shows it (the dateline follows it):
an ``<h1>``, or, on a page without one that names the article, the block that shows a
piece of the ``<title>`` (an ``<h2>``, a styled ``<div>``, a ``<strong>``).

Chinese portals put the site name in the ``<title>`` on either side of a separator and have
several ``<h1>`` (the logo, a recommended story): the one the other sources also name wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from crawler_gui.engine.extract.dom import PageDom
from crawler_gui.engine.extract.textutil import norm_key, units

__all__ = ["find_headline", "learn_suffix", "strip_site_suffix", "text_after"]


#: Separators between a headline and the site name in a ``<title>``.
_TITLE_SEPS = ("_", "|", " - ", " – ", " — ", "｜", "-", "—", "::", " · ")


def _split_title(raw: str) -> list[str]:
    """``raw`` cut at each site separator from the right: candidates from longest to shortest."""
    out = [raw]
    cur = raw
    while True:
        best = -1
        for sep in _TITLE_SEPS:
            i = cur.rfind(sep)
            if i > best:
                best = i
                cut = cur[:i].strip()
        if best <= 0 or not cut:
            return out
        cur = cut
        out.append(cur)


def strip_site_suffix(raw: str, suffixes: Sequence[str] = ()) -> str:
    """``raw`` (a ``<title>``) without the host's site suffix: a learned suffix when it ends
    ``raw``, else the last separator's tail when what is left is still a headline."""
    raw = " ".join(raw.split())
    for suf in sorted(suffixes, key=len, reverse=True):
        if suf and raw.endswith(suf) and len(raw) > len(suf):
            return raw[: -len(suf)].strip()
    parts = _split_title(raw)
    if len(parts) > 1 and units(parts[1]) >= 4:
        return parts[1]
    return raw


def _similar(a: str, b: str) -> float:
    """How much of the shorter normalised string the longer contains (1.0: contained), by
    character pairs."""
    ka, kb = norm_key(a), norm_key(b)
    if not ka or not kb:
        return 0.0
    short, long_ = (ka, kb) if len(ka) <= len(kb) else (kb, ka)
    if short in long_:
        return 1.0
    if len(short) < 10:
        return 0.0  # too short for a partial match to mean anything
    pairs = {short[i : i + 2] for i in range(len(short) - 1)}
    if not pairs:
        return 0.0
    return sum(1 for p in pairs if p in long_) / len(pairs)


def _is_title_piece(text: str, raw_title: str) -> bool:
    """``text`` is the whole of the ``<title>`` or of one side of a site separator in it: a
    short headline ("About bugs") the page names twice."""
    key = norm_key(text)
    if not key or not raw_title:
        return False
    pieces = {raw_title, *_split_title(raw_title)}
    for sep in _TITLE_SEPS:
        pieces.update(raw_title.split(sep))
    return any(norm_key(p) == key for p in pieces)


#: Where a headline may be shown: headings, and short blocks (a styled ``<div>``, a
#: ``<strong>`` alone in its paragraph, a table cell).
_SHOWN_MAX = 300


def find_headline(
    page: PageDom, suffixes: Sequence[str], main_start: int = -1
) -> tuple[str, str, int]:
    """(headline, where it came from, the index of the block that shows it or -1).

    An ``<h1>`` that the ``<title>``, ``og:title`` or JSON-LD also name wins (a portal's
    other ``<h1>`` are its logo or a recommended story); else a piece of the ``<title>``
    (either side of a site separator) that the page shows as a block of its own, the one
    nearest before the main text (``main_start``, a block index) -- an ``<h2>``, a styled
    block --; else ``og:title``, JSON-LD's headline, the ``<title>`` without its site name."""
    meta = page.meta
    raw_title = page.raw_title
    og = meta.get("og:title") or meta.get("twitter:title") or ""
    ld_head = next(
        (str(i["headline"]).strip() for i in page.json_ld if isinstance(i.get("headline"), str)),
        "",
    )
    cleaned = strip_site_suffix(raw_title, suffixes) if raw_title else ""
    refs = [r for r in (og, ld_head, cleaned, raw_title) if r]
    blocks = page.blocks
    h1s = [(i, _headline_line(b.text, refs)) for i, b in enumerate(blocks) if b.tag == "h1"]
    h1s = [(i, t) for i, t in h1s if 2 <= len(t) <= 200]
    best: tuple[float, str, int] | None = None
    for i, t in h1s:
        score = max((_similar(t, r) for r in refs), default=0.0)
        if score >= 0.8 and (best is None or score > best[0] or len(t) > len(best[1])):
            best = (score, t, i)
    if best is not None and (units(best[1]) >= 3 or _is_title_piece(best[1], raw_title)):
        return best[1], "h1", best[2]
    # A piece of the <title> (or og:title) that the page shows as a block of its own.
    pieces: dict[str, str] = {}
    for source in (raw_title, og):
        if not source:
            continue
        for piece in {source, *_split_title(source), *_side_pieces(source)}:
            if units(piece) >= 4:
                pieces.setdefault(norm_key(piece), piece)
    if pieces:
        # (A block's key is never longer than its text, and punctuation and spaces are a
        # small part of a headline: only the blocks of about a piece's length are keyed.)
        shortest = min(map(len, pieces)) * 0.9
        longest = min(_SHOWN_MAX, max(map(len, pieces)) * 2 + 10)
        shown = [
            i
            for i, b in enumerate(blocks)
            if shortest <= b.chars <= longest and norm_key(b.text) in pieces
        ]
        if shown:
            before = [i for i in shown if main_start < 0 or i <= main_start]
            i = max(before) if before else shown[0]
            text = blocks[i].text.replace("\n", " ")
            return text, f"title (shown in <{blocks[i].tag}>)", i
    if og and units(og) >= 3:
        return strip_site_suffix(og, suffixes), "og:title", -1
    if ld_head:
        return ld_head, "json-ld", -1
    if cleaned:
        return cleaned, "title", -1
    if h1s:
        return h1s[0][1], "h1 (no title)", h1s[0][0]
    return "", "none", -1


def _headline_line(text: str, refs: list[str]) -> str:
    """The headline in a heading of several lines (a kicker, the headline, a date line under
    a ``<br>``): the line the other sources name best, else the longest."""
    if "\n" not in text:
        return text
    lines = [x for x in text.split("\n") if x.strip()]
    scored = [(max((_similar(x, r) for r in refs), default=0.0), len(x), x) for x in lines]
    best = max(scored)
    return best[2] if best[0] >= 0.8 else max(lines, key=len)


def _side_pieces(raw: str) -> set[str]:
    out: set[str] = set()
    for sep in _TITLE_SEPS:
        if sep in raw:
            out.update(x.strip() for x in raw.split(sep))
    return out


def text_after(page: PageDom, index: int, limit: int) -> str:
    """The text of the blocks after block ``index``, up to ``limit`` characters."""
    parts: list[str] = []
    n = 0
    for b in page.blocks[index + 1 :]:
        parts.append(b.text)
        n += b.chars + 1
        if n >= limit:
            break
    return " ".join(parts)[:limit]


def learn_suffix(titles: Iterable[str]) -> str | None:
    """The site suffix a host's ``<title>``s share (starting at a separator), if any."""
    titles = [t for t in titles if t]
    if len(titles) < 3:
        return None
    first = titles[0]
    n = 0
    while n < len(first) and all(len(t) > n and t[-1 - n] == first[-1 - n] for t in titles):
        n += 1
    if n == 0:
        return None
    common = first[len(first) - n :]
    for sep in _TITLE_SEPS:
        i = common.find(sep)
        if i >= 0:
            return common[i:]
    return None
