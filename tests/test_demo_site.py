"""The demo news site, served for real on loopback and read with aiohttp."""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import urljoin, urlsplit

import aiohttp
import pytest

from crawler_gui.core.urls import canonicalize
from crawler_gui.demo.site import DemoSite

T = TypeVar("T")
HREF = re.compile(r"""<a\s[^>]*href="([^"]*)\"""", re.IGNORECASE)
TITLE = re.compile(rb"<title>(.*?)</title>", re.DOTALL)


def run_with_site(
    body: Callable[[DemoSite, aiohttp.ClientSession], Awaitable[T]], **kw: float
) -> T:
    """Start a 5-host site on loopback, run ``body`` with a client session, stop the site."""

    async def main() -> T:
        kw.setdefault("slow_share", 0.0)
        site = DemoSite(5, 40, **kw)  # type: ignore[arg-type]
        async with site, aiohttp.ClientSession() as session:
            return await body(site, session)

    return asyncio.run(main())


async def get(
    session: aiohttp.ClientSession, url: str
) -> tuple[int, bytes, str | None, str | None]:
    async with session.get(url, allow_redirects=False) as resp:
        return (
            resp.status,
            await resp.read(),
            resp.headers.get("Content-Type"),
            resp.headers.get("Location"),
        )


def test_serves_every_host_on_its_own_loopback_address() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        assert site.port > 0
        assert site.hosts == [f"127.0.0.{i}:{site.port}" for i in range(1, 6)]
        assert site.seed_urls() == [f"http://{h}/" for h in site.hosts]
        titles = set()
        for url in site.seed_urls():
            status, page, _ct, _loc = await get(session, url)
            assert status == 200
            m = TITLE.search(page)
            assert m is not None
            titles.add(m.group(1))
        assert len(titles) == 5  # each host is its own site
        assert site.requests_by_host == dict.fromkeys(site.hosts, 1)
        assert site.total_requests == 5

    run_with_site(body)


def test_content_is_deterministic_and_realistic() -> None:
    async def fetch_all(site: DemoSite, session: aiohttp.ClientSession) -> dict[str, bytes]:
        out = {}
        for url in sorted(site.expected_urls()):
            if url in site.recovering_urls():
                continue
            status, page, _ct, _loc = await get(session, url)
            assert status == 200, url
            # Compare without the port (two runs get two ports).
            out[f"{urlsplit(url).hostname}{urlsplit(url).path}"] = page.replace(
                str(site.port).encode(), b"PORT"
            )
        return out

    # The same clock for both (the site dates its articles from the minute it started: two
    # sites started on either side of a minute's turn would differ by that alone).
    now = time.time()
    first = run_with_site(fetch_all, now=now)
    second = run_with_site(fetch_all, now=now)
    assert first == second
    articles = [p for k, p in first.items() if ".html" in k]
    assert len(articles) > 150
    sizes = sorted(len(p) for p in articles)
    assert sizes[0] >= 5_000
    assert sizes[-1] <= 31_000
    assert sum(sizes) / len(sizes) > 10_000


def test_gbk_hosts_are_labelled_only_in_meta() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        gbk = site.gbk_hosts()
        assert len(gbk) == 1
        for host in site.hosts:
            status, page, ct, _loc = await get(session, f"http://{host}/")
            assert status == 200
            if host in gbk:
                assert ct == "text/html"  # no charset in the header
                assert b'<meta charset="gbk">' in page
                with pytest.raises(UnicodeDecodeError):
                    page.decode("utf-8")
                text = page.decode("gbk")
                assert "日报" in text
            else:
                assert ct == "text/html; charset=utf-8"
                assert b'<meta charset="utf-8">' in page
                text = page.decode("utf-8")
                assert re.search(r"[\u4e00-\u9fff]", text)
                assert re.search(r"[A-Za-z]{4,}", text)

    run_with_site(body)


