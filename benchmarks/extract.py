"""Article extraction: quality, speed and memory on the reference pages, when they are present.

    .venv/bin/python benchmarks/extract.py [--only en,zh,bodies,dates,memory] [--rounds N]

* English (``articles-en``: pages and human ground truth): body precision / recall / F1 with the
  benchmark's metric (4-token shingles of ``\\w+`` tokens, per-page normalised sums), ours and
  trafilatura's default call side by side.
* Chinese (``articles-zh``: pages and a peer extractor's output): headline and publication
  date agreement with the peer, body F1 against the peer's text (CJK characters as tokens), and
  every disagreement printed so it can be judged by reading the page; and against a careful
  reading: the peer's text corrected by ``extract_zh_corrections.json`` (hashes of the peer's
  lines that are not the story and of page blocks it missed, each with a reason; no news text).
* The peers' own suites (``peers/``, half of each; the other half is held out), each scored
  exactly as its peer scores it: trafilatura's (``bodies.json``: whitespace-normalised
  substrings that the main text must and must not contain, precision / recall / F1 over all
  snippets, as its ``tests/eval_common.py``), beside trafilatura's default and fast calls with
  the suite's settings; htmldate's (``dates.json``: the exact day, as its
  ``tests/evaluation.py``), beside htmldate's extensive and fast searches; both by language
  (the page's declared one). Pages are extracted at a neutral URL (no date from the URL, as
  htmldate's evaluation passes none); a crawl's export of such pages holds the same text and
  dates (each is its host's first page: no site suffix learned).
* Speed, on every page of each set (not only the articles): ours (with its second opinions:
  how many pages asked trafilatura or htmldate is printed), trafilatura's default call and
  resiliparse's main-content extraction (a compiled library; when installed, ``pip install
  resiliparse``), page by page in turn, each page's best of ``--rounds``, in CPU time of this
  process (the machine may be shared); ours broken down pass by pass.
* Memory: an extraction worker's peak resident memory (a spawned process running the worker's
  function over every page of every set, as a crawl's worker does).

The reference folders are not part of the repository (copies of news sites); the script says
so and skips a part whose folder is missing.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import multiprocessing
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import trafilatura
from selectolax.lexbor import LexborHTMLParser

from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.extract import Extraction, extract_page


def _reference() -> Path:
    """``shared/reference`` beside the checkout (or beside a folder above it)."""
    for up in Path(__file__).resolve().parents[1].parents:
        if (up / "shared" / "reference").is_dir():
            return up / "shared" / "reference"
    return Path("shared") / "reference"


REF = _reference()
#: Our careful reading of the Chinese pages where our text and the peer's differ (no news
#: text in it: line hashes and a reason each).
CORRECTIONS = Path(__file__).with_name("extract_zh_corrections.json")
WORD = re.compile(r"\w+")
CJK = re.compile(r"[\u4e00-\u9fff]|[^\W\u4e00-\u9fff]+")


def shingles(text: str, tokenizer: re.Pattern[str]) -> collections.Counter[tuple[str, ...]]:
    toks = tokenizer.findall(text or "")
    return collections.Counter(tuple(toks[i : i + 4]) for i in range(max(0, len(toks) - 3)))


def prf(pairs: list[tuple[str, str]], tokenizer: re.Pattern[str] = WORD) -> tuple[float, ...]:
    """The article-extraction-benchmark metric: per-page normalised TP/FP/FN, summed."""
    tp_s = fp_s = fn_s = 0.0
    for truth, pred in pairs:
        a, b = shingles(truth, tokenizer), shingles(pred, tokenizer)
        tp = sum((a & b).values())
        fp = sum(b.values()) - tp
        fn = sum(a.values()) - tp
        n = tp + fp + fn
        if n:
            tp_s, fp_s, fn_s = tp_s + tp / n, fp_s + fp / n, fn_s + fn / n
    p = tp_s / (tp_s + fp_s) if tp_s + fp_s else 0.0
    r = tp_s / (tp_s + fn_s) if tp_s + fn_s else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _resiliparse() -> Callable[[bytes], str] | None:
    """resiliparse's main-content extraction of a page's bytes, or None when not installed."""
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        from resiliparse.parse.html import HTMLTree
    except ImportError:
        return None

    def run(body: bytes) -> str:
        tree = HTMLTree.parse(bytes_to_str(body, detect_encoding(body)))
        return str(extract_plain_text(tree, main_content=True))

    return run


class Timed:
    """Our extraction and the peers' calls on every page, page by page in turn, ``rounds``
    times; each page's time is its best round, in CPU time of this process. On a shared
    machine, interleaving and CPU time keep other work from landing on one side only. Ours
    is broken down pass by pass (the passes of each page's best round)."""

    def __init__(self, pages: list[tuple[str, bytes, str]], rounds: int) -> None:
        self.pages = pages
        self.rounds = rounds
        self.ours: list[Extraction] = []
        self.best: dict[str, list[float]] = {}
        self.passes: dict[str, float] = {}

    def run(self, others: dict[str, Callable[[bytes], object]]) -> None:
        n = len(self.pages)
        best = {name: [float("inf")] * n for name in ("ours", *others)}
        laps: list[dict[str, float]] = [{} for _ in self.pages]
        for r in range(self.rounds):
            for i, (_key, body, url) in enumerate(self.pages):
                sink: dict[str, float] = {}
                t0 = time.process_time()
                e = extract_page(body, url, timings=sink)
                t = time.process_time() - t0
                if t < best["ours"][i]:
                    best["ours"][i] = t
                    laps[i] = sink
                if r == 0:
                    self.ours.append(e)
                for name, fn in others.items():
                    t0 = time.process_time()
                    fn(body)
                    best[name][i] = min(best[name][i], time.process_time() - t0)
        self.best = best
        for sink in laps:
            for name, sec in sink.items():
                self.passes[name] = self.passes.get(name, 0.0) + sec

    def report(self, label: str) -> float:
        """Print the speeds; return ours over trafilatura's (the target is 5x)."""
        n = len(self.pages)
        ours = sum(self.best["ours"])
        cells = [f"ours {ours / n * 1000:.2f} ms"]
        for name, times in self.best.items():
            if name != "ours":
                cells.append(f"{name} {sum(times) / n * 1000:.2f} ms ({sum(times) / ours:.1f}x)")
        traf = sum(self.best.get("trafilatura", [0.0]))
        print(f"  CPU time per page ({n} pages, {label}): " + ", ".join(cells))
        rest = ours - sum(self.passes.values())
        per = [f"{name} {sec / n * 1000:.2f}" for name, sec in self.passes.items()]
        per.append(f"(outside the passes {rest / n * 1000:.2f})")
        print("    ours per pass, ms per page: " + ", ".join(per))
        asked_t = sum("trafilatura asked" in e.why for e in self.ours)
        asked_h = sum("htmldate asked" in e.why for e in self.ours)
        print(
            f"    second opinions: trafilatura on {asked_t} pages ({asked_t / n:.1%}), "
            f"htmldate on {asked_h} ({asked_h / n:.1%})"
        )
        return traf / ours if ours else 0.0


def english(
    folder: Path, rounds: int, others: dict[str, Callable[[bytes], object]]
) -> Timed | None:
    truth_file = folder / "ground-truth.json"
    if not truth_file.exists():
        print(f"English: {folder} not found, skipped")
        return None
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    pages = [
        (k, gzip.decompress((folder / "html" / f"{k}.html.gz").read_bytes()), truth[k]["url"])
        for k in truth
    ]
    timed = Timed(pages, rounds)
    timed.run(others)
    texts = [e.article.text if e.article else "" for e in timed.ours]
    theirs = [trafilatura.extract(b) or "" for _k, b, _u in pages]
    gt = [truth[k]["articleBody"] for k, _b, _u in pages]
    p, r, f = prf(list(zip(gt, texts, strict=True)))
    tp, tr, tf = prf(list(zip(gt, theirs, strict=True)))
    not_article = [
        k[:12] for (k, _b, _u), e in zip(pages, timed.ours, strict=True) if e.kind != "article"
    ]
    print(f"English ({len(pages)} pages, human ground truth)")
    print(f"  ours:        precision {p:.4f}  recall {r:.4f}  F1 {f:.4f}   (target F1 >= 0.97)")
    print(f"  trafilatura: precision {tp:.4f}  recall {tr:.4f}  F1 {tf:.4f}   (default call)")
    print(f"  judged not an article: {len(not_article)} {not_article}")
    timed.report("English")
    return timed


def _day(value: str | None) -> str:
    m = re.search(r"(\d{4})-(\d{1,2})-(\d{1,2})", value or "")
    return f"{int(m[1]):04d}-{int(m[2]):02d}-{int(m[3]):02d}" if m else ""


def _minute(value: str | None) -> str:
    m = re.search(r"(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})", value or "")
    return f"{m[1]} {int(m[2]):02d}:{m[3]}" if m else _day(value)


def _same_title(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return re.sub(r"[\W_]+", "", s.replace("“", '"').replace("”", '"')).lower()

    return norm(a) == norm(b)


def line_key(line: str) -> str:
    """How the corrections file names a line: sha1 of its text without whitespace."""
    return hashlib.sha1(re.sub(r"\s+", "", line).encode()).hexdigest()[:16]


def page_pieces(body: bytes) -> dict[str, str]:
    """Every text block of a page (each element's text, each text run) by its line key:
    where the corrections' added lines are read from."""
    text, _enc = decode_body(body, None)
    tree = LexborHTMLParser(text)
    out: dict[str, str] = {}
    for el in tree.root.traverse(include_text=True) if tree.root is not None else ():
        raw = el.text_content if el.tag == "-text" else el.text(deep=True)
        t = " ".join((raw or "").split())
        if t:
            out.setdefault(line_key(t), t)
    return out


def corrected(peer_text: str, fix: dict, body: bytes) -> tuple[str, int]:  # type: ignore[type-arg]
    """The peer's text with the careful reading's corrections, and how many added lines
    could not be found in the page."""
    drop = {d["sha1"] for d in fix.get("drop", [])}
    lines = [x for x in peer_text.split("\n") if x.strip() and line_key(x) not in drop]
    missing = 0
    if fix.get("add"):
        pieces = page_pieces(body)
        for a in fix["add"]:
            if a["sha1"] in pieces:
                lines.append(pieces[a["sha1"]])
            else:
                missing += 1
    return "\n".join(lines), missing


def disagreements_table(k: str, ours: str, peer_text: str, ref: str, fix: dict) -> list[str]:  # type: ignore[type-arg]
    """Each line where our text and the peer's differ, and who the careful reading says is
    right (with its reason when it corrected the peer)."""

    def norm(x: str) -> str:
        return re.sub(r"\s+", "", x.lstrip("- "))

    why = {d["sha1"]: d["why"] for d in fix.get("drop", []) + fix.get("add", [])}
    o_lines = [x for x in ours.split("\n") if x.strip()]
    p_lines = [x for x in peer_text.split("\n") if x.strip()]
    o_all, p_all, r_all = norm("".join(o_lines)), norm("".join(p_lines)), norm(ref)
    p_grams = {p_all[i : i + 4] for i in range(len(p_all) - 3)}

    def same_text(x: str) -> bool:
        """Most of ``x``'s 4-character runs are in the peer's text: the same text with
        other line breaks (a table read as one line), not a disagreement."""
        grams = [x[i : i + 4] for i in range(len(x) - 3)]
        return bool(grams) and sum(g in p_grams for g in grams) >= 0.8 * len(grams)

    rows = []
    for x in o_lines:
        if norm(x) and norm(x) not in p_all and not same_text(norm(x)):
            right = "ours" if norm(x) in r_all else "peer"
            rows.append(
                f"  {k:20s} ours only  {right:4s} right  {len(norm(x)):5d} chars  "
                f"{why.get(line_key(x), 'the story' if right == 'ours' else 'not the story')}"
            )
    for x in p_lines:
        if norm(x) and norm(x) not in o_all:
            right = "peer" if norm(x) in r_all else "ours"
            rows.append(
                f"  {k:20s} peer only  {right:4s} right  {len(norm(x)):5d} chars  "
                f"{why.get(line_key(x), 'the story' if right == 'peer' else 'not the story')}"
            )
    return rows


def chinese(
    folder: Path, show: bool, rounds: int, others: dict[str, Callable[[bytes], object]]
) -> Timed | None:
    peer_file = folder / "peer-output.json"
    if not peer_file.exists():
        print(f"Chinese: {folder} not found, skipped")
        return None
    peer = json.loads(peer_file.read_text(encoding="utf-8"))
    pages = [(k, gzip.decompress((folder / "html" / f"{k}.html.gz").read_bytes())) for k in peer]
    url = "http://{}.example.cn/a.html"  # the pages carry no URL; a Chinese host for the zone
    timed = Timed([(k, b, url.format(k.split("__")[0])) for k, b in pages], rounds)
    timed.run(others)
    ours = timed.ours
    t_meta = [trafilatura.bare_extraction(b, with_metadata=True) for _, b in pages]
    fixes = json.loads(CORRECTIONS.read_text(encoding="utf-8"))["pages"]
    title_ok = date_ok = traf_title_ok = 0
    disagreements: list[str] = []
    table: list[str] = []
    pairs = []
    careful_pairs = []
    unresolved = 0
    for (k, body), e, tm in zip(pages, ours, t_meta, strict=True):
        ref = peer[k]
        a = e.article
        title = a.title if a else ""
        pub = a.published if a else None
        pairs.append((ref.get("content", ""), a.text if a else ""))
        careful, missing = corrected(ref.get("content", ""), fixes.get(k, {}), body)
        unresolved += missing
        careful_pairs.append((careful, a.text if a else ""))
        table += disagreements_table(
            k, a.text if a else "", ref.get("content", ""), careful, fixes.get(k, {})
        )
        if tm is not None and _same_title(tm.title or "", ref["title"]):
            traf_title_ok += 1
        if _same_title(title, ref["title"]):
            title_ok += 1
        else:
            disagreements.append(f"  {k}: title ours {title!r} / peer {ref['title']!r}")
        if (_minute(pub) and _minute(pub) == _minute(ref.get("publish_time"))) or (
            _day(pub)
            and _day(pub) == _day(ref.get("publish_time"))
            and ":" not in (ref.get("publish_time") or "")[10:]
        ):
            date_ok += 1
        else:
            disagreements.append(
                f"  {k}: published ours {pub!r} / peer {ref.get('publish_time')!r}"
            )
        if e.kind != "article":
            disagreements.append(f"  {k}: judged {e.kind}: {e.why}")
    n = len(pages)
    p, r, f = prf(pairs, CJK)
    print(f"Chinese ({n} pages, peer extractor's output)")
    print(
        f"  headline agrees with the peer: {title_ok}/{n} ({title_ok / n:.0%}); trafilatura's {traf_title_ok}/{n}"  # noqa: E501
    )
    print(
        f"  publication time agrees with the peer (to the minute): {date_ok}/{n} ({date_ok / n:.0%})"  # noqa: E501
    )
    print(f"  body vs the peer's text: precision {p:.4f} recall {r:.4f} F1 {f:.4f}")
    cp, cr, cf = prf(careful_pairs, CJK)
    print(
        f"  body vs the careful reading ({CORRECTIONS.name}): precision {cp:.4f} recall "
        f"{cr:.4f} F1 {cf:.4f}   (target F1 >= 0.9)"
        + (f"; {unresolved} added lines not found in their pages" if unresolved else "")
    )
    ours_right = sum(" ours right " in row for row in table)
    print(
        f"  body lines where ours and the peer's differ: {len(table)}, ours right on "
        f"{ours_right}, the peer right on {len(table) - ours_right}:"
    )
    print("\n".join(table) or "  none")
    timed.report("Chinese")
    print("  disagreements (judge each by reading the page):")
    print("\n".join(disagreements) or "  none")
    if show:
        for (k, _), e in zip(pages, ours, strict=True):
            print(f"===== {k}: {e.kind} ({e.why})")
            print(json.dumps(e.to_dict(), ensure_ascii=False, indent=1)[:3000])
    return timed


#: The neutral URL a suite's page is extracted at (no date in it, a host of its own).
NEUTRAL = "http://127.0.0.1:8000/p/{}"


def _norm(text: str) -> str:
    """trafilatura's evaluation's whitespace normalisation (tests/eval_common.py)."""
    return re.sub(r"\s+", " ", text).strip()


def _count(item: dict, result: str | None) -> tuple[int, int, int, int]:  # type: ignore[type-arg]
    """(tp, fp, fn, tn) of one page, as trafilatura's ``count_item``."""
    if isinstance(result, str):
        res = _norm(result)
        tp = sum(1 for w in item["with"] if _norm(w) in res)
        fp = sum(1 for w in item["without"] if _norm(w) in res)
    else:
        tp = fp = 0
    return tp, fp, len(item["with"]) - tp, len(item["without"]) - fp


def _scores(counts: list[tuple[int, int, int, int]]) -> tuple[float, float, float]:
    tp = sum(c[0] for c in counts)
    fp = sum(c[1] for c in counts)
    fn = sum(c[2] for c in counts)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _lang(body: bytes) -> str:
    """The page's declared language (``<html lang>``, its primary subtag), or ``?``."""
    m = re.search(rb"<html[^>]*?\blang\s*=\s*[\"']?([a-zA-Z]{2,3})", body[:4000])
    return m.group(1).decode().lower() if m else "?"


def _suite(folder: Path, name: str) -> list[tuple[str, bytes, dict]] | None:  # type: ignore[type-arg]
    index = folder / f"{name}.json"
    if not index.exists():
        print(f"{name}: {index} not found, skipped")
        return None
    data = json.loads(index.read_text(encoding="utf-8"))
    return [
        (k, gzip.decompress((folder / name / f"{k}.html.gz").read_bytes()), v)
        for k, v in data.items()
    ]


def bodies(folder: Path, rounds: int, others: dict[str, Callable[[bytes], object]]) -> Timed | None:
    """trafilatura's own suite, scored as trafilatura scores it."""
    suite = _suite(folder, "bodies")
    if suite is None:
        return None
    timed = Timed([(k, b, NEUTRAL.format(k)) for k, b, _v in suite], rounds)
    timed.run(others)
    ours = [
        _count(v, e.article.text if e.article else "")
        for (_k, _b, v), e in zip(suite, timed.ours, strict=True)
    ]
    settings = {"include_comments": False, "include_tables": True, "include_formatting": False}
    runs = {
        "default": [_count(v, trafilatura.extract(b, **settings)) for _k, b, v in suite],
        "fast": [_count(v, trafilatura.extract(b, fast=True, **settings)) for _k, b, v in suite],
    }
    n = len(suite)
    empty = sum(1 for e in timed.ours if e.article is None)
    p, r, f = _scores(ours)
    print(f"trafilatura's suite ({n} pages, its scoring: substrings in and out of the main text)")
    print(
        f"  ours:                  precision {p:.4f}  recall {r:.4f}  F1 {f:.4f}"
        f"   (target >= 0.93 on the held-out half); {empty} pages with no text"
    )
    for label, counts in runs.items():
        p, r, f = _scores(counts)
        print(f"  trafilatura ({label + '):':8s}  precision {p:.4f}  recall {r:.4f}  F1 {f:.4f}")
    langs = collections.Counter(_lang(b) for _k, b, _v in suite)
    cells = []
    for lang, count in langs.most_common(8):
        idx = [i for i, (_k, b, _v) in enumerate(suite) if _lang(b) == lang]
        f_ours = _scores([ours[i] for i in idx])[2]
        f_traf = _scores([runs["default"][i] for i in idx])[2]
        cells.append(f"{lang} {count}: {f_ours:.3f}/{f_traf:.3f}")
    print("  F1 by declared language (pages: ours/trafilatura): " + "; ".join(cells))
    timed.report("trafilatura's suite")
    return timed


def dates(folder: Path, rounds: int, others: dict[str, Callable[[bytes], object]]) -> Timed | None:
    """htmldate's own suite, scored as htmldate scores it (the exact day)."""
    from htmldate import find_date

    suite = _suite(folder, "dates")
    if suite is None:
        return None
    timed = Timed([(k, b, NEUTRAL.format(k)) for k, b, _v in suite], rounds)
    timed.run(others)

    def tally(found: list[str | None]) -> tuple[int, int, int]:
        right = sum(1 for d, (_k, _b, v) in zip(found, suite, strict=True) if d and d == v["date"])
        none = sum(1 for d in found if not d)
        return right, len(found) - right - none, none

    ours = [_day(e.article.published if e.article else None) or None for e in timed.ours]
    n = len(suite)
    right, wrong, none = tally(ours)
    print(f"htmldate's suite ({n} pages, its scoring: the exact day)")
    print(
        f"  ours:                 day right {right / n:.4f} ({right}), wrong {wrong}, none {none}"
        "   (target >= 0.92, wrong <= 44 on the held-out half)"
    )
    for label, extensive in (("extensive", True), ("fast", False)):
        found = [
            find_date(b, extensive_search=extensive, original_date=True) for _k, b, _v in suite
        ]
        r, w, nn = tally(found)
        print(f"  htmldate ({label + '):':10s}   day right {r / n:.4f} ({r}), wrong {w}, none {nn}")
    langs = collections.Counter(_lang(b) for _k, b, _v in suite)
    cells = []
    for lang, count in langs.most_common(8):
        got = [d for d, (_k, b, _v) in zip(ours, suite, strict=True) if _lang(b) == lang]
        idx = [v for _k, b, v in suite if _lang(b) == lang]
        ok = sum(1 for d, v in zip(got, idx, strict=True) if d == v["date"])
        cells.append(f"{lang} {ok}/{count}")
    print("  day right by declared language: " + "; ".join(cells))
    timed.report("htmldate's suite")
    return timed


def _read_pages(path: str) -> Iterator[bytes]:
    """The pages written by :func:`memory`, one at a time (four bytes of length each)."""
    with open(path, "rb") as f:
        while head := f.read(4):
            yield f.read(int.from_bytes(head, "big"))


def _worker_peak(path: str) -> tuple[int, int]:  # pragma: no cover - in a child
    """Extract every page in ``path`` as a crawl's worker does, one page in memory at a time
    (as the worker gets them); the process's resident memory after loading the extractor and
    its peak (Linux: VmRSS and VmHWM), in KiB."""
    from crawler_gui.engine.extract.extractor import extract_page as extract

    def status(name: str) -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(name):
                return int(line.split()[1])
        return -1

    extract(b"<html><body><p>warm</p></body></html>", NEUTRAL.format(0))
    start = status("VmRSS:")
    for i, body in enumerate(_read_pages(path)):
        extract(body, NEUTRAL.format(i))
    return start, status("VmHWM:")


def memory(bodies_list: list[bytes]) -> None:
    """An extraction worker's peak memory over every page timed."""
    with tempfile.NamedTemporaryFile(suffix=".pages") as f:
        for body in bodies_list:
            f.write(len(body).to_bytes(4, "big") + body)
        f.flush()
        ctx = multiprocessing.get_context("spawn")  # (as the extraction pool starts its workers)
        with ctx.Pool(1) as pool:
            start, peak = pool.apply(_worker_peak, (f.name,))
    print(
        f"Memory: an extraction worker's resident memory once started {start / 1024:.0f} MiB, "
        f"its peak over {len(bodies_list)} pages {peak / 1024:.0f} MiB (pages read one at a "
        f"time; the largest {max(map(len, bodies_list), default=0) / 2**20:.1f} MiB)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--en", type=Path, default=REF / "articles-en")
    ap.add_argument("--zh", type=Path, default=REF / "articles-zh")
    ap.add_argument("--peers", type=Path, default=REF / "peers")
    ap.add_argument(
        "--only", default="en,zh,bodies,dates,memory", help="parts to run (comma-separated)"
    )
    ap.add_argument("--show", action="store_true", help="print every Chinese extraction")
    ap.add_argument(
        "--rounds", type=int, default=3, help="timing rounds per page (best is kept; default 3)"
    )
    args = ap.parse_args()
    only = set(args.only.split(","))
    others: dict[str, Callable[[bytes], object]] = {"trafilatura": trafilatura.extract}
    resili = _resiliparse()
    if resili is not None:
        others["resiliparse"] = resili
    else:
        print("resiliparse not installed (pip install resiliparse): its speed is left out")
    # (Every library loaded and warm before any page is timed: a worker loads them once.)
    import htmldate  # noqa: F401

    extract_page(b"<html><body><p>warm</p></body></html>", NEUTRAL.format(0))
    trafilatura.extract(b"<html><body><p>warm up, a sentence of text.</p></body></html>")
    ratios: list[tuple[str, float]] = []
    parts = {
        "en": lambda: english(args.en, args.rounds, others),
        "zh": lambda: chinese(args.zh, args.show, args.rounds, others),
        "bodies": lambda: bodies(args.peers, args.rounds, others),
        "dates": lambda: dates(args.peers, args.rounds, others),
    }
    everything: list[bytes] = []
    for name, run in parts.items():
        if name in only:
            timed = run()
            if timed is not None:
                ratios.append((name, sum(timed.best["trafilatura"]) / sum(timed.best["ours"])))
                everything += [b for _k, b, _u in timed.pages]
            print()
    if ratios:
        print(
            "Speed, trafilatura's default call over ours per page (target >= 5x): "
            + ", ".join(f"{n} {r:.1f}x" for n, r in ratios)
        )
    if "memory" in only and everything:
        memory(everything)
    return 0


if __name__ == "__main__":
    sys.exit(main())
