"""Shared test configuration: strict about leftovers."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

# Qt, if any test imports it, never needs a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis_exe(name: str = "redis-server") -> str:
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(f"{name} is not installed; install it (apt-get install redis-server)")
    return exe


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith((b"+PONG", b"-NOAUTH"))  # (-NOAUTH: a password)
    except OSError:
        return False


class _RedisProcs:
    """redis-server processes on loopback, no persistence; stopped by ``stop()``."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.procs: list[tuple[subprocess.Popen[bytes], IO[bytes]]] = []

    def start(self, *extra: str, bus: bool = False) -> int:
        """Start one server on a free port (and, with ``bus``, a free port + 10000 for the
        Cluster bus); returns the port."""
        exe = _redis_exe()
        for _attempt in range(10):
            port = _free_port()
            if bus and (port + 10000 > 65535 or not _port_free(port + 10000)):
                continue
            home = self.where / str(port)
            home.mkdir()
            log = open(home / "redis.log", "wb")  # noqa: SIM115 - closed by stop()
            proc = subprocess.Popen(
                [
                    *(exe, "--bind", "127.0.0.1", "--port", str(port)),
                    *("--save", "", "--appendonly", "no", "--dir", str(home)),
                    *("--daemonize", "no", *extra),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                if _ping(port):
                    self.procs.append((proc, log))
                    return port
                time.sleep(0.05)
            proc.kill()
            proc.wait()
            log.close()
        pytest.fail(f"redis-server did not start; see the logs in {self.where}")

    def stop(self) -> None:
        for proc, _log in self.procs:
            proc.terminate()
        for proc, log in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server on loopback for the whole session; yields ``redis://host:port/0``.

    Fails (never skips) when redis-server is not installed: the Redis backend is part of the
    contract (.ci/run installs it; locally: ``apt-get install redis-server``)."""
    procs = _RedisProcs(tmp_path_factory.mktemp("redis"))
    try:
        port = procs.start()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        procs.stop()


#: The password of the ``redis_password_server`` fixture: distinctive, so that a test can search
#: every output for it.
REDIS_PASSWORD = "pw-Zq7xK2-secret"


@pytest.fixture(scope="session")
def redis_password_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private redis-server that needs the password :data:`REDIS_PASSWORD`; yields
    ``redis://127.0.0.1:PORT/0`` (without the password: each test says how it gives it)."""
    procs = _RedisProcs(tmp_path_factory.mktemp("redis-auth"))
    try:
        port = procs.start("--requirepass", REDIS_PASSWORD)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        procs.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private three-primary Redis Cluster on loopback; yields the URL of one node.

    Built with ``redis-cli --cluster create`` (Debian's redis-tools, which redis-server
    depends on); fails, never skips, when it cannot be started."""
    procs = _RedisProcs(tmp_path_factory.mktemp("redis-cluster"))
    try:
        ports = [
            procs.start(
                *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                *("--cluster-node-timeout", "5000"),
                bus=True,
            )
            for _ in range(3)
        ]
        made = subprocess.run(
            [
                *(_redis_exe("redis-cli"), "--cluster", "create"),
                *(f"127.0.0.1:{p}" for p in ports),
                *("--cluster-replicas", "0", "--cluster-yes"),
            ],
            capture_output=True,
            timeout=60,
            check=False,
        )
        if made.returncode != 0:
            pytest.fail(f"redis-cli --cluster create failed: {made.stdout!r} {made.stderr!r}")
        deadline = time.monotonic() + 30
        while True:  # every node must agree that all slots are served
            states = [
                subprocess.run(
                    [_redis_exe("redis-cli"), "-p", str(p), "cluster", "info"],
                    capture_output=True,
                    timeout=10,
                    check=False,
                ).stdout
                for p in ports
            ]
            if all(b"cluster_state:ok" in s for s in states):
                break
            if time.monotonic() > deadline:
                pytest.fail(f"the Redis Cluster did not come up: {states!r}")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{ports[0]}/0"
    finally:
        procs.stop()


@pytest.fixture(params=["server", "cluster"])
def any_redis(request: pytest.FixtureRequest) -> str:
    """The URL of the session's single redis-server, then of its Redis Cluster."""
    fixture = "redis_cluster" if request.param == "cluster" else "redis_server"
    return str(request.getfixturevalue(fixture))


class RestartableRedis:
    """A private redis-server of one test that can be stopped and started again on the same
    port, with its data kept (append-only file, fsync always), as an operator's restart."""

    def __init__(self, where: Path) -> None:
        self.where = where
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> None:
        assert self._proc is None
        self._log = open(self.where / "redis.log", "ab")  # noqa: SIM115 - closed by stop()
        self._proc = subprocess.Popen(
            [
                *(_redis_exe(), "--bind", "127.0.0.1", "--port", str(self.port)),
                *("--dir", str(self.where), "--save", "", "--daemonize", "no"),
                *("--appendonly", "yes", "--appendfsync", "always"),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self._proc.poll() is None:
            if _ping(self.port):
                return
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"redis-server did not start; see {self.where / 'redis.log'}")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


@pytest.fixture
def restartable_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestartableRedis]:
    server = RestartableRedis(tmp_path_factory.mktemp("redis-restart"))
    server.start()
    try:
        yield server
    finally:
        server.stop()
