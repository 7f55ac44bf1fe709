"""The file of side calls kept beside a session (``<data dir>/cost/<id>.jsonl``): what it holds
reads back whole; a torn or foreign line costs that line only; any bytes in it never break
``/cost``; an id that is no plain file name is never a path."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import Usage
from chatcli_context.cost.calls import (
    SideCall,
    WorkerCall,
    calls_file,
    load,
    record,
    side_entry,
    worker_entry,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.usefixtures("home")


def test_what_is_kept_reads_back(home: Path) -> None:
    call = SideCall("memory", "openai", "gpt-test", Usage(input_tokens=7, output_tokens=2), 1.5)
    record("s_abc", side_entry(call))
    record("s_abc", {"message": "msg_1", "purpose": "agent"})
    kept = load("s_abc")
    assert kept.side == [call] and kept.purposes == {"msg_1": "agent"}
    path = home / "data" / "cost" / "s_abc.jsonl"
    assert calls_file("s_abc") == path and oct(path.stat().st_mode & 0o777) == "0o600"


def test_workers_calls_read_back_beside_side_calls(home: Path) -> None:
    """A root conversation's file holds its workers' calls too (with their TTL, or none)."""
    side = SideCall("memory", "openai", "gpt-test", Usage(input_tokens=7), 1.0)
    w1 = WorkerCall("w1", "explore", "s_child1", "subagent", "anthropic", "claude-test",
                    Usage(input_tokens=9, output_tokens=3, cache_write_tokens=4), 2.0, "1h")
    w2 = WorkerCall("w2", "general", "s_child2", "compaction", "openai", "gpt-test",
                    Usage(input_tokens=5), 3.0)
    for entry in (side_entry(side), worker_entry(w1), {"message": "msg_1", "purpose": "agent"},
                  worker_entry(w2)):
        record("s_root", entry)
    kept = load("s_root")
    assert kept.side == [side] and kept.workers == [w1, w2]
    assert kept.purposes == {"msg_1": "agent"}


@pytest.mark.parametrize("line", [
    '{"worker": "w1", "type": "explore"}',  # fields missing
    '{"worker": "w1", "type": "t", "conversation": "c", "purpose": "p", "provider": "p", '
    '"model": "m", "usage": [1], "at": 1}',  # a usage that is no object
    '"worker"',
])
def test_a_broken_worker_line_costs_that_line_only(home: Path, line: str) -> None:
    good = WorkerCall("w2", "explore", "s_c", "subagent", "openai", "m", Usage(input_tokens=3),
                      2.0)
    path = home / "data" / "cost" / "s_w.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(line + "\n")
    record("s_w", worker_entry(good))
    assert load("s_w").workers == [good] and load("s_w").side == []


#: lines that are not a call: each is skipped, the good line after it still counts
BROKEN = [
    '{"purpose": "memory", "provider": "openai"',  # torn mid-write
    '{"purpose": "memory"}',  # fields missing
    '{"purpose": "memory", "provider": "p", "model": "m", "usage": {"input_tokens": "x"}, '
    '"at": 1}',  # a usage that is no number
    "[1, 2, 3]",
    "not json at all",
    "",
]


@pytest.mark.parametrize("line", BROKEN)
def test_a_broken_line_costs_that_line_only(home: Path, line: str) -> None:
    good = SideCall("compaction", "openai", "m", Usage(input_tokens=3), 2.0)
    path = home / "data" / "cost" / "s_x.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(line + "\n")
    record("s_x", side_entry(good))
    assert load("s_x").side == [good]


@pytest.mark.parametrize("conversation_id", ["../escape", "a/b", "..", ".", "", "x" * 200,
                                             "s_\n", "s_ok\x00"])
def test_an_id_that_is_no_plain_file_name_is_never_a_path(conversation_id: str) -> None:
    assert calls_file(conversation_id) is None
    record(conversation_id, {"message": "m", "purpose": "agent"})  # nothing written
    assert load(conversation_id).side == []


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_any_bytes_in_the_file_never_break_loading(home: Path, data: bytes) -> None:
    path = home / "data" / "cost" / "s_any.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    load("s_any")  # whatever it holds: no exception
