"""The control channel of a headless crawl (``engine.control``): a real crawl session over a
real LevelDB pool and the demo site on loopback, served on a real Unix socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from crawler_gui.core.frontier import HubSpec
from crawler_gui.demo.site import DemoSite
from crawler_gui.engine.control import address, wire
from crawler_gui.engine.control.attached import AttachedSession, open_or_attach
from crawler_gui.engine.control.client import ControlClient
from crawler_gui.engine.control.server import ControlServer
from crawler_gui.engine.control.wire import ControlError
from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlSettings, CrawlState
from crawler_gui.errors import PoolInUseError


async def wait_for(cond, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.02)


def crawl_settings() -> CrawlSettings:
    return CrawlSettings(concurrency=4, min_delay=0.05, delay_factor=0.0, obey_robots=False)


@contextlib.asynccontextmanager
async def served_crawl(
    pool: Path, *, latency: float = 0.02, start: bool = True, **server_kw: object
) -> AsyncIterator[tuple[CrawlSession, ControlServer, DemoSite]]:
    """A crawl of the demo site (seeded with its first host only), served on its socket."""
    site = DemoSite(latency=latency)
    await site.start()
    session = await CrawlSession.open(pool, crawl_settings(), demo_site=site)
    server = await ControlServer.start(session, pool, **server_kw)  # type: ignore[arg-type]
    try:
        if start:
            session.crawler.start()
        yield session, server, site
    finally:
        server.ending()
        await session.close()
        await server.close(session.crawler.state)
        await site.stop()


def test_a_window_session_steers_the_crawl_and_closing_it_leaves_the_crawl_running(
    tmp_path: Path,
) -> None:
    pool = tmp_path / "pool"

    async def scenario() -> None:
        async with served_crawl(pool) as (session, server, _site):
            sock = pool / address.SOCKET_NAME
            assert sock.is_socket() and stat.S_IMODE(sock.stat().st_mode) == 0o600
            # the pool is in use: opening it attaches
            with pytest.raises(PoolInUseError):
                await CrawlSession.open(pool, crawl_settings())
            attached = await open_or_attach(pool, crawl_settings())
            second = await AttachedSession.attach(pool)  # two windows at once
            try:
                assert isinstance(attached, AttachedSession) and attached.attached
                assert attached.settings == session.settings
                await wait_for(lambda: session.crawler.stats().pages >= 5)
                snap = await attached.frontier.snapshot()
                local = await session.frontier.snapshot()
                assert snap.hosts_complete and {h.host for h in snap.hosts} == {
                    h.host for h in local.hosts
                }
                assert attached.crawler.stats().pages >= 5
                again = await attached.frontier.snapshot(since=snap.version)
                assert again.version >= snap.version and not again.hosts_complete

                attached.crawler.pause()
                await wait_for(lambda: session.crawler.state is CrawlState.PAUSED)
                await wait_for(lambda: second.crawler.state is CrawlState.PAUSED)
                attached.crawler.resume()
                await wait_for(lambda: session.crawler.state is CrawlState.RUNNING)

                report = await attached.crawler.add_seeds(["http://a.example.com/", "gopher://x/"])
                assert report.added == 1 and [r for _u, r in report.refused] == ["scheme"]
                assert "example.com" in session.crawler.scope.seed_domains

                hubs = [HubSpec("http://news.example.com/", 600.0)]
                report = await attached.crawler.set_hubs([*await attached.crawler.hubs(), *hubs])
                assert "http://news.example.com/" in {h.url for h in await session.crawler.hubs()}

                new = replace(attached.settings, hub_percent=20, allow_domains=("b.example.com",))
                attached.crawler.apply_settings(new)
                await wait_for(lambda: session.crawler.settings.hub_percent == 20)
                assert session.crawler.settings == new
                await wait_for(lambda: second.settings == new)  # the other window hears it

                saved = tmp_path / "live.cgpool"
                assert await attached.frontier.save_snapshot(saved) > 0 and saved.exists()
                with pytest.raises(ControlError):
                    await attached.frontier.load_snapshot(saved)
                assert not await attached.frontier.retry_now("http://nowhere.example.com/")
            except BaseException:
                await second.close()
                raise
            finally:
                await attached.close()
            # closing the window's session leaves the crawl running, the other window attached
            pages = session.crawler.stats().pages
            await wait_for(lambda: session.crawler.stats().pages > pages)
            assert session.crawler.state is CrawlState.RUNNING
            await wait_for(lambda: len(server.clients) == 1)

            ends: list[str | None] = []
            second.end_listeners.append(ends.append)
            await second.crawler.stop()
            assert session.crawler.state is CrawlState.STOPPED
            server.ending()
            await session.close()
            await server.close(session.crawler.state)
            await wait_for(lambda: ends == ["stopped"])
            assert second.crawler.state is CrawlState.STOPPED
            await second.close()
        assert not (pool / address.SOCKET_NAME).exists()

    asyncio.run(scenario())


def test_a_long_pool_path_gets_its_socket_in_the_runtime_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="cg-rt-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    pool = tmp_path / ("long-" * 20) / "pool"
    assert len(os.fsencode(pool / address.SOCKET_NAME)) > address.MAX_SOCKET_PATH

    async def scenario() -> None:
        async with served_crawl(pool, start=False) as (_session, _server, _site):
            pointer = json.loads((pool / address.POINTER_NAME).read_text("utf-8"))
            where = Path(pointer["socket"])
            assert where.parent == runtime / f"crawler-gui-{os.geteuid()}"
            assert stat.S_IMODE(where.parent.stat().st_mode) == 0o700
            assert stat.S_IMODE(where.stat().st_mode) == 0o600
            assert not (pool / address.SOCKET_NAME).exists()
            attached = await AttachedSession.attach(pool)
            try:
                assert attached.crawler.state is CrawlState.IDLE
                assert (await attached.frontier.snapshot()).totals.hubs > 0
            finally:
                await attached.close()
        assert not where.exists() and not (pool / address.POINTER_NAME).exists()

    try:
        asyncio.run(scenario())
    finally:
        shutil.rmtree(runtime)


def test_a_socket_left_by_a_killed_crawl_is_removed_by_whoever_opens_the_pool(
    tmp_path: Path,
) -> None:
    pool = tmp_path / "pool"

    async def scenario() -> None:
        # What kill -9 leaves: a socket file with nobody listening (the pool's lock is free).
        pool.mkdir()
        dead = socket.socket(socket.AF_UNIX)
        dead.bind(str(pool / address.SOCKET_NAME))
        dead.close()
        with pytest.raises(ControlError, match="no crawl"):
            await ControlClient.connect(pool)
        session = await open_or_attach(pool, crawl_settings())
        try:
            assert isinstance(session, CrawlSession)
            assert not (pool / address.SOCKET_NAME).exists()
        finally:
            await session.close()

    asyncio.run(scenario())


def test_a_peer_of_another_uid_is_refused(tmp_path: Path) -> None:
    """The server checks each peer's uid (SO_PEERCRED): here it allows another uid than ours."""
    pool = tmp_path / "pool"

    async def scenario() -> None:
        async with served_crawl(pool, start=False, allowed_uid=os.geteuid() + 1) as (
            _session,
            server,
            _site,
        ):
            with pytest.raises(ControlError, match="refused: another user"):
                await AttachedSession.attach(pool)
            assert not server.clients

    asyncio.run(scenario())


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a client as another user")
def test_another_user_cannot_reach_the_socket(tmp_path: Path) -> None:
    """A real second user (nobody, 65534) on a path it may traverse: the 0600 socket refuses
    the connect; with the mode loosened on purpose, the server's uid check still refuses."""
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 to run as another user")
    open_dir = Path(tempfile.mkdtemp(prefix="cg-perm-"))
    open_dir.chmod(0o755)
    pool = open_dir / "pool"
    probe = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        "    s.connect(sys.argv[1])\n"
        "except PermissionError:\n"
        "    print('EACCES'); sys.exit(0)\n"
        "print(s.makefile().readline().strip())\n"
    )

    async def as_nobody(path: Path) -> str:
        proc = await asyncio.create_subprocess_exec(
            python, "-c", probe, str(path), user=65534, stdout=subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 30)
        return out.decode().strip()

    async def scenario() -> None:
        async with served_crawl(pool, start=False) as (_session, server, _site):
            pool.chmod(0o755)
            sock = pool / address.SOCKET_NAME
            assert await as_nobody(sock) == "EACCES"
            sock.chmod(0o666)
            reply = json.loads(await as_nobody(sock))
            assert reply["error"] == "refused: another user"
            assert not server.clients

    try:
        asyncio.run(scenario())
    finally:
        shutil.rmtree(open_dir)


