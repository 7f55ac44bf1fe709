"""The benchmarks still run (their figures are read by people, never asserted on)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("script, args, expect", [
    ("turn.py", ["--runs", "1", "--only", "local,kernel"], "kernel: engine turn, text tools"),
    ("startup.py", ["--runs", "1"], "chatcli models"),
    ("context.py", [], "injected characters billed at full price"),
    # a throwaway PostgreSQL server (skipped in its output when the binaries are missing)
    ("memory_postgres.py", ["--sizes", "100,1000", "--queries", "5"], "PostgreSQL memory search"),
    ("skills.py", ["--turns", "3"], "skill characters billed at full price"),
    ("memory.py", ["--sizes", "100,1000", "--queries", "5"], "memory characters in a 10-turn"),
    ("mcp.py", [], "MCP tool characters in the prompt"),
    ("fallback.py", ["--requests", "5"], "chain [openai]"),
    ("repomap.py", ["--files", "60", "--runs", "1"], "the map's tokens at the default budget"),
    ("subagents.py", ["--runs", "1", "--latency", "0.05"], "ratio parallel / one after another"),
    ("server.py", ["--tokens", "200", "--sessions", "3", "--watchers", "5", "--idle", "20"],
     "added latency p95 under the crowd"),
    ("team.py", ["--clients", "3", "--turns", "2", "--tokens", "10"],
     "sessions answered by more than one replica"),
])
def test_a_bench_script_runs_and_prints_its_table(script, args, expect):
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=300)
    assert expect in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
