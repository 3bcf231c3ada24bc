"""Passwords off the command line, run as real processes: the Redis pool's password from
``--redis-password-file`` or ``CRAWLER_GUI_REDIS_PASSWORD`` for every command that takes a pool
URL, the proxy's from ``--proxy-password-file`` or ``CRAWLER_GUI_PROXY_PASSWORD``; the password
never appears in a command line (the process list), the output, the log, the metrics, a
snapshot file, what an attached window is sent, or the window's saved settings; the systemd
unit reads it as a credential file."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from crawler_gui.core.credentials import (
    PROXY_PASSWORD_ENV,
    REDIS_PASSWORD_ENV,
    read_password_file,
)
from crawler_gui.engine.control.wire import settings_from_data, settings_to_data, with_own_proxy
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.errors import ConfigError
from tests.conftest import REDIS_PASSWORD, _free_port
from tests.engine.test_proxy import HttpProxy, threaded_proxy  # noqa: F401 - a fixture
from tests.test_service_unit import UNIT, _one, parse_unit

pytestmark = pytest.mark.slow

PROXY_PASSWORD = "s3cr:t"  # (threaded_proxy's)


def run(
    *args: str, cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", "--log-level", "DEBUG", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=env,
    )


def clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop(REDIS_PASSWORD_ENV, None)
    env.pop(PROXY_PASSWORD_ENV, None)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def assert_clean(*texts: str, secret: str = REDIS_PASSWORD) -> None:
    for text in texts:
        assert secret not in text
        assert "Traceback" not in text


def scrape(port: int, proc: subprocess.Popen[str]) -> str:
    """The crawl's /metrics, once it serves them."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the crawl ended before its metrics were read"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as resp:
                text = resp.read().decode()
            if "crawler_gui_pages_fetched_total" in text:
                return text
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError("no metrics within 60 s")


