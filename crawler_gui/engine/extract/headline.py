"""The headline of a page, reconciled from its ``<h1>``, ``og:title``, JSON-LD and ``<title>``
(site suffixes learned per host), and where the page shows it (the dateline follows it).

Chinese portals put the site name in the ``<title>`` on either side of a separator and have
several ``<h1>`` (the logo, a recommended story): the one the other sources also name wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lxml import etree

from crawler_gui.engine.extract.textutil import element_text, norm_key, string_value, units

__all__ = ["element_showing", "find_headline", "learn_suffix", "strip_site_suffix", "text_after"]


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


def find_headline(
    tree: Any,
    meta: dict[str, str],
    ld: list[dict[str, Any]],
    raw_title: str,
    suffixes: Sequence[str],
    searched: dict[str, Any] | None = None,
) -> tuple[str, str, Any]:
    """(headline, where it came from, its element or None). ``searched``, when given, gets
    the elements that may show a headline when they were looked for (``"shown"``: the
    longest headline they serve, see :func:`shown_elements`, and the elements), so that
    looking for the element showing the headline found elsewhere needs no second search."""
    og = meta.get("og:title") or meta.get("twitter:title") or ""
    ld_head = next((str(i["headline"]) for i in ld if isinstance(i.get("headline"), str)), "")
    cleaned = strip_site_suffix(raw_title, suffixes) if raw_title else ""
    refs = [r for r in (og, ld_head, cleaned, raw_title) if r]
    h1s = [(h, element_text(h)) for h in tree.iter("h1")]
    h1s = [(h, t) for h, t in h1s if 2 <= len(t) <= 200]
    # An <h1> that the <title>/og:title/JSON-LD also name is the headline (a portal's other
    # <h1>s are its logo or a recommended story).
    best: tuple[float, str, Any] | None = None
    for h, t in h1s:
        score = max((_similar(t, r) for r in refs), default=0.0)
        if score >= 0.8 and (best is None or score > best[0] or len(t) > len(best[1])):
            best = (score, t, h)
    if best is not None and (units(best[1]) >= 3 or _is_title_piece(best[1], raw_title)):
        return best[1], "h1", best[2]
    # A piece of the <title> that the page shows as an element of its own is the headline
    # (whichever side of the separator the site name is on).
    if raw_title:
        pieces = {raw_title, *_split_title(raw_title)}
        for sep in _TITLE_SEPS:
            pieces.update(x.strip() for x in raw_title.split(sep))
        shown: list[tuple[Any, int, str]] | None = None
        for piece in sorted(pieces, key=len, reverse=True):
            if units(piece) >= 4:
                if shown is None:  # (for the longest piece: it holds the shorter ones')
                    shown = shown_elements(tree, len(piece) * 2 + 20)
                    if searched is not None:
                        searched["shown"] = (len(piece), shown)
                el = element_showing(tree, piece, shown)
                if el is not None:
                    return piece, "title (shown on the page)", el
    if og and units(og) >= 3:
        return strip_site_suffix(og, suffixes), "og:title", None
    if ld_head:
        return ld_head, "json-ld", None
    if cleaned:
        return cleaned, "title", None
    if h1s:
        return h1s[0][1], "h1 (no title)", h1s[0][0]
    return "", "none", None


def element_showing(
    tree: Any, headline: str, shown: list[tuple[Any, int, str]] | None = None
) -> Any:
    """The first element in ``<body>`` whose own text is the headline. ``shown``: the
    candidates of :func:`shown_elements` for a headline at least as long (the title's
    pieces are tried longest first: one search serves them all)."""
    key = norm_key(headline)
    if not key:
        return None
    n = len(headline) * 2 + 20
    if shown is None:
        body = tree.find(".//body")
        if body is None:
            return None
        for el in _SHOWING(body, n=n):
            if norm_key(string_value(el)) == key:
                return el
        return None
    for el, length, k in shown:
        if length < n and k == key:
            return el
    return None


def shown_elements(tree: Any, n: int) -> list[tuple[Any, int, str]]:
    """The elements of ``<body>`` that may show a headline of up to ``n`` characters (see
    :data:`_SHOWING`), each with its text's length and :func:`norm_key`."""
    body = tree.find(".//body")
    if body is None:
        return []
    out = []
    for el in _SHOWING(body, n=n):
        text = string_value(el)
        out.append((el, len(text), norm_key(text)))
    return out


#: The elements of ``<body>`` that may show a headline of ``$n`` characters and under, in
#: document order: few children, some text, and not more than ``$n`` characters of it (its
#: length is counted by libxml2, without making a Python string of every element's text).
_SHOWING = etree.XPath(
    "descendant::*[self::h1 or self::h2 or self::h3 or self::div or self::span or self::p"
    " or self::strong or self::td][count(node()[not(self::text())]) < 4]"
    "[string-length(.) > 0 and string-length(.) < $n]"
)


def text_after(el: Any, limit: int) -> str:
    """The text that follows ``el`` in document order, up to ``limit`` characters."""
    parts: list[str] = []
    n = 0
    node = el
    # Walk: following siblings, then the parent's following siblings, and so on.
    while node is not None and n < limit:
        sib = node.getnext()
        while sib is not None and n < limit:
            if isinstance(sib.tag, str) and sib.tag not in ("script", "style"):
                t = element_text(sib)
                parts.append(t)
                n += len(t)
            if sib.tail:
                parts.append(sib.tail)
                n += len(sib.tail)
            sib = sib.getnext()
        node = node.getparent()
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
