"""The Anthropic provider through the real anthropic SDK against the local Messages server.

What every provider must do is tested by ``test_anthropic_contract.py``; this file holds what is
particular to Anthropic (request mapping, caching, wording of its errors).
"""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    AuthError,
    BadRequestError,
    ChatRequest,
    ContextTooLongError,
    ImagePart,
    Message,
    ModelNotFoundError,
    NetworkError,
    PromptSection,
    ProviderConfig,
    RateLimitError,
    Role,
    ServerError,
    StopReason,
    StreamCutError,
    TextPart,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from chatcli_provider_anthropic.provider import AnthropicProvider
from chatcli_testing import Fault, Reply, ToolCall

KEY = "sk-ant-test-0123456789abcdef"
MODEL = "claude-test"


def make_provider(server: Any, **options: Any) -> AnthropicProvider:
    config = ProviderConfig(name="anthropic", model=MODEL, api_key=KEY, base_url=server.url,
                            timeout=5.0, options=options)
    return AnthropicProvider(config)


def request(*messages: Message, **kw: Any) -> ChatRequest:
    return ChatRequest(model=MODEL, messages=list(messages) or [Message.user("hi")], **kw)


def run(provider: AnthropicProvider, req: ChatRequest | None = None) -> list[Any]:
    return list(provider.stream(req or request()))


# ------------------------------------------------------------------ streaming


def test_malformed_tool_arguments_are_kept_raw(anthropic_server):
    anthropic_server.script(Reply(tool_calls=[ToolCall("add", '{"a": 2, "b": ')]))
    events = run(make_provider(anthropic_server))
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert call.raw_arguments == '{"a": 2, "b": '
    assert call.arguments == {}


def test_max_tokens_stop_reason(anthropic_server):
    anthropic_server.script(Reply(text="cut short", stop_reason="max_tokens"))
    events = run(make_provider(anthropic_server))
    assert events[-1].reason == StopReason.MAX_TOKENS


# ------------------------------------------------------------------ request mapping


def test_system_blocks_cache_only_up_to_last_stable_block(anthropic_server):
    anthropic_server.script(Reply(text="ok"))
    req = request(system=[
        PromptSection(name="date", text="Today is Monday.", stable=False, order=0),
        PromptSection(name="base", text="You are chatcli.", order=0),
        PromptSection(name="skills", text="Skills: none.", order=50),
        PromptSection(name="memory", text="User likes tea.", stable=False, order=10),
        PromptSection(name="empty", text="", order=60),
    ])
    run(make_provider(anthropic_server), req)
    sent = anthropic_server.requests[-1]
    system = sent.json["system"]
    assert [b["text"] for b in system] == [
        "You are chatcli.", "Skills: none.", "Today is Monday.", "User likes tea."]
    assert [b.get("cache_control") for b in system] == [
        None, {"type": "ephemeral"}, None, None]
    assert "system-reminder" not in json.dumps(sent.json["messages"])
    # an agent run asks for them after the history: in their order, after the newest breakpoint
    req.volatile_last = True
    run(make_provider(anthropic_server), req)
    moved = anthropic_server.requests[-1].json
    assert [b["text"] for b in moved["system"]] == ["You are chatcli.", "Skills: none."]
    assert [b.get("cache_control") for b in moved["system"]] == [None, {"type": "ephemeral"}]
    newest = moved["messages"][-1]["content"]
    assert newest[-1] == {"type": "text", "text": "<system-reminder>\nToday is Monday.\n\n"
                                                  "User likes tea.\n</system-reminder>"}
    assert newest[-2]["cache_control"] == {"type": "ephemeral"}
    # volatile_last = false keeps them at the end of the system prompt whatever the request says
    run(make_provider(anthropic_server, volatile_last="false"), req)
    assert anthropic_server.requests[-1].json["system"] == system
    assert sent.headers["authorization"] == f"Bearer {KEY}"  # this SDK sends the key so
    assert sent.json["stream"] is True
    assert sent.json["model"] == MODEL
    assert sent.json["max_tokens"] == 8192


