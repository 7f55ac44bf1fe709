"""The coder tools, run the way chatcli runs them: a scripted model calls them through the real
engine (validation, authorization, output budget, parallel read-only calls)."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Engine,
    FileAccess,
    Message,
    PluginHost,
    Settings,
    StopReason,
    ToolFinished,
    ToolResultPart,
    TurnFinished,
)
from chatcli_coder import plugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall


class Agent:
    """A conversation whose scripted model makes the tool calls a test asks for."""

    def __init__(self, workspace: Path, settings: Settings | None = None,
                 conversation: Conversation | None = None, files: FileAccess | None = None
                 ) -> None:
        self.workspace = workspace
        self.host = PluginHost()
        assert self.host.register(plugin, "coder")
        self.settings = settings or Settings()
        self.conversation = conversation if conversation is not None else Conversation()
        self.output: list[str] = []
        #: (time.monotonic(), line) of each line of live output
        self.timed: list[tuple[float, str]] = []
        self.on_output: Any = None
        self.provider = ScriptedProvider()
        self.engine = Engine(self.host, self.settings, self.provider, "scripted", "test-model",
                             workspace=workspace, approver=lambda call, tool, verdict: True,
                             on_tool_output=self._output, files=files)

    def _output(self, line: str) -> None:
        self.output.append(line)
        self.timed.append((time.monotonic(), line))
        if self.on_output is not None:
            self.on_output(line)

    def turn(self, *calls: tuple[str, dict[str, Any]],
             cancel: threading.Event | None = None) -> list[ToolResultPart]:
        """One model answer making ``calls`` (side by side), then "done"; their results."""
        self.provider.script(
            Reply(tool_calls=[ToolCall(name=name, arguments=args) for name, args in calls]),
            Reply(text="done"))
        events = list(self.engine.run(self.conversation, Message.user("go"), cancel=cancel))
        assert isinstance(events[-1], TurnFinished)
        self.finished = events[-1]
        if self.finished.stop_reason == StopReason.INTERRUPTED:
            self.provider = ScriptedProvider()  # the unread "done" must not answer next time
            self.engine.use(self.provider, "scripted", "test-model")
        return [e.result for e in events if isinstance(e, ToolFinished)]

    def call(self, name: str, **arguments: Any) -> ToolResultPart:
        """One tool call; its result."""
        (result,) = self.turn((name, arguments))
        return result

    def ok(self, name: str, **arguments: Any) -> str:
        """One tool call that must succeed; its text."""
        result = self.call(name, **arguments)
        assert not result.is_error, result.content
        return result.content

    def fails(self, name: str, **arguments: Any) -> str:
        """One tool call that must fail; its error text."""
        result = self.call(name, **arguments)
        assert result.is_error, result.content
        return result.content


class Buffers:
    """An editor's unsaved buffers as :class:`chatcli.FileAccess`: the text it holds for some
    files, the disk for the others; writes stay in the buffers (until the user saves)."""

    def __init__(self, texts: dict[Path, str] | None = None) -> None:
        self.texts = dict(texts or {})
        #: the files written, in order
        self.written: list[Path] = []

    def read_text(self, path: Path) -> str:
        if path in self.texts:
            return self.texts[path]
        return path.read_bytes().decode("utf-8")

    def write_text(self, path: Path, text: str) -> None:
        self.written.append(path)
        self.texts[path] = text


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity; its output."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout


def running(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in command and state != b"Z" and int(entry) != os.getpid():
            found.append(int(entry))
    return found


def wait_gone(marker: str, seconds: float = 5.0) -> list[int]:
    """The processes still holding ``marker`` after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := running(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
