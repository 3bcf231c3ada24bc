"""A Redis password never reaches an output: stderr, logs, the final "pool:" line, the error for
a wrong password, stats, snapshot files, the pool's own keys. A malformed pool URL is one clear
line with exit code 2. Real processes on a real password-protected redis-server."""

from __future__ import annotations

import gzip
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis

from tests.conftest import REDIS_PASSWORD

pytestmark = pytest.mark.slow


def cli(*args: str, cwd: Path, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", "--log-level", "DEBUG", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=cwd,
    )


def with_secret(server: str, form: str, name: str) -> str:
    host = server.removeprefix("redis://")
    if form == "query":
        return f"redis://{host}?name={name}&password={REDIS_PASSWORD}"
    if form == "userinfo":
        return f"redis://default:{REDIS_PASSWORD}@{host}?name={name}"
    if form == "bare":
        return f"redis://:{REDIS_PASSWORD}@{host}?name={name}"
    return f"redis://{host}?username=default&password={REDIS_PASSWORD}&name={name}"


def assert_clean(*texts: str) -> None:
    for text in texts:
        assert REDIS_PASSWORD not in text
        assert "Traceback" not in text


@pytest.mark.parametrize("form", ["query", "userinfo"])
def test_a_crawl_on_a_password_pool_never_shows_the_password(
    redis_password_server: str, tmp_path: Path, form: str
) -> None:
    name = f"sec{uuid.uuid4().hex[:8]}"
    url = with_secret(redis_password_server, form, name)
    store = tmp_path / "store"
    crawl = cli("crawl", url, "--demo", "--max-pages", "3", "--store-dir", str(store), cwd=tmp_path)
    assert crawl.returncode == 0, crawl.stderr.replace(REDIS_PASSWORD, "<PW>")
    assert_clean(crawl.stdout, crawl.stderr)
    # The log lines that name the pool and the final "pool:" line all show it masked.
    assert "joined the Redis pool" in crawl.stderr
    final = [line for line in crawl.stderr.splitlines() if "pool: " in line]
    assert final and "***" in final[-1]

    stats = cli("stats", url, "--store-dir", str(store), cwd=tmp_path)
    assert stats.returncode == 0
    assert_clean(stats.stdout, stats.stderr)

    snap = tmp_path / "pool.cgpool"
    saved = cli("save", url, str(snap), cwd=tmp_path)
    assert saved.returncode == 0
    assert_clean(saved.stdout, saved.stderr, gzip.decompress(snap.read_bytes()).decode())
    loaded = cli("load", url, str(snap), cwd=tmp_path)
    assert loaded.returncode == 0
    assert_clean(loaded.stdout, loaded.stderr)

    # Nothing the worker left in the pool (its heartbeat row, ...) holds the password either.
    r = redis.Redis.from_url(redis_password_server, password=REDIS_PASSWORD)
    try:
        for key in r.scan_iter(f"cg:{name}:*"):
            kind = r.type(key)
            dump = r.hgetall(key) if kind == b"hash" else r.dump(key)
            assert REDIS_PASSWORD.encode() not in repr(dump).encode()
    finally:
        r.close()


@pytest.mark.parametrize("form", ["query", "userinfo", "bare", "username"])
def test_a_wrong_password_is_one_line_without_the_password(
    redis_password_server: str, tmp_path: Path, form: str
) -> None:
    wrong = with_secret(redis_password_server, form, "x").replace(REDIS_PASSWORD, "Wr0ng-Pa55")
    for args in (["stats", wrong], ["crawl", wrong, "--seed", "http://127.0.0.1:9/"]):
        result = cli(*args, cwd=tmp_path)
        assert result.returncode == 1
        assert "refused the credentials" in result.stderr
        assert "Wr0ng-Pa55" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (f"redis://127.0.0.1:99999/0?name=x&password={REDIS_PASSWORD}", "Port out of range"),
        (f"redis://127.0.0.1:6379/0?name=x&bogus=1&password={REDIS_PASSWORD}", "'bogus'"),
        (f"redis://127.0.0.1:6379/abc?name=x&password={REDIS_PASSWORD}", "not a number"),
        (f"redis://127.0.0.1:6379/0?socket_timeout=soon&password={REDIS_PASSWORD}", "Invalid"),
        (f"redis://127.0.0.1:6379/0?name=a/b&password={REDIS_PASSWORD}", "invalid pool name"),
        (f"redis://127.0.0.1:6379/0?groups=0&password={REDIS_PASSWORD}", "invalid groups"),
    ],
)
def test_a_malformed_pool_url_is_one_line_and_exit_2(
    tmp_path: Path, url: str, message: str
) -> None:
    seed = "http://127.0.0.1:9/"
    for args in (["stats", url], ["crawl", url, "--seed", seed], ["save", url, "f"]):
        result = cli(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr
        assert_clean(result.stderr)
        lines = [ln for ln in result.stderr.splitlines() if ln and " DEBUG " not in ln]
        assert len(lines) == 1 and lines[0].startswith("crawler-gui: "), result.stderr
