"""What the page store's parts (``reads``, ``hubs``, ``listings``: mixins of
:class:`~crawler_gui.engine.store.pagestore.PageStore`) use of the store, declared once for the
type checker. At run time :class:`StoreBase` is ``object``: every attribute is the one
``PageStore.__init__`` sets, every method the one ``PageStore`` defines."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading
    from pathlib import Path
    from typing import Any

    from crawler_gui.engine.store.records import PageRecord, _Buffered

    class StoreBase:
        _db: Any
        path: Path
        store_bodies: bool
        hub_history: int
        _hubs: dict[str, dict[str, Any]]
        _listed_count: int
        _listed_batch: set[bytes]
        _listed_cache: dict[str, dict[str, Any]]
        _listed_written: list[str]
        _next_seq: int
        _buffer: list[tuple[int, _Buffered]]
        _pending: list[list[tuple[int, _Buffered]]]
        _writing: list[list[tuple[int, _Buffered]]]
        _list_lock: threading.Lock
        _closed: bool

        def _check(self) -> None: ...

        def _maybe_flush(self) -> None: ...

        def add(self, record: PageRecord) -> int: ...

        def flush_sync(self) -> None: ...

        def hub_state(self, url: str) -> dict[str, Any]: ...  # (``hubs``)

else:
    StoreBase = object
