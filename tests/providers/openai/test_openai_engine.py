"""A full engine turn through the plugin, the registry, the SDK and the wire server."""

from __future__ import annotations

import chatcli_provider_openai.plugin as openai_plugin
from _openai_testlib import TEST_KEY
from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Retrying,
    Role,
    Settings,
    StopReason,
    TextDelta,
    ToolFinished,
    TurnFinished,
    build_provider,
    choose_provider,
)
from chatcli_testing import AddTool, Fault, Reply, ToolCall


def test_engine_turn_with_tool_and_retry_after(openai_server, chatcli_home, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(AddTool(), "add-tool")
    settings = Settings(provider="openai", model="gpt-test")
    spec = choose_provider(host, settings)
    provider, config = build_provider(spec, settings)
    assert config.base_url == openai_server.url

    openai_server.script(
        Fault(status=429, retry_after=1.5),
        Reply(text="Let me add.", tool_calls=[ToolCall(name="add", arguments={"a": 2, "b": 3},
                                                       id="call_add")],
              usage={"input_tokens": 100, "output_tokens": 12, "cache_read_tokens": 64}),
        Reply(text="It is 5.", usage={"input_tokens": 130, "output_tokens": 4}),
    )
    waits: list[float] = []
    engine = Engine(host, settings, provider, "openai", "gpt-test", workspace=tmp_path,
                    sleep=waits.append)
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("what is 2+3?")))

    assert waits == [1.5]  # the server's Retry-After, honoured once
    retries = [e for e in events if isinstance(e, Retrying)]
    assert len(retries) == 1 and retries[0].delay == 1.5
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(f.call.name, f.result.content, f.result.is_error) for f in finished] == [
        ("add", "5", False)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me add.It is 5."
    last = events[-1]
    assert isinstance(last, TurnFinished)
    assert last.error is None
    assert last.stop_reason == StopReason.END_TURN
    assert last.text == "It is 5."
    assert (last.usage.input_tokens, last.usage.output_tokens, last.usage.cache_read_tokens) == (
        230, 16, 64)
    assert [m.role for m in conversation.messages()] == [
        Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]

    chats = [r for r in openai_server.requests if r.path == "/v1/chat/completions"]
    assert len(chats) == 3  # the rate-limited call, the tool call, the answer
    sent = chats[-1].json["messages"]
    assert sent[0]["role"] == "system"
    assert sent[-2] == {"role": "assistant", "content": "Let me add.", "tool_calls": [
        {"id": "call_add", "type": "function",
         "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}}]}
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_add", "content": "5"}
    assert chats[-1].json["tools"][0]["function"]["name"] == "add"


def test_engine_surfaces_a_fault_as_one_error(openai_server, chatcli_home, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost()
    host.register(openai_plugin, "openai")
    settings = Settings(provider="openai", model="gpt-test")
    provider, _ = build_provider(choose_provider(host, settings), settings)
    openai_server.script(Fault(status=401))
    engine = Engine(host, settings, provider, "openai", "gpt-test", workspace=tmp_path,
                    sleep=lambda _s: None)

    last = list(engine.run(Conversation(), Message.user("hi")))[-1]
    assert isinstance(last, TurnFinished)
    assert last.stop_reason == StopReason.ERROR
    assert type(last.error).__name__ == "AuthError"
    assert len(openai_server.requests) == 1  # auth errors are not retried
