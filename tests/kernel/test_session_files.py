"""``Session(files=…)``: the FileAccess a front end passes reaches every tool call's context,
a child run's (``Engine.branch``) included; without one, tools get the disk."""

from __future__ import annotations

from pathlib import Path

import chatcli
from chatcli import (
    FileAccess,
    Message,
    PluginHost,
    Risk,
    Session,
    SessionOptions,
    Settings,
    Tool,
    ToolContext,
    TurnFinished,
    hookimpl,
)
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin


class Memory:
    """Files held in memory (an editor's buffers)."""

    def __init__(self) -> None:
        self.texts: dict[Path, str] = {}

    def read_text(self, path: Path) -> str:
        return self.texts[path]

    def write_text(self, path: Path, text: str) -> None:
        self.texts[path] = text


class Peek:
    """A tool that reads ``note.txt`` through its context's files, and keeps the contexts."""

    def __init__(self) -> None:
        self.contexts: list[ToolContext] = []

    @hookimpl
    def register_tools(self, register):
        register(Tool(name="peek", description="read note.txt",
                      parameters={"type": "object", "properties": {}}, run=self.run))

    def run(self, arguments, context: ToolContext) -> str:
        self.contexts.append(context)
        return context.files.read_text(context.workspace / "note.txt")


def _turn(workspace: Path, files: FileAccess | None) -> tuple[str, Peek, Session]:
    host = PluginHost()
    provider = ScriptedProvider()
    host.register(scripted_plugin(provider), "scripted")
    peek = Peek()
    assert host.register(peek, "peek")
    provider.script(Reply(tool_calls=[ToolCall(name="peek", arguments={})]), "done")
    with Session(host, Settings(), SessionOptions(allow=frozenset(Risk)), workspace=workspace,
                 files=files) as session:
        events = list(session.run(Message.user("read the note")))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.error is None
    return finished.messages[2].tool_results[0].content, peek, session


def test_the_sessions_files_reach_the_tool_and_a_child_run(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("on disk\n")
    memory = Memory()
    memory.texts[tmp_path.resolve() / "note.txt"] = "in the editor, unsaved\n"
    content, peek, session = _turn(tmp_path, memory)
    assert content == "in the editor, unsaved\n"
    assert peek.contexts[0].files is memory
    child = session.engine.branch()
    assert child.files is memory
    assert child.tool_context().files is memory


def test_without_files_the_tools_read_and_write_the_disk(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_bytes(b"on disk\r\n")
    content, peek, _session = _turn(tmp_path, None)
    assert content == "on disk\r\n"  # as it is: no newline translation
    disk = peek.contexts[0].files
    target = tmp_path / "new" / "made.txt"
    disk.write_text(target, "written\n")
    assert target.read_text() == "written\n"
    assert "FileAccess" in chatcli.__all__
