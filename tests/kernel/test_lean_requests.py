"""Lean requests: a model that does not use tools (``Capabilities.uses_tools=False``, or
``[providers.NAME] tools = false``) gets no tools, no tool catalog and only the essential prompt
sections; ``tools = true`` or a section with ``needs_tools`` (an agent run) gives the full request.
"""

from __future__ import annotations

import pytest
from chatcli import (
    Capabilities,
    ConfigError,
    Message,
    PluginHost,
    PromptSection,
    ProviderSpec,
    Session,
    Settings,
    ToolCallPart,
    ToolResultPart,
    TurnFinished,
    hookimpl,
    load_settings,
)
from chatcli_provider_kit.textcalls import text_tool_calls
from chatcli_testing import AddTool, Reply, ScriptedProvider

CALL = '<tool_call name="add" args=\'{"a": 2, "b": 3}\'/>'


class SmallModel:
    """Registers ``small`` (uses_tools=False, text protocol: its factory wraps the provider as
    ``chatcli_provider_kit.textcalls`` says) and ``big`` (native tools)."""

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    @hookimpl
    def register_providers(self, register):
        for name, caps in (("small", Capabilities(native_tools=False, uses_tools=False)),
                           ("big", Capabilities())):
            register(ProviderSpec(name=name, display_name=name, requires_key=False,
                                  factory=lambda config: text_tool_calls(self.provider, config),
                                  default_model="m",
                                  capabilities=caps))


class Sections:
    """A plugin adding a catalog-like section, an essential one, and optionally an agent's."""

    def __init__(self, agent: bool = False) -> None:
        self.agent = agent

    @hookimpl
    def prompt_sections(self):
        found = [PromptSection(name="skills-catalog", text="Skills: call context_pull …"),
                 PromptSection(name="persona", text="You are a pirate.", essential=True)]
        if self.agent:
            found.append(PromptSection(name="coder-mode", text="Work step by step.",
                                       needs_tools=True))
        return found


def session(provider_name: str, *, agent: bool = False, **table) -> tuple[Session,
                                                                          ScriptedProvider]:
    provider = ScriptedProvider()
    host = PluginHost()
    host.register(SmallModel(provider), "small-model")
    host.register(AddTool(), "add-tool")
    host.register(Sections(agent), "sections")
    settings = Settings(provider=provider_name,
                        providers={provider_name: table} if table else {})
    return Session(host, settings).open(), provider


def turn(sess: Session, text: str = "Say hello") -> TurnFinished:
    events = list(sess.run(Message.user(text)))
    assert isinstance(events[-1], TurnFinished)
    return events[-1]


def names(request) -> list[str]:
    return [s.name for s in request.ordered_system()]


def test_a_model_that_does_not_use_tools_gets_only_the_essential_sections():
    sess, provider = session("small")
    provider.script(Reply(text="Hello!"))
    assert turn(sess).text == "Hello!"
    request = provider.requests[-1]
    assert names(request) == ["chatcli", "persona", "date"]
    assert request.tools == []
    assert "tool" not in request.system_text().lower()  # neither the catalog nor the base line


def test_the_same_model_gets_tools_and_every_section_with_tools_true():
    sess, provider = session("small", tools=True)
    provider.script(Reply(text="Hello!"))
    turn(sess)
    request = provider.requests[-1]
    assert {"tool-catalog", "skills-catalog", "persona"} <= set(names(request))
    assert "add" in request.system_text()


def test_tools_false_makes_a_native_tool_model_lean_too():
    sess, provider = session("big", tools=False)
    provider.script(Reply(text="Hello!"))
    turn(sess)
    request = provider.requests[-1]
    assert request.tools == [] and "skills-catalog" not in names(request)
    sess, provider = session("big")
    provider.script(Reply(text="Hello!"))
    turn(sess)
    assert [t.name for t in provider.requests[-1].tools] == ["add"]


def test_a_section_that_needs_tools_makes_the_request_full():
    sess, provider = session("small", agent=True)
    provider.script(Reply(text=CALL), Reply(text="5"))
    finished = turn(sess, "add 2 and 3")
    assert "tool-catalog" in names(provider.requests[0])
    assert "skills-catalog" in names(provider.requests[0])
    results = [p for m in finished.messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [r.content for r in results] == ["5"]


def test_a_lean_model_writing_a_tool_call_tag_runs_nothing():
    sess, provider = session("small")
    provider.script(Reply(text=f"Sure: {CALL}"))
    finished = turn(sess, "add 2 and 3")
    assert len(provider.requests) == 1  # no tool step, so no second model call
    assert finished.messages[-1].tool_calls == []
    assert CALL in finished.text


def test_earlier_tool_calls_reach_a_lean_model_as_text():
    sess, provider = session("small")
    call = ToolCallPart(id="c1", name="add", arguments={"a": 2, "b": 3})
    sess.conversation.append(Message.user("add 2 and 3"))
    sess.conversation.append(Message(role="assistant", parts=[call]))
    sess.conversation.append(Message(role="tool", parts=[
        ToolResultPart(call_id="c1", name="add", content="5")]))
    sess.conversation.append(Message.assistant("It is 5."))
    provider.script(Reply(text="Yes."))
    turn(sess, "sure?")
    sent = provider.requests[-1].messages
    assert not any(m.tool_calls or m.tool_results for m in sent)
    assert any("add" in m.text for m in sent) and any("5" in m.text for m in sent)


def test_switching_to_a_lean_model_changes_the_next_request():
    sess, provider = session("big")
    provider.script(Reply(text="one"), Reply(text="two"))
    turn(sess)
    assert provider.requests[-1].tools
    sess.switch("small")
    turn(sess)
    assert provider.requests[-1].tools == [] and "tool-catalog" not in names(
        provider.requests[-1])


@pytest.mark.parametrize("value", ["true", "false", "\"auto\""])
def test_the_setting_reads_from_the_config_file(isolated_dirs, value):
    (isolated_dirs / "config" / "config.toml").write_text(f"[providers.small]\ntools = {value}\n")
    assert load_settings().provider_settings("small").tools == {"true": True, "false": False}.get(
        value, "auto")


def test_a_wrong_value_is_a_one_line_config_error(isolated_dirs):
    (isolated_dirs / "config" / "config.toml").write_text("[providers.small]\ntools = \"maybe\"\n")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert "providers.small.tools" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("provider_name", "schemas_made"), [("small", False), ("big", True)])
def test_a_lean_request_makes_no_tool_schema(monkeypatch, provider_name, schemas_made):
    from chatcli import Tool

    made: list[str] = []
    real = Tool.spec

    def spec(self):
        made.append(self.name)
        return real(self)

    monkeypatch.setattr(Tool, "spec", spec)
    sess, provider = session(provider_name)
    provider.script(Reply(text="Hello!"))
    turn(sess)
    assert bool(made) is schemas_made
    assert [t.name for t in provider.requests[-1].tools] == (["add"] if schemas_made else [])
