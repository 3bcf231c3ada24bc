"""The scope kept in a pool folder (``scope.json``, ``engine/scope_file.py``)."""

from __future__ import annotations

from pathlib import Path

from crawler_gui.engine.scope_file import (
    load_links_limit,
    load_seed_domains,
    save_scope,
    write_scope_file,
)


def test_the_seeded_domains_and_the_depth_limit_come_back(tmp_path: Path) -> None:
    path = tmp_path / "scope.json"
    save_scope(path, {"b.example", "a.example"}, 3)
    assert load_seed_domains(path) == ["a.example", "b.example"]
    assert load_links_limit(path) == 3
    assert not path.with_suffix(".tmp").exists()
    save_scope(path, [], None)
    assert load_seed_domains(path) == [] and load_links_limit(path) is None


def test_a_missing_or_damaged_file_reads_as_no_scope(tmp_path: Path) -> None:
    path = tmp_path / "scope.json"
    assert load_seed_domains(path) == [] and load_links_limit(path) is None
    assert load_links_limit(None) is None
    for text in ("{not json", "[1, 2]", '{"seed_domains": "a.example", "links_limit": true}'):
        path.write_text(text, encoding="utf-8")
        assert load_seed_domains(path) == [] and load_links_limit(path) is None, text
    path.write_text('{"seed_domains": ["a.example", 7]}', encoding="utf-8")
    assert load_seed_domains(path) == ["a.example"]


def test_a_loaded_snapshots_scope_replaces_the_domains_alone(tmp_path: Path) -> None:
    path = tmp_path / "scope.json"
    save_scope(path, ["a.example"], 2)
    write_scope_file(path, ["c.example", "c.example", "b.example"])
    assert load_seed_domains(path) == ["b.example", "c.example"]
    assert load_links_limit(path) is None
