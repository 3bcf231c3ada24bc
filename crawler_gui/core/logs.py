"""Logging for a crawl that runs for days: a rotating log file and JSON lines.

``crawler-gui crawl --log-file PATH`` writes the log to ``PATH`` instead of standard error,
rotated by size (``--log-max-bytes``, keeping ``--log-backups`` old files ``PATH.1`` ..
``PATH.N``: the standard library's :class:`~logging.handlers.RotatingFileHandler`) or by time
(``--log-rotate midnight|hourly``: :class:`~logging.handlers.TimedRotatingFileHandler`).
``--log-format json`` writes one JSON object a line (for log shippers): ``time`` (ISO 8601,
UTC), ``level``, ``logger``, ``message``, ``exception`` when there is one, and the fields a
record carries in ``extra={"fields": {...}}`` (the crawl's periodic summary carries its
counters that way).
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from crawler_gui.errors import ConfigError

__all__ = ["LOG_FORMATS", "ROTATE_WHEN", "JsonFormatter", "configure_logging"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_FORMATS = ("text", "json")
#: ``--log-rotate`` choices and the TimedRotatingFileHandler ``when`` they mean.
ROTATE_WHEN = {"midnight": "midnight", "hourly": "H"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line; never more than one line (newlines in messages are escaped)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            for key, value in fields.items():
                out.setdefault(str(key), value)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exception"] = record.exc_text
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(
    level: str = "WARNING",
    *,
    log_file: str | None = None,
    log_format: str = "text",
    max_bytes: int = 0,
    backups: int = 5,
    rotate: str | None = None,
    stream: TextIO | None = None,
) -> logging.Handler:
    """Set up the root logger: one handler, to ``log_file`` (rotating) or to ``stream``
    (standard error). Replaces handlers set up before. Raises ConfigError with a one-line
    reason when the log file cannot be opened."""
    if log_format not in LOG_FORMATS:
        raise ConfigError(f"unknown log format {log_format!r}")
    if max_bytes < 0 or backups < 0:
        raise ConfigError("--log-max-bytes and --log-backups must not be negative")
    if rotate is not None and rotate not in ROTATE_WHEN:
        raise ConfigError(f"unknown log rotation {rotate!r}")
    if rotate is not None and max_bytes:
        raise ConfigError("rotate the log by size (--log-max-bytes) or by time (--log-rotate)")
    handler: logging.Handler
    if log_file:
        path = Path(log_file).expanduser()
        try:
            if rotate is not None:
                handler = logging.handlers.TimedRotatingFileHandler(
                    path,
                    when=ROTATE_WHEN[rotate],
                    backupCount=backups,
                    encoding="utf-8",
                    errors="backslashreplace",
                    utc=True,
                )
            else:
                handler = logging.handlers.RotatingFileHandler(
                    path,
                    maxBytes=max_bytes,
                    backupCount=backups,
                    encoding="utf-8",
                    errors="backslashreplace",
                )
        except OSError as exc:
            raise ConfigError(
                f"cannot open the log file {log_file}: {exc.strerror or exc}"
            ) from exc
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(getattr(logging, level))
    return handler
