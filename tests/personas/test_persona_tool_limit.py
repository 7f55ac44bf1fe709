"""A persona's tool list limits what the model may call while it speaks: the request offers only
those tools, and a call to another one is denied with a reason the model can act on — also
under the agent's permission policy, which never lets another plugin's deny through."""

from __future__ import annotations

from typing import Any

from chatcli import Risk, Tool, hookimpl
from chatcli_testing import Reply, ToolCall
from personas_support import ALL_RISKS, persona_file, tool_names, write


class Tools:
    """Two tools: ``look`` (read) and ``poke`` (write); records what ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    @hookimpl
    def register_tools(self, register):
        for name, risk in (("look", Risk.READ), ("poke", Risk.WRITE)):
            register(Tool(name=name, description=f"{name} at something", risk=risk,
                          parameters={"type": "object", "properties": {}},
                          run=lambda args, context, name=name: self.ran.append(name) or name))


def tool_messages(request: Any) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


def test_a_tool_outside_the_persona_s_list_is_denied_with_a_reason(chat, workspace,
                                                                   openai_server) -> None:
    write(workspace, ".chatcli/agents/reader.md",
          persona_file("reader", description="Only reads.", tools=["look"]))
    tools = Tools()
    one = chat(extra_plugins=(tools,), allow=ALL_RISKS)
    one.command("/persona reader")
    openai_server.script(Reply(tool_calls=[ToolCall("poke"), ToolCall("look")]), "done")
    finished = one.turn("change something")
    assert finished.error is None and finished.text == "done"
    assert tool_names(openai_server.requests[0]) == ["look"]
    results = tool_messages(openai_server.requests[1])
    assert results[0].startswith("Error: denied: the persona reader may use only these tools: "
                                 "look (not poke)")
    assert results[1] == "look"
    assert tools.ran == ["look"]
    assert "Tools you may use: look." in openai_server.requests[0].json["messages"][0]["content"]


def test_the_limit_holds_under_the_permission_policy(chat, workspace, openai_server) -> None:
    from chatcli_agent.permissions.plugin import PermissionsPlugin

    write(workspace, ".chatcli/agents/reader.md",
          persona_file("reader", description="Only reads.", tools=["look"]))
    tools = Tools()
    one = chat(extra_plugins=(tools, PermissionsPlugin()), allow=ALL_RISKS)
    one.command("/persona reader")
    openai_server.script(Reply(tool_calls=[ToolCall("poke")]), "done")
    one.turn("poke it")
    assert tool_messages(openai_server.requests[1])[0].startswith(
        "Error: denied: the persona reader may use only these tools")
    assert tools.ran == []


def test_the_pack_s_security_specialist_reads_but_does_not_run(chat, openai_server) -> None:
    class Exec:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="exec", description="run a command", risk=Risk.EXECUTE,
                          parameters={"type": "object", "properties": {}},
                          run=lambda args, context: "ran"))
            register(Tool(name="read", description="read a file", risk=Risk.READ,
                          parameters={"type": "object", "properties": {}},
                          run=lambda args, context: "contents"))

    one = chat(extra_plugins=(Exec(),), allow=ALL_RISKS)
    openai_server.script(Reply(tool_calls=[ToolCall("exec")]), "I only read.", "ok")
    one.turn("@security-specialist run the exploit")
    assert tool_names(openai_server.requests[0]) == ["read"]
    assert "not exec" in tool_messages(openai_server.requests[1])[0]
    one.turn("now without a persona")  # the limit went with the @mention
    assert sorted(tool_names(openai_server.requests[2])) == ["exec", "read"]


def test_no_tools_key_is_no_limit_and_an_empty_list_is_no_tools(chat, workspace,
                                                                openai_server) -> None:
    write(workspace, ".chatcli/agents/free.md", persona_file("free", description="d"))
    write(workspace, ".chatcli/agents/bare.md", persona_file("bare", description="d",
                                                             tools=[]))
    one = chat(extra_plugins=(Tools(),), allow=ALL_RISKS)
    one.turn("@free hi")
    one.turn("@bare hi")
    assert tool_names(openai_server.requests[0]) == ["look", "poke"]
    assert tool_names(openai_server.requests[1]) == []
    assert "Tools you may use: none." in openai_server.requests[1].json["messages"][0]["content"]


def test_claude_code_tool_names_count_as_chatcli_s() -> None:
    from chatcli_personas.prompt import allows

    assert allows(("Bash(git status:*)", "Read", "Grep"), "exec")
    assert allows(("Read",), "read") and allows(("Grep",), "search")
    assert not allows(("Read",), "write")
    assert allows(None, "anything")
