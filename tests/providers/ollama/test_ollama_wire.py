"""Ollama: the bytes ``client.chat`` sends however long the history, the service's own words
in errors of any shape, and a stream that breaks off right after its headers."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ChatRequest,
    Message,
    NetworkError,
    PromptSection,
    ProviderConfig,
    ProviderError,
    Role,
    ServerError,
    StreamCutError,
    TextDelta,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from chatcli_provider_ollama.convert import build_params
from chatcli_provider_ollama.provider import OllamaProvider
from chatcli_testing import Fault, OllamaServer, Reply

MODEL = "llama-test"


def make_provider(url: str, timeout: float = 5.0, **options: Any) -> OllamaProvider:
    return OllamaProvider(ProviderConfig(name="ollama", model=MODEL, base_url=url,
                                         timeout=timeout, options=options))


def long_history(n: int, image: Path) -> list[Message]:
    """``n`` messages: an image, tool calls and results, empty answers, non-ASCII text."""
    messages: list[Message] = [Message.user("what is this? ünï ✓", str(image))]
    i = 0
    while len(messages) < n:
        call = ToolCallPart(id=f"call_{i}", name="read", arguments={"path": f"f{i}.py", "n": i})
        messages += [
            Message(role=Role.ASSISTANT, parts=[TextPart(text=f"Reading {i}."), call]),
            Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="read",
                                                          content=f"line {i}\n" if i else "")]),
            Message(role=Role.ASSISTANT, parts=[], interrupted=True),
            Message.assistant(f"It is {i} — done."),
            Message.user(f"question {i + 1}"),
        ]
        i += 1
    return messages[:n]


@pytest.mark.parametrize("options", [
    {},
    {"num_ctx": 8192, "keep_alive": 300, "think": True, "options": {"mirostat": 1}},
    {"keep_alive": "5m", "think": "high"},
])
def test_a_long_history_is_sent_as_chat_sends_it(ollama_server, tmp_path, options):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    tool = ToolSpec(name="read", description="Read a file", parameters={
        "type": "object", "required": ["path"], "$defs": {"P": {"type": "string"}},
        "properties": {"path": {"type": "string", "description": "where"},
                       "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}})
    request = ChatRequest(
        model=MODEL, messages=long_history(2_000, image), tools=[tool], max_tokens=64,
        temperature=0.3, system=[PromptSection(name="base", text="You are terse."),
                                 PromptSection(name="date", text="Monday.", stable=False)])
    provider = make_provider(ollama_server.url, **options)
    list(provider.stream(request))
    list(provider.stream(request))  # the second time, every message comes from the cache
    # the same request through the SDK's chat(), from the plain conversion, on the same client
    list(provider.client.chat(stream=True, **build_params(request, options)))

    first, second, reference = ollama_server.requests
    assert len(reference.json["messages"]) > 1_500
    assert first.body == reference.body
    assert second.body == reference.body
    assert first.headers == reference.headers


class NestedErrorServer(OllamaServer):
    """Errors the way proxies in front of Ollama send them: an object, not a string."""

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "type": "server_error"}}

    def stream_error_event(self, message: str) -> bytes:
        return (json.dumps(self.error_body(500, message)) + "\n").encode()


def fail(provider: OllamaProvider) -> tuple[ProviderError, list[Any]]:
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        for event in provider.stream(ChatRequest(model=MODEL, messages=[Message.user("hi")])):
            seen.append(event)
    assert "\n" not in str(info.value)
    return info.value, seen


def test_an_error_object_is_reported_in_the_services_words():
    with NestedErrorServer() as server:
        server.script(Fault(status=500, message="llama runner crashed"))
        err, _ = fail(make_provider(server.url))
    assert isinstance(err, ServerError)
    assert err.message == "Ollama server error (HTTP 500): llama runner crashed"


def test_an_error_object_inside_the_stream_is_reported_in_the_services_words():
    with NestedErrorServer() as server:
        server.script(Fault(error_event_after=1, message="out of memory",
                            reply=Reply(text="abcdefgh")))
        err, seen = fail(make_provider(server.url))
    assert isinstance(err, StreamCutError)
    assert err.message == "Ollama stopped mid-answer: out of memory"
    assert [e.text for e in seen if isinstance(e, TextDelta)] == ["abcd"]


def test_an_error_answer_that_is_not_an_object_is_shown_as_sent():
    class ListErrorServer(OllamaServer):
        def error_body(self, status: int, message: str) -> Any:
            return [message, "see the log"]

    with ListErrorServer() as server:
        server.script(Fault(status=503, message="busy"))
        err, _ = fail(make_provider(server.url))
    assert isinstance(err, ServerError)
    assert err.message == "Ollama server error (HTTP 503): busy; see the log"


def test_a_stream_cut_right_after_its_headers_is_a_cut_stream(ollama_server):
    ollama_server.script(Fault(cut_after=0))  # status and headers, then the connection closes
    err, seen = fail(make_provider(ollama_server.url))
    assert type(err) is StreamCutError
    assert "dropped" in err.message and "cannot reach" not in err.message
    assert seen == []


def test_a_password_in_the_host_is_never_printed():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    err, _ = fail(make_provider(f"http://user:hunter2-secret@127.0.0.1:{port}", timeout=2))
    assert isinstance(err, NetworkError)
    assert "hunter2-secret" not in str(err)
    assert f"http://user:***@127.0.0.1:{port}" in err.message
