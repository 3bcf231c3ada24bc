"""Link and title extraction with selectolax (lexbor): fast enough for thousands of pages a second.

Links are made absolute (``<base href>`` honoured) by the WHATWG URL Standard, as a browser
follows them (``core.urls.join``; plain relative links by a faster string path that gives the same
result), but not canonicalized: the pool does that.
The fragment is cut off (it never changes what the server sends) and fragment-only links
(``#top``) are dropped, as is everything that is not http(s) once joined (``javascript:``,
``mailto:``, ``data:``, ``tel:``, ``ftp:`` ...).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from crawler_gui.core.urls import join

try:
    from selectolax.lexbor import LexborHTMLParser as _Parser
except ImportError:  # pragma: no cover - older selectolax without lexbor
    from selectolax.parser import HTMLParser as _Parser  # type: ignore[attr-defined,no-redef]

__all__ = ["extract_links"]

_LINK_SELECTOR = "a[href], area[href]"
_CONTROL = str.maketrans("", "", "\t\n\r")
_WHITESPACE = " \t\n\r\f"


def _origin_and_dir(base: str) -> tuple[str, str, str] | None:
    """``(scheme, origin, directory)`` of an http(s) base URL, for the fast join paths.

    The base is a URL as the standard writes it (the pool's, or joined by ``join``): a
    lower-case scheme, ``://``, the authority up to the path's ``/``. Cut by hand (a page's
    URL is new to ``urlsplit``'s cache every time: 1-2 % of a crawl's CPU); anything else
    goes through ``urlsplit``."""
    if base.startswith("http://"):
        scheme, at = "http", 7
    elif base.startswith("https://"):
        scheme, at = "https", 8
    else:
        return _origin_and_dir_split(base)
    if "\t" in base or "\n" in base or "\r" in base:
        return _origin_and_dir_split(base)  # (which drops them, as the standard does)
    slash = base.find("/", at)
    if slash <= at or _ODD_AUTHORITY.search(base, at, slash):
        return _origin_and_dir_split(base)
    origin = base[:slash]
    end = len(base)
    for mark in "?#":
        cut = base.find(mark, slash)
        if 0 <= cut < end:
            end = cut
    return scheme, origin, base[: base.rfind("/", slash, end) + 1]


_ODD_AUTHORITY = re.compile(r"[?#\\\s\[\]]")  # (IPv6 literals: the split checks them)


def _origin_and_dir_split(base: str) -> tuple[str, str, str] | None:
    try:
        parts = urlsplit(base)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.netloc:
        return None
    origin = f"{scheme}://{parts.netloc}"
    path = parts.path or "/"
    return scheme, origin, origin + path[: path.rfind("/") + 1]


def _is_http(url: str) -> bool:
    head = url[:8].lower()
    return head.startswith(("http://", "https://"))


def _title_of(tree: Any) -> str:
    # ``tags()`` rather than ``css_first()``: a page's first CSS query costs as much as a
    # third of its parse (lexbor sets up its selector engine); tag lookups are a plain walk.
    nodes = tree.tags("title")
    if not nodes:
        return ""
    node = nodes[0]
    text = node.text(deep=True)
    if not text:
        return ""
    return " ".join(text.split())


def extract_links(html: str | bytes, page_url: str) -> tuple[list[str], str]:
    """Return ``(absolute http(s) links in document order without duplicates, page title)``.

    ``html`` is text, or bytes already known to be UTF-8 (lexbor reads bytes as UTF-8).
    """
    if isinstance(html, str):
        # selectolax's own str path is about twice as slow as encoding here and passing bytes.
        html = html.encode("utf-8", "replace")
    tree = _Parser(html)
    title = _title_of(tree)
    base = page_url
    base_node = next((n for n in tree.tags("base") if "href" in n.attributes), None)
    if base_node is not None:
        href = base_node.attributes.get("href")
        if href:
            href = href.strip(_WHITESPACE).translate(_CONTROL)
            joined = join(page_url, href)
            if joined is not None and _is_http(joined):
                base = joined
    fast = _origin_and_dir(base)
    seen: set[str] = set()
    links: list[str] = []
    # Same nodes, same document order as ``tree.css(_LINK_SELECTOR)`` (those without an href
    # are skipped below), without the CSS engine; pages with <area> (rare) take the CSS path to
    # keep <a> and <area> interleaved in document order.
    nodes = tree.css(_LINK_SELECTOR) if tree.tags("area") else tree.tags("a")
    for node in nodes:
        # ``attrs`` looks the one attribute up; ``attributes`` builds a dict of them all
        # (a quarter of the parse and walk of a typical page).
        href = node.attrs.get("href")
        if not href:
            continue
        if href[0] in _WHITESPACE or href[-1] in _WHITESPACE:
            href = href.strip(_WHITESPACE)
            if not href:
                continue
        if "\n" in href or "\t" in href or "\r" in href:
            href = href.translate(_CONTROL)
        first = href[0]
        if first == "#":
            continue
        hash_at = href.find("#")
        whole = href  # a space before the "#" is part of the path: the standard join keeps it
        if hash_at > 0:
            href = href[:hash_at]
        url = ""  # empty: joined below by the standard, from the whole href
        if href[-1] <= " ":
            pass
        elif fast is not None and first == "/" and "/." not in href and "\\" not in href:
            url = f"{fast[0]}:{href}" if href.startswith("//") else fast[1] + href
        elif href.startswith(("http://", "https://")) and "/." not in href and "\\" not in href:
            url = href
        elif (
            fast is not None
            and first.isalnum()
            and ":" not in href
            and "/." not in href
            and "\\" not in href
            and not href.startswith(".")
        ):
            url = fast[2] + href
        if not url:
            if ":" in href and not _is_http(href):
                scheme = href.split(":", 1)[0].lower()
                # A scheme is ASCII (``é:x`` is a relative path, as the standard says).
                if scheme.isascii() and scheme.isalpha() and scheme not in ("http", "https"):
                    continue  # javascript:, mailto:, data:, tel: ... (no join needed)
            joined = join(base, whole)
            if joined is None or not _is_http(joined):
                continue
            url = joined
            hash_at = url.find("#")
            if hash_at >= 0:
                url = url[:hash_at]
        if url not in seen:
            seen.add(url)
            links.append(url)
    return links, title
