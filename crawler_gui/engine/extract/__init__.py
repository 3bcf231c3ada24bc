"""Article extraction (no Qt): what a page is and, for an article, its headline, times,
authors, language and text. :func:`extract_page` does one page (in a worker process of
:class:`~crawler_gui.engine.extract.pool.ExtractPool` during a crawl)."""

from crawler_gui.engine.extract.extractor import extract_page
from crawler_gui.engine.extract.headline import learn_suffix, strip_site_suffix
from crawler_gui.engine.extract.model import KINDS, Article, Extraction

__all__ = ["KINDS", "Article", "Extraction", "extract_page", "learn_suffix", "strip_site_suffix"]
