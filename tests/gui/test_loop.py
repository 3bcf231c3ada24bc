"""The app's event loop (``gui.loop.BatchingEventLoop``): asyncio's scheduling semantics on the
Qt loop, without one Qt timer per callback."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pytest
from PySide6.QtCore import QAbstractEventDispatcher, QTimer

from crawler_gui.gui.loop import BatchingEventLoop


def test_callbacks_run_in_order_and_timers_at_their_deadlines(aloop) -> None:
    order: list[str] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        seen: dict[str, float] = {}

        def mark(name: str) -> None:
            order.append(name)
            seen[name] = loop.time() - t0

        loop.call_later(0.06, mark, "late")
        loop.call_at(t0 + 0.02, mark, "early")
        loop.call_soon(mark, "soon-1")
        loop.call_soon(mark, "soon-2")
        loop.call_later(0, mark, "zero-delay")
        await asyncio.sleep(0.1)
        assert order == ["soon-1", "soon-2", "zero-delay", "early", "late"]
        assert seen["early"] >= 0.02 - loop._clock_resolution
        assert seen["late"] >= 0.06 - loop._clock_resolution

    aloop.run_until_complete(scenario())


def test_timers_are_asyncio_timer_handles_and_cancelled_ones_never_run(aloop) -> None:
    ran: list[int] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        h = loop.call_later(0.01, ran.append, 1)
        assert isinstance(h, asyncio.TimerHandle)
        assert h.when() == pytest.approx(loop.time() + 0.01, abs=0.005)
        h.cancel()
        loop.call_later(0.02, ran.append, 2)
        await asyncio.sleep(0.05)
        assert ran == [2]

    aloop.run_until_complete(scenario())


def test_cancelled_timeouts_leave_no_qt_timers_and_are_swept(aloop) -> None:
    """aiohttp re-arms a long read timeout on every chunk and cancels the previous one: those
    must not pile up as live Qt timers (qasync's own scheduling keeps one per callback until
    its delay runs out) nor stay in the heap for their whole delay."""
    dispatcher = QAbstractEventDispatcher.instance()

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        handles = [loop.call_later(30.0, lambda: None) for _ in range(5000)]
        assert dispatcher.registeredTimers(loop._timer) == []  # qasync's per-callback timers
        for h in handles:
            h.cancel()
        keep = loop.call_later(30.0, lambda: None)
        await asyncio.sleep(0.01)  # a turn at least
        assert len(loop._heap) <= 101  # swept once the cancelled ones were the majority
        assert keep in loop._heap
        keep.cancel()

    aloop.run_until_complete(scenario())


def test_a_callback_that_reschedules_itself_forever_does_not_starve_qt(aloop) -> None:
    """A turn ends after its time budget even while callbacks keep becoming ready: then Qt
    gets control (here: a Qt timer gets to fire)."""
    qt_fired = threading.Event()
    spins = 0

    async def scenario() -> None:
        nonlocal spins
        loop = asyncio.get_running_loop()
        stop = False

        def spin() -> None:
            nonlocal spins
            spins += 1
            if not stop:
                loop.call_soon(spin)

        loop.call_soon(spin)
        QTimer.singleShot(0, qt_fired.set)
        deadline = time.monotonic() + 5
        while not qt_fired.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0)
        stop = True
        await asyncio.sleep(0.01)

    aloop.run_until_complete(scenario())
    assert qt_fired.is_set()
    assert spins > 1


def test_coroutine_functions_are_refused_in_debug_mode(aloop) -> None:
    async def coro() -> None:
        pass

    aloop.set_debug(True)
    try:
        with pytest.raises(TypeError):
            aloop.call_soon(coro)
        with pytest.raises(TypeError):
            aloop.call_later(0.1, coro)
    finally:
        aloop.set_debug(False)


def test_threadsafe_calls_and_executors_still_work(aloop) -> None:
    async def scenario() -> int:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        threading.Thread(target=lambda: loop.call_soon_threadsafe(fut.set_result, 7)).start()
        got = await asyncio.wait_for(fut, 5)
        return got + await asyncio.to_thread(lambda: 1)

    assert aloop.run_until_complete(scenario()) == 8


def test_closing_drops_what_is_scheduled(qapp) -> None:
    loop = BatchingEventLoop(qapp)
    ran: list[int] = []
    loop.call_later(0.01, ran.append, 1)
    loop.call_soon(ran.append, 2)
    loop.close()
    deadline = time.monotonic() + 0.1
    while time.monotonic() < deadline:
        qapp.processEvents()
    assert ran == []
    assert not loop._wake.isActive()


def test_nothing_runs_while_the_loop_is_stopped(aloop, qapp) -> None:
    """Between two run_until_complete calls Qt may process events (a dialog, a test's wait):
    asyncio runs no callback then; they run when the loop runs again, in order."""
    ran: list[str] = []
    aloop.call_soon(ran.append, "soon")
    aloop.call_later(0.01, ran.append, "later")
    deadline = time.monotonic() + 0.05
    while time.monotonic() < deadline:
        qapp.processEvents()
    assert ran == []
    aloop.run_until_complete(asyncio.sleep(0.02))
    assert ran == ["soon", "later"]


def test_closing_a_running_loop_is_refused_and_it_runs_on(aloop) -> None:
    """As asyncio: ``close()`` while running raises, and the loop keeps running callbacks."""
    ran: list[int] = []
    armed: list[bool] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        loop.call_soon(ran.append, 1)
        with pytest.raises(RuntimeError):
            loop.close()
        assert not loop.is_closed()
        # Seen from Qt once this turn has ended: the wake timer is armed for what waits. (A
        # loop that stopped waking would hang: Qt stops it after 5 s, and the test fails.)
        QTimer.singleShot(0, lambda: armed.append(loop._wake.isActive()))
        guard.timeout.connect(loop.stop)
        guard.start(5000)
        loop.call_later(0.01, ran.append, 2)
        await asyncio.sleep(0.02)

    guard = QTimer()
    guard.setSingleShot(True)
    try:
        aloop.run_until_complete(scenario())
    finally:
        guard.stop()
    assert armed == [True]
    assert ran == [1, 2]


def test_a_later_timer_scheduled_in_a_turn_does_not_delay_an_earlier_one(aloop) -> None:
    """A turn that schedules a timer later than the earliest one already waiting (aiohttp's
    read timeouts, tens of seconds ahead) must still wake for the earlier one."""

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        fired: asyncio.Future[None] = loop.create_future()
        loop.call_later(0.05, fired.set_result, None)
        await asyncio.sleep(0)  # into a new turn, which schedules a later timer and waits
        late = loop.call_later(3.0, lambda: None)
        await fired
        late.cancel()
        return loop.time() - t0

    elapsed = aloop.run_until_complete(asyncio.wait_for(scenario(), 10))
    assert elapsed < 1.0, elapsed


@pytest.mark.skipif(sys.platform == "win32", reason="Windows's loop is qasync's proactor")
def test_sockets_are_polled_through_one_selector_not_a_notifier_each(aloop) -> None:
    """Forty connections on loopback exchange data; their sockets are in the loop's own
    selector (one Qt notifier on it), none in a notifier of qasync's."""
    qasync_notifiers = len(aloop._read_notifiers) + len(aloop._write_notifiers)

    async def scenario() -> tuple[list[bytes], int, int]:
        seen: list[int] = []

        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            data = await reader.readline()
            seen.append(len(aloop._fds.get_map()))  # the listener, this one, the clients' ends
            writer.write(data.upper() * 2000)  # larger than one read: many readiness events
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]

        async def client(i: int) -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"hello {i}\n".encode())
            await writer.drain()
            data = await reader.read()
            writer.close()
            await writer.wait_closed()
            return data

        got = await asyncio.gather(*(client(i) for i in range(40)))
        registered = max(seen)
        server.close()
        await server.wait_closed()
        notifiers = len(aloop._read_notifiers) + len(aloop._write_notifiers)
        return got, registered, notifiers

    got, registered, notifiers = aloop.run_until_complete(scenario())
    assert got == [f"HELLO {i}\n".encode() * 2000 for i in range(40)]
    assert registered >= 3
    assert notifiers == qasync_notifiers  # none added for the sockets
    assert len(aloop._fds.get_map()) == 0  # every socket unregistered once closed


