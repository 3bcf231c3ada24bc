"""engine.http1, the crawl's own HTTP/1.1 client, against raw servers on loopback that answer
exactly the bytes a test gives them: keep-alive, limits, llhttp's strictness, the slots."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest

from crawler_gui.core.policy import ErrorKind
from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.http1 import (
    MAX_HEADER_BYTES,
    MAX_HEADERS,
    BadRequest,
    Disconnected,
    Http1Client,
    ProtocolError,
    check_header,
    request_target,
)
from crawler_gui.engine.safety import AddressPolicy
from crawler_gui.errors import ConfigError

from .conftest import LOOPBACK_ONLY, fast_settings

Answer = Callable[[bytes, int], bytes | None]


def page(body: bytes = b"hello", extra: bytes = b"") -> bytes:
    return (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n"
        + extra
        + b"\r\n"
        + body
    )


@dataclass
class Raw:
    """What the raw server saw: each connection's requests (their first lines)."""

    port: int = 0
    connections: list[list[str]] = field(default_factory=list)


@contextlib.asynccontextmanager
async def raw_server(answer: Answer, *, close_after: bool = False) -> AsyncIterator[Raw]:
    """Serve requests on one port: ``answer(request_head, n)`` (``n`` counts the requests of
    all connections from 0) gives the bytes to write, ``None`` to close the connection."""
    seen = Raw()
    counter = [0]
    handlers: set[asyncio.Task[None]] = set()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        mine: list[str] = []
        seen.connections.append(mine)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                mine.append(head.split(b"\r\n", 1)[0].decode())
                n = counter[0]
                counter[0] += 1
                reply = answer(head, n)
                if reply is None:
                    return
                writer.write(reply)
                await writer.drain()
                if close_after:
                    return
        except asyncio.CancelledError:
            pass  # (the server is going: end quietly, the transport closed below)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    seen.port = server.sockets[0].getsockname()[1]
    try:
        yield seen
    finally:
        server.close()
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()


def client(**kw: object) -> Http1Client:
    options: dict[str, object] = {
        "headers": [("User-Agent", "test")],
        "connect_timeout": 5.0,
        "read_timeout": 5.0,
        "limit": 8,
        "per_host": 1,
    }
    options.update(kw)
    return Http1Client(AddressPolicy(allow_networks=LOOPBACK_ONLY), **options)  # type: ignore[arg-type]


async def get(c: Http1Client, port: int, target: str = "/", cap: int = 1 << 20) -> tuple:
    resp = await c.get(("http", "127.0.0.1", port), target, deadline=time.monotonic() + 10)
    try:
        body, over = await resp.read(cap, True)
        return resp.status, dict(resp.headers), body, over
    finally:
        resp.close()


def answer_once(reply: bytes) -> tuple:
    """One request to a raw server that answers ``reply``: (status, headers, body, over)."""

    async def main() -> tuple:
        async with raw_server(lambda head, n: reply) as srv:
            c = client()
            try:
                return await get(c, srv.port)
            finally:
                await c.close()

    return asyncio.run(main())


def test_one_connection_serves_many_requests() -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: page(f"page {n}".encode())) as srv:
            c = client()
            try:
                bodies = [(await get(c, srv.port, f"/p{i}"))[2] for i in range(5)]
                assert c.idle_connections() == 1
            finally:
                await c.close()
        assert bodies == [f"page {i}".encode() for i in range(5)]
        assert len(srv.connections) == 1
        assert srv.connections[0] == [f"GET /p{i} HTTP/1.1" for i in range(5)]

    asyncio.run(main())


def test_a_kept_connection_the_server_closed_is_replaced_once() -> None:
    """The server closes each connection after one answer (without saying so): the next
    request finds the kept connection dead before any byte came back, and is sent again."""

    async def main() -> None:
        async with raw_server(lambda head, n: page(b"x"), close_after=True) as srv:
            c = client()
            try:
                for _ in range(3):
                    status, _h, body, _o = await get(c, srv.port)
                    assert (status, body) == (200, b"x")
                    await asyncio.sleep(0.05)  # (the close reaches the client)
            finally:
                await c.close()
        assert len(srv.connections) == 3

    asyncio.run(main())


def test_connection_close_and_a_body_to_the_end_of_the_connection() -> None:
    reply = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + b"a" * 100_000

    async def main() -> None:
        async with raw_server(lambda head, n: reply, close_after=True) as srv:
            c = client()
            try:
                status, _h, body, over = await get(c, srv.port)
                assert c.idle_connections() == 0  # (an HTTP/1.0 answer is never kept)
            finally:
                await c.close()
        assert (status, len(body), over) == (200, 100_000, False)

    asyncio.run(main())


