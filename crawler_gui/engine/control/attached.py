"""The window's session over a control client: :class:`AttachedSession`, with the same
``frontier`` / ``crawler`` / ``settings`` surface as a local ``CrawlSession``, so the window has
one code path for a crawl in this process and one running headless in another."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from crawler_gui.core.counters import Counters, counters_from_data
from crawler_gui.core.frontier import (
    AddReport,
    FailedRow,
    HubSpec,
    PoolSnapshot,
    PoolTotals,
    WaitingPage,
    WaitingRow,
)
from crawler_gui.engine.control.address import remove_stale
from crawler_gui.engine.control.client import CONNECT_WAIT, ControlClient
from crawler_gui.engine.control.wire import (
    AttachLostError,
    ControlError,
    report_from_data,
    settings_from_data,
    settings_to_data,
    snapshot_from_data,
    stats_from_data,
    totals_from_data,
)
from crawler_gui.engine.crawler import make_scope
from crawler_gui.engine.robots import RobotsText
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.engine.stats import StatsSnapshot
from crawler_gui.errors import ConfigError, PoolInUseError

log = logging.getLogger(__name__)


class AttachedFrontier:
    """The pool surface the window reads, over the control channel."""

    def __init__(self, session: AttachedSession) -> None:
        self._session = session
        self.last: PoolSnapshot | None = None

    async def snapshot(self, since: int | None = None, retry_limit: int = 1000) -> PoolSnapshot:
        s = self._session
        if s.ended is not None and self.last is not None:
            return self.last  # the crawl is gone: keep showing its last picture
        try:
            data = await s.client.call("snapshot", since=since, retry_limit=retry_limit)
        except AttachLostError:
            if self.last is None:
                raise
            return self.last
        snap = snapshot_from_data(data["snapshot"])
        s.crawler._update(stats_from_data(data["stats"]), str(data["state"]))
        self.last = snap
        return snap

    async def retry_now(self, url: str) -> bool:
        return bool(await self._session.client.call("retry_now", url=url))

    async def counters(self) -> Counters:
        """The crawl's counters, those it has not flushed to the pool yet included."""
        data = await self._session.client.call("report")
        return counters_from_data(data["counters"])

    async def totals(self) -> PoolTotals:
        """The pool's totals, as the crawl that holds it reads them."""
        data = await self._session.client.call("report")
        return totals_from_data(data["totals"])

    async def give_up(self, url: str) -> bool:
        return bool(await self._session.client.call("give_up", url=url))

    async def refresh_hub(self, url: str) -> bool:
        return bool(await self._session.client.call("refresh_hub", url=url))

    async def save_snapshot(self, path: str | Path, scope: Iterable[str] = ()) -> int:
        """Saved by the crawl, which adds its own scope (``scope`` is not sent)."""
        del scope
        return int(
            await self._session.client.call("save_snapshot", path=str(Path(path).absolute()))
        )

    async def load_snapshot(self, path: str | Path) -> int:
        raise ControlError(
            "a snapshot replaces the whole pool: stop the crawl, then open the pool to load it"
        )

    async def close(self) -> None:
        return None


