"""The generated memory corpus both memory benchmarks search (``bench/memory.py`` on SQLite,
``bench/memory_postgres.py`` on PostgreSQL), so that their figures compare: items of 8–24 words
from a 20,000-word vocabulary with a Zipf distribution (a few words are in many items, most in
few, as in real notes), a subject, a category, timestamps over a year; and the two kinds of
query, **words** (2–3 words of middling frequency) and **message** (a whole 12-word user
message, common words included)."""

from __future__ import annotations

import functools
import itertools
import random
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["SEED", "items", "sample_queries"]

SEED = 20261201
CATEGORIES = ["tooling", "deploy", "style", "testing", "people", "security", "data", "infra"]
COMMON = [
    "the", "a", "to", "of", "and", "in", "is", "for", "on", "with", "we", "use", "uses", "our",
    "it", "not", "be", "must", "project", "build", "test", "deploy", "database", "staging",
    "production", "python", "uv", "pip", "docker", "make", "ci", "review", "branch", "main",
    "release", "config", "server", "client", "api", "cache", "queue", "user", "team", "prefers",
    "answers", "terse", "tests", "postgres", "sqlite", "migration", "schema", "index", "query",
    "latency", "retry", "timeout", "token", "secret", "key", "backend", "frontend", "service",
    "payments", "auth", "logging", "metrics", "alert", "replication", "lag",
]


# ------------------------------------------------------------------------------ the corpus


@functools.cache
def _vocabulary(size: int = 20_000) -> tuple[list[str], list[float]]:
    """Words, commonest first, and their cumulative Zipf weights (1/rank)."""
    rng = random.Random(SEED)
    words = list(dict.fromkeys(COMMON))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice("bcdfghjklmnprstvz") + rng.choice("aeiou")
                       for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words, list(itertools.accumulate(1.0 / rank for rank in range(1, size + 1)))


def items(count: int, rng: random.Random) -> Iterator[Any]:
    from chatcli_memory_api import MemoryItem, MemoryKind

    words, cumulative = _vocabulary()
    now = time.time()
    kinds = [MemoryKind.FACT] * 8 + [MemoryKind.TOPIC, MemoryKind.PROJECT]
    for _ in range(count):
        created = now - rng.uniform(0, 365 * 86_400)
        text = " ".join(rng.choices(words, cum_weights=cumulative,
                                    k=rng.randint(8, 24))).capitalize() + "."
        yield MemoryItem(
            kind=rng.choice(kinds), text=text, category=rng.choice(CATEGORIES),
            subject=" ".join(rng.choices(words[:2_000], k=rng.randint(1, 2))),
            confidence=round(rng.uniform(0.3, 1.0), 2), created_at=created,
            updated_at=created + rng.uniform(0, 30 * 86_400),
            scope=rng.choice(["global"] * 3 + ["project:bench"]))


def sample_queries(kind: str, count: int, rng: random.Random) -> list[str]:
    words, cumulative = _vocabulary()
    if kind == "words":
        middling = words[200:3_000]
        return [" ".join(rng.sample(middling, rng.randint(2, 3))) for _ in range(count)]
    return [" ".join(rng.choices(words, cum_weights=cumulative, k=12)) for _ in range(count)]
