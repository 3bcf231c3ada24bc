"""Logging for long runs (core/logs.py): rotation at the configured size, JSON lines."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawler_gui.core.logs import JsonFormatter, configure_logging
from crawler_gui.errors import ConfigError


@pytest.fixture(autouse=True)
def _restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
        h.close()
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


def test_the_log_file_rotates_at_the_configured_size(tmp_path: Path) -> None:
    path = tmp_path / "crawl.log"
    configure_logging("INFO", log_file=str(path), max_bytes=2000, backups=3)
    log = logging.getLogger("crawler_gui.test")
    for i in range(200):
        log.info("record %03d %s", i, "x" * 40)
    files = sorted(tmp_path.glob("crawl.log*"))
    assert [f.name for f in files] == ["crawl.log", "crawl.log.1", "crawl.log.2", "crawl.log.3"]
    for f in files:
        assert f.stat().st_size <= 2000
    # The newest records are in the current file, the ones before them in .1; the oldest
    # were dropped with the fourth backup.
    assert "record 199" in path.read_text()
    assert "record 000" not in "".join(f.read_text() for f in files)
    newest_in_1 = (tmp_path / "crawl.log.1").read_text().splitlines()[-1]
    first_in_current = path.read_text().splitlines()[0]
    assert int(newest_in_1.split("record ")[1][:3]) + 1 == int(
        first_in_current.split("record ")[1][:3]
    )


def test_text_that_is_not_unicode_reaches_the_log_file(tmp_path: Path) -> None:
    """A message quoting a server's header with a byte that is not UTF-8 (a lone surrogate)
    is written with that byte escaped, not dropped with a "Logging error"."""
    path = tmp_path / "crawl.log"
    configure_logging("INFO", log_file=str(path))
    raw = b"text/pl\xe9in".decode("utf-8", "surrogateescape")
    logging.getLogger("crawler_gui.test").info("odd content type %s", raw)
    logging.getLogger("crawler_gui.test").info("the next line")
    text = path.read_text(encoding="utf-8")
    assert "odd content type text/pl\\udce9in" in text
    assert "the next line" in text


def test_no_size_means_no_rotation(tmp_path: Path) -> None:
    path = tmp_path / "crawl.log"
    configure_logging("INFO", log_file=str(path), max_bytes=0)
    for i in range(200):
        logging.getLogger("t").info("record %d %s", i, "x" * 40)
    assert [f.name for f in tmp_path.iterdir()] == ["crawl.log"]


def test_json_lines_parse(tmp_path: Path) -> None:
    path = tmp_path / "crawl.log"
    configure_logging("INFO", log_file=str(path), log_format="json")
    log = logging.getLogger("crawler_gui.test")
    log.warning("two\nlines and 中文")
    log.info("summary", extra={"fields": {"done": 3, "pages_per_s": 1.5}})
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    records = [json.loads(line) for line in lines]
    assert records[0]["message"] == "two\nlines and 中文"
    assert records[0]["level"] == "WARNING" and records[0]["logger"] == "crawler_gui.test"
    assert records[0]["time"].endswith("Z")
    assert records[1]["done"] == 3 and records[1]["pages_per_s"] == 1.5
    assert "ValueError: boom" in records[2]["exception"]


def test_json_fields_never_replace_the_standard_keys() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "real", None, None)
    record.fields = {"message": "fake", "n": 1}
    out = json.loads(JsonFormatter().format(record))
    assert out["message"] == "real" and out["n"] == 1


def test_bad_log_settings_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot open the log file"):
        configure_logging(log_file=str(tmp_path / "missing" / "dir" / "crawl.log"))
    with pytest.raises(ConfigError, match=r"by size .* or by time"):
        configure_logging(log_file=str(tmp_path / "x.log"), max_bytes=10, rotate="hourly")


def test_time_rotation_uses_the_timed_handler(tmp_path: Path) -> None:
    handler = configure_logging(log_file=str(tmp_path / "x.log"), rotate="hourly", backups=2)
    assert isinstance(handler, logging.handlers.TimedRotatingFileHandler)
    assert handler.when == "H" and handler.backupCount == 2


def test_cli_crawl_logs_json_lines_to_a_rotating_file(tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "crawl.log"
    log_file.parent.mkdir()
    result = subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "--log-level", "INFO", "crawl"),
            *(str(tmp_path / "pool"), "--demo", "--concurrency", "24"),
            *("--log-file", str(log_file), "--log-format", "json", "--log-max-bytes", "700"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    # Standard error is no terminal here: no live progress line (no carriage returns), and
    # the log went to the file, not to standard error.
    assert "\r" not in result.stderr
    assert "INFO" not in result.stderr and "crawl finished" in result.stderr
    files = sorted(log_file.parent.iterdir())
    assert len(files) >= 2  # rotated at 700 bytes
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert any(r["logger"] == "crawler_gui.engine.session" for r in records)
    summaries = [r for r in records if r["logger"] == "crawler_gui.progress"]
    assert summaries and summaries[-1]["done"] > 0  # the last summary, with its counters
    assert all(f.stat().st_size <= 700 for f in files)


def test_cli_refuses_a_log_file_it_cannot_open(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "crawl", str(tmp_path / "pool"), "--demo"),
            *("--log-file", str(tmp_path / "no" / "such" / "dir.log")),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "cannot open the log file" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "pool").exists()


def test_cli_crawl_summary_reaches_the_log_file_at_the_default_level(tmp_path: Path) -> None:
    """Without --log-level only warnings are logged, yet the crawl's summary (an INFO record
    of ``crawler_gui.progress``) still goes into the --log-file: it replaces the stderr line."""
    log_file = tmp_path / "crawl.log"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "crawl", str(tmp_path / "pool"), "--demo"),
            *("--concurrency", "24", "--log-file", str(log_file)),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    lines = log_file.read_text(encoding="utf-8").splitlines()
    summaries = [line for line in lines if " INFO crawler_gui.progress: " in line]
    assert summaries and "pages/s | done " in summaries[-1]
    assert " INFO crawler_gui.engine" not in "\n".join(lines)  # the rest stays at WARNING
    assert "pages/s" not in result.stderr
