"""bench/context.py runs, meets its goal (≤ 20 % of the naive bill) and finds every deferred
item reachable through context_pull (its exit code says both)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "context.py"


def test_the_context_bench_meets_its_goal_with_everything_reachable() -> None:
    done = subprocess.run([sys.executable, str(BENCH)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(goal ≤ 20%: met)" in done.stdout
    assert "UNREACHABLE" not in done.stdout and "fetched through context_pull" in done.stdout


def test_the_entry_module_imports_nothing_heavy() -> None:
    code = ("import sys, chatcli_context.plugin; print(sorted(m for m in sys.modules if "
            "m.startswith(('pathspec', 'pydantic', 'chatcli_context', 'rich'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "['chatcli_context', 'chatcli_context.plugin']", done.stderr
