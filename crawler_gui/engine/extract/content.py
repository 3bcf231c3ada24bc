"""The main text of a page, from its text blocks (:mod:`.dom`): the element whose blocks are
most prose and least boilerplate, and the blocks in it that are the article's text.

* Each block gets a weight: prose (sentences, few links) counts for its length; link lines,
  navigation, footers, asides and comments count against; short lines count a little
  against (a menu of short items is long in lines, not in characters).
* The container is the element with the highest sum of its blocks' weights: the smallest
  element that holds the prose without the boilerplate around it.
* In it, blocks under elements named as boilerplate (share bars, related stories, bylines,
  captions, ads), link lines, lists of links, and headings with no text after them are left
  out.

The result says how sure it is (:attr:`MainText.doubt`): little text, prose spread over
several parts of the page, or a container that is mostly links. The extractor then asks a
second opinion (trafilatura).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from crawler_gui.engine.extract.dom import (
    ASIDE,
    BOILER,
    COMMENTS,
    CONTENT,
    FIGURE,
    FOOTER,
    FORM,
    HEADER,
    HIDDEN,
    ITEM,
    NAVIGATION,
    Block,
    PageDom,
)
from crawler_gui.engine.extract.textutil import no_cjk, units

__all__ = ["MainText", "main_text", "with_lead"]

#: Sentence punctuation, in the scripts the crawl meets.
_PUNCT = re.compile(r"[.!?。！？,，;；:：؟،।]")
_SENTENCE_END = re.compile(r"[.!?。！？…”\"»)）؟।]\s*$")
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Flags whose blocks are never the article's text, wherever the container is.
_NEVER = HIDDEN
#: Flags that count a block against the container holding it.
_OUTSIDE = NAVIGATION | FOOTER | ASIDE | COMMENTS
#: Flags of elements inside the container whose blocks are left out.
_DROP_INSIDE = NAVIGATION | FOOTER | ASIDE | COMMENTS | BOILER | FIGURE | FORM


@dataclass(slots=True)
class MainText:
    """The main text found, and how it was found."""

    lines: list[str]
    #: Units (words; CJK characters) of the text.
    units: int
    #: The container (an element index), or -1.
    container: int
    #: Why the result may be wrong (empty: sure).
    doubt: str = ""
    #: The blocks kept.
    blocks: list[Block] = field(default_factory=list)
    #: The index of the first block kept (-1: none).
    start: int = -1
    #: The share of the main text inside links.
    link_share: float = 0.0
    #: The page is a list of other stories' teasers.
    is_list: bool = False


def _prose(b: Block) -> bool:
    """A block that reads as sentences: long enough, punctuated, few links."""
    if b.link_chars * 2 > b.chars or b.chars < 8:
        return False  # (eight units need eight characters)
    # (Two hundred characters of text are twenty words and more, forty of Chinese text
    # twenty characters: counting them is the costly part, for Chinese text above all.)
    long = b.chars >= 200 or (b.chars >= 40 and not no_cjk(b.text))
    n = 20 if long else units(b.text)
    if n >= 20:
        return b.link_chars < 0.35 * b.chars
    return n >= 8 and bool(_PUNCT.search(b.text)) and b.link_chars < 0.2 * b.chars


def _weights(page: PageDom, within: list[int], teased: bytearray, prose: list[bool]) -> list[float]:
    """Each block's weight for the container: prose for its length; against: navigation,
    footers, asides and comments for all of theirs, blocks named as boilerplate for half,
    link lines and other stories' teasers for a third (some are inside every article: a
    share bar, a "read also"), short lines a little."""
    out: list[float] = []
    for i, b in enumerate(page.blocks):
        flags = within[b.el]
        if flags & _NEVER:
            out.append(0.0)
            continue
        density = b.link_chars / b.chars
        if flags & _OUTSIDE:
            out.append(-1.0 * b.chars - 5)
        elif teased[i]:
            out.append(-0.3 * b.chars - 5)  # another story's teaser
        elif flags & BOILER:
            out.append(-0.5 * b.chars - 5)
        elif density > 0.5:
            out.append(-0.3 * b.chars - 5)
        elif prose[i]:
            out.append(b.chars * (1 - density))
        else:
            out.append(-2.0)
    return out


def _per_element(page: PageDom, values: list[float]) -> list[float]:
    """The sum of the blocks' ``values`` inside each element (one pass over the blocks and
    one over the elements: a child is numbered after its parent)."""
    out = [0.0] * len(page.tags)
    for b, v in zip(page.blocks, values, strict=True):
        out[b.el] += v
    parents = page.parents
    for el in range(len(out) - 1, 0, -1):
        out[parents[el]] += out[el]
    return out


def _trusted_flags(page: PageDom, prose: list[bool]) -> list[int]:
    """The elements' inherited flags, without the flags of a wrapper that holds half the
    page's prose or more: its navigation, footer, aside and comments flags (a ``<div
    id="main" class="nav-open">``, an article in a ``<div class="content-sidebar-wrap">``
    beside its sidebar), and its boilerplate flag when that prose is paragraphs, not list
    items (``<div class="entry share">`` around a post; not a list of related stories with
    long teasers beside a short post). A page's ``<aside>``, ``<nav>`` and ``<footer>``
    keep theirs."""
    chars = [float(b.chars) if p else 0.0 for b, p in zip(page.blocks, prose, strict=True)]
    total = sum(chars)
    if not total:
        return page.within
    held = _per_element(page, chars)
    paragraphs = _per_element(
        page, [c if b.tag not in _CELLS else 0.0 for b, c in zip(page.blocks, chars, strict=True)]
    )
    own = page.own
    tags = page.tags
    half = 0.5 * total
    cleared: dict[int, int] = {}
    for el, n in enumerate(held):
        if n < half or not own[el] & (_OUTSIDE | BOILER):
            continue
        if tags[el] in ("aside", "nav", "footer", "menu"):
            continue
        # (A wrapper named for content and sidebar, or one with nearly all of the prose;
        # not a sidebar that happens to have more prose than a short story.)
        clear = own[el] & _OUTSIDE if own[el] & CONTENT or n >= 0.8 * total else 0
        if own[el] & BOILER and paragraphs[el] >= half:
            clear |= BOILER
        if clear:
            cleared[el] = clear
    if not cleared:
        return page.within
    own = list(own)
    for el, clear in cleared.items():
        own[el] &= ~clear
    parents = page.parents
    within = [0] * len(own)
    for el, flags in enumerate(own):
        parent = parents[el]
        within[el] = flags | (within[parent] if parent >= 0 else 0)
    return within


def _container(page: PageDom, weights: list[float], prose: list[float]) -> tuple[int, float]:
    """The element with the highest sum of its blocks' weights (the deeper one of equals),
    widened (:func:`_widened`). ``prose`` is each element's sum of the positive weights."""
    sums = _per_element(page, weights)
    best, best_score = 0, float("-inf")
    for el, score in enumerate(sums):
        if score >= best_score and page.hi[el] > page.lo[el]:
            best, best_score = el, score
    return _widened(page, weights, best), best_score


