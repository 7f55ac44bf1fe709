"""AnthropicServer speaks the Messages API well enough for the official anthropic SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from chatcli_testing import AnthropicServer, Fault, Reply, ToolCall
from hypothesis import given, settings
from hypothesis import strategies as st

MESSAGES = [{"role": "user", "content": "hi"}]


def client(server: AnthropicServer, timeout: float = 10.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0, timeout=timeout)


def raw_stream(server: AnthropicServer, sdk: anthropic.Anthropic | None = None,
               **kw: Any) -> Any:
    sdk = sdk or client(server, kw.pop("timeout", 10.0))
    return sdk.messages.create(model="claude-x", max_tokens=100, messages=MESSAGES, stream=True,
                               **kw)


def collect(events: Any) -> dict[str, Any]:
    """Assemble raw stream events the way a provider would."""
    out: dict[str, Any] = {"text": "", "tools": {}, "types": [], "stop": None, "usage": {}}
    for event in events:
        out["types"].append(event.type)
        if event.type == "message_start":
            out["usage"].update(event.message.usage.model_dump(exclude_none=True))
            out["model"] = event.message.model
        elif event.type == "content_block_start" and event.content_block.type == "tool_use":
            block = event.content_block
            out["tools"][event.index] = {"id": block.id, "name": block.name, "json": ""}
        elif event.type == "content_block_delta":
            if event.delta.type == "text_delta":
                out["text"] += event.delta.text
            elif event.delta.type == "input_json_delta":
                out["tools"][event.index]["json"] += event.delta.partial_json
        elif event.type == "message_delta":
            out["stop"] = event.delta.stop_reason
            out["usage"].update(event.usage.model_dump(exclude_none=True))
    return out


def test_stream_helper_text_tools_and_usage(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply(
        text="Adding now.", tool_calls=[ToolCall("add", {"a": 2, "b": 3}, id="toolu_1")],
        usage={"input_tokens": 30, "output_tokens": 12, "cache_read_tokens": 100,
               "cache_write_tokens": 7}))
    with client(anthropic_server).messages.stream(
            model="claude-x", max_tokens=100, messages=MESSAGES) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Adding now."
    assert final.stop_reason == "tool_use"
    tool = final.content[1]
    assert (tool.type, tool.id, tool.name, tool.input) == ("tool_use", "toolu_1", "add",
                                                          {"a": 2, "b": 3})
    assert final.usage.input_tokens == 30
    assert final.usage.output_tokens == 12
    assert final.usage.cache_read_input_tokens == 100
    assert final.usage.cache_creation_input_tokens == 7


def test_raw_event_sequence(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply(text="abcdef", chunk_size=3,
                                  tool_calls=[ToolCall("f", {"k": "v"})]))
    out = collect(raw_stream(anthropic_server))
    assert out["types"] == [
        "message_start",
        "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
        "content_block_start", *["content_block_delta"] * 4, "content_block_stop",
        "message_delta", "message_stop",
    ]
    assert out["text"] == "abcdef"
    assert json.loads(out["tools"][1]["json"]) == {"k": "v"}
    assert out["tools"][1]["id"].startswith("toolu_")
    assert out["stop"] == "tool_use"
    assert out["model"] == "claude-x"


def test_malformed_tool_json_is_streamed_verbatim(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply(tool_calls=[ToolCall("f", '{"a": ')]))
    out = collect(raw_stream(anthropic_server))
    assert out["tools"][0]["json"] == '{"a": '


def test_non_streamed_message(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Reply(text="whole", tool_calls=[ToolCall("f", {"x": 1})],
                                  stop_reason="max_tokens", model="claude-served"))
    message = client(anthropic_server).messages.create(model="claude-x", max_tokens=100,
                                                       messages=MESSAGES)
    assert message.model == "claude-served"
    assert message.content[0].text == "whole"
    assert message.content[1].input == {"x": 1}
    assert message.stop_reason == "max_tokens"


def test_rate_limit_with_retry_after(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fault(status=429, retry_after=1.5, message="Number of requests"))
    with pytest.raises(anthropic.RateLimitError) as info:
        raw_stream(anthropic_server)
    assert info.value.response.headers["retry-after"] == "1.5"
    assert info.value.body["error"] == {"type": "rate_limit_error",
                                        "message": "Number of requests"}
    assert info.value.body["type"] == "error"


@pytest.mark.parametrize(("status", "error", "kind"), [
    (401, anthropic.AuthenticationError, "authentication_error"),
    (404, anthropic.NotFoundError, "not_found_error"),
    (400, anthropic.BadRequestError, "invalid_request_error"),
    (529, anthropic.InternalServerError, "overloaded_error"),
])
def test_status_faults_raise_the_sdk_error(anthropic_server: AnthropicServer, status: int,
                                           error: type[Exception], kind: str) -> None:
    anthropic_server.script(Fault(status=status))
    with pytest.raises(error) as info:
        raw_stream(anthropic_server)
    assert info.value.status_code == status  # type: ignore[attr-defined]
    assert info.value.body["error"]["type"] == kind  # type: ignore[attr-defined]


def test_cut_mid_stream_raises_after_partial_text(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fault(cut_after=3, reply=Reply(text="0123456789", chunk_size=2)))
    seen: list[str] = []
    with pytest.raises(Exception) as info:
        for event in raw_stream(anthropic_server):
            if event.type == "content_block_delta":
                seen.append(event.delta.text)
    assert "".join(seen) == "012345"
    assert "incomplete" in str(info.value) or "closed" in str(info.value)


def test_malformed_event_raises(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fault(malformed_after=1))
    with pytest.raises(ValueError):
        collect(raw_stream(anthropic_server))


def test_error_event_raises_api_status_error(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fault(error_event_after=2, message="Overloaded"))
    seen: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as info:
        for event in raw_stream(anthropic_server):
            seen.append(event.type)
    assert seen.count("content_block_delta") == 2
    assert "overloaded_error" in str(info.value.body)


def test_stall_times_out(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script(Fault(stall=30))
    with pytest.raises(Exception) as info:
        collect(raw_stream(anthropic_server, timeout=0.5))
    assert "time" in type(info.value).__name__.lower() or "timed out" in str(info.value)


def test_recorded_request_holds_what_the_sdk_sent(anthropic_server: AnthropicServer) -> None:
    system = [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    collect(raw_stream(anthropic_server, system=system))
    request = anthropic_server.requests[-1]
    assert (request.method, request.path) == ("POST", "/v1/messages")
    # this SDK version sends the key as a bearer token; older ones used x-api-key
    assert "x" in (request.headers.get("x-api-key"), request.headers.get("authorization")[7:])
    assert "anthropic-version" in request.headers
    assert request.json["system"] == system
    assert request.json["messages"] == MESSAGES
    assert request.json["stream"] is True


def test_models_listing(anthropic_server: AnthropicServer) -> None:
    anthropic_server.models = ["claude-a", "claude-b"]
    assert [m.id for m in client(anthropic_server).models.list()] == ["claude-a", "claude-b"]


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[AnthropicServer, anthropic.Anthropic]]:
    """One server and one SDK client for the property tests (building a client is slow)."""
    with AnthropicServer() as server:
        yield server, client(server)


@settings(max_examples=30, deadline=None)
@given(text=st.text(min_size=1, max_size=120), chunk_size=st.integers(1, 9))
def test_any_text_round_trips_through_sse(shared: tuple[AnthropicServer, anthropic.Anthropic],
                                          text: str, chunk_size: int) -> None:
    server, sdk = shared
    server.script(Reply(text=text, chunk_size=chunk_size))
    assert collect(raw_stream(server, sdk))["text"] == text


def test_count_tokens_does_not_consume_the_script(anthropic_server: AnthropicServer) -> None:
    anthropic_server.script("scripted")
    counted = client(anthropic_server).messages.count_tokens(model="claude-x", messages=MESSAGES)
    assert counted.input_tokens > 0
    assert anthropic_server.pending == 1