def test_chunked_body_and_interim_responses() -> None:
    reply = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    )

    async def main() -> None:
        async with raw_server(lambda head, n: reply) as srv:
            c = client()
            try:
                status, headers, body, _o = await get(c, srv.port)
                again = await get(c, srv.port)
            finally:
                await c.close()
        assert (status, body) == (200, b"hello world")
        assert "Link" not in headers  # (the interim response's headers are not the answer's)
        assert again[2] == b"hello world" and len(srv.connections) == 1

    asyncio.run(main())


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        # Both lengths: a request-smuggling classic, refused rather than guessed.
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5\r\nhello\r\n0\r\n\r\n",
            "",
        ),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", ""),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", ""),
        (b"HTTP/1.1 200 OK\r\nBad Header : x\r\nContent-Length: 1\r\n\r\nx", ""),
        (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", "switched"),
        (
            b"HTTP/1.1 200 OK\r\n"
            + b"".join(b"X-%d: y\r\n" % i for i in range(MAX_HEADERS + 1))
            + b"Content-Length: 1\r\n\r\nx",
            "more than",
        ),
        (
            b"HTTP/1.1 200 OK\r\nX-Big: " + b"y" * (MAX_HEADER_BYTES + 10) + b"\r\n\r\n",
            "headers over",
        ),
        # A header line that never ends: bounded while it is still arriving.
        (b"HTTP/1.1 200 OK\r\nX-Endless: " + b"y" * (3 * MAX_HEADER_BYTES), "headers over"),
        # ... and a trailer line after a chunked body, and endless interim answers.
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: "
            + b"a" * (3 * MAX_HEADER_BYTES),
            "headers over",
        ),
        (b"HTTP/1.1 100 Continue\r\n\r\n" * 20_000, "headers over"),
        (b"HTTP/1.1 200 OK\r\nX-Nul: a\x00b\r\nContent-Length: 1\r\n\r\nx", "NUL"),
    ],
)
def test_broken_responses_are_protocol_errors(reply: bytes, words: str) -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: reply) as srv:
            c = client()
            try:
                with pytest.raises(ProtocolError, match=words or None):
                    await get(c, srv.port)
                assert c.idle_connections() == 0
            finally:
                await c.close()

    asyncio.run(main())


def test_bytes_after_the_response_spoil_the_connection() -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: page(b"ok") + b"HTTP/1.1 200 OK\r\n") as srv:
            c = client()
            try:
                status, _h, body, _o = await get(c, srv.port)
                await asyncio.sleep(0.05)
                second = await get(c, srv.port)
            finally:
                await c.close()
        assert (status, body) == (200, b"ok") and second[2] == b"ok"
        assert len(srv.connections) == 2  # (the first was not used again)

    asyncio.run(main())


def test_a_body_cut_short_is_a_disconnect() -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this"

    async def main() -> None:
        async with raw_server(lambda head, n: reply, close_after=True) as srv:
            c = client()
            try:
                with pytest.raises(Disconnected):
                    await get(c, srv.port)
            finally:
                await c.close()

    asyncio.run(main())


def test_a_body_over_the_cap_stops_reading_and_closes() -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: page(b"z" * 50_000)) as srv:
            c = client()
            try:
                resp = await c.get(
                    ("http", "127.0.0.1", srv.port), "/", deadline=time.monotonic() + 9
                )
                try:
                    body, over = await resp.read(1000, False)
                finally:
                    resp.close()
                assert (len(body), over) == (1000, True)
                assert c.idle_connections() == 0
                resp = await c.get(
                    ("http", "127.0.0.1", srv.port), "/", deadline=time.monotonic() + 9
                )
                try:
                    # (a Content-Length over the cap: nothing read at all)
                    assert await resp.read(1000, True) == (b"", True)
                finally:
                    resp.close()
            finally:
                await c.close()

    asyncio.run(main())


