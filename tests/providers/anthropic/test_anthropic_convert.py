"""Properties of the request conversion (no HTTP)."""

from __future__ import annotations

import itertools

from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from chatcli_provider_anthropic.convert import build_params
from hypothesis import given
from hypothesis import strategies as st

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@st.composite
def conversations(draw) -> list[Message]:
    """User turns, assistant turns (maybe with tool calls) and their tool results, in any mix."""
    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "tools"]))
        if kind == "user":
            messages.append(Message.user(draw(texts)))
        elif kind == "assistant":
            calls = [ToolCallPart(name="t", arguments={"n": i})
                     for i in range(draw(st.integers(0, 3)))]
            messages.append(Message.assistant(draw(texts), calls))
            if calls and draw(st.booleans()):
                for call in calls:  # one tool message per result, as some hosts do
                    messages.append(Message(role=Role.TOOL, parts=[ToolResultPart(
                        call_id=call.id, name="t", content=draw(texts))]))
        else:
            messages.append(Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id="x", name="t", content=draw(texts))]))
    return messages


sections = st.lists(st.builds(PromptSection, name=st.text(min_size=1, max_size=4), text=texts,
                              stable=st.booleans(), order=st.integers(0, 200)), max_size=6)


@given(conversations(), sections)
def test_conversion_invariants(messages, system):
    params = build_params(ChatRequest(model="m", messages=messages, system=system))
    out = params["messages"]
    roles = [m["role"] for m in out]
    assert all(a != b for a, b in itertools.pairwise(roles))  # turns alternate
    for message in out:
        assert message["content"]  # nothing empty is sent
        kinds = [b["type"] for b in message["content"]]
        assert all(b["text"].strip() for b in message["content"] if b["type"] == "text")
        if message["role"] == "user":  # tool results lead their user turn
            assert kinds == sorted(kinds, key=lambda k: k != "tool_result")
        else:
            assert "tool_result" not in kinds
    # every tool result of the kernel log is sent, in order
    sent = [b["tool_use_id"] for m in out for b in m["content"] if b["type"] == "tool_result"]
    assert sent == [r.call_id for m in messages for r in m.tool_results]
    # cache breakpoints: the last stable section only, and at most 4 in all
    blocks = params.get("system", [])
    marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
    kept = [s for s in sorted(system, key=lambda s: (not s.stable, s.order, s.name))
            if s.text.strip()]
    stable = [i for i, s in enumerate(kept) if s.stable]
    assert marked == stable[-1:]
    total = len(marked) + sum("cache_control" in b for m in out for b in m["content"])
    assert total <= 4


def test_interrupted_last_assistant_text_loses_trailing_space():
    params = build_params(ChatRequest(model="m", messages=[
        Message.user("go"), Message(role=Role.ASSISTANT, parts=[TextPart(text="partial  \n")],
                                    interrupted=True)]))
    assert params["messages"][-1]["content"][0]["text"] == "partial"
