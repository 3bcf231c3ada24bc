"""The command line's options for running on a server (logs, metrics, proxy, the live demo):
bad values stop with a one-line message and exit code 2, before anything is opened."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["crawl", "p", "--live"], "--live goes with --demo"),
        (["crawl", "p", "--seed", "http://a.example/", "--proxy", "ftp://u:pw1@h:21"], "scheme"),
        (["crawl", "p", "--seed", "http://a.example/", "--proxy", "http://u:pw1@h"], "the port"),
        (["crawl", "p", "--log-max-bytes", "-1"], "must not be negative"),
        (["crawl", "p", "--log-rotate", "weekly"], "invalid choice"),
        (["crawl", "p", "--log-format", "xml"], "invalid choice"),
        (
            ["crawl", "p", "--log-file", "x.log", "--log-rotate", "hourly"],
            None,  # fine: --log-rotate replaces the size limit
        ),
    ],
)
def test_bad_server_options_exit_2(tmp_path: Path, args: list[str], message: str | None) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert "Traceback" not in result.stderr
    assert "pw1" not in result.stderr  # a proxy password is never shown
    if message is None:
        # (an empty pool: "nothing to crawl", after the log file was set up)
        assert result.returncode == 2 and "nothing to crawl" in result.stderr
        assert (tmp_path / "x.log").exists()
        return
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert not (tmp_path / "p").exists()