def test_one_request_at_a_time_per_host_and_the_overall_limit() -> None:
    active = [0]
    most = [0]

    async def main() -> None:
        async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    await reader.readuntil(b"\r\n\r\n")
                    active[0] += 1
                    most[0] = max(most[0], active[0])
                    await asyncio.sleep(0.05)
                    active[0] -= 1
                    writer.write(page(b"s"))
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
                pass
            finally:
                writer.close()

        server = await asyncio.start_server(slow, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        c = client(per_host=1)
        try:
            outs = await asyncio.gather(*(get(c, port) for _ in range(4)))
        finally:
            await c.close()
            server.close()
            await server.wait_closed()
        assert [o[2] for o in outs] == [b"s"] * 4
        assert most[0] == 1

    asyncio.run(main())


def test_headers_that_would_break_the_request_are_refused() -> None:
    assert check_header("X-Ok", "a value; with: colons") is None
    assert check_header("Bad Name", "x") is not None
    assert check_header("X-Inject", "a\r\nHost: evil") is not None
    with pytest.raises(BadRequest):
        client(headers=[("X-Inject", "a\r\nb")])

    async def main() -> None:
        async with raw_server(lambda head, n: page()) as srv:
            c = client()
            try:
                with pytest.raises(BadRequest):
                    await c.get(
                        ("http", "127.0.0.1", srv.port),
                        "/",
                        deadline=time.monotonic() + 5,
                        headers={"If-None-Match": '"a"\r\nX: y'},
                    )
                with pytest.raises(BadRequest):
                    await c.get(
                        ("http", "127.0.0.1", srv.port), "/a b", deadline=time.monotonic() + 5
                    )
                # (nothing was sent, and the slot was given back)
                assert (await get(c, srv.port))[2] == b"hello"
            finally:
                await c.close()
        assert sum(len(x) for x in srv.connections) == 1

    asyncio.run(main())
    with pytest.raises(ConfigError, match="line break"):
        fast_settings(extra_headers=(("X-Token", "a\nb"),))
    with pytest.raises(ConfigError, match="token"):
        fast_settings(extra_headers=(("Bad Name", "b"),))


def test_the_fetcher_sends_its_headers_once_each_and_the_url_target() -> None:
    heads: list[bytes] = []

    def answer(head: bytes, n: int) -> bytes:
        heads.append(head)
        return page()

    async def main() -> None:
        async with raw_server(answer) as srv:
            settings = fast_settings(
                extra_headers=(("user-agent", "mine/1.0"), ("X-Extra", "1"), ("Host", "evil"))
            )
            async with Fetcher(settings, allow_networks=LOOPBACK_ONLY) as fetcher:
                out = await fetcher.fetch(f"http://127.0.0.1:{srv.port}/a%20b?q=1#frag")
                assert out.ok and out.body == b"hello" and out.peer == "127.0.0.1"
                recorded = dict(fetcher.request_headers())
        lines = heads[0].decode().split("\r\n")
        assert lines[0] == "GET /a%20b?q=1 HTTP/1.1"
        names = [line.split(":", 1)[0].lower() for line in lines[1:] if line]
        assert names.count("user-agent") == 1 and names.count("host") == 1
        assert f"Host: 127.0.0.1:{srv.port}" in lines
        assert "user-agent: mine/1.0" in lines and "X-Extra: 1" in lines
        assert recorded["user-agent"] == "mine/1.0" and "Host" not in recorded

    asyncio.run(main())


def test_a_server_that_stops_mid_body_times_out_by_the_read_timeout() -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"

    async def main() -> float:
        async with raw_server(lambda head, n: reply) as srv:
            c = client(read_timeout=0.3)
            t0 = time.monotonic()
            try:
                with pytest.raises(TimeoutError):
                    await get(c, srv.port)
            finally:
                await c.close()
            return time.monotonic() - t0

    assert asyncio.run(main()) < 3


def test_fetch_maps_client_errors_to_kinds() -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n") as srv:
            settings = fast_settings(read_timeout=0.3)
            async with Fetcher(settings, allow_networks=LOOPBACK_ONLY) as fetcher:
                slow = await fetcher.fetch(f"http://127.0.0.1:{srv.port}/")
        assert slow.error is ErrorKind.TIMEOUT and "no data from the server" in slow.message
        cut_short = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab"
        async with (
            raw_server(lambda head, n: cut_short, close_after=True) as srv,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            cut = await fetcher.fetch(f"http://127.0.0.1:{srv.port}/")
            bad = await fetcher.fetch(f"http://127.0.0.1:{srv.port}/\x01")
        assert cut.error is ErrorKind.RESET and "connection lost" in cut.message
        assert bad.error is ErrorKind.UNSUPPORTED

    asyncio.run(main())


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("http://h/", "/"),
        ("http://h", "/"),
        ("http://h?x=1", "/?x=1"),
        ("http://h:8080/a/b?c#d", "/a/b?c"),
        ("https://[::1]:443/p", "/p"),
        ("http://u:p@h/x", "/x"),
    ],
)
def test_request_target(url: str, target: str) -> None:
    assert request_target(url) == target


def test_idle_connections_are_closed_after_the_keepalive(monkeypatch: pytest.MonkeyPatch) -> None:
    from crawler_gui.engine import http1

    monkeypatch.setattr(http1, "KEEPALIVE", 0.2)

    async def main() -> tuple[int, int, int]:
        async with raw_server(lambda head, n: page()) as srv:
            c = client()
            try:
                await get(c, srv.port)
                kept = c.idle_connections()
                await asyncio.sleep(0.6)  # (a sweep or two)
                left = c.idle_connections()
                await get(c, srv.port)  # a new connection for the next request
            finally:
                await c.close()
            return kept, left, len(srv.connections)

    assert asyncio.run(main()) == (1, 0, 2)


