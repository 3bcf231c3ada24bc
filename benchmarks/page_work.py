"""The crawl's own work per page, replayed part by part (issue 10).

``crawl.py`` measures a whole crawl against a bare aiohttp loop; on a shared virtual machine
its runs differ by 15 % and more, so a step of a few per cent in one part of the crawl is lost
in it. Here the demo site's pages (the ``crawl.py --mix`` link mix) are fetched once over
loopback, then each part of the work a crawl does per page runs over all of them alone, in
this thread, best of ``--rounds``:

* ``parse``  -- decode, parse and scope check (``engine.parsing.parse_page``, with the
  off-scope links kept for the fetch detail, as a crawl with a page store does);
* ``pool``   -- the pool's adds of each page's links in scope (``LevelDBPool.add_many_sync``
  into a fresh pool each round; a crawl skips the links it submitted lately first, so it adds
  fewer);
* ``store``  -- the page store's write of each page and its fetch detail (``PageStore``, a
  fresh store each round, written in this thread: the CPU its writer thread spends);
* ``seen``   -- the same adds into a pool that holds every link already, in its tables, opened
  afresh each round (its block cache cold): the seen-checks of a long crawl, whose links are
  mostly known, each a read of a table block (and of its checksum: issue 30).

Printed per part: CPU microseconds per page (the best round, the median, the spread).

    python benchmarks/page_work.py                       # 20 hosts x 100 articles, 5 rounds
    python benchmarks/page_work.py --rounds 9 --only parse
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
from common import demo_crawl_settings

PARTS = ("parse", "pool", "store", "seen")


async def fetch_pages(args: argparse.Namespace) -> tuple[list[tuple[str, str, bytes]], Any]:
    """The demo site's HTML pages (URL, content type, body), each fetched once."""
    from crawler_gui.demo.site import DemoSite

    site = DemoSite(
        args.hosts,
        args.articles,
        slow_share=0.0,
        seed=args.seed,
        aliases=args.aliases,
        dead_links=args.dead_links,
    )
    await site.start()
    pages: list[tuple[str, str, bytes]] = []
    try:
        connector = aiohttp.TCPConnector(limit=20)
        async with aiohttp.ClientSession(connector=connector) as session:
            for url in sorted(site.expected_urls()):
                for _attempt in range(5):  # (the site's deliberate 500s recover)
                    async with session.get(url) as resp:
                        body = await resp.read()
                        ctype = resp.headers.get("Content-Type", "")
                    if resp.status != 500:
                        break
                if resp.status == 200 and "html" in ctype:
                    pages.append((url, ctype, body))
        seeds = site.seed_urls()
    finally:
        await site.stop()
    return pages, seeds


def timed(
    rounds: int,
    work: Callable[[Any], None],
    setup: Callable[[int], Any] = lambda _round: None,
    teardown: Callable[[Any], None] = lambda _state: None,
) -> list[float]:
    """CPU seconds in this thread of ``work(setup(round))`` (the setup and ``teardown`` of
    each round's state untimed), ``rounds`` times."""
    out = []
    for n in range(rounds):
        state = setup(n)
        t0 = time.thread_time()
        work(state)
        out.append(time.thread_time() - t0)
        teardown(state)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--articles", type=int, default=100, help="articles per host")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--aliases", type=float, default=0.5)
    ap.add_argument("--dead-links", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", default=",".join(PARTS), help="e.g. parse,store")
    args = ap.parse_args()

    from crawler_gui.core.frontier import AddRequest
    from crawler_gui.core.leveldb import LevelDBPool
    from crawler_gui.engine.crawler import pool_config
    from crawler_gui.engine.fetch import FetchOutcome
    from crawler_gui.engine.parsing import parse_page
    from crawler_gui.engine.scope import Scope
    from crawler_gui.engine.store import PageRecord, PageStore, make_detail

    pages, seeds = asyncio.run(fetch_pages(args))
    n = len(pages)
    scope = Scope(seeds)
    outcomes = [
        FetchOutcome(url=url, final_url=url, content_type=ctype, body=body, status=200)
        for url, ctype, body in pages
    ]
    parsed = [parse_page(o, scope, True) for o in outcomes]
    links = sum(len(p[3]) for p in parsed)
    print(
        f"{n:,} pages of the demo site ({args.hosts} hosts x {args.articles} articles, link "
        f"mix), {sum(len(b) for _u, _c, b in pages) / n / 1024:.1f} KiB and {links / n:.1f} "
        f"links in scope a page on average; {args.rounds} rounds each",
        flush=True,
    )
    tmp = Path(tempfile.mkdtemp(prefix="page-work-"))
    config = pool_config(demo_crawl_settings(50))
    results: dict[str, list[float]] = {}
    only = args.only.split(",")
    try:
        if "parse" in only:

            def parse_all(_state: None) -> None:
                for o in outcomes:
                    parse_page(o, scope, True)

            results["parse"] = timed(args.rounds, parse_all)

        def add_all(pool: Any) -> None:
            for (url, _c, _b), page in zip(pages, parsed, strict=True):
                pool.add_many_sync([AddRequest(link, 1, url) for link in page[3]])

        if "pool" in only:
            results["pool"] = timed(
                args.rounds,
                add_all,
                lambda n: LevelDBPool.open(tmp / f"pool{n}", config),
                lambda pool: asyncio.run(pool.close()),
            )
        if "seen" in only:
            known = tmp / "known"
            pool = LevelDBPool.open(known, config)
            add_all(pool)
            asyncio.run(pool.close())
            LevelDBPool.open(known, config).close_sync()  # (its log becomes a table)

            results["seen"] = timed(
                args.rounds,
                add_all,
                lambda _n: LevelDBPool.open(known, config),
                lambda pool: asyncio.run(pool.close()),
            )
        if "store" in only:
            headers = [("User-Agent", "crawler-gui"), ("Accept", "text/html,*/*;q=0.8")]

            def store_all(store: Any) -> None:
                for (url, ctype, body), page in zip(pages, parsed, strict=True):
                    title, encoding, how, kept, others = page
                    seq = store.add(
                        PageRecord(
                            url=url,
                            final_url=url,
                            status=200,
                            fetched_at=time.time(),
                            content_type=ctype,
                            encoding=encoding,
                            title=title,
                            depth=1,
                            size=len(body),
                            elapsed=0.01,
                            referrer=None,
                            redirect_chain=(),
                            body=body,
                        )
                    )
                    detail = make_detail(
                        request_headers=headers,
                        response_headers=[("Content-Type", ctype), ("Content-Length", "1")],
                        decided_by=how,
                        links=[*((link, "queued", "") for link in kept), *others],
                    )
                    store.add_detail(seq, detail)
                store.flush_sync()

            results["store"] = timed(
                args.rounds,
                store_all,
                lambda n: PageStore.open(tmp / f"pages{n}"),
                lambda store: store.close(),
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{'part':<8} {'best us/page':>13} {'median':>8} {'spread':>7}")
    for part, seconds in results.items():
        best, median = min(seconds), statistics.median(seconds)
        spread = (max(seconds) - best) / best * 100
        print(f"{part:<8} {best / n * 1e6:>13.1f} {median / n * 1e6:>8.1f} {spread:>6.1f}%")


if __name__ == "__main__":
    main()
