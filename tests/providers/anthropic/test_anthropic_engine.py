"""A whole engine turn through the installed plugin, the registry and the anthropic SDK."""

from __future__ import annotations

from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Settings,
    StopReason,
    ToolFinished,
    TurnFinished,
    Usage,
    build_provider,
    choose_provider,
)
from chatcli_testing import AddTool, Fault, Reply, ToolCall


def test_engine_turn_with_a_tool_call(anthropic_server, chatcli_home, monkeypatch, tmp_path):
    monkeypatch.setenv("CHATCLI_PLUGINS", "anthropic,print")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-engine-test-123456")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    host.register(AddTool(), "add-tool")
    settings = Settings()
    spec = choose_provider(host, settings)
    assert spec.name == "anthropic"
    assert spec.capabilities.prompt_caching
    provider, config = build_provider(spec, settings, model="claude-test")
    assert config.base_url == anthropic_server.url

    anthropic_server.script(
        Fault(status=529, retry_after=0),  # overloaded first: the engine retries
        Reply(text="Adding.", tool_calls=[ToolCall("add", {"a": 2, "b": 3}, id="toolu_add")],
              usage={"input_tokens": 50, "output_tokens": 5, "cache_write_tokens": 900}),
        Reply(text="It is 5.", usage={"input_tokens": 20, "output_tokens": 4,
                                      "cache_read_tokens": 900}),
    )
    engine = Engine(host, settings, provider, spec.name, config.model, workspace=tmp_path,
                    sleep=lambda seconds: None)
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("What is 2+3?")))

    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(f.call.id, f.result.content, f.result.is_error) for f in finished] == [
        ("toolu_add", "5", False)]
    done = events[-1]
    assert isinstance(done, TurnFinished) and done.error is None
    assert done.stop_reason == StopReason.END_TURN
    assert done.text == "It is 5."
    assert done.usage == Usage(input_tokens=950 + 920, output_tokens=9, cache_read_tokens=900,
                               cache_write_tokens=900)

    assert len(anthropic_server.requests) == 3
    last = anthropic_server.requests[-1].json
    assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user"]
    assert last["messages"][1]["content"][-1] == {
        "type": "tool_use", "id": "toolu_add", "name": "add", "input": {"a": 2, "b": 3}}
    result = last["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_add"
    assert result["content"] == "5"
    # the kernel's base prompt is stable and cached; the date section after it is not
    system = last["system"]
    assert system[0]["text"].startswith("You are chatcli")
    assert system[-1]["text"].startswith("Today is")
    assert "cache_control" not in system[-1]
    assert system[-2]["cache_control"] == {"type": "ephemeral"}
    assert last["tools"][0]["name"] == "add"
