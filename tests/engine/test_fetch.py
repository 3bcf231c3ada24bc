"""Fetcher against real loopback aiohttp servers: redirects, caps, timeouts, address safety."""

from __future__ import annotations

import asyncio
import email.utils
import gzip
import time
import zlib

import pytest
from aiohttp import web

from crawler_gui.core.policy import ErrorKind, Outcome, classify
from crawler_gui.engine.decode import decode_body, sniff_kind
from crawler_gui.engine.fetch import Fetcher, FetchOutcome, parse_retry_after

from .conftest import LOOPBACK_ONLY, app_with, fast_settings, free_port, serve, silent_server


async def _fetch(
    url: str, allow_networks: tuple[str, ...] = LOOPBACK_ONLY, **settings: object
) -> FetchOutcome:
    async with Fetcher(fast_settings(**settings), allow_networks=allow_networks) as fetcher:
        return await fetcher.fetch(url)


async def _ok(request: web.Request) -> web.Response:
    return web.Response(text="<html><title>ok</title></html>", content_type="text/html")


def test_plain_page_body_status_peer_and_sizes_recorded() -> None:
    async def main() -> None:
        async with serve(app_with({"/": _ok})) as base:
            out = await _fetch(base + "/")
        assert out.error is None and out.ok
        assert out.status == 200
        assert out.body == b"<html><title>ok</title></html>"
        assert out.content_type is not None and out.content_type.startswith("text/html")
        assert out.peer == "127.0.0.1"
        assert out.chain == [(base + "/", 200)]
        assert out.final_url == base + "/"
        assert out.size == len(out.body)
        assert out.elapsed > 0
        assert classify(out.to_result()) is Outcome.DONE

    asyncio.run(main())


def test_request_headers_user_agent_and_accept_encoding_sent() -> None:
    seen: dict[str, str] = {}

    async def echo(request: web.Request) -> web.Response:
        seen.update(request.headers)
        return web.Response(text="x")

    async def main() -> None:
        async with serve(app_with({"/": echo})) as base:
            out = await _fetch(base + "/", extra_headers=(("X-Test", "1"),))
        assert out.status == 200

    asyncio.run(main())
    assert seen["User-Agent"] == "testbot/1.0 (+loopback)"
    assert seen["Accept-Encoding"] == "gzip, deflate"
    assert seen["X-Test"] == "1"


