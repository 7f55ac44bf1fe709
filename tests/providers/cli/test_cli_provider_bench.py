"""bench/cli_providers.py still runs (its figures are read by people, never asserted on)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_the_bench_runs_and_prints_its_table() -> None:
    bench = Path(__file__).resolve().parents[3] / "bench" / "cli_providers.py"
    done = subprocess.run([sys.executable, str(bench), "--turns", "1,5", "--runs", "2"],
                          capture_output=True, text=True, timeout=300)
    assert "prompt characters sent per turn" in done.stdout, done.stdout + done.stderr
    assert "one turn: through the provider" in done.stdout
    assert "Traceback" not in done.stderr
