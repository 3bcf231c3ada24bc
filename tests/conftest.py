"""Shared test configuration: strict about leftovers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

# Qt, if any test imports it, never needs a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server on loopback for the whole session; yields ``redis://host:port/0``.

    Fails (never skips) when redis-server is not installed: the Redis backend is part of the
    contract (.ci/run installs it; locally: ``apt-get install redis-server``)."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.fail("redis-server is not installed; install it (apt-get install redis-server)")
    where = tmp_path_factory.mktemp("redis")
    for _attempt in range(5):
        port = _free_port()
        log = open(where / f"redis-{port}.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [
                *(exe, "--bind", "127.0.0.1", "--port", str(port)),
                *("--save", "", "--appendonly", "no", "--dir", str(where), "--daemonize", "no"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        up = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        up = True
                        break
            except OSError:
                time.sleep(0.05)
        if up:
            break
        proc.kill()
        proc.wait()
        log.close()
    else:
        pytest.fail(f"redis-server did not start; see the logs in {where}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
