"""The default page store of a Redis worker: one per worker, found again after a restart."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from crawler_gui.engine import session
from crawler_gui.engine.session import named_store_dir, open_free_store
from crawler_gui.engine.store import PageStore
from crawler_gui.errors import StoreError


def test_each_open_store_is_skipped_and_a_closed_one_is_found_again(tmp_path: Path) -> None:
    base = tmp_path / "crawler-gui-news"
    first, a = open_free_store(base)
    second, b = open_free_store(base)
    third, c = open_free_store(base)
    assert [p.name for p in (first, second, third)] == ["auto-1", "auto-2", "auto-3"]
    b.close()  # the second worker stops; the next one to start takes its store
    again, d = open_free_store(base)
    assert again == second
    for store in (a, c, d):
        store.close()


def test_the_first_free_store_is_the_lowest(tmp_path: Path) -> None:
    base = tmp_path / "crawler-gui-news"
    stores = [open_free_store(base) for _ in range(3)]
    for _path, store in stores:
        store.close()
    path, store = open_free_store(base)
    try:
        assert path.name == "auto-1"
    finally:
        store.close()


def test_an_old_single_store_folder_keeps_being_used_first(tmp_path: Path) -> None:
    base = tmp_path / "crawler-gui-news"
    PageStore.open_in_pool(base).close()  # the layout before: ./crawler-gui-NAME/pages
    path, old = open_free_store(base)
    assert path == base
    path2, new = open_free_store(base)  # a second worker: a store of its own beside it
    assert path2 == base / "auto-1"
    old.close()
    new.close()


def test_a_named_worker_has_its_own_store(tmp_path: Path) -> None:
    assert named_store_dir(tmp_path, "crawl-1") == tmp_path / "crawl-1"
    assert named_store_dir(tmp_path, "host:4242/x") == tmp_path / "host_4242_x"
    assert named_store_dir(tmp_path, "..") == tmp_path / "_"


def test_a_folder_another_worker_locked_first_is_left_to_it(tmp_path: Path, monkeypatch) -> None:
    # The race of two workers starting at once: we make auto-1, the other lists it and locks it
    # before we do. (The other worker is staged: its lock comes between our mkdir and open.)
    from crawler_gui.errors import StoreInUseError

    real_open = PageStore.open_in_pool
    raced: list[str] = []

    def open_in_pool(path: Path, **kw: object) -> PageStore:
        if path.name == "auto-1" and not raced:
            raced.append(path.name)
            raise StoreInUseError(f"the page store {path} is in use")
        return real_open(path, **kw)

    monkeypatch.setattr(PageStore, "open_in_pool", open_in_pool)
    where, store = open_free_store(tmp_path / "base")
    try:
        assert raced == ["auto-1"] and where.name == "auto-2"
    finally:
        store.close()


def _half_made(pages: Path) -> None:
    """A page store folder as LevelDB leaves it while it makes one: a manifest, no CURRENT."""
    pages.mkdir(parents=True)
    (pages / "LOCK").write_bytes(b"")
    (pages / "MANIFEST-000001").write_bytes(b"\0")


def test_a_store_another_worker_is_still_making_is_left_to_it(tmp_path: Path) -> None:
    # The race of workers starting at once: we list auto-1 while the other worker is between
    # LevelDB's manifest and its CURRENT. It looks damaged for a moment; it is not ours.
    base = tmp_path / "base"
    pages = base / "auto-1" / "pages"
    _half_made(pages)
    held: list[PageStore] = []

    def finish_making() -> None:
        (pages / "MANIFEST-000001").unlink()
        held.append(PageStore.open_in_pool(base / "auto-1"))

    maker = threading.Timer(0.3, finish_making)
    maker.start()
    try:
        where, store = open_free_store(base)
    finally:
        maker.join()
    try:
        assert where.name == "auto-2"
        assert held and held[0].path == pages
    finally:
        store.close()
        held[0].close()


def test_a_store_that_stays_damaged_is_reported_not_skipped(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(session, "MAKING_GRACE_SECONDS", 0.2)
    base = tmp_path / "base"
    _half_made(base / "auto-1" / "pages")
    with pytest.raises(StoreError, match="damaged"):
        open_free_store(base)
    assert not (base / "auto-2").exists()
    assert (base / "auto-1" / "pages" / "MANIFEST-000001").exists()  # left untouched
