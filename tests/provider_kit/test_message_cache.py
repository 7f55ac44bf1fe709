"""MessageCache: each message's wire form is computed once and reused while the history holds it."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import (
    BadRequestError,
    ChatRequest,
    Message,
    PromptSection,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from chatcli_provider_kit import MessageCache, chat_messages


def history(n: int) -> list[Message]:
    """``n`` messages with answers, tool calls, results and an interrupted empty answer."""
    messages: list[Message] = []
    for i in range(n):
        kind = i % 5
        if kind == 0:
            messages.append(Message.user(f"question {i}"))
        elif kind == 1:
            call = ToolCallPart(id=f"call_{i}", name="read", arguments={"path": f"f{i}.py"})
            messages.append(Message(role=Role.ASSISTANT, parts=[TextPart(text="Reading."), call]))
        elif kind == 2:
            messages.append(Message(role=Role.TOOL, parts=[ToolResultPart(
                call_id=f"call_{i - 1}", name="read", content=f"body {i}", is_error=i % 2 == 0)]))
        elif kind == 3:
            messages.append(Message(role=Role.ASSISTANT, parts=[], interrupted=True))
        else:
            messages.append(Message.assistant(f"answer {i} ✓"))
    return messages


class Counting:
    """A conversion that records which messages it was asked to convert."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, message: Message) -> dict[str, Any]:
        self.seen.append(message.id)
        return {"text": message.text}


def test_each_message_is_converted_once_across_requests():
    cache, convert = MessageCache(), Counting()
    messages = history(20)
    first = cache.convert(messages, convert)
    grown = [*messages, Message.user("and now?")]
    second = cache.convert(grown, convert)

    assert convert.seen == [m.id for m in grown]  # the new message only, the second time
    assert second[:20] == first
    assert second[-1] == {"text": "and now?"}


def test_a_copy_under_the_same_id_is_converted_afresh():
    # the engine sends models without native tools a rewritten copy that keeps the id
    cache, convert = MessageCache(), Counting()
    original = Message(role=Role.TOOL, parts=[ToolResultPart(call_id="c", name="t", content="5")])
    cache.convert([original], convert)
    rewritten = Message(id=original.id, role=Role.USER, parts=[TextPart(text="Result: 5")])

    assert cache.convert([rewritten], convert) == [{"text": "Result: 5"}]
    assert convert.seen == [original.id, original.id]


def test_another_variant_is_converted_afresh():
    cache, convert = MessageCache(), Counting()
    messages = history(3)
    cache.convert(messages, convert, variant="a")
    cache.convert(messages, convert, variant="b")
    assert len(convert.seen) == 6


def test_messages_that_left_the_history_are_dropped():
    cache = MessageCache()
    messages = history(10)
    cache.convert(messages, Counting())
    cache.convert(messages[:4], Counting())  # a rewind, a compaction
    assert len(cache) == 4


def test_a_failed_conversion_leaves_the_cache_as_it_was():
    cache, convert = MessageCache(), Counting()
    messages = history(3)
    cache.convert(messages, convert)

    def broken(message: Message) -> Any:
        raise BadRequestError("image not found: a.png")

    with pytest.raises(BadRequestError):
        cache.convert([*messages, Message.user("x")], broken)
    assert len(cache) == 3
    cache.convert(messages, convert)
    assert len(convert.seen) == 3  # still cached


@pytest.mark.parametrize("options", [
    {},
    {"drop_empty": True, "error_prefix": True},
    {"tools": False, "images": "text", "empty_content": ""},
])
def test_chat_messages_with_a_cache_equal_the_plain_conversion(options):
    cache = MessageCache()
    system = [PromptSection(name="base", text="terse")]
    full = history(41)
    for n in (7, 40, 41, 12):  # grows, grows, then a rewind
        request = ChatRequest(model="m", system=system, messages=full[:n])
        plain = chat_messages(request, **options)
        assert chat_messages(request, cache=cache, **options) == plain
        assert chat_messages(request, cache=cache, **options) == plain  # from the cache


def test_one_cache_serves_two_option_sets_without_mixing_them():
    cache = MessageCache()
    request = ChatRequest(model="m", messages=history(10))
    native = chat_messages(request, cache=cache)
    text = chat_messages(request, cache=cache, tools=False)
    assert native == chat_messages(request)
    assert text == chat_messages(request, tools=False)
    assert native != text
