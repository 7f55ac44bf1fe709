"""Mistral accepts only tool-call ids of nine letters and digits ("Tool call id was call_… but
must be a-z, A-Z, 0-9, with a length of 9"): a history from another provider reaches it with
stable nine-character ids, calls and results still paired; other services get the ids as they
were (checked on the wire, and the mapping with hypothesis)."""

from __future__ import annotations

from _openai_testlib import TEST_KEY
from chatcli import (
    ChatRequest,
    Message,
    ProviderConfig,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from chatcli_provider_openai.presets import PRESETS
from chatcli_provider_openai.provider import OpenAIProvider
from chatcli_provider_openai.request import short_tool_id
from chatcli_testing import Reply
from hypothesis import given
from hypothesis import strategies as st


def history() -> ChatRequest:
    calls = [ToolCallPart(id="call_PTLP8xhu3uwZk4l3nlnrrJha", name="read",
                          arguments={"path": "a.py"}),
             ToolCallPart(id="toolu_01A09q90qw90lq917835lq9", name="read",
                          arguments={"path": "b.py"}),
             ToolCallPart(id="Ab3dE6gH9", name="read", arguments={"path": "c.py"})]
    return ChatRequest(model="m", messages=[
        Message.user("read them"),
        Message(role=Role.ASSISTANT, parts=[TextPart(text="Reading."), *calls]),
        Message(role=Role.TOOL, parts=[ToolResultPart(call_id=c.id, name="read", content="x")
                                       for c in calls]),
        Message.user("and now?"),
    ])


def sent_ids(server) -> tuple[list[str], list[str]]:
    messages = server.requests[-1].json["messages"]
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return calls, results


def stream_once(name: str, server, request: ChatRequest) -> None:
    preset = next(p for p in PRESETS if p.name == name)
    provider = OpenAIProvider(ProviderConfig(name=name, model="m", api_key=TEST_KEY,
                                             base_url=server.url), preset=preset)
    server.script(Reply(text="ok"))
    try:
        list(provider.stream(request))
    finally:
        provider.close()


def test_mistral_gets_nine_character_ids_paired_with_their_results(openai_server, chatcli_home):
    request = history()
    stream_once("mistral", openai_server, request)
    calls, results = sent_ids(openai_server)
    assert calls == results
    assert all(len(i) == 9 and i.isascii() and i.isalnum() for i in calls)
    assert calls[2] == "Ab3dE6gH9"  # already valid: unchanged
    assert len(set(calls)) == 3
    # the conversation keeps its own ids, and another provider gets them as they were
    assert request.messages[1].tool_calls[0].id == "call_PTLP8xhu3uwZk4l3nlnrrJha"
    stream_once("openai", openai_server, request)
    assert sent_ids(openai_server)[0][0] == "call_PTLP8xhu3uwZk4l3nlnrrJha"


@given(st.text(min_size=0, max_size=60))
def test_the_short_id_is_valid_stable_and_keeps_valid_ids(call_id: str) -> None:
    short = short_tool_id(call_id)
    assert len(short) == 9 and short.isascii() and short.isalnum()
    assert short_tool_id(call_id) == short and short_tool_id(short) == short


@given(st.lists(st.text(min_size=1, max_size=30), min_size=2, max_size=20, unique=True))
def test_distinct_ids_stay_distinct(ids: list[str]) -> None:
    invalid = [i for i in ids if short_tool_id(i) != i]
    assert len({short_tool_id(i) for i in invalid}) == len(invalid)
