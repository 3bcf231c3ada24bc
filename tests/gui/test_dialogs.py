from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from crawler_gui.core.frontier import HubSpec
from crawler_gui.core.hublist import parse_hub_lines, preset_text
from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.gui import prefs
from crawler_gui.gui.dialogs.checks import reason_text
from crawler_gui.gui.dialogs.hubs import HubsDialog
from crawler_gui.gui.dialogs.seeds import AddSeedsDialog
from crawler_gui.gui.dialogs.settings import SettingsDialog
from tests.gui.gui_helpers import run, with_dialog

pytestmark = pytest.mark.gui


def test_add_seeds_validates_each_line_with_its_reason(qtbot, qtmodeltester):
    dlg = AddSeedsDialog(
        text="http://news.sina.com.cn/\nftp://x.example.com/\n# comment\n"
        "\nhttp://user:pw@a.example.com/\nhttp://localhost/\n"
        "HTTP://News.Sina.com.cn/#frag\nhttps://b.example.com/a b"
    )
    qtbot.addWidget(dlg)
    qtmodeltester.check(dlg.results)
    assert dlg.urls() == ["http://news.sina.com.cn/", "https://b.example.com/a%20b"]
    refused = {line: reason for line, _, reason in dlg.refused()}
    assert refused == {2: "scheme", 5: "userinfo", 6: "host_without_dot"}
    texts = [dlg.results.index(r, 2).data() for r in range(dlg.results.rowCount())]
    assert "refused: only http and https URLs are crawled" in texts
    assert "refused: URLs with a user name or password are not crawled" in texts
    assert dlg.ok_button().isEnabled() and dlg.ok_button().text() == "Add 2"
    dlg.editor.setPlainText("not a url")
    dlg.validate()
    assert not dlg.ok_button().isEnabled()
    assert "1 lines refused" in dlg.summary.text()


def test_add_seeds_validates_live_as_you_type(qtbot):
    dlg = AddSeedsDialog()
    qtbot.addWidget(dlg)
    assert not dlg.ok_button().isEnabled()
    qtbot.keyClicks(dlg.editor, "http://a.example.com/")
    qtbot.waitUntil(lambda: dlg.ok_button().isEnabled(), timeout=2000)


def test_add_seeds_ask_returns_urls_or_none(aloop, qtbot):
    async def scenario():
        def fill(d):
            d.editor.setPlainText("http://a.example.com/\nmailto:x@y.z")
            d.validate()
            d.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

        task = asyncio.ensure_future(AddSeedsDialog.ask(None))
        await with_dialog(AddSeedsDialog, fill)
        assert await task == ["http://a.example.com/"]
        task = asyncio.ensure_future(AddSeedsDialog.ask(None, "http://a.example.com/"))
        await with_dialog(AddSeedsDialog, lambda d: d.reject())
        assert await task is None

    run(aloop, scenario())


def test_hub_file_parsing_and_preset():
    lines = parse_hub_lines(preset_text("sina-news"))
    assert len(lines) >= 15 and all(h.reason is None for h in lines)
    urls = {h.url for h in lines}
    assert "http://news.sina.com.cn/" in urls
    for host in ("finance.sina.com.cn", "sports.sina.com.cn", "tech.sina.com.cn"):
        assert any(u and u.startswith(f"http://{host}/") for u in urls)
    assert any(h.url == "http://news.sina.com.cn/china/" and h.span == 600 for h in lines)
    bad = parse_hub_lines(
        "ftp://a.example.com/ 5m\nhttp://b.example.com/ soon\nhttp://c.example.com/ 1h  # comment"
    )
    assert [(h.line, h.reason) for h in bad] == [(1, "scheme"), (2, "bad_span"), (3, None)]
    assert bad[2].span == 3600


def test_hubs_dialog_edit_validate_import_export(qtbot, qtmodeltester, tmp_path):
    dlg = HubsDialog(hubs=[HubSpec("http://a.example.com/", 600)], hub_percent=30)
    qtbot.addWidget(dlg)
    qtmodeltester.check(dlg.model)
    assert dlg.ok_button().isEnabled()
    dlg.load_preset()
    assert len(dlg.model.hubs()) >= 15
    row = dlg.model.add("ftp://bad.example.com/")
    assert not dlg.ok_button().isEnabled()
    assert "only http and https URLs are crawled" in dlg.summary.text()
    assert dlg.model.index(row, 2).data() == "only http and https URLs are crawled"
    assert dlg.model.setData(dlg.model.index(row, 0), "http://good.example.com/news/")
    # a span that is not a duration stays as typed, with its reason, and blocks OK
    assert dlg.model.setData(dlg.model.index(row, 1), "whenever")
    assert dlg.model.index(row, 1).data() == "whenever"
    assert dlg.model.index(row, 2).data() == reason_text("bad_span")
    assert not dlg.ok_button().isEnabled()
    assert "whenever" not in dlg.text() and "good.example.com" not in dlg.text()
    assert dlg.model.setData(dlg.model.index(row, 1), "2h")
    assert dlg.model.index(row, 2).data() == "ok"
    assert dlg.ok_button().isEnabled()
    assert HubSpec("http://good.example.com/news/", 7200) in dlg.model.hubs()
    qtmodeltester.check(dlg.model)
    # export then import round-trips
    text = dlg.text()
    dlg2 = HubsDialog()
    qtbot.addWidget(dlg2)
    assert dlg2.set_text(text) == []
    assert dlg2.model.hubs() == dlg.model.hubs()
    refused = dlg2.set_text("http://x.example.com/ 10m\nnot-a-url 5m\nhttp://y.example.com/ x")
    assert [(line, r) for line, _, r in refused] == [(2, "scheme"), (3, "bad_span")]
    assert not dlg2.ok_button().isEnabled()  # the bad URL row is shown until fixed or removed
    dlg2.table.selectRow(1)
    dlg2.remove_button.click()
    assert dlg2.ok_button().isEnabled()
    dlg.model.remove([0, 1, 2])
    assert dlg.percent.value() == 30
    assert dlg.result_value().hub_percent == 30