def test_500s_recover_per_url() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        recovering = site.recovering_urls()
        assert recovering
        for url, failures in recovering.items():
            statuses = [(await get(session, url))[0] for _ in range(failures + 2)]
            assert statuses == [500] * failures + [200, 200], url
        # An article that does not fail answers 200 the first time.
        ok = sorted(site.expected_urls() - set(recovering))
        assert (await get(session, next(u for u in ok if u.endswith(".html"))))[0] == 200

    run_with_site(body)


def test_redirects_301_same_host_and_302_cross_host() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        redirects = site.redirects()
        kinds = {status for status, _t in redirects.values()}
        assert kinds == {301, 302}
        for url, (status, target) in redirects.items():
            got, _page, _ct, location = await get(session, url)
            assert got == status
            assert location is not None
            resolved = urljoin(url, location)
            assert canonicalize(resolved)[0] == target
            assert target in site.expected_urls()
            if status == 301:
                assert urlsplit(target).netloc == urlsplit(url).netloc
                assert location.startswith("/")  # relative Location
            else:
                assert urlsplit(target).netloc != urlsplit(url).netloc
        # aiohttp following the redirect lands on the article.
        url = next(u for u, (s, _t) in redirects.items() if s == 301)
        async with session.get(url) as resp:
            assert resp.status in (200, 500)
            assert str(resp.url) == redirects[url][1]

    run_with_site(body)


def test_dead_links_answer_404() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        dead = site.dead_urls()
        assert dead
        assert not dead & site.expected_urls()
        for url in dead:
            assert (await get(session, url))[0] == 404
        assert (await get(session, f"http://{site.hosts[0]}/no/such/page"))[0] == 404

    run_with_site(body)


def test_a_link_mix_adds_aliases_and_dead_links_and_leaves_the_rest() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        plain = DemoSite(5, 40, port=site.port, slow_share=0.0)
        aliases = {u: t for u, t in site.redirects().items() if "/r/" in u}
        gone = {u for u in site.dead_urls() if "/gone/" in u}
        articles = 5 * 40
        # About one of each per article (the mean asked for), and nothing else changed.
        assert 0.8 * articles < len(aliases) < 1.2 * articles
        assert 0.3 * articles < len(gone) < 0.7 * articles
        assert site.expected_urls() == plain.expected_urls()
        assert set(site.redirects()) - set(aliases) == set(plain.redirects())
        linked: set[str] = set()
        for url in sorted(site.expected_urls())[:60]:
            _status, page, _ct, _loc = await get(session, url)
            linked.update(
                urljoin(url, h) for h in re.findall(r'href="([^"]+)"', page.decode("latin-1"))
            )
        assert linked & set(aliases) and linked & gone
        for url in sorted(aliases)[:20]:
            status, _page, _ct, location = await get(session, url)
            assert status == 301 and location is not None
            assert canonicalize(urljoin(url, location))[0] == aliases[url][1]
        for url in sorted(gone)[:20]:
            assert (await get(session, url))[0] == 404

    run_with_site(body, aliases=1.0, dead_links=0.5)


def test_tracking_and_fragment_duplicates_are_linked_and_serve_the_same_page() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        tracking: set[str] = set()
        fragments: set[str] = set()
        for hub in site.hub_urls():
            _s, page, _ct, _loc = await get(session, hub)
            for href in HREF.findall(page.decode("gbk" if b'"gbk"' in page else "utf-8")):
                absolute = urljoin(hub, html.unescape(href))
                if "utm_source=hub" in absolute:
                    tracking.add(absolute)
                if "#comments" in absolute:
                    fragments.add(absolute)
        assert tracking and fragments
        for url in sorted(tracking)[:5]:
            assert "utm_medium=x" in url
            plain = canonicalize(url)[0]
            assert plain in site.expected_urls()
            if plain in site.recovering_urls():
                continue
            a = await get(session, url)
            b = await get(session, plain)
            assert a[0] == b[0] == 200
            assert a[1] == b[1]
        for url in fragments:
            assert canonicalize(url)[0] in site.expected_urls()
        # fetch_counts ignores the query: both fetches above count on the plain URL.
        some = canonicalize(sorted(tracking)[0])[0]
        if some not in site.recovering_urls():
            assert site.fetch_counts[some] == 2

    run_with_site(body)


