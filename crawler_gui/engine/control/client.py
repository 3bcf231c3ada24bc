"""The control channel's client, in the window or ``crawler-gui stats``/``report``: one
connection to a crawl's channel (the server's uid checked), requests and events; and the
one-call reads of a pool in use (its stats, its report's data)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crawler_gui.core.counters import Counters, counters_from_data
from crawler_gui.core.frontier import PoolTotals
from crawler_gui.engine.control.address import find_socket, peer_uid, private_dir
from crawler_gui.engine.control.wire import (
    HELLO_TIMEOUT,
    PROTOCOL,
    VERSION,
    AttachLostError,
    ControlError,
    decode,
    encode,
    totals_from_data,
)
from crawler_gui.errors import ConfigError, PoolInUseError

log = logging.getLogger(__name__)

#: Longest reply line a client reads (a full snapshot of a pool with a million hosts fits).
REPLY_LIMIT = 512 * 1024 * 1024
#: Seconds a client waits for the channel of a pool in use (a crawl that is starting).
CONNECT_WAIT = 3.0


class ControlClient:
    """One connection to a crawl's control channel. ``await ControlClient.connect(pool_dir)``;
    requests with :meth:`call`; events go to ``on_event``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.hello: dict[str, Any] = {}
        self.on_event: Callable[[dict[str, Any]], None] | None = None
        self.on_lost: Callable[[], None] | None = None
        self._next_id = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._reader_task: asyncio.Task[None] | None = None
        self.lost = False

    @classmethod
    async def connect(cls, pool_dir: str | Path, *, wait: float = 0.0) -> ControlClient:
        """Connect to the crawl serving ``pool_dir``. Raises ControlError when there is none
        (no socket; refused), waiting up to ``wait`` seconds for one to come up."""
        root = Path(pool_dir).expanduser().absolute()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            path = find_socket(root)
            try:
                if path is None:
                    raise FileNotFoundError(errno.ENOENT, "no control socket", str(root))
                if path.parent != root:
                    private_dir(path.parent)
                reader, writer = await asyncio.open_unix_connection(str(path), limit=REPLY_LIMIT)
                break
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                if loop.time() >= deadline:
                    raise ControlError(
                        f"no crawl of {root} answers on a control channel ({exc.strerror})"
                    ) from exc
                await asyncio.sleep(0.1)
            except PermissionError as exc:
                raise ControlError(
                    f"not allowed to connect to the control channel of {root}: {exc.strerror}"
                ) from exc
        self = cls(reader, writer)
        try:
            sock = writer.get_extra_info("socket")
            uid = peer_uid(sock) if sock is not None else None
            if uid is not None and uid != os.geteuid():
                raise ControlError(f"the control socket of {root} belongs to another user")
            writer.write(encode({"protocol": PROTOCOL, "version": VERSION}))
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT)
            if not line:
                raise ControlError(f"the crawl of {root} closed the control channel")
            hello = decode(line)
            if "error" in hello:
                raise ControlError(f"the crawl of {root} refused: {hello['error']}")
            if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
                raise ControlError(
                    f"the crawl of {root} speaks another protocol version "
                    f"({hello.get('version')!r}; this program speaks {VERSION})"
                )
        except BaseException as exc:
            writer.close()
            if isinstance(exc, ConnectionError | OSError | TimeoutError):
                raise ControlError(f"the control channel of {root} failed: {exc}") from exc
            raise
        self.hello = hello
        self._reader_task = loop.create_task(self._read(), name="control read")
        return self

    async def _read(self) -> None:
        try:
            while line := await self.reader.readline():
                try:
                    msg = decode(line)
                except ControlError:
                    log.warning("ignored a malformed line from the crawl")
                    continue
                if "event" in msg:
                    if self.on_event is not None:
                        self.on_event(msg)
                    continue
                fut = self._waiting.pop(msg.get("id", -1), None)
                if fut is None or fut.done():
                    continue
                error = msg.get("error")
                if error is None:
                    fut.set_result(msg.get("result"))
                    continue
                kind, text = str(error.get("kind")), str(error.get("message"))
                fut.set_exception(
                    AttachLostError(text)
                    if kind == "ended"
                    else ConfigError(text)
                    if kind == "config"
                    else ControlError(text)
                )
        except (ConnectionError, OSError, ValueError):
            pass
        finally:
            self.lost = True
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(AttachLostError("the connection to the crawl is gone"))
            self._waiting.clear()
            if self.on_lost is not None:
                self.on_lost()

    async def call(self, op: str, **args: Any) -> Any:
        if self.lost:
            raise AttachLostError("the connection to the crawl is gone")
        self._next_id += 1
        rid = self._next_id
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            self.writer.write(encode({"id": rid, "op": op, **args}))
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            self._waiting.pop(rid, None)
            raise AttachLostError(f"the connection to the crawl is gone: {exc}") from exc
        try:
            return await fut
        finally:
            self._waiting.pop(rid, None)

    async def close(self) -> None:
        self.on_lost = None
        self.writer.close()
        if self._reader_task is not None:
            self._reader_task.cancel()
            await asyncio.gather(self._reader_task, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)


async def _call_live(pool_dir: Path, op: str, error: PoolInUseError) -> Any:
    """One ``op`` of the crawl that holds ``pool_dir``; ``error`` when no crawl answers."""
    try:
        client = await ControlClient.connect(pool_dir, wait=CONNECT_WAIT)
    except ControlError as exc:
        log.info("could not attach: %s", exc)
        raise error from exc
    try:
        return await client.call(op)
    finally:
        await client.close()


async def read_live_report(
    pool_dir: Path, error: PoolInUseError
) -> tuple[Counters, PoolTotals, str]:
    """A crawl report's data of a pool in use, from the crawl that holds it: its counters
    (with those not flushed yet), the pool's totals and the crawl's state; ``error`` is
    raised when no crawl answers."""
    data = await _call_live(pool_dir, "report", error)
    totals = totals_from_data(data["totals"])
    return counters_from_data(data["counters"]), totals, str(data["state"])


async def read_live_stats(pool_dir: Path, error: PoolInUseError) -> dict[str, Any]:
    """``stats`` of a pool in use: the totals from the crawl that holds it (plus its state and
    rates); ``error`` is raised when no crawl answers."""
    data = await _call_live(pool_dir, "stats", error)
    totals = dict(data["totals"])
    stats = data["stats"]
    totals["crawl"] = {
        "state": data["state"],
        "pages": stats["pages"],
        "errors": stats["errors"],
        "pages_per_s_10s": round(float(stats["pages_per_s_10s"]), 3),
        "pages_per_s_avg": round(float(stats["pages_per_s_avg"]), 3),
        "elapsed": round(float(stats["elapsed"]), 1),
        "attached_windows": max(0, int(data.get("clients", 1)) - 1),
    }
    totals["disk_use"] = dict(stats.get("disk_use", {}))
    return totals
