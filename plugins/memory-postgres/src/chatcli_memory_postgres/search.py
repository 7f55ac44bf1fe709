"""From a user's words to ``tsquery`` text, which words select the candidates, and the score.

The query is never parsed by PostgreSQL's query languages (``websearch_to_tsquery`` reads
``or`` and ``-`` as operators): its words are taken out here, letters and digits only, and
joined with ``|``, so an item holding *any* of them matches and one holding more ranks higher.
Words are stemmed and English stop words left out (the ``english`` configuration, on the items
and the query alike): "what testing frameworks" finds "pytest is the test framework". The
statistics list stems, so when they are there the query's words are first made stems by
PostgreSQL (one query) and then searched as they are (``simple``).

Recall searches with a whole user message, whose common words ("the", "project") are in most
items; ranking every item that holds one of them costs milliseconds per thousand rows. So, as
a search engine's "common terms" query does, the *candidates* are the items holding the query's
rarer words — chosen from PostgreSQL's own statistics of the column (``pg_stats``: how often
each frequent lexeme occurs, refreshed by autovacuum's ANALYZE) so that they add up to at most
:data:`MATCH_BUDGET` rows — and the *ranking* of the candidates uses every word. While the
estimate is within the budget (small memories, rare words, no statistics yet) every word
selects; a query of common words only keeps its rarest one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["CANDIDATE_CAP", "MATCH_BUDGET", "MAX_WORDS", "SCORE_SQL", "WordStats",
           "match_words", "query_words", "tsquery_text"]

#: Words of one query that are searched (recall searches with a whole message).
MAX_WORDS = 64
#: Estimated rows the selecting words may match together (the rest only rank).
MATCH_BUDGET = 500
#: Candidates ranked at most (the freshest, when even the rarest word is common).
CANDIDATE_CAP = 1_000

_WORD = re.compile(r"[^\W_]+")

#: Text relevance (``ts_rank_cd``: cover density, divided by 1 + log(length), mapped to 0–1)
#: scaled by freshness (half-life 30 days from the latest of ``updated_at`` and
#: ``last_used_at``) and confidence: a better text match wins, and between equal matches the
#: fresher, then the more confident, item. Reads ``tsv``, ``%(rank)s`` (the tsquery text of
#: every word) and ``%(now)s``.
SCORE_SQL = """
    ts_rank_cd(tsv, to_tsquery(%(config)s::regconfig, %(rank)s), 1 | 32)
    * (0.5
       + 0.3 * power(0.5, greatest(0.0, %(now)s - greatest(updated_at,
                                                        coalesce(last_used_at, updated_at)))
                          / (30.0 * 86400.0))
       + 0.2 * confidence)
"""


@dataclass(frozen=True)
class WordStats:
    """The column's statistics: rows in the table (None: never analysed), the frequency (share
    of rows) of each frequent lexeme, and the smallest frequency listed (rarer words are below
    it)."""

    rows: float | None = None
    frequencies: dict[str, float] = field(default_factory=dict)
    floor: float = 0.0

    @classmethod
    def from_pg(cls, rows: float | None, words: list[str] | None,
                freqs: list[float] | None) -> WordStats:
        """From ``pg_class.reltuples`` and ``pg_stats.most_common_elems`` /
        ``most_common_elem_freqs`` (which ends with the minimum, the maximum and the null
        share)."""
        if rows is None or rows < 0:
            return cls()
        if not words or not freqs or len(freqs) < len(words) + 1:
            return cls(rows=rows)
        return cls(rows=rows, frequencies=dict(zip(words, freqs, strict=False)),
                   floor=float(freqs[len(words)]))


def query_words(query: str) -> list[str]:
    """The distinct words of ``query``, lower-cased, in order, at most :data:`MAX_WORDS`."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        seen.setdefault(word, None)
        if len(seen) >= MAX_WORDS:
            break
    return list(seen)


def match_words(words: list[str], stats: WordStats, budget: int = MATCH_BUDGET) -> list[str]:
    """The words that select candidates: all of them while their estimated rows fit the
    budget; else the words too rare to be listed in the statistics, and the listed ones from
    the rarest while the budget lasts (at least one word)."""
    if stats.rows is None or not stats.frequencies:
        return words
    estimate = {w: stats.frequencies.get(w, stats.floor) * stats.rows for w in words}
    if sum(estimate.values()) <= budget:
        return words
    chosen = [w for w in words if w not in stats.frequencies]
    spent = sum(estimate[w] for w in chosen)
    for word in sorted((w for w in words if w in stats.frequencies), key=estimate.__getitem__):
        if chosen and spent + estimate[word] > budget:
            break
        chosen.append(word)
        spent += estimate[word]
    return chosen


def tsquery_text(words: list[str]) -> str:
    """``'w1' | 'w2' | …`` for ``to_tsquery(config, …)`` (words hold no quotes)."""
    return " | ".join(f"'{word}'" for word in words)