def test_robots_txt() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        disallowing = site.robots_disallow_hosts()
        assert 1 <= len(disallowing) < len(site.hosts)
        for host in site.hosts:
            status, text, ct, _loc = await get(session, f"http://{host}/robots.txt")
            assert status == 200
            assert ct is not None and ct.startswith("text/plain")
            assert b"User-agent: *" in text
            assert b"Crawl-delay" not in text
            assert (b"Disallow: /private/" in text) == (host in disallowing)
        private = site.private_urls()
        assert {urlsplit(u).netloc for u in private} == set(disallowing)
        # The private page is linked from its host's home page.
        for url in private:
            _s, home, _ct, _loc = await get(session, f"http://{urlsplit(url).netloc}/")
            assert urlsplit(url).path.encode() in home

    run_with_site(body)


def test_concurrency_counter_tracks_peak_open_requests_per_host() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        one, two = site.hosts[0], site.hosts[1]
        # Sequential requests to host one: never more than one open.
        for _ in range(3):
            await get(session, f"http://{one}/")
        # Four at once to host two (latency keeps them open together).
        await asyncio.gather(*(get(session, f"http://{two}/robots.txt") for _ in range(4)))
        assert site.max_concurrent_by_host[one] == 1
        assert site.max_concurrent_by_host[two] == 4
        assert site.max_concurrent_by_host[site.hosts[2]] == 0
        assert site.requests_by_host[one] == 3
        assert site.requests_by_host[two] == 4
        assert site.fetch_counts[f"http://{two}/robots.txt"] == 4

    run_with_site(body, latency=0.2)


def test_host_falls_back_to_local_address_without_host_header() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        host, port = site.hosts[2].split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET /robots.txt HTTP/1.0\r\n\r\n")
        await writer.drain()
        data = await reader.read()
        writer.close()
        await writer.wait_closed()
        assert data.startswith(b"HTTP/1.")
        assert site.requests_by_host[site.hosts[2]] == 1

    run_with_site(body)


def test_slow_articles_and_latency() -> None:
    async def body(site: DemoSite, session: aiohttp.ClientSession) -> tuple[float, float]:
        slow = sorted(site.slow_urls() - set(site.recovering_urls()))
        assert slow
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        assert (await get(session, slow[0]))[0] == 200
        slow_time = loop.time() - t0
        t0 = loop.time()
        assert (await get(session, f"http://{site.hosts[0]}/"))[0] == 200
        return slow_time, loop.time() - t0

    slow_time, fast_time = run_with_site(body, slow_share=0.2, slow_delay=0.3, latency=0.05)
    assert slow_time >= 0.34
    assert 0.05 <= fast_time < 0.3


def test_expected_urls_equal_bfs_over_the_link_graph() -> None:
    """BFS from the seeds and hubs over the served pages, with robots.txt, redirects and
    retried 500s, reaches exactly ``expected_urls()`` (and the 404s are ``dead_urls()``)."""

    async def body(site: DemoSite, session: aiohttp.ClientSession) -> tuple[set[str], ...]:
        hosts = set(site.hosts)
        disallow: dict[str, list[str]] = {}
        for host in hosts:
            _s, text, _ct, _loc = await get(session, f"http://{host}/robots.txt")
            disallow[host] = [
                line.split(":", 1)[1].strip()
                for line in text.decode().splitlines()
                if line.lower().startswith("disallow:") and line.split(":", 1)[1].strip()
            ]
        ok: set[str] = set()
        dead: set[str] = set()
        blocked: set[str] = set()
        seen: set[str] = set()
        queue: asyncio.Queue[str] = asyncio.Queue()

        def enqueue(raw: str) -> None:
            url, host = canonicalize(raw)
            if host not in hosts or url in seen:
                return
            seen.add(url)
            if any(urlsplit(url).path.startswith(p) for p in disallow[host]):
                blocked.add(url)
                return
            queue.put_nowait(url)

        for url in site.seed_urls() + site.hub_urls():
            enqueue(url)

        async def worker() -> None:
            while True:
                url = await queue.get()
                try:
                    for _attempt in range(4):
                        status, page, ct, location = await get(session, url)
                        if status != 500:
                            break
                    if status == 200:
                        ok.add(url)
                        assert ct is not None
                        m = re.search(rb'<meta charset="([^"]+)"', page)
                        text = page.decode(m.group(1).decode() if m else "utf-8")
                        for href in HREF.findall(text):
                            enqueue(urljoin(url, html.unescape(href)))
                    elif status in (301, 302):
                        assert location is not None
                        enqueue(urljoin(url, location))
                    elif status == 404:
                        dead.add(url)
                    else:
                        raise AssertionError(f"{url}: unexpected status {status}")
                finally:
                    queue.task_done()

        workers = [asyncio.create_task(worker()) for _ in range(16)]
        await queue.join()
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        assert not any(w.exception() for w in workers if not w.cancelled())
        for url in site.private_urls():
            assert site.fetch_counts[url] == 0
        return ok, dead, blocked, site.expected_urls(), site.dead_urls(), site.private_urls()

    ok, dead, blocked, expected, site_dead, site_private = run_with_site(body)
    assert ok == expected
    assert len(expected) > 200
    assert dead == site_dead
    assert blocked == site_private


