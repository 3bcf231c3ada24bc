"""The page store: every fetched page's metadata (and, optionally, its body) in an embedded
LevelDB of its own, normally ``<pool_dir>/pages/``.

Key layout (also in ``docs/storage.md``, "Page store"):

* ``meta/schema_version`` -> ``b"4"`` (an older store is upgraded in place, nothing
  rewritten: 2 added ``art/``, 3 added ``hub/``, ``listed/`` and ``meta/listed_count``, 4 added
  ``fx/`` and ``ref/``; pages stored before 4 have no fetch detail)
* ``page/<seq>`` -> compact JSON metadata (UTF-8); ``<seq>`` is 8 bytes big-endian, from 1
* ``body/<seq>`` -> the zlib-compressed body (absent when bodies are not stored)
* ``url/<url>`` -> ``<seq>`` of the latest record fetched for that URL; written for both the
  requested URL and the final URL after redirects
* ``art/<seq>`` -> the page's extraction (kind, why, article), JSON; absent until extracted
* ``hub/<url>`` -> a hub's refresh state, JSON: its validators (``etag``, ``last_modified``)
  for conditional refreshes, the content hash of its last stored body, the sequence numbers of
  the records that carry its last bodies (bounded history), and counts of unchanged and
  not-modified refreshes
* ``listed/<url>`` -> what a feed or sitemap said of an article it listed, JSON: ``published``
  and ``updated`` (POSIX seconds or null) and ``via`` (the feed); the first listing is kept.
  At most :data:`MAX_LISTED` entries (``meta/listed_count`` counts them).
* ``fx/<seq>`` -> what the fetch saw beyond the page record (schema 4): request and response
  headers, how the encoding was decided, the out-links and what became of each (zlib-compressed
  JSON, bounded:
  :data:`MAX_DETAIL_LINKS` links, :data:`MAX_HEADERS` headers of :data:`MAX_HEADER_CHARS`)
* ``ref/<url>\x00<seq>`` -> empty: page ``<seq>`` links to ``<url>`` (the referrers of a page;
  one key per out-link in the crawl's scope kept in ``fx/``)
* ``meta/url_form`` -> ``b"2"``: the URLs of ``url/``, ``hub/``, ``listed/``, ``ref/`` keys are in
  the pool's schema 2 form (a store without it has them moved when opened: ``store_migrate.py``)

Writes are buffered: :meth:`PageStore.add` only appends to a list. :meth:`PageStore.flush`
encodes and writes the buffer in one ``write_batch`` in a worker thread, so the event loop
never waits on zlib or the disk. When the buffer reaches :data:`AUTO_FLUSH_RECORDS` records
``add`` starts that flush itself (as a task when called from a running event loop, inline
otherwise).
"""

from crawler_gui.engine.store.pagestore import PageStore
from crawler_gui.engine.store.records import (
    AUTO_FLUSH_RECORDS,
    MAX_DETAIL_LINKS,
    PAGES_DIRNAME,
    SCHEMA_VERSION,
    PageRecord,
    PageRow,
    make_detail,
)

__all__ = [
    "AUTO_FLUSH_RECORDS",
    "MAX_DETAIL_LINKS",
    "PAGES_DIRNAME",
    "SCHEMA_VERSION",
    "PageRecord",
    "PageRow",
    "PageStore",
    "make_detail",
]