#: A block's weight that does not stop the container from widening to hold it (a heading,
#: a list item, a table cell: a short line that is neither a link nor boilerplate).
_NEUTRAL = -5.0
#: How many levels the container widens at most.
_WIDEN_LEVELS = 3


def _widened(page: PageDom, weights: list[float], container: int) -> int:
    """The container widened to its parent while what the parent adds is short lines and
    prose, nothing against it: the heading and the list after a block of paragraphs, the
    wrapper that names the article."""
    parents = page.parents
    lo, hi = page.lo, page.hi
    for _ in range(_WIDEN_LEVELS):
        parent = parents[container]
        if parent <= 0:
            break
        added = weights[lo[parent] : lo[container]] + weights[hi[container] : hi[parent]]
        if any(w < _NEUTRAL for w in added):
            break
        container = parent
    return container


#: How many levels above the container its siblings' prose is looked for.
_SIBLING_LEVELS = 4


def _sibling_prose(
    page: PageDom, container: int, weights: list[float], within: list[int]
) -> set[int]:
    """The blocks (their indexes) of prose beside the container that belong with it: a
    lead paragraph in a block of its own before the text, text written straight into the
    container's parent. Looked for among the parts of the container's parent (and of its
    parent), each part taken whole: its prose if it has some and little against it."""
    out: set[int] = set()
    parents = page.parents
    blocks = page.blocks
    node = container
    for _ in range(_SIBLING_LEVELS):
        parent = parents[node]
        if parent <= 0:
            break
        parts: dict[int, list[int]] = {}
        for i in (*range(page.lo[parent], page.lo[node]), *range(page.hi[node], page.hi[parent])):
            el = blocks[i].el
            if el == parent:
                key = -1 - i  # text straight in the parent: a part of its own
            else:
                key = el
                while parents[key] != parent:
                    key = parents[key]
            parts.setdefault(key, []).append(i)
        for members in parts.values():
            pos = sum(weights[i] for i in members if weights[i] > 0)
            neg = -sum(weights[i] for i in members if weights[i] < 0)
            if pos >= 80 and pos >= 2 * neg:
                out.update(
                    i for i in members if weights[i] > 0 and not within[blocks[i].el] & _NEVER
                )
        node = parent
    return out


