"""Article extraction (no Qt): what a page is and, for a page with readable text, its
headline, times, authors, language and text. :func:`extract_page` does one page (in a
worker process of :class:`~crawler_gui.engine.extract.pool.ExtractPool` during a crawl).

(The rules are imported on first use of :func:`extract_page`: the crawl's own process, which
only hands pages over and records the results, never loads them.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crawler_gui.engine.extract.headline import learn_suffix, strip_site_suffix
from crawler_gui.engine.extract.model import KINDS, Article, Extraction

if TYPE_CHECKING:
    from crawler_gui.engine.extract.extractor import extract_page

__all__ = ["KINDS", "Article", "Extraction", "extract_page", "learn_suffix", "strip_site_suffix"]


def __getattr__(name: str) -> Any:
    if name == "extract_page":
        from crawler_gui.engine.extract.extractor import extract_page

        return extract_page
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
