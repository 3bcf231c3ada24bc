"""Syncing a LevelDB database's write-ahead log from a thread (the pool's ``sync = second``).

A LevelDB write with ``sync=True`` fsyncs the log before it returns, and every write behind
it waits: on a loaded or a network disk an fsync takes 20-120 ms, a stall of the crawl's
loop (the GUI thread) once a second. Every write LevelDB acknowledges is already in the OS's
hands (its log file is written, not buffered, at the end of each record), so what a power
cut can lose is bounded just as well by fsyncing that file from another thread: at most
``interval`` seconds after a write, the newest ``NNNNNN.log`` of the database's folder is
fsynced, and the folder too when the log is a new one (its name must survive as well). The
writers never wait for it. Tables and the manifest LevelDB syncs itself when it writes them.

Where the log cannot be fsynced from outside (a platform that needs a writable handle for
it), the thread falls back to a synced empty write batch through LevelDB itself.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)


def newest_log(folder: Path) -> Path | None:
    """The database's current write-ahead log: the highest-numbered ``NNNNNN.log``."""
    best: tuple[int, str] | None = None
    with os.scandir(folder) as entries:
        for entry in entries:
            stem, dot, ext = entry.name.partition(".")
            if dot and ext == "log" and stem.isdigit():
                number = int(stem)
                if best is None or number > best[0]:
                    best = (number, entry.name)
    return None if best is None else folder / best[1]


def fsync_path(path: Path) -> None:
    """fsync a file or a folder by name (a read-only handle is enough on POSIX systems)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class LogSyncer:
    """fsyncs ``folder``'s LevelDB log at most every ``interval()`` seconds after
    :meth:`written` was called; ``interval()`` returning None pauses it. ``fallback`` makes a
    synced write through LevelDB where the file cannot be fsynced directly. The thread starts
    at the first write, ends with :meth:`stop` or when the syncer is garbage."""

    def __init__(
        self,
        folder: Path,
        interval: Callable[[], float | None],
        fallback: Callable[[], None],
    ) -> None:
        self.folder = folder
        self._interval = interval
        self._fallback = fallback
        self._dirty = False
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one sync at a time: the thread's or sync_now()'s
        self._synced_log: Path | None = None
        self._direct = True
        #: Syncs done (for tests and diagnostics).
        self.syncs = 0

    def written(self) -> None:
        """A write reached LevelDB without being synced: it is synced within ``interval()``."""
        self._dirty = True
        if self._thread is None and not self._stop.is_set():
            self._thread = threading.Thread(
                target=_run, args=(weakref.ref(self), self._stop), name="pool-log-sync", daemon=True
            )
            self._thread.start()

    def sync_now(self) -> None:
        """Sync what was written (a no-op when nothing was since the last sync)."""
        with self._lock:
            if not self._dirty:
                return
            self._dirty = False
            try:
                self._sync()
            except Exception as exc:  # the next write tries again
                self._dirty = True
                log.warning("syncing the pool's log failed: %s", exc)
                return
            self.syncs += 1

    def _sync(self) -> None:
        if self._direct:
            try:
                self._sync_log()
                return
            except FileNotFoundError:  # the folder went away, or the log kept changing: retried
                raise
            except OSError as exc:  # EBADF/EINVAL: no fsync through a read-only handle here
                log.info("fsyncing the pool's log directly failed (%s); LevelDB syncs it", exc)
                self._direct = False
        self._fallback()

    def _sync_log(self) -> None:
        for _attempt in range(3):  # LevelDB may switch to a new log while we look
            path = newest_log(self.folder)
            if path is None:
                return
            try:
                fsync_path(path)
            except FileNotFoundError:
                continue
            if path != self._synced_log:
                fsync_path(self.folder)  # the new log's name
                self._synced_log = path
            return
        raise FileNotFoundError(f"the log in {self.folder} changed three times while syncing")

    def stop(self) -> None:
        """End the thread (after a sync in progress). Call before the database closes."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()


def _run(ref: weakref.ref[LogSyncer], stop: threading.Event) -> None:
    while True:
        syncer = ref()
        if syncer is None:
            return
        every = syncer._interval()
        del syncer  # the thread must not keep it alive while it waits
        if stop.wait(1.0 if every is None else every):
            return
        syncer = ref()
        if syncer is None:
            return
        if syncer._interval() is not None:
            syncer.sync_now()  # (logs its own failure)
        del syncer
