"""The file tools read and write text through ``context.files``: with an editor's unsaved
buffer, the model reads the buffer, its edits are based on it and written to it, and the disk
is left alone; the disk default keeps the file's permissions."""

from __future__ import annotations

import os
from pathlib import Path

from chatcli import Conversation, ToolContext
from coder_support import Agent, Buffers

_DISK = "def f():\n    return 1\n"
_BUFFER = "def f():\n    return 2  # unsaved\n"


def _buffered(workspace: Path, name: str = "a.py") -> tuple[Agent, Buffers, Path]:
    target = workspace / name
    target.write_text(_DISK)
    buffers = Buffers({target.resolve(): _BUFFER})
    return Agent(workspace, files=buffers), buffers, target


def test_read_returns_the_unsaved_buffer_not_the_disk(workspace):
    agent, _buffers, _target = _buffered(workspace)
    text = agent.ok("read", path="a.py")
    assert "return 2  # unsaved" in text
    assert "return 1" not in text


def test_edit_is_based_on_the_buffer_and_written_to_it_leaving_the_disk_alone(workspace):
    agent, buffers, target = _buffered(workspace)
    agent.ok("read", path="a.py")
    done = agent.ok("edit", path="a.py", old="return 2", new="return 3")
    assert done.startswith("edited a.py (1 replacement, +1 −1)")
    assert buffers.texts[target.resolve()] == "def f():\n    return 3  # unsaved\n"
    assert target.read_text() == _DISK
    # a second edit goes on from the buffer as it now is
    agent.ok("edit", path="a.py", old="# unsaved", new="# still unsaved")
    assert buffers.texts[target.resolve()] == "def f():\n    return 3  # still unsaved\n"
    assert target.read_text() == _DISK


def test_an_edit_of_text_only_on_disk_is_not_found_in_the_buffer(workspace):
    agent, buffers, target = _buffered(workspace)
    agent.ok("read", path="a.py")
    error = agent.fails("edit", path="a.py", old="return 1", new="return 9")
    assert "NoMatch" in error
    assert buffers.written == []
    assert target.read_text() == _DISK


def test_write_multiedit_and_apply_patch_go_through_the_buffers(workspace):
    agent, buffers, target = _buffered(workspace)
    (workspace / "b.py").write_text("B = 1\n")
    agent.turn(("read", {"path": "a.py"}), ("read", {"path": "b.py"}))
    agent.ok("multiedit", edits=[
        {"path": "a.py", "old": "return 2", "new": "return 4"},
        {"path": "b.py", "old": "B = 1", "new": "B = 2"},
    ])
    assert buffers.texts[target.resolve()] == "def f():\n    return 4  # unsaved\n"
    assert buffers.texts[(workspace / "b.py").resolve()] == "B = 2\n"
    patch = ("*** Begin Patch\n*** Update File: a.py\n@@\n-    return 4  # unsaved\n"
             "+    return 5  # unsaved\n*** End Patch\n")
    agent.ok("apply_patch", patch=patch)
    assert buffers.texts[target.resolve()] == "def f():\n    return 5  # unsaved\n"
    agent.ok("write", path="a.py", content="replaced\n")
    assert buffers.texts[target.resolve()] == "replaced\n"
    assert target.read_text() == _DISK
    assert (workspace / "b.py").read_text() == "B = 1\n"


def test_the_previews_show_the_change_to_the_buffer(workspace):
    agent, buffers, _target = _buffered(workspace)
    agent.ok("read", path="a.py")
    context = ToolContext(workspace=workspace.resolve(), settings=agent.settings,
                          conversation=agent.conversation, files=buffers)
    edit = agent.host.tools()["edit"]
    assert edit.preview is not None
    diff = edit.preview(edit.parse_arguments({"path": "a.py", "old": "return 2",
                                              "new": "return 6"}), context)
    assert "-    return 2  # unsaved" in diff
    assert "+    return 6  # unsaved" in diff
    patch_tool = agent.host.tools()["apply_patch"]
    assert patch_tool.preview is not None
    patch = ("*** Begin Patch\n*** Update File: a.py\n@@\n-    return 2  # unsaved\n"
             "+    return 7\n*** End Patch\n")
    diff = patch_tool.preview(patch_tool.parse_arguments({"patch": patch}), context)
    assert "-    return 2  # unsaved" in diff and "+    return 7" in diff
    assert buffers.written == []


def test_the_disk_default_keeps_a_files_permissions_and_its_line_endings(workspace):
    agent = Agent(workspace, conversation=Conversation())
    target = workspace / "run.sh"
    target.write_bytes(b"echo one\r\necho two\r\n")
    os.chmod(target, 0o750)
    assert "echo one" in agent.ok("read", path="run.sh")
    agent.ok("edit", path="run.sh", old="echo two", new="echo three")
    assert target.read_bytes() == b"echo one\r\necho three\r\n"
    assert target.stat().st_mode & 0o777 == 0o750
    assert ToolContext(workspace=workspace, settings=agent.settings).files is not None


def test_a_buffer_changed_since_the_read_must_be_read_again(workspace):
    agent, buffers, target = _buffered(workspace)
    agent.ok("read", path="a.py")
    buffers.texts[target.resolve()] = "def f():\n    return 2  # typed since\n"  # the user typed
    error = agent.fails("edit", path="a.py", old="return 2", new="return 8")
    assert "ChangedSinceRead" in error
    assert "# typed since" in agent.ok("read", path="a.py")
    agent.ok("edit", path="a.py", old="return 2", new="return 8")
    assert buffers.texts[target.resolve()] == "def f():\n    return 8  # typed since\n"
