"""The control channel's server, in the crawl: serves one crawl session on a Unix socket
(born 0600, each peer's uid checked), every client with a bounded send queue, so that a window
that does not read its replies is dropped, never waited for."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from crawler_gui.core.counters import Counters, counters_to_data
from crawler_gui.core.frontier import AddReport, FailedRow, Frontier, HubSpec, WaitingPage
from crawler_gui.engine.control.address import (
    POINTER_NAME,
    peer_uid,
    private_dir,
    remove_stale,
    socket_path,
)
from crawler_gui.engine.control.wire import (
    HELLO_TIMEOUT,
    PROTOCOL,
    VERSION,
    AttachLostError,
    ControlError,
    decode,
    encode,
    report_to_data,
    settings_from_data,
    settings_to_data,
    snapshot_to_data,
    stats_to_data,
    totals_to_data,
    with_own_proxy,
)
from crawler_gui.engine.robots import RobotsText
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.engine.stats import StatsSnapshot
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import ConfigError, CrawlerGuiError

log = logging.getLogger(__name__)

#: Messages queued for one client before it counts as unable to keep up and is dropped.
SEND_QUEUE = 32
#: Requests of one client handled at once; the next line is read when one finishes (the
#: client waits, not the crawl).
CLIENT_REQUESTS = 4
#: Longest request line (a long seed list fits).
LINE_LIMIT = 16 * 1024 * 1024
#: Seconds the crawl gives its clients at the end to read the "end" message.
END_FLUSH_SECONDS = 2.0


@runtime_checkable
@runtime_checkable
class RunControl(Protocol):
    """The run control a crawl offers: ``engine.crawler.Crawler``, and over the control
    channel :class:`AttachedCrawler` (what the window and the control server use)."""

    state_listeners: list[Callable[[CrawlState], None]]
    scope: Scope

    @property
    def state(self) -> CrawlState: ...

    def stats(self) -> StatsSnapshot: ...

    def start(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    async def stop(self, *, wait_in_flight: bool = True) -> None: ...

    async def add_seeds(self, urls: Iterable[str]) -> AddReport: ...

    async def hubs(self) -> list[HubSpec]: ...

    async def set_hubs(self, hubs: Sequence[HubSpec]) -> AddReport: ...

    def apply_settings(self, settings: CrawlSettings) -> None: ...

    # one host (the window's host detail; the control server's host ops)
    async def pause_host(self, host: str, paused: bool) -> None: ...

    async def set_host_delay(self, host: str, seconds: float | None) -> None: ...

    async def retry_failed_host(self, host: str) -> int: ...

    async def forget_host_waiting(self, host: str) -> int: ...

    async def host_waiting(self, host: str, page: int, page_size: int = 50) -> WaitingPage: ...

    async def host_failed(self, host: str, limit: int = 200) -> list[FailedRow]: ...

    async def host_robots(self, host: str) -> RobotsText | None: ...

    def pending_counters(self) -> Counters:
        """What the crawl counted and has not added to the pool yet (a live report)."""
        ...


@runtime_checkable
class ServedSession(Protocol):
    """What the server needs of a crawl session (``CrawlSession``)."""

    settings: CrawlSettings

    @property
    def frontier(self) -> Frontier: ...

    @property
    def crawler(self) -> RunControl: ...

    @property
    def store(self) -> PageStore | None: ...


class _Client:
    """One connected client: its bounded send queue and its writer task."""

    def __init__(self, server: ControlServer, writer: asyncio.StreamWriter, name: str) -> None:
        self.server = server
        self.writer = writer
        self.name = name
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(SEND_QUEUE)
        self.slots = asyncio.Semaphore(CLIENT_REQUESTS)
        self.dropped = False
        self.sender = asyncio.get_running_loop().create_task(self._send(), name="control send")

    def send(self, message: Mapping[str, Any]) -> None:
        """Queue one message; a client whose queue is full is dropped, never waited for."""
        if self.dropped:
            return
        try:
            self.queue.put_nowait(encode(message))
        except asyncio.QueueFull:
            log.warning("control client %s cannot keep up; dropped", self.name)
            self.server.dropped_clients += 1
            self.drop()

    def drop(self) -> None:
        if not self.dropped:
            self.dropped = True
            self.server.clients.discard(self)
            self.writer.transport.abort()
            self.sender.cancel()

    async def _send(self) -> None:
        try:
            while (data := await self.queue.get()) is not None:
                self.writer.write(data)
                await self.writer.drain()
        except (ConnectionError, OSError):
            self.drop()

    async def finish(self, timeout: float) -> None:
        """Send what is queued (for at most ``timeout`` s), then close."""
        if not self.dropped:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            done, _ = await asyncio.wait({self.sender}, timeout=timeout)
            if not done:
                self.drop()
        self.sender.cancel()
        await asyncio.gather(self.sender, return_exceptions=True)
        await _hang_up(self.writer)


async def _hang_up(writer: asyncio.StreamWriter) -> None:
    """Close a connection and wait (briefly) until it is closed: a transport left to close
    after its loop has gone is a leaked socket."""
    with contextlib.suppress(Exception):
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), 1.0)


class ControlServer:
    """Serves one crawl session on a Unix socket. ``await ControlServer.start(session,
    pool_dir)``; at the end, :meth:`ending` before the session closes (new requests are
    refused) and :meth:`close` after (tells the clients, removes the socket)."""

    def __init__(
        self,
        session: ServedSession,
        pool_dir: Path,
        path: Path,
        *,
        allowed_uid: int,
    ) -> None:
        self.session = session
        self.pool_dir = pool_dir
        self.path = path
        self.allowed_uid = allowed_uid
        self.clients: set[_Client] = set()
        self.dropped_clients = 0
        self._server: asyncio.AbstractServer | None = None
        self._handlers: set[asyncio.Task[Any]] = set()
        self._connections: set[asyncio.Task[Any]] = set()
        self._ending = False
        self._listening = False
        self._last_state: str | None = None

    @classmethod
    async def start(
        cls, session: ServedSession, pool_dir: str | Path, *, allowed_uid: int | None = None
    ) -> ControlServer:
        """Listen for clients of the crawl of ``pool_dir`` (which this process holds open: any
        socket found there is stale and replaced)."""
        root = Path(pool_dir).expanduser().absolute()
        path = socket_path(root)
        if path.parent != root:
            await asyncio.to_thread(private_dir, path.parent)
        remove_stale(root)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        self = cls(
            session,
            root,
            path,
            allowed_uid=os.geteuid() if allowed_uid is None else allowed_uid,
        )
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            # Born 0600: there is no moment when another user could connect. (The umask is the
            # process's: it is changed only around this one system call.)
            old_umask = os.umask(0o177)
            try:
                sock.bind(str(path))
            finally:
                os.umask(old_umask)
            os.chmod(path, 0o600)
            self._server = await asyncio.start_unix_server(
                self._accept, sock=sock, limit=LINE_LIMIT
            )
        except BaseException:
            sock.close()
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            raise
        if path.parent != root:
            pointer = root / POINTER_NAME
            tmp = pointer.with_suffix(".tmp")
            tmp.write_text(json.dumps({"socket": str(path)}), encoding="utf-8")
            os.replace(tmp, pointer)
        session.crawler.state_listeners.append(self._on_state)
        self._listening = True
        log.info("control channel of this crawl at %s", path)
        return self

    # -- events -----------------------------------------------------------------------------
    def _state(self) -> str:
        return str(CrawlState(self.session.crawler.state).value)

    def _broadcast(self, message: Mapping[str, Any]) -> None:
        for client in list(self.clients):
            client.send(message)

    def _on_state(self, state: CrawlState) -> None:
        self._announce_state()

    def _announce_state(self) -> None:
        state = self._state()
        if state != self._last_state:
            self._last_state = state
            self._broadcast({"event": "state", "state": state})

    # -- connections ------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        me = asyncio.current_task()
        if me is not None:
            self._connections.add(me)
            me.add_done_callback(self._connections.discard)
        sock = writer.get_extra_info("socket")
        try:
            uid = peer_uid(sock) if sock is not None else None
        except OSError:
            uid = None
        if uid != self.allowed_uid or self._ending:
            why = "refused: another user" if uid != self.allowed_uid else "the crawl is ending"
            log.warning("control connection %s (peer uid %s)", why, uid)
            with contextlib.suppress(ConnectionError, OSError):
                writer.write(encode({"protocol": PROTOCOL, "version": VERSION, "error": why}))
                await asyncio.wait_for(writer.drain(), 1.0)
            await _hang_up(writer)
            return
        name = f"uid {uid} #{id(writer) & 0xFFFF:x}"
        try:
            hello = decode(await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT))
        except (TimeoutError, ControlError, ValueError, ConnectionError, OSError):
            await _hang_up(writer)
            return
        if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
            with contextlib.suppress(ConnectionError, OSError):
                writer.write(
                    encode(
                        {
                            "protocol": PROTOCOL,
                            "version": VERSION,
                            "error": f"unsupported protocol {hello.get('protocol')!r} "
                            f"version {hello.get('version')!r} (this crawl speaks {VERSION})",
                        }
                    )
                )
                await asyncio.wait_for(writer.drain(), 1.0)
            await _hang_up(writer)
            return
        client = _Client(self, writer, name)
        self.clients.add(client)
        crawler = self.session.crawler
        client.send(
            {
                "protocol": PROTOCOL,
                "version": VERSION,
                "pool": str(self.pool_dir),
                "pid": os.getpid(),
                "state": self._state(),
                "settings": settings_to_data(self.session.settings),
                "stats": stats_to_data(crawler.stats()),
            }
        )
        log.info("control client %s attached", name)
        try:
            while not client.dropped:
                await client.slots.acquire()
                try:
                    line = await reader.readline()
                except (ValueError, ConnectionError, OSError):  # too long, or reset
                    break
                if not line:
                    break
                task = asyncio.get_running_loop().create_task(self._serve(client, line))
                self._handlers.add(task)
                task.add_done_callback(self._handlers.discard)
                task.add_done_callback(lambda _t: client.slots.release())
        finally:
            self.clients.discard(client)
            if not self._ending:
                client.drop()
                await asyncio.gather(client.sender, return_exceptions=True)
            # Closed and waited for, whatever happened: an aborted transport closes on a later
            # turn, and a client that leaves while the crawl ends is no longer among the
            # clients the end flushes.
            await _hang_up(writer)
            log.info("control client %s left", name)

    async def _serve(self, client: _Client, line: bytes) -> None:
        rid: Any = None
        try:
            request = decode(line)
            rid = request.get("id")
            op = str(request.get("op", ""))
            if self._ending:
                raise AttachLostError("the crawl is ending")
            handler = getattr(self, f"_op_{op}", None)
            if handler is None:
                raise ControlError(f"unknown operation {op!r}")
            result = await handler(request)
            reply: dict[str, Any] = {"id": rid, "result": result}
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            kind = (
                "ended"
                if isinstance(exc, AttachLostError)
                else "config"
                if isinstance(exc, ConfigError)
                else "crawler-gui"
                if isinstance(exc, CrawlerGuiError | OSError)
                else "request"
                if isinstance(exc, KeyError | TypeError | ValueError)
                else "internal"
            )
            if kind == "internal":
                log.exception("control request failed")
            elif kind == "request":
                log.warning("a control request was refused: %r", exc)
            reply = {"id": rid, "error": {"kind": kind, "message": str(exc)}}
        client.send(reply)
        self._announce_state()

    # -- operations (``docs/control.md``) ----------------------------------------------------
    async def _op_snapshot(self, req: Mapping[str, Any]) -> dict[str, Any]:
        since = req.get("since")
        snap = await self.session.frontier.snapshot(
            since=None if since is None else int(since),
            retry_limit=int(req.get("retry_limit", 1000)),
        )
        return {
            "snapshot": snapshot_to_data(snap),
            "stats": stats_to_data(self.session.crawler.stats()),
            "state": self._state(),
        }

    async def _op_stats(self, _req: Mapping[str, Any]) -> dict[str, Any]:
        crawler = self.session.crawler
        totals = totals_to_data(await self.session.frontier.totals())
        store = self.session.store
        if store is not None:
            totals["pages_stored"] = int(store.count())
        return {
            "totals": totals,
            "stats": stats_to_data(crawler.stats()),
            "state": self._state(),
            "clients": len(self.clients),
            "dropped_clients": self.dropped_clients,
        }

    async def _op_report(self, _req: Mapping[str, Any]) -> dict[str, Any]:
        """What a crawl report needs (``engine/report.py``): the pool's counters with those
        the crawl has not flushed yet, and the pool's totals."""
        counters = await self.session.frontier.counters()
        counters.merge(self.session.crawler.pending_counters())
        return {
            "counters": counters_to_data(counters),
            "totals": totals_to_data(await self.session.frontier.totals()),
            "state": self._state(),
        }

    async def _op_start(self, _req: Mapping[str, Any]) -> str:
        self.session.crawler.start()
        return self._state()

    async def _op_pause(self, _req: Mapping[str, Any]) -> str:
        self.session.crawler.pause()
        return self._state()

    async def _op_resume(self, _req: Mapping[str, Any]) -> str:
        self.session.crawler.resume()
        return self._state()

    async def _op_stop(self, req: Mapping[str, Any]) -> str:
        crawler = self.session.crawler
        if req.get("wait_in_flight", True):
            await crawler.stop()
        else:
            await crawler.stop(wait_in_flight=False)
        return self._state()

    async def _op_add_seeds(self, req: Mapping[str, Any]) -> dict[str, Any]:
        urls = [str(u) for u in req.get("urls", ())]
        return report_to_data(await self.session.crawler.add_seeds(urls))

    async def _op_hubs(self, _req: Mapping[str, Any]) -> list[list[Any]]:
        return [[h.url, h.span] for h in await self.session.crawler.hubs()]

    async def _op_set_hubs(self, req: Mapping[str, Any]) -> dict[str, Any]:
        hubs = [HubSpec(str(u), float(span)) for u, span in req.get("hubs", ())]
        return report_to_data(await self.session.crawler.set_hubs(hubs))

    async def _op_apply_settings(self, req: Mapping[str, Any]) -> bool:
        new = with_own_proxy(settings_from_data(req.get("settings") or {}), self.session.settings)
        self.session.crawler.apply_settings(new)
        self.session.settings = new
        self._broadcast({"event": "settings", "settings": settings_to_data(new)})
        log.info("settings applied from an attached window")
        return True

    async def _op_retry_now(self, req: Mapping[str, Any]) -> bool:
        return bool(await self.session.frontier.retry_now(str(req["url"])))

    async def _op_give_up(self, req: Mapping[str, Any]) -> bool:
        return bool(await self.session.frontier.give_up(str(req["url"])))

    async def _op_refresh_hub(self, req: Mapping[str, Any]) -> bool:
        return bool(await self.session.frontier.refresh_hub(str(req["url"])))

    # one host (the window's host detail)
    async def _op_pause_host(self, req: Mapping[str, Any]) -> bool:
        await self.session.crawler.pause_host(str(req["host"]), bool(req["paused"]))
        return True

    async def _op_set_host_delay(self, req: Mapping[str, Any]) -> bool:
        seconds = req.get("seconds")
        await self.session.crawler.set_host_delay(
            str(req["host"]), None if seconds is None else float(seconds)
        )
        return True

    async def _op_retry_failed_host(self, req: Mapping[str, Any]) -> int:
        return int(await self.session.crawler.retry_failed_host(str(req["host"])))

    async def _op_forget_host_waiting(self, req: Mapping[str, Any]) -> int:
        return int(await self.session.crawler.forget_host_waiting(str(req["host"])))

    async def _op_host_waiting(self, req: Mapping[str, Any]) -> dict[str, Any]:
        page = await self.session.crawler.host_waiting(
            str(req["host"]), int(req.get("page", 0)), int(req.get("page_size", 50))
        )
        return {"total": page.total, "rows": [list(r) for r in page.rows]}

    async def _op_host_failed(self, req: Mapping[str, Any]) -> list[list[Any]]:
        rows = await self.session.crawler.host_failed(str(req["host"]), int(req.get("limit", 200)))
        return [list(r) for r in rows]

    async def _op_host_robots(self, req: Mapping[str, Any]) -> list[Any] | None:
        kept = await self.session.crawler.host_robots(str(req["host"]))
        return None if kept is None else list(kept)

    async def _op_save_snapshot(self, req: Mapping[str, Any]) -> int:
        path = Path(str(req["path"]))
        if not path.is_absolute():
            raise ConfigError("the snapshot path must be absolute")
        # The crawl's scope travels with the pool, as in a snapshot saved by the crawl itself.
        scope = self.session.crawler.scope.seed_domains
        return int(await self.session.frontier.save_snapshot(path, scope=scope))

    # -- the end ----------------------------------------------------------------------------
    def ending(self) -> None:
        """The crawl is closing: refuse new connections and requests from now on."""
        self._ending = True

    async def close(self, final_state: CrawlState | str | None = None) -> None:
        """Tell every client the crawl ended (its pool is free now), close, remove the socket."""
        self._ending = True
        listeners = self.session.crawler.state_listeners
        if self._on_state in listeners:
            listeners.remove(self._on_state)
        server, self._server = self._server, None
        if server is not None:
            server.close()
        if final_state is None:
            final_state = self._state()
        self._broadcast({"event": "end", "state": str(CrawlState(final_state).value)})
        await asyncio.gather(
            *(c.finish(END_FLUSH_SECONDS) for c in list(self.clients)), return_exceptions=True
        )
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._connections:  # their connections are closed: they end at once
            _done, late = await asyncio.wait(set(self._connections), timeout=1.0)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        if self._listening:
            self._listening = False
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            if self.path.parent != self.pool_dir:
                with contextlib.suppress(FileNotFoundError):
                    (self.pool_dir / POINTER_NAME).unlink()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        log.info("control channel closed")
