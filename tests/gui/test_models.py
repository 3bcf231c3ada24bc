from __future__ import annotations

import logging
from collections import Counter
from typing import NamedTuple

import pytest
from PySide6.QtCore import QSortFilterProxyModel, Qt

from crawler_gui.core.frontier import PARKED_CRASHED
from crawler_gui.engine.extract.service import ArticleSummary
from crawler_gui.gui import fmt
from crawler_gui.gui.models import (
    ArticlesModel,
    Column,
    HostsModel,
    HubsModel,
    InFlightModel,
    KeyedTableModel,
    LogBuffer,
    LogModel,
    ProgressRole,
    RetriesModel,
    SortRole,
    UrlRole,
    ranges,
)
from tests.gui.gui_helpers import T0, host, hub, pending, retry, snapshot, stats, totals

pytestmark = pytest.mark.gui


class Spy:
    """Counts a model's structural and data signals."""

    def __init__(self, model):
        self.changed: list[tuple[int, int, int, int]] = []
        self.inserted: list[tuple[int, int]] = []
        self.removed: list[tuple[int, int]] = []
        model.dataChanged.connect(
            lambda a, b, roles=(): self.changed.append((a.row(), a.column(), b.row(), b.column()))
        )
        model.rowsInserted.connect(lambda _p, f, last: self.inserted.append((f, last)))
        model.rowsRemoved.connect(lambda _p, f, last: self.removed.append((f, last)))

    def reset(self):
        self.changed.clear()
        self.inserted.clear()
        self.removed.clear()


def test_ranges():
    assert ranges([]) == []
    assert ranges([1, 2, 3, 7, 9, 10]) == [(1, 3), (7, 7), (9, 10)]


@pytest.mark.parametrize("model_cls", [HostsModel, InFlightModel, RetriesModel, HubsModel])
def test_qtmodeltester_on_snapshot_models(qtmodeltester, model_cls):
    model = model_cls()
    rows = {
        HostsModel: [host(f"h{i}.example.com", i) for i in range(20)],
        InFlightModel: [pending(f"http://h{i}.example.com/p") for i in range(5)],
        RetriesModel: [retry(f"http://h{i}.example.com/r") for i in range(5)],
        HubsModel: [hub(f"http://h{i}.example.com/") for i in range(5)],
    }[model_cls]
    model.update(rows, now=T0 + 10)
    qtmodeltester.check(model)
    model.update(rows[2:], now=T0 + 11)
    qtmodeltester.check(model)
    # The model's own sort and filter: a layout change that also shows and hides rows.
    model.sort(1, Qt.SortOrder.DescendingOrder)
    model.set_filter("h3")
    qtmodeltester.check(model)
    assert 0 < model.rowCount() < model.total()
    model.set_filter("")
    model.update(rows, now=T0 + 12)
    assert model.rowCount() == model.total() == len(rows)
    qtmodeltester.check(model)
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SortRole)
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(proxy)


def test_qtmodeltester_on_log_model(qtmodeltester):
    model = LogModel(maxlen=10)
    buf = LogBuffer()
    logger = logging.getLogger("crawler_gui.test.models")
    logger.addHandler(buf)
    logger.setLevel(logging.INFO)
    try:
        for i in range(25):
            logger.info("line %d", i)
    finally:
        logger.removeHandler(buf)
    spy = Spy(model)
    model.append(buf.drain()[:8])
    model.append([])
    assert spy.inserted == [(0, 7)]
    entries = buf.drain()
    assert entries == []
    qtmodeltester.check(model)


def test_log_model_is_bounded_and_trims_in_one_range():
    model = LogModel(maxlen=10)
    buf = LogBuffer()
    logger = logging.getLogger("crawler_gui.test.bounded")
    logger.addHandler(buf)
    logger.setLevel(logging.INFO)
    try:
        for i in range(8):
            logger.warning("first %d", i)
        model.append(buf.drain())
        spy = Spy(model)
        for i in range(5):
            logger.info("second %d", i)
        model.append(buf.drain())
    finally:
        logger.removeHandler(buf)
    assert model.rowCount() == 10
    assert spy.removed == [(0, 2)] and spy.inserted == [(5, 9)]
    assert model.index(9, 3).data() == "second 4"
    assert model.index(0, 1).data() == "WARNING"


