"""The coder tools, run the way chatcli runs them: a scripted model calls them through the real
engine (validation, authorization, output budget, parallel read-only calls)."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Settings,
    ToolFinished,
    ToolResultPart,
    TurnFinished,
)
from chatcli_coder import plugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall


class Agent:
    """A conversation whose scripted model makes the tool calls a test asks for."""

    def __init__(self, workspace: Path, settings: Settings | None = None,
                 conversation: Conversation | None = None) -> None:
        self.workspace = workspace
        self.host = PluginHost()
        assert self.host.register(plugin, "coder")
        self.settings = settings or Settings()
        self.conversation = conversation or Conversation()
        self.output: list[str] = []
        self.provider = ScriptedProvider()
        self.engine = Engine(self.host, self.settings, self.provider, "scripted", "test-model",
                             workspace=workspace, approver=lambda call, tool, verdict: True,
                             on_tool_output=self.output.append)

    def turn(self, *calls: tuple[str, dict[str, Any]],
             cancel: threading.Event | None = None) -> list[ToolResultPart]:
        """One model answer making ``calls`` (side by side), then "done"; their results."""
        self.provider.script(
            Reply(tool_calls=[ToolCall(name=name, arguments=args) for name, args in calls]),
            Reply(text="done"))
        events = list(self.engine.run(self.conversation, Message.user("go"), cancel=cancel))
        assert isinstance(events[-1], TurnFinished)
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



def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity; its output."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout
