"""The local control channel of a headless crawl: watch and steer ``crawler-gui crawl`` from
the window (``crawler-gui POOL``) or ``crawler-gui stats POOL`` while it runs.

A LevelDB pool can be open in one process only, so a second process cannot read it while a
crawl runs. Instead the crawl serves its pool and run control on a Unix domain socket
(:class:`ControlServer`), and the window talks to it through :class:`AttachedSession`, which
offers the same surface as a local :class:`~crawler_gui.engine.session.CrawlSession`
(``frontier.snapshot``, ``crawler.stats``, pause/resume/stop, seeds, hubs, settings, snapshot
save): the window has one code path for both.

Safety:

* the socket lives in the pool folder (``control.sock``), or, when that path is too long for
  ``sun_path`` (about 100 bytes), in a private runtime folder (``$XDG_RUNTIME_DIR`` or the temp
  folder, ``crawler-gui-<uid>/``, mode 0700) with a pointer file ``control.json`` in the pool
  folder;
* the socket is created with mode 0600 and the server checks each peer's uid with
  ``SO_PEERCRED`` (the client checks the server's the same way); there is no network listener;
* the protocol is JSON lines of plain data (``docs/control.md``): nothing is ever unpickled;
* every client has a bounded send queue: a client that does not read its replies is dropped,
  never waited for, so a frozen window cannot slow the crawl.

A socket left behind by a killed crawl is stale: whoever opens the pool itself (the next
crawl, a window, ``stats``) holds the pool's lock, knows no crawl serves it, and removes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import logging
import os
import socket
import struct
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from crawler_gui.core.counters import Counters, counters_from_data, counters_to_data
from crawler_gui.core.frontier import (
    AddReport,
    FailedRow,
    Frontier,
    HostRow,
    HubRow,
    HubSpec,
    PendingRow,
    PoolSnapshot,
    PoolTotals,
    RetryRow,
    WaitingPage,
    WaitingRow,
)
from crawler_gui.engine.crawler import make_scope
from crawler_gui.engine.robots import RobotsText
from crawler_gui.engine.scope import Scope
from crawler_gui.engine.settings import CrawlMode, CrawlSettings, CrawlState
from crawler_gui.engine.stats import StatsSnapshot
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import ConfigError, CrawlerGuiError, PoolInUseError

log = logging.getLogger(__name__)

PROTOCOL = "crawler-gui-control"
#: The protocol version; a server answers a client of another version with an error line.
VERSION = 1
SOCKET_NAME = "control.sock"
POINTER_NAME = "control.json"
#: Longest socket path used in the pool folder (``sun_path`` is 108 bytes on Linux, 104 on
#: the BSDs, with the final NUL): longer ones go to the runtime folder.
MAX_SOCKET_PATH = 100
#: Messages queued for one client before it counts as unable to keep up and is dropped.
SEND_QUEUE = 32
#: Requests of one client handled at once; the next line is read when one finishes (the
#: client waits, not the crawl).
CLIENT_REQUESTS = 4
#: Longest request line (a long seed list fits).
LINE_LIMIT = 16 * 1024 * 1024
#: Longest reply line a client reads (a full snapshot of a pool with a million hosts fits).
REPLY_LIMIT = 512 * 1024 * 1024
#: Seconds the crawl gives its clients at the end to read the "end" message.
END_FLUSH_SECONDS = 2.0
#: Seconds a client waits for the channel of a pool in use (a crawl that is starting).
CONNECT_WAIT = 3.0
#: Seconds a client waits for the hello of the server.
HELLO_TIMEOUT = 10.0


class ControlError(CrawlerGuiError):
    """The control channel of a running crawl failed (refused, lost, bad reply)."""


class AttachLostError(ControlError):
    """The connection to the crawl is gone (the crawl ended, was killed, or dropped us)."""


# ---- where the socket is ----------------------------------------------------------------------
def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or ""
    root = Path(base) if base and Path(base).is_dir() else Path(tempfile.gettempdir())
    return root / f"crawler-gui-{os.geteuid()}"


def _private_dir(path: Path) -> Path:
    """The runtime folder: created 0700, and refused unless it is ours and private."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=True)
    st = path.lstat()
    if not path.is_dir() or path.is_symlink() or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise ControlError(f"{path} is not a private folder of this user; not using it")
    return path