def test_same_host_redirect_chain_followed_and_recorded() -> None:
    async def a(request: web.Request) -> web.Response:
        raise web.HTTPFound("/b")

    async def b(request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("c?x=1")  # relative Location

    async def main() -> None:
        async with serve(app_with({"/a": a, "/b": b, "/c": _ok})) as base:
            out = await _fetch(base + "/a")
        assert out.error is None
        assert out.status == 200
        assert out.chain == [(base + "/a", 302), (base + "/b", 301), (base + "/c?x=1", 200)]
        assert out.final_url == base + "/c?x=1"
        assert out.url == base + "/a"
        assert out.permanent_redirect is True
        assert out.redirect_to is None
        assert b"ok" in out.body

    asyncio.run(main())


def test_302_only_chain_is_not_permanent() -> None:
    async def a(request: web.Request) -> web.Response:
        raise web.HTTPFound("/c")

    async def main() -> None:
        async with serve(app_with({"/a": a, "/c": _ok})) as base:
            out = await _fetch(base + "/a")
        assert out.status == 200 and out.permanent_redirect is False

    asyncio.run(main())


def test_301_sets_permanent_redirect_even_when_returned_unfollowed() -> None:
    async def old(request: web.Request) -> web.Response:
        raise web.HTTPMovedPermanently("https://www.example.com/new")

    async def main() -> None:
        async with serve(app_with({"/old": old})) as base:
            out = await _fetch(base + "/old")
        assert out.status == 301
        assert out.permanent_redirect is True
        assert out.redirect_to == "https://www.example.com/new"
        assert classify(out.to_result()) is Outcome.REDIRECTED

    asyncio.run(main())


def test_308_sets_permanent_redirect() -> None:
    async def old(request: web.Request) -> web.Response:
        raise web.HTTPPermanentRedirect("/new")

    async def main() -> None:
        async with serve(app_with({"/old": old, "/new": _ok})) as base:
            out = await _fetch(base + "/old")
        assert out.status == 200 and out.permanent_redirect is True

    asyncio.run(main())


def test_cross_host_redirect_returned_as_redirect_to_not_followed() -> None:
    async def jump(request: web.Request) -> web.Response:
        raise web.HTTPFound("http://other.example.org/landing#frag")

    async def main() -> None:
        async with serve(app_with({"/": jump})) as base:
            out = await _fetch(base + "/")
        assert out.error is None
        assert out.status == 302
        assert out.redirect_to == "http://other.example.org/landing"
        assert out.chain == [(base + "/", 302)]
        result = out.to_result()
        assert result.redirect_to == "http://other.example.org/landing"
        assert classify(result) is Outcome.REDIRECTED

    asyncio.run(main())


def test_redirect_to_other_port_is_another_host_key() -> None:
    async def jump(request: web.Request) -> web.Response:
        raise web.HTTPFound(f"http://127.0.0.1:{free_port()}/x")

    async def main() -> None:
        async with serve(app_with({"/": jump})) as base:
            out = await _fetch(base + "/")
        assert out.status == 302 and out.redirect_to is not None
        assert out.redirect_to.startswith("http://127.0.0.1:")

    asyncio.run(main())


def test_redirect_loop_reported_with_3xx_status() -> None:
    async def a(request: web.Request) -> web.Response:
        raise web.HTTPFound("/b")

    async def b(request: web.Request) -> web.Response:
        raise web.HTTPFound("/a")

    async def main() -> None:
        async with serve(app_with({"/a": a, "/b": b})) as base:
            out = await _fetch(base + "/a")
        assert out.error is ErrorKind.REDIRECT_LOOP
        assert out.status == 302
        assert [s for _u, s in out.chain] == [302, 302]
        assert classify(out.to_result()) is Outcome.FAILED

    asyncio.run(main())


def test_self_redirect_is_a_loop() -> None:
    async def a(request: web.Request) -> web.Response:
        raise web.HTTPFound("/a#again")

    async def main() -> None:
        async with serve(app_with({"/a": a})) as base:
            out = await _fetch(base + "/a")
        assert out.error is ErrorKind.REDIRECT_LOOP

    asyncio.run(main())


def test_too_many_redirects() -> None:
    async def step(request: web.Request) -> web.Response:
        n = int(request.match_info["n"])
        raise web.HTTPFound(f"/r/{n + 1}")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/r/{n}", step)
        async with serve(app) as base:
            out = await _fetch(base + "/r/0", max_redirects=3)
        assert out.error is ErrorKind.TOO_MANY_REDIRECTS
        assert len(out.chain) == 4
        assert out.status == 302

    asyncio.run(main())


def test_3xx_without_location_is_bad_redirect_keeping_status() -> None:
    async def bare(request: web.Request) -> web.Response:
        return web.Response(status=302, text="moved somewhere")

    async def main() -> None:
        async with serve(app_with({"/": bare})) as base:
            out = await _fetch(base + "/")
        assert out.error is ErrorKind.BAD_REDIRECT
        assert out.status == 302
        assert out.redirect_to is None
        assert out.to_result().status == 302
        assert classify(out.to_result()) is Outcome.FAILED

    asyncio.run(main())


def test_3xx_with_non_http_location_is_bad_redirect() -> None:
    async def bad(request: web.Request) -> web.Response:
        return web.Response(status=301, headers={"Location": "mailto:someone@example.com"})

    async def main() -> None:
        async with serve(app_with({"/": bad})) as base:
            out = await _fetch(base + "/")
        assert out.error is ErrorKind.BAD_REDIRECT and out.status == 301

    asyncio.run(main())


def test_hop_check_refuses_a_same_host_redirect() -> None:
    async def a(request: web.Request) -> web.Response:
        raise web.HTTPFound("/private/page")

    checked: list[str] = []

    def hop_check(url: str) -> ErrorKind | None:
        checked.append(url)
        return ErrorKind.ROBOTS if "/private/" in url else None

    async def main() -> None:
        async with (
            serve(app_with({"/a": a, "/private/page": _ok})) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            out = await fetcher.fetch(base + "/a", hop_check=hop_check)
            assert checked == [base + "/private/page"]
        assert out.error is ErrorKind.ROBOTS
        assert out.status == 302
        assert out.chain == [(base + "/a", 302)]

    asyncio.run(main())


def test_429_retry_after_seconds() -> None:
    async def busy(request: web.Request) -> web.Response:
        return web.Response(status=429, headers={"Retry-After": "120"}, text="slow down")

    async def main() -> None:
        async with serve(app_with({"/": busy})) as base:
            out = await _fetch(base + "/")
        assert out.status == 429 and out.error is None
        assert out.retry_after == 120.0
        assert out.body == b"slow down"
        result = out.to_result()
        assert result.retry_after == 120.0
        assert classify(result) is Outcome.THROTTLED

    asyncio.run(main())


def test_503_retry_after_http_date() -> None:
    when = email.utils.formatdate(time.time() + 300, usegmt=True)

    async def busy(request: web.Request) -> web.Response:
        return web.Response(status=503, headers={"Retry-After": when})

    async def main() -> None:
        async with serve(app_with({"/": busy})) as base:
            out = await _fetch(base + "/")
        assert out.status == 503
        assert out.retry_after is not None and 290 <= out.retry_after <= 301

    asyncio.run(main())


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    past = email.utils.formatdate(time.time() - 100, usegmt=True)
    assert parse_retry_after(past) == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480.0 - 60) == 60.0


def test_server_that_never_answers_times_out() -> None:
    async def main() -> None:
        async with silent_server() as base:
            started = time.monotonic()
            out = await _fetch(base + "/", total_timeout=1.0, read_timeout=5.0)
            took = time.monotonic() - started
        assert out.error is ErrorKind.TIMEOUT
        assert out.status is None
        assert 0.8 <= took < 3.0
        assert classify(out.to_result()) is Outcome.RETRY

    asyncio.run(main())


def test_read_timeout_when_headers_never_come() -> None:
    async def main() -> None:
        async with silent_server() as base:
            out = await _fetch(base + "/", total_timeout=5.0, read_timeout=0.5)
        assert out.error is ErrorKind.TIMEOUT
        assert out.elapsed < 3.0

    asyncio.run(main())


def test_trickling_server_hits_total_timeout() -> None:
    async def trickle(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/html"})
        await resp.prepare(request)
        for _ in range(200):
            await resp.write(b"x")
            await asyncio.sleep(0.05)  # always under the read timeout, never done in time
        return resp

    async def main() -> None:
        async with serve(app_with({"/": trickle})) as base:
            out = await _fetch(base + "/", total_timeout=1.0, read_timeout=0.5)
        assert out.error is ErrorKind.TIMEOUT
        assert out.status == 200  # the headers came
        assert out.elapsed < 3.0
        result = out.to_result()
        assert result.status is None and result.error is ErrorKind.TIMEOUT

    asyncio.run(main())


def test_huge_body_with_content_length_is_too_large() -> None:
    async def huge(request: web.Request) -> web.Response:
        return web.Response(body=b"a" * 300_000, content_type="text/html")

    async def main() -> None:
        async with serve(app_with({"/": huge})) as base:
            out = await _fetch(base + "/", max_body=100_000)
        assert out.error is ErrorKind.TOO_LARGE
        assert out.status == 200
        assert classify(out.to_result()) is Outcome.FAILED

    asyncio.run(main())


def test_huge_streamed_body_without_length_stops_at_cap() -> None:
    sent: list[int] = []

    async def stream(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/html"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        try:
            for _ in range(1000):  # up to 64 MB
                await resp.write(b"b" * 65536)
                sent.append(1)
        except (ConnectionError, RuntimeError):
            pass
        return resp

    async def main() -> None:
        async with serve(app_with({"/": stream})) as base:
            out = await _fetch(base + "/", max_body=200_000, total_timeout=5.0)
        assert out.error is ErrorKind.TOO_LARGE
        assert out.size <= 200_000
        assert len(sent) < 1000  # the client stopped reading; the server did not send it all

    asyncio.run(main())


def test_gzip_bomb_stops_at_max_decompressed() -> None:
    bomb_raw = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = bomb_raw.compress(b"\0" * (30 * 1024 * 1024)) + bomb_raw.flush()
    assert len(bomb) < 100_000

    async def serve_bomb(request: web.Request) -> web.Response:
        return web.Response(
            body=bomb, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}
        )

    async def main() -> None:
        async with serve(app_with({"/": serve_bomb})) as base:
            out = await _fetch(base + "/", max_decompressed=1024 * 1024)
        assert out.error is ErrorKind.TOO_LARGE
        assert "decompressed" in out.message
        assert len(out.body) <= 1024 * 1024

    asyncio.run(main())


def test_gzip_and_deflate_bodies_decompressed() -> None:
    page = b"<html><body>" + b"hello " * 1000 + b"</body></html>"
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    bodies = {
        "gzip": gzip.compress(page),
        "deflate": zlib.compress(page),
        "rawdeflate": raw_deflate.compress(page) + raw_deflate.flush(),
    }

    async def handler(request: web.Request) -> web.Response:
        kind = request.match_info["kind"]
        encoding = "deflate" if kind == "rawdeflate" else kind
        return web.Response(
            body=bodies[kind], headers={"Content-Type": "text/html", "Content-Encoding": encoding}
        )

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/{kind}", handler)
        async with (
            serve(app) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            outs = [await fetcher.fetch(f"{base}/{kind}") for kind in bodies]
        for kind, out in zip(bodies, outs, strict=True):
            assert out.error is None, kind
            assert out.body == page, kind
            assert out.size == len(bodies[kind])

    asyncio.run(main())


def test_corrupt_gzip_is_protocol_error() -> None:
    async def broken(request: web.Request) -> web.Response:
        return web.Response(
            body=b"\x1f\x8b\x08\x00garbage-not-gzip",
            headers={"Content-Type": "text/html", "Content-Encoding": "gzip"},
        )

    async def main() -> None:
        async with serve(app_with({"/": broken})) as base:
            out = await _fetch(base + "/")
        assert out.error is ErrorKind.PROTOCOL

    asyncio.run(main())


def test_error_status_body_read_but_capped_without_error() -> None:
    async def missing(request: web.Request) -> web.Response:
        return web.Response(status=404, body=b"n" * 200_000)

    async def main() -> None:
        async with serve(app_with({"/": missing})) as base:
            out = await _fetch(base + "/")
        assert out.status == 404 and out.error is None
        assert len(out.body) == 64 * 1024
        assert classify(out.to_result()) is Outcome.FAILED

    asyncio.run(main())


def test_connection_refused_is_connect_error() -> None:
    async def main() -> None:
        out = await _fetch(f"http://127.0.0.1:{free_port()}/")
        assert out.error is ErrorKind.CONNECT
        assert out.status is None
        assert classify(out.to_result()) is Outcome.RETRY

    asyncio.run(main())


def test_connection_closed_mid_body_is_reset() -> None:
    reply = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\nshort"

    async def main() -> None:
        async with silent_server(reply=reply, delay_close=0.05) as base:
            out = await _fetch(base + "/")
        assert out.error is ErrorKind.RESET
        assert out.to_result().status is None

    asyncio.run(main())


def test_garbage_instead_of_http_is_protocol_error() -> None:
    async def main() -> None:
        async with silent_server(reply=b"SSH-2.0-OpenSSH\r\n\r\n", delay_close=0.05) as base:
            out = await _fetch(base + "/")
        assert out.error is ErrorKind.PROTOCOL

    asyncio.run(main())


def test_non_http_url_is_unsupported() -> None:
    async def main() -> None:
        out = await _fetch("ftp://127.0.0.1/file")
        assert out.error is ErrorKind.UNSUPPORTED

    asyncio.run(main())


def test_a_host_over_the_dns_limits_never_reaches_the_resolver(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A URL from a pool older than the gate in canonicalize: a permanent failure with its
    reason, no traceback (the resolver would raise "label too long" on every attempt)."""

    async def main() -> None:
        for host in ("a" * 64 + ".example.com", "abcdefghi." * 26 + "com"):
            out = await _fetch(f"http://{host}/page")
            assert out.error is ErrorKind.UNSUPPORTED
            assert "longer than 253 characters" in out.message
            assert classify(out.to_result()) is Outcome.FAILED

    asyncio.run(main())
    assert not [r for r in caplog.records if r.exc_info]


def test_private_address_behind_redirect_is_returned_then_blocked() -> None:
    hits: list[str] = []

    async def secret(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text="internal admin")

    async def main() -> None:
        async with serve(app_with({"/admin": secret}), host="127.0.0.2") as inner:

            async def jump(request: web.Request) -> web.Response:
                raise web.HTTPFound(inner + "/admin")

            async with (
                serve(app_with({"/": jump})) as base,
                Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
            ):
                first = await fetcher.fetch(base + "/")
                assert first.status == 302
                assert first.redirect_to == inner + "/admin"
                second = await fetcher.fetch(first.redirect_to)
        assert second.error is ErrorKind.BLOCKED_ADDRESS
        assert second.status is None
        assert hits == []

    asyncio.run(main())


def test_direct_fetch_of_private_literal_ip_blocked_although_server_listens() -> None:
    async def main() -> None:
        async with serve(app_with({"/": _ok}), host="127.0.0.2") as inner:
            blocked = await _fetch(inner + "/")
            allowed = await _fetch(inner + "/", allow_networks=("127.0.0.2/32",))
        assert blocked.error is ErrorKind.BLOCKED_ADDRESS
        assert allowed.status == 200  # the same server is reachable when its network is allowed

    asyncio.run(main())


def test_short_and_numeric_ip_forms_blocked() -> None:
    async def main() -> None:
        async with serve(app_with({"/": _ok})) as base:
            port = base.rsplit(":", 1)[1]
            outs = [
                await _fetch(f"http://{host}:{port}/")
                for host in ("127.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1")
            ]
            control = await _fetch(f"http://127.0.0.1:{port}/")
        assert [o.error for o in outs] == [ErrorKind.BLOCKED_ADDRESS] * 5
        assert control.status == 200

    asyncio.run(main())


def test_name_resolving_to_loopback_blocked_by_resolver() -> None:
    async def main() -> None:
        async with serve(app_with({"/": _ok})) as base:
            port = base.rsplit(":", 1)[1]
            blocked = await _fetch(f"http://localhost:{port}/", allow_networks=())
            allowed = await _fetch(f"http://localhost:{port}/")
        assert blocked.error is ErrorKind.BLOCKED_ADDRESS
        assert "localhost" in blocked.message
        assert allowed.status == 200 and allowed.peer == "127.0.0.1"

    asyncio.run(main())


def test_allow_private_setting_allows_loopback() -> None:
    async def main() -> None:
        async with serve(app_with({"/": _ok}), host="127.0.0.2") as inner:
            out = await _fetch(inner + "/", allow_networks=(), allow_private=True)
        assert out.status == 200 and out.peer == "127.0.0.2"

    asyncio.run(main())


def test_a_fetcher_starts_its_session_on_first_use() -> None:
    """A fetcher made by a live settings change is used without an explicit start()."""

    async def hello(_request: web.Request) -> web.Response:
        return web.Response(text="<title>hi</title>", content_type="text/html")

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/", hello)
        async with serve(app) as base:
            fetcher = Fetcher(fast_settings(allow_private=True))
            try:
                outcome = await fetcher.fetch(base + "/")
            finally:
                await fetcher.close()
            assert outcome.ok and outcome.status == 200

    asyncio.run(main())


def test_non_utf8_bytes_in_a_location_header_are_percent_encoded() -> None:
    """A raw 0xE9 byte in Location (a server in a legacy encoding) must not leak into URLs."""
    requested: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ")[1]
            requested.append(path)
            if path == b"/":
                writer.write(
                    b"HTTP/1.1 302 Found\r\nLocation: /caf\xe9\r\nContent-Length: 0\r\n\r\n"
                )
            else:
                body = b"<title>ok</title>"
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
                )
                await writer.drain()
                writer.close()
                return
            await writer.drain()

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with Fetcher(fast_settings(allow_private=True)) as fetcher:
                outcome = await fetcher.fetch(f"http://127.0.0.1:{port}/")
        finally:
            server.close()
            await server.wait_closed()
        assert outcome.ok, outcome
        assert outcome.final_url == f"http://127.0.0.1:{port}/caf%E9"
        assert requested == [b"/", b"/caf%E9"]

    asyncio.run(main())


def test_mislabelled_gbk_page_fetched_and_decoded() -> None:
    text = "<html><head><title>新闻中心</title></head><body>" + "今日要闻 国际新闻 体育新闻 " * 50
    body = text.encode("gbk")

    async def page(request: web.Request) -> web.Response:
        return web.Response(body=body, headers={"Content-Type": "text/html; charset=UTF-8"})

    async def main() -> None:
        async with serve(app_with({"/": page})) as base:
            out = await _fetch(base + "/")
        assert out.status == 200
        decoded, encoding = decode_body(out.body, out.content_type)
        assert decoded == text
        assert encoding == "gb18030"

    asyncio.run(main())


def test_binary_served_as_html_sniffed_as_binary() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4

    async def image(request: web.Request) -> web.Response:
        return web.Response(body=png, headers={"Content-Type": "text/html"})

    async def main() -> None:
        async with serve(app_with({"/": image})) as base:
            out = await _fetch(base + "/")
        assert out.status == 200
        assert sniff_kind(out.content_type, out.body) == "binary"

    asyncio.run(main())


def test_many_concurrent_fetches_share_one_session() -> None:
    async def main() -> None:
        async with (
            serve(app_with({"/{n}": _ok})) as base,
            Fetcher(
                fast_settings(concurrency=8, per_host=4), allow_networks=LOOPBACK_ONLY
            ) as fetcher,
        ):
            outs = await asyncio.gather(*(fetcher.fetch(f"{base}/{n}") for n in range(200)))
        assert all(o.status == 200 for o in outs)

    asyncio.run(main())


def test_the_client_checks_the_connected_peer_before_sending() -> None:
    """The last of the address checks: where a new connection really went (a name can be
    resolved again between the check and the connect), before a byte is sent."""
    from crawler_gui.engine.http1 import Http1Client
    from crawler_gui.engine.safety import AddressPolicy, BlockedAddressError

    class JudgedBefore(AddressPolicy):
        def check_host(self, host: str) -> bool | None:
            return True  # (as if the host had passed when it was looked up)

    hits: list[str] = []

    async def seen(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text="x")

    async def main() -> None:
        async with serve(app_with({"/": seen})) as base:
            port = int(base.rsplit(":", 1)[1])
            client = Http1Client(
                JudgedBefore(), headers=(), connect_timeout=5, read_timeout=5, limit=4, per_host=1
            )
            try:
                with pytest.raises(BlockedAddressError, match=r"connected to 127\.0\.0\.1"):
                    await client.get(
                        ("http", "127.0.0.1", port), "/", deadline=time.monotonic() + 10
                    )
            finally:
                await client.close()
        assert hits == []

    asyncio.run(main())


def test_a_location_is_resolved_by_the_url_standard() -> None:
    """A browser reads ``\\`` in a Location as ``/`` (the WHATWG URL Standard); ``urljoin``
    kept it, and the crawler fetched a URL no browser would."""

    async def moved(request: web.Request) -> web.Response:
        return web.Response(status=301, headers={"Location": "\\b\\.\\c?x=1"})

    async def main() -> None:
        async with serve(app_with({"/a": moved, "/b/c": _ok})) as base:
            out = await _fetch(base + "/a")
        assert out.ok and out.final_url == base + "/b/c?x=1"

    asyncio.run(main())


def test_request_headers_are_made_once_and_handed_out_as_copies() -> None:
    fetcher = Fetcher(fast_settings())
    first = fetcher.request_headers()
    first.append(("X-Mine", "1"))
    assert ("X-Mine", "1") not in fetcher.request_headers()
    assert fetcher.request_headers() == fetcher.request_headers()
