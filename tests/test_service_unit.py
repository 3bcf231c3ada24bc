"""The systemd unit of a headless worker (packaging/crawler-gui-worker.service)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crawler_gui.cli import build_parser
from crawler_gui.engine.settings import CrawlSettings

UNIT = Path(__file__).resolve().parents[1] / "packaging" / "crawler-gui-worker.service"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections -> key -> values (a key may repeat), with continued lines joined."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"a key outside any section: {line}"
        key, sep, value = line.partition("=")
        assert sep, f"not a key=value line: {line}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _one(section: dict[str, list[str]], key: str) -> str:
    values = section.get(key)
    assert values, f"{key}= is missing"
    return values[-1]


def test_the_unit_has_what_a_worker_needs() -> None:
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))
    service = unit["Service"]
    assert _one(service, "Restart") == "on-failure"
    assert _one(service, "KillSignal") == "SIGTERM"
    assert _one(service, "KillMode") == "mixed"  # SIGTERM to the crawl itself only
    # Long enough for the graceful stop: in-flight fetches end within their total timeout.
    assert int(_one(service, "TimeoutStopSec")) >= CrawlSettings().total_timeout + 15
    assert _one(service, "StateDirectory") == "crawler-gui"
    assert _one(service, "DynamicUser") == "yes"
    assert set(_one(service, "RestartPreventExitStatus").split()) == {"2", "4"}
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "PrivateDevices": "yes",
        "CapabilityBoundingSet": "",
    }.items():
        assert _one(service, key) == value, key
    # LevelDB needs file locks and mmap: nothing that forbids them.
    assert "MemoryDenyWriteExecute" not in service
    assert _one(service, "SystemCallFilter") == "@system-service"
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_the_command_line_of_the_unit_parses() -> None:
    service = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    argv = shlex.split(_one(service, "ExecStart"))
    assert argv[0].endswith("/crawler-gui")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "crawl"
    assert args.pool_dir.startswith("%S/crawler-gui/")  # in the private state folder
    assert args.no_progress and args.log_format == "json"
    assert args.metrics.startswith("127.0.0.1:")  # metrics on loopback only


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    # verify checks that ExecStart's program exists: point it at this environment's.
    crawler_gui = Path(sys.executable).with_name("crawler-gui")
    assert crawler_gui.exists(), "install the package first (pip install -e .)"
    text = UNIT.read_text(encoding="utf-8").replace("/usr/local/bin/crawler-gui", str(crawler_gui))
    unit = tmp_path / UNIT.name
    unit.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [exe, "verify", str(unit)], check=False, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    # Unknown keys and bad values are only warnings: there must be none.
    assert result.stderr.strip() == "", result.stderr