def socket_path(pool_dir: Path) -> Path:
    """Where the crawl of ``pool_dir`` puts its socket: in the pool folder when the path is
    short enough, else in the runtime folder (named by a hash of the pool's path)."""
    root = pool_dir.expanduser().absolute()
    here = root / SOCKET_NAME
    if len(os.fsencode(here)) <= MAX_SOCKET_PATH:
        return here
    return _runtime_dir() / _runtime_name(root)


def _runtime_name(root: Path) -> str:
    return hashlib.sha256(os.fsencode(root)).hexdigest()[:24] + ".sock"


def find_socket(pool_dir: Path) -> Path | None:
    """The socket a crawl of ``pool_dir`` announced (in the folder, or through the pointer
    file), or None."""
    root = pool_dir.expanduser().absolute()
    here = root / SOCKET_NAME
    if here.is_socket():
        return here
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        data = json.loads((root / POINTER_NAME).read_text(encoding="utf-8"))
        there = Path(str(data["socket"]))
        # Only a socket named for this pool in a runtime folder of this user (the crawl may
        # have had another $XDG_RUNTIME_DIR): a pointer never leads anywhere else.
        if (
            there.is_absolute()
            and there.name == _runtime_name(root)
            and there.parent.name == f"crawler-gui-{os.geteuid()}"
            and there.is_socket()
        ):
            return there
    return None


def remove_stale(pool_dir: Path) -> bool:
    """Remove the socket (and pointer) of a crawl that no longer runs. Call it only while
    holding the pool open: then no crawl can be serving it. True when something was removed."""
    root = pool_dir.expanduser().absolute()
    removed = False
    for candidate in (find_socket(root), root / SOCKET_NAME, root / POINTER_NAME):
        if candidate is not None and (candidate.is_socket() or candidate.name == POINTER_NAME):
            with contextlib.suppress(FileNotFoundError):
                candidate.unlink()
                removed = True
    if removed:
        log.info("removed the stale control socket of %s (its crawl is gone)", root)
    return removed


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux ``SO_PEERCRED``)."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:  # pragma: no cover - not Linux
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


# ---- plain data ---------------------------------------------------------------------------------
_ENCODER = json.JSONEncoder(separators=(",", ":"))


def _encode(message: Mapping[str, Any]) -> bytes:
    # Tuples (the snapshot's named-tuple rows) are written as arrays as they are: no copies.
    # Python's json writes non-finite floats as Infinity/NaN (an unbounded histogram bucket).
    return _ENCODER.encode(message).encode() + b"\n"


def _decode(line: bytes) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ControlError(f"not a JSON line: {exc}") from exc
    if not isinstance(data, dict):
        raise ControlError("a message must be a JSON object")
    return data


def totals_to_data(t: PoolTotals) -> dict[str, Any]:
    totals = {f.name: getattr(t, f.name) for f in fields(t)}
    totals["refused"] = dict(t.refused)
    return totals


def snapshot_to_data(snap: PoolSnapshot) -> dict[str, Any]:
    return {
        "time": snap.time,
        "version": snap.version,
        "totals": totals_to_data(snap.totals),
        "hosts": snap.hosts,
        "hosts_complete": snap.hosts_complete,
        "pending": snap.pending,
        "retrying": snap.retrying,
        "hubs": snap.hubs,
        "next_due": snap.next_due,
    }


def totals_from_data(d: Mapping[str, Any]) -> PoolTotals:
    try:
        totals = dict(d)
        totals["refused"] = dict(totals["refused"])
        return PoolTotals(**totals)
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"malformed pool totals from the crawl: {exc}") from exc


