"""When a page was published (and updated), as a reader would find it.

1. What the markup names the publication time for sure (an article's JSON-LD,
   ``article:published_time`` and its relatives, ``itemprop=datePublished``) -- read in the
   page's own time zone: an instant given in UTC whose day the page prints one off (a story
   published at 10 pm in California is the next day in UTC) takes the page's day.
2. Else the date the page shows by the headline: a ``<time>``, a short dateline after it (or
   just above it), a block named as the date, a labelled publication time ("发布时间：").
3. Else what the markup perhaps means as the publication time (``<meta name="date">``,
   Dublin Core: as often when the page was made or changed), the URL's date, the page's
   canonical URL's, the scripts' state.

Never a date in readers' comments, in the navigation, a footer or an aside, nor one a
paragraph of the text mentions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from urllib.parse import urlsplit

from crawler_gui.engine.extract.dates import (
    Stamp,
    find_labelled_date,
    find_text_dates,
    parse_machine_date,
    text_dates,
)
from crawler_gui.engine.extract.dom import (
    ARTICLE,
    ASIDE,
    COMMENTS,
    FOOTER,
    HIDDEN,
    NAVIGATION,
    PageDom,
)
from crawler_gui.engine.extract.markup import Said, machine_dates, script_date

__all__ = ["Published", "htmldate_stamp", "publication", "url_date"]

#: Blocks whose dates are never the page's: readers' comments, hidden blocks; the page's
#: navigation, footer and asides (an article's own footer or aside holds its date).
_NEVER = COMMENTS | HIDDEN
_PAGE_PARTS = FOOTER | NAVIGATION | ASIDE


def _not_the_page(flags: int) -> bool:
    return bool(flags & _NEVER or (flags & _PAGE_PARTS and not flags & ARTICLE))


#: How far from the headline (in blocks) a shown date is the page's.
_NEAR_BLOCKS = 12
#: A dateline is short.
_DATELINE_CHARS = 200
#: Class and id words of elements that hold a date.
_DATE_NAME = re.compile(
    r"date|time|datum|fecha|data|publi|posted|byline|meta|info|zeit|stamp|when|dateline|"
    r"submitted|author|autor|stand|footer",
    re.I,
)
#: A year a date may have (a block without one prints no date).
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
#: A label saying the date after it is the publication time.
_SAID_PUBLISHED = re.compile(
    r"(发布时间|发表时间|发布日期|发稿时间|发表于|published( on)?|posted( on)?|"
    r"veröffentlicht( am)?|"
    r"publié le|publicado( el| em)?|pubblicato( il)?|gepubliceerd( op)?|opublikowano)"
    r"\s*[：:]?\s*(\w+,?\s*)?(?=\d)",
    re.I,
)
#: A date in a URL's path: ``/2019/09/26/``, ``/2019-09-26/``, ``/20190926/`` (not the
#: fourteen digits of an archive's capture time).
_URL_DATE = re.compile(
    r"/((?:19|20)\d{2})([/_-]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?:[/_.-]|$)"
)


@dataclass(frozen=True, slots=True)
class Published:
    published: Stamp | None
    updated: Stamp | None
    #: Where the publication time came from (for the page's ``why``).
    source: str


@dataclass(frozen=True, slots=True)
class _Shown:
    stamp: Stamp
    #: Blocks from the headline (0: in the dateline).
    distance: int
    #: 0: said to be the publication time (a label, a <time>); 1: a dateline or a block
    #: named as a date; 2: another short block with a date.
    rank: int
    how: str


def publication(page: PageDom, url: str, head: int, main_start: int, lang: str | None) -> Published:
    """The publication and update times of ``page`` (``head``: the headline's block index
    or -1; ``main_start``: the main text's first block or -1)."""
    said, upd = machine_dates(page)
    sure = [s for s in said if s.sure]
    if sure and sure[0].stamp.time is not None and sure[0].stamp.offset not in (None, "+00:00"):
        # The markup says when, to the minute, in the page's own time zone: nothing the
        # page shows can read it better.
        return Published(sure[0].stamp, upd, sure[0].source)
    anchor = head if head >= 0 else main_start
    shown, shown_upd = _shown_dates(page, anchor, main_start, lang or page.lang)
    upd = upd or shown_upd
    best_shown = shown[0] if shown and shown[0].distance <= _NEAR_BLOCKS else None
    if sure:
        return _in_local_time(sure[0], said, best_shown, upd)
    if best_shown is not None:
        return Published(best_shown.stamp, upd, best_shown.how)
    labelled = find_labelled_date(" ".join(b.text for b in page.blocks[: max(anchor, 0) + 40]))
    if labelled is not None:
        return Published(labelled, upd, "labelled on the page")
    if said:
        return _in_local_time(said[0], said, shown[0] if shown else None, upd)
    if shown:
        return Published(shown[0].stamp, upd, shown[0].how)
    st = url_date(url)
    if st is not None:
        return Published(st, upd, "URL")
    for other in (page.canonical, page.meta.get("og:url")):
        st = url_date(other) if other else None
        if st is not None:
            return Published(st, upd, "the page's canonical URL")
    st = script_date(page)
    if st is not None:
        return Published(st, upd, "script")
    meta = page.meta
    for image in (meta.get("og:image"), meta.get("twitter:image")):
        st = url_date(image) if image else None
        if st is not None:
            return Published(st, upd, "the page's picture's URL")
    if upd is not None:
        return Published(upd, upd, "its only date is when it was updated")
    return Published(None, upd, "")


def htmldate_stamp(text: str, url: str) -> Stamp | None:
    """htmldate's publication date of the page ``text`` (its fast search: its markup and date
    elements; the extensive one guesses from any date on the page and is as often wrong as
    right where ours found none), a day: the second opinion on a page with text where our
    rules find no date. Imported on first use."""
    from htmldate import find_date

    try:
        found = find_date(text, url=url, extensive_search=False, original_date=True)
    except Exception:  # htmldate raises on odd input; a missing date is no error
        return None
    return parse_machine_date(found) if found else None


def _in_local_time(
    chosen: Said, said: list[Said], shown: _Shown | None, upd: Stamp | None
) -> Published:
    """``chosen`` read in the page's own time: an instant given in UTC whose day another
    value (in the page's time zone) or the date shown by the headline puts a day before or
    after takes that day (and, from a shown time of day, that offset); a day without a time
    of day takes the time shown for it."""
    st = chosen.stamp
    if st.offset == "+00:00" and st.time is not None:
        for other in said:
            o = other.stamp
            if o.offset not in (None, "+00:00") and o.time is not None and _same_instant(st, o):
                return Published(o, upd, other.source)
        if shown is not None and abs((shown.stamp.day - st.day).days) == 1:
            local = _with_offset(st, shown.stamp)
            return Published(local, upd, chosen.source + " (in the page's time zone)")
    if st.time is None and shown is not None and shown.stamp.day == st.day and shown.stamp.time:
        return Published(shown.stamp, upd, chosen.source + " (time shown by the headline)")
    return Published(st, upd, chosen.source)


def _instant(st: Stamp) -> datetime:
    assert st.time is not None
    h, m, s = st.time
    when = datetime(st.day.year, st.day.month, st.day.day, h, m, s)
    off = st.offset or "+00:00"
    sign = -1 if off.startswith("-") else 1
    hours, minutes = int(off[1:3]), int(off[4:6] or 0)
    return when - sign * timedelta(hours=hours, minutes=minutes)


def _same_instant(a: Stamp, b: Stamp) -> bool:
    return abs((_instant(a) - _instant(b)).total_seconds()) < 120


def _with_offset(utc: Stamp, shown: Stamp) -> Stamp:
    """The UTC instant ``utc`` in the time zone that the shown time of day implies (a
    whole number of quarter hours, at most 14 hours off); the shown day alone when no
    time of day is shown or it does not fit."""
    if shown.time is None or utc.time is None:
        return Stamp(shown.day)
    h, m, s = shown.time
    local = datetime(shown.day.year, shown.day.month, shown.day.day, h, m, s)
    minutes = round((local - _instant(utc)).total_seconds() / 60)
    if minutes % 15 or abs(minutes) > 14 * 60:
        return Stamp(shown.day)
    sign = "-" if minutes < 0 else "+"
    off = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    when = _instant(utc) + timedelta(minutes=minutes)
    return Stamp(when.date(), (when.hour, when.minute, when.second), off)


def url_date(url: str) -> Stamp | None:
    """The date in a URL's path (``/2019/09/26/``), if any."""
    m = _URL_DATE.search(urlsplit(url).path)
    if m is None:
        return None
    try:
        return Stamp(date(int(m[1]), int(m[3]), int(m[4])))
    except ValueError:
        return None


def _shown_dates(
    page: PageDom, anchor: int, main_start: int, lang: str
) -> tuple[list[_Shown], Stamp | None]:
    """The dates the page shows (best first), and an update time it shows by the headline."""
    blocks = page.blocks
    within = page.within
    out: list[_Shown] = []
    # <time> elements: their machine value, else their text.
    positions = _block_positions(page)
    for prop, value, text, el in page.times:
        if prop != "time" or _not_the_page(within[el]):
            continue
        st = parse_machine_date(value) if value else None
        if st is None and text:
            found = text_dates(text, lang)
            st = found[0].stamp if found else None
        if st is not None:
            pos = positions.get(el, 0)
            distance = abs(pos - anchor) if anchor >= 0 else pos
            out.append(_Shown(st, distance, 0, "<time> by the headline"))
    # Short blocks with a date: a dateline after the headline (or just above it), a block
    # named as a date; the first words of the text ("BERLIN, 5. März 2024 -"). The
    # headline's dateline first: a date there, said or printed as a dateline, is the best
    # a block can give (nothing further needs reading).
    if anchor >= 0:
        near = range(max(0, anchor - 2), min(len(blocks), anchor + 5))
        _dates_in(page, near, anchor, main_start, lang, out)
        if any(c.distance == 0 and c.rank <= 1 for c in out):
            out.sort(key=lambda c: (c.distance > _NEAR_BLOCKS, c.rank, c.distance))
            return out, _updated_by(page, anchor, lang)
        out = [c for c in out if c.how != "shown by the headline"]
    updated = _dates_in(page, range(len(blocks)), anchor, main_start, lang, out)
    out.sort(key=lambda c: (c.distance > _NEAR_BLOCKS, c.rank, c.distance))
    return out, updated


def _updated_by(page: PageDom, anchor: int, lang: str) -> Stamp | None:
    """An update time printed in the headline's dateline."""
    for b in page.blocks[anchor + 1 : anchor + 4]:
        if _YEAR.search(b.text) and b.chars <= _DATELINE_CHARS:
            _pub, upd = find_text_dates(b.text, lang)
            if upd is not None:
                return upd
    return None


def _dates_in(
    page: PageDom, indexes: range, anchor: int, main_start: int, lang: str, out: list[_Shown]
) -> Stamp | None:
    """The dates printed in the blocks ``indexes`` (added to ``out``), and an update time
    printed in the headline's dateline."""
    blocks = page.blocks
    within = page.within
    names = page.names
    parents = page.parents
    updated: Stamp | None = None
    for i in indexes:
        b = blocks[i]
        if i == anchor and "\n" not in b.text:
            continue  # (a date in the headline is what it is about, not when)
        year = _YEAR.search(b.text)
        if year is None:
            continue  # (most blocks: no date printed in them)
        flags = within[b.el]
        if flags & _NEVER:
            continue
        named = False
        el = b.el
        for _ in range(3):
            if el < 0:
                break
            if _DATE_NAME.search(names[el]):
                named = True
                break
            el = parents[el]
        if i == anchor:
            # A heading of several lines: its lines after the first (a date under a <br>).
            text = "\n".join(b.text.split("\n")[1:])
        elif b.chars <= _DATELINE_CHARS:
            text = b.text
        elif named and year.start() < 120:
            text = b.text[:160]  # a dateline starting a longer block
        elif year.start() < 50 and (i == main_start or (anchor >= 0 and 0 < i - anchor <= 4)):
            # "Karlsruhe, (12.11.2021). ...": a paragraph near the headline that starts
            # with a date (its first words only: a date further on is what it is about).
            text = b.text[:60]
        else:
            continue
        pub, upd = find_text_dates(text, lang)
        if anchor >= 0 and 0 <= i - anchor <= 3 and upd is not None and updated is None:
            updated = upd
        if pub is None:
            continue
        distance = abs(i - anchor) if anchor >= 0 else i
        dateline = anchor >= 0 and -2 <= i - anchor <= 4 and b.chars <= _DATELINE_CHARS
        if flags & _PAGE_PARTS and not flags & ARTICLE:
            rank = 3  # the page's footer or sidebar: a last resort
        elif _SAID_PUBLISHED.search(text):
            rank = 0  # "发布日期：", "Published:" before it
        else:
            rank = 1 if (named or dateline) else 2
        out.append(_Shown(pub, 0 if dateline else distance, rank, "shown by the headline"))
    return updated


def _block_positions(page: PageDom) -> dict[int, int]:
    """For each element that holds a ``<time>``: the index of the first block at or after
    it in document order (elements and blocks are both numbered in document order)."""
    wanted = sorted(el for _p, _v, _t, el in page.times)
    out: dict[int, int] = {}
    if not wanted:
        return out
    j = 0
    for i, b in enumerate(page.blocks):
        while j < len(wanted) and b.el >= wanted[j]:
            out[wanted[j]] = i
            j += 1
        if j == len(wanted):
            break
    for el in wanted[j:]:
        out[el] = len(page.blocks)
    return out