def _dropped(
    page: PageDom, el: int, container: int, held: dict[int, bool], prose: list[float]
) -> bool:
    """Whether a block of ``el`` is left out: an element between it and the container (the
    container not included) is named as boilerplate, or is navigation, a figure... -- unless
    it holds half the container's prose or more (a wrapper named "content-bottom")."""
    half = 0.5 * prose[container]
    chain = []
    drop = False
    while el != container and el >= 0:
        seen = held.get(el)
        if seen is not None:
            drop = seen
            break
        chain.append(el)
        el = page.parents[el]
    for e in reversed(chain):
        drop = drop or (bool(page.own[e] & _DROP_INSIDE) and prose[e] < half)
        held[e] = drop
    return drop


def main_text(page: PageDom) -> MainText:
    """The page's main text (see the module's docstring)."""
    blocks = page.blocks
    if not blocks:
        return MainText([], 0, -1, "no text")
    prose = [_prose(b) for b in blocks]
    within = _trusted_flags(page, prose)
    # (What reads the page after this one -- the dates -- reads the same flags.)
    page.within = within
    teased = bytearray(len(blocks))  # the blocks inside other stories' teasers
    teasers = _teaser_items(page, 0)
    for el in teasers:
        teased[page.lo[el] : page.hi[el]] = b"\x01" * (page.hi[el] - page.lo[el])
    weights = _weights(page, within, teased, prose)
    found = _read(page, weights, within, teased)
    # A list of stories: other stories' teasers hold most of the page's text.
    teased_chars = sum(b.chars for b, t in zip(blocks, teased, strict=True) if t)
    is_list = len(teasers) >= _LIST_TEASERS and teased_chars >= 0.5 * page.visible_chars
    if found.units < _LITTLE and page.visible_chars > _MORE and not is_list:
        # Little prose where the page has text, and not a list of stories (it has no main
        # text): lines too short to be sentences (a poem, a list of results, a recipe's
        # steps) are its text. Read again with them counting for their length.
        lines_weights = _short_lines_count(page, weights, within, teased)
        again = _read(page, lines_weights, within, teased)
        if again.units > found.units:
            found = again
        if found.units < _LITTLE:
            found.doubt = "little text on a page that has more"
    found.is_list = is_list
    return found


#: A page with this many teasers of other stories is a list of stories.
_LIST_TEASERS = 6
#: Main text this short on a page with this much visible text is in doubt.
_LITTLE = 25
_MORE = 2000