class AttachedCrawler:
    """The run control the window uses, over the control channel. ``state`` and ``stats()``
    are the latest the crawl sent (with every snapshot, and at each change of state)."""

    def __init__(self, session: AttachedSession, state: str, stats: StatsSnapshot) -> None:
        self._session = session
        self._state = CrawlState(state)
        self._stats = stats
        #: The scope as the settings make it, without the crawl's seeds: those live in the
        #: crawling process, which adds them to the snapshots it saves for this window.
        self.scope = make_scope(session.settings)
        self.state_listeners: list[Callable[[CrawlState], None]] = []
        self._background: set[asyncio.Task[Any]] = set()

    @property
    def settings(self) -> CrawlSettings:
        return self._session.settings

    @property
    def state(self) -> CrawlState:
        return self._state

    def _set_state(self, state: CrawlState) -> None:
        if state is not self._state:
            self._state = state
            for listener in list(self.state_listeners):
                listener(state)

    def _update(self, stats: StatsSnapshot | None, state: str | None) -> None:
        if stats is not None:
            self._stats = stats
        if state is not None and self._session.ended is None:
            with contextlib.suppress(ValueError):
                self._set_state(CrawlState(state))

    def stats(self) -> StatsSnapshot:
        return self._stats

    def _spawn(self, op: str, **args: Any) -> None:
        self._check_live()

        async def call() -> None:
            try:
                await self._session.client.call(op, **args)
            except ControlError as exc:
                log.warning("%s did not reach the crawl: %s", op, exc)

        task = asyncio.get_running_loop().create_task(call(), name=f"control {op}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _check_live(self) -> None:
        if self._session.ended is not None:
            raise ControlError(
                "the crawl this window was attached to has ended: open the pool to start it"
            )

    def start(self) -> None:
        self._spawn("start")

    def pause(self) -> None:
        self._spawn("pause")

    def resume(self) -> None:
        self._spawn("resume")

    async def stop(self, *, wait_in_flight: bool = True) -> None:
        if self._session.ended is not None:
            return
        with contextlib.suppress(AttachLostError):  # the crawl ended: what stop wanted
            state = await self._session.client.call("stop", wait_in_flight=wait_in_flight)
            self._update(None, str(state))

    async def add_seeds(self, urls: Iterable[str]) -> AddReport:
        self._check_live()
        clean = [u.strip() for u in urls if u.strip()]
        return report_from_data(await self._session.client.call("add_seeds", urls=clean))

    async def hubs(self) -> list[HubSpec]:
        self._check_live()
        data = await self._session.client.call("hubs")
        return [HubSpec(str(u), float(span)) for u, span in data]

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport:
        self._check_live()
        data = await self._session.client.call("set_hubs", hubs=[[h.url, h.span] for h in hubs])
        return report_from_data(data)

    def apply_settings(self, settings: CrawlSettings) -> None:
        self._session.settings = settings
        self._spawn("apply_settings", settings=settings_to_data(settings))

    # one host: the same run-control API as ``engine.crawler.Crawler``'s
    async def pause_host(self, host: str, paused: bool) -> None:
        self._check_live()
        await self._session.client.call("pause_host", host=host, paused=paused)

    async def set_host_delay(self, host: str, seconds: float | None) -> None:
        self._check_live()
        await self._session.client.call("set_host_delay", host=host, seconds=seconds)

    async def retry_failed_host(self, host: str) -> int:
        self._check_live()
        return int(await self._session.client.call("retry_failed_host", host=host))

    async def forget_host_waiting(self, host: str) -> int:
        self._check_live()
        return int(await self._session.client.call("forget_host_waiting", host=host))

    async def host_waiting(self, host: str, page: int, page_size: int = 50) -> WaitingPage:
        self._check_live()
        data = await self._session.client.call(
            "host_waiting", host=host, page=page, page_size=page_size
        )
        return WaitingPage(int(data["total"]), tuple(WaitingRow(*r) for r in data["rows"]))

    async def host_failed(self, host: str, limit: int = 200) -> list[FailedRow]:
        self._check_live()
        data = await self._session.client.call("host_failed", host=host, limit=limit)
        return [FailedRow(*r) for r in data]

    async def host_robots(self, host: str) -> RobotsText | None:
        self._check_live()
        data = await self._session.client.call("host_robots", host=host)
        return None if data is None else RobotsText(*data)

    def pending_counters(self) -> Counters:
        """Nothing here: the crawl adds its own unflushed counts to what it reports
        (``AttachedFrontier.counters``)."""
        return Counters()

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)


