"""The file of side calls kept beside a session (``<data dir>/cost/<id>.jsonl``): what it holds
reads back whole; a torn or foreign line costs that line only; any bytes in it never break
``/cost``; an id that is no plain file name is never a path."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import Usage
from chatcli_context.cost.calls import SideCall, calls_file, load, record, side_entry
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
