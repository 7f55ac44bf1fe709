"""What goes on the wire: the bytes ``messages.create(stream=True, …)`` sends, however long the
history.

The provider sends the body as ready bytes (the SDK would copy every block of the history on
every request) and builds each message's blocks once: neither may change a byte.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    ProviderConfig,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from chatcli_provider_anthropic.convert import build_params
from chatcli_provider_anthropic.provider import AnthropicProvider

KEY = "sk-ant-test-0123456789abcdef"
MODEL = "claude-test"


def make_provider(server: Any, **options: Any) -> AnthropicProvider:
    return AnthropicProvider(ProviderConfig(name="anthropic", model=MODEL, api_key=KEY,
                                            base_url=server.url, timeout=5.0, options=options))


def long_history(n: int, image: Path) -> list[Message]:
    """``n`` messages: images (a file, a URL, a data URL), tool calls with results followed by
    a user message (merged into one user turn), empty answers, non-ASCII text."""
    data_url = "data:image/gif;base64," + base64.b64encode(b"GIF89a").decode()
    messages: list[Message] = [
        Message.user("what are these? ünï ✓", str(image), "https://example.com/a.png", data_url)]
    i = 0
    while len(messages) < n:
        call = ToolCallPart(id=f"toolu_{i}", name="read", arguments={"path": f"f{i}.py"})
        messages += [
            Message(role=Role.ASSISTANT, parts=[TextPart(text=f"Reading {i}. "), call]),
            Message(role=Role.TOOL, parts=[ToolResultPart(
                call_id=call.id, name="read", content=f"line {i}\n", is_error=i % 3 == 0)]),
            Message.user(f"and then {i}?"),
            Message(role=Role.ASSISTANT, parts=[], interrupted=True),
            Message.assistant(f"It is {i} — done.  "),
            Message.user(f"question {i + 1}"),
        ]
        i += 1
    return messages[:n]


@pytest.mark.parametrize("options", [{}, {"prompt_caching": False}, {"cache_ttl": "1h"}])
@pytest.mark.parametrize("last", ["user", "assistant"])  # an answer cut short ends the history
def test_a_long_history_is_sent_as_create_sends_it(anthropic_server, tmp_path, options, last):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    history = long_history(2_000, image)
    if last == "assistant":
        history.append(Message.assistant("partial answer   "))
    tool = ToolSpec(name="read", description="Read a file", parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    request = ChatRequest(
        model=MODEL, messages=history, tools=[tool], max_tokens=64, temperature=1.5,
        system=[PromptSection(name="base", text="You are terse."),
                PromptSection(name="date", text="Today is Monday.", stable=False)])
    provider = make_provider(anthropic_server, **options)
    list(provider.stream(request))
    list(provider.stream(request))  # the second time, every message comes from the cache
    # the same request through the SDK's create(), from the plain conversion, on the same client
    list(provider.client.messages.create(stream=True, **build_params(request, options)))

    first, second, reference = anthropic_server.requests
    assert len(reference.json["messages"]) > 1_000
    assert first.body == reference.body
    assert second.body == reference.body
    assert first.headers == reference.headers


def test_the_cache_breakpoint_and_trimming_never_reach_later_requests(anthropic_server):
    history = [Message.user("hi"), Message.assistant("partial  ")]
    provider = make_provider(anthropic_server)
    list(provider.stream(ChatRequest(model=MODEL, messages=history)))
    list(provider.stream(ChatRequest(model=MODEL, messages=[*history, Message.user("go on")])))

    first, second = (r.json["messages"] for r in anthropic_server.requests)
    assert first[-1]["content"] == [
        {"type": "text", "text": "partial", "cache_control": {"type": "ephemeral"}}]
    assert second[1]["content"] == [{"type": "text", "text": "partial  "}]  # as it was written
    # the user message before the newest turn is marked (the previous request's prefix); the
    # mark is a copy too: a third request that moves it leaves none behind
    assert second[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert second[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    list(provider.stream(ChatRequest(model=MODEL, messages=[
        *history, Message.user("go on"), Message.assistant("more"), Message.user("and?")])))
    third = anthropic_server.requests[-1].json["messages"]
    assert [("cache_control" in m["content"][-1]) for m in third] == [
        False, False, True, False, True]


def test_an_image_is_read_once_per_conversation(anthropic_server, tmp_path):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    history = [Message.user("what is this?", str(image)), Message.assistant("A dot.")]
    provider = make_provider(anthropic_server)
    list(provider.stream(ChatRequest(model=MODEL, messages=history)))
    image.unlink()  # moved away after it was sent: the conversation goes on
    list(provider.stream(ChatRequest(model=MODEL,
                                     messages=[*history, Message.user("and its colour?")])))

    first, second = (r.json["messages"][0]["content"][1] for r in anthropic_server.requests)
    data = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-pixels").decode()
    # both requests mark this user message: the last one before the newest message
    assert first.pop("cache_control") == second.pop("cache_control") == {"type": "ephemeral"}
    assert first == second == {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": data}}
