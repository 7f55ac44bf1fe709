"""Search beyond the contract: the query's words, which of them select candidates in a large
memory (from PostgreSQL's statistics), and a whole message against a memory where some of its
words are everywhere."""

from __future__ import annotations

import pytest
from chatcli_memory_api import MemoryItem
from chatcli_memory_postgres.search import (
    MAX_WORDS,
    WordStats,
    match_words,
    query_words,
    tsquery_text,
)
from chatcli_testing.postgres_server import PostgresServer


def test_query_words_are_letters_and_digits_lowercased_once() -> None:
    assert query_words("Uv's pre-commit, (file.py) UV a_b 3.14 Müller!") == [
        "uv", "s", "pre", "commit", "file", "py", "a", "b", "3", "14", "müller"]
    assert query_words("?!.,;  ") == []
    assert len(query_words(" ".join(f"w{n}" for n in range(200)))) == MAX_WORDS
    assert tsquery_text(["uv", "pip"]) == "'uv' | 'pip'"


def test_every_word_selects_without_statistics_or_within_budget() -> None:
    words = ["the", "staging", "database"]
    assert match_words(words, WordStats()) == words
    assert match_words(words, WordStats(rows=100_000)) == words
    small = WordStats(rows=200, frequencies={"the": 0.9, "staging": 0.01}, floor=0.005)
    assert match_words(words, small, budget=500) == words


def test_common_words_only_rank_in_a_large_memory() -> None:
    stats = WordStats(rows=100_000, frequencies={"the": 0.8, "database": 0.004,
                                                 "staging": 0.001}, floor=0.0005)
    # "deploys" is too rare to be listed: it selects; then the listed ones, rarest first
    assert match_words(["the", "staging", "database", "deploys"], stats, budget=600) == [
        "deploys", "staging", "database"]
    assert match_words(["the", "database"], stats, budget=300) == ["database"]
    assert match_words(["the"], stats, budget=10) == ["the"]  # never nothing


def test_a_message_in_a_memory_full_of_its_common_words(pg_server: PostgresServer,
                                                        pg_database: str, pg_url: str,
                                                        opener) -> None:
    filler = [MemoryItem(text=f"the project note number {n} about the build")
              for n in range(800)]
    wanted = [MemoryItem(text=f"the staging database is read only ({n})") for n in range(3)]
    writer = opener(url=pg_url)
    writer.store_many(filler + wanted)
    message = "how do I reset the staging database of the project?"
    before = writer.search(message, limit=50)  # no statistics yet: every word selects
    assert len(before) == 50 and {h.item.id for h in before[:3]} == {i.id for i in wanted}
    pg_server.psql("ANALYZE", dbname=pg_database)
    reader = opener(url=pg_url)  # reads the statistics afresh
    hits = reader.search(message, limit=50)
    assert {h.item.id for h in hits} == {i.id for i in wanted}  # "the", "project" only rank
    assert reader.search("the project", limit=5)  # common words alone still find items


def test_a_simulated_clock_drives_updates_touches_and_freshness(pg_url: str) -> None:
    from chatcli_memory_postgres.backend import PostgresMemoryBackend
    from chatcli_memory_postgres.settings import PostgresConfig

    now = [1_000_000_000.0]
    backend = PostgresMemoryBackend.open(PostgresConfig(url=pg_url), clock=lambda: now[0])
    try:
        old = backend.store(MemoryItem(text="deploys go through staging", created_at=now[0],
                                       updated_at=now[0]))
        now[0] += 90 * 86_400
        fresh = backend.store(MemoryItem(text="deploys go through staging",
                                         created_at=now[0], updated_at=now[0]))
        assert [h.item.id for h in backend.search("staging")] == [fresh.id, old.id]
        backend.touch([old.id])
        assert backend.get(old.id).last_used_at == now[0]  # type: ignore[union-attr]
        scores = {h.item.id: h.score for h in backend.search("staging")}
        assert scores[old.id] == pytest.approx(scores[fresh.id])  # used just now: as fresh
        now[0] += 5
        assert backend.update(fresh).updated_at == now[0]
    finally:
        backend.close()
