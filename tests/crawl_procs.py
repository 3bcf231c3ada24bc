"""Real processes for the attach tests: the demo site (``python -m crawler_gui.demo``) and a
headless ``crawler-gui crawl`` of its first host, both on loopback."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from crawler_gui.engine.control import address


def _wait(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout} s")
        time.sleep(0.05)


@contextmanager
def demo_site(where: Path, latency: float = 0.2) -> Iterator[int]:
    """The demo site in its own process (slow enough that a crawl of it lasts); yields its port."""
    log = where / "demo.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "crawler_gui.demo", "--port", "0", "--latency", str(latency)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        found: list[int] = []

        def port() -> bool:
            m = re.search(rb"on port (\d+)", log.read_bytes())
            if m:
                found.append(int(m.group(1)))
            return bool(found) or proc.poll() is not None

        _wait(port, 30, "the demo site did not start")
        assert found, log.read_text("utf-8", "replace")
        yield found[0]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Crawl:
    """``crawler-gui crawl POOL`` of the demo site's first host (only that host is in scope)."""

    def __init__(self, pool: Path, port: int) -> None:
        self.pool = pool
        self.port = port
        self.log = pool.parent / f"crawl-{time.monotonic_ns()}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Crawl:
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [
                    *(sys.executable, "-m", "crawler_gui", "--log-level", "INFO", "crawl"),
                    str(self.pool),
                    *("--seed", f"http://127.0.0.1:{self.port}/"),
                    *("--allow-private", "--ignore-robots", "--no-progress"),
                    *("--concurrency", "2", "--delay", "0.3"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=out,
            )
        _wait(self.serving, 60, f"the crawl did not open its control channel ({self.text()})")
        return self

    def serving(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"the crawl exited: {self.text()}")
        return b"control channel of this crawl at" in self.log.read_bytes()

    def text(self) -> str:
        return self.log.read_text("utf-8", "replace")[-3000:]

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(30)
        assert self.proc.returncode == -signal.SIGKILL

    def stop(self) -> int:
        """Ctrl-C, as a user stops it; returns the exit code."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    @property
    def socket(self) -> Path:
        return self.pool / address.SOCKET_NAME


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crawler_gui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
