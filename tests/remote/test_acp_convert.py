"""chatcli's records as ACP values (chatcli_remote.acp.convert): the diffs of tool previews as
ACP diff content (whole files before and after), titles, kinds, stop reasons, plans and the
replayed history."""

from __future__ import annotations

from pathlib import Path

from chatcli import Message, Role, TextPart, ToolCallPart, ToolResultPart
from chatcli_plugin_records import ProgressItem
from chatcli_remote.acp.convert import (
    diff_contents,
    history_updates,
    plan_entries,
    stop_reason,
    tool_kind,
    tool_title,
)
from chatcli_render.diff import unified

WS = Path("/ws")


def _contents(files: dict[str, tuple[str | None, str | None]]) -> list[tuple[str, str | None, str]]:
    """Each file's (path, before, after) as diff_contents gives it back from their diff."""
    diff = "".join(unified(before, after, name) for name, (before, after) in files.items())
    texts = {WS / name: before for name, (before, _after) in files.items()}
    found = diff_contents(diff, WS, lambda path: texts.get(path))
    return [(c.path, c.old_text, c.new_text) for c in found]


def test_an_edit_becomes_the_whole_file_before_and_after() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 40))
    after = before.replace("line 3\n", "line three\n").replace("line 30\n", "")
    assert _contents({"a.py": (before, after)}) == [("/ws/a.py", before, after)]


def test_insertions_deletions_and_missing_line_ends_apply() -> None:
    cases = [("a\nb\n", "a\nx\nb\n"), ("a\nb\nc\n", "a\nc\n"), ("a\nb", "a\nb\n"),
             ("a\nb\n", "a\nb"), ("", "new\n"), ("x\n", "y\nx\n"), ("x\n", "x\ny\n")]
    for before, after in cases:
        assert _contents({"f.txt": (before, after)}) == [("/ws/f.txt", before, after)]


def test_new_and_deleted_files_and_several_files_in_one_patch() -> None:
    assert _contents({"new.txt": (None, "hello\n"), "old.txt": ("bye\n", None),
                      "b.txt": ("1\n2\n", "1\n3\n")}) == [
        ("/ws/new.txt", None, "hello\n"), ("/ws/old.txt", "bye\n", ""),
        ("/ws/b.txt", "1\n2\n", "1\n3\n")]


def test_a_diff_that_does_not_fit_the_file_shows_its_hunks_alone() -> None:
    diff = unified("a\nb\nc\n", "a\nB\nc\n", "f.txt")
    [content] = diff_contents(diff, WS, lambda _path: "something else\n")
    assert (content.old_text, content.new_text) == ("a\nb\nc\n", "a\nB\nc\n")
    assert diff_contents(None, WS, lambda _path: None) == []


def test_titles_kinds_and_stop_reasons() -> None:
    assert tool_title(ToolCallPart(name="exec", arguments={"command": "pytest  -q\n-x"})) == (
        "exec pytest -q -x")
    assert tool_title(ToolCallPart(name="multiedit", arguments={"edits": [
        {"path": "b.py"}, {"path": "a.py"}]})) == "multiedit a.py, b.py"
    assert len(tool_title(ToolCallPart(name="write", arguments={"path": "x" * 500}))) == 120
    assert [tool_kind("edit", None), tool_kind("glob", "read"), tool_kind("mcp_x", "network"),
            tool_kind("other", None)] == ["edit", "search", "fetch", "other"]
    assert [stop_reason(r) for r in ("end_turn", "interrupted", "max_tokens", "turn_limit",
                                     "error")] == [
        "end_turn", "cancelled", "max_tokens", "max_turn_requests", "end_turn"]


def test_progress_items_become_plan_entries() -> None:
    entries = plan_entries([ProgressItem("w1", "explore: a", "queued"),
                            ProgressItem("w2", "general: b", "running"),
                            ProgressItem("w3", "general: c", "failed")])
    assert [(e.content, e.status) for e in entries] == [
        ("explore: a", "pending"), ("general: b", "in_progress"),
        ("general: c (failed)", "completed")]


def test_the_history_replays_as_chunks_and_finished_tool_calls() -> None:
    call = ToolCallPart(name="read", arguments={"path": "a.txt"})
    messages = [
        Message(role=Role.USER, parts=[TextPart(text="question")]),
        Message(role=Role.ASSISTANT, parts=[TextPart(text="looking"), call]),
        Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="read",
                                                      content="1\thello")]),
        Message(role=Role.ASSISTANT, parts=[TextPart(text="answer")]),
    ]
    updates = history_updates(messages, WS)
    assert [u.session_update for u in updates] == [
        "user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update",
        "agent_message_chunk"]
    assert updates[2].locations[0].path == "/ws/a.txt"
    assert updates[3].status == "completed"
