"""Streaming through the real openai SDK against the local OpenAI wire server.

What every provider must do (text in order, usage, tool calls, faults, closing early) is tested
by ``test_openai_contract.py``; this file holds what is particular to OpenAI.
"""

from __future__ import annotations

import base64

import pytest
from _openai_testlib import TEST_KEY, ask
from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    Role,
    StopEvent,
    StopReason,
    TextPart,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    UsageEvent,
)
from chatcli_testing import Reply, ToolCall


def events_of(provider, request):
    return list(provider.stream(request))


def test_empty_tool_arguments_mean_no_arguments(make_provider, openai_server):
    openai_server.script(Reply(tool_calls=[ToolCall(name="now", arguments="")]))
    (call,) = [e.call for e in events_of(make_provider(), ask()) if isinstance(e, ToolCallEvent)]
    assert call.arguments == {}
    assert call.raw_arguments is None


def test_usage_with_cached_tokens(make_provider, openai_server):
    openai_server.script(Reply(text="cached", usage={
        "input_tokens": 1200, "output_tokens": 7, "cache_read_tokens": 1024}))
    events = events_of(make_provider(), ask())

    (usage,) = [e.usage for e in events if isinstance(e, UsageEvent)]
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1200, 7, 1024)
    assert openai_server.requests[-1].json["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("switch", [False, "false"])  # TOML bool or a `config set` string
def test_stream_usage_can_be_switched_off(make_provider, openai_server, switch):
    events = events_of(make_provider(stream_usage=switch), ask())
    assert "stream_options" not in openai_server.requests[-1].json
    assert not [e for e in events if isinstance(e, UsageEvent)]
    assert isinstance(events[-1], StopEvent)


def test_length_finish_maps_to_max_tokens(make_provider, openai_server):
    openai_server.script(Reply(text="cut short", stop_reason="max_tokens"))
    assert events_of(make_provider(), ask())[-1].reason == StopReason.MAX_TOKENS


def test_request_mapping(make_provider, openai_server, tmp_path):
    png = tmp_path / "dot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    call = ToolCallPart(id="call_7", name="add", arguments={"a": 2, "b": 3})
    bad_call = ToolCallPart(id="call_8", name="add", raw_arguments="{oops")
    request = ChatRequest(
        model="gpt-test",
        system=[
            PromptSection(name="date", text="Today is Monday.", stable=False),
            PromptSection(name="base", text="You are terse.", order=0),
            PromptSection(name="project", text="Project rules.", order=50),
        ],
        messages=[
            Message.user("what is in these?", str(png), "https://example.com/cat.jpg"),
            Message(role=Role.ASSISTANT, parts=[TextPart(text="Adding."), call, bad_call]),
            Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id="call_7", name="add", content="5"),
                ToolResultPart(call_id="call_8", name="add", content="bad JSON", is_error=True),
            ]),
            Message(role=Role.ASSISTANT, parts=[], interrupted=True),
            Message.user("thanks"),
        ],
        tools=[ToolSpec(name="add", description="Add two numbers", parameters={
            "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"]})],
        max_tokens=321,
        temperature=0.2,
    )
    events_of(make_provider(), request)

    recorded = openai_server.requests[-1]
    assert recorded.path == "/v1/chat/completions"
    assert recorded.headers["authorization"] == f"Bearer {TEST_KEY}"
    body = recorded.json
    assert body["model"] == "gpt-test"
    assert body["stream"] is True
    assert body["max_completion_tokens"] == 321  # OpenAI's current name for the limit
    assert body["temperature"] == 0.2
    messages = body["messages"]
    assert messages[0] == {
        "role": "system", "content": "You are terse.\n\nProject rules.\n\nToday is Monday."}
    user = messages[1]
    assert user["role"] == "user"
    assert user["content"][0] == {"type": "text", "text": "what is in these?"}
    data_url = user["content"][1]["image_url"]["url"]
    assert data_url == "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode()
    assert user["content"][2] == {"type": "image_url",
                                  "image_url": {"url": "https://example.com/cat.jpg"}}
    assert messages[2] == {
        "role": "assistant", "content": "Adding.",
        "tool_calls": [
            {"id": "call_7", "type": "function",
             "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'}},
            {"id": "call_8", "type": "function", "function": {"name": "add", "arguments": "{oops"}},
        ]}
    assert messages[3] == {"role": "tool", "tool_call_id": "call_7", "content": "5"}
    assert messages[4] == {"role": "tool", "tool_call_id": "call_8", "content": "Error: bad JSON"}
    assert messages[5] == {"role": "user", "content": "thanks"}  # empty answer left out
    assert len(messages) == 6
    assert body["tools"] == [{"type": "function", "function": {
        "name": "add", "description": "Add two numbers",
        "parameters": request.tools[0].parameters}}]


def test_compatible_presets_send_max_tokens(make_provider, openai_server):
    events_of(make_provider("deepseek"), ask(max_tokens=50))
    body = openai_server.requests[-1].json
    assert body["max_tokens"] == 50
    assert "max_completion_tokens" not in body


def test_options_become_extra_body_fields(make_provider, openai_server):
    provider = make_provider(extra_body={"top_k": 5}, headers={"X-Title": "chatcli"})
    events_of(provider, ask(options={"reasoning_effort": "low"}))
    recorded = openai_server.requests[-1]
    assert recorded.json["top_k"] == 5
    assert recorded.json["reasoning_effort"] == "low"
    assert recorded.headers["x-title"] == "chatcli"


def test_keyless_preset_never_sends_the_openai_key(make_provider, openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-user-real-key-must-not-leak-1234")
    events_of(make_provider("vllm", api_key=None), ask())
    header = openai_server.requests[-1].headers.get("authorization", "")
    assert "sk-user-real-key" not in header


def test_auto_model_asks_the_server(make_provider, openai_server):
    openai_server.models = ["qwen3-8b-instruct", "other"]
    provider = make_provider("lmstudio", api_key=None, model="auto")
    events = events_of(provider, ask(model="auto"))
    assert events_of(provider, ask(model="auto"))  # second call reuses the answer

    assert [r.path for r in openai_server.requests].count("/v1/models") == 1
    assert openai_server.requests[-1].json["model"] == "qwen3-8b-instruct"
    assert events[-1].model == "qwen3-8b-instruct"


def test_nothing_is_sent_before_iteration(make_provider, openai_server):
    stream = make_provider().stream(ask())
    assert openai_server.requests == []
    list(stream)
    assert len(openai_server.requests) == 1
