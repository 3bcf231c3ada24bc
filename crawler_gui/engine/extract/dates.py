"""Publication times: machine-readable ones from the markup, and the patterns Chinese portals
print near the headline (``2019年09月05日 11:10``, ``发布时间：2019-09-09 16:01:46``,
``来源：某某 2019-09-09 16:01``), each turned into ISO 8601 with an offset.

Chinese portals print local times without an offset. Each host gets a zone: configured, or
inferred (China Standard Time, +08:00, for a Chinese page or a ``.cn`` host); the result says
when the offset was inferred rather than read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

__all__ = [
    "Stamp",
    "find_labelled_date",
    "find_text_dates",
    "format_stamp",
    "parse_machine_date",
    "zone_for",
]

#: China Standard Time: what Chinese portals print in, without saying so.
CHINA_OFFSET = "+08:00"


@dataclass(frozen=True, slots=True)
class Stamp:
    """A date, maybe with a time of day and an offset (``+08:00``, ``Z``)."""

    day: date
    time: tuple[int, int, int] | None = None
    offset: str | None = None


_SEP = r"[-/.年]"
_TEXT_DATE = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d{2})\s*" + _SEP + r"\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})"
    r"\s*日?"
    r"(?:\s*(?:T|\s)?\s*(?P<H>\d{1,2})\s*[:：时]\s*(?P<M>\d{2})(?:\s*[:：分]\s*(?P<S>\d{2}))?)?"
    r"(?!\d)"
)
#: Labels that say the date next to them is the publication time.
_PUBLISH_LABEL = re.compile(r"(发布时间|发表时间|发布日期|发表于|时间|日期|来源|Published|Posted)")
_UPDATE_LABEL = re.compile(r"(更新时间|修改时间|最后更新|Updated)")
_ISO = re.compile(
    r"^\s*(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:[T ](?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:\.\d+)?)?"
    r"\s*(?P<z>Z|[+-]\d{2}:?\d{2})?)?"
)


def _stamp(y: str, m: str, d: str, hh: str | None, mm: str | None, ss: str | None) -> Stamp | None:
    try:
        day = date(int(y), int(m), int(d))
    except ValueError:
        return None
    if day.year < 1990 or day.year > 2100:
        return None
    if hh is None or mm is None:
        return Stamp(day)
    h, mi, s = int(hh), int(mm), int(ss or 0)
    if h > 23 or mi > 59 or s > 59:
        return Stamp(day)
    return Stamp(day, (h, mi, s))


def parse_machine_date(value: str) -> Stamp | None:
    """An ISO 8601 (or ``yyyy-mm-dd hh:mm:ss``) value from a meta tag or JSON-LD."""
    m = _ISO.match(value)
    if m is None:
        return _parse_any(value)
    st = _stamp(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"])
    if st is None:
        return None
    z = m["z"]
    if z and st.time is not None:
        if z != "Z" and ":" not in z:
            z = z[:3] + ":" + z[3:]
        st = Stamp(st.day, st.time, "+00:00" if z in ("Z", "-00:00") else z)
    return st


def _parse_any(value: str) -> Stamp | None:
    m = _TEXT_DATE.search(value)
    if m is None:
        return None
    return _stamp(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"])


def find_text_dates(text: str) -> tuple[Stamp | None, Stamp | None]:
    """The publication and update times printed in ``text`` (the text right after the
    headline). A date after an update label is the update time; of the others, the first one
    after a publication label wins, else the first with a time of day, else the first."""
    published: list[tuple[int, Stamp]] = []
    updated: Stamp | None = None
    for m in _TEXT_DATE.finditer(text):
        st = _stamp(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"])
        if st is None:
            continue
        before = text[max(0, m.start() - 24) : m.start()]
        if _UPDATE_LABEL.search(before):
            if updated is None:
                updated = st
            continue
        score = 2 if _PUBLISH_LABEL.search(before) else 0
        if st.time is not None:
            score += 1
        published.append((score, st))
    if not published:
        return None, updated
    best = max(published, key=lambda p: p[0])  # first of the best (max keeps the first)
    return best[1], updated


_LABELLED = re.compile(r"(发布时间|发表时间|发布日期|发稿时间)\s*[：:]?\s*$")


def find_labelled_date(text: str) -> Stamp | None:
    """The first date in ``text`` right after a publication label (``发布时间：``)."""
    for m in _TEXT_DATE.finditer(text):
        if _LABELLED.search(text[max(0, m.start() - 12) : m.start()]):
            st = _stamp(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"])
            if st is not None:
                return st
    return None


def zone_for(host: str, lang: str | None, zones: dict[str, str]) -> tuple[str | None, bool]:
    """The offset for a host's local times and whether it was inferred: a configured zone
    (``zones`` maps a host or a ``.domain`` suffix to an offset) is read; else Chinese pages and
    ``.cn`` hosts get China Standard Time, inferred; else none."""
    host = host.lower().split(":")[0]
    for key, offset in zones.items():
        k = key.lower()
        if host == k.lstrip(".") or (k.startswith(".") and host.endswith(k)):
            return offset, False
    if (lang or "").lower().startswith("zh") or host.endswith(".cn"):
        return CHINA_OFFSET, True
    return None, False


def format_stamp(st: Stamp | None, offset: str | None) -> tuple[str | None, bool]:
    """ISO 8601 for ``st``: with its own offset, else with ``offset`` (then ``True``: the
    offset was given, not read); a bare date when there is no time of day."""
    if st is None:
        return None, False
    if st.time is None:
        return st.day.isoformat(), False
    h, m, s = st.time
    base = datetime(st.day.year, st.day.month, st.day.day, h, m, s).isoformat()
    if st.offset is not None:
        return base + st.offset, False
    if offset is not None:
        return base + offset, True
    return base, False
