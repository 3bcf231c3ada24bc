"""GUI test setup: offscreen Qt, a qasync loop per test, strictness (Qt warnings, leftover
tasks and timers, unhandled task exceptions all fail the test)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import asyncio
import gc
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication

from crawler_gui.gui.loop import BatchingEventLoop

QStandardPaths.setTestModeEnabled(True)

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.qt_log_level_fail("WARNING"))
            # The offscreen platform warns about window-manager features it lacks.
            item.add_marker(pytest.mark.qt_log_ignore("This plugin does not support"))


@pytest.fixture
def aloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop around the test's QApplication; run coroutines with run_until_complete."""
    qapp.setQuitOnLastWindowClosed(False)
    loop = BatchingEventLoop(qapp)
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx))
    asyncio.set_event_loop(loop)
    try:
        yield loop
        leftover = [t for t in asyncio.all_tasks(loop) if not t.done()]
        assert not leftover, f"tasks still running after the test: {leftover}"
        assert not errors, f"unhandled errors in the loop: {errors}"
    finally:
        for t in asyncio.all_tasks(loop):
            t.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        asyncio.set_event_loop(None)
        # Collect Qt wrappers here, in the GUI thread; a collection run later by a worker thread
        # would delete QObjects (and their timers) from the wrong thread.
        gc.collect()


@pytest.fixture
def qsettings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def gui_log() -> Iterator[None]:
    logger = logging.getLogger("crawler_gui")
    old = logger.level
    logger.setLevel(logging.INFO)
    yield
    logger.setLevel(old)


def assert_no_active_timers(obj: Any) -> None:
    """Our timers (the ones with an object name) under ``obj`` are all stopped. Qt's internal
    timers (cursor blink, animations) are not ours to judge."""
    active = [t.objectName() for t in obj.findChildren(QTimer) if t.objectName() and t.isActive()]
    assert not active, f"timers still active: {active}"


def shown_window(
    aloop: asyncio.AbstractEventLoop, session: Any, qsettings: QSettings, opener: Any
) -> Iterator[Any]:
    """The body of a ``window`` fixture: a MainWindow over ``session``, shown and refreshing
    every 50 ms; afterwards closed (if the test did not), its timers stopped, deleted."""
    from crawler_gui.gui.mainwindow import MainWindow
    from tests.gui.gui_helpers import run

    w = MainWindow(session, qsettings=qsettings, open_session=opener, refresh_ms=50)
    # not qtbot.addWidget: pytest-qt would close and delete it before this teardown runs
    w.show()
    w.start_refresh()
    yield w
    if not w.is_closed:
        w.close()
        run(aloop, w.wait_closed())
    assert_no_active_timers(w)
    delete_now(w)


def delete_now(widget: Any) -> None:
    """Delete a top-level widget and its children now, in the GUI thread."""
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
