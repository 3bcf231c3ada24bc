"""Table models: thin adapters from the pool's snapshot rows and the crawl's records to Qt
views.

- :mod:`~crawler_gui.gui.models.keyed`: ``KeyedTableModel``, rows keyed by host or URL that the
  model filters and sorts itself (and its roles and columns);
- :mod:`~crawler_gui.gui.models.pool`: the hosts, in flight, retries and hubs panes;
- :mod:`~crawler_gui.gui.models.workers`: the workers of a shared pool;
- :mod:`~crawler_gui.gui.models.records`: the log and the articles found.

The names below are the ones the window and the widgets use.
"""

from crawler_gui.gui.models.keyed import (
    RESORT_LARGE,
    RESORT_SECONDS,
    Column,
    KeyedTableModel,
    KeyRole,
    ProgressRole,
    SortRole,
    UrlRole,
    ranges,
)
from crawler_gui.gui.models.pool import HostsModel, HubsModel, InFlightModel, RetriesModel
from crawler_gui.gui.models.records import (
    ArticlesModel,
    LogBuffer,
    LogEntry,
    LogModel,
    RecordTableModel,
)
from crawler_gui.gui.models.workers import WorkerEntry, WorkersModel

__all__ = [
    "RESORT_LARGE",
    "RESORT_SECONDS",
    "ArticlesModel",
    "Column",
    "HostsModel",
    "HubsModel",
    "InFlightModel",
    "KeyRole",
    "KeyedTableModel",
    "LogBuffer",
    "LogEntry",
    "LogModel",
    "ProgressRole",
    "RecordTableModel",
    "RetriesModel",
    "SortRole",
    "UrlRole",
    "WorkerEntry",
    "WorkersModel",
    "ranges",
]
