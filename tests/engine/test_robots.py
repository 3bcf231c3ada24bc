"""RobotsCache against real loopback servers, fetched through the Fetcher."""

from __future__ import annotations

import asyncio

from aiohttp import web

from crawler_gui.engine.fetch import Fetcher
from crawler_gui.engine.robots import RobotsCache, origin_of, robots_url

from .conftest import LOOPBACK_ONLY, app_with, fast_settings, free_port, serve

UA = "testbot/1.0 (+loopback)"
ROBOTS = b"""User-agent: *
Disallow: /private
Crawl-delay: 2.5

User-agent: otherbot
Disallow: /
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _robots_app(responses: list[tuple[int, bytes]], hits: list[str]) -> web.Application:
    """Serves robots.txt from ``responses`` in turn (the last one repeats)."""

    async def robots(request: web.Request) -> web.Response:
        hits.append(request.path)
        status, body = responses[min(len(hits) - 1, len(responses) - 1)]
        return web.Response(status=status, body=body, content_type="text/plain")

    return app_with({"/robots.txt": robots})


def test_origin_and_robots_url() -> None:
    assert origin_of("HTTP://Example.COM:80/a/b?c") == "http://example.com"
    assert origin_of("https://example.com:8443/x") == "https://example.com:8443"
    assert robots_url("https://example.com/a/b") == "https://example.com/robots.txt"
    assert robots_url("mailto:x@example.com") == ""


def test_robots_disallow_fetched_through_fetcher() -> None:
    hits: list[str] = []

    async def main() -> None:
        async with (
            serve(_robots_app([(200, ROBOTS)], hits)) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            cache = RobotsCache(UA)
            assert not cache.cached(base + "/")
            assert await cache.allowed(base + "/public/page", fetcher.fetch_robots)
            assert not await cache.allowed(base + "/private/page", fetcher.fetch_robots)
            assert await cache.allowed(base + "/robots.txt", fetcher.fetch_robots)
            assert cache.cached(base + "/anything")
            assert cache.crawl_delay(base + "/x") == 2.5
            assert cache.allowed_cached(base + "/private/x") is False
        assert hits == ["/robots.txt"]  # fetched once, then cached

    asyncio.run(main())


def test_user_agent_specific_group() -> None:
    async def main() -> None:
        async with (
            serve(_robots_app([(200, ROBOTS)], [])) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            other = RobotsCache("Mozilla/5.0 (compatible; otherbot/2.0)")
            assert not await other.allowed(base + "/public", fetcher.fetch_robots)
            assert other.crawl_delay(base + "/") is None

    asyncio.run(main())


def test_robots_5xx_disallows_then_retries_after_short_time() -> None:
    hits: list[str] = []
    clock = FakeClock()

    async def main() -> None:
        responses = [(503, b"down"), (200, ROBOTS)]
        async with (
            serve(_robots_app(responses, hits)) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            cache = RobotsCache(UA, clock=clock)
            assert not await cache.allowed(base + "/public", fetcher.fetch_robots)
            clock.now += 60  # still inside the short error lifetime: no new fetch
            assert not await cache.allowed(base + "/public", fetcher.fetch_robots)
            assert len(hits) == 1
            clock.now += 600
            assert not cache.cached(base + "/")
            assert await cache.allowed(base + "/public", fetcher.fetch_robots)
        assert len(hits) == 2

    asyncio.run(main())


def test_robots_404_allows_everything() -> None:
    async def main() -> None:
        async with (
            serve(_robots_app([(404, b"not found")], [])) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            cache = RobotsCache(UA)
            assert await cache.allowed(base + "/private", fetcher.fetch_robots)
            assert cache.crawl_delay(base + "/") is None

    asyncio.run(main())


def test_robots_unreachable_host_disallowed() -> None:
    async def main() -> None:
        async with Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher:
            cache = RobotsCache(UA)
            url = f"http://127.0.0.1:{free_port()}/page"
            assert not await cache.allowed(url, fetcher.fetch_robots)
            assert cache.cached(url)

    asyncio.run(main())


def test_robots_429_is_unreachable_not_missing() -> None:
    async def main() -> None:
        async with (
            serve(_robots_app([(429, b"")], [])) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            assert not await RobotsCache(UA).allowed(base + "/", fetcher.fetch_robots)

    asyncio.run(main())


def test_concurrent_calls_share_one_fetch() -> None:
    hits: list[str] = []

    async def slow_robots(request: web.Request) -> web.Response:
        hits.append(request.path)
        await asyncio.sleep(0.2)
        return web.Response(body=ROBOTS, content_type="text/plain")

    async def main() -> None:
        async with (
            serve(app_with({"/robots.txt": slow_robots})) as base,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            cache = RobotsCache(UA)
            urls = [f"{base}/private/{n}" if n % 2 else f"{base}/p/{n}" for n in range(20)]
            verdicts = await asyncio.gather(*(cache.allowed(u, fetcher.fetch_robots) for u in urls))
        assert verdicts == [n % 2 == 0 for n in range(20)]
        assert hits == ["/robots.txt"]

    asyncio.run(main())


def test_cancelled_caller_does_not_break_shared_fetch() -> None:
    async def main() -> None:
        started = asyncio.Event()

        async def fetch(url: str) -> tuple[int | None, bytes]:
            started.set()
            await asyncio.sleep(0.1)
            return 200, b"User-agent: *\nDisallow: /x\n"

        cache = RobotsCache(UA)
        first = asyncio.create_task(cache.allowed("http://example.com/a", fetch))
        await started.wait()
        second = asyncio.create_task(cache.allowed("http://example.com/x", fetch))
        await asyncio.sleep(0)
        first.cancel()
        assert await second is False
        assert first.cancelled()

    asyncio.run(main())


def test_lifetime_expiry_refetches() -> None:
    calls: list[str] = []
    clock = FakeClock()

    async def fetch(url: str) -> tuple[int | None, bytes]:
        calls.append(url)
        return 200, b"User-agent: *\nDisallow: /old\n" if len(calls) == 1 else b""

    async def main() -> None:
        cache = RobotsCache(UA, lifetime=100, clock=clock)
        assert not await cache.allowed("https://example.com/old", fetch)
        clock.now += 99
        assert not await cache.allowed("https://example.com/old", fetch)
        clock.now += 2
        assert await cache.allowed("https://example.com/old", fetch)

    asyncio.run(main())
    assert calls == ["https://example.com/robots.txt"] * 2


def test_lru_bound_evicts_least_recently_used_origin() -> None:
    calls: list[str] = []

    async def fetch(url: str) -> tuple[int | None, bytes]:
        calls.append(url)
        return 404, b""

    async def main() -> None:
        cache = RobotsCache(UA, max_hosts=2)
        for host in ("a.example", "b.example"):
            await cache.allowed(f"http://{host}/", fetch)
        await cache.allowed("http://a.example/again", fetch)  # a is now most recent
        await cache.allowed("http://c.example/", fetch)  # evicts b
        assert len(cache) == 2
        assert cache.cached("http://a.example/") and cache.cached("http://c.example/")
        assert not cache.cached("http://b.example/")

    asyncio.run(main())
    assert len(calls) == 3


def test_body_over_500kb_is_cut() -> None:
    body = b"User-agent: *\nDisallow: /early\n" + b"# padding\n" * 60_000 + b"Disallow: /late\n"
    assert len(body) > 500 * 1024

    async def fetch(url: str) -> tuple[int | None, bytes]:
        return 200, body

    async def main() -> None:
        cache = RobotsCache(UA)
        assert not await cache.allowed("http://example.com/early", fetch)
        assert await cache.allowed("http://example.com/late", fetch)

    asyncio.run(main())


def test_fetch_function_raising_counts_as_unreachable() -> None:
    async def fetch(url: str) -> tuple[int | None, bytes]:
        raise RuntimeError("boom")

    async def main() -> None:
        assert not await RobotsCache(UA).allowed("http://example.com/", fetch)

    asyncio.run(main())


def test_robots_redirect_to_another_host_is_followed() -> None:
    hits: list[str] = []

    async def main() -> None:
        async with serve(_robots_app([(200, ROBOTS)], hits)) as target:

            async def moved(request: web.Request) -> web.Response:
                raise web.HTTPMovedPermanently(target + "/robots.txt")

            async with (
                serve(app_with({"/robots.txt": moved})) as base,
                Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
            ):
                cache = RobotsCache(UA)
                assert not await cache.allowed(base + "/private/x", fetcher.fetch_robots)
                assert await cache.allowed(base + "/public", fetcher.fetch_robots)
        assert hits == ["/robots.txt"]

    asyncio.run(main())


def test_robots_endless_cross_host_redirects_read_as_unavailable() -> None:
    bases: dict[str, str] = {}
    hits: list[str] = []

    def bouncer(other: str) -> web.Application:
        async def bounce(request: web.Request) -> web.Response:
            hits.append(other)
            raise web.HTTPFound(bases[other] + "/robots.txt")  # always to the other server

        return app_with({"/robots.txt": bounce})

    async def main() -> None:
        async with (
            serve(bouncer("b")) as a,
            serve(bouncer("a")) as b,
            Fetcher(fast_settings(), allow_networks=LOOPBACK_ONLY) as fetcher,
        ):
            bases.update(a=a, b=b)
            status, _body = await fetcher.fetch_robots(a + "/robots.txt")
            assert status == 302
            assert len(hits) == 6  # the first request and five redirects, then it gives up
            assert await RobotsCache(UA).allowed(a + "/private", fetcher.fetch_robots)

    asyncio.run(main())


def test_robots_texts_are_kept_as_fetched_within_a_budget(monkeypatch) -> None:
    from crawler_gui.engine import robots as robots_module

    monkeypatch.setattr(robots_module, "TEXTS_BUDGET", 100)
    cache = RobotsCache("crawler-gui")
    bodies = {
        "http://a.example.com/robots.txt": (200, b"User-agent: *\nCrawl-delay: 4\n" + b"#" * 60),
        "http://b.example.com:8080/robots.txt": (200, b"User-agent: *\nDisallow: /x\n" + b"#" * 60),
    }

    async def fetch(url: str) -> tuple[int | None, bytes]:
        return bodies[url]

    async def main() -> None:
        await cache.allowed("http://a.example.com/p", fetch)
        kept = cache.text_of_host("a.example.com")
        assert kept is not None and kept.status == 200 and kept.crawl_delay == 4.0
        assert kept.text.startswith("User-agent: *") and not kept.unreachable
        await cache.allowed("http://b.example.com:8080/p", fetch)
        assert cache.text_of_host("b.example.com:8080") is not None
        assert cache.text_of_host("a.example.com") is None  # over the budget: the oldest goes
        assert cache.allowed_cached("http://a.example.com/p") is True  # its rules stay

    asyncio.run(main())
