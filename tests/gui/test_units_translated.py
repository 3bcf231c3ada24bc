"""Seconds in the window's language: response times and delays (``fmt.seconds``) and the
settings' second fields read "秒" in Simplified Chinese, not "s"."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale

from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui import app as gui_app
from crawler_gui.gui import fmt
from crawler_gui.gui.dialogs.settings import SettingsDialog
from tests.gui.conftest import delete_now

pytestmark = pytest.mark.gui


def test_seconds_are_translated(qapp):
    assert fmt.seconds(1.5) == "1.5 s" and fmt.seconds(12.4) == "12 s"
    dlg = SettingsDialog(settings=CrawlSettings())
    assert dlg.min_delay.suffix() == " s"
    delete_now(dlg)
    translators = gui_app.install_translators(
        qapp, QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    )
    try:
        assert fmt.seconds(1.5) == "1.5 秒"
        assert fmt.seconds(12.4) == "12 秒"
        dlg = SettingsDialog(settings=CrawlSettings())
        assert dlg.min_delay.suffix() == " 秒"
        assert dlg.read_timeout.suffix() == " 秒"
        assert dlg.delay_factor.suffix() == " ×"  # not a time: as it was
        delete_now(dlg)
    finally:
        for t in translators:
            qapp.removeTranslator(t)