@pytest.mark.parametrize("given", ["file", "environment"])
def test_every_command_takes_the_redis_password_off_the_command_line(
    redis_password_server: str, tmp_path: Path, given: str
) -> None:
    name = f"pw{uuid.uuid4().hex[:8]}"
    url = f"{redis_password_server}?name={name}"  # no password in it
    env = clean_env()
    options: list[str] = []
    if given == "file":
        secret = tmp_path / "redis-password"
        secret.write_text(REDIS_PASSWORD + "\n")
        secret.chmod(0o600)
        options = ["--redis-password-file", str(secret)]
    else:
        env[REDIS_PASSWORD_ENV] = REDIS_PASSWORD
    store, log = tmp_path / "store", tmp_path / "crawl.log"
    port = _free_port()
    crawl = [
        *(sys.executable, "-m", "crawler_gui", "--log-level", "DEBUG", "crawl", url, *options),
        *("--demo", "--max-pages", "40", "--concurrency", "2", "--store-dir", str(store)),
        *("--metrics", str(port), "--log-file", str(log), "--log-format", "json"),
        "--no-progress",
    ]
    proc = subprocess.Popen(
        crawl, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        metrics = scrape(port, proc)
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err[-2000:].replace(REDIS_PASSWORD, "<PW>")
    assert "joined the Redis pool" in log.read_text()
    assert_clean(metrics, cmdline, out, err, log.read_text())

    snap = tmp_path / "pool.cgpool"
    for args in (
        ["stats", url, "--store-dir", str(store)],
        ["report", url, "-o", str(tmp_path / "report.html")],
        ["save", url, str(snap)],
        ["load", url, str(snap)],
        ["export", url, "--records", "outcomes", "-o", str(tmp_path / "outcomes.jsonl")],
        ["migrate", url],
    ):
        done = run(*args, *options, cwd=tmp_path, env=env)
        assert done.returncode == 0, (args[0], done.stderr.replace(REDIS_PASSWORD, "<PW>"))
        assert_clean(done.stdout, done.stderr)
    assert json.loads(run("stats", url, *options, cwd=tmp_path, env=env).stdout)["done"] >= 1
    for written in ("report.html", "outcomes.jsonl"):
        assert_clean((tmp_path / written).read_text())
    # Without it the server refuses, and says how to give it.
    refused = run("stats", url, cwd=tmp_path, env=clean_env())
    assert refused.returncode == 1 and "refused the credentials" in refused.stderr


def test_a_password_is_given_in_one_place(redis_password_server: str, tmp_path: Path) -> None:
    secret = tmp_path / "redis-password"
    secret.write_text(REDIS_PASSWORD)
    name = f"pw{uuid.uuid4().hex[:8]}"
    env = clean_env()
    twice = f"{redis_password_server}?name={name}&password={REDIS_PASSWORD}"
    done = run("stats", twice, "--redis-password-file", str(secret), cwd=tmp_path, env=env)
    assert done.returncode == 2 and "in one place" in done.stderr, done.stderr
    assert_clean(done.stderr)
    # The environment is a default: a URL with its own password keeps it.
    env[REDIS_PASSWORD_ENV] = "not-the-password"
    assert run("stats", twice, cwd=tmp_path, env=env).returncode == 0
    two_lines = tmp_path / "two-lines"
    two_lines.write_text(f"{REDIS_PASSWORD}\nmore\n")
    url = f"{redis_password_server}?name={name}"
    done = run("stats", url, "--redis-password-file", str(two_lines), cwd=tmp_path, env=env)
    assert done.returncode == 2 and "more than one line" in done.stderr
    assert_clean(done.stderr)
    missing = run(
        "stats", url, "--redis-password-file", str(tmp_path / "no"), cwd=tmp_path, env=env
    )
    assert missing.returncode == 2 and "cannot read the password file" in missing.stderr


def test_a_password_file_is_its_one_line(tmp_path: Path) -> None:
    f = tmp_path / "f"
    for text, password in (("a b:c\n", "a b:c"), ("pw\r\n", "pw"), ("pw", "pw"), ("", None)):
        f.write_text(text, newline="")
        assert read_password_file(f) == password
    f.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_password_file(f)


@pytest.mark.parametrize("given", ["file", "environment"])
def test_the_proxy_password_off_the_command_line(
    tmp_path: Path,
    threaded_proxy: HttpProxy,  # noqa: F811 - the fixture imported above
    given: str,
) -> None:
    env = clean_env()
    options: list[str] = []
    if given == "file":
        secret = tmp_path / "proxy-password"
        secret.write_text(PROXY_PASSWORD + "\n")
        options = ["--proxy-password-file", str(secret)]
    else:
        env[PROXY_PASSWORD_ENV] = PROXY_PASSWORD
    proxy = f"http://crawl@127.0.0.1:{threaded_proxy.port}"
    done = run(
        *("crawl", str(tmp_path / "pool"), "--demo", "--max-pages", "20", "--concurrency", "4"),
        *("--proxy", proxy, *options, "--no-progress"),
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(threaded_proxy.seen) >= 20 and threaded_proxy.refused == 0
    assert "fetching through the proxy http://crawl:***@127.0.0.1" in done.stderr
    for secret_text in ("s3cr", PROXY_PASSWORD):
        assert_clean(done.stdout, done.stderr, secret=secret_text)


def test_an_attached_window_never_holds_the_proxy_password() -> None:
    own = CrawlSettings(proxy=f"http://crawl:{PROXY_PASSWORD}@127.0.0.1:3128")
    sent = settings_to_data(own)
    assert "s3cr" not in json.dumps(sent) and sent["proxy"] == "http://crawl:***@127.0.0.1:3128"
    back = settings_from_data({**sent, "concurrency": 3})  # the window changed a setting
    kept = with_own_proxy(back, own)
    assert kept.proxy == own.proxy and kept.concurrency == 3
    other = settings_from_data({**sent, "proxy": "http://other@127.0.0.1:8080"})
    assert with_own_proxy(other, own).proxy == "http://other@127.0.0.1:8080"


def test_the_service_unit_reads_the_password_as_a_credential() -> None:
    service = parse_unit(UNIT.read_text(encoding="utf-8"))["Service"]
    argv = shlex.split(_one(service, "ExecStart"))
    at = argv.index("--redis-password-file")
    assert argv[at + 1] == "%d/redis-password"  # the service's private credentials folder
    assert _one(service, "LoadCredential") == "redis-password:/etc/crawler-gui/redis-password"
    assert not any("password=" in a or "@" in a for a in argv)
