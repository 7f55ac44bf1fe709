"""``chatcli audit`` over a log written by hand: the rotated files are read oldest first, lines
that are not records are skipped with a warning, text from the log cannot style the table, and
an absent log says where it would be."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from audit_support import chatcli, environment, log_file
from chatcli_audit.cli import row
from chatcli_audit.query import Filters, read_records

RECORDS: list[dict[str, Any]] = [
    {"time": "2026-12-07T10:00:00.000Z", "kind": "session", "session": "s_aaa", "event": "start",
     "provider": "openai", "model": "gpt-4o", "mode": "default"},
    {"time": "2026-12-07T10:01:00.000Z", "kind": "tool_call", "session": "s_aaa", "call": "c1",
     "tool": "exec", "risk": "execute", "decision": "allow", "verdict": "ask",
     "decided_by": "user", "arguments": "{\"command\":\"[bold red]make[/] deploy\"}"},
    {"time": "2026-12-07T11:00:00.000Z", "kind": "tool_call", "session": "s_bbb", "call": "c2",
     "tool": "edit", "risk": "write", "decision": "deny", "verdict": "deny",
     "decided_by": "rule", "rule": "edit(secrets/**)"},
    {"time": "2026-12-07T12:00:00.000Z", "kind": "model_call", "session": "s_bbb",
     "conversation": "s_child", "provider": "openai", "model": "gpt-4o", "purpose": "subagent",
     "input_tokens": 10, "output_tokens": 2, "cost_usd": 0.00123},
]


def _write(file: Path) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in RECORDS]
    file.with_name("audit.jsonl.2").write_text(lines[0] + "\n")
    file.with_name("audit.jsonl.1").write_text(lines[1] + "\nnot json\n[1, 2]\n\n")
    file.write_text("\n".join(lines[2:]) + "\n")


@pytest.mark.parametrize(("filters", "expected"), [
    (Filters(), [0, 1, 2, 3]),
    (Filters(session="s_b"), [2, 3]),
    (Filters(session="s_child"), [3]),
    (Filters(tool="exec"), [1]),
    (Filters(decision="ask"), [1]),
    (Filters(decision="allow"), [1]),
    (Filters(decision="deny"), [2]),
    (Filters(kind="model_call"), [3]),
])
def test_filters(tmp_path: Path, filters: Filters, expected: list[int]) -> None:
    file = tmp_path / "audit.jsonl"
    _write(file)
    reading = read_records(file, filters)
    assert reading.records == [RECORDS[i] for i in expected]
    assert reading.skipped == 2


def test_rows_are_plain_text() -> None:
    cells = row(RECORDS[3])
    assert cells[3] == "openai/gpt-4o" and cells[5] == "10 in, 2 out $0.0012"
    assert row({"kind": "tool_call", "tool": "x\x1b[31m", "arguments": "a\nb"})[3] == "x [31m"


@pytest.mark.slow
def test_the_command_over_a_hand_written_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = environment(home, "http://127.0.0.1:9", COLUMNS="200")
    missing = chatcli(tmp_path, env, "audit")
    assert missing.returncode == 0, missing.stderr
    assert "No audit records" in missing.stdout and "does not exist yet" in missing.stdout
    _write(log_file(home))
    table = chatcli(tmp_path, env, "audit", "--since", "2026-12-07T10:30")
    assert table.returncode == 0, table.stderr
    assert "edit(secrets/**)" in table.stdout and "$0.0012" in table.stdout
    assert "make" not in table.stdout  # (before --since)
    assert "2 line(s) of the audit log are not records" in table.stderr
    styled = chatcli(tmp_path, env, "audit", "--tool", "exec")
    assert "[bold red]make[/] deploy" in styled.stdout.replace("\n", "")  # shown, not obeyed
    as_json = chatcli(tmp_path, env, "audit", "--json", "--decision", "deny")
    assert json.loads(as_json.stdout) == [RECORDS[2]]
    bad = chatcli(tmp_path, env, "audit", "--decision", "maybe")
    assert bad.returncode == 2 and "'maybe' is not one of 'allow', 'deny', 'ask'" in bad.stderr