def _short_lines_count(
    page: PageDom, weights: list[float], within: list[int], teased: bytearray
) -> list[float]:
    """The weights with the short lines that are not links nor boilerplate counting for
    their length."""
    out = list(weights)
    for i, b in enumerate(page.blocks):
        if (
            out[i] < 0
            and not within[b.el] & (_OUTSIDE | BOILER | _NEVER)
            and b.link_chars * 2 <= b.chars
            and not teased[i]
        ):
            out[i] = 0.5 * b.chars
    return out


def _read(page: PageDom, weights: list[float], within: list[int], teased: bytearray) -> MainText:
    """The main text with these block weights: the container, its blocks kept."""
    blocks = page.blocks
    prose = _per_element(page, [w if w > 0 else 0.0 for w in weights])
    container, _score = _container(page, weights, prose)
    held: dict[int, bool] = {}
    extra = _sibling_prose(page, container, weights, within)
    lo, hi = page.lo[container], page.hi[container]
    # The blocks beside the container that belong with it, and the container's, in order;
    # each with whether it is kept.
    seen: list[tuple[int, bool]] = [(i, True) for i in sorted(extra) if i < lo]
    for i in range(lo, hi):
        b = blocks[i]
        if within[b.el] & _NEVER:
            continue
        keep = not (
            teased[i]
            or (b.link_chars * 2 > b.chars and b.chars < 400)
            or _dropped(page, b.el, container, held, prose)
        )
        seen.append((i, keep))
    seen += [(i, True) for i in sorted(extra) if i >= hi]
    kept_at = _without_labels(page, seen)
    kept = [blocks[i] for i in kept_at]
    kept = _without_link_lists(page, kept)
    kept = _without_empty_headings(kept)
    lines: list[str] = []
    for b in kept:
        prefix = "- " if within[b.el] & ITEM and b.tag in ("li", "dd", "dt") else ""
        lines.extend(prefix + x for x in b.text.split("\n"))
    start = kept_at[0] if kept_at else -1
    chars = sum(b.chars for b in kept)
    linked = sum(b.link_chars for b in kept)
    return MainText(
        lines, units("\n".join(lines)), container, "", kept, start, linked / chars if chars else 0.0
    )


#: How far before the main text a lead is looked for (blocks after the headline).
_LEAD_BLOCKS = 12


def with_lead(page: PageDom, found: MainText, head: int) -> MainText:
    """The main text with the prose between the headline (block ``head``) and it: a
    standfirst set apart from the text, in the article's header."""
    if head < 0 or found.start <= head + 1 or found.start - head > _LEAD_BLOCKS:
        return found
    within = page.within
    lead = [
        b
        for b in page.blocks[head + 1 : found.start]
        if not within[b.el] & (_OUTSIDE | BOILER | _NEVER | FIGURE)
        and _prose(b)
        and b.link_chars < 0.2 * b.chars
    ]
    if not lead:
        return found
    lines = [x for b in lead for x in b.text.split("\n")] + found.lines
    return MainText(
        lines,
        found.units + units("\n".join(b.text for b in lead)),
        found.container,
        found.doubt,
        lead + found.blocks,
        head + 1,
        found.link_share,
    )


def _without_link_lists(page: PageDom, kept: list[Block]) -> list[Block]:
    """Without the lists whose items are mostly links (related stories, tags)."""
    by_list: dict[int, list[Block]] = {}
    for b in kept:
        if b.tag in ("li", "dd", "dt"):
            by_list.setdefault(page.parents[b.el], []).append(b)
    drop: set[int] = set()
    for items in by_list.values():
        if len(items) >= 3:
            linked = sum(1 for b in items if b.link_chars * 2 >= b.chars)
            if linked * 2 >= len(items):
                drop.update(id(b) for b in items)
    if not drop:
        return kept
    return [b for b in kept if id(b) not in drop]


#: Blocks that are parts of a list or a table, never a label of what follows them.
_CELLS = frozenset({"li", "td", "th", "dt", "dd", "tr"})


