"""The PostgreSQL backend searches like the SQLite one: any of the query's words, in any form
(stems), ranked by relevance — the table of tests/memory/test_search_stems.py against a real
server; a schema-1 memory (words without stems) is made searchable by stems on open."""

from __future__ import annotations

import pytest
from chatcli_memory_api import MemoryItem
from chatcli_memory_postgres.schema import SCHEMA_VERSION
from chatcli_testing.postgres_server import PostgresServer
from memory_search_table import FACTS, FINDS, NOTHING


def _fill(backend) -> None:
    for item_id, text in FACTS.items():
        backend.store(MemoryItem(id=item_id, text=text))


@pytest.fixture
def filled(open_backend):
    backend = open_backend()
    _fill(backend)
    return backend


@pytest.mark.parametrize(("query", "first"), FINDS)
def test_a_query_finds_the_fact_in_any_form(filled, query: str, first: str) -> None:
    hits = filled.search(query)
    assert hits and hits[0].item.id == first, [h.item.text for h in hits]


@pytest.mark.parametrize("query", NOTHING)
def test_a_query_without_a_known_word_finds_nothing(filled, query: str) -> None:
    assert filled.search(query) == []


def test_any_word_matches(filled) -> None:
    assert {h.item.id for h in filled.search("staging or tests")} == {"mem_deploy", "mem_test"}


def test_an_analysed_memory_compares_stems_with_its_statistics(
        pg_server: PostgresServer, pg_database: str, filled) -> None:
    """With statistics (ANALYZE ran), the query's words become stems first: the search still
    finds every form."""
    for number in range(200):
        filled.store(MemoryItem(text=f"note {number} about the test framework and deploys"))
    pg_server.psql("ANALYZE chatcli_memory_items", dbname=pg_database)
    filled._stats = None  # read the statistics again now
    assert filled._word_stats().frequencies  # (the path under test)
    hits = filled.search("which testing frameworks", limit=300)
    assert "mem_test" in {h.item.id for h in hits}
    assert filled.search("what") == []


def test_a_schema_1_memory_is_searchable_by_stems_after_open(
        pg_server: PostgresServer, pg_database: str, open_backend) -> None:
    open_backend()
    # what chatcli-memory-postgres 1 made: the words as they are ('simple')
    pg_server.psql("ALTER TABLE chatcli_memory_items DROP COLUMN tsv; "
                   "ALTER TABLE chatcli_memory_items ADD COLUMN tsv tsvector GENERATED ALWAYS "
                   "AS (to_tsvector('simple', text)) STORED; "
                   "UPDATE chatcli_memory_meta SET value = '1'; "
                   "INSERT INTO chatcli_memory_items (id, kind, text, confidence, provenance, "
                   "scope, created_at, updated_at) VALUES ('mem_test', 'fact', "
                   "'pytest is the test framework', 0.9, 'stated', 'global', 1, 1)",
                   dbname=pg_database)
    backend = open_backend()
    assert [h.item.id for h in backend.search("testing frameworks")] == ["mem_test"]
    assert pg_server.psql("SELECT value FROM chatcli_memory_meta", dbname=pg_database) == \
        str(SCHEMA_VERSION)
