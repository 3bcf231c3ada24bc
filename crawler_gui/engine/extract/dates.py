"""Dates as pages write them: machine-readable values (ISO 8601 and its cousins in meta tags,
JSON-LD and script state; RFC 2822; Unix times) and dates printed for readers, in the
languages a news crawl meets (``2019年09月05日 11:10``, ``5. März 2024``, ``March 5, 2024``,
``5 de marzo de 2024``, ``05.03.2024``, ``5 марта 2024``...), each turned into a
:class:`Stamp`, and stamps into ISO 8601 with an offset.

Chinese portals print local times without an offset. Each host gets a zone: configured, or
inferred (China Standard Time, +08:00, for a Chinese page or a ``.cn`` host); the result says
when the offset was inferred rather than read.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime

__all__ = [
    "Stamp",
    "TextDate",
    "find_labelled_date",
    "find_text_dates",
    "format_stamp",
    "parse_machine_date",
    "text_dates",
    "zone_for",
]

#: China Standard Time: what Chinese portals print in, without saying so.
CHINA_OFFSET = "+08:00"
#: The years a publication date may have.
_MIN_YEAR = 1990
_MAX_YEAR = 2100


@dataclass(frozen=True, slots=True)
class Stamp:
    """A date, maybe with a time of day and an offset (``+08:00``, ``Z``)."""

    day: date
    time: tuple[int, int, int] | None = None
    offset: str | None = None


def _stamp(
    y: int | str,
    m: int | str,
    d: int | str,
    hh: str | None = None,
    mm: str | None = None,
    ss: str | None = None,
) -> Stamp | None:
    try:
        day = date(int(y), int(m), int(d))
    except ValueError:
        return None
    if day.year < _MIN_YEAR or day.year > _MAX_YEAR:
        return None
    if hh is None or mm is None:
        return Stamp(day)
    h, mi, s = int(hh), int(mm), int(ss or 0)
    if h > 23 or mi > 59 or s > 59:
        return Stamp(day)
    return Stamp(day, (h, mi, s))


# --- Machine-readable values ------------------------------------------------------------

_ISO = re.compile(
    r"^\s*(?P<y>\d{4})-?(?P<m>\d{1,2})-?(?P<d>\d{1,2})"
    r"(?:(?:[T ]|-(?=\d{1,2}:))(?P<H>\d{1,2}):?(?P<M>\d{2})(?::?(?P<S>\d{2})(?:[.,]\d+)?)?"
    r"\s*(?P<z>Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?(?![\d])"
)
_UNIX = re.compile(r"^\s*(1\d{9})(\d{3})?\s*$")
_MONTHS_EN = {
    m: i + 1
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    )
}
_RFC2822 = re.compile(
    r"^\s*(?:\w{3},\s*)?(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]{3})\w*\s+(?P<y>\d{4})"
    r"(?:\s+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2}))?\s*(?P<z>[+-]\d{4}|GMT|UTC|Z)?)?"
)


def _offset(z: str | None) -> str | None:
    if not z:
        return None
    if z in ("Z", "UTC", "GMT", "-00:00", "+00:00", "+0000", "-0000", "+00", "-00"):
        return "+00:00"
    if len(z) == 3:
        return z + ":00"
    if ":" not in z:
        return z[:3] + ":" + z[3:]
    return z


def parse_machine_date(value: str) -> Stamp | None:
    """A date from a meta tag, JSON-LD or script state: ISO 8601 and what sites write for it
    (``2019-09-26 12:11:01``, ``2007-08-20-23:59:59``, ``20190926``), RFC 2822, a Unix time
    in seconds or milliseconds; else the first date printed in it (:func:`text_dates`)."""
    value = value.strip()
    if not value:
        return None
    m = _ISO.match(value)
    if m is not None:
        st = _stamp(m["y"], m["m"], m["d"], m["H"], m["M"], m["S"])
        if st is not None:
            z = _offset(m["z"])
            if z and st.time is not None:
                st = Stamp(st.day, st.time, z)
            return st
    m = _UNIX.match(value)
    if m is not None:
        when = datetime.fromtimestamp(int(m[1]), UTC)
        if _MIN_YEAR <= when.year <= _MAX_YEAR:
            return Stamp(when.date(), (when.hour, when.minute, when.second), "+00:00")
        return None
    m = _RFC2822.match(value)
    if m is not None and m["mon"].lower() in _MONTHS_EN:
        st = _stamp(m["y"], _MONTHS_EN[m["mon"].lower()], m["d"], m["H"], m["M"], m["S"])
        if st is not None:
            z = _offset(m["z"])
            if z and st.time is not None:
                st = Stamp(st.day, st.time, z)
            return st
    found = text_dates(value[:200])
    return found[0].stamp if found else None


# --- Dates printed for readers ---------------------------------------------------------

#: Month names (and their common abbreviations and grammatical forms), by month, in the
#: languages a news crawl meets most. Accents are kept; matching folds case.
_MONTH_WORDS: tuple[str, ...] = (
    # en, de, fr, es, it, pt, nl, sv/da/no, pl, cs, ru, uk, tr, fi, hu, ro, id, hr
    "january jan januar jänner jaenner janvier janv enero ene gennaio gen janeiro januari"
    " stycznia styczeń styczen ledna leden января январь січня ocak tammikuuta tammikuu"
    " január ianuarie siječnja sijecnja",
    "february feb februar feber février fevrier févr fevr febrero febbraio fevereiro fev"
    " februari lutego luty února unor февраля февраль лютого şubat subat helmikuuta"
    " helmikuu február februarie veljače veljace",
    "march mar märz maerz mrz mär mars marzo março marco maart mrt marca marzec března"
    " brezna марта март березня mart maaliskuuta maaliskuu március martie ožujka ozujka",
    "april apr avril avr abril abr aprile kwietnia kwiecień kwiecien dubna duben апреля"
    " апрель квітня nisan huhtikuuta huhtikuu április aprilie travnja",
    "may mai mayo maggio mag maio mei maj maja května kvetna мая май травня mayıs mayis"
    " toukokuuta toukokuu május svibnja",
    "june jun juni juin junio giugno giu junho czerwca czerwiec června cervna июня июнь"
    " червня haziran kesäkuuta kesakuuta kesäkuu június iunie lipnja",
    "july jul juli juillet juil julio luglio lug julho lipca lipiec července cervence"
    " июля июль липня temmuz heinäkuuta heinakuuta heinäkuu július iulie srpnja",
    "august aug août aout agosto ago augustus augusti sierpnia sierpień sierpien srpna"
    " srpen августа август серпня ağustos agustos elokuuta elokuu augusztus kolovoza",
    "september sep sept septembre septiembre setiembre settembre set setembro september"
    " września wrzesnia wrzesień wrzesien září zari сентября сентябрь вересня eylül eylul"
    " syyskuuta syyskuu szeptember septembrie rujna",
    "october oct oktober okt octobre octubre ottobre ott outubro out października"
    " pazdziernika październik pazdziernik října rijna октября октябрь жовтня ekim"
    " lokakuuta lokakuu október octombrie listopada",
    "november nov novembre noviembre novembro listopada listopad listopadu ноября ноябрь"
    " листопада kasım kasim marraskuuta marraskuu noiembrie studenoga",
    "december dec dezember dez décembre decembre déc dec diciembre dic dicembre dezembro"
    " december desember grudnia grudzień grudzien prosince декабря декабрь грудня aralık"
    " aralik joulukuuta joulukuu decembrie prosinca",
)
_MONTH_OF: dict[str, int] = {}
for _i, _words in enumerate(_MONTH_WORDS):
    for _w in _words.split():
        # (A word two months share -- "listopada" is November in Polish and Czech, October
        # in Croatian -- keeps its first month.)
        _MONTH_OF.setdefault(_w, _i + 1)
_MONTH_RE = "|".join(sorted((re.escape(w) for w in _MONTH_OF), key=len, reverse=True))
_MON = rf"(?P<mon>{_MONTH_RE})\.?"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th|er|e|º|°)?\.?"
_YEAR = r"(?P<y>(?:19|20)\d{2})"
_TIME = (
    r"(?:\s*(?:[,|·•\-–—/]|um|à|a las|às|alle|kl\.?|at|om|o|в)?\s*"
    r"(?P<H>[0-2]?\d)\s*[:：hH.]\s*(?P<M>[0-5]\d)(?:\s*[:：.]\s*(?P<S>[0-5]\d))?"
    r"(?!\d)(?:\s*(?P<ampm>[ap]\.?\s?m\.?))?)?"
)
#: Dates printed in text, most specific first.
_TEXT_PATTERNS = [
    # 2019-09-05, 2019/9/5, 2019.09.05, 2019年9月5日 (and 2019년 9월 5일)
    re.compile(
        r"(?<![\d.])" + _YEAR + r"\s*(?:[-/.]|年|년)\s*(?P<m>[01]?\d)\s*(?:[-/.]|月|월)\s*"
        r"(?P<d>[0-3]?\d)(?![\d])\s*(?:日|일)?(?:\s*\([^)]{1,6}\))?" + _TIME,
        re.I,
    ),
    # 5. März 2024, 5 March 2024, 5 de marzo de 2024, 5-Mar-2024, 2024. március 5.
    re.compile(
        r"(?<![\d])"
        + _DAY
        + r"\s*(?:de\s+|-|/)?\s*"
        + _MON
        + r"\s*(?:de\s+|del\s+|-|/|,)?\s*"
        + _YEAR
        + r"(?!\d)"
        + _TIME,
        re.I,
    ),
    # March 5, 2024; Mar. 5th 2024
    re.compile(
        r"(?<![^\W\d_])" + _MON + r"\s+" + _DAY + r",?\s+" + _YEAR + r"(?!\d)" + _TIME,
        re.I,
    ),
    # 2024. március 5. (Hungarian), 2024 March 5
    re.compile(_YEAR + r"\.?\s+" + _MON + r"\s+" + _DAY + r"(?!\d)" + _TIME, re.I),
    # 05.03.2024, 5/3/2024, 05-03-2024 (day first unless told otherwise)
    re.compile(
        r"(?<![\d.])(?P<a>[0-3]?\d)\s?(?P<sep>[./-])\s?(?P<b>[01]?\d)\s?(?P=sep)\s?"
        + _YEAR
        + r"(?![\d])"
        + _TIME
    ),
]
_MONTH_FIRST_LANGS = ("en-us", "en")
#: The patterns that need a month's name.
_NAMED_PATTERNS = (_TEXT_PATTERNS[1], _TEXT_PATTERNS[2], _TEXT_PATTERNS[3])
#: Words of letters (a month's name among them), with a full stop that abbreviates.
_WORDS = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True, slots=True)
class TextDate:
    """A date found in text, with where it was."""

    stamp: Stamp
    start: int
    end: int


def _fold(word: str) -> str:
    return word.lower().rstrip(".")


#: A year a date may have, alone (every printed date has one).
_YEAR_ALONE = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
#: How far from its year a printed date may start or end (``Wednesday, 5 September 2024,
#: 10:30 a.m.``).
_AROUND_YEAR = 48


def text_dates(text: str, lang: str = "") -> list[TextDate]:
    """Every date printed in ``text``, in order. ``lang`` (the page's language, ``en-US``)
    decides a numeric date whose day and month could be either way (``05/03/2024``): month
    first for American English, day first otherwise.

    (The patterns run only around the years found in the text: every date has one, and
    the month names' alternation tried at every position of a long text is the costly
    part.)"""
    found: list[TextDate] = []
    windows: list[tuple[int, int]] = []
    for y in _YEAR_ALONE.finditer(text):
        start = max(0, y.start() - _AROUND_YEAR)
        end = min(len(text), y.end() + _AROUND_YEAR)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    if not windows:
        return found
    low = lang.lower()
    month_first = low.startswith(_MONTH_FIRST_LANGS) and not low.startswith(
        ("en-gb", "en-au", "en-nz", "en-ie", "en-in", "en-za")
    )
    taken: list[tuple[int, int]] = []
    # (The patterns with a month's name run only where a month's name is: trying the
    # names' alternation at every position of every window is most of the cost.)
    named = [
        (ws, we)
        for ws, we in windows
        if any(_fold(w) in _MONTH_OF for w in _WORDS.findall(text, ws, we))
    ]
    for pattern in _TEXT_PATTERNS:
        for ws, we in named if pattern in _NAMED_PATTERNS else windows:
            for m in pattern.finditer(text, ws, we):
                s, e = m.span()
                if any(s < te and ts < e for ts, te in taken):
                    continue
                st = _match_stamp(m, month_first)
                if st is not None:
                    found.append(TextDate(st, s, e))
                    taken.append((s, e))
    found.sort(key=lambda t: t.start)
    return found


def _match_stamp(m: re.Match[str], month_first: bool) -> Stamp | None:
    groups = m.groupdict()
    if groups.get("mon") is not None:
        month = _MONTH_OF.get(_fold(m["mon"])) or _MONTH_OF.get(_strip_accents(_fold(m["mon"])))
        if month is None:
            return None
        y, mo, d = int(m["y"]), month, int(m["d"])
    elif groups.get("a") is not None:
        a, b = int(m["a"]), int(m["b"])
        if m["sep"] == "/" and month_first and a <= 12:
            a, b = b, a
        elif b > 12 and a <= 12:
            a, b = b, a  # only one way reads as a date
        y, mo, d = int(m["y"]), b, a
    else:
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    hh, mm = groups.get("H"), groups.get("M")
    if hh is not None and groups.get("ampm"):
        h = int(hh) % 12
        if groups["ampm"].lower().startswith("p"):
            h += 12
        hh = str(h)
    return _stamp(y, mo, d, hh, mm, groups.get("S"))


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


#: Labels that say the date next to them is the publication time.
_PUBLISH_LABEL = re.compile(
    r"(发布时间|发表时间|发布日期|发稿时间|发表于|时间|日期|来源|"
    r"published|posted|publication|erstellt|veröffentlicht|publié|publicado|pubblicato|"
    r"gepubliceerd|opublikowano|datum|date|fecha|data|le |am |vom )",
    re.I,
)
_UPDATE_LABEL = re.compile(
    r"(更新时间|修改时间|最后更新|updated|update|modified|aktualisiert|geändert|mis à jour|"
    r"modifié|actualizado|actualización|aggiornato|atualizado|bijgewerkt|zaktualizowano)",
    re.I,
)


def find_text_dates(text: str, lang: str = "") -> tuple[Stamp | None, Stamp | None]:
    """The publication and update times printed in ``text`` (the text right after the
    headline). A date after an update label is the update time; of the others, the first one
    after a publication label wins, else the first with a time of day, else the first."""
    published: list[tuple[int, Stamp]] = []
    updated: Stamp | None = None
    for td in text_dates(text, lang):
        before = text[max(0, td.start - 24) : td.start]
        if _UPDATE_LABEL.search(before):
            if updated is None:
                updated = td.stamp
            continue
        score = 2 if _PUBLISH_LABEL.search(before) else 0
        if td.stamp.time is not None:
            score += 1
        published.append((score, td.stamp))
    if not published:
        return None, updated
    best = max(published, key=lambda p: p[0])  # first of the best (max keeps the first)
    return best[1], updated


_LABELLED = re.compile(r"(发布时间|发表时间|发布日期|发稿时间)\s*[：:]?\s*$")


def find_labelled_date(text: str) -> Stamp | None:
    """The first date in ``text`` right after a publication label (``发布时间：``)."""
    for td in text_dates(text):
        if _LABELLED.search(text[max(0, td.start - 12) : td.start]):
            return td.stamp
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
