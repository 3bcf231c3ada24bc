"""Full-text search over the pages of a crawl: an embedded tantivy index, Chinese included.

tantivy (a Rust search library, through its own Python binding) keeps the index in a folder
beside the pool (``search/``). It replaced an SQLite FTS5 table (schema 2); measured on the same
pages (``docs/storage.md``), it indexes as many pages per CPU second (the cost is per token in
both: a Chinese article is about a thousand), in an index a third the size, and tokenizes and
merges in its own threads, outside the GIL.

No tokenizer splits Chinese words (they are not separated by spaces), so each page is indexed
two ways, the way CJK search engines without a dictionary do it (Lucene's ``CJKAnalyzer``):

* ``words``: the URL, title and text with their CJK characters blanked, cut into runs of
  letters and digits, lower-cased and accent-folded (tantivy's simple tokenizer and filters);
* ``pairs``: every two adjacent CJK characters (``稳就业`` -> ``稳 稳就 就业 业``), with
  positions, so a Chinese word of two characters is one term and a longer one the phrase of its
  pairs (adjacent, in order). Every character of a run starts one of its tokens (a pair, or
  itself alone at the run's end), so a query of one character is any of the tokens starting
  with it (listed from the term dictionaries). Schema 3 also indexed every character alone: a
  third of the tokens of a Chinese page, for one-character queries only.

``pairs`` is made here by C code (one regex split, ``array`` slices over the text's UTF-32 code
points, a whitespace tokenizer in tantivy), not a Python loop per character. A query is made
from the user's text the same way (never parsed as a query language): each CJK run a term, a
prefix or a phrase, other words terms through the same analyzer as the index, and every term
must match. Results come newest first (the ``seq`` fast field), not by relevance.

The filters are indexed terms too: the host and each of its parent domains (``news.example.cn``,
``example.cn``, ``cn``), the status class and the kind, intersected with the query's terms by
tantivy (a host with a few pages among a million answers as fast as the whole crawl).

Each fetch of a page is one document keyed by the page store's sequence number; a page fetched
again (a hub, a re-extraction) replaces the document of its URL (deleted by the ``url`` term in
the same commit), so searches show each URL once, at its newest fetch.

The index can be deleted and rebuilt from the page store at any time. A folder of an older
schema is emptied and made again (the indexer then catches up from the first page); the FTS5
file of schema 2 (``search.sqlite``) is deleted by ``engine.indexer`` when it opens the new one.

The class is synchronous: a caller on the event loop calls it from worker threads
(``asyncio.to_thread``), so the loop never waits on the index; writes are serialized by a lock,
searches read the last commit without waiting for a write in progress. The window's Pages pane
searches it; ``engine.indexer`` keeps it up to date from the page store
(``benchmarks/search.py`` measures both).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import re
import shutil
import sys
import threading
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from crawler_gui.errors import StoreError

__all__ = [
    "BULK_THREADS",
    "SCHEMA_VERSION",
    "SearchDoc",
    "SearchHit",
    "SearchIndex",
    "advise_random",
    "host_tokens",
    "query_terms",
    "split_cjk",
]

SCHEMA_VERSION = 4
#: The file in the index folder that says it is ours, and its schema.
VERSION_FILE = "crawler-gui-search.json"
#: The writer's memory per indexing thread for the documents of a commit before it writes a
#: segment (tantivy wants at least 15 MB a thread).
WRITER_HEAP = 96_000_000
#: Indexing threads beside a crawl: one, so the crawl keeps the other core.
WRITER_THREADS = 1
#: Indexing threads of a bulk build (:meth:`SearchIndex.bulk`, a rebuild): tantivy's indexing
#: is most of a build's CPU, and runs outside the GIL, one segment per thread.
BULK_THREADS = 2
#: The writer's memory per indexing thread in a bulk build: a rebuild commits many pages at
#: once (``engine.indexer.REBUILD_BATCH``), and a heap that holds them writes one segment per
#: thread per commit instead of several, leaving fewer to merge (200,000 pages of
#: ``benchmarks/search.py``: 5,020 pages/s against 4,213 with 96 MB and commits of 20,000).
BULK_HEAP = 256_000_000
#: The newest sequence numbers a search looks through first (then eight times more, and so on).
WINDOW = 20_000

# Han (with extension A and the compatibility block), kana and Hangul syllables. CJK punctuation
# is not included (it separates runs like spaces do).
_CJK_RANGES = (
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0x3040, 0x309F),
    (0x30A0, 0x30FF),
    (0xAC00, 0xD7AF),
)
_CJK = "".join(f"{chr(a)}-{chr(b)}" for a, b in _CJK_RANGES)
_CJK_RUN = re.compile(f"[{_CJK}]+")
_CJK_SPLIT = re.compile(f"([{_CJK}]+)")
_QUERY_PART = re.compile(f'[{_CJK}]+|[^\\s{_CJK}"]+')
#: Words longer than this (in bytes) are not indexed (a base64 blob in a URL, say).
MAX_WORD_BYTES = 80

# Code points as machine words, and the codec that reads them as such.
_POINT = "I" if array("I").itemsize == 4 else "L"
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
_SPACE = array(_POINT, [32])


def _analyzers() -> dict[str, tantivy.TextAnalyzer]:
    return {
        "cg_words": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(MAX_WORD_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build(),
        "cg_pairs": tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build(),
    }


_WORDS = _analyzers()["cg_words"]


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_unsigned_field("seq", stored=True, indexed=True, fast=True)
    # Stored, and indexed whole: a new fetch of a URL deletes the old one's document by it.
    sb.add_text_field("url", stored=True, tokenizer_name="raw", index_option="basic")
    # The host and its parent domains (the first value is the host).
    sb.add_text_field("host", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("kind", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("sclass", indexed=True)
    sb.add_unsigned_field("status", stored=True)
    sb.add_float_field("fetched_at", stored=True)
    sb.add_bytes_field("title", stored=True)
    sb.add_text_field("words", tokenizer_name="cg_words", index_option="basic")
    sb.add_text_field("pairs", tokenizer_name="cg_pairs", index_option="position")
    return sb.build()


def split_cjk(text: str) -> tuple[str, str]:
    """A text's ``pairs`` field (``""`` when it has no CJK character) and the rest of it, its
    CJK runs blanked (for ``words``), in one pass of the regex (none for ASCII text).

    Every character of a CJK run is paired with the next, the runs separated by spaces:
    ``a稳就业b`` gives `` 稳``, ``稳就``, ``就业``, ``业 `` -- one token per pair (the whitespace
    tokenizer drops the spaces, leaving a run's first and last character alone around its
    pairs), so the pairs of a run are adjacent and a phrase finds them, a pair never spans two
    runs, and every character of a run starts a token (a pair, or itself alone at the end):
    the tokens starting with a character are all its occurrences."""
    if text.isascii():  # (a flag of the string: no scan)
        return "", text
    parts = _CJK_SPLIT.split(text)
    if len(parts) == 1:
        return "", text
    masked = " " + " ".join(parts[1::2]) + " "
    points = array(_POINT)
    points.frombytes(masked.encode(_UTF32))
    pairs = _SPACE * (3 * (len(points) - 1))
    pairs[0::3] = points[:-1]
    pairs[1::3] = points[1:]
    return pairs.tobytes().decode(_UTF32), " ".join(parts[0::2])


_MADV_RANDOM = 1  # (Linux's value, in <sys/mman.h>)
#: The index files read from end to end, left to the kernel's read-ahead: the fast fields (the
#: newest ``seq`` is found by reading the whole column, 1 MB at a million pages: 250 faults of
#: one page each without read-ahead).
_READ_WHOLE = (".fast",)


@functools.cache
def _libc_madvise() -> Any:
    """libc's ``madvise`` (None where it cannot be found)."""
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise


def advise_random(folder: Path) -> int:
    """Tell the kernel that this process's memory maps of the index's files (tantivy reads
    them through ``mmap``) are read at random: no read-ahead around each page a search
    touches. Returns the maps advised (0 where this cannot be done: not Linux).

    A cold search reads a few small places of each term's postings and positions, and a
    page fault on a mapped file reads the device's whole read-ahead window around it (8 MB
    on some virtual disks, 128 KB by default): a common phrase read 140 MB of a 420 MB index
    of 200,000 pages for 40 kB it needed (250 ms; 25 ms advised). tantivy's own
    ``MmapDirectory::open_with_madvice`` does this in Rust, but its Python binding does not
    offer it, so the maps are found in ``/proc/self/maps``. A map dropped meanwhile (a
    merge ended) only makes ``madvise`` fail, and the advice never changes what is read."""
    if not sys.platform.startswith("linux"):
        return 0
    prefix = os.path.realpath(folder) + os.sep
    ranges = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                if prefix not in line:
                    continue
                fields = line.split(None, 5)
                name = fields[5].rstrip("\n") if len(fields) == 6 else ""
                if name.startswith(prefix) and not name.endswith(_READ_WHOLE):
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    ranges.append((start, end - start))
    except OSError:
        return 0
    madvise = _libc_madvise() if ranges else None
    if madvise is None:
        return 0
    return sum(1 for start, size in ranges if madvise(start, size, _MADV_RANDOM) == 0)