def test_a_client_that_stops_reading_is_dropped_and_the_crawl_goes_on(tmp_path: Path) -> None:
    pool = tmp_path / "pool"

    async def scenario() -> None:
        async with served_crawl(pool) as (session, server, _site):
            watcher = await AttachedSession.attach(pool)
            reader, writer = await asyncio.open_unix_connection(str(pool / address.SOCKET_NAME))
            try:
                writer.write(b'{"protocol": "crawler-gui-control", "version": 1}\n')
                # asks for full snapshots as fast as it can, and never reads a reply
                line = b'{"id": 1, "op": "snapshot", "since": null}\n'
                sent = 0
                while server.dropped_clients == 0 and sent < 200_000:
                    writer.write(line * 200)
                    sent += 200
                    with contextlib.suppress(ConnectionError):
                        await asyncio.wait_for(writer.drain(), 0.5)
                    await asyncio.sleep(0)
                    if writer.is_closing():
                        break
                await wait_for(lambda: server.dropped_clients == 1)
                assert len(server.clients) == 1  # the watcher is still there
                pages = session.crawler.stats().pages
                await wait_for(lambda: session.crawler.stats().pages > pages + 5)
                await watcher.frontier.snapshot()
                assert watcher.crawler.stats().pages > pages
                assert watcher.crawler.state is CrawlState.RUNNING
            finally:
                writer.close()
                await writer.wait_closed()
                await watcher.close()
            del reader

    asyncio.run(scenario())


