"""Serving a demo site from memory on many loopback hosts at one port (aiohttp), and what the
demo sites share: stopping, and ``async with``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Self

from aiohttp import web


async def serve_on_hosts(
    handler: Callable[[web.BaseRequest], Awaitable[web.StreamResponse]],
    addresses: Sequence[str],
    port: int,
) -> tuple[web.ServerRunner, int]:
    """Serve ``handler`` on one TCP site per address, all on one port; return the runner (to
    clean up) and the port.

    With ``port`` 0 the OS picks a free port for the first address and the others take the
    same number; when one of them has it taken already, every site is stopped and a new port
    is tried (20 times at most). A port that was asked for is not retried."""
    server = web.Server(handler, access_log=None)
    runner = web.ServerRunner(server, shutdown_timeout=1.0)
    await runner.setup()
    try:
        attempts = 0
        while True:
            sites: list[web.TCPSite] = []
            try:
                first = web.TCPSite(runner, addresses[0], port)
                await first.start()
                sites.append(first)
                bound = int(runner.addresses[0][1])
                for address in addresses[1:]:
                    site = web.TCPSite(runner, address, bound)
                    await site.start()
                    sites.append(site)
                return runner, bound
            except OSError:
                for site in sites:
                    await site.stop()
                attempts += 1
                if port or attempts == 20:
                    raise
    except BaseException:
        await runner.cleanup()
        raise


class ServedSite:
    """What the demo sites share: stopping, and ``async with`` (``start`` is their own)."""

    _runner: web.ServerRunner | None = None

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()