def snapshot_from_data(d: Mapping[str, Any]) -> PoolSnapshot:
    try:
        totals = dict(d["totals"])
        totals["refused"] = dict(totals["refused"])
        return PoolSnapshot(
            time=float(d["time"]),
            version=int(d["version"]),
            totals=PoolTotals(**totals),
            hosts=tuple(HostRow(*r) for r in d["hosts"]),
            hosts_complete=bool(d["hosts_complete"]),
            pending=tuple(PendingRow(*r) for r in d["pending"]),
            retrying=tuple(RetryRow(*r) for r in d["retrying"]),
            hubs=tuple(HubRow(*r) for r in d["hubs"]),
            next_due=None if d["next_due"] is None else float(d["next_due"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"a malformed pool snapshot from the crawl: {exc}") from exc


def stats_to_data(s: StatsSnapshot) -> dict[str, Any]:
    data = {f.name: getattr(s, f.name) for f in fields(s)}
    for key in ("status_counts", "error_counts", "status_classes", "disk_use"):
        data[key] = dict(data[key])
    return data


def stats_from_data(d: Mapping[str, Any]) -> StatsSnapshot:
    try:
        kw = dict(d)
        for key in ("status_counts", "error_counts", "status_classes"):
            kw[key] = dict(kw[key])
        kw["disk_use"] = {str(k): int(n) for k, n in dict(kw.get("disk_use", {})).items()}
        kw["response_hist"] = tuple((float(b), int(n)) for b, n in kw["response_hist"])
        kw["series"] = tuple((float(t), int(p), int(e)) for t, p, e in kw["series"])
        return StatsSnapshot(**kw)
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"malformed crawl stats from the crawl: {exc}") from exc


def settings_to_data(s: CrawlSettings) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for f in fields(s):
        value = getattr(s, f.name)
        if isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        elif isinstance(value, CrawlMode):
            value = value.value
        data[f.name] = value
    return data


def settings_from_data(d: Mapping[str, Any]) -> CrawlSettings:
    """Settings from plain data; unknown names are ignored (a newer peer), bad values raise
    ConfigError."""
    known = {f.name for f in fields(CrawlSettings)}
    kw: dict[str, Any] = {}
    for name, raw in d.items():
        if name not in known:
            continue
        value: Any = raw
        if name == "extra_headers":
            value = tuple((str(k), str(v)) for k, v in raw)
        elif isinstance(raw, list):
            value = tuple(raw)
        elif name == "mode":
            value = CrawlMode(raw)
        kw[name] = value
    try:
        return CrawlSettings(**kw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad settings: {exc}") from exc


def report_to_data(r: AddReport) -> dict[str, Any]:
    return {
        "added": r.added,
        "duplicate": r.duplicate,
        "refused": r.refused,
        "overflow": r.overflow,
    }


def report_from_data(d: Mapping[str, Any]) -> AddReport:
    try:
        return AddReport(
            added=int(d["added"]),
            duplicate=int(d["duplicate"]),
            refused=[(str(u), str(why)) for u, why in d["refused"]],
            overflow=int(d["overflow"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ControlError(f"a malformed report from the crawl: {exc}") from exc


# ---- the server (in the crawl) -------------------------------------------------------------------
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
            self.queue.put_nowait(_encode(message))
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
            await asyncio.to_thread(_private_dir, path.parent)
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
                writer.write(_encode({"protocol": PROTOCOL, "version": VERSION, "error": why}))
                await asyncio.wait_for(writer.drain(), 1.0)
            await _hang_up(writer)
            return
        name = f"uid {uid} #{id(writer) & 0xFFFF:x}"
        try:
            hello = _decode(await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT))
        except (TimeoutError, ControlError, ValueError, ConnectionError, OSError):
            await _hang_up(writer)
            return
        if hello.get("protocol") != PROTOCOL or hello.get("version") != VERSION:
            with contextlib.suppress(ConnectionError, OSError):
                writer.write(
                    _encode(
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
            request = _decode(line)
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
        new = settings_from_data(req.get("settings") or {})
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


# ---- the client (in the window, or ``stats``) ------------------------------------------
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
                    _private_dir(path.parent)
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
            writer.write(_encode({"protocol": PROTOCOL, "version": VERSION}))
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), HELLO_TIMEOUT)
            if not line:
                raise ControlError(f"the crawl of {root} closed the control channel")
            hello = _decode(line)
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
                    msg = _decode(line)
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
            self.writer.write(_encode({"id": rid, "op": op, **args}))
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


# ---- the window's session over a client -------------------------------------------------
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


__all__ = [
    "AttachLostError",
    "AttachedSession",
    "ControlClient",
    "ControlError",
    "ControlServer",
    "open_or_attach",
    "read_live_stats",
]
