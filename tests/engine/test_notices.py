"""The change notices of a shared pool's workers, alone (``engine/notices.py``), over the
in-process signal of ``test_pool_signal.py``."""

from __future__ import annotations

import asyncio

import pytest

from crawler_gui.engine.notices import REMOTE_WAKE_SECONDS, WorkerNotices
from tests.engine.test_pool_signal import FakeSignal


class Stand:
    def __init__(self, signal: FakeSignal | None) -> None:
        self.waiting = False
        self.wakes = 0
        self.notices = WorkerNotices(
            signal, waiting=lambda: self.waiting, wake=self.wake, poll_seconds=1.0
        )

    def wake(self) -> None:
        self.wakes += 1


def test_another_workers_notice_wakes_only_a_dispatcher_waiting_for_work() -> None:
    async def main() -> None:
        signal = FakeSignal()
        stand = Stand(signal)
        await stand.notices.start()
        assert signal.on_change is not None
        signal.on_change()  # busy with its own fetches: they wake it
        assert stand.wakes == 0
        stand.waiting = True
        signal.on_change()
        assert stand.wakes == 1
        # More notices at once: one more look, after REMOTE_WAKE_SECONDS, not one each.
        for _ in range(5):
            signal.on_change()
        assert stand.wakes == 1
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while stand.wakes < 2 and loop.time() < deadline:
            await asyncio.sleep(REMOTE_WAKE_SECONDS / 5)
        assert stand.wakes == 2
        await stand.notices.stop()
        assert signal.closed == 1

    asyncio.run(main())


def test_notices_go_out_only_while_heard(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        signal = FakeSignal()
        stand = Stand(signal)
        stand.notices.notify()  # not started: nobody to tell
        await stand.notices.start()
        stand.notices.notify()
        await stand.notices.stop()
        stand.notices.notify()
        assert signal.notices == 1
        broken = FakeSignal(fail=True)
        quiet = Stand(broken)
        await quiet.notices.start()  # cannot hear: warned, polls instead
        quiet.notices.notify()
        await quiet.notices.stop()
        assert broken.notices == 0 and broken.closed == 0
        await Stand(None).notices.start()  # a pool of one process: nothing to do

    asyncio.run(main())
    assert "looking at the pool every 1 s instead" in caplog.text
