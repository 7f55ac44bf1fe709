"""Long-term memory: search latency on SQLite, what memory adds to a 10-turn session's prompt
(at full price and cached), and how long the extraction worker holds up the next prompt.

1. **Search** — a fresh SQLite memory file per size (100, 10,000, 100,000 items) filled with
   generated items: 8–24 words each from a 20,000-word vocabulary with a Zipf distribution (a
   few words are in many items, most in few, as in real notes), a subject, a category,
   timestamps over a year. ``search`` runs as recall calls it (limit 10, two scopes, archived
   left out) with two kinds of query: **words** (2–3 words of middling frequency: ``/memory
   search``, the tools) and **message** (a whole 12-word user message, common words
   included: recall searches with it, any word matches). Median and 95th percentile; the
   baseline, in the same run, is ``get`` by id on the same file, and ``×get`` is the median
   over it. Goal: ≤ 20 ms at 100,000 items. PostgreSQL: ``bench/memory_postgres.py`` (run with
   ``--postgres``).
2. **Prompt** — a real session against the OpenAI wire server with a seeded memory (a
   profile, directives, 40 facts): 10 turns, some touching remembered subjects. Memory's
   characters per call: the index (stable: after the first call a cache read, not full price)
   and the recall (volatile: full price every call). *Naive* bills all of it every call.
3. **Worker** — the time from the end of an answer (its last text) to the next prompt being
   ready (the turn's iterator done: ``after_response`` ran, the worker was started) while the
   extraction model answers slowly, against the same turn without the memory plugin.

Run: .venv/bin/python bench/memory.py [--sizes 100,10000,100000] [--queries 40] [--postgres]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memory_corpus import SEED, items, sample_queries

GOAL_MS = 20.0
def _fill(backend: Any, count: int) -> list[str]:
    """Store ``count`` items in one transaction (the bench's shortcut); their ids."""
    rng = random.Random(SEED + count)
    ids = []
    with backend._write() as db:
        from chatcli_memory.sqlite_backend import _COLUMNS

        sql = (f"INSERT INTO items ({', '.join(_COLUMNS)}) VALUES "
               f"({', '.join('?' * len(_COLUMNS))})")
        for item in items(count, rng):
            db.execute(sql, backend._row(item))
            ids.append(item.id)
    backend._connection().execute("PRAGMA optimize")
    return ids


def _timed(call: Any, runs: list[Any]) -> tuple[float, float]:
    """Median and 95th percentile (ms) of ``call(run)`` over ``runs``."""
    times = []
    for run in runs:
        start = time.perf_counter()
        call(run)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def search_latency(sizes: list[int], queries: int) -> list[str]:
    from chatcli_memory.sqlite_backend import SqliteBackend

    rows = [f"{'items':>8}  {'query':<8} {'median':>9} {'p95':>9} {'×get':>7}  goal"]
    rng = random.Random(SEED)
    scopes = ["global", "project:bench"]
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            backend = SqliteBackend(Path(folder) / f"memory-{size}.db")
            ids = _fill(backend, size)
            gets = rng.choices(ids, k=queries)
            for item_id in gets[:5]:
                backend.get(item_id)  # warm the cache
            base, _ = _timed(backend.get, gets)
            for kind in ("words", "message"):
                texts = sample_queries(kind, queries, rng)
                for text in texts[:3]:
                    backend.search(text, scopes=scopes)
                median, p95 = _timed(functools.partial(backend.search, scopes=scopes), texts)
                ok = "ok" if size < 100_000 or median <= GOAL_MS else "MISSED"
                rows.append(f"{size:>8,}  {kind:<8} {median:>7.2f}ms {p95:>7.2f}ms "
                            f"{median / base:>6.0f}×  {ok if size == 100_000 else ''}")
            backend.close()
    return rows


# ------------------------------------------------------------------------------ the prompt

SEED_FACTS = [
    "The project uses uv for dependencies.", "Tests run with pytest -n auto.",
    "The staging database is read only.", "Deploys go out on Tuesdays after the review.",
    "CI runs on GitHub Actions.", "Ruff lints the code; line length is 100.",
    "The payments service is written in Go.", "Logs go to Loki, metrics to Prometheus.",
    "The API is versioned in the URL path.", "Migrations are written with Alembic.",
]
TURNS = [
    "How do I add the requests library?", "Run the tests for the payments service please.",
    "Can you write a migration for the users table?", "what does src/api/routes.py do?",
    "Explain the deploy process.", "Fix the lint error in src/app.py.",
    "Where do the logs go?", "Add an endpoint to the API.", "Refactor the cache module.",
    "Thanks, that's all for today.",
]


def _session(server: Any, workspace: Path, memory: dict[str, Any] | None,
             with_memory: bool = True) -> Any:
    import chatcli_provider_openai.plugin as openai_plugin
    from chatcli import PluginHost, ProviderSettings, Session, SessionOptions, Settings
    from chatcli_memory.plugin import MemoryPlugin

    host = PluginHost(warn=lambda _line: None)
    host.register(openai_plugin, "openai")
    plugin = MemoryPlugin()
    if with_memory:
        host.register(plugin, "memory")
    settings = Settings(provider="openai", model="m",
                        providers={"openai": ProviderSettings(base_url=server.url)},
                        memory=memory or {})
    session = Session(host, settings, SessionOptions(), interactive=True,
                      workspace=workspace).open()
    return session, plugin


def _system(request: Any) -> str:
    return next(m["content"] for m in request.json["messages"] if m["role"] == "system")


def prompt_cost(server: Any, workspace: Path) -> list[str]:
    from chatcli import Message

    server.reset()
    seed, plugin = _session(server, workspace, {"extract": False})
    runtime = plugin.current()
    runtime.open()
    from chatcli_memory.commands import add

    add(runtime, "Ada", profile="name")
    add(runtime, "backend engineer", profile="role")
    add(runtime, "never touch the production database", profile="directive")
    add(runtime, "terse answers with code first", profile="preference")
    rng = random.Random(SEED)
    for text in SEED_FACTS:
        add(runtime, text)
    for item in list(items(30, rng)):
        add(runtime, item.text)
    seed.close()
    runtime.close()

    server.reset()
    session, plugin = _session(server, workspace, {"extract": False})
    for text in TURNS:
        list(session.run(Message.user(text)))
    session.close()
    plugin.current().close()
    index_sent = recall_sent = full = 0
    previous_index = None
    for request in server.requests:
        if not request.json:
            continue
        system = _system(request)
        index = system[system.index("# Memory"):].split("\n\nToday is ")[0] \
            if "# Memory" in system else ""
        recall = system.split("Memory recalled for this message", 1)
        recall_text = "Memory recalled for this message" + recall[1] if len(recall) > 1 else ""
        index_sent += len(index)
        recall_sent += len(recall_text)
        full += len(recall_text) + (len(index) if index != previous_index else 0)
        previous_index = index
    calls = len([r for r in server.requests if r.json])
    naive = index_sent + recall_sent
    return [
        f"{calls} model calls; memory index {index_sent // max(calls, 1):,} characters a call "
        f"(stable), recall {recall_sent:,} characters in all (volatile)",
        f"memory characters sent: {naive:,}; billed at full price: {full:,} "
        f"({full / max(naive, 1):.1%} of naive: the index is a cache read after call 1)",
    ]


# ------------------------------------------------------------------------------ the worker


def worker_latency(server: Any, workspace: Path, runs: int = 5) -> list[str]:
    from chatcli import Message, TextDelta
    from chatcli_testing import Reply

    answer = json.dumps({"long_term": [{"text": "Benchmarks live in bench/."}]})
    rows = []
    for with_memory in (False, True):
        gaps = []
        for _ in range(runs):
            server.reset()
            server.script("a1", "a2", Reply(text=answer, delay=0.05))
            session, plugin = _session(server, workspace, {"cooldown": 0}, with_memory)
            list(session.run(Message.user("one")))
            last_text = 0.0
            for event in session.run(Message.user("two")):
                if isinstance(event, TextDelta):
                    last_text = time.perf_counter()
            gaps.append((time.perf_counter() - last_text) * 1000)
            busy = with_memory and plugin.current().worker.busy
            session.close()
            plugin.current().close()
        name = "with memory (extraction in flight)" if with_memory else "without memory"
        rows.append(f"{name:<36} {statistics.median(gaps):7.2f} ms"
                    + (f"  (extraction still running at readiness: {busy})"
                       if with_memory else ""))
    return rows


# ------------------------------------------------------------------------------ main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,10000,100000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--postgres", action="store_true",
                        help="also run bench/memory_postgres.py")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    from chatcli_testing import OpenAIServer

    with tempfile.TemporaryDirectory() as home:
        os.environ.update(CHATCLI_CONFIG_DIR=f"{home}/config", CHATCLI_DATA_DIR=f"{home}/data",
                          CHATCLI_CACHE_DIR=f"{home}/cache", OPENAI_API_KEY="sk-bench")
        workspace = Path(home) / "project"
        (workspace / ".git").mkdir(parents=True)
        print("search latency on SQLite (limit 10, two scopes), median and 95th percentile:")
        for row in search_latency(sizes, args.queries):
            print("  " + row)
        with OpenAIServer() as server:
            print("memory characters in a 10-turn session (billed at full price vs cached):")
            for row in prompt_cost(server, workspace):
                print("  " + row)
            print("answer end → next prompt ready, extraction model answering slowly:")
            for row in worker_latency(server, workspace):
                print("  " + row)
    if args.postgres:
        script = Path(__file__).with_name("memory_postgres.py")
        if script.exists():
            return subprocess.call([sys.executable, str(script), "--sizes", args.sizes])
    return 0


if __name__ == "__main__":
    sys.exit(main())
