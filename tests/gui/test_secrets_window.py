"""The window never shows or saves a Redis password: title, pool label, QSettings, log."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest

from crawler_gui.engine.session import CrawlSession
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui.fileactions import LAST_REDIS_KEY
from crawler_gui.gui.mainwindow import MainWindow
from tests.conftest import REDIS_PASSWORD
from tests.gui.conftest import delete_now
from tests.gui.gui_helpers import run

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("form", ["query", "userinfo"])
def test_the_window_hides_the_password_everywhere(
    aloop, qtbot, qsettings, tmp_path: Path, gui_log, caplog, redis_password_server: str, form: str
) -> None:
    host = redis_password_server.removeprefix("redis://")
    name = f"gsec{uuid.uuid4().hex[:8]}"
    if form == "query":
        url = f"redis://{host}?name={name}&password={REDIS_PASSWORD}"
    else:
        url = f"redis://default:{REDIS_PASSWORD}@{host}?name={name}"
    qsettings.setValue(LAST_REDIS_KEY, f"redis://{host}?name=older")

    async def opener(location: Path | str, settings: CrawlSettings):
        return await CrawlSession.open(location, settings, store_dir=tmp_path / "s", worker="g")

    w = MainWindow(None, qsettings=qsettings, open_session=opener, refresh_ms=50)
    w.show()
    caplog.set_level(logging.DEBUG)

    async def scenario() -> None:
        assert await w.open_pool(url)
        assert w.session is not None
        for shown in (w.windowTitle(), w.pool_label.text()):
            assert REDIS_PASSWORD not in shown and "***" in shown and name in shown
        qsettings.sync()
        saved = (tmp_path / "settings.ini").read_text("utf-8", "replace")
        assert REDIS_PASSWORD not in saved
        # The URL with a secret is not remembered, and the older one is forgotten with it.
        assert qsettings.value(LAST_REDIS_KEY) is None
        w.close()
        await w.wait_closed()

    try:
        run(aloop, scenario(), timeout=30)
    finally:
        if not w.is_closed:
            w.close()
            run(aloop, w.wait_closed())
    assert REDIS_PASSWORD not in caplog.text
    assert "***" in caplog.text
    delete_now(w)
