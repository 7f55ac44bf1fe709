"""OllamaServer speaks /api/chat NDJSON well enough for the official ollama client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import ollama
import pytest
from chatcli_testing import Fault, OllamaServer, Reply, ToolCall
from hypothesis import given, settings
from hypothesis import strategies as st

MESSAGES = [{"role": "user", "content": "hi"}]


def chat(server: OllamaServer, sdk: ollama.Client | None = None, **kw: Any) -> Any:
    sdk = sdk or ollama.Client(host=server.url, timeout=kw.pop("timeout", 10.0))
    return sdk.chat(model=kw.pop("model", "llama-x"), messages=MESSAGES,
                    stream=kw.pop("stream", True), **kw)


def test_streamed_text_tool_calls_and_counts(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply(text="Sure, adding.", chunk_size=4,
                               tool_calls=[ToolCall("add", {"a": 2, "b": 3})],
                               usage={"input_tokens": 26, "output_tokens": 9}))
    parts = list(chat(ollama_server))
    assert "".join(p.message.content or "" for p in parts) == "Sure, adding."
    assert all(p.message.role == "assistant" for p in parts)
    calls = [c for p in parts for c in (p.message.tool_calls or [])]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [
        ("add", {"a": 2, "b": 3})]
    assert [p.done for p in parts].count(True) == 1 and parts[-1].done
    assert parts[-1].prompt_eval_count == 26
    assert parts[-1].eval_count == 9
    assert parts[-1].done_reason == "stop"
    assert parts[-1].model == "llama-x"


def test_malformed_arguments_become_text_like_ollama(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply(tool_calls=[ToolCall("add", '{"a": 2')]))
    parts = list(chat(ollama_server))
    assert "".join(p.message.content or "" for p in parts) == '{"a": 2'
    assert not any(p.message.tool_calls for p in parts)


def test_non_streamed_answer(ollama_server: OllamaServer) -> None:
    ollama_server.script(Reply(text="whole", tool_calls=[ToolCall("f", {"x": [1, 2]})],
                               stop_reason="max_tokens", model="served:latest"))
    response = chat(ollama_server, stream=False)
    assert response.model == "served:latest"
    assert response.message.content == "whole"
    assert dict(response.message.tool_calls[0].function.arguments) == {"x": [1, 2]}
    assert response.done and response.done_reason == "length"
    assert ollama_server.requests[-1].json["stream"] is False


def test_status_fault_raises_response_error(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(status=404, message='model "nope" not found, try pulling it first'))
    with pytest.raises(ollama.ResponseError) as info:
        list(chat(ollama_server))
    assert info.value.status_code == 404
    assert "try pulling it first" in info.value.error


def test_rate_limit_with_retry_after_header(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(status=429, retry_after=4, message="busy"))
    with httpx.Client(base_url=ollama_server.url) as raw:
        response = raw.post("/api/chat", json={"model": "m", "messages": MESSAGES})
    assert response.status_code == 429
    assert response.headers["retry-after"] == "4"
    assert response.json() == {"error": "busy"}


def test_cut_mid_stream_raises(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(cut_after=2, reply=Reply(text="abcdefghij", chunk_size=2)))
    seen: list[str] = []
    with pytest.raises(httpx.RemoteProtocolError):
        for part in chat(ollama_server):
            seen.append(part.message.content)
    assert "".join(seen) == "abcd"


def test_malformed_line_raises(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(malformed_after=1))
    with pytest.raises(ValueError):
        list(chat(ollama_server))


def test_error_line_in_stream_raises_response_error(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(error_event_after=1, message="model crashed"))
    with pytest.raises(ollama.ResponseError, match="model crashed"):
        list(chat(ollama_server))


def test_stall_times_out(ollama_server: OllamaServer) -> None:
    ollama_server.script(Fault(stall=30))
    with pytest.raises(httpx.ReadTimeout):
        list(chat(ollama_server, timeout=0.5))


def test_recorded_request_holds_what_the_client_sent(ollama_server: OllamaServer) -> None:
    tools = [{"type": "function", "function": {"name": "add", "description": "add",
                                               "parameters": {"type": "object",
                                                              "properties": {}}}}]
    list(chat(ollama_server, tools=tools, options={"num_ctx": 4096}))
    request = ollama_server.requests[-1]
    assert (request.method, request.path) == ("POST", "/api/chat")
    assert request.json["model"] == "llama-x"
    assert request.json["messages"] == MESSAGES
    assert request.json["tools"][0]["function"]["name"] == "add"
    assert request.json["options"] == {"num_ctx": 4096}


def test_tags_listing(ollama_server: OllamaServer) -> None:
    ollama_server.models = ["llama3.2:latest", "qwen:0.5b"]
    listed = ollama.Client(host=ollama_server.url).list()
    assert [m.model for m in listed.models] == ["llama3.2:latest", "qwen:0.5b"]


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[OllamaServer, ollama.Client]]:
    with OllamaServer() as server:
        yield server, ollama.Client(host=server.url)


@settings(max_examples=30, deadline=None)
@given(text=st.text(min_size=1, max_size=120), chunk_size=st.integers(1, 9))
def test_any_text_round_trips_through_ndjson(shared: tuple[OllamaServer, ollama.Client],
                                             text: str, chunk_size: int) -> None:
    server, sdk = shared
    server.script(Reply(text=text, chunk_size=chunk_size))
    assert "".join(p.message.content or "" for p in chat(server, sdk)) == text
