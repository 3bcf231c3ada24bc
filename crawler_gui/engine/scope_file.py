"""The crawl scope's file in a pool folder (``scope.json``): the registered domains seeded
into the crawl, so that a resumed crawl keeps its scope, and the depth limit under which the
pool's pages had their links taken, so that a raised limit follows the links it dropped.

``{"version": 1, "seed_domains": [...], "links_limit": N | null}``; an unreadable file reads
as no domains and no limit (the scope is then the settings' alone)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

SCOPE_FILE = "scope.json"


def load_links_limit(scope_file: Path | None) -> int | None:
    """The depth limit under which the pool's pages had their links taken (saved by
    :func:`save_scope`); None when unlimited or unknown."""
    if scope_file is None:
        return None
    try:
        data = json.loads(scope_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get("links_limit") if isinstance(data, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load_seed_domains(scope_file: Path) -> list[str]:
    """The seeded domains saved by :func:`save_scope` (empty if none or unreadable)."""
    try:
        data = json.loads(scope_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    domains = data.get("seed_domains") if isinstance(data, dict) else None
    if not isinstance(domains, list):
        return []
    return [d for d in domains if isinstance(d, str)]


def save_scope(scope_file: Path, seed_domains: Iterable[str], links_limit: int | None) -> None:
    """Remember the crawl's seeded domains and depth limit (written whole, then renamed)."""
    data = {
        "version": 1,
        "seed_domains": sorted(seed_domains),
        "links_limit": links_limit,
    }
    tmp = scope_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, scope_file)


def write_scope_file(scope_file: Path, domains: Iterable[str]) -> None:
    """Write a pool folder's scope of ``domains`` alone (``load --scope``: no depth limit)."""
    data = {"version": 1, "seed_domains": sorted(set(domains))}
    tmp = scope_file.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    os.replace(tmp, scope_file)