class AttachedSession:
    """A window's session over a crawl running in another process (``crawler-gui crawl``):
    the same ``frontier`` / ``crawler`` / ``settings`` surface as a local ``CrawlSession``.
    Closing it only disconnects: the crawl keeps running.

    ``end_listeners`` hear once when the crawl ends (its final state) or the connection is
    lost (``None``)."""

    attached = True
    demo_site = None
    worker = None

    def __init__(self, pool_dir: Path, client: ControlClient) -> None:
        hello = client.hello
        self.pool_dir = pool_dir
        #: (a session's ``location``: for an attached crawl, always its pool directory)
        self.location: Path | str = pool_dir
        self.store_dir = pool_dir
        self.display_name = str(pool_dir)
        self.client = client
        self.settings = settings_from_data(hello.get("settings") or {})
        self.pid = int(hello.get("pid", 0))
        self.ended: str | None = None
        self.end_listeners: list[Callable[[str | None], None]] = []
        self.frontier = AttachedFrontier(self)
        self.crawler = AttachedCrawler(
            self, str(hello.get("state", "running")), stats_from_data(hello["stats"])
        )
        self._closed = False
        client.on_event = self._on_event
        client.on_lost = self._on_lost

    @classmethod
    async def attach(cls, pool_dir: str | Path, *, wait: float = 0.0) -> AttachedSession:
        root = Path(pool_dir).expanduser()
        client = await ControlClient.connect(root, wait=wait)
        try:
            session = cls(root, client)
        except (KeyError, ControlError, ConfigError, ValueError, TypeError) as exc:
            await client.close()
            raise ControlError(f"the crawl of {root} sent a malformed greeting: {exc}") from exc
        log.info("attached to the crawl of %s (process %d)", root, session.pid)
        return session

    def _on_event(self, msg: dict[str, Any]) -> None:
        event = msg.get("event")
        if event == "state":
            self.crawler._update(None, str(msg.get("state")))
        elif event == "settings":
            try:
                self.settings = settings_from_data(msg.get("settings") or {})
            except ConfigError as exc:
                log.warning("ignored settings from the crawl: %s", exc)
        elif event == "end":
            self._end(str(msg.get("state") or CrawlState.STOPPED.value))

    def _on_lost(self) -> None:
        if self.ended is None and not self._closed:
            log.warning("lost the connection to the crawl of %s", self.pool_dir)
            self._end(None)

    def _end(self, state: str | None) -> None:
        if self.ended is not None:
            return
        try:
            final = CrawlState(state) if state is not None else CrawlState.FAILED
        except ValueError:
            final = CrawlState.STOPPED
        self.crawler._set_state(final)
        self.ended = final.value if state is not None else "lost"
        for listener in list(self.end_listeners):
            listener(final.value if state is not None else None)

    async def close(self) -> None:
        """Disconnect; the crawl keeps running."""
        if self._closed:
            return
        self._closed = True
        await self.crawler.close()
        await self.client.close()


async def attach_or_raise(pool_dir: Path, error: PoolInUseError) -> AttachedSession:
    """Attach to the crawl that holds ``pool_dir``; when none answers, raise ``error`` (the
    pool is held by something that serves no channel: a window, or an older crawl)."""
    try:
        return await AttachedSession.attach(pool_dir, wait=CONNECT_WAIT)
    except ControlError as exc:
        log.info("could not attach: %s", exc)
        raise error from exc


async def open_or_attach(
    location: Path | str, settings: CrawlSettings, *, demo: bool = False
) -> Any:
    """A local session over ``location``, or, when a headless crawl holds that pool folder,
    a session attached to it. A stale control socket (its crawl was killed) is removed."""
    from crawler_gui.engine.session import CrawlSession

    try:
        session = await CrawlSession.open(location, settings, demo=demo)
    except PoolInUseError as exc:
        if not isinstance(location, Path):
            raise
        return await attach_or_raise(location, exc)
    if isinstance(location, Path):
        await asyncio.to_thread(remove_stale, location)
    return session
