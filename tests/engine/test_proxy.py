"""Fetching through a proxy (``--proxy``): real HTTP and SOCKS5 proxies on loopback."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import struct
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web

from crawler_gui.core.policy import ErrorKind
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.safety import AddressPolicy, is_private_name
from crawler_gui.errors import ConfigError
from tests.engine.conftest import LOOPBACK_ONLY, fast_settings, serve

SECRET = "s3cr%3At"  # percent-encoded in the URL: the password is "s3cr:t"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class HttpProxy:
    """A small HTTP proxy: forwards absolute-form requests (one per connection) and tunnels
    CONNECT. With ``auth`` it answers 407 unless the request carries those credentials."""

    def __init__(self, auth: tuple[str, str] | None = None) -> None:
        self.auth = auth
        self.seen: list[tuple[str, str]] = []  # (method, target)
        self.refused = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        headers = [line for line in lines[1:] if line]
        if self.auth is not None:
            token = base64.b64encode(":".join(self.auth).encode()).decode()
            if f"Proxy-Authorization: Basic {token}".lower() not in (h.lower() for h in headers):
                self.refused += 1
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n")
                writer.write(b"Content-Length: 0\r\nConnection: close\r\n\r\n")
                await writer.drain()
                writer.close()
                return
        self.seen.append((method, target))
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            up_r, up_w = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
        else:
            rest = target.split("://", 1)[1]
            hostport, _, path = rest.partition("/")
            host, _, port = hostport.rpartition(":")
            up_r, up_w = await asyncio.open_connection(host, int(port or 80))
            kept = [
                h
                for h in headers
                if not h.lower().startswith(("proxy-", "connection:", "keep-alive:"))
            ]
            request = f"{method} /{path} HTTP/1.1\r\n" + "".join(f"{h}\r\n" for h in kept)
            up_w.write((request + "Connection: close\r\n\r\n").encode("latin-1"))
            await up_w.drain()
        await asyncio.gather(_pipe(reader, up_w), _pipe(up_r, writer))


class Socks5Proxy:
    """A small SOCKS5 proxy (no authentication; IPv4 and domain-name targets)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            _ver, n = await reader.readexactly(2)
            await reader.readexactly(n)
            writer.write(b"\x05\x00")
            _ver, _cmd, _rsv, atyp = await reader.readexactly(4)
            if atyp == 1:
                host = ".".join(str(b) for b in await reader.readexactly(4))
            elif atyp == 3:
                (length,) = await reader.readexactly(1)
                host = (await reader.readexactly(length)).decode("ascii")
            else:
                writer.close()
                return
            (port,) = struct.unpack("!H", await reader.readexactly(2))
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        self.seen.append((host, port))
        up_r, up_w = await asyncio.open_connection(host, port)
        writer.write(b"\x05\x00\x00\x01" + bytes(4) + b"\x00\x00")
        await writer.drain()
        await asyncio.gather(_pipe(reader, up_w), _pipe(up_r, writer))


@contextlib.asynccontextmanager
async def origin() -> AsyncIterator[str]:
    async def page(request: web.Request) -> web.Response:
        return web.Response(
            text=f"<html><title>{request.path}</title></html>", content_type="text/html"
        )

    app = web.Application()
    app.router.add_get("/{tail:.*}", page)
    async with serve(app) as base:
        yield base


def test_private_names() -> None:
    for name in (
        "localhost",
        "LOCALHOST.",
        "a.localhost",
        "printer.local",
        "intranet",
        "db.internal",
        "router.home.arpa",
        "files.corp",
        "x.lan",
    ):
        assert is_private_name(name), name
    for name in ("example.com", "news.example.org", "localhost.example.com", "local.news"):
        assert not is_private_name(name), name
    policy = AddressPolicy()
    assert not policy.check_proxied_host("localhost")
    assert not policy.check_proxied_host("10.0.0.1")
    assert not policy.check_proxied_host("[::1]")
    assert not policy.check_proxied_host("127.1")  # a non-canonical form, refused outright
    assert policy.check_proxied_host("example.com")
    assert policy.check_proxied_host("93.184.215.14")
    assert AddressPolicy(allow_private=True).check_proxied_host("localhost")


def test_fetch_through_an_http_proxy_with_credentials() -> None:
    async def main() -> None:
        proxy = HttpProxy(auth=("crawl", "s3cr:t"))
        await proxy.start()
        try:
            async with origin() as base:
                settings = fast_settings(proxy=f"http://crawl:{SECRET}@127.0.0.1:{proxy.port}")
                async with Fetcher(settings, allow_networks=LOOPBACK_ONLY) as fetcher:
                    first = await fetcher.fetch(base + "/a")
                    second = await fetcher.fetch(base + "/b")
                assert first.status == 200 and b"<title>/a</title>" in first.body
                assert second.status == 200 and b"<title>/b</title>" in second.body
                assert proxy.seen == [("GET", base + "/a"), ("GET", base + "/b")]
                assert proxy.refused == 0
                # Without the credentials the proxy refuses: a clear status, no secret.
                bare = fast_settings(proxy=f"http://127.0.0.1:{proxy.port}")
                async with Fetcher(bare, allow_networks=LOOPBACK_ONLY) as fetcher:
                    refused = await fetcher.fetch(base + "/c")
                assert refused.status == 407 or refused.error is not None
                assert proxy.refused == 1
        finally:
            await proxy.stop()

    asyncio.run(main())


