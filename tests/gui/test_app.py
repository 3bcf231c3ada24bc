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
        assert QCoreApplication.translate("MainWindow", "&Start") != "&Start"
        assert QCoreApplication.translate("HostsModel", "Waiting") == "等待"
    finally:
        for t in translators:
            qapp.removeTranslator(t)
    assert QCoreApplication.translate("HostsModel", "Waiting") == "Waiting"


def test_application_icon_loads(qapp):
    from crawler_gui.gui.mainwindow import app_icon

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
