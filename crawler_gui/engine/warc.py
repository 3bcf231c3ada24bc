"""WARC output: one gzip-compressed ``response`` record per fetched page, in rotating files.

Files are named ``<prefix>-<UTC yyyymmddHHMMSS>-<serial 5 digits>.warc.gz`` and begin with a
``warcinfo`` record. A file is closed and the next one started once it grows over
``max_size`` bytes (a record is never split, so a file may exceed it by one record).

The payload written is the body as the crawler got it from aiohttp, that is *after*
``Content-Encoding`` (gzip, br ...) was removed, so the ``Content-Encoding`` and
``Transfer-Encoding`` headers are dropped from the stored HTTP headers and ``Content-Length``
is set to the stored payload's length; a replay tool then sees a consistent response.

``write`` does blocking file I/O and compression; from a coroutine use ``write_async``, which
runs it in a worker thread. Writes are serialised by a lock, so records never interleave.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from http import HTTPStatus
from importlib import metadata
from pathlib import Path
from typing import IO

from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawler_gui.errors import StoreWriteError

__all__ = ["WarcError", "WarcWriter", "metadata_record", "response_record", "write_warcinfo"]

log = logging.getLogger(__name__)

try:
    _VERSION = metadata.version("crawler-gui")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    _VERSION = "0"

_DROPPED_HEADERS = frozenset({"content-encoding", "transfer-encoding", "content-length"})


class WarcError(StoreWriteError):
    """A WARC file could not be written (a :class:`StoreError`, so one except catches both;
    a write error of our own disk, never a "corrupt" file)."""


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _warc_date(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_warcinfo(writer: WARCWriter, filename: str) -> None:
    """The ``warcinfo`` record a file of ours begins with."""
    info = writer.create_warcinfo_record(
        filename,
        {
            "software": f"crawler-gui/{_VERSION}",
            "format": "WARC File Format 1.1",
            "conformsTo": "https://iipc.github.io/warc-specifications/specifications/"
            "warc-format/warc-1.1/",
        },
    )
    writer.write_record(info)


def response_record(
    writer: WARCWriter,
    url: str,
    status: int,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    fetched_at: float,
    peer: str | None,
) -> ArcWarcRecord:
    """A ``response`` record: the HTTP status line and ``headers`` (in order; the encodings
    aiohttp removed are dropped, ``Content-Length`` is the stored payload's) and ``body``;
    ``peer`` is the server's IP address (``WARC-IP-Address``) if known."""
    http_headers = [(k, v) for k, v in headers if k.lower() not in _DROPPED_HEADERS]
    http_headers.append(("Content-Length", str(len(body))))
    status_headers = StatusAndHeaders(
        f"{status} {_reason(status)}", http_headers, protocol="HTTP/1.1"
    )
    warc_headers = {"WARC-Date": _warc_date(fetched_at)}
    if peer:
        warc_headers["WARC-IP-Address"] = peer
    return writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(body),
        length=len(body),
        warc_headers_dict=warc_headers,
        http_headers=status_headers,
    )


def metadata_record(
    writer: WARCWriter, url: str, data: Mapping[str, object], at: float
) -> ArcWarcRecord:
    """A ``metadata`` record about ``url``: ``data`` as JSON (``application/json``), e.g. the
    page's extracted article."""
    payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
    return writer.create_warc_record(
        url,
        "metadata",
        payload=io.BytesIO(payload),
        length=len(payload),
        warc_content_type="application/json",
        warc_headers_dict={"WARC-Date": _warc_date(at)},
    )


class WarcWriter:
    """Appends response records to ``directory/<prefix>-...warc.gz``, rotating over
    ``max_size`` bytes. Close with :meth:`close` (or use as a context manager)."""

    def __init__(
        self,
        directory: Path | str,
        *,
        prefix: str = "crawler-gui",
        max_size: int = 1_000_000_000,
    ) -> None:
        if max_size < 1:
            raise ValueError("max_size must be positive")
        self.directory = Path(directory)
        self.prefix = prefix
        self.max_size = max_size
        self.records = 0
        self.files: list[Path] = []
        self._serial = 0
        self._fh: IO[bytes] | None = None
        self._writer: WARCWriter | None = None
        self._lock = threading.Lock()
        self._closed = False
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # Writable? Found now, not at the first page (each page would fail on its own).
            with tempfile.TemporaryFile(dir=self.directory):
                pass
        except OSError as exc:
            raise WarcError(
                f"cannot write WARC files into {self.directory}: {exc.strerror or exc}"
            ) from exc

    @property
    def current_file(self) -> Path | None:
        return self.files[-1] if self._fh is not None and self.files else None

    def _open_next(self) -> None:
        stamp = datetime.fromtimestamp(time.time(), UTC).strftime("%Y%m%d%H%M%S")
        while True:
            self._serial += 1
            path = self.directory / f"{self.prefix}-{stamp}-{self._serial:05d}.warc.gz"
            try:
                fh = open(path, "xb")  # noqa: SIM115 - kept open across calls
            except FileExistsError:
                continue
            except OSError as exc:
                raise WarcError(f"cannot create the WARC file {path}: {exc}") from exc
            break
        self._fh = fh
        self.files.append(path)
        writer = WARCWriter(fh, gzip=True)
        write_warcinfo(writer, path.name)
        self._writer = writer
        log.info("writing WARC file %s", path)

    def write(
        self,
        url: str,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        fetched_at: float,
        peer: str | None,
    ) -> None:
        """Write one ``response`` record (blocking). ``headers`` are the response headers in
        order; ``peer`` is the server's IP address (``WARC-IP-Address``) if known."""
        self._put(lambda w: response_record(w, url, status, headers, body, fetched_at, peer))

    def write_metadata(self, url: str, data: dict[str, object], at: float) -> None:
        """Write one ``metadata`` record about ``url`` (blocking): ``data`` as JSON
        (``application/json``), e.g. the page's extracted article."""
        self._put(lambda w: metadata_record(w, url, data, at))

    def _put(self, make: Callable[[WARCWriter], ArcWarcRecord]) -> None:
        """Write the record ``make`` builds (blocking): the file opened on demand, rolled over
        past ``max_size``."""
        with self._lock:
            if self._closed:
                raise WarcError("the WARC writer is closed")
            try:
                if self._fh is None:
                    self._open_next()
                assert self._writer is not None and self._fh is not None
                self._writer.write_record(make(self._writer))
                self.records += 1
                if self._fh.tell() >= self.max_size:
                    self._close_file()
            except OSError as exc:
                raise WarcError(f"writing the WARC file failed: {exc}") from exc

    async def write_async(
        self,
        url: str,
        status: int,
        headers: list[tuple[str, str]],
        body: bytes,
        fetched_at: float,
        peer: str | None,
    ) -> None:
        """:meth:`write` in a worker thread: the event loop does not wait on gzip or disk."""
        await asyncio.to_thread(self.write, url, status, headers, body, fetched_at, peer)

    def _close_file(self) -> None:
        if self._fh is not None:
            self._fh.close()
        self._fh = None
        self._writer = None

    def close(self) -> None:
        """Close the current file. Idempotent."""
        with self._lock:
            self._closed = True
            self._close_file()

    def __enter__(self) -> WarcWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
