"""Two OS processes writing to one PostgreSQL memory at once lose nothing: the schema is
created once, a shared item is stored once, every item and every touch and reinforcement of the
shared items is counted exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chatcli_memory_postgres.backend import PostgresMemoryBackend
from chatcli_memory_postgres.settings import PostgresConfig

WRITER = Path(__file__).with_name("pg_writer.py")
PER_PROCESS = 150
SHARED = ["mem_shared_a", "mem_shared_b"]


def _run_writers(url: str, tags: list[str]) -> None:
    procs = [subprocess.Popen([sys.executable, str(WRITER), url, tag, str(PER_PROCESS),
                               ",".join(SHARED)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in tags]
    try:
        for proc in procs:  # every writer imported and waiting: then they start together
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0 and out.strip() == "done", err
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.mark.parametrize("writers", [2, 3])
def test_concurrent_processes_lose_nothing(pg_url: str, writers: int) -> None:
    tags = [f"w{n}" for n in range(writers)]
    _run_writers(pg_url, tags)  # on an empty database: they race to create the schema too
    backend = PostgresMemoryBackend.open(PostgresConfig(url=pg_url))
    try:
        items = backend.list(limit=None)
        assert len(items) == writers * PER_PROCESS + len(SHARED)
        for tag in tags:
            own = backend.list(scopes=[f"project:{tag}"])
            assert sorted(i.text for i in own) == sorted(
                f"written by {tag} number {n}" for n in range(PER_PROCESS))
        first, second = backend.get(SHARED[0]), backend.get(SHARED[1])
        assert first is not None and second is not None
        assert first.uses == second.uses == writers * PER_PROCESS
        assert first.confidence == pytest.approx(0.001 * writers * PER_PROCESS, abs=1e-6)
        assert second.confidence == 0.0
    finally:
        backend.close()
