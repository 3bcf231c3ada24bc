"""The pool's panes: hosts, URLs in flight, retries and hubs, each a ``KeyedTableModel`` over
the rows of a pool snapshot.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import (
    QObject,
    Qt,
)

from crawler_gui.core.frontier import (
    HostRow,
    HubRow,
    PendingRow,
)
from crawler_gui.gui import fmt, why
from crawler_gui.gui.models.keyed import (
    _DISPLAY,
    _TOOLTIP,
    Column,
    KeyedTableModel,
    _Index,
)


def _elapsed_progress(row: PendingRow, now: float) -> float | None:
    span = row.expires - row.started
    if span <= 0:
        return 1.0
    return min(1.0, max(0.0, (now - row.started) / span))


class HostsModel(KeyedTableModel):
    """One row per host; updated incrementally from ``snapshot(since=...)``."""

    SEARCH_FIELDS = ("host", "last_status")

    URL_FIELD = None

    def __init__(self, parent: QObject | None = None) -> None:
        #: URLs one host may have in flight (the crawl's politeness), for the Why column.
        self.max_in_flight = 1
        #: (end of a host's wait, host): the Why column of a host whose politeness wait or
        #: backoff ended since the last tick is repainted, not every row at every tick.
        self._ends: list[tuple[float, str]] = []
        super().__init__(parent)
        self.why_column = len(self._columns) - 1

    def update(
        self, rows: Iterable[Any], *, now: float, complete: bool = True, relayout: bool = True
    ) -> None:
        rows = list(rows)
        super().update(rows, now=now, complete=complete, relayout=relayout)
        ends = self._ends
        for r in rows:
            end = r.next_allowed if r.next_allowed > r.backoff_until else r.backoff_until
            if end > now:
                heapq.heappush(ends, (end, r.host))
        ended: list[int] = []
        while ends and ends[0][0] <= now:
            i = self._index.get(heapq.heappop(ends)[1])
            if i is not None:
                ended.append(i)
        if ended:
            col = self.why_column
            self.dataChanged.emit(
                self.index(min(ended), col), self.index(max(ended), col), [_DISPLAY]
            )

    def clear(self) -> None:
        self._ends.clear()
        super().clear()

    def key(self, row: HostRow) -> str:
        return row.host

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(
                self.tr("Waiting"), lambda r, n: fmt.count(r.waiting), lambda r, n: r.waiting, True
            ),
            Column(
                self.tr("In flight"),
                lambda r, n: fmt.count(r.in_flight),
                lambda r, n: r.in_flight,
                True,
            ),
            Column(self.tr("Done"), lambda r, n: fmt.count(r.done), lambda r, n: r.done, True),
            Column(
                self.tr("Failed"), lambda r, n: fmt.count(r.failed), lambda r, n: r.failed, True
            ),
            Column(
                self.tr("Retrying"),
                lambda r, n: fmt.count(r.retrying),
                lambda r, n: r.retrying,
                True,
            ),
            Column(self.tr("Last status"), lambda r, n: r.last_status),
            Column(
                self.tr("Next allowed"),
                lambda r, n: fmt.clock(r.next_allowed),
                lambda r, n: r.next_allowed,
                tooltip=self.tr("Earliest time of the next request to this host"),
            ),
            Column(
                self.tr("Delay"),
                lambda r, n: fmt.seconds(r.delay),
                lambda r, n: r.delay,
                True,
                tooltip=self.tr("Current politeness delay between two requests"),
            ),
            Column(
                self.tr("Backoff until"),
                lambda r, n: fmt.clock(r.backoff_until),
                lambda r, n: r.backoff_until,
                tooltip=self.tr("End of a 429/503 backoff for this host"),
            ),
            Column(
                self.tr("Why"),
                lambda r, n: why.host(r, n, self.max_in_flight),
                tooltip=self.tr("What holds the host back now, from the pool's own records"),
                live=True,
            ),
        )


class InFlightModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "worker")
    #: The column of the worker holding the lease (last: the other columns keep their
    #: numbers; empty, and hidden by the window, for a local pool).
    WORKER_COLUMN = 6
    LIVE = True

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(self.tr("Depth"), lambda r, n: str(r.depth), lambda r, n: r.depth, True),
            Column(
                self.tr("Hub"),
                lambda r, n: self.tr("hub") if r.is_hub else "",
                lambda r, n: int(r.is_hub),
            ),
            Column(
                self.tr("Elapsed"),
                lambda r, n: fmt.duration(n - r.started),
                lambda r, n: n - r.started,
                True,
                live=True,
            ),
            Column(
                self.tr("Lease"),
                lambda r, n: self.tr("expires %1").replace("%1", fmt.countdown(r.expires, n)),
                lambda r, n: r.expires,
                progress=_elapsed_progress,
                tooltip=self.tr("Time until the pool takes the URL back"),
                live=True,
            ),
            Column(
                self.tr("Worker"),
                lambda r, n: r.worker,
                tooltip=self.tr("The worker fetching the URL (shared pools)"),
            ),
            Column(
                self.tr("Why"),
                why.lease,
                lambda r, n: r.started,
                tooltip=self.tr("Who holds the URL's lease, and since when"),
                live=True,
            ),
        )


class RetriesModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "last_error")
    LIVE = True

    def __init__(self, parent: QObject | None = None) -> None:
        self.threshold = 0
        super().__init__(parent)

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(self.tr("Host"), lambda r, n: r.host),
            Column(
                self.tr("Attempts"),
                lambda r, n: f"{r.attempts} / {self.threshold}",
                lambda r, n: r.attempts,
                True,
                tooltip=self.tr("Failed attempts so far / attempts allowed"),
            ),
            Column(
                self.tr("Last error"),
                lambda r, n: why.error(r.kind, r.status, r.last_error),
                tooltip=self.tr("The last attempt's error (the fetcher's own words: hover)"),
            ),
            Column(
                self.tr("Next try"),
                lambda r, n: fmt.countdown(r.next_try, n),
                lambda r, n: r.next_try,
                True,
                live=True,
            ),
            Column(
                self.tr("Why"),
                why.retry,
                lambda r, n: r.next_try,
                tooltip=self.tr("Why the URL waits and until when"),
                live=True,
            ),
        )

    #: The column of the last error (its tooltip is the fetcher's own message).
    ERROR_COLUMN = 3

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == _TOOLTIP and index.column() == self.ERROR_COLUMN and index.isValid():
            r = index.row()
            if 0 <= r < len(self._rows):
                return self._rows[r].last_error or None
        return super().data(index, role)


class HubsModel(KeyedTableModel):
    SEARCH_FIELDS = ("url", "host", "last_result")
    LIVE = True

    def columns(self) -> tuple[Column, ...]:
        return (
            Column(self.tr("URL"), lambda r, n: r.url),
            Column(
                self.tr("Span"),
                lambda r, n: fmt.duration(_span_of(r)),
                lambda r, n: _span_of(r),
                True,
                tooltip=self.tr(
                    "How often the hub is refreshed now; with adaptive refresh the hubs share "
                    "the budget of their own spans by how often each publishes (Why says why)"
                ),
            ),
            Column(
                self.tr("Last refresh"),
                lambda r, n: fmt.clock(r.last_refresh) if r.last_refresh else self.tr("never"),
                lambda r, n: r.last_refresh,
            ),
            Column(self.tr("Result"), lambda r, n: r.last_result),
            Column(
                self.tr("Next refresh"),
                self._next_text,
                lambda r, n: float("inf") if r.parked else r.next_due,
                progress=self._next_progress,
                live=True,
            ),
            Column(
                self.tr("Why"),
                self._why_text,
                tooltip=self.tr(
                    "Why the hub has its span, or why it is not refreshed by itself "
                    "(Refresh now resumes it)"
                ),
            ),
            Column(self.tr("Kind"), lambda r, n: self._kind_text(r.kind)),
            Column(
                self.tr("New/h"),
                lambda r, n: f"{r.rate * 3600:.1f}" if r.reason not in ("", "new") else "",
                lambda r, n: r.rate,
                True,
                tooltip=self.tr("Its learned rate: new articles an hour"),
            ),
            Column(
                self.tr("New"),
                lambda r, n: f"{r.last_new} / {r.listed}" if r.listed else str(r.last_new),
                lambda r, n: r.last_new,
                True,
                tooltip=self.tr(
                    "New articles at its last refresh / items its list showed (all new: "
                    "some may have scrolled off unseen)"
                ),
            ),
            Column(
                self.tr("Articles"),
                lambda r, n: str(r.yielded),
                lambda r, n: r.yielded,
                True,
                tooltip=self.tr("New articles it has yielded in all"),
            ),
        )

    def _kind_text(self, kind: str) -> str:
        return {
            "page": self.tr("page"),
            "feed": self.tr("feed"),
            "sitemap": self.tr("sitemap"),
        }.get(kind, kind)

    def _next_text(self, r: HubRow, now: float) -> str:
        if r.in_flight:
            return self.tr("refreshing")
        if r.parked:
            return self.tr("parked")
        return fmt.countdown(r.next_due, now)

    def _why_text(self, r: HubRow, _now: float) -> str:
        return why.hub(r)  # the one way every pane words its reasons

    @staticmethod
    def _next_progress(r: HubRow, now: float) -> float | None:
        if r.parked:
            return None
        span = _span_of(r)
        if r.in_flight or span <= 0:
            return 1.0
        return min(1.0, max(0.0, 1.0 - (r.next_due - now) / span))


def _span_of(r: HubRow) -> float:
    """A hub's current span: the plan's (0 before the pool planned it: its own)."""
    return r.planned if r.planned > 0 else r.span
