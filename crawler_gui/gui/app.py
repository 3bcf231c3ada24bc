"""The GUI's composition root: ``run_gui`` builds the Qt application, the qasync loop (the
asyncio loop *is* the GUI thread), opens the pool through ``CrawlSession.open`` and shows the
main window."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QLibraryInfo,
    QLocale,
    QMessageLogContext,
    QSettings,
    QtMsgType,
    QTranslator,
    qInstallMessageHandler,
)
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle

from crawler_gui.engine.settings import CrawlSettings
from crawler_gui.errors import CrawlerGuiError
from crawler_gui.gui.preflight import EXIT_ENVIRONMENT

log = logging.getLogger(__name__)

ORGANIZATION = "crawler-gui"
APPLICATION = "crawler-gui"
DESKTOP_ID = "io.github.crawler_gui"

_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def qt_message_handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    """Route Qt's own messages into Python logging (``crawler_gui.qt.<category>``)."""
    category = context.category or "default"
    name = "crawler_gui.qt" if category == "default" else f"crawler_gui.qt.{category}"
    logging.getLogger(name).log(_QT_LEVELS.get(mode, logging.WARNING), "%s", message)


def install_qt_message_handler() -> Any:
    return qInstallMessageHandler(qt_message_handler)


def install_translators(app: QApplication, locale: QLocale | None = None) -> list[QTranslator]:
    """Load Qt's and our translations for ``locale`` (default: the system's)."""
    locale = locale if locale is not None else QLocale.system()
    installed: list[QTranslator] = []
    qt = QTranslator(app)
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        installed.append(qt)
    ours = QTranslator(app)
    folder = resources.files("crawler_gui.resources")
    if isinstance(folder, Path) and ours.load(locale, "crawler_gui", "_", str(folder)):
        app.installTranslator(ours)
        installed.append(ours)
    elif locale.language() not in (QLocale.Language.English, QLocale.Language.C):
        log.debug("no translation for %s", locale.name())
    return installed


def setup_application(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName("Crawler GUI")
    app.setDesktopFileName(DESKTOP_ID)
    app.setQuitOnLastWindowClosed(False)  # the window closes itself after an orderly shutdown
    app.setWindowIcon(app_icon())
    return app


def app_icon() -> QIcon:
    """The application icon from ``crawler_gui.resources`` (SVG, drawn at any size)."""
    ref = resources.files("crawler_gui.resources").joinpath("crawler-gui.svg")
    if isinstance(ref, Path) and ref.is_file():
        return QIcon(str(ref))
    try:
        pix = QPixmap()
        if pix.loadFromData(ref.read_bytes(), "SVG"):
            return QIcon(pix)
    except OSError:
        log.warning("application icon not found")
    return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon)


async def open_and_show(
    pool_dir: str | Path | None,
    *,
    demo: bool = False,
    settings: CrawlSettings | None = None,
    qsettings: QSettings | None = None,
) -> Any:
    """Open the pool and show the main window; returns the window (or None on error).

    ``pool_dir`` may be a Redis pool URL (``redis://host:port/db?name=news``): the window then
    joins that shared pool as one worker (pages in ``./crawler-gui-<name>``), shows the whole
    pool, and its pause/resume reach every worker. A pool folder that a headless crawl
    (``crawler-gui crawl``) holds opens *attached* to that crawl (``engine.control``)."""
    from crawler_gui.core.redis.location import is_pool_url
    from crawler_gui.engine.control.attached import open_or_attach
    from crawler_gui.engine.session import display_location
    from crawler_gui.gui import prefs
    from crawler_gui.gui.dialogs.running import show_message
    from crawler_gui.gui.mainwindow import MainWindow

    qs = qsettings if qsettings is not None else QSettings()
    settings = settings if settings is not None else prefs.load_settings(qs)
    location: Path | str
    if pool_dir and is_pool_url(str(pool_dir)):
        location = str(pool_dir).strip()
    elif pool_dir:
        location = Path(pool_dir)
    elif demo:
        location = prefs.default_pool_dir().with_name("demo-pool")
    else:
        location = prefs.last_pool(qs) or prefs.default_pool_dir()
    try:
        # (a missing folder is made by the pool's open, once it may be: nothing is written
        # before, not on a read-only disk nor beside a pool in use)
        session = await open_or_attach(location, settings, demo=demo)
    except (CrawlerGuiError, OSError) as exc:
        shown = display_location(location)
        log.error("cannot open the pool %s: %s", shown, exc)
        await show_message(
            None,
            QMessageBox.Icon.Critical,
            "Crawler GUI",
            f"The URL pool {shown} could not be opened.",
            detail=str(exc),
        )
        return None

    async def reopen(p: Path | str, s: CrawlSettings) -> Any:
        return await open_or_attach(p, s)

    window = MainWindow(session, qsettings=qs, open_session=reopen)
    if not demo and isinstance(location, Path):
        prefs.set_last_pool(qs, location)
    window.show()
    window.start_refresh()
    if demo:
        window.start()
    return window


def install_startup_message_handler() -> Any:
    """Route Qt's messages to logging as ``qt_message_handler`` does, and turn a fatal one
    (the platform plugin did not load: a display that cannot be reached, a library the
    preflight could not foresee) into one line and exit code 5 instead of Qt's abort and core
    dump. Installed only while the QApplication is being made; nothing is open yet then."""
    first_warning: list[str] = []

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        qt_message_handler(mode, context, message)
        if mode in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg) and not first_warning:
            first_warning.append(message.splitlines()[0] if message else "")
        if mode == QtMsgType.QtFatalMsg:
            reason = first_warning[0] if first_warning else message.splitlines()[0]
            sys.stderr.write(
                f"crawler-gui: the window cannot open (Qt: {reason}); to crawl without a "
                "window, run: crawler-gui crawl POOL_DIR\n"
            )
            sys.stderr.flush()
            os._exit(EXIT_ENVIRONMENT)

    return qInstallMessageHandler(handler)


def run_gui(
    pool_dir: str | None,
    *,
    demo: bool = False,
    settings: CrawlSettings | None = None,
    quit_after: float | None = None,
) -> int:
    """Run the desktop app until its window is closed (or, with ``quit_after``, until that many
    seconds have passed: the window then shuts down in order, as on Ctrl+Q). Returns the process
    exit code. Call ``preflight.desktop_problem()`` first: Qt aborts where there is no display."""
    from crawler_gui.gui.loop import BatchingEventLoop

    install_startup_message_handler()
    gui_logger = logging.getLogger("crawler_gui")
    if gui_logger.level == logging.NOTSET:
        gui_logger.setLevel(logging.INFO)  # the Log pane shows INFO and above
    app = setup_application()
    install_qt_message_handler()
    install_translators(app)
    loop = BatchingEventLoop(app)
    asyncio.set_event_loop(loop)

    async def main() -> int:
        window = await open_and_show(pool_dir, demo=demo, settings=settings)
        if window is None:
            return 1
        closed: asyncio.Future[None] = loop.create_future()

        def on_closed() -> None:
            if not closed.done():
                closed.set_result(None)

        window.closed.connect(on_closed)
        if quit_after is not None:
            loop.call_later(quit_after, window.close)
        await closed
        return 0

    try:
        return int(loop.run_until_complete(main()))
    finally:
        loop.close()
        asyncio.set_event_loop(None)
        qInstallMessageHandler(None)
