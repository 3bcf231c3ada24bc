from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QtMsgType

from crawler_gui.gui import app as gui_app

pytestmark = pytest.mark.gui


def test_qt_messages_go_to_python_logging(caplog):
    with caplog.at_level(logging.DEBUG, logger="crawler_gui.qt"):
        gui_app.qt_message_handler(
            QtMsgType.QtWarningMsg, SimpleNamespace(category="default"), "something odd"
        )
        gui_app.qt_message_handler(QtMsgType.QtInfoMsg, SimpleNamespace(category="qt.qpa"), "x")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("crawler_gui.qt", logging.WARNING, "something odd"),
        ("crawler_gui.qt.qt.qpa", logging.INFO, "x"),
    ]


def test_simplified_chinese_translation_loads(qapp):
    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        assert translators, "crawler_gui_zh_CN.qm was not found"
        assert QCoreApplication.translate("MainMenu", "&Start") != "&Start"
        assert QCoreApplication.translate("HostsModel", "Waiting") == "等待"
        # refusal reasons come from the core in English; the window shows them translated,
        # every one of them
        from crawler_gui.core.hublist import REASON_TEXT
        from crawler_gui.engine.scope import REASONS as SCOPE_REASONS
        from crawler_gui.gui.dialogs.checks import reason_text

        assert reason_text("scheme") == "只抓取 http 和 https 网址"
        for code in (*REASON_TEXT, *SCOPE_REASONS):
            assert not reason_text(code).isascii(), code
        assert reason_text("some_new_code") == "some_new_code"
    finally:
        for t in translators:
            qapp.removeTranslator(t)
    assert QCoreApplication.translate("HostsModel", "Waiting") == "Waiting"


def test_the_window_and_its_parts_show_simplified_chinese(qapp, aloop, qsettings):
    """The window is made of parts (mixins in their own modules, each its own translation
    context): a string of each part, asked through the window, comes out in Chinese."""
    from crawler_gui.gui.mainwindow import MainWindow
    from tests.gui.conftest import delete_now
    from tests.gui.gui_helpers import run

    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    w = MainWindow(None, qsettings=qsettings)
    try:
        assert translators
        texts = [
            w.busiest.text(),  # MainWindow
            w.act_start.text(),  # MainMenu
            w.state_text(None),  # MainWindow
            w.tr("Seeds"),  # CrawlActions
            w.tr("Save pool snapshot"),  # FileActions
        ]
        assert all(not t.isascii() for t in texts), texts
        assert texts[1] == QCoreApplication.translate("MainMenu", "&Start")
    finally:
        w.close()
        run(aloop, w.wait_closed())
        delete_now(w)
        for t in translators:
            qapp.removeTranslator(t)


def test_application_icon_loads(qapp):
    from crawler_gui.gui.app import app_icon

    icon = app_icon()
    assert not icon.isNull() and not icon.pixmap(64, 64).isNull()


def test_durations_and_countdowns_are_translated(qapp):
    from crawler_gui.gui import fmt

    assert fmt.duration(300) == "5 min"  # no "5 min 0 s"
    assert fmt.duration(297) == "4 min 57 s"
    assert fmt.countdown(1_000 + 297, 1_000) == "in 4 min 57 s"
    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        assert fmt.duration(297) == "4 分 57 秒"
        assert fmt.duration(3 * 86400) == "3 天"
        assert fmt.countdown(1_000 + 297, 1_000) == "4 分 57 秒后"
        assert fmt.countdown(1_000, 1_000) == "已到期"
    finally:
        for t in translators:
            qapp.removeTranslator(t)


def test_the_default_pool_is_in_the_apps_own_data_folder(qapp, monkeypatch, tmp_path):
    from PySide6.QtCore import QStandardPaths

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    test_mode = QStandardPaths.isTestModeEnabled()  # (~/.qttest: XDG_DATA_HOME is not read)
    QStandardPaths.setTestModeEnabled(False)
    try:
        check_default_pool(tmp_path)
    finally:
        QStandardPaths.setTestModeEnabled(test_mode)


def check_default_pool(tmp_path):
    from PySide6.QtCore import QStandardPaths

    from crawler_gui.gui import prefs

    new = tmp_path / "crawler-gui" / "pool"
    assert prefs.default_pool_dir() == new  # not …/crawler-gui/crawler-gui/pool
    # a pool an earlier version made in Qt's per-application folder is still found ...
    old = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    assert old.startswith(str(tmp_path))
    (tmp_path / old / "pool").mkdir(parents=True)
    assert prefs.default_pool_dir() == tmp_path / old / "pool"
    # ... until the new one exists
    new.mkdir(parents=True)
    assert prefs.default_pool_dir() == new
