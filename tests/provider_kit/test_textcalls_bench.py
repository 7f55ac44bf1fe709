"""bench/toolcall.py still runs (its figures are read by people, never asserted on)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "toolcall.py"


def test_the_toolcall_bench_runs_and_prints_both_tables() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--quick", "--runs", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "parse_tool_calls as shipped" in done.stdout
    assert "no step budget" in done.stdout
    assert "unbalanced TOOL_CALL: read( lines" in done.stdout
