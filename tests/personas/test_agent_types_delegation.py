"""Personas as agent types with the real chatcli-subagents: a Claude Code agent file of a trusted
project is a type the delegate tool starts — its worker gets the file's body as its prompt and
only the tools its ``tools`` line names (in chatcli's names, among the parent's), with the
parent's model for the alias ``sonnet`` — and ``/agents types`` lists the personas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chatcli_subagents.plugin as subagents_plugin
from chatcli import Risk, Tool, hookimpl
from chatcli._trust import forget
from chatcli_personas.plugin import PersonasPlugin
from chatcli_testing import Reply, ToolCall
from chatcli_workspace import trust_project
from claude_agent_files import CODE_REVIEWER
from personas_support import system_of, tool_names, write
from session_harness import HarnessChat


class Tools:
    """The parent's tools: Claude Code's ``Read, Grep, Glob, Bash`` as chatcli names them, and a
    write tool the reviewer's list leaves out."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        for name, risk in (("read", Risk.READ), ("search", Risk.READ), ("glob", Risk.READ),
                           ("exec", Risk.EXECUTE), ("write", Risk.WRITE)):
            register(Tool(name=name, description=name, risk=risk,
                          parameters={"type": "object", "properties": {}},
                          run=lambda args, context, name=name: name))


def test_a_claude_code_agent_is_a_type_the_delegate_tool_starts(openai_server: Any,
                                                                 workspace: Path) -> None:
    write(workspace, ".claude/agents/code-reviewer.md", CODE_REVIEWER)
    chat = HarnessChat(openai_server, workspace,
                       plugins=[("subagents", subagents_plugin), ("personas", PersonasPlugin())],
                       extra_plugins=[Tools()])
    try:
        forget()
        assert trust_project(workspace, chat.host).trusted
        forget()
        listing = chat.slash("/agents types")
        assert "code-reviewer" in listing and "tools read, search, glob, exec" in listing
        openai_server.script(
            Reply(tool_calls=[ToolCall("delegate", {
                "agent": "code-reviewer", "task": "review the change to src/app.py",
                "description": "review"})]),
            "No critical issues.",
            "The reviewer found no critical issues.")
        finished = chat.turn("get the change reviewed")
    finally:
        chat.close()
    assert finished.text == "The reviewer found no critical issues."
    parent, worker, _ = openai_server.requests
    assert "delegate" in tool_names(parent)
    assert sorted(tool_names(worker)) == ["exec", "glob", "read", "search"]
    system = system_of(worker)
    assert "You are a senior code reviewer ensuring high standards" in system
    assert "of type `code-reviewer`" in system
    assert worker.json["model"] == "m"  # 'sonnet' names another vendor's family: the parent's
    assert "review the change to src/app.py" in str(worker.json["messages"])
    report = chat.results()[0].content
    assert "code-reviewer done" in report and report.endswith("No critical issues.")
