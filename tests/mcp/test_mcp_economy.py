"""Prompt economy: in chat the MCP tools are listed by name (a stable section) and their
definitions come back through ``context_pull``; in agent runs the real definitions are sent,
or only ``mcp_search`` when they would take more than ``max_tool_share`` of the window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chatcli import PromptSection, hookimpl
from chatcli_testing import OpenAIServer, Reply, ToolCall
from mcp_support import (
    Chat,
    chatcli,
    demo,
    environment,
    servers_toml,
    system_text,
    tool_names,
    tool_results,
    write_config,
)


class AgentMode:
    """Stands for chatcli-agent's run: its mode's prompt section is in the request."""

    @hookimpl
    def prompt_sections(self) -> list[PromptSection]:
        return [PromptSection(name="agent-mode", text="You are working on a task alone.")]


@pytest.fixture
def model() -> Any:
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def chats(model: Any, workspace: Path) -> Any:
    made: list[Chat] = []

    def make(mcp: dict[str, Any], agent: bool = False, **kwargs: Any) -> Chat:
        chat = Chat(model, workspace, mcp, **kwargs)
        if agent:
            chat.host.register(AgentMode(), "agent-stand-in")
        made.append(chat)
        return chat

    yield make
    for chat in made:
        chat.close()


def _mcp(names: list[str]) -> list[str]:
    return [n for n in names if n.startswith("mcp")]


def test_chat_lists_the_tools_in_a_stable_section_and_pulls_their_schemas(
        model: Any, chats: Any) -> None:
    chat = chats({"servers": {"demo": demo()}})
    model.script(Reply(text="one"),
                 Reply(tool_calls=[ToolCall("context_pull", {"kind": "mcp_tools",
                                                             "server": "demo"})]),
                 Reply(text="two"))
    chat.turn("first")
    chat.turn("second")
    first, second, third = model.requests
    assert _mcp(tool_names(first)) == [] and "context_pull" in tool_names(first)
    assert system_text(first).split("Today is")[0] == system_text(second).split("Today is")[0]
    pulled = tool_results(third)[-1]
    assert "## mcp__demo__add" in pulled and '"required":["a","b"]' in pulled
    # what was pulled is offered natively from then on
    assert sorted(_mcp(tool_names(third))) == sorted(
        f"mcp__demo__{n}" for n in ("add", "crash", "echo", "fail", "grow", "picture", "slow"))


def test_an_agent_run_gets_the_real_definitions(model: Any, chats: Any) -> None:
    chat = chats({"servers": {"demo": demo()}}, agent=True)
    model.script(Reply(text="ok"))
    chat.turn("task")
    request = model.requests[0]
    assert len(_mcp(tool_names(request))) == 7
    assert "mcp_search" not in tool_names(request)
    assert "MCP tools:" not in system_text(request)


def test_above_the_share_an_agent_run_gets_only_the_search_tool(model: Any,
                                                                 chats: Any) -> None:
    chat = chats({"max_tool_share": 0.1, "servers": {"gh": demo("--many", "40", allow=["*"])}},
                 agent=True, context_window=20_000)
    model.script(Reply(tool_calls=[ToolCall("mcp_search", {"query": "list issues"})]),
                 Reply(tool_calls=[ToolCall("mcp__gh__list_issue", {"project": "a/b"})]),
                 Reply(text="done"))
    chat.turn("task")
    first, second, third = model.requests
    assert tool_names(first).count("mcp_search") == 1 and not _mcp(tool_names(first))[1:]
    assert "MCP tools: 40 tools from these MCP servers are available but not loaded" in \
        system_text(first)
    found = tool_results(second)[-1]
    assert found.startswith("Loaded 5 MCP tools") and "## mcp__gh__list_issue" in found
    assert "mcp__gh__list_issue" in tool_names(second)
    assert len(_mcp(tool_names(second))) == 6  # the search tool and the five it loaded
    assert "list_issue ran with [('project', 'a/b')]" in tool_results(third)[-1]


def test_without_context_pull_chat_uses_the_search_tool(model: Any, workspace: Path) -> None:
    chat = Chat(model, workspace, {"servers": {"demo": demo()}}, context={"pull": False})
    try:
        model.script(Reply(text="ok"))
        chat.turn("hi")
        names = tool_names(model.requests[0])
        assert "context_pull" not in names and _mcp(names) == ["mcp_search"]
    finally:
        chat.close()


def test_full_mode_sends_every_definition_in_chat(model: Any, chats: Any) -> None:
    chat = chats({"tool_mode": "full", "servers": {"demo": demo()}})
    model.script(Reply(text="ok"))
    chat.turn("hi")
    assert len(_mcp(tool_names(model.requests[0]))) == 7


def test_forty_tools_in_chat_cost_a_fraction_of_their_schemas(model: Any, chats: Any,
                                                               capsys: Any) -> None:
    deferred = chats({"servers": {"gh": demo("--many", "40")}})
    model.script(Reply(text="a"), Reply(text="b"))
    deferred.turn("hi")
    full = chats({"tool_mode": "full", "servers": {"gh": demo("--many", "40")}})
    full.turn("hi")
    lean, fat = model.requests
    lean_chars = len(system_text(lean)) + len(json.dumps(lean.json.get("tools", [])))
    fat_chars = len(system_text(fat)) + len(json.dumps(fat.json.get("tools", [])))
    with capsys.disabled():
        print(f"\n40-tool MCP server, prompt characters in chat: deferred {lean_chars:,} "
              f"against full schemas {fat_chars:,} ({lean_chars / fat_chars:.0%})")
    assert lean_chars * 3 < fat_chars


def test_a_real_agent_run_through_the_command_line(home: Path, workspace: Path) -> None:
    with OpenAIServer() as model:
        write_config(home, f'provider = "openai"\nmodel = "m"\n[providers.openai]\n'
                           f'base_url = "{model.url}"\n' + servers_toml({"demo": demo()}))
        model.script(Reply(tool_calls=[ToolCall("mcp__demo__add", {"a": 1, "b": 2})]),
                     Reply(text="Three."))
        done = chatcli(workspace, environment(home, "openai,context,mcp,permissions,agent"),
                       "-p", "/agent add one and two", "--allow", "mcp__demo__add")
        assert done.returncode == 0, done.stderr
        first = model.requests[0]
        assert "mcp__demo__add" in tool_names(first)  # the real definitions in agent runs
        assert tool_results(model.requests[1])[-1] == "3"


def test_a_tool_the_conversation_called_stays_offered(model: Any, chats: Any) -> None:
    chat = chats({"servers": {"demo": demo(allow=["*"])}})
    model.script(Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "x"})]),
                 Reply(text="ok"), Reply(text="again"))
    chat.turn("echo")
    chat.plugin.economy._enabled.clear()  # nothing remembered, as after `chatcli -c`
    chat.turn("more")
    first, second, third = model.requests
    assert _mcp(tool_names(first)) == []
    assert _mcp(tool_names(second)) == ["mcp__demo__echo"]
    assert _mcp(tool_names(third)) == ["mcp__demo__echo"]
