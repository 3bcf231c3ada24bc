"""Loopback-server helpers for the engine tests (real aiohttp servers on 127.0.0.x, port 0)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable

from aiohttp import web

from crawler_gui.engine.settings import CrawlSettings

#: The loopback test server's network: allowed explicitly while allow_private stays off.
LOOPBACK_ONLY = ("127.0.0.1/32",)


def fast_settings(**overrides: object) -> CrawlSettings:
    """Settings with short timeouts, private addresses refused (as in production)."""
    values: dict[str, object] = {
        "connect_timeout": 1.0,
        "read_timeout": 1.0,
        "total_timeout": 2.0,
        "allow_private": False,
        "max_redirects": 5,
        "user_agent": "testbot/1.0 (+loopback)",
    }
    values.update(overrides)
    return CrawlSettings(**values)  # type: ignore[arg-type]


@contextlib.asynccontextmanager
async def serve(
    app: web.Application, host: str = "127.0.0.1", ssl_context: ssl.SSLContext | None = None
) -> AsyncIterator[str]:
    """Run ``app`` on ``host`` at a free port (over TLS with ``ssl_context``); yield its base
    URL (``http://host:port``, or ``https://``)."""
    runner = web.AppRunner(app, shutdown_timeout=0.2, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, 0, ssl_context=ssl_context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"{'https' if ssl_context else 'http'}://{host}:{port}"
    finally:
        await runner.cleanup()


def app_with(
    routes: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]],
) -> web.Application:
    app = web.Application()
    for path, handler in routes.items():
        app.router.add_route("GET", path, handler)
    return app


@contextlib.asynccontextmanager
async def silent_server(
    host: str = "127.0.0.1", reply: bytes = b"", delay_close: float = 30.0
) -> AsyncIterator[str]:
    """A raw TCP server that accepts, optionally writes ``reply``, then holds the connection
    open without ever finishing the response (or closes it after ``delay_close`` seconds)."""
    writers: list[asyncio.StreamWriter] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
            if reply:
                writer.write(reply)
                await writer.drain()
            await asyncio.sleep(delay_close)
        writer.close()

    server = await asyncio.start_server(handle, host, 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        for writer in writers:
            writer.close()
        server.close()
        await server.wait_closed()
        await asyncio.sleep(0)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])