def test_a_client_of_another_protocol_version_gets_a_clear_error(tmp_path: Path) -> None:
    pool = tmp_path / "pool"

    async def scenario() -> None:
        async with served_crawl(pool, start=False):
            reader, writer = await asyncio.open_unix_connection(str(pool / address.SOCKET_NAME))
            writer.write(b'{"protocol": "crawler-gui-control", "version": 99}\n')
            reply = json.loads(await reader.readline())
            assert reply["version"] == wire.VERSION and "unsupported" in reply["error"]
            assert await reader.readline() == b""  # and the server hangs up
            writer.close()
            await writer.wait_closed()
            # bad requests get an error reply; the connection stays usable
            reader, writer = await asyncio.open_unix_connection(str(pool / address.SOCKET_NAME))
            writer.write(b'{"protocol": "crawler-gui-control", "version": 1}\n')
            assert "settings" in json.loads(await reader.readline())

            async def reply_line() -> dict:
                while "event" in (msg := json.loads(await reader.readline())):
                    pass  # a state event may come first
                return msg

            for bad in (
                b"not json",
                b'{"id": 1, "op": "frobnicate"}',
                b'{"id": 2, "op": "give_up"}',
            ):
                writer.write(bad + b"\n")
                reply = await reply_line()
                assert "error" in reply and "result" not in reply
            writer.write(b'{"id": 3, "op": "give_up", "url": "http://x.example.com/"}\n')
            assert await reply_line() == {"id": 3, "result": False}
            writer.close()
            await writer.wait_closed()

    asyncio.run(scenario())


def test_a_pointer_file_never_leads_to_another_socket(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    pool.mkdir()
    elsewhere = tmp_path / "other.sock"
    other = socket.socket(socket.AF_UNIX)
    try:
        other.bind(str(elsewhere))
        (pool / address.POINTER_NAME).write_text(json.dumps({"socket": str(elsewhere)}))
        assert address.find_socket(pool) is None
        assert address.remove_stale(pool)  # the pointer goes; the socket it named stays
        assert elsewhere.is_socket() and not (pool / address.POINTER_NAME).exists()
    finally:
        other.close()