def test_caching_can_be_switched_off_and_ttl_set(anthropic_server):
    req = request(system=[PromptSection(name="base", text="Base.")],
                  tools=[ToolSpec(name="t", description="d")])
    run(make_provider(anthropic_server, prompt_caching=False), req)
    off = anthropic_server.requests[-1].json
    assert "cache_control" not in off["system"][0]
    assert "cache_control" not in off["tools"][0]
    assert "cache_control" not in off["messages"][-1]["content"][-1]
    run(make_provider(anthropic_server, cache_ttl="1h"), req)
    on = anthropic_server.requests[-1].json
    assert on["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_conversation_with_tool_results_is_mapped(anthropic_server):
    anthropic_server.script(Reply(text="Done."))
    call_a = ToolCallPart(id="toolu_a", name="read", arguments={"path": "a.txt"})
    call_b = ToolCallPart(id="toolu_b", name="read", arguments={"path": "b.txt"})
    messages = [
        Message.user("Read both files."),
        Message(role=Role.ASSISTANT, parts=[TextPart(text="Reading."), call_a, call_b]),
        Message(role=Role.TOOL, parts=[
            ToolResultPart(call_id="toolu_a", name="read", content="alpha")]),
        Message(role=Role.TOOL, parts=[
            ToolResultPart(call_id="toolu_b", name="read", content="no such file",
                           is_error=True)]),
        Message.user("And summarise."),
    ]
    tools = [ToolSpec(name="read", description="Read a file",
                      parameters={"type": "object", "properties": {"path": {"type": "string"}},
                                  "required": ["path"]}),
             ToolSpec(name="ls", description="List")]
    run(make_provider(anthropic_server), request(*messages, tools=tools, max_tokens=321,
                                                 temperature=0.3))
    body = anthropic_server.requests[-1].json
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a.txt"}},
        {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {"path": "b.txt"}},
    ]
    results = body["messages"][2]["content"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "toolu_a", "content": "alpha"}
    assert results[1] == {"type": "tool_result", "tool_use_id": "toolu_b",
                          "content": "no such file", "is_error": True}
    assert results[2]["text"] == "And summarise."
    # the conversation so far is cached from its last block
    assert results[2]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0] == {"name": "read", "description": "Read a file",
                                "input_schema": tools[0].parameters}
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in body["tools"][0]
    assert body["max_tokens"] == 321
    assert body["temperature"] == 0.3


def test_images_are_sent_as_base64_or_url(anthropic_server, tmp_path: Path):
    png = tmp_path / "dot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    req = request(Message.user("What is this?", str(png), "https://example.com/cat.jpg"))
    run(make_provider(anthropic_server), req)
    content = anthropic_server.requests[-1].json["messages"][0]["content"]
    assert content[1]["source"] == {"type": "base64", "media_type": "image/png",
                                    "data": base64.b64encode(png.read_bytes()).decode()}
    assert content[2]["source"] == {"type": "url", "url": "https://example.com/cat.jpg"}


def test_missing_image_is_a_bad_request_before_any_http(anthropic_server, tmp_path: Path):
    req = request(Message(role=Role.USER, parts=[
        TextPart(text="look"), ImagePart(source=str(tmp_path / "nope.png"))]))
    with pytest.raises(BadRequestError, match="image not found"):
        run(make_provider(anthropic_server), req)
    assert anthropic_server.requests == []


# ------------------------------------------------------------------ faults


def expect(server: Any, fault: Fault, error: type[Exception]) -> Exception:
    server.script(fault)
    with pytest.raises(error) as info:
        run(make_provider(server))
    assert KEY not in str(info.value)
    assert "\n" not in str(info.value)
    return info.value


def test_rate_limit_carries_retry_after(anthropic_server):
    err = expect(anthropic_server, Fault(status=429, retry_after=7), RateLimitError)
    assert err.retry_after == 7.0
    assert err.retryable
    assert "Anthropic" in str(err)


@pytest.mark.parametrize("status", [500, 503, 529])
def test_server_errors_are_retryable(anthropic_server, status):
    err = expect(anthropic_server, Fault(status=status, retry_after=2), ServerError)
    assert err.retryable and err.status == status and err.retry_after == 2.0


@pytest.mark.parametrize("status", [401, 403])
def test_auth_errors(anthropic_server, status):
    err = expect(anthropic_server, Fault(status=status, message="invalid x-api-key"), AuthError)
    assert not err.retryable
    if status == 401:
        assert "ANTHROPIC_API_KEY" in str(err)


def test_unknown_model(anthropic_server):
    err = expect(anthropic_server, Fault(status=404, message=f"model: {MODEL}"),
                 ModelNotFoundError)
    assert MODEL in str(err) and "--model" in str(err)


def test_prompt_too_long(anthropic_server):
    expect(anthropic_server, Fault(status=400, message="prompt is too long: 250000 tokens > "
                                   "200000 maximum"), ContextTooLongError)


def test_other_bad_request(anthropic_server):
    err = expect(anthropic_server, Fault(status=400, message="messages: field required"),
                 BadRequestError)
    assert "field required" in str(err)


def test_malformed_chunk(anthropic_server):
    err = expect(anthropic_server, Fault(malformed_after=2), StreamCutError)
    assert "could not be read" in str(err)


def test_error_event_mid_stream_is_a_server_error(anthropic_server):
    err = expect(anthropic_server, Fault(error_event_after=2, message="Overloaded"),
                 ServerError)
    assert "Overloaded" in str(err)


def test_unreachable_host_is_a_network_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = ProviderConfig(name="anthropic", model=MODEL, api_key=KEY,
                            base_url=f"http://127.0.0.1:{port}", timeout=2)
    with pytest.raises(NetworkError) as info:
        list(AnthropicProvider(config).stream(request()))
    assert f"127.0.0.1:{port}" in str(info.value)


# ------------------------------------------------------------------ entry module


def test_entry_module_imports_no_sdk():
    code = ("import sys, chatcli_provider_anthropic.plugin as p; "
            "print(any(m == 'anthropic' or m.startswith(('anthropic.', 'httpx2')) "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
