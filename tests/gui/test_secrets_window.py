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


@pytest.mark.parametrize("given", ["dialog", "environment"])
def test_the_redis_dialog_takes_the_password_apart_and_never_keeps_it(
    aloop, qsettings, tmp_path: Path, gui_log, caplog, monkeypatch, redis_password_server, given
) -> None:
    """File → Open Redis pool…: the password in a field of its own (hidden as typed), or from
    CRAWLER_GUI_REDIS_PASSWORD; the pool opens, the URL as typed is remembered (it has no
    secret), the password is in no setting, title or log line."""
    from PySide6.QtWidgets import QLineEdit

    from crawler_gui.core.credentials import REDIS_PASSWORD_ENV
    from crawler_gui.gui.dialogs.redis_url import RedisUrlDialog
    from tests.gui.gui_helpers import wait_for, with_dialog

    name = f"gdlg{uuid.uuid4().hex[:8]}"
    url = f"{redis_password_server}?name={name}"
    monkeypatch.delenv(REDIS_PASSWORD_ENV, raising=False)
    if given == "environment":
        monkeypatch.setenv(REDIS_PASSWORD_ENV, REDIS_PASSWORD)

    async def opener(location: Path | str, settings: CrawlSettings):
        return await CrawlSession.open(location, settings, store_dir=tmp_path / "s", worker="g")

    w = MainWindow(None, qsettings=qsettings, open_session=opener, refresh_ms=50)
    w.show()
    caplog.set_level(logging.DEBUG)

    def fill(d: RedisUrlDialog) -> None:
        assert d.password.echoMode() == QLineEdit.EchoMode.Password
        d.edit.setText(url)
        if given == "dialog":
            d.password.setText(REDIS_PASSWORD)
        d.accept()

    async def scenario() -> None:
        w.act_open_redis.trigger()
        await with_dialog(RedisUrlDialog, fill)
        await wait_for(lambda: w.session is not None, timeout=20)
        for shown in (w.windowTitle(), w.pool_label.text()):
            assert REDIS_PASSWORD not in shown and name in shown
        assert qsettings.value(LAST_REDIS_KEY) == url
        qsettings.sync()
        assert REDIS_PASSWORD not in (tmp_path / "settings.ini").read_text("utf-8", "replace")
        w.close()
        await w.wait_closed()

    try:
        run(aloop, scenario(), timeout=40)
    finally:
        if not w.is_closed:
            w.close()
            run(aloop, w.wait_closed())
    assert REDIS_PASSWORD not in caplog.text
    delete_now(w)


def test_the_window_never_saves_a_proxy_nor_its_password(qsettings, tmp_path: Path) -> None:
    """A proxy reaches the window's settings only from a headless crawl it is attached to (its
    password hidden there): it is that crawl's, and never saved."""
    from crawler_gui.gui import prefs

    prefs.save_settings(qsettings, CrawlSettings(proxy="http://crawl:pw-of-proxy@127.0.0.1:3128"))
    qsettings.sync()
    assert "pw-of-proxy" not in (tmp_path / "settings.ini").read_text("utf-8", "replace")
    assert prefs.load_settings(qsettings).proxy is None
