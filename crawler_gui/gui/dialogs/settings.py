"""Settings…: concurrency, politeness, timeouts, depth, scope, robots, user agent and storage."""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.errors import ConfigError
from crawler_gui.gui.dialogs.running import run_dialog


def _domains(text: str) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            d.strip().lower().strip(".") for d in text.replace(",", " ").split() if d.strip(".")
        )
    )


class SettingsDialog(QDialog):
    """Concurrency, politeness, timeouts, depth, scope, robots and user agent."""

    def __init__(
        self, parent: QWidget | None = None, settings: CrawlSettings | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle(self.tr("Crawl settings"))
        self._base = settings or CrawlSettings()
        tabs = QTabWidget(self)

        fetch = QWidget(tabs)
        f1 = QFormLayout(fetch)
        self.concurrency = self._int(1, 1000, self.tr("Fetches at once over all hosts"))
        self.per_host = self._int(1, 16, self.tr("Fetches at once per host"))
        self.min_delay = self._float(0, 3600, " s")
        self.delay_factor = self._float(0, 100, " ×")
        self.max_delay = self._float(0, 3600, " s")
        self.connect_timeout = self._float(0.1, 600, " s")
        self.read_timeout = self._float(0.1, 3600, " s")
        self.total_timeout = self._float(0.1, 3600, " s")
        self.failure_threshold = self._int(0, 100, self.tr("Failed attempts before giving up"))
        f1.addRow(self.tr("Concurrency:"), self.concurrency)
        f1.addRow(self.tr("Per host:"), self.per_host)
        f1.addRow(self.tr("Minimum delay per host:"), self.min_delay)
        f1.addRow(self.tr("Delay factor (× response time):"), self.delay_factor)
        f1.addRow(self.tr("Maximum delay:"), self.max_delay)
        f1.addRow(self.tr("Connect timeout:"), self.connect_timeout)
        f1.addRow(self.tr("Read timeout:"), self.read_timeout)
        f1.addRow(self.tr("Total timeout:"), self.total_timeout)
        f1.addRow(self.tr("Retries:"), self.failure_threshold)
        self.hub_refresh = QComboBox(fetch)
        self.hub_refresh.setObjectName("hub-refresh")
        self.hub_refresh.addItem(self.tr("adaptive: by how often each hub publishes"), "adaptive")
        self.hub_refresh.addItem(self.tr("fixed: every hub on its own span"), "fixed")
        self.hub_refresh.setToolTip(
            self.tr(
                "Adaptive: the hubs share the fetches their spans allow (the same number), "
                "the busy ones more often, the quiet ones less"
            )
        )
        self.hub_span_min = self._float(1, 86400, " s")
        self.hub_span_min.setObjectName("hub-span-min")
        self.hub_span_min.setToolTip(self.tr("Adaptive refresh: no hub more often than this"))
        self.hub_span_max = self._float(1, 7 * 86400, " s")
        self.hub_span_max.setObjectName("hub-span-max")
        self.hub_span_max.setToolTip(
            self.tr("Adaptive refresh: every hub at least this often, a silent one too")
        )
        f1.addRow(self.tr("Hub refresh:"), self.hub_refresh)
        f1.addRow(self.tr("Shortest hub span:"), self.hub_span_min)
        f1.addRow(self.tr("Longest hub span:"), self.hub_span_max)
        tabs.addTab(fetch, self.tr("Fetching"))

        scope = QWidget(tabs)
        f2 = QFormLayout(scope)
        self.depth_limited = QCheckBox(self.tr("Limit depth to"), scope)
        self.max_depth = self._int(0, 1000, self.tr("Links followed from a seed or hub"))
        self.depth_limited.toggled.connect(self.max_depth.setEnabled)
        depth_row = QHBoxLayout()
        depth_row.addWidget(self.depth_limited)
        depth_row.addWidget(self.max_depth, 1)
        self.allow_domains = QLineEdit(scope)
        self.allow_domains.setPlaceholderText(self.tr("example.com, news.example.org"))
        self.deny_domains = QLineEdit(scope)
        self.follow_external = QCheckBox(self.tr("Follow links to other sites"), scope)
        self.obey_robots = QCheckBox(self.tr("Obey robots.txt"), scope)
        f2.addRow(self.tr("Depth:"), depth_row)
        f2.addRow(self.tr("Also allow domains:"), self.allow_domains)
        f2.addRow(self.tr("Deny domains:"), self.deny_domains)
        f2.addRow("", self.follow_external)
        f2.addRow("", self.obey_robots)
        tabs.addTab(scope, self.tr("Scope"))

        ident = QWidget(tabs)
        f3 = QFormLayout(ident)
        self.user_agent = QLineEdit(ident)
        f3.addRow(self.tr("User agent:"), self.user_agent)
        tabs.addTab(ident, self.tr("Identity"))

        storage = QWidget(tabs)
        f4 = QFormLayout(storage)
        self.sync = QComboBox(storage)
        self.sync.setObjectName("sync")
        for mode, text in (
            ("batch", self.tr("After every batch of results (safest, slowest)")),
            ("second", self.tr("At least once a second")),
            ("off", self.tr("When the system decides (fastest)")),
        ):
            self.sync.addItem(text, mode)
        self.sync.setToolTip(
            self.tr(
                "When the pool's writes are forced to the disk: bounds what a power cut can "
                "lose. A crash of the program alone loses nothing either way."
            )
        )
        self.min_free = self._float(0, 1_000_000, " MB")
        self.min_free.setObjectName("min-free")
        self.min_free.setToolTip(
            self.tr("The crawl pauses when a disk of the crawl has less free space; 0: never")
        )
        f4.addRow(self.tr("Write to the disk:"), self.sync)
        f4.addRow(self.tr("Pause below free space:"), self.min_free)
        tabs.addTab(storage, self.tr("Storage"))

        self.error = QLabel(self)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults,
            self,
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            lambda: self.load(CrawlSettings(allow_private=self._base.allow_private))
        )
        lay = QVBoxLayout(self)
        lay.addWidget(tabs)
        lay.addWidget(self.error)
        lay.addWidget(self.buttons)
        self.load(self._base)

    def _int(self, lo: int, hi: int, tip: str) -> QSpinBox:
        w = QSpinBox(self)
        w.setRange(lo, hi)
        w.setToolTip(tip)
        return w

    def _float(self, lo: float, hi: float, suffix: str) -> QDoubleSpinBox:
        w = QDoubleSpinBox(self)
        w.setRange(lo, hi)
        w.setDecimals(1)
        if suffix == " s":  # seconds, in the window's language ("%1 s" of fmt.duration)
            suffix = " " + QCoreApplication.translate("fmt", "%1 s").replace("%1", "").strip()
        w.setSuffix(suffix)
        return w

    def load(self, s: CrawlSettings) -> None:
        self.concurrency.setValue(s.concurrency)
        self.per_host.setValue(s.per_host)
        self.min_delay.setValue(s.min_delay)
        self.delay_factor.setValue(s.delay_factor)
        self.max_delay.setValue(s.max_delay)
        self.connect_timeout.setValue(s.connect_timeout)
        self.read_timeout.setValue(s.read_timeout)
        self.total_timeout.setValue(s.total_timeout)
        self.failure_threshold.setValue(s.failure_threshold)
        self.hub_refresh.setCurrentIndex(max(0, self.hub_refresh.findData(s.hub_refresh)))
        self.hub_span_min.setValue(s.hub_span_min)
        self.hub_span_max.setValue(s.hub_span_max)
        self.depth_limited.setChecked(s.max_depth is not None)
        self.max_depth.setEnabled(s.max_depth is not None)
        self.max_depth.setValue(s.max_depth if s.max_depth is not None else 5)
        self.allow_domains.setText(", ".join(s.allow_domains))
        self.deny_domains.setText(", ".join(s.deny_domains))
        self.follow_external.setChecked(s.follow_external)
        self.obey_robots.setChecked(s.obey_robots)
        self.user_agent.setText(s.user_agent)
        self.sync.setCurrentIndex(max(0, self.sync.findData(s.sync)))
        self.min_free.setValue(s.min_free_mb)

    def settings(self) -> CrawlSettings:
        """The edited settings; raises ConfigError when they are inconsistent."""
        ua = self.user_agent.text().strip()
        if not ua:
            raise ConfigError(self.tr("the user agent must not be empty"))
        return dataclasses.replace(
            self._base,
            concurrency=self.concurrency.value(),
            per_host=self.per_host.value(),
            min_delay=self.min_delay.value(),
            delay_factor=self.delay_factor.value(),
            max_delay=self.max_delay.value(),
            connect_timeout=self.connect_timeout.value(),
            read_timeout=self.read_timeout.value(),
            total_timeout=self.total_timeout.value(),
            failure_threshold=self.failure_threshold.value(),
            hub_refresh=str(self.hub_refresh.currentData()),
            hub_span_min=self.hub_span_min.value(),
            hub_span_max=self.hub_span_max.value(),
            max_depth=self.max_depth.value() if self.depth_limited.isChecked() else None,
            allow_domains=_domains(self.allow_domains.text()),
            deny_domains=_domains(self.deny_domains.text()),
            follow_external=self.follow_external.isChecked(),
            obey_robots=self.obey_robots.isChecked(),
            user_agent=ua,
            sync=str(self.sync.currentData()),
            min_free_mb=self.min_free.value(),
        )

    def accept(self) -> None:
        try:
            self.settings()
        except ConfigError as exc:
            self.error.setText(str(exc))
            return
        super().accept()

    @classmethod
    async def ask(
        cls, parent: QWidget | None = None, settings: CrawlSettings | None = None
    ) -> CrawlSettings | None:
        dlg = cls(parent, settings)
        try:
            if await run_dialog(dlg) != QDialog.DialogCode.Accepted:
                return None
            return dlg.settings()
        finally:
            dlg.deleteLater()
