"""What makes a stop long, for the tests of its bound: a site on several loopback hosts whose
pages never finish arriving (a fetch in flight until its total timeout) beside pages whose
extraction takes all the time it is allowed, and a crawl whose extraction is the test
extractor (``tests/engine/extract_faults.py``: a page with ``HANG`` in it never returns).

``python -m tests.stop_site ARGS...`` runs ``crawler-gui ARGS...`` with that extractor, each page
allowed :data:`TIME_LIMIT` seconds."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

#: Loopback hosts of the site (the crawl's politeness keeps one fetch in flight a host): the
#: first :data:`HANG_HOSTS` list pages whose extraction hangs, the others pages that never
#: finish arriving. A page waiting for room in the extraction queue holds a fetch slot: the
#: hanging pages are enough to fill the queue and a few slots, and leave the rest of the
#: slots to the trickling ones.
HOSTS = [f"127.0.0.{n}" for n in range(2, 10)]
HANG_HOSTS = 2
#: Pages each host lists.
HANGING, TRICKLING = 12, 20
#: The seconds an extraction may take in these crawls (the crawl's own: 20).
TIME_LIMIT = 4.0


def slow_extraction(
    function: str = "tests.engine.extract_faults:extract", time_limit: float = TIME_LIMIT
) -> dict[str, Any]:
    """Give ``ExtractPool`` (its keyword defaults) the test extractor and :data:`TIME_LIMIT`;
    returns the defaults they replace (``slow_extraction(**old)`` puts them back)."""
    from crawler_gui.engine.extract.pool import ExtractPool

    defaults = ExtractPool.__init__.__kwdefaults__
    assert defaults is not None
    old = {"function": defaults["function"], "time_limit": defaults["time_limit"]}
    defaults.update(function=function, time_limit=time_limit)
    return old


@dataclass
class StopSite:
    #: The home page of each host: the seeds.
    urls: list[str] = field(default_factory=list)
    #: Responses being trickled right now (fetches in flight until their timeout).
    trickling: int = 0


def _app(state: StopSite) -> web.Application:
    async def home(request: web.Request) -> web.Response:
        if request.url.host in HOSTS[:HANG_HOSTS]:
            links = [f'<a href="/hang/{i}.html">a</a>' for i in range(HANGING)]
        else:
            links = [f'<a href="/trickle/{i}.html">t</a>' for i in range(TRICKLING)]
        return web.Response(text="<html><body>" + " ".join(links), content_type="text/html")

    async def hang(request: web.Request) -> web.Response:
        body = "<html><title>HANG</title><body><p>HANG: its extraction never returns</p>"
        return web.Response(text=body, content_type="text/html")

    async def trickle(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/html"})
        await resp.prepare(request)
        state.trickling += 1
        try:
            while True:  # a byte a second: the fetch ends at its total timeout
                await resp.write(b" ")
                await asyncio.sleep(1)
        except ConnectionError:  # (the crawl gave up on it)
            return resp
        finally:
            state.trickling -= 1

    app = web.Application()
    app.router.add_get("/", home)
    app.router.add_get("/hang/{n}", hang)
    app.router.add_get("/trickle/{n}", trickle)
    return app


@contextmanager
def stop_site() -> Iterator[StopSite]:
    """The site served on :data:`HOSTS` from a thread of its own."""
    loop = asyncio.new_event_loop()
    state = StopSite()
    ready = threading.Event()
    runner = web.AppRunner(_app(state), shutdown_timeout=0.2, access_log=None)

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, HOSTS[0], 0)
        await site.start()
        port = runner.addresses[0][1]
        for host in HOSTS[1:]:
            await web.TCPSite(runner, host, port).start()
        state.urls.extend(f"http://{host}:{port}/" for host in HOSTS)

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10), "the site did not start"
    try:
        yield state
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


if __name__ == "__main__":
    slow_extraction()
    from crawler_gui.main import main

    sys.exit(main(sys.argv[1:]))
