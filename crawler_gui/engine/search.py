"""Full-text search over the pages of a crawl: an embedded SQLite FTS5 index, Chinese included.

FTS5's own tokenizers do not split Chinese: ``unicode61`` makes one token of a whole run of Han
characters, and ``trigram`` cannot find the two-character words Chinese is mostly made of
(就业, 新闻). So text is prepared in Python the way CJK search engines do it (Lucene's
``CJKAnalyzer``): every run of CJK characters becomes its overlapping bigrams (``稳就业`` ->
``稳就 就业``), the first and last character of a run also stand alone (so a single character
is found), and everything else is left to ``unicode61`` (case- and accent-folded words). The
bigrams are made by C code (``array`` slices over the text's UTF-32 code points), not a Python
loop per character: the Python work per page stays a few short calls, so an indexing thread
neither takes most of the build's time nor holds the GIL long enough to stall the event loop.
A query is prepared the same way: a CJK run becomes the phrase of its bigrams (adjacent, in
order), a single CJK character a prefix query, other words plain terms; all terms must match.
Results come newest first (``rowid`` order, which FTS5 walks without scoring every match), so
a common term answers as fast as a rare one.

The filters are terms of the index too, in a fourth column the user's words never search
(``f``): the host and each of its parent domains (``news.example.cn``, ``example.cn``, ``cn``),
the status class and the kind, each as one opaque token. FTS5 intersects them with the query's
terms by seeking in its doclists, so a host with a few pages among a million answers as fast
as the whole crawl; a ``LIKE '%.host'`` on a joined table instead tested every match of the
query, newest first, until enough were of that host (seconds for a small host and a common
word at a million pages).

The index is one SQLite file beside the pool (``search.sqlite``), separate from the page store:
it can be deleted and rebuilt from the store at any time. Each fetch of a page is one row keyed
by the page store's sequence number; a page fetched again (a hub, a re-extraction) gets a new
row, and searches show only the newest row of a URL. ``rebuild`` compacts the old rows away.

The class is synchronous and thread-confined: a caller on the event loop calls it from one
worker thread (``asyncio.to_thread``), so the loop never waits on SQLite. The window's Pages
pane searches it; ``engine.indexer`` keeps it up to date from the page store
(``benchmarks/search.py`` measures both).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import sys
import threading
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from crawler_gui.errors import StoreError

__all__ = [
    "SCHEMA_VERSION",
    "SearchDoc",
    "SearchHit",
    "SearchIndex",
    "filter_text",
    "host_tokens",
    "prepare_query",
    "prepare_text",
]

SCHEMA_VERSION = 2
#: FTS5's in-memory buffer of new terms before it writes a segment (its default is 1 MB): a bulk
#: build writes fewer, larger segments and merges less (measured: about 1.7x the pages/s).
HASH_SIZE = 64 << 20

# Han (with extensions A and the compatibility block), kana, Hangul syllables, CJK punctuation
# is not included (it separates runs like spaces do).
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_NOT_CJK_RUN = re.compile(f"[^{_CJK}]+")
# Code points as machine words, and the codec that reads them as such.
_POINT = "I" if array("I").itemsize == 4 else "L"
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
_SPACE = array(_POINT, [32])
_QUERY_PART = re.compile(f'[{_CJK}]+|[^\\s{_CJK}"]+')
_WORD = re.compile(r"\w+", re.UNICODE)


def _bigrams(run: str) -> str:
    if len(run) == 1:
        return run
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))


def prepare_text(text: str) -> str:
    """Text as the index stores it: the CJK characters as bigrams (and each run's first and last
    character alone), then the text with its CJK runs blanked, for ``unicode61``'s words.

    Every CJK character of the text, with the rest blanked, is paired with the next one: ``稳就业``
    in ``a稳就业b`` gives `` 稳`` (a run's first character), ``稳就``, ``就业``, ``业 `` (its last)
    -- one token per pair, so the bigrams of a run are adjacent and a phrase finds them."""
    if not text or _CJK_RUN.search(text) is None:
        return text
    masked = " " + _NOT_CJK_RUN.sub(" ", text) + " "
    points = array(_POINT)
    points.frombytes(masked.encode(_UTF32))
    n = len(points)
    pairs = _SPACE * (3 * (n - 1))
    pairs[0::3] = points[:-1]
    pairs[1::3] = points[1:]
    return pairs.tobytes().decode(_UTF32) + " " + _CJK_RUN.sub(" ", text)


def _token(prefix: str, value: str) -> str:
    """An opaque ``unicode61`` token for a filter value (hex: letters and digits only)."""
    return prefix + value.encode("utf-8").hex()


def host_tokens(host: str) -> list[str]:
    """The filter tokens of a page's host: it and each of its parent domains."""
    labels = host.strip().lower().split(".")
    return [_token("h", ".".join(labels[i:])) for i in range(len(labels)) if labels[i]]


def filter_text(host: str, status: int, kind: str) -> str:
    """The ``f`` column of a page: its host tokens, status class and kind."""
    return " ".join([*host_tokens(host), f"s{status // 100}", _token("k", kind or "-")])


def prepare_query(query: str) -> str | None:
    """An FTS5 MATCH expression for what a user typed (every term must match), or ``None`` when
    nothing searchable is left. User text never reaches FTS5's query syntax unquoted."""
    terms: list[str] = []
    for part in _QUERY_PART.findall(query):
        if _CJK_RUN.fullmatch(part):
            if len(part) == 1:
                terms.append(f'"{part}" *')
            else:
                terms.append('"' + _bigrams(part) + '"')
            continue
        for word in _WORD.findall(part):
            terms.append(f'"{word}"')
    if not terms:
        return None
    return "{url title text} : (" + " AND ".join(terms) + ")"


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


class SearchIndex:
    """The FTS5 index of one pool's pages."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA cache_size=-65536")  # 64 MB
            self._setup()
        except (sqlite3.DatabaseError, StoreError) as exc:
            self._db.close()
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"{self.path}: not a crawler-gui search index ({exc})") from exc
        # Searches read through a connection of their own: in WAL mode a reader is not blocked
        # by a writer, so a search answers while a batch (or a rebuild's big one) is written.
        self._read_lock = threading.Lock()
        self._reader = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._reader.execute("PRAGMA cache_size=-65536")

    def _setup(self) -> None:
        db = self._db
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if "meta" in tables:
            row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None or not str(row[0]).isdigit():
                raise StoreError(f"{self.path}: a search index without a schema version")
            if int(row[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: search index schema {row[0]}, this version reads "
                    f"{SCHEMA_VERSION} (delete the file and rebuild the index)"
                )
            if int(row[0]) == SCHEMA_VERSION:
                return
            # An older index: it is derived from the page store, so it is made again (the
            # indexer catches up from nothing) instead of refusing to search.
            db.execute("BEGIN")
            for name in ("meta", "docs", "latest", "fts"):
                db.execute(f"DROP TABLE IF EXISTS {name}")
            db.execute("COMMIT")
            db.execute("VACUUM")
            tables = set()
        if "meta" not in tables:
            if tables:
                raise StoreError(f"{self.path}: not a crawler-gui search index")
            db.executescript(
                """
                BEGIN;
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE docs (
                    seq INTEGER PRIMARY KEY, url TEXT NOT NULL, host TEXT NOT NULL,
                    title TEXT NOT NULL, kind TEXT NOT NULL, status INTEGER NOT NULL,
                    fetched_at REAL NOT NULL);
                CREATE TABLE latest (url TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
                CREATE VIRTUAL TABLE fts USING fts5(
                    url, title, text, f, content='', columnsize=0,
                    tokenize='unicode61 remove_diacritics 2');
                """
            )
            db.execute("INSERT INTO fts(fts, rank) VALUES ('hashsize', ?)", (HASH_SIZE,))
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")

    def add_many(self, docs: Iterable[SearchDoc]) -> int:
        """Index pages in one transaction; returns how many were added."""
        rows = []
        fts_rows = []
        latest = []
        for doc in docs:
            rows.append(
                (doc.seq, doc.url, doc.host, doc.title, doc.kind, doc.status, doc.fetched_at)
            )
            fts_rows.append(
                (
                    doc.seq,
                    doc.url,
                    prepare_text(doc.title),
                    prepare_text(doc.text),
                    filter_text(doc.host, doc.status, doc.kind),
                )
            )
            latest.append((doc.url, doc.seq))
        if not rows:
            return 0
        with self._lock:
            db = self._db
            outer = db.in_transaction  # inside transaction(): that commits
            if not outer:
                db.execute("BEGIN")
            try:
                db.executemany("INSERT OR REPLACE INTO docs VALUES (?,?,?,?,?,?,?)", rows)
                db.executemany(
                    "INSERT INTO fts(rowid, url, title, text, f) VALUES (?,?,?,?,?)", fts_rows
                )
                db.executemany(
                    "INSERT INTO latest VALUES (?,?) "
                    "ON CONFLICT(url) DO UPDATE SET seq=excluded.seq WHERE excluded.seq > seq",
                    latest,
                )
                if not outer:
                    db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return len(rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Several ``add_many`` calls as one transaction (committed at the end, rolled back on
        an error): FTS5 writes one segment for all of them. For the thread that adds."""
        with self._lock:
            self._db.execute("BEGIN")
        try:
            yield
        except BaseException:
            with self._lock:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            raise
        with self._lock:
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Many ``add_many`` calls in a row (a rebuild): no sync to disk after each (the index
        is made again from the page store if a crash loses it), synced at the end."""
        with self._lock:
            self._db.execute("PRAGMA synchronous=OFF")
        try:
            yield
        finally:
            with self._lock:
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def last_seq(self) -> int:
        """The newest page sequence number indexed (0 for none): where catching up starts."""
        with self._lock:
            row = self._db.execute("SELECT max(seq) FROM docs").fetchone()
        return int(row[0] or 0)

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
        expr = prepare_query(query)
        if expr is None:
            return []
        sql = [
            "SELECT d.seq, d.url, d.host, d.title, d.kind, d.status, d.fetched_at",
            "FROM fts JOIN docs d ON d.seq = fts.rowid",
            "JOIN latest l ON l.url = d.url AND l.seq = d.seq",
            "WHERE fts MATCH ?",
        ]
        host = (host or "").strip().lower().strip(".")
        if host:
            expr += f' AND f : "{_token("h", host)}"'
        if status_class is not None:
            expr += f' AND f : "s{int(status_class)}"'
        if kinds:
            expr += " AND f : (" + " OR ".join(f'"{_token("k", k or "-")}"' for k in kinds) + ")"
        args: list[object] = [expr]
        if before is not None:
            sql.append("AND fts.rowid < ?")
            args.append(before)
        sql.append("ORDER BY fts.rowid DESC LIMIT ?")
        args.append(limit)
        with self._read_lock:
            try:
                rows = self._reader.execute(" ".join(sql), args).fetchall()
            except sqlite3.OperationalError as exc:  # a query FTS5 cannot take
                raise ValueError(f"cannot search for {query!r}: {exc}") from exc
        return [SearchHit(*row) for row in rows]

    def count(self) -> int:
        with self._read_lock:
            return int(self._reader.execute("SELECT count(*) FROM latest").fetchone()[0])

    def size_bytes(self) -> int:
        """The index's size on disk (the database and its write-ahead log)."""
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += Path(f"{self.path}{suffix}").stat().st_size
        return total

    def clear(self) -> None:
        """Drop every row (before a rebuild from the page store)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            db.execute("DELETE FROM docs")
            db.execute("DELETE FROM latest")
            db.execute("INSERT INTO fts(fts) VALUES ('delete-all')")
            db.execute("COMMIT")

    def optimize(self) -> None:
        """Merge the index's segments (after a bulk build)."""
        with self._lock:
            self._db.execute("INSERT INTO fts(fts) VALUES ('optimize')")

    def close(self) -> None:
        with self._read_lock:
            self._reader.close()
        with self._lock:
            self._db.close()
