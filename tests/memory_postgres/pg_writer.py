"""A writer process for the concurrency tests: ``python pg_writer.py URL TAG N SHARED_IDS``.

Prints ``ready`` once imported, waits for ``go`` on stdin, then — racing the other writers —
opens the PostgreSQL backend (the first one creates the schema), stores the shared items unless
another writer already did, and stores N items of its own (scope ``project:TAG``), touching the
shared items and reinforcing the first by 0.001 after each. Prints ``done`` at the end.
"""

from __future__ import annotations

import contextlib
import sys

from chatcli_memory_api import MemoryItem
from chatcli_memory_postgres.backend import PostgresMemoryBackend
from chatcli_memory_postgres.settings import PostgresConfig


def main(url: str, tag: str, count: int, shared: list[str]) -> None:
    """Run one writer (see the module's docstring)."""
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")
    backend = PostgresMemoryBackend.open(PostgresConfig(url=url))
    for item_id in shared:
        with contextlib.suppress(ValueError):  # another writer stored it first
            backend.store(MemoryItem(id=item_id, text=f"shared {item_id}", confidence=0.0))
    for n in range(count):
        backend.store(MemoryItem(text=f"written by {tag} number {n}", scope=f"project:{tag}"))
        backend.touch(shared)
        backend.reinforce(shared[0], 0.001)
    backend.close()
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","))