def test_a_reader_added_while_the_loop_is_stopped_runs_when_it_runs_again(aloop) -> None:
    import socket

    a, b = socket.socketpair()
    got: list[bytes] = []
    try:
        aloop.add_reader(a.fileno(), lambda: got.append(a.recv(100)))
        b.send(b"x")
        aloop.run_until_complete(asyncio.sleep(0.05))
        assert got == [b"x"]
        b.send(b"y")
        QTimer.singleShot(0, lambda: None)
        qapp_process = asyncio.sleep(0.05)
        aloop.run_until_complete(qapp_process)
        assert got == [b"x", b"y"]
        assert aloop.remove_reader(a.fileno()) is True
        assert aloop.remove_reader(a.fileno()) is False
    finally:
        a.close()
        b.close()


def test_a_turn_runs_what_becomes_ready_in_it_for_a_few_milliseconds(aloop) -> None:
    """Callbacks that make more ready (a chain of 200, as a crawl's pages do) run in one turn
    while it lasts, not one Qt round trip each; a turn ends after its budget all the same."""
    from crawler_gui.gui.loop import TURN_SECONDS

    chain: list[int] = []
    turns: list[int] = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def step(n: int) -> None:
            chain.append(n)
            if n < 200:
                loop.call_soon(step, n + 1)
            else:
                done.set_result(None)

        before = loop._turns
        loop.call_soon(step, 1)
        await done
        turns.append(loop._turns - before)

        # a callback longer than the budget: the next iteration waits for the next turn
        def slow() -> None:
            time.sleep(TURN_SECONDS * 2)

        await asyncio.sleep(0)
        before = loop._turns
        loop.call_soon(slow)
        await asyncio.sleep(0)  # (runs in slow()'s iteration)
        await asyncio.sleep(0)  # (the next iteration: the budget is spent by then)
        turns.append(loop._turns - before)

    aloop.run_until_complete(scenario())
    assert chain == list(range(1, 201))
    assert turns[0] <= 3  # (one per step before)
    assert turns[1] >= 1