def test_the_preset_button_asks_before_replacing_a_list(aloop, qtbot):
    from PySide6.QtWidgets import QMessageBox

    own = HubSpec("http://a.example.com/news/", 600)
    preset = {h.url for h in parse_hub_lines(preset_text("sina-news"))}

    def press(label):
        def answer(box):
            [button] = [b for b in box.buttons() if b.text() == label]
            button.click()

        return answer

    async def scenario():
        dlg = HubsDialog(hubs=[own])
        qtbot.addWidget(dlg)
        for label, expected in (
            ("Cancel", {own.url}),
            ("Add to the list", {own.url} | preset),
            ("Replace", preset),
        ):
            dlg.preset_button.click()
            await with_dialog(QMessageBox, press(label))
            for _ in range(20):  # the button's task ends a turn after the answer
                await asyncio.sleep(0)
            assert {h.url for h in dlg.model.hubs()} == expected, label
        # an empty list takes the preset without a question
        dlg.model.remove(range(dlg.model.rowCount()))
        dlg.preset_button.click()
        for _ in range(20):
            await asyncio.sleep(0)
        assert {h.url for h in dlg.model.hubs()} == preset
        await dlg.tasks.cancel_all()

    run(aloop, scenario())


def test_hubs_ask(aloop):
    async def scenario():
        def fill(d):
            d.load_preset()
            d.percent.setValue(40)
            d.accept()

        task = asyncio.ensure_future(HubsDialog.ask(None, [], 50, 300))
        await with_dialog(HubsDialog, fill)
        result = await task
        assert result is not None and result.hub_percent == 40
        assert HubSpec("http://news.sina.com.cn/", 300) in result.hubs

    run(aloop, scenario())


def test_settings_dialog_round_trip_and_persistence(qtbot, qsettings):
    base = CrawlSettings(concurrency=8, max_depth=None, allow_private=True)
    dlg = SettingsDialog(settings=base)
    qtbot.addWidget(dlg)
    dlg.concurrency.setValue(32)
    dlg.min_delay.setValue(2.5)
    dlg.depth_limited.setChecked(True)
    dlg.max_depth.setValue(4)
    dlg.allow_domains.setText("sina.com.cn, Sina.cn,  ")
    dlg.deny_domains.setText("ads.example.com")
    dlg.obey_robots.setChecked(False)
    dlg.user_agent.setText("test-agent/1.0")
    assert dlg.hub_refresh.currentData() == "adaptive" and dlg.hub_span_max.value() == 3600
    dlg.hub_refresh.setCurrentIndex(dlg.hub_refresh.findData("fixed"))
    dlg.hub_span_min.setValue(12)
    dlg.hub_span_max.setValue(900)
    s = dlg.settings()
    assert (s.concurrency, s.min_delay, s.max_depth, s.obey_robots) == (32, 2.5, 4, False)
    assert (s.hub_refresh, s.hub_span_min, s.hub_span_max) == ("fixed", 12, 900)
    assert s.allow_domains == ("sina.com.cn", "sina.cn") and s.allow_private
    dlg.user_agent.setText("  ")
    dlg.accept()
    assert dlg.isVisible() is False and "user agent" in dlg.error.text()
    prefs.save_settings(qsettings, s)
    loaded = prefs.load_settings(qsettings)
    assert loaded == CrawlSettings(
        **{**{f: getattr(s, f) for f in s.__slots__}, "allow_private": False}
    )
    qsettings.setValue(prefs.SETTINGS_KEY, "{broken")
    assert prefs.load_settings(qsettings) == prefs.WINDOW_DEFAULTS
    qsettings.setValue(prefs.SETTINGS_KEY, '{"values": {"concurrency": 0, "x": 1}}')
    assert prefs.load_settings(qsettings) == prefs.WINDOW_DEFAULTS
    assert prefs.WINDOW_DEFAULTS.extract == "on"  # the window extracts articles by default


def test_settings_ask(aloop):
    async def scenario():
        def fill(d):
            d.concurrency.setValue(5)
            d.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

        task = asyncio.ensure_future(SettingsDialog.ask(None, CrawlSettings()))
        await with_dialog(SettingsDialog, fill)
        result = await task
        assert result is not None and result.concurrency == 5

    run(aloop, scenario())
    assert Qt  # keep the import used
