"""Small text formatters shared by the panes (no Qt widgets here)."""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QUrl


def _fill(template: str, *values: object) -> str:
    for i, value in enumerate(values, 1):
        template = template.replace(f"%{i}", str(value))
    return template


# Each text is a literal inside its translate() call: that is what pyside6-lupdate looks for.
def duration(seconds: float) -> str:
    """``"4 s"``, ``"2 min 5 s"``, ``"5 min"``, ``"3 h 12 min"``, ``"2 d 4 h"`` (a zero last part
    is left out: ``"5 min"``, not ``"5 min 0 s"``)."""
    translate = QCoreApplication.translate
    s = max(0, round(seconds))
    if s < 60:
        return _fill(translate("fmt", "%1 s"), s)
    m, s = divmod(s, 60)
    if m < 60:
        if s == 0:
            return _fill(translate("fmt", "%1 min"), m)
        return _fill(translate("fmt", "%1 min %2 s"), m, s)
    h, m = divmod(m, 60)
    if h < 48:
        if m == 0:
            return _fill(translate("fmt", "%1 h"), h)
        return _fill(translate("fmt", "%1 h %2 min"), h, m)
    d, h = divmod(h, 24)
    if h == 0:
        return _fill(translate("fmt", "%1 d"), d)
    return _fill(translate("fmt", "%1 d %2 h"), d, h)


def countdown(target: float, now: float) -> str:
    """``"in 25 s"`` or ``"due"``."""
    if target <= now:
        return QCoreApplication.translate("fmt", "due")
    return _fill(QCoreApplication.translate("fmt", "in %1"), duration(target - now))


def clock(ts: float) -> str:
    """Local wall-clock time of a POSIX timestamp; the date too when it is not today."""
    if ts <= 0:
        return ""
    local = time.localtime(ts)
    if time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d"):
        return time.strftime("%H:%M:%S", local)
    return time.strftime("%Y-%m-%d %H:%M", local)


def seconds(value: float) -> str:
    """``"1.5 s"``, ``"12 s"`` (a response time, a delay), in the window's language."""
    number = f"{value:.1f}" if value < 10 else f"{value:.0f}"
    return _fill(QCoreApplication.translate("fmt", "%1 s"), number)


def count(n: int | float) -> str:
    return f"{int(n):,}"


def data_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def rate(per_s: float) -> str:
    return f"{per_s:.2f}" if per_s < 10 else f"{per_s:.1f}"


def web_url(text: str) -> QUrl | None:
    """The URL as a QUrl when it is an absolute http(s) URL (the only ones we open)."""
    url = QUrl(text, QUrl.ParsingMode.StrictMode)
    if url.isValid() and url.scheme().lower() in ("http", "https") and url.host():
        return url
    return None
