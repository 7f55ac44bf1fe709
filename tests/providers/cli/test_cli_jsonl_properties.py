"""The JSON Lines reader and the event mappers never crash, whatever a CLI prints."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chatcli import ProviderConfig, ProviderError, StreamEvent
from chatcli_provider_cli.claude import ClaudeCodeProvider, ClaudeMapper
from chatcli_provider_cli.codex import CodexMapper, CodexProvider
from chatcli_provider_cli.jsonl import classify, first_line, parse_line, telling_line
from hypothesis import example, given
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=20)

# objects shaped like the events, with arbitrary values where the fields are
KEYS = ["type", "subtype", "session_id", "model", "message", "content", "text", "id", "event",
        "delta", "result", "is_error", "usage", "error", "errors", "item", "thread_id",
        "parent_tool_use_id", "stop_reason", "api_error_status", "content_block"]
TYPES = ["system", "init", "assistant", "user", "result", "stream_event", "message_start",
         "content_block_start", "content_block_delta", "text_delta", "text", "thread.started",
         "item.started", "item.updated", "item.completed", "agent_message", "turn.completed",
         "turn.failed", "error", "success", "error_max_turns", "error_during_execution"]
event_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.sampled_from(TYPES),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner,
                                                                max_size=6),
    max_leaves=25)


@given(st.text() | st.binary())
@example(b"\xff\xfe{")
@example('{"a": ' * 5000)  # nesting deep enough to exhaust a recursive parser
@example("[1, 2]")
def test_parse_line_never_raises(line: str | bytes) -> None:
    value = parse_line(line)
    assert value is None or isinstance(value, dict)


@given(st.dictionaries(st.text(), json_values))
def test_parse_line_reads_every_json_object_back(obj: dict[str, Any]) -> None:
    assert parse_line(json.dumps(obj) + "\n") == obj


@given(st.text())
def test_classify_and_first_line_never_raise(text: str) -> None:
    assert classify(text) in ("auth", "rate", "server", "other")
    assert "\n" not in first_line(text)
    assert "\n" not in telling_line(text)


@pytest.mark.parametrize("provider_cls, mapper_cls", [(ClaudeCodeProvider, ClaudeMapper),
                                                      (CodexProvider, CodexMapper)])
@given(events=st.lists(st.dictionaries(st.sampled_from(KEYS), event_like, max_size=6),
                       max_size=8))
def test_mappers_raise_only_provider_errors(provider_cls, mapper_cls,
                                            events: list[dict[str, Any]]) -> None:
    provider = provider_cls(ProviderConfig(name="x", model="default"))
    mapper = mapper_cls(provider, None)
    try:
        for event in events:
            out = mapper.feed(event)
            assert all(isinstance(e, StreamEvent.__args__) for e in out)  # type: ignore[attr-defined]
        mapper.finish(0, "")
    except ProviderError as error:
        assert "\n" not in str(error)


messages = st.lists(
    st.tuples(st.sampled_from(["user", "assistant"]), st.text(max_size=40), st.booleans()),
    min_size=1, max_size=6)


@given(messages)
def test_every_conversation_becomes_a_prompt_ending_with_its_last_message(
        turns: list[tuple[str, str, bool]]) -> None:
    from chatcli import ChatRequest, Message, Role
    from chatcli_provider_cli.conversation import plan_prompt

    history = [Message(role=Role(role), parts=[], interrupted=cut) if not text else
               (Message.user(text) if role == "user" else Message.assistant(text))
               for role, text, cut in turns]
    plan = plan_prompt(ChatRequest(model="m", messages=history), None, cwd="/w")
    assert plan.resume is None
    assert plan.prompt.endswith(history[-1].text)