def test_private_targets_are_refused_before_anything_is_sent() -> None:
    async def main() -> None:
        proxy = HttpProxy()
        await proxy.start()
        try:
            # Private addresses refused (allow_private off, no allowed networks): loopback,
            # private and link-local literals, and names of local networks.
            settings = fast_settings(proxy=f"http://127.0.0.1:{proxy.port}")
            async with Fetcher(settings) as fetcher:
                for url in (
                    "http://127.0.0.1:9/",
                    "http://10.1.2.3/",
                    "http://192.168.0.1/admin",
                    "http://169.254.169.254/latest/meta-data/",
                    "http://[::1]:8080/",
                    "http://localhost:8080/",
                    "http://db.internal/",
                    "http://intranet/",
                    "http://0x7f.1/",
                ):
                    out = await fetcher.fetch(url)
                    assert out.error is ErrorKind.BLOCKED_ADDRESS, url
                    assert out.status is None
            assert proxy.seen == []  # nothing reached the proxy
        finally:
            await proxy.stop()

    asyncio.run(main())


def test_fetch_through_a_socks5_proxy() -> None:
    async def main() -> None:
        proxy = Socks5Proxy()
        await proxy.start()
        try:
            async with origin() as base:
                settings = fast_settings(proxy=f"socks5://127.0.0.1:{proxy.port}")
                async with Fetcher(settings, allow_networks=LOOPBACK_ONLY) as fetcher:
                    out = await fetcher.fetch(base + "/s")
                    blocked = await fetcher.fetch("http://localhost:1/")
                assert out.status == 200 and b"<title>/s</title>" in out.body
                port = int(base.rsplit(":", 1)[1])
                assert proxy.seen == [("127.0.0.1", port)]
                assert blocked.error is ErrorKind.BLOCKED_ADDRESS
        finally:
            await proxy.stop()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://u:hunter2@proxy:21", "scheme must be one of"),
        ("http://u:hunter2@proxy", "give the port"),
        ("http://u:hunter2@:3128", "no host"),
        ("http://u:hunter2@proxy:3128/path", "only scheme://"),
        ("http://u:hunter2@proxy:99999", "not a valid URL"),
    ],
)
def test_bad_proxy_urls_are_refused_without_their_password(url: str, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason) as info:
        fast_settings(proxy=url)
    assert "hunter2" not in str(info.value)


@pytest.fixture
def threaded_proxy() -> Iterator[HttpProxy]:
    """The HTTP proxy on a loop of its own thread (for the command-line crawls)."""
    proxy = HttpProxy(auth=("crawl", "s3cr:t"))
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(proxy.start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(proxy.stop())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield proxy
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def _crawl(
    pool: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-m", "crawler_gui", "--log-level", "DEBUG", "crawl", str(pool)),
            *("--demo", "--max-pages", "40", "--concurrency", "8", *extra),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.slow
def test_a_crawl_through_the_proxy_never_shows_the_password(
    tmp_path: Path, threaded_proxy: HttpProxy
) -> None:
    url = f"http://crawl:{SECRET}@127.0.0.1:{threaded_proxy.port}"
    result = _crawl(tmp_path / "pool", "--proxy", url, "--no-progress")
    assert result.returncode == 0, result.stderr[-2000:]
    # Every page went through the proxy (robots.txt files too).
    assert len(threaded_proxy.seen) >= 40
    assert all(method == "GET" for method, _t in threaded_proxy.seen)
    assert "fetching through the proxy http://crawl:***@127.0.0.1" in result.stderr
    for secret in ("s3cr", SECRET):
        assert secret not in result.stderr and secret not in result.stdout
    exported = subprocess.run(
        [sys.executable, "-m", "crawler_gui", "export", str(tmp_path / "pool")],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert '"status":200' in exported.stdout and "s3cr" not in exported.stdout


@pytest.mark.slow
def test_the_environment_proxy_is_never_used(tmp_path: Path, threaded_proxy: HttpProxy) -> None:
    proxy = f"http://crawl:s3cr:t@127.0.0.1:{threaded_proxy.port}"
    env = {**os.environ, "HTTP_PROXY": proxy, "http_proxy": proxy, "ALL_PROXY": proxy}
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    result = _crawl(tmp_path / "pool", "--no-progress", env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert threaded_proxy.seen == [] and threaded_proxy.refused == 0
