"""The hub list text format, shared by ``crawl --hubs-file``, the hubs dialog and the presets.

One hub per line: ``URL [span]``; ``#`` starts a comment (a whole line, or after a space).
The span is seconds (``300``) or a number with a unit: ``s``, ``m``, ``h``, ``d`` (``5m``,
``1.5h``). A line without a span takes the default span.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from importlib import resources

from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.i18n import QT_TRANSLATE_NOOP
from crawler_gui.core.urls import REASONS, check_lines

BAD_SPAN = "bad_span"
REASON_TEXT = {
    **REASONS,
    BAD_SPAN: QT_TRANSLATE_NOOP(
        "reasons", "the refresh span is not a duration (like 300, 5m or 1h)"
    ),
}
PRESETS = {"sina-news": "hubs-sina-news.txt"}

_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd]?)\Z", re.IGNORECASE)
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_span(text: str) -> float | None:
    """``"300"`` -> 300.0, ``"5m"`` -> 300.0; None when it is not a positive duration."""
    m = _SPAN.match(text.strip())
    if not m:
        return None
    value = float(m.group(1)) * _UNITS[m.group(2).lower()]
    return value if value > 0 and math.isfinite(value) else None


def format_span(seconds: float) -> str:
    """The shortest exact form: ``300`` -> ``"5m"``, ``90`` -> ``"90"`` (seconds)."""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}"


@dataclass(frozen=True, slots=True)
class HubLine:
    line: int
    text: str  #: the URL as written
    url: str | None  #: canonical URL, None when refused
    span: float | None  #: None: use the default span
    reason: str | None  #: a key of REASON_TEXT, None when the line is good


def parse_hub_lines(text: str) -> list[HubLine]:
    """Every non-blank, non-comment line with its verdict."""
    out: list[HubLine] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = "" if line.lstrip().startswith("#") else line.split(" #", 1)[0].strip()
        if not stripped:
            continue
        parts = stripped.split()
        span: float | None = None
        reason: str | None = None
        if len(parts) > 1:
            span = parse_span(parts[1])
            if span is None or len(parts) > 2:
                reason = BAD_SPAN
        [(_, _, canonical, url_reason)] = check_lines([parts[0]])
        out.append(
            HubLine(
                number,
                parts[0],
                canonical if url_reason is None else None,
                span,
                url_reason or reason,
            )
        )
    return out


def hubs_from_text(text: str, default_span: float) -> tuple[list[HubSpec], list[HubLine]]:
    """The good hubs of a hub list, and the refused lines."""
    good: list[HubSpec] = []
    bad: list[HubLine] = []
    for line in parse_hub_lines(text):
        if line.reason is not None or line.url is None:
            bad.append(line)
        else:
            good.append(HubSpec(line.url, line.span or default_span))
    return good, bad


def format_hubs(hubs: list[HubSpec], header: str = "") -> str:
    lines = [f"# {h}" for h in header.splitlines()] if header else []
    lines += [f"{h.url} {format_span(h.span)}" for h in hubs]
    return "\n".join(lines) + "\n"


def preset_text(name: str) -> str:
    """Text of a shipped hub preset (``crawler_gui.resources``)."""
    return resources.files("crawler_gui.resources").joinpath(PRESETS[name]).read_text("utf-8")