def _label(b: Block) -> bool:
    """A heading, or a short line that does not end a sentence (a box's title, a date);
    not a list item or a table's cell."""
    if b.tag in _CELLS:
        return False
    if b.tag in _HEADINGS:
        return b.chars < 100
    return b.chars < 60 and units(b.text) <= 6 and not _SENTENCE_END.search(b.text)


def _without_labels(page: PageDom, seen: list[tuple[int, bool]]) -> list[int]:
    """The blocks kept (their indexes), without the labels of what was left out (a heading
    or a short line right before a part left out: "Read also", "About the author") and the
    short lines before the first paragraph of text (a date, a reading time, a category)."""
    blocks = page.blocks
    keep = [k for _i, k in seen]
    for j in range(len(seen) - 1, -1, -1):
        i, k = seen[j]
        if k and _label(blocks[i]) and (j + 1 < len(seen) and not keep[j + 1]):
            keep[j] = False
    out = [i for (i, _k), k in zip(seen, keep, strict=True) if k]
    start = 0
    while (
        start < len(out) and blocks[out[start]].tag not in _HEADINGS and _label(blocks[out[start]])
    ):
        start += 1
    return out[start:] if start < len(out) else out


def _without_empty_headings(kept: list[Block]) -> list[Block]:
    """Without the headings that no text follows (the heading of a related-stories box that
    is left out, "Read also"), and the short lines after the last paragraph of text. (A
    long "heading" is a paragraph set in a heading's type: a lead.)"""

    def heading(b: Block) -> bool:
        return b.tag in _HEADINGS and b.chars < 100

    end = len(kept)
    while end > 0 and (heading(kept[end - 1]) or units(kept[end - 1].text) < 4):
        end -= 1
    kept = kept[:end] if end else kept
    out = []
    for i, b in enumerate(kept):
        if heading(b) and (i + 1 == len(kept) or heading(kept[i + 1])):
            continue
        out.append(b)
    return out


def _headline_link(b: Block) -> bool:
    """A line that is mostly a link, or starts with a link, of four words or more: another
    story's headline (and its teaser)."""
    if b.link_chars * 10 >= b.chars * 6:
        return b.chars >= 4 and (b.chars >= 40 or units(b.text) >= 4)
    return b.lead_link >= 20 and (b.lead_link >= 40 or units(b.text[: b.lead_link]) >= 4)


def _teaser_items(page: PageDom, container: int) -> set[int]:
    """The elements inside the container that are items of a list of other stories: three or
    more siblings alike (the same tag and names; two when they are named), each short, and
    each a story's card: a headline link among its first three lines (after a kicker, a
    section's name), or a linked picture (a link without text) before a short title."""
    blocks = page.blocks
    parents = page.parents
    lo, hi = page.lo, page.hi
    heads = [_headline_link(b) for b in blocks]
    ends = [0]  # the blocks' characters so far, for each element's size
    for b in blocks:
        ends.append(ends[-1] + b.chars)
    pictured: set[int] = set()  # the elements up to four levels above a link without text
    for a in page.empty_links:
        el = parents[a]
        for _ in range(4):
            if el <= container:
                break
            pictured.add(el)
            el = parents[el]
    groups: dict[tuple[int, str, str], list[int]] = {}
    for el in range(container + 1, page.end[container]):
        first, last = lo[el], hi[el]
        if first >= last or ends[last] - ends[first] > 600:
            continue
        card = any(heads[first : min(last, first + 3)]) or (
            el in pictured and last - first >= 2 and blocks[first].chars <= 120
        )
        if card:
            groups.setdefault((parents[el], page.tags[el], page.names[el]), []).append(el)
    out: set[int] = set()
    for (_parent, _tag, names), members in groups.items():
        if len(members) >= 3 or (len(members) == 2 and names):
            out.update(members)
    return out


__all__ += ["CONTENT", "HEADER"]
