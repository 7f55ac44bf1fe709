"""What goes on the wire: the bytes ``chat.completions.create`` sends, however long the history.

The provider posts its own body (the SDK's per-request walk over the params would cost about
0.15 ms per history message) and converts each message once: neither may change a byte.
"""

from __future__ import annotations

import base64
from pathlib import Path

import openai
from _openai_testlib import TEST_KEY
from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)
from chatcli_provider_openai.request import build_messages, build_tools


def long_history(n: int, image: Path) -> list[Message]:
    """``n`` messages: questions (one with an image), answers, tool calls and their results,
    a call with arguments that are not JSON, an interrupted empty answer, non-ASCII text."""
    messages: list[Message] = [Message.user("what is in this picture? ünï ✓", str(image))]
    i = 0
    while len(messages) < n - 1:
        call = ToolCallPart(id=f"call_{i}", name="read", arguments={"path": f"f{i}.py", "é": i})
        bad = ToolCallPart(id=f"bad_{i}", name="read", raw_arguments="{oops")
        messages += [
            Message.user(f"question {i}: why?"),
            Message(role=Role.ASSISTANT, parts=[TextPart(text=f"Reading {i}."), call, bad]),
            Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id=call.id, name="read", content=f"line {i}\n" * 3),
                ToolResultPart(call_id=bad.id, name="read", content="bad JSON", is_error=True)]),
            Message(role=Role.ASSISTANT, parts=[], interrupted=True),
            Message.assistant(f"The answer is {i} — done."),
        ]
        i += 1
    return [*messages[: n - 1], Message.user("and now?")]


def test_a_long_history_is_sent_as_create_sends_it(make_provider, openai_server, tmp_path):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    tool = ToolSpec(name="read", description="Read a file", parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    request = ChatRequest(
        model="gpt-test",
        system=[PromptSection(name="base", text="You are terse."),
                PromptSection(name="date", text="Today is Monday.", stable=False)],
        messages=long_history(3_000, image),
        tools=[tool],
        max_tokens=64,
        temperature=0.3,
        options={"reasoning_effort": "low"},
    )
    provider = make_provider(extra_body={"top_k": 5})
    list(provider.stream(request))
    list(provider.stream(request))  # the second time, every message comes from the cache

    # the same request through the SDK's own create(), from the plain conversion
    with openai.OpenAI(api_key=TEST_KEY, base_url=openai_server.url, timeout=10.0,
                       max_retries=0) as client:
        stream = client.chat.completions.create(
            model="gpt-test", messages=build_messages(request), stream=True,  # type: ignore[arg-type]
            stream_options={"include_usage": True}, tools=build_tools(request.tools),  # type: ignore[arg-type]
            max_completion_tokens=64, temperature=0.3,
            extra_body={"top_k": 5, "reasoning_effort": "low"})
        list(stream)

    first, second, reference = openai_server.requests
    assert len(reference.json["messages"]) > 3_000
    assert first.body == reference.body
    assert second.body == reference.body
    assert first.headers == reference.headers  # the key as a bearer token, nothing else added


def test_an_image_is_read_once_per_conversation(make_provider, openai_server, tmp_path):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake-pixels")
    history = [Message.user("what is this?", str(image)), Message.assistant("A dot.")]
    provider = make_provider()
    list(provider.stream(ChatRequest(model="gpt-test", messages=history)))
    image.unlink()  # moved away after it was sent: the conversation goes on
    list(provider.stream(ChatRequest(model="gpt-test",
                                     messages=[*history, Message.user("and its colour?")])))

    first, second = (r.json["messages"][0]["content"][1] for r in openai_server.requests)
    data = base64.b64encode(b"\x89PNG\r\n\x1a\nfake-pixels").decode()
    assert first == second == {"type": "image_url",
                               "image_url": {"url": f"data:image/png;base64,{data}"}}