def host_tokens(host: str) -> list[str]:
    """The ``host`` terms of a page: its host and each of its parent domains."""
    labels = host.strip().lower().split(".")
    return [".".join(labels[i:]) for i in range(len(labels)) if labels[i]]


def query_terms(query: str) -> list[tuple[str, list[str]]]:
    """What a user typed as ``(field, terms)`` that must all match: a CJK run of one character
    is a ``first`` term (the ``pairs`` tokens it starts), a longer one the phrase of its
    ``pairs``, other text ``words`` terms (as the index cuts and folds them). Empty when
    nothing searchable is left."""
    out: list[tuple[str, list[str]]] = []
    for part in _QUERY_PART.findall(query):
        if _CJK_RUN.fullmatch(part):
            if len(part) == 1:
                out.append(("first", [part]))
            else:
                out.append(("pairs", [part[i : i + 2] for i in range(len(part) - 1)]))
            continue
        out.extend(("words", [word]) for word in _WORDS.analyze(part))
    return out


@dataclass(frozen=True, slots=True)
class SearchDoc:
    """One fetched page as the index sees it."""

    seq: int  #: the page store's sequence number of this fetch
    url: str
    host: str
    title: str = ""
    text: str = ""  #: the article's text (or "" for pages that are not articles)
    kind: str = ""
    status: int = 0
    fetched_at: float = 0.0


@dataclass(frozen=True, slots=True)
class SearchHit:
    seq: int
    url: str
    host: str
    title: str
    kind: str
    status: int
    fetched_at: float


def _kind_term(kind: str) -> str:
    return kind or "-"


