"""Repairing a damaged LevelDB pool into a copy (``crawler-gui repair``): LevelDB's own repair,
then the keys moved to the current URL form (``migrate.py``) and the pool's invariants restored
(``invariants.py``). The damaged pool is only read."""

from __future__ import annotations

import shutil
from pathlib import Path

import plyvel

from crawler_gui.core.leveldb import migrate
from crawler_gui.core.leveldb.db import CheckedDB, error_text, folder_error, pool_damaged
from crawler_gui.core.leveldb.invariants import RepairReport, restore_invariants
from crawler_gui.core.leveldb.layout import DB_DIRNAME
from crawler_gui.errors import DiskFullError, PoolCorruptError, PoolError, is_disk_full

#: The page store's folder in a pool folder (``engine.store.PAGES_DIRNAME``: the core does not
#: import the engine).
PAGES_DIRNAME = "pages"


def repair_pool(src: str | Path, dest: str | Path) -> RepairReport:
    """Repair a copy of the pool ``src`` into ``dest`` (which must not exist); ``src`` is
    only read. LevelDB's repair (``plyvel.repair_db``) runs on the copy with paranoid checks:
    a table with a damaged block (one whose checksum does not match) is rewritten without that
    block, the damaged one set aside in ``lost/``. Then the pool's invariants are checked and
    restored: host counters match the URL records, every waiting URL has its queue entry and
    nothing else does, every retrying URL its retry record, leases go back to waiting (no
    attempt counted), unreadable records are dropped. A Redis worker's store folder (a page
    store and no URL pool) is repaired the same way, its page store alone."""
    src, dest = Path(src), Path(dest)
    if dest.exists():
        raise PoolError(f"{dest} exists already: give another --output folder")
    has_pool = (src / DB_DIRNAME).is_dir()
    if not has_pool and not (src / PAGES_DIRNAME).is_dir():
        raise PoolError(
            f"{src} is not a crawler-gui pool directory (no {DB_DIRNAME}/ or {PAGES_DIRNAME}/ "
            "inside)"
        )
    try:
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("LOCK"))
    except OSError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        if is_disk_full(exc):
            raise DiskFullError(f"cannot copy {src} to {dest}: the disk is full") from exc
        unwritable = folder_error(
            f"the repaired copy {dest}", dest.parent, exc, "give --output in a writable place"
        )
        if unwritable is not None:
            raise unwritable from exc
        raise PoolError(f"cannot copy {src} to {dest}: {exc}") from exc
    report = RepairReport(dest, pool=has_pool)
    for name in (DB_DIRNAME, PAGES_DIRNAME):
        folder = dest / name
        if not folder.is_dir():
            continue
        try:
            plyvel.repair_db(str(folder), paranoid_checks=True)
        except plyvel.Error as exc:
            raise PoolCorruptError(f"LevelDB cannot repair {folder}: {error_text(exc)}") from exc
        lost = folder / "lost"  # where LevelDB's repair puts what it could not use
        report.lost_files[name] = (
            sum(1 for p in lost.iterdir() if p.suffix in (".ldb", ".sst")) if lost.is_dir() else 0
        )
    if has_pool:
        db = _checked(dest / DB_DIRNAME)
        try:
            # An older pool's keys are moved to the current URL form first (its schema is
            # raised below); on a current pool this moves nothing.
            moved = migrate.migrate_keys(db)
            if moved:
                report.fixed["keys moved to the current URL form"] += moved
            db.delete(migrate.K_MIGRATING)
            restore_invariants(db, report)
        finally:
            db.close()
    if (dest / PAGES_DIRNAME).is_dir():
        pages = _checked(dest / PAGES_DIRNAME)
        try:
            report.pages = sum(1 for _ in pages.iterator(prefix=b"page/", include_value=False))
        finally:
            pages.close()
    return report


def _checked(folder: Path) -> CheckedDB:
    """A repaired database, its reads verified: a block the repair kept is a sound one."""
    return CheckedDB(plyvel.DB(str(folder), paranoid_checks=True), pool_damaged(folder.parent))
