"""What the main window's parts use of the window, declared once for the type checker.

The window is one class made of parts, each a mixin in its own module: ``crawlactions`` (the
Crawl menu and the panes' row actions), ``fileactions`` (the File menu), ``mainmenu`` (the
actions, menus and toolbar), ``detailwindows`` (the detail windows), and ``mainwindow`` itself
(layout, panes' wiring, the session and the refresh tick). Under a type checker
:class:`WindowBase` is a :class:`QMainWindow` with the attributes and methods
:class:`~crawler_gui.gui.mainwindow.MainWindow` provides to its parts; at run time it is
``object``, so the parts are plain mixins and every attribute is the one ``MainWindow.__init__``
sets."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow

    from crawler_gui.engine.settings import CrawlSettings, CrawlState
    from crawler_gui.gui.dialogs.article import ArticleDialog
    from crawler_gui.gui.hostdetail import HostDetailDialog
    from crawler_gui.gui.models import ArticlesModel, HostsModel, WorkersModel
    from crawler_gui.gui.pagedetail import PageDetailDialog
    from crawler_gui.gui.pages import PagesPane
    from crawler_gui.gui.protocols import SessionLike, SessionOpener
    from crawler_gui.gui.tasks import Tasks
    from crawler_gui.gui.widgets import OverviewWidget, TablePane

    class WindowBase(QMainWindow):
        session: SessionLike | None
        settings: CrawlSettings
        qsettings: QSettings
        tasks: Tasks
        timer: QTimer
        _open_session: SessionOpener | None
        _version: int | None
        _closed: bool
        _workers_due: float
        overview: OverviewWidget
        state_label: QLabel
        docks: dict[str, QDockWidget]
        workers_dock: QDockWidget
        workers_model: WorkersModel
        hosts_model: HostsModel
        articles_model: ArticlesModel
        articles_pane: TablePane
        pages_pane: PagesPane
        host_dialogs: dict[str, HostDetailDialog]
        article_dialog: ArticleDialog | None
        page_dialog: PageDetailDialog | None

        def state(self) -> CrawlState | None: ...

        def state_text(self, state: CrawlState | None) -> str: ...

        def set_session(self, session: SessionLike | None) -> None: ...

        async def error(self, title: str, text: str, exc: BaseException) -> None: ...

        def _task_failed(self, exc: BaseException) -> None: ...

        def _update_actions(self) -> None: ...  # (``mainmenu``)

else:
    WindowBase = object
