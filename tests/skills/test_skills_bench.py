"""bench/skills.py runs its 10 turns, checks its own invariants (the curated requests carry the
body exactly once and the notice from the second turn on) and meets its goal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "skills.py"


def test_the_skills_bench_meets_its_goal() -> None:
    done = subprocess.run([sys.executable, str(BENCH)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(goal ≤ 30%: met)" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] and
            line.split()[0].isdigit()]
    assert len(rows) == 10
    assert rows[0][1] == rows[0][2]  # the first turn costs the same: catalog and body
