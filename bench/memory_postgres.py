"""Search latency of the PostgreSQL memory backend at 100, 10,000 and 100,000 items.

A throwaway PostgreSQL server (``chatcli_testing.postgres_server``: Debian's binaries, fsync off)
gets a fresh database per size, filled through ``store_many`` with generated items: 8–24 words
each drawn from a 20,000-word vocabulary with a Zipf distribution (a few words are in many
items, most in few, as in real notes), a subject, a category, timestamps over a year. Then
``search`` runs, through the backend as recall calls it (limit 10, the default scopes and
archived filter), two kinds of query:

- **words**: 2–3 words of middling frequency (``/memory search``, the ``memory`` tool);
- **message**: a whole 12-word user message, common words included (recall searches with the
  user's message: any word matches, so this one ranks the most rows).

Each figure is the median (and 95th percentile) of the searches; the baseline, measured in the
same run, is a ``SELECT 1`` round trip on the same connection — the floor any query pays — and
``×rt`` is the search's median as a multiple of it. Goal: ≤ 20 ms at 100,000 items (the SQLite
backend's goal).

Run: .venv/bin/python bench/memory_postgres.py [--sizes 100,10000,100000] [--queries 40]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from memory_corpus import SEED, items, sample_queries

GOAL_MS = 20.0
def _timed(call: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measure(server: object, size: int, queries: int) -> dict[str, float]:
    """Fill a new database with ``size`` items and time the searches (milliseconds)."""
    from chatcli_memory_postgres.backend import PostgresMemoryBackend
    from chatcli_memory_postgres.settings import PostgresConfig

    rng = random.Random(SEED + size)
    database = server.create_database()  # type: ignore[attr-defined]
    backend = PostgresMemoryBackend.open(PostgresConfig(url=server.url(database)))  # type: ignore[attr-defined]
    try:
        start = time.perf_counter()
        batch: list[object] = []
        for item in items(size, rng):
            batch.append(item)
            if len(batch) == 5_000:
                backend.store_many(batch)  # type: ignore[arg-type]
                batch = []
        backend.store_many(batch)  # type: ignore[arg-type]
        fill = time.perf_counter() - start
        server.psql("ANALYZE", dbname=database)  # type: ignore[attr-defined]
        conn = backend._connection()
        roundtrip = statistics.median(_timed(lambda: conn.execute("SELECT 1").fetchone(),
                                             max(50, queries)))
        figures = {"fill_s": fill, "roundtrip": roundtrip}
        scopes = ["global", "project:bench"]
        for kind in ("words", "message"):
            texts = sample_queries(kind, queries + 5, rng)
            for text in texts[:5]:  # warm the caches
                backend.search(text, scopes=scopes)
            found: list[int] = []
            times = []
            for text in texts[5:]:
                t0 = time.perf_counter()
                found.append(len(backend.search(text, scopes=scopes)))
                times.append((time.perf_counter() - t0) * 1000)
            figures[f"{kind}_median"] = statistics.median(times)
            figures[f"{kind}_p95"] = _p95(times)
            figures[f"{kind}_hits"] = statistics.mean(found)
        return figures
    finally:
        backend.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,10000,100000",
                        help="item counts, comma-separated (default: 100,10000,100000)")
    parser.add_argument("--queries", type=int, default=40, help="searches per kind and size")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    from chatcli_testing.postgres_server import PostgresServer, PostgresUnavailable

    try:
        server = PostgresServer().start()
    except PostgresUnavailable as err:
        print(f"PostgreSQL memory search: not measured — {err}")
        return 0
    try:
        print("PostgreSQL memory search latency (ms; median / p95; ×rt = median over a "
              "SELECT 1 round trip)")
        print(f"{'items':>8} {'fill s':>7} {'rt ms':>6} | {'words':>15} {'×rt':>5} "
              f"{'hits':>4} | {'message':>15} {'×rt':>5} {'hits':>4}")
        results = {}
        for size in sizes:
            f = measure(server, size, args.queries)
            results[size] = f
            print(f"{size:>8,} {f['fill_s']:>7.1f} {f['roundtrip']:>6.3f} | "
                  f"{f['words_median']:>6.2f} / {f['words_p95']:>6.2f} "
                  f"{f['words_median'] / f['roundtrip']:>5.0f} {f['words_hits']:>4.1f} | "
                  f"{f['message_median']:>6.2f} / {f['message_p95']:>6.2f} "
                  f"{f['message_median'] / f['roundtrip']:>5.0f} {f['message_hits']:>4.1f}")
            sys.stdout.flush()
        if 100_000 in results:
            f = results[100_000]
            worst = max(f["words_median"], f["message_median"])
            verdict = "met" if worst <= GOAL_MS else "MISSED"
            print(f"goal ≤ {GOAL_MS:.0f} ms at 100,000 items: {verdict} "
                  f"({worst:.2f} ms, the slower median)")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
