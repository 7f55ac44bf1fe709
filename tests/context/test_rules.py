"""Path-scoped rules (``.chatcli/rules/*.md`` with ``paths:``): in the prompt, as volatile
sections after the cached prefix, only when the turn touches a matching path — named in the
latest user message (``@file`` too) or in a tool call's arguments during the turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli import Risk, Tool, hookimpl
from chatcli_testing import Reply, ToolCall
from context_support import openai_stable_prefix, openai_system, write
from pydantic import BaseModel

PYTHON_RULE = """---
paths:
  - "src/**/*.py"
  - tests/*.py   # the tests too
description: Python style
---
Use type hints everywhere.
"""


class _ReadArgs(BaseModel):
    path: str


class ReadTool:
    """A stand-in ``read`` tool (it answers with a line; nothing is read)."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(Tool(name="read", description="read a file", args_model=_ReadArgs,
                      risk=Risk.READ, run=lambda args, ctx: f"contents of {args.path}"))


def _rules(workspace: Path) -> None:
    write(workspace, ".chatcli/rules/python.md", PYTHON_RULE)
    write(workspace, ".chatcli/rules/docs.md", "---\nglobs: docs/**, '*.{rst,adoc}'\n---\n"
                                               "Docs are in British English.\n")
    write(workspace, ".chatcli/rules/always.md", "Never push to main.\n")


def test_a_rule_applies_only_to_a_turn_that_names_a_matching_path(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    _rules(workspace)
    session = chat()
    session.turn("what is the weather like?")
    session.turn("please fix src/app/models.py:42 for me")
    session.turn("and now the tests/test_models.py file")
    session.turn("explain @guide.adoc")
    session.turn("thanks")
    systems = [openai_system(r) for r in openai_server.requests]
    assert ["Use type hints" in s for s in systems] == [False, True, True, False, False]
    assert ["British English" in s for s in systems] == [False, False, False, True, False]
    assert all("Never push to main." in s for s in systems)  # no paths: always, stable
    second = systems[1]
    assert (f"Rules from python.md (project file {workspace}/.chatcli/rules/python.md) for "
            "paths matching src/**/*.py, tests/*.py; this turn touches src/app/models.py:\n\n"
            "Use type hints everywhere.") in second
    # volatile: after the date, outside the cached prefix, which stays the same
    assert second.index("Today is") < second.index("Rules from python.md")
    assert second.index("Never push to main.") < second.index("Today is")
    prefixes = {openai_stable_prefix(r) for r in openai_server.requests}
    assert len(prefixes) == 1


def test_a_tool_call_of_the_turn_with_a_matching_path_brings_the_rule_in(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    _rules(workspace)
    session = chat(extra_plugins=(ReadTool(),))
    openai_server.script(Reply(tool_calls=[ToolCall("read", {"path": "src/pkg/core.py"})]),
                         Reply(text="Read it."), Reply(text="Fine."))
    session.turn("look at the core module")
    session.turn("is that all?")
    first, after_call, next_turn = (openai_system(r) for r in openai_server.requests)
    assert "Use type hints" not in first
    assert "Use type hints" in after_call and "this turn touches src/pkg/core.py" in after_call
    assert "Use type hints" not in next_turn  # a new turn: the earlier call does not count


def test_absolute_and_workspace_relative_paths_are_matched_from_the_project_root(
        openai_server: Any, workspace: Path) -> None:
    from context_support import Chat

    _rules(workspace)
    sub = workspace / "src"
    sub.mkdir()
    chat = Chat(openai_server, sub)  # the workspace is a folder of the project
    chat.turn("see lib/util.py")  # relative to the workspace: src/lib/util.py
    chat.turn(f"see {workspace}/src/x.py")
    chat.turn("see /elsewhere/src/y.py")
    systems = [openai_system(r) for r in openai_server.requests]
    assert ["Use type hints" in s for s in systems] == [True, True, False]
    assert "this turn touches src/lib/util.py" in systems[0]
    chat.close()


def test_the_projects_rule_overrides_the_users_and_user_rules_apply_too(
        chat: Any, openai_server: Any, workspace: Path, config: Path) -> None:
    write(workspace, ".chatcli/rules/style.md", "---\npaths: ['*.go']\n---\nproject style\n")
    write(config, "rules/style.md", "---\npaths: ['*.go']\n---\nuser style\n")
    write(config, "rules/sql.md", "---\npaths: [\"**/*.sql\"]\n---\nuppercase keywords\n")
    chat().turn("check main.go and db/schema.sql")
    system = openai_system(openai_server.requests[0])
    assert "project style" in system and "user style" not in system
    assert "uppercase keywords" in system


def test_rules_can_be_switched_off(chat: Any, openai_server: Any, workspace: Path) -> None:
    _rules(workspace)
    chat(context={"rules": False}).turn("fix src/a.py")
    system = openai_system(openai_server.requests[0])
    assert "Use type hints" not in system and "Never push" not in system
