"""An extraction function for the pool tests: a page with ``CRASH`` in it kills its worker
with a segfault, one with ``HANG`` never returns, one with ``SLOW`` takes a tenth of a second,
one with ``NICENESS`` answers with its worker's niceness; others are extracted normally."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from crawler_gui.engine.extract import Extraction, extract_page


def extract(body: bytes, url: str, content_type: str | None, **kw: Any) -> Extraction:
    if b"CRASH" in body:
        os.kill(os.getpid(), signal.SIGSEGV)
    if b"HANG" in body:
        time.sleep(3600)
    if b"SLOW" in body:  # a tenth of a second of work
        time.sleep(0.1)
        return Extraction.failed("slow")
    if b"NICENESS" in body:  # says how nice its worker runs
        return Extraction.failed(f"nice {os.nice(0)}")
    return extract_page(body, url, content_type, **kw)