class SearchIndex:
    """The tantivy index of one pool's pages, in the folder ``path``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()  # the writer: one add, commit or clear at a time
        self._writer: Any = None  # made on the first write (it locks the folder)
        self._open_transaction = False
        self._threads = WRITER_THREADS  # of the next writer made
        self._heap = WRITER_HEAP  # per thread, of the next writer made
        self._pending = 0  # documents added since the last commit
        self._last_seq: int | None = None
        self._schema = _schema()
        self._index = self._open()
        for name, analyzer in _analyzers().items():
            self._index.register_tokenizer(name, analyzer)
        self._index.config_reader(reload_policy="manual")
        advise_random(self.path)
        # The newest seq of the commit searches read, found once per commit (finding it reads
        # the whole ``seq`` column: most of a warm search's time at a million pages).
        self._top_lock = threading.Lock()  # never held while the writer works
        self._generation = 0  # reloads of the reader
        self._top_cache: tuple[int, int] | None = None  # (generation, top)

    def _open(self) -> tantivy.Index:
        path = self.path
        if path.exists() and not path.is_dir():
            raise StoreError(f"{path}: not a crawler-gui search index (a file, not a folder)")
        version_file = path / VERSION_FILE
        if path.is_dir() and any(path.iterdir()):
            try:
                version = int(json.loads(version_file.read_text("utf-8"))["schema_version"])
            except FileNotFoundError:
                raise StoreError(f"{path}: not a crawler-gui search index") from None
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise StoreError(f"{path}: a search index without a schema version") from exc
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: search index schema {version}, this version reads "
                    f"{SCHEMA_VERSION} (delete the folder and rebuild the index)"
                )
            if version == SCHEMA_VERSION:
                try:
                    return tantivy.Index.open(str(path))
                except (OSError, ValueError) as exc:
                    raise StoreError(f"{path}: the search index cannot be read ({exc})") from exc
            # An older index: it is derived from the page store, so it is made again (the
            # indexer catches up from nothing) instead of refusing to search.
            shutil.rmtree(path)
        try:
            path.mkdir(exist_ok=True)  # (in an existing pool folder, never a new one)
            index = tantivy.Index(self._schema, str(path), reuse=False)
            version_file.write_text(json.dumps({"schema_version": SCHEMA_VERSION}), "utf-8")
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: cannot make the search index ({exc})") from exc
        return index

    # -- writing ------------------------------------------------------------------------------
    def _get_writer(self) -> Any:
        if self._writer is None:
            try:
                self._writer = self._index.writer(self._heap * self._threads, self._threads)
            except ValueError as exc:  # (another process holds the folder's writer lock)
                raise StoreError(f"{self.path}: the search index is in use ({exc})") from exc
        return self._writer

    def add_many(self, docs: Iterable[SearchDoc], *, replace: bool = True) -> int:
        """Index pages (committed at the end, unless inside :meth:`transaction`); returns
        how many were added. Each replaces the document of an older fetch of its URL.

        ``replace=False`` is for pages whose URLs the caller knows are not in the index (a
        rebuild adds each URL's newest fetch once, to an emptied index): no delete by the
        URL's term. tantivy looks each delete's term up in every segment at the commit, a
        cost that grows with the index (1-5 % of a 180,000-page build's CPU)."""
        n = 0
        with self._lock:
            writer = self._get_writer()
            try:
                for d in docs:
                    doc = tantivy.Document()
                    doc.add_unsigned("seq", d.seq)
                    doc.add_text("url", d.url)
                    for token in host_tokens(d.host) or ["-"]:
                        doc.add_text("host", token)
                    doc.add_text("kind", _kind_term(d.kind))
                    doc.add_unsigned("sclass", d.status // 100)
                    doc.add_unsigned("status", d.status)
                    doc.add_float("fetched_at", d.fetched_at)
                    doc.add_bytes("title", d.title.encode("utf-8"))
                    pairs, text = split_cjk(f"{d.title}\n{d.text}" if d.text else d.title)
                    if pairs:
                        doc.add_text("pairs", pairs)
                    doc.add_text("words", f"{d.url}\n{text}")
                    if replace:
                        writer.delete_documents_by_term("url", d.url)
                    writer.add_document(doc)
                    n += 1
                    if self._last_seq is None or d.seq > self._last_seq:
                        self._last_seq = d.seq
                self._pending += n
                if not self._open_transaction:
                    self._commit()
            except BaseException:
                if not self._open_transaction:
                    self._rollback()
                raise
        return n

    def _commit(self) -> None:
        if self._pending:
            self._writer.commit()
            self._pending = 0
            self._reload()

    def _rollback(self) -> None:
        self._pending = 0
        self._last_seq = None
        if self._writer is not None:
            self._writer.rollback()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Several ``add_many`` calls as one commit (at the end; rolled back on an error): one
        segment for all of them, and searches see them at once. For the thread that adds."""
        with self._lock:
            self._open_transaction = True
        try:
            yield
        except BaseException:
            with self._lock:
                self._open_transaction = False
                self._rollback()
            raise
        with self._lock:
            self._open_transaction = False
            self._commit()

    @property
    def writer_threads(self) -> int:
        """The indexing threads of the writer (of the next one, before the first write)."""
        return self._threads

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Write with :data:`BULK_THREADS` indexing threads of :data:`BULK_HEAP` each (a
        rebuild, not beside a crawl), then go back to :data:`WRITER_THREADS`: the writer is
        made again on each side (what the previous one left is committed first; a bulk writer
        that was not :meth:`optimize`d is let go without waiting for its merges, which the
        next writer starts again)."""
        with self._lock:
            self._release_writer()
            self._threads, self._heap = BULK_THREADS, BULK_HEAP
        try:
            yield
        finally:
            with self._lock:
                self._release_writer()
                self._threads, self._heap = WRITER_THREADS, WRITER_HEAP

    def _release_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None and self._pending:
            writer.commit()
            self._pending = 0
            self._reload()
        del writer  # (tantivy's writer stops its threads when dropped)

    def optimize(self) -> None:
        """Wait for the segment merges the writer started (after a bulk build); the next write
        makes a new writer."""
        with self._lock:
            if self._writer is not None:
                self._commit()
                self._writer.wait_merging_threads()
                self._writer = None
                self._reload()

    def clear(self) -> None:
        """Drop every document (before a rebuild from the page store)."""
        with self._lock:
            writer = self._get_writer()
            writer.delete_all_documents()
            writer.commit()
            self._pending = 0
            self._last_seq = 0
            self._reload()

    # -- reading ------------------------------------------------------------------------------
    def last_seq(self) -> int:
        """The newest page sequence number indexed (0 for none): where catching up starts."""
        with self._lock:
            if self._last_seq is None:
                hits = (
                    self._index.searcher()
                    .search(tantivy.Query.all_query(), 1, count=False, order_by_field="seq")
                    .hits
                )
                self._last_seq = int(hits[0][0]) if hits else 0
            return self._last_seq

    def _reload(self) -> None:
        self._index.reload()
        advise_random(self.path)  # (the files of new segments are mapped by the reload)
        with self._top_lock:
            self._generation += 1

    def _searcher_and_top(self) -> tuple[Any, int]:
        """A searcher and where its newest ``seq`` is thought to be: where the first window
        starts, never its end (:meth:`_newest` is right whatever this says; it is only
        faster when it is right).

        The newest page this object wrote, when it wrote any (the window's indexer does
        before its first search: committed or not, it is never below the commit's newest; it
        is read without the writer's lock, which a write holds for long). Otherwise the
        newest ``seq`` of the commit, found by reading the whole ``seq`` column (20-100 ms at
        a million pages) and remembered until the next reload (a reload between the two gives
        the top of the commit before, as a search begun a moment earlier would have)."""
        with self._top_lock:
            generation, cached = self._generation, self._top_cache
        searcher = self._index.searcher()
        written = self._last_seq
        if written is not None:
            return searcher, written
        if cached is not None and cached[0] == generation:
            return searcher, cached[1]
        top = self._top(searcher)
        with self._top_lock:
            if self._generation == generation:
                self._top_cache = (generation, top)
        return searcher, top

    def _top(self, searcher: Any) -> int:
        """The newest ``seq`` the searcher's commit holds (0 for none)."""
        hits = searcher.search(tantivy.Query.all_query(), 1, count=False, order_by_field="seq").hits
        return int(hits[0][0]) if hits else 0

    def _filters(
        self,
        *,
        host: str | None,
        kinds: Sequence[str],
        status_class: int | None,
    ) -> list[tantivy.Query]:
        schema = self._schema
        out: list[tantivy.Query] = []
        host = (host or "").strip().lower().strip(".")
        if host:
            out.append(tantivy.Query.term_query(schema, "host", host, "basic"))
        if status_class is not None:
            out.append(tantivy.Query.term_query(schema, "sclass", int(status_class), "basic"))
        # Term queries, not a term set: a term set marks every page of its terms in a bitset
        # first (reading all their postings), a term query reads only the blocks the other
        # terms and the window skip to.
        terms = [tantivy.Query.term_query(schema, "kind", _kind_term(k), "basic") for k in kinds]
        if len(terms) == 1:
            out.append(terms[0])
        elif terms:
            out.append(tantivy.Query.boolean_query([(tantivy.Occur.Should, t) for t in terms]))
        return out

    def _newest(
        self,
        searcher: Any,
        top: int,
        must: list[tantivy.Query],
        limit: int,
        before: int | None,
        what: str,
    ) -> list[SearchHit]:
        """The newest ``limit`` documents matching all of ``must`` with ``seq < before``, from
        ``searcher`` (``top``: where its newest ``seq`` is thought to be).

        tantivy ranks every match to find the newest (no early end), so a common term would
        read all its postings -- and, for a phrase, their positions: most of a second from a
        cold disk at 250,000 pages. So the newest :data:`WINDOW` sequence numbers are searched
        first, and a window eight times wider until ``limit`` hits (or everything) are found:
        a common term stops in the first window, reading only the blocks of its postings
        there; a rare one takes a few more searches of short postings. Each window reaches
        up to ``before`` (or has no end): a ``top`` below the newest makes the first window
        wider, never misses a page."""
        schema = self._schema
        start = top + 1 if before is None else min(top + 1, before)
        window = WINDOW
        while True:
            lower = max(0, start - window)
            seq_range = tantivy.Query.range_query(
                schema,
                "seq",
                tantivy.FieldType.Unsigned,
                lower,
                before,
                include_upper=before is None,
            )
            # The window first: tantivy makes a segment's scorers in this order and stops at
            # the first that is empty, so a segment outside the window is never looked into
            # (a character's 3,000 pair terms, last, took 161-177 ms from a cold disk at
            # 200,000 pages; first, 45-52 ms).
            q = tantivy.Query.boolean_query([(tantivy.Occur.Must, m) for m in [seq_range, *must]])
            try:
                result = searcher.search(q, limit, count=False, order_by_field="seq")
            except ValueError as exc:  # (a query tantivy cannot take)
                raise ValueError(f"cannot search for {what!r}: {exc}") from exc
            if len(result.hits) >= limit or lower == 0:
                break
            window *= 8
        hits = []
        for _seq, address in result.hits:
            doc = searcher.doc(address)
            kind = doc.get_first("kind")
            hits.append(
                SearchHit(
                    seq=int(doc.get_first("seq") or 0),
                    url=str(doc.get_first("url")),
                    host=str(doc.get_first("host") or ""),
                    title=bytes(doc.get_first("title") or b"").decode("utf-8", "replace"),
                    kind="" if kind == "-" else str(kind),
                    status=int(doc.get_first("status") or 0),
                    fetched_at=float(doc.get_first("fetched_at") or 0.0),
                )
            )
        return hits

    def search(
        self,
        query: str,
        *,
        limit: int = 200,
        before: int | None = None,
        host: str | None = None,
        kinds: Sequence[str] = (),
        status_class: int | None = None,
    ) -> list[SearchHit]:
        """Pages matching every term of ``query``, newest first; ``before`` pages on (the
        ``seq`` of the last hit shown). Each URL appears once, at its newest fetch.

        The filters narrow the search itself, before ``limit``: ``host`` (that host or one of
        its subdomains, any case), ``kinds``, ``status_class`` (2 for 2xx...). Filtering the
        newest ``limit`` hits afterwards instead would show nothing for a host whose pages are
        all older than them."""
        schema = self._schema
        parts = query_terms(query)
        if not parts or limit <= 0:
            return []
        searcher, top = self._searcher_and_top()
        must: list[tantivy.Query] = []
        for field, terms in parts:
            if field == "first":
                # Every token of ``pairs`` starting with the character (its pairs, and itself
                # alone at the end of a run), listed from the term dictionaries (about a
                # millisecond), then any of them. Not a regex query over the dictionary: that
                # reads every posting of every such term in the whole index before the window
                # narrows anything (67-266 ms cold at a million pages, 8 ms this way).
                starting = [t for t, _n in searcher.terms_with_prefix("pairs", terms[0])]
                if not starting:
                    return []  # (no page has the character)
                must.append(
                    tantivy.Query.boolean_query(
                        [
                            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "pairs", t))
                            for t in starting
                        ]
                    )
                )
            elif len(terms) == 1:
                must.append(tantivy.Query.term_query(schema, field, terms[0], "basic"))
            else:
                must.append(tantivy.Query.phrase_query(schema, field, list(terms)))
        must += self._filters(host=host, kinds=kinds, status_class=status_class)
        return self._newest(searcher, top, must, limit, before, query)

    def newest(
        self,
        *,
        host: str,
        limit: int = 200,
        before: int | None = None,
        kinds: Sequence[str] = (),
        status_class: int | None = None,
    ) -> list[SearchHit]:
        """The newest pages of ``host`` (and its subdomains), whatever their text: its recent
        results, each URL once (a host's pages are terms of the index, so a small host among
        a million pages answers at once; the page store has no order by host)."""
        must = self._filters(host=host, kinds=kinds, status_class=status_class)
        if not must or not host.strip(" .") or limit <= 0:
            return []
        searcher, top = self._searcher_and_top()
        return self._newest(searcher, top, must, limit, before, host)

    def count(self) -> int:
        """The pages (URLs) indexed."""
        return int(self._index.searcher().num_docs)

    def size_bytes(self) -> int:
        """The index's size on disk (the files of its folder)."""
        total = 0
        with contextlib.suppress(OSError):
            for f in self.path.iterdir():
                with contextlib.suppress(OSError):
                    if f.is_file():
                        total += f.stat().st_size
        return total

    def close(self, *, wait_merges: bool = True) -> None:
        """Commit what a transaction left and let the writer go. Its merges are waited for (a
        merge cut short is only work lost, but waiting keeps the folder tidy), unless
        ``wait_merges`` is false: a stop's bound does not include them (a merge of large
        segments takes minutes; the next writer starts it again)."""
        with self._lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                if self._pending:
                    writer.commit()
                    self._pending = 0
                if wait_merges:
                    writer.wait_merging_threads()
                del writer  # (tantivy's writer stops its threads when dropped)