def test_https_verified_and_kept_alive_and_an_unknown_authority_refused() -> None:
    import ssl

    import trustme
    from aiohttp import web

    from .conftest import app_with, serve

    ca = trustme.CA()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_tls)
    trusting = ssl.create_default_context()
    ca.configure_trust(trusting)

    async def hello(_request: web.Request) -> web.Response:
        return web.Response(text="secret", content_type="text/html")

    async def main() -> None:
        async with serve(app_with({"/": hello}), ssl_context=server_tls) as base:
            port = int(base.rsplit(":", 1)[1])
            key = ("https", "127.0.0.1", port)
            c = client(tls=trusting)
            try:
                for _ in range(3):
                    resp = await c.get(key, "/", deadline=time.monotonic() + 10)
                    try:
                        assert resp.status == 200 and resp.peer == "127.0.0.1"
                        assert await resp.read(1000, True) == (b"secret", False)
                    finally:
                        resp.close()
                assert c.idle_connections() == 1  # (one TLS connection for the three)
            finally:
                await c.close()
            # The fetcher trusts the system's authorities only: this one is unknown.
            async with Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher:
                out = await fetcher.fetch(f"https://127.0.0.1:{port}/")
        assert out.error is ErrorKind.CONNECT
        assert "certificate verify failed" in out.message

    asyncio.run(main())


@pytest.mark.parametrize(
    "reply",
    [
        # What real servers send and aiohttp's parser takes (its leniencies, not more).
        b"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: 5\n\nhello",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5  \r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-Odd: caf\xe9 \x7f\r\nContent-Length: 5\r\n\r\nhello",
    ],
)
def test_what_aiohttp_took_is_taken(reply: bytes) -> None:
    status, _headers, body, over = answer_once(reply)
    assert (status, body, over) == (200, b"hello", False)


def test_a_body_in_tiny_chunks_is_read_whole() -> None:
    pieces = b"".join(b"2\r\nab\r\n" for _ in range(20_000))
    reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + pieces + b"0\r\n\r\n"
    _status, _headers, body, over = answer_once(reply)
    assert body == b"ab" * 20_000 and not over


def test_a_second_answer_in_the_same_packet_changes_nothing_of_the_first() -> None:
    reply = (
        b"HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Length: 5\r\n\r\nhello"
        b"HTTP/1.1 200 OK\r\nX-Second: 1\r\nContent-Length: 5\r\n\r\nworld"
    )

    async def main() -> tuple:
        async with raw_server(lambda head, n: reply) as srv:
            c = client()
            try:
                first = await get(c, srv.port)
                return first, c.idle_connections()
            finally:
                await c.close()

    (status, headers, body, _over), idle = asyncio.run(main())
    assert (status, body) == (302, b"hello")
    assert "X-Second" not in headers and headers["Location"] == "/a"
    assert idle == 0


def test_waiting_for_a_slot_ends_at_the_deadline() -> None:
    async def main() -> None:
        async with raw_server(lambda head, n: None if n else b"") as srv:
            c = client(per_host=1, read_timeout=30)
            key = ("http", "127.0.0.1", srv.port)
            try:
                hung = asyncio.ensure_future(c.get(key, "/", deadline=time.monotonic() + 30))
                await asyncio.sleep(0.1)  # (it holds the host's one slot, never answered)
                t0 = time.monotonic()
                with pytest.raises(TimeoutError, match="slot"):
                    await c.get(key, "/", deadline=time.monotonic() + 0.3)
                assert time.monotonic() - t0 < 5
                hung.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await hung
                # (both slots given back: the next request gets one at once)
                assert c._total == 0
            finally:
                await c.close()

    asyncio.run(main())


def test_a_connect_that_never_completes_is_a_timeout() -> None:
    """A listening socket whose backlog is full drops the next SYN: the connect hangs."""
    import socket as sockets

    async def main() -> None:
        listener = sockets.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        try:
            for _ in range(4):  # (the backlog's room; none is ever accepted)
                s = sockets.socket()
                s.setblocking(False)
                with contextlib.suppress(BlockingIOError):
                    s.connect(("127.0.0.1", port))
                fillers.append(s)
            await asyncio.sleep(0.1)
            c = client(connect_timeout=0.3)
            t0 = time.monotonic()
            try:
                with pytest.raises(TimeoutError, match="connect timeout"):
                    await c.get(("http", "127.0.0.1", port), "/", deadline=time.monotonic() + 10)
            finally:
                await c.close()
            assert time.monotonic() - t0 < 5
        finally:
            for s in fillers:
                s.close()
            listener.close()

    asyncio.run(main())
