"""What extraction gives back: plain data (dataclasses of str/int/bool/lists), convertible to
and from a dict, so it crosses a process boundary as JSON and goes into the page store as is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["KINDS", "Article", "Extraction"]

#: The kinds a page is judged to be.
KINDS = ("article", "list", "other")


@dataclass(frozen=True, slots=True)
class Article:
    """The article of a page judged ``article``."""

    title: str
    #: ISO 8601, with an offset when the time of day is known (``2019-09-05T11:10:00+08:00``),
    #: a bare date (``2019-09-05``) when only the day is; ``None`` when not found.
    published: str | None
    updated: str | None
    authors: list[str]
    #: BCP 47 primary language (``zh``, ``en``), from the markup or guessed from the text.
    lang: str | None
    #: Main text, paragraphs separated by one newline.
    text: str
    #: True when the offset of ``published``/``updated`` was not in the page but given from
    #: the host's time zone (configured or inferred, e.g. +08:00 for a Chinese portal).
    zone_inferred: bool = False

    def to_dict(self) -> dict[str, Any]:
        # Field by field, not ``dataclasses.asdict``: that deep-copies every value through
        # ``copy.deepcopy``, and the crawl's loop makes one of these per extracted page.
        return {
            "title": self.title,
            "published": self.published,
            "updated": self.updated,
            "authors": list(self.authors),
            "lang": self.lang,
            "text": self.text,
            "zone_inferred": self.zone_inferred,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Article:
        return cls(
            title=str(d.get("title") or ""),
            published=d.get("published"),
            updated=d.get("updated"),
            authors=[str(a) for a in d.get("authors") or []],
            lang=d.get("lang"),
            text=str(d.get("text") or ""),
            zone_inferred=bool(d.get("zone_inferred", False)),
        )

    @property
    def words(self) -> int:
        """Words, counting each CJK character as one (how Chinese text is measured)."""
        from crawler_gui.engine.extract.textutil import word_count

        return word_count(self.text)


@dataclass(frozen=True, slots=True)
class Extraction:
    """The judgement of one page and, for an article, its article."""

    #: ``article``, ``list`` or ``other``.
    kind: str
    #: Why it was judged so, in a few words (so a wrong judgement can be seen and fixed).
    why: str
    article: Article | None = None
    #: The URL every copy of this article shares: ``rel=canonical`` when given, else the page's
    #: URL with AMP and mobile (``m.``) marks and a page number (``_2.html``) taken off.
    article_url: str | None = None
    #: Page number of a multi-page article (1 for the first or only page).
    part: int = 1
    #: The page only renders with JavaScript (its HTML has no readable content).
    js_only: bool = False
    #: The raw ``<title>``: the engine learns each host's site suffix from these.
    raw_title: str = ""
    #: Set when extraction failed (crash, time limit): the page then counts as ``other``.
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A new dict of plain data; the values inside ``extra`` are shared, not copied (plain
        JSON data that nothing changes: the deep copy of ``asdict`` was nearly half of
        the time of recording an extraction on the crawl's loop)."""
        return {
            "kind": self.kind,
            "why": self.why,
            "article": self.article.to_dict() if self.article is not None else None,
            "article_url": self.article_url,
            "part": self.part,
            "js_only": self.js_only,
            "raw_title": self.raw_title,
            "error": self.error,
            "extra": dict(self.extra),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Extraction:
        art = d.get("article")
        return cls(
            kind=str(d.get("kind") or "other"),
            why=str(d.get("why") or ""),
            article=Article.from_dict(art) if isinstance(art, dict) else None,
            article_url=d.get("article_url"),
            part=int(d.get("part") or 1),
            js_only=bool(d.get("js_only", False)),
            raw_title=str(d.get("raw_title") or ""),
            error=d.get("error"),
            extra=dict(d.get("extra") or {}),
        )

    @classmethod
    def failed(cls, reason: str) -> Extraction:
        return cls(kind="other", why=f"extraction failed: {reason}", error=reason)
