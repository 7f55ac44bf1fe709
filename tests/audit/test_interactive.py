"""A chat where a person is asked, in-process: a real plugin host, session and engine, the real
permission policy and the audit plugin's entry module, a scripted model and an approver that
answers yes for the session, then no. The records say the user decided, and how."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chatcli
import chatcli_audit.plugin
import pytest
from chatcli import (
    Approval,
    Message,
    PluginHost,
    Risk,
    Session,
    SessionOptions,
    Settings,
    Tool,
    hookimpl,
)
from chatcli_agent.permissions.plugin import PermissionsPlugin
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin
from pydantic import BaseModel


class ExecArgs(BaseModel):
    command: str


class Shell:
    """A stand-in ``exec`` tool that says it ran (exit code 0) and runs nothing."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(Tool(name="exec", description="run", args_model=ExecArgs, risk=Risk.EXECUTE,
                      subject="command",
                      run=lambda args, context: "exit code 0 (0.0 s, test)\nbuilt"))


def test_a_persons_answers_are_recorded_as_the_users(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chatcli_audit.plugin, "_recorder", None)
    monkeypatch.chdir(tmp_path)
    answers = [Approval(True, "session"), Approval(False, "once", "not today")]
    asked: list[str] = []

    def approver(call: Any, tool: Any, verdict: Any) -> Approval:
        asked.append(call.arguments["command"])
        return answers.pop(0)

    provider = ScriptedProvider([
        Reply(tool_calls=[ToolCall("exec", {"command": "make build"})]),
        Reply(tool_calls=[ToolCall("exec", {"command": "make deploy"})]),
        Reply(text="done")])
    host = PluginHost(warn=lambda line: None)
    host.register(scripted_plugin(provider), "scripted")
    host.register(Shell(), "shell")
    host.register(PermissionsPlugin(), "permissions")
    host.register(chatcli_audit.plugin, "audit")
    folder = tmp_path / "audit"
    session = Session(host, Settings(provider="scripted", audit={"path": str(folder)}),
                      SessionOptions(), interactive=True, approver=approver,
                      workspace=tmp_path).open()
    try:
        list(session.run(Message.user("build and deploy")))
    finally:
        session.close()
    assert asked == ["make build", "make deploy"]
    found = [json.loads(line) for line in (folder / "audit.jsonl").read_text().splitlines()]
    calls = [r for r in found if r["kind"] == "tool_call"]
    assert [(c["decision"], c["verdict"], c["decided_by"], c["approval"]) for c in calls] == [
        ("allow", "ask", "user", {"allow": True, "scope": "session"}),
        ("deny", "ask", "user", {"allow": False, "scope": "once", "reason": "not today"}),
    ]
    assert calls[0]["rule"] == "exec(make build:*)"  # what the "session" answer allows
    commands = [r for r in found if r["kind"] == "command"]
    assert [(c["command"], c["exit_code"]) for c in commands] == [("make build", 0)]
    assert [r["kind"] for r in found].count("model_call") == 3


class StatusSpecs:
    """Declares ``status_items`` as chatcli-repl does."""

    @staticmethod
    @chatcli.hookspec
    def status_items(session: Any) -> dict[str, str] | None:
        """What the status line shows."""


class Shown:
    """A front end's status line: the permission mode now (switched mid-session)."""

    mode = "default"

    @hookimpl
    def add_hookspecs(self, add: Any) -> None:
        add(StatusSpecs)

    @hookimpl
    def status_items(self, session: Any) -> dict[str, str] | None:
        return {"mode": f"{self.mode} mode"}

    @hookimpl
    def authorize_tool_call(self, call: Any, tool: Any, context: Any) -> Any:
        """Auto mode lets it run (a stand-in for the permission policy)."""
        return chatcli.Decision.ALLOW if self.mode == "auto" else None


def test_the_mode_a_chat_shows_is_the_mode_recorded(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """In the chat the mode changes under the session (Shift+Tab): the audit asks what the
    status line shows, when a front end declares it."""
    monkeypatch.setattr(chatcli_audit.plugin, "_recorder", None)
    monkeypatch.chdir(tmp_path)
    shown = Shown()
    provider = ScriptedProvider([
        Reply(tool_calls=[ToolCall("exec", {"command": "make build"})]), Reply(text="done")])
    host = PluginHost(warn=lambda line: None)
    host.register(scripted_plugin(provider), "scripted")
    host.register(Shell(), "shell")
    host.register(shown, "shown")
    host.register(chatcli_audit.plugin, "audit")
    folder = tmp_path / "audit"
    session = Session(host, Settings(provider="scripted", audit={"path": str(folder)}),
                      SessionOptions(), workspace=tmp_path).open()
    try:
        shown.mode = "auto"
        list(session.run(Message.user("build")))
    finally:
        session.close()
    found = [json.loads(line) for line in (folder / "audit.jsonl").read_text().splitlines()]
    assert found[0]["mode"] == "default"  # at the start
    call = next(r for r in found if r["kind"] == "tool_call")
    assert (call["mode"], call["decided_by"]) == ("auto", "mode")
