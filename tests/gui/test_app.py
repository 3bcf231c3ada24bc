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