def test_hosts_incremental_updates_are_ranged_and_stable():
    model = HostsModel()
    spy = Spy(model)
    hosts = [host(f"h{i:05d}.example.com", waiting=i) for i in range(10_000)]
    model.update(hosts, now=T0, complete=True)
    assert model.rowCount() == 10_000
    assert spy.inserted == [(0, 9999)] and spy.changed == []
    spy.reset()
    # an incremental tick: three hosts changed, two new ones appear
    changed = [
        host("h00010.example.com", waiting=0, in_flight=1),
        host("h00500.example.com", waiting=7, done=3),
        host("h00020.example.com", waiting=0, last_status="200"),
        host("new1.example.com"),
        host("new2.example.com"),
    ]
    model.update(changed, now=T0 + 1, complete=False)
    last = model.columnCount() - 1
    assert spy.changed == [(10, 0, 500, last)]  # ONE ranged dataChanged for the whole tick
    assert spy.inserted == [(10_000, 10_001)]  # new rows appended in one batch
    assert spy.removed == []
    assert model.find("h00010.example.com") == 10  # rows did not move
    assert model.index(500, 3).data() == "3"
    spy.reset()
    # a tick with no change emits nothing at all
    model.update([], now=T0 + 2, complete=False)
    assert (spy.changed, spy.inserted, spy.removed) == ([], [], [])
    # a complete snapshot removes the hosts that are gone, in contiguous ranges
    keep = [r for i, r in enumerate(model.rows()) if not (100 <= i < 200 or i == 5000)]
    model.update(keep, now=T0 + 3, complete=True)
    assert spy.removed == [(5000, 5000), (100, 199)]
    assert model.rowCount() == 10_002 - 101
    assert model.find("h00300.example.com") == 200


def test_live_models_repaint_only_their_live_columns_each_tick():
    model = InFlightModel()
    spy = Spy(model)
    rows = [pending(f"http://h{i}.example.com/x", started=T0) for i in range(50)]
    model.update(rows, now=T0 + 1)
    assert spy.inserted == [(0, 49)]
    assert spy.changed == []
    spy.reset()
    for tick in range(3):  # time moves: the elapsed, lease and Why columns repaint
        model.update(rows, now=T0 + 2 + tick)
    live = [i for i in range(model.columnCount()) if model._columns[i].live]
    assert live == [4, 5, 7]
    assert spy.changed == [(0, 4, 49, 5), (0, 7, 49, 7)] * 3
    assert model.index(0, 4).data() == "4 s"
    assert model.index(0, 5).data(ProgressRole) == pytest.approx(4 / 300)
    spy.reset()
    model.update(rows[:10] + rows[20:] + [pending("http://new.example.com/")], now=T0 + 5)
    assert spy.removed == [(10, 19)] and spy.inserted == [(40, 40)]
    assert len(spy.changed) == 2


def test_a_changed_row_repaints_the_columns_whose_text_changed():
    """Once a row's texts were shown, a change repaints only the cells whose text changed:
    a crawl changes a host's counts and reason, seldom its name or delay."""
    model = HostsModel()
    spy = Spy(model)
    rows = [host(f"h{i}.example.com", waiting=5, next_allowed=T0 - 10) for i in range(20)]
    model.update(rows, now=T0)
    for r in range(model.rowCount()):  # what a view paints
        for c in range(model.columnCount()):
            model.index(r, c).data()
    spy.reset()
    rows[3] = rows[3]._replace(done=4)
    rows[7] = rows[7]._replace(waiting=2, done=1)
    model.update(rows, now=T0)
    done = next(
        i
        for i in range(model.columnCount())
        if model.headerData(i, Qt.Orientation.Horizontal) == "Done"
    )
    waiting = next(
        i
        for i in range(model.columnCount())
        if model.headerData(i, Qt.Orientation.Horizontal) == "Waiting"
    )
    cols = sorted({waiting, done})
    expected = [(3, c0, 7, c1) for c0, c1 in ranges(cols)]
    assert spy.changed == expected
    assert model.index(7, waiting).data() == "2" and model.index(3, done).data() == "4"
    # a row whose texts were never shown repaints whole
    model.update([*rows, host("new.example.com")], now=T0)
    spy.reset()
    model.update([*rows, host("new.example.com", done=9)], now=T0)
    assert spy.changed == [(20, 0, 20, model.columnCount() - 1)]


