"""What the GUI remembers between runs (QSettings): crawl settings, the last pool, window
geometry and dock layout. Crawl settings are one versioned JSON value, read back field by
field, so a stale or hand-edited value falls back to defaults instead of failing."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from crawler_gui.engine.settings import CrawlMode, CrawlSettings
from crawler_gui.errors import ConfigError

log = logging.getLogger(__name__)

SETTINGS_KEY = "crawl/settings"
SETTINGS_VERSION = 1
#: Not persisted: set per session (the demo allows loopback) or per run; the proxy is a headless
#: crawl's (an attached window sees it) and its URL may carry a password: never saved.
_SESSION_ONLY = frozenset({"allow_private", "max_pages", "warc_dir", "proxy"})


def _coerce(name: str, value: Any, default: Any) -> Any:
    if name == "mode":
        return CrawlMode(value)
    if name in ("extra_headers", "zones"):
        return tuple((str(k), str(v)) for k, v in value)
    if isinstance(default, tuple):
        return tuple(str(x) for x in value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise TypeError(name)
        return value
    if isinstance(default, int):
        return int(value)
    if isinstance(default, float):
        return float(value)
    if default is None:
        return None if value is None else int(value)
    return str(value)


#: The window's defaults: the engine's, with article extraction on (the Articles pane).
WINDOW_DEFAULTS = CrawlSettings(extract="on")


def load_settings(qs: QSettings) -> CrawlSettings:
    raw = qs.value(SETTINGS_KEY, "")
    defaults = WINDOW_DEFAULTS
    if not raw:
        return defaults
    try:
        data = json.loads(str(raw))
        values = dict(data.get("values", {}))
    except (ValueError, TypeError, AttributeError):
        log.warning("ignoring unreadable saved crawl settings")
        return defaults
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(CrawlSettings):
        if f.name in values and f.name not in _SESSION_ONLY:
            try:
                kwargs[f.name] = _coerce(f.name, values[f.name], getattr(defaults, f.name))
            except (ValueError, TypeError):
                log.warning("ignoring saved setting %s=%r", f.name, values[f.name])
    try:
        return dataclasses.replace(defaults, **kwargs)
    except ConfigError as exc:
        log.warning("saved crawl settings are invalid (%s); using defaults", exc)
        return defaults


def save_settings(qs: QSettings, settings: CrawlSettings) -> None:
    values = {
        f.name: getattr(settings, f.name)
        for f in dataclasses.fields(settings)
        if f.name not in _SESSION_ONLY
    }
    qs.setValue(
        SETTINGS_KEY,
        json.dumps(
            {"version": SETTINGS_VERSION, "values": values}, default=str, ensure_ascii=False
        ),
    )


def data_dir() -> Path:
    """The app's data folder: ``crawler-gui`` in the desktop's data folder
    (``~/.local/share/crawler-gui`` on Linux). Qt's own per-application location would be
    ``…/crawler-gui/crawler-gui`` (organisation and application share the name); a pool made
    there by an earlier version is still found by :func:`default_pool_dir`."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(base or Path.home() / ".local" / "share") / "crawler-gui"


def default_pool_dir() -> Path:
    new = data_dir() / "pool"
    old = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    if old and not new.exists() and (Path(old) / "pool").exists():
        return Path(old) / "pool"
    return new


def last_pool(qs: QSettings) -> Path | None:
    value = qs.value("pool/last", "")
    return Path(str(value)) if value else None


def set_last_pool(qs: QSettings, path: Path) -> None:
    qs.setValue("pool/last", str(path))


def window_state(qs: QSettings) -> tuple[QByteArray | None, QByteArray | None]:
    geo, state = qs.value("window/geometry"), qs.value("window/state")
    return (
        geo if isinstance(geo, QByteArray) else None,
        state if isinstance(state, QByteArray) else None,
    )


def save_window_state(qs: QSettings, geometry: QByteArray, state: QByteArray) -> None:
    qs.setValue("window/geometry", geometry)
    qs.setValue("window/state", state)
