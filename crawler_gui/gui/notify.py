"""Desktop notifications: an until-idle crawl finished, a crawl stopped on an error, a host
keeps failing. Shown as a tray message where the desktop has a system tray, else in the status
bar; always logged, and kept in :attr:`Notifier.sent` (newest last) for the window's tests."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QSystemTrayIcon

from crawler_gui.core.frontier import HostRow

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

__all__ = ["FailingHosts", "Notifier"]

log = logging.getLogger(__name__)

#: How long a tray message stays up (milliseconds).
SHOW_MS = 10_000


class FailingHosts:
    """Hosts that keep failing: ``threshold`` more URLs failed for good since the host was
    first seen, or since its last success, with no success in between. Each host is reported
    once (a success starts its count again and lets it be reported again)."""

    def __init__(self, threshold: int = 10) -> None:
        self.threshold = threshold
        #: host -> (done, failed) when its current run of failures began
        self._base: dict[str, tuple[int, int]] = {}
        self._told: set[str] = set()

    def update(self, hosts: Iterable[HostRow]) -> list[HostRow]:
        """Rows of a pool snapshot (all hosts, or the ones that changed); returns the hosts
        that have just crossed the threshold."""
        out: list[HostRow] = []
        for h in hosts:
            base = self._base.get(h.host)
            if base is None or h.done > base[0]:
                self._base[h.host] = (h.done, h.failed)
                self._told.discard(h.host)
                continue
            if h.failed - base[1] >= self.threshold and h.host not in self._told:
                self._told.add(h.host)
                out.append(h)
        return out

    def reset(self) -> None:
        self._base.clear()
        self._told.clear()


class Notifier(QObject):
    """Says something worth knowing while the window may be in the background."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.sent: list[tuple[str, str]] = []
        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(window.windowIcon(), self)
            self.tray.setToolTip(window.windowTitle())
            self.tray.activated.connect(self._raise_window)
            self.tray.show()

    def notify(self, title: str, text: str, *, warning: bool = False) -> None:
        self.sent.append((title, text))
        log.log(logging.WARNING if warning else logging.INFO, "%s: %s", title, text)
        if self.tray is not None and self.tray.isVisible():
            icon = (
                QSystemTrayIcon.MessageIcon.Warning
                if warning
                else QSystemTrayIcon.MessageIcon.Information
            )
            self.tray.showMessage(title, text, icon, SHOW_MS)
        else:
            self.window.statusBar().showMessage(f"{title}: {text}", 3 * SHOW_MS)

    def close(self) -> None:
        if self.tray is not None:
            self.tray.hide()

    def _raise_window(self, _reason: QSystemTrayIcon.ActivationReason) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()