class _Item(NamedTuple):
    k: str
    a: int
    b: int


class _CountingModel(KeyedTableModel):
    """Three columns whose texts count how often they are computed."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        super().__init__()

    def columns(self) -> tuple[Column, ...]:
        def col(field: str) -> Column:
            def display(r: _Item, _now: float) -> str:
                self.calls[field] += 1
                return str(getattr(r, field))

            return Column(field, display)

        return (col("k"), col("a"), col("b"))

    def key(self, row: _Item) -> str:
        return row.k


def test_a_tick_of_many_changed_rows_computes_a_column_only_until_it_must_repaint():
    """Thousands of hosts change per tick on a big crawl and a view shows a few dozen: the
    update finds the columns to repaint without formatting every cell of every changed row
    (that was 50-150 ms per tick with 10,000 hosts), and still finds a change in the last row."""
    model = _CountingModel()
    spy = Spy(model)
    rows = [_Item(f"r{i:04d}", 0, 0) for i in range(1000)]
    model.update(rows, now=T0)
    for r in range(model.rowCount()):  # what a view paints: every text is now on screen
        for c in range(model.columnCount()):
            model.index(r, c).data()
    model.calls.clear()
    spy.reset()
    rows = [r._replace(a=1) for r in rows]
    rows[-1] = rows[-1]._replace(b=1)
    model.update(rows, now=T0)
    assert spy.changed == [(0, 1, 999, 2)]  # columns a and b, every changed row
    assert model.calls["a"] == 1  # known to repaint after the first row
    assert model.calls["b"] == 1000  # a change in the last row only is still found
    assert model.index(999, 2).data() == "1" and model.index(0, 1).data() == "1"
    # rows never shown: the first one repaints its row whole, which ends the search at once
    fresh = _CountingModel()
    spy = Spy(fresh)
    fresh.update(rows, now=T0)
    fresh.update([r._replace(a=2) for r in rows], now=T0)
    assert spy.changed == [(0, 0, 999, 2)]
    assert sum(fresh.calls.values()) == 0


class _SortCountingModel(_CountingModel):
    """Sorts by column ``a`` through a sort value that counts its calls."""

    def columns(self) -> tuple[Column, ...]:
        k, a, b = super().columns()

        def sort_a(r: _Item, _now: float) -> int:
            self.calls["sort"] += 1
            return r.a

        return (k, Column("a", a.display, sort_a, True), b)


def test_a_tick_whose_changed_rows_keep_their_place_does_not_re_sort_the_table():
    model = _SortCountingModel()
    rows = [_Item(f"r{i:03d}", i % 50, 0) for i in range(500)]
    model.update(rows, now=T0)
    model.sort(1, Qt.SortOrder.DescendingOrder)
    order = [r.k for r in model.rows()]
    layouts: list[int] = []
    model.layoutChanged.connect(lambda *_a: layouts.append(1))
    model.calls.clear()
    rows[7] = rows[7]._replace(b=5)  # not the sort column: stays where it is
    model.update(rows, now=T0 + 1)
    assert model.calls["sort"] == 2  # the changed row's old and new value, not 500 rows
    assert [r.k for r in model.rows()] == order and layouts == []
    assert model.index(model.find("r007"), 2).data() == "5"
    rows[8] = rows[8]._replace(a=99)  # the sort column: moves to the top
    model.update(rows, now=T0 + 2)
    assert model.find("r008") == 0 and layouts == [1]
    # filtered (a row's search text: its cells, one a line): a change that makes a row match
    # shows it, one that does not leaves it out, one of a shown row keeps it in order
    model.set_filter("0\n7")  # column a ends in 0, column b is 7
    assert model.rowCount() == 0
    rows[30] = rows[30]._replace(b=6)
    model.update(rows, now=T0 + 3)
    assert model.rowCount() == 0
    rows[20] = rows[20]._replace(b=7)
    rows[40] = rows[40]._replace(b=7)
    model.update(rows, now=T0 + 4)
    assert [r.k for r in model.rows()] == ["r040", "r020"]  # a = 40, 20: descending
    rows[20] = rows[20]._replace(a=50)
    model.update(rows, now=T0 + 5)
    assert [r.k for r in model.rows()] == ["r020", "r040"]
    rows[40] = rows[40]._replace(b=8)
    model.update(rows, now=T0 + 6)
    assert [r.k for r in model.rows()] == ["r020"]


def test_retries_and_hubs_text():
    r = RetriesModel()
    r.threshold = 3
    r.update([retry("http://a.example.com/x", attempts=2, next_try=T0 + 25)], now=T0)
    assert r.index(0, 2).data() == "2 / 3"
    assert r.index(0, 4).data() == "in 25 s"
    r.update([retry("http://a.example.com/x", attempts=2, next_try=T0 + 25)], now=T0 + 30)
    assert r.index(0, 4).data() == "due"
    h = HubsModel()
    h.update([hub("http://a.example.com/", span=300, next_due=T0 + 150)], now=T0)
    assert h.index(0, 4).data() == "in 2 min 30 s"
    assert h.index(0, 4).data(ProgressRole) == pytest.approx(0.5)
    assert h.index(0, 1).data() == "5 min"
    assert h.index(0, 5).data() == ""  # Why: empty for a hub refreshed by itself
    h.update(
        [hub("http://a.example.com/", 300, T0 - 5)._replace(parked=PARKED_CRASHED, crashes=4)],
        now=T0,
    )
    assert h.index(0, 4).data() == "parked"
    assert h.index(0, 4).data(ProgressRole) is None
    assert "4 times" in h.index(0, 5).data() and "Refresh" in h.index(0, 5).data()
    assert h.headerData(5, Qt.Orientation.Horizontal) == "Why"


def test_sorting_by_number_not_text():
    model = HostsModel()
    model.update(
        [host("a.example.com", 9), host("b.example.com", 10), host("c.example.com", 100)], now=T0
    )
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SortRole)
    proxy.sort(1, Qt.SortOrder.DescendingOrder)
    assert [proxy.index(i, 0).data() for i in range(3)] == [
        "c.example.com",
        "b.example.com",
        "a.example.com",
    ]


def test_overview_and_chart(qtbot):
    from crawler_gui.gui.widgets import OverviewWidget

    w = OverviewWidget()
    qtbot.addWidget(w)
    snap = snapshot([host("a.example.com")], totals=totals(waiting=600, done=40, hosts=1))
    w.update_from(snap, stats(pages_per_s_60s=2.0), "Running")
    w.show()
    w.chart.grab()  # paints without warnings
    assert w.value("done") == "40"
    assert w.value("status_2xx") == "110"
    assert w.value("latency") == "120 ms / 400 ms / 900 ms"
    assert w.value("disk") == "–"  # not measured yet
    use = {"pool": 2 * 1024 * 1024, "pages": 9 * 1024 * 1024, "total": 11 * 1024 * 1024}
    w.update_from(snap, stats(pages_per_s_60s=2.0, disk_use=use), "Running")
    disk = w.value("disk")
    assert disk.startswith(fmt.data_size(use["total"]))
    assert f"pool {fmt.data_size(use['pool'])}" in disk and "WARC" not in disk
    estimate = w.estimate.text()
    assert "5 min" in estimate and "0 s" not in estimate and "lower bound" in estimate
    w.update_from(snap, stats(pages_per_s_60s=0.0, pages_per_s_avg=0.0), "Paused")
    assert "no rate" in w.estimate.text()
    assert len(w.chart.series()) == 60


@pytest.mark.gui
def test_host_filter_matches_typed_text_and_follows_changes_on_its_beat(qtbot):
    from crawler_gui.gui.widgets import TablePane

    model = HostsModel()
    pane = TablePane(model, name="hosts")
    qtbot.addWidget(pane)
    assert pane.view.model() is model  # no proxy between: the model filters itself
    model.update([host(f"news{i}.example.com", waiting=i) for i in range(50)], now=T0)
    pane.filter.setText("NEWS1")  # case-insensitive substring of the row's text
    assert model.rowCount() == 11  # news1, news10..news19
    assert pane.count_label.text() == "11 / 50" and model.total() == 50
    assert model.find("news2.example.com") is None
    assert model.get("news2.example.com").waiting == 2  # filtered out, still known
    pane.filter.setText("")
    assert model.rowCount() == 50 and pane.count_label.text() == "50"
    pane.filter.setText("last-status-xyz")
    assert model.rowCount() == 0
    # A row whose values change starts matching on the next re-filter (a small table: the
    # next update); a new row that matches comes at once.
    rows = [host(f"news{i}.example.com", waiting=i) for i in range(50)]
    rows[3] = host("news3.example.com", waiting=3, last_status="last-status-xyz")
    model.update(rows, now=T0)
    assert [r.host for r in model.rows()] == ["news3.example.com"]
    model.update(
        [host("new.example.com", 1, last_status="last-status-xyz")], now=T0, complete=False
    )
    assert [r.host for r in model.rows()] == ["news3.example.com", "new.example.com"]
    # ... and one that stops matching leaves.
    rows[3] = host("news3.example.com", waiting=3)
    model.update([*rows, model.get("new.example.com")], now=T0)
    assert [r.host for r in model.rows()] == ["new.example.com"]


@pytest.mark.gui
def test_a_filtered_sorted_big_table_keeps_the_selection_by_key_and_counts_right(qtbot):
    """10,000 hosts, sorted and filtered in the model: the selected host stays selected
    through a re-sort and a filter change, and leaves the selection when filtered out."""
    from crawler_gui.gui.widgets import TablePane

    model = HostsModel()
    pane = TablePane(model, name="hosts")
    qtbot.addWidget(pane)
    model.update([host(f"h{i:05d}.example.com", waiting=i % 97) for i in range(10_000)], now=T0)
    pane.view.sortByColumn(1, Qt.SortOrder.DescendingOrder)  # waiting, most first
    waits = [r.waiting for r in model.rows()]
    assert waits == sorted(waits, reverse=True) and len(waits) == 10_000
    pane.view.selectRow(model.find("h00150.example.com"))
    assert pane.selected_keys() == ["h00150.example.com"]
    pane.filter.setText("h001")  # h00100 .. h00199
    assert model.rowCount() == 100 == len({r.host for r in model.rows()})
    assert all(r.host.startswith("h001") for r in model.rows())
    waits = [r.waiting for r in model.rows()]
    assert waits == sorted(waits, reverse=True)  # still sorted
    assert pane.selected_keys() == ["h00150.example.com"]
    assert pane.count_label.text() == f"100 / {fmt.count(10_000)}"
    pane.filter.setText("h00160")
    assert pane.selected_keys() == []  # filtered out: no longer selected
    assert [r.host for r in model.rows()] == ["h00160.example.com"]


@pytest.mark.gui
def test_a_panes_columns_fit_their_first_rows_and_the_url_takes_the_room_left(qtbot):
    from PySide6.QtWidgets import QHeaderView

    from crawler_gui.gui.widgets import TablePane

    model = RetriesModel()
    pane = TablePane(model, name="retries")
    qtbot.addWidget(pane)
    pane.resize(1200, 400)
    pane.show()
    header = pane.view.horizontalHeader()
    assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
    assert not header.stretchLastSection()
    long_host = "world-news.regional-edition.example.com.cn"
    model.update([retry(f"http://{long_host}/a/{i}", attempts=i) for i in range(5)], now=T0)
    metrics = pane.view.fontMetrics()
    # fitted in an event of its own, after the update
    qtbot.waitUntil(lambda: header.sectionSize(1) >= metrics.horizontalAdvance(long_host))
    last = model.columnCount() - 1
    assert header.sectionSize(last) <= TablePane.MAX_FITTED_WIDTH  # it does not stretch
    # sized once: a width the user sets is kept as more rows arrive
    header.resizeSection(1, 90)
    model.update([retry(f"http://{long_host}/b/{i}") for i in range(9)], now=T0)
    qtbot.wait(50)
    assert header.sectionSize(1) == 90


@pytest.mark.gui
def test_columns_fitted_to_a_first_row_widen_as_more_rows_come(qtbot):
    """The first refresh may bring one row: the columns are fitted again, only wider, as the
    rows double (a longer host in the tenth row is not cut off)."""
    from crawler_gui.gui.widgets import TablePane

    model = RetriesModel()
    pane = TablePane(model, name="retries")
    qtbot.addWidget(pane)
    pane.resize(1200, 400)
    pane.show()
    header = pane.view.horizontalHeader()
    model.update([retry("http://a.example.com/1")], now=T0)
    qtbot.waitUntil(lambda: pane._fit_rows == 1)
    short = header.sectionSize(1)
    long_host = "world-news.regional-edition.example.com.cn"
    rows = [retry("http://a.example.com/1")] + [retry(f"http://{long_host}/{i}") for i in range(9)]
    model.update(rows, now=T0)
    width = pane.view.fontMetrics().horizontalAdvance(long_host)
    qtbot.waitUntil(lambda: header.sectionSize(1) >= width)
    assert header.sectionSize(1) > short


@pytest.mark.gui
def test_a_pane_in_a_hidden_tab_fits_its_columns_when_first_shown(qtbot):
    from crawler_gui.gui.widgets import TablePane

    model = RetriesModel()
    pane = TablePane(model, name="retries")
    qtbot.addWidget(pane)
    pane.resize(1200, 400)
    header = pane.view.horizontalHeader()
    long_host = "world-news.regional-edition.example.com.cn"
    model.update([retry(f"http://{long_host}/a/{i}") for i in range(5)], now=T0)
    qtbot.wait(50)
    width = pane.view.fontMetrics().horizontalAdvance(long_host)
    assert header.sectionSize(1) < width  # hidden: not measured yet
    pane.show()
    qtbot.waitUntil(lambda: header.sectionSize(1) >= width)


def article(i: int, published: str | None = None) -> ArticleSummary:
    return ArticleSummary(
        url=f"http://news{i % 3}.example.com/a{i}",
        found_at=T0 + i,
        published=published,
        host=f"news{i % 3}.example.com",
        title=f"Headline {i}",
        words=100 + i,
        kind="article",
        text="text",
    )


def test_articles_model_takes_only_new_articles_newest_first_and_is_bounded(qtmodeltester):
    model = ArticlesModel(maxlen=5)
    spy = Spy(model)
    found = [article(i) for i in range(3)]
    model.update_from(found, 3)
    model.update_from(found, 3)  # nothing new
    assert spy.inserted == [(0, 2)]
    assert [model.article(r).title for r in range(3)] == ["Headline 2", "Headline 1", "Headline 0"]
    # the engine keeps only its newest: 4 more found, the recent list holds 3 of them
    found = [article(i) for i in range(4, 7)]
    spy.reset()
    model.update_from(found, 7)
    assert spy.inserted == [(0, 2)] and spy.removed == [(5, 5)]
    assert model.rowCount() == 5
    assert [model.article(r).title for r in range(5)] == [f"Headline {i}" for i in (6, 5, 4, 2, 1)]
    qtmodeltester.check(model)
    model.reset()
    assert model.rowCount() == 0


def test_articles_extracted_out_of_order_are_listed_by_when_they_were_found():
    """Several workers extract: an article found earlier may be done later; it is listed in
    its place, not at the top."""
    model = ArticlesModel(maxlen=10)
    model.update_from([article(i) for i in (1, 3, 2)], 3)  # done in this order
    assert [model.article(r).title for r in range(3)] == ["Headline 3", "Headline 2", "Headline 1"]
    model.update_from([article(i) for i in (1, 3, 2, 5, 4, 0)], 6)
    titles = [model.article(r).title for r in range(model.rowCount())]
    assert titles == [f"Headline {i}" for i in (5, 4, 3, 2, 1, 0)]


def test_articles_model_cells():
    model = ArticlesModel()
    late = article(1, published="1970-01-01T00:00:00+00:00")
    model.update_from([article(0, published="2024-05-01"), late], 2)
    assert model.columnCount() == 6
    assert model.headerData(4, Qt.Orientation.Horizontal) == "Headline"
    row = 0  # newest first: ``late``
    assert model.index(row, 4).data() == "Headline 1"
    assert model.index(row, 4).data(Qt.ItemDataRole.ToolTipRole) == late.url
    assert model.index(row, 0).data(UrlRole) == late.url
    assert model.index(row, 5).data() == "101"
    assert model.index(row, 2).data(SortRole) == pytest.approx(T0 + 1)
    assert model.index(row, 2).data() == fmt.duration(T0 + 1)
    # a date without a time of day: no delay
    assert model.index(1, 2).data() == "" and model.index(1, 2).data(SortRole) == 0.0
    assert model.index(1, 1).data() == "2024-05-01"
    assert model.index(1, 3).data(SortRole) == "news0.example.com"
    assert model.index(2, 0).data() is None


@pytest.mark.parametrize("model_cls", [HostsModel, InFlightModel, RetriesModel, HubsModel])
def test_a_cell_painted_through_multidata_gets_what_data_gives(qtbot, model_cls):
    """The delegate asks for every role of a cell in one ``multiData`` call; each role's value
    is the one ``data`` gives."""
    from PySide6.QtCore import QModelRoleData, QModelRoleDataSpan
    from PySide6.QtWidgets import QTableView

    model = model_cls()
    rows = {
        HostsModel: [host(f"h{i}.example.com", i) for i in range(20)],
        InFlightModel: [pending(f"http://h{i}.example.com/p") for i in range(5)],
        RetriesModel: [retry(f"http://h{i}.example.com/r") for i in range(5)],
        HubsModel: [hub(f"http://h{i}.example.com/") for i in range(5)],
    }[model_cls]
    model.update(rows, now=T0 + 10)
    asked: list[int] = []
    original = model.fill_roles
    model.fill_roles = lambda index, span: (asked.append(index.row()), original(index, span))
    proxy = model  # the views show the model itself
    roles = [
        Qt.ItemDataRole.FontRole,
        Qt.ItemDataRole.TextAlignmentRole,
        Qt.ItemDataRole.ForegroundRole,
        Qt.ItemDataRole.CheckStateRole,
        Qt.ItemDataRole.DecorationRole,
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.BackgroundRole,
        ProgressRole,
    ]
    filled = 0
    for r in range(proxy.rowCount()):
        for c in range(proxy.columnCount()):
            index = proxy.index(r, c)
            for role in roles:
                cell = QModelRoleData(int(role))
                proxy.multiData(index, QModelRoleDataSpan(cell))
                assert cell.data() == proxy.data(index, role), (r, c, role)
                filled += cell.data() is not None
    assert filled > proxy.rowCount()  # texts and alignments came through
    # A view paints through it: the model is asked once per cell, not once per role.
    asked.clear()
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(proxy)
    view.resize(900, 600)
    view.show()
    view.grab()
    assert asked


@pytest.mark.gui
def test_a_fitted_column_holds_its_widest_text_without_eliding_it(qtbot):
    """The text delegate draws inside its margins and the grid line: a column fitted to its
    texts leaves the widest one room to show whole."""
    from crawler_gui.gui.widgets import TablePane, TextDelegate

    model = HostsModel()
    pane = TablePane(model, name="hosts", stretch_column=model.columnCount() - 1)  # as the window
    qtbot.addWidget(pane)
    pane.resize(1200, 400)
    pane.show()
    names = [f"127.0.0.{i}:39679" for i in range(1, 13)]
    model.update([host(n) for n in names], now=T0)
    qtbot.waitUntil(lambda: pane._fit_rows == 12)
    widest = max(pane.view.fontMetrics().horizontalAdvance(n) for n in names)
    room = pane.view.horizontalHeader().sectionSize(0) - 2 * TextDelegate.MARGIN - 1
    assert room >= widest


def _ink(image, rect, background) -> tuple[int, int, int, int] | None:
    """The box (left, top, right, bottom) of the pixels in ``rect`` that differ from
    ``background`` (a cell's text), or None."""
    xs, ys = [], []
    for y in range(rect.top() + 2, rect.bottom() - 1):
        for x in range(rect.left() + 1, rect.right() - 1):
            if image.pixel(x, y) != background:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


@pytest.mark.gui
def test_the_text_delegate_paints_selection_alignment_and_font_as_they_are_now(qtbot):
    """The text delegate reads the colours, the selected rows and the font once per paint of
    the viewport: a selection that moves, and a font that changes, are painted at once;
    numbers end at the cell's right margin, names start at its left one."""
    from PySide6.QtGui import QPalette

    from crawler_gui.gui.widgets import TablePane, TextDelegate

    model = HostsModel()
    pane = TablePane(model, name="hosts", stretch_column=model.columnCount() - 1)
    qtbot.addWidget(pane)
    pane.resize(1000, 400)
    pane.show()
    model.update([host(f"127.0.0.{i}:8080", waiting=100 + i) for i in range(6)], now=T0)
    view = pane.view
    assert model.flags(model.index(0, 1)) == (
        Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
    )
    # (the selection's text is light on a dark highlight; other text is dark on light)
    palette = view.palette()
    assert palette.color(QPalette.ColorRole.Text).lightness() < 80
    assert palette.color(QPalette.ColorRole.HighlightedText).lightness() > 200

    def image():
        return view.viewport().grab().toImage()

    def text_in_selection_colour(img, row: int) -> bool:
        """No dark pixel in the row's Waiting cell: its number is drawn in the selection's
        text colour."""
        rect = view.visualRect(model.index(row, 1))
        return not any(
            img.pixelColor(x, y).lightness() < 80
            for y in range(rect.top() + 1, rect.bottom())
            for x in range(rect.left() + 1, rect.right())
        )

    def right_margin(img, row: int) -> int:
        rect = view.visualRect(model.index(row, 1))
        ink = _ink(img, rect, img.pixel(rect.left() + 2, rect.top() + 2))
        assert ink is not None
        return rect.right() - ink[2]

    view.selectRow(1)
    qtbot.waitUntil(lambda: text_in_selection_colour(image(), 1))
    img = image()
    assert not text_in_selection_colour(img, 2)
    view.selectRow(3)  # the selection moves: painted from the new one
    img = image()
    assert text_in_selection_colour(img, 3) and not text_in_selection_colour(img, 1)

    # alignment (row 0 is not selected): names from the left margin, numbers to the right one
    first = view.visualRect(model.index(0, 0))
    name = _ink(img, first, img.pixel(first.left() + 2, first.top() + 2))
    assert name is not None
    assert TextDelegate.MARGIN - 2 <= name[0] - first.left() <= TextDelegate.MARGIN + 2
    assert TextDelegate.MARGIN - 2 <= right_margin(img, 0) <= TextDelegate.MARGIN + 2

    # a bigger font: the texts are measured and laid out again in it
    number = view.visualRect(model.index(0, 1))
    ink = _ink(img, number, img.pixel(number.left() + 2, number.top() + 2))
    assert ink is not None
    font = view.font()
    font.setPointSizeF(font.pointSizeF() * 1.8)
    view.setFont(font)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.setColumnWidth(1, 120)
    img = image()
    number = view.visualRect(model.index(0, 1))
    bigger = _ink(img, number, img.pixel(number.left() + 2, number.top() + 2))
    assert bigger is not None and bigger[3] - bigger[1] > (ink[3] - ink[1]) * 1.4
    assert TextDelegate.MARGIN - 2 <= right_margin(img, 0) <= TextDelegate.MARGIN + 2
