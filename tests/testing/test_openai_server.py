"""OpenAIServer speaks Chat Completions well enough for the official openai SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from chatcli_testing import Fault, OpenAIServer, Reply, ToolCall
from hypothesis import given, settings
from hypothesis import strategies as st

MESSAGES = [{"role": "user", "content": "hi"}]


def client(server: OpenAIServer, timeout: float = 10.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="x", max_retries=0, timeout=timeout)


def collect(stream: Any) -> dict[str, Any]:
    """Assemble a streamed completion the way a provider would."""
    out: dict[str, Any] = {"text": "", "calls": {}, "finish": None, "usage": None, "model": None}
    for chunk in stream:
        out["model"] = chunk.model
        if chunk.usage is not None:
            out["usage"] = chunk.usage
        for choice in chunk.choices:
            if choice.delta.content:
                out["text"] += choice.delta.content
            for frag in choice.delta.tool_calls or []:
                call = out["calls"].setdefault(frag.index, {"id": None, "name": "", "args": ""})
                call["id"] = frag.id or call["id"]
                call["name"] += (frag.function.name or "") if frag.function else ""
                call["args"] += (frag.function.arguments or "") if frag.function else ""
            if choice.finish_reason:
                out["finish"] = choice.finish_reason
    return out


def stream(server: OpenAIServer, sdk: openai.OpenAI | None = None, **kw: Any) -> Any:
    sdk = sdk or client(server, kw.pop("timeout", 10.0))
    return sdk.chat.completions.create(
        model="gpt-x", messages=MESSAGES, stream=True,
        stream_options={"include_usage": True}, **kw)


def test_streamed_text_usage_and_model(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(text="Hello, streaming world!", chunk_size=3,
                               usage={"input_tokens": 21, "output_tokens": 8,
                                      "cache_read_tokens": 16}))
    out = collect(stream(openai_server))
    assert out["text"] == "Hello, streaming world!"
    assert out["finish"] == "stop"
    assert out["model"] == "gpt-x"
    assert out["usage"].prompt_tokens == 21
    assert out["usage"].completion_tokens == 8
    assert out["usage"].prompt_tokens_details.cached_tokens == 16


def test_tool_call_arguments_arrive_in_fragments(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(text="Let me add.", tool_calls=[
        ToolCall("add", {"a": 2, "b": 3}, id="call_1"),
        ToolCall("echo", {"text": "naïve ☃ \"quoted\""}),
    ], chunk_size=5))
    out = collect(stream(openai_server))
    assert out["finish"] == "tool_calls"
    assert out["calls"][0] == {"id": "call_1", "name": "add", "args": '{"a": 2, "b": 3}'}
    assert out["calls"][1]["name"] == "echo"
    assert out["calls"][1]["id"].startswith("call_")
    assert json.loads(out["calls"][1]["args"]) == {"text": "naïve ☃ \"quoted\""}


def test_malformed_tool_arguments_are_sent_verbatim(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(tool_calls=[ToolCall("add", '{"a": 2,')]))
    assert collect(stream(openai_server))["calls"][0]["args"] == '{"a": 2,'


def test_usage_chunk_only_when_asked(openai_server: OpenAIServer) -> None:
    chunks = list(client(openai_server).chat.completions.create(
        model="gpt-x", messages=MESSAGES, stream=True))
    assert all(c.usage is None for c in chunks)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "ok"


def test_stream_helper_accepts_chunks(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(text="helper text", tool_calls=[ToolCall("f", {"x": 1})]))
    with client(openai_server).chat.completions.stream(
            model="gpt-x", messages=MESSAGES, stream_options={"include_usage": True}) as s:
        final = s.get_final_completion()
    message = final.choices[0].message
    assert message.content == "helper text"
    assert message.tool_calls[0].function.arguments == '{"x": 1}'
    assert final.usage is not None


def test_non_streamed_completion(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(text="whole", tool_calls=[ToolCall("f", {"x": 1}, id="c9")],
                               model="served-model", usage={"input_tokens": 3,
                                                            "output_tokens": 2}))
    result = client(openai_server).chat.completions.create(model="gpt-x", messages=MESSAGES)
    assert result.model == "served-model"
    assert result.choices[0].message.content == "whole"
    assert result.choices[0].message.tool_calls[0].id == "c9"
    assert result.choices[0].finish_reason == "tool_calls"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (3, 2)


def test_stop_reason_max_tokens_maps_to_length(openai_server: OpenAIServer) -> None:
    openai_server.script(Reply(text="trunc", stop_reason="max_tokens"))
    assert collect(stream(openai_server))["finish"] == "length"


def test_rate_limit_with_retry_after(openai_server: OpenAIServer) -> None:
    openai_server.script(Fault(status=429, retry_after=7, message="Rate limit reached"))
    with pytest.raises(openai.RateLimitError) as info:
        stream(openai_server)
    assert info.value.response.headers["retry-after"] == "7"
    assert info.value.body["message"] == "Rate limit reached"
    assert info.value.body["code"] == "rate_limit_exceeded"


@pytest.mark.parametrize(("status", "error"), [
    (401, openai.AuthenticationError), (404, openai.NotFoundError),
    (400, openai.BadRequestError), (500, openai.InternalServerError),
])
def test_status_faults_raise_the_sdk_error(openai_server: OpenAIServer, status: int,
                                           error: type[Exception]) -> None:
    openai_server.script(Fault(status=status, message="nope"))
    with pytest.raises(error) as info:
        stream(openai_server)
    assert info.value.status_code == status  # type: ignore[attr-defined]


def test_cut_mid_stream_raises_after_partial_text(openai_server: OpenAIServer) -> None:
    openai_server.script(Fault(cut_after=2, reply=Reply(text="abcdefghijklmnop", chunk_size=2)))
    seen: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in stream(openai_server):
            seen.extend(c.delta.content or "" for c in chunk.choices)
    assert "".join(seen) == "abcd"


def test_malformed_chunk_raises(openai_server: OpenAIServer) -> None:
    openai_server.script(Fault(malformed_after=1))
    with pytest.raises(ValueError):
        collect(stream(openai_server))


def test_in_stream_error_raises_api_error(openai_server: OpenAIServer) -> None:
    openai_server.script(Fault(error_event_after=1, message="server exploded"))
    with pytest.raises(openai.APIError, match="server exploded"):
        collect(stream(openai_server))


def test_stall_times_out(openai_server: OpenAIServer) -> None:
    openai_server.script(Fault(stall=30))
    with pytest.raises(openai.APITimeoutError):
        collect(stream(openai_server, timeout=0.5))
    openai_server.script(Reply(text="after stall"))
    assert collect(stream(openai_server))["text"] == "after stall"


def test_recorded_request_holds_what_the_sdk_sent(openai_server: OpenAIServer) -> None:
    tools = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
    collect(stream(openai_server, tools=tools, temperature=0.2))
    request = openai_server.requests[-1]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer x"
    assert request.json["messages"] == MESSAGES
    assert request.json["tools"] == tools
    assert request.json["temperature"] == 0.2
    assert request.json["stream_options"] == {"include_usage": True}


def test_script_queue_then_default_and_reset(openai_server: OpenAIServer) -> None:
    openai_server.script("first", Reply(text="second"))
    assert openai_server.pending == 2
    texts = [collect(stream(openai_server))["text"] for _ in range(3)]
    assert texts == ["first", "second", "ok"]
    assert len(openai_server.requests) == 3
    openai_server.script("queued")
    openai_server.reset()
    assert openai_server.requests == [] and openai_server.pending == 0


def test_models_listing(openai_server: OpenAIServer) -> None:
    openai_server.models = ["gpt-a", "gpt-b"]
    assert [m.id for m in client(openai_server).models.list()] == ["gpt-a", "gpt-b"]


def test_unknown_path_is_a_404_in_openai_shape(openai_server: OpenAIServer) -> None:
    with pytest.raises(openai.NotFoundError):
        client(openai_server).embeddings.create(model="e", input="x")


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[OpenAIServer, openai.OpenAI]]:
    """One server and one SDK client for the property tests (building a client is slow)."""
    with OpenAIServer() as server:
        yield server, client(server)


@settings(max_examples=30, deadline=None)
@given(text=st.text(min_size=1, max_size=120), chunk_size=st.integers(1, 9))
def test_any_text_round_trips_through_sse(shared: tuple[OpenAIServer, openai.OpenAI], text: str,
                                          chunk_size: int) -> None:
    server, sdk = shared
    server.script(Reply(text=text, chunk_size=chunk_size))
    assert collect(stream(server, sdk))["text"] == text


@settings(max_examples=20, deadline=None)
@given(arguments=st.dictionaries(st.text(max_size=10),
                                 st.one_of(st.integers(), st.text(max_size=20), st.booleans(),
                                           st.none()), max_size=5),
       chunk_size=st.integers(1, 7))
def test_any_arguments_reassemble(shared: tuple[OpenAIServer, openai.OpenAI],
                                  arguments: dict[str, Any], chunk_size: int) -> None:
    server, sdk = shared
    server.script(Reply(tool_calls=[ToolCall("f", arguments)], chunk_size=chunk_size))
    assert json.loads(collect(stream(server, sdk))["calls"][0]["args"]) == arguments
