"""Change notices between the workers of a shared pool, for one run of the crawler: this
worker announces its changes, and a dispatcher of its waiting for work looks at the pool again
as soon as another worker announces one (not at its next poll)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from crawler_gui.core.frontier import ChangeNotices

log = logging.getLogger(__name__)

#: A worker waiting for work looks at the pool at most this often when other workers announce
#: changes (``SharedFrontier.change_notices``): bounds its round trips while the others crawl.
REMOTE_WAKE_SECONDS = 0.05


class WorkerNotices:
    """This worker's end of a shared pool's change notices
    (:class:`~crawler_gui.core.frontier.ChangeNotices`; none on a pool of one process: then
    everything here does nothing). ``waiting()`` says whether the dispatcher waits for work
    with nothing in flight (only another worker's change can bring it); ``wake()`` makes it
    look at the pool again."""

    def __init__(
        self,
        signal: ChangeNotices | None,
        *,
        waiting: Callable[[], bool],
        wake: Callable[[], None],
        poll_seconds: float,
    ) -> None:
        self.signal = signal
        self._waiting = waiting
        self._wake = wake
        self._poll_seconds = poll_seconds  # (what a worker that cannot hear falls back on)
        self._live = False  # started for the current run
        self._remote_wake: asyncio.TimerHandle | None = None
        self._last_remote_wake = 0.0

    async def start(self) -> None:
        if self.signal is None or self._live:
            return
        try:
            await self.signal.start(self._pool_changed)
        except Exception as exc:
            log.warning(
                "cannot hear the other workers' change notices (%s); looking at the pool "
                "every %.0f s instead",
                exc,
                self._poll_seconds,
            )
            return
        self._live = True

    async def stop(self) -> None:
        if self._remote_wake is not None:
            self._remote_wake.cancel()
            self._remote_wake = None
        if self.signal is None or not self._live:
            return
        self._live = False
        try:
            await self.signal.close()
        except Exception:
            log.warning("closing the change notices failed", exc_info=True)

    def notify(self) -> None:
        """This worker changed the pool: tell the others (who may be waiting for work)."""
        if self._live and self.signal is not None:
            self.signal.notify()

    def _pool_changed(self) -> None:
        """Another worker changed the pool: a dispatcher waiting for work, with no fetch in
        flight, looks again (at most every REMOTE_WAKE_SECONDS)."""
        if not self._waiting() or self._remote_wake is not None:
            return
        loop = asyncio.get_running_loop()
        delay = self._last_remote_wake + REMOTE_WAKE_SECONDS - loop.time()
        if delay <= 0:
            self._wake_for_remote()
        else:
            self._remote_wake = loop.call_later(delay, self._wake_for_remote)

    def _wake_for_remote(self) -> None:
        self._remote_wake = None
        self._last_remote_wake = asyncio.get_running_loop().time()
        self._wake()