def test_bfs_dead_and_blocked_sets() -> None:
    """The 404s reached are exactly ``dead_urls()``; the robots-blocked ones ``private_urls()``,
    which the server would have answered (so a crawler fetching them is caught)."""

    async def body(site: DemoSite, session: aiohttp.ClientSession) -> None:
        pages = [site.seed_urls(), site.hub_urls()]
        linked: set[str] = set()
        for urls in pages:
            for url in urls:
                _s, page, _ct, _loc = await get(session, url)
                m = re.search(rb'<meta charset="([^"]+)"', page)
                text = page.decode(m.group(1).decode() if m else "utf-8")
                linked.update(
                    canonicalize(urljoin(url, html.unescape(h)))[0] for h in HREF.findall(text)
                )
        for url in site.expected_urls():
            if url.endswith(".html"):
                for _ in range(3):
                    status, page, _ct, _loc = await get(session, url)
                    if status != 500:
                        break
                m = re.search(rb'<meta charset="([^"]+)"', page)
                text = page.decode(m.group(1).decode() if m else "utf-8")
                linked.update(
                    canonicalize(urljoin(url, html.unescape(h)))[0] for h in HREF.findall(text)
                )
        assert site.dead_urls() <= linked
        assert site.private_urls() <= linked
        for url in site.private_urls():
            assert (await get(session, url))[0] == 200
        for url in site.dead_urls():
            assert (await get(session, url))[0] == 404
        # Everything linked is expected, dead, private, or a redirect.
        assert linked <= (
            site.expected_urls() | site.dead_urls() | site.private_urls() | set(site.redirects())
        )

    run_with_site(body)


def test_invalid_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        DemoSite(0)
    with pytest.raises(ValueError):
        DemoSite(300)
    with pytest.raises(ValueError):
        DemoSite(3, base="10.0.0.")
    with pytest.raises(RuntimeError):
        DemoSite(3).seed_urls()  # no port before start()


def test_module_entry_point_serves_until_signalled() -> None:
    """``python -m crawler_gui.demo`` serves the site and stops cleanly on SIGINT/SIGTERM."""
    import signal
    import subprocess
    import sys

    for sig in (signal.SIGINT, signal.SIGTERM):
        proc = subprocess.Popen(
            [sys.executable, "-m", "crawler_gui.demo", "--hosts", "3", "--port", "0"],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stderr is not None
            port = None
            for line in proc.stderr:
                m = re.search(r"serving 3 hosts on port (\d+)", line)
                if m:
                    port = int(m.group(1))
                    break
            assert port

            async def fetch(p: int = port) -> int:
                async with aiohttp.ClientSession() as session:
                    return (await get(session, f"http://127.0.0.3:{p}/"))[0]

            assert asyncio.run(fetch()) == 200
            proc.send_signal(sig)
            rest = proc.stderr.read()
            assert proc.wait(timeout=30) == 0
            assert "Traceback" not in rest
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()
