"""Memory search matches any of the query's words in any form (stems) and ranks by BM25: "what
test framework" finds "pytest is the test framework", and so do "testing frameworks" and
"tests"; an older file (schema 1, an index without stems) is indexed again on open. The same
table runs against the PostgreSQL backend (tests/memory_postgres/test_postgres_stems.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from chatcli_memory.sqlite_backend import SCHEMA_VERSION, SqliteBackend
from chatcli_memory_api import MemoryItem
from memory_search_table import FACTS, FINDS, NOTHING


def _fill(backend: SqliteBackend) -> None:
    for item_id, text in FACTS.items():
        backend.store(MemoryItem(id=item_id, text=text))


@pytest.mark.parametrize(("query", "first"), FINDS)
def test_a_query_finds_the_fact_in_any_form(tmp_path: Path, query: str, first: str) -> None:
    backend = SqliteBackend(tmp_path / "m.db")
    try:
        _fill(backend)
        hits = backend.search(query)
        assert hits and hits[0].item.id == first, [h.item.text for h in hits]
    finally:
        backend.close()


@pytest.mark.parametrize("query", NOTHING)
def test_a_query_without_a_known_word_finds_nothing(tmp_path: Path, query: str) -> None:
    backend = SqliteBackend(tmp_path / "m.db")
    try:
        _fill(backend)
        assert backend.search(query) == []
    finally:
        backend.close()


def test_any_word_matches(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "m.db")
    try:
        _fill(backend)
        ids = {h.item.id for h in backend.search("staging or tests")}
        assert ids == {"mem_deploy", "mem_test"}
    finally:
        backend.close()


def test_more_matching_words_rank_higher(tmp_path: Path) -> None:
    backend = SqliteBackend(tmp_path / "m.db")
    try:
        _fill(backend)
        backend.store(MemoryItem(id="mem_other", text="the test suite is slow"))
        ids = [h.item.id for h in backend.search("which test framework")]
        assert ids[:2] == ["mem_test", "mem_other"]
    finally:
        backend.close()


def test_a_schema_1_file_is_indexed_again_with_stems(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    SqliteBackend(path).close()
    with sqlite3.connect(path) as db:  # what chatcli-memory 1 made: an index without stems
        db.executescript("""
            DROP TABLE items_fts;
            CREATE VIRTUAL TABLE items_fts USING fts5(
                text, subject, category, content='items', content_rowid='rowid',
                tokenize='unicode61 remove_diacritics 2');
            PRAGMA user_version = 1;""")
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO items (id, kind, text, confidence, provenance, scope, "
                   "created_at, updated_at) VALUES ('mem_test', 'fact', "
                   "'pytest is the test framework', 0.9, 'stated', 'global', 1, 1)")
    backend = SqliteBackend(path)
    try:
        assert [h.item.id for h in backend.search("testing frameworks")] == ["mem_test"]
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    finally:
        backend.close()
