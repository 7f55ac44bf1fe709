"""Requests built turn after turn with the message cache (whose wire messages are shared between
requests) equal requests built afresh: merging a user turn with tool results, the trailing-space
cut and the cache breakpoints copy what they change instead of altering the cache."""

from __future__ import annotations

from chatcli import ChatRequest, Message, Role, ToolCallPart, ToolResultPart
from chatcli_provider_anthropic.convert import build_params, request_body
from chatcli_provider_kit import MessageCache
from hypothesis import given
from hypothesis import strategies as st

texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    """Users, answers (with trailing spaces, tool calls) and tool results in any order."""
    messages: list[Message] = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["user", "assistant", "tool"]))
        if kind == "user":
            messages.append(Message.user(draw(texts)))
        elif kind == "assistant":
            calls = [ToolCallPart(name="t", arguments={"n": i})
                     for i in range(draw(st.integers(0, 2)))]
            messages.append(Message.assistant(draw(texts) + draw(st.sampled_from(["", " "])),
                                              calls))
        else:
            messages.append(Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id="x", name="t", content=draw(texts))]))
    return messages


@given(histories(), st.booleans())
def test_turn_after_turn_with_the_cache_equals_afresh(messages: list[Message],
                                                     caching: bool) -> None:
    cache = MessageCache()
    for end in range(1, len(messages) + 1):
        request = ChatRequest(model="m", messages=messages[:end],
                              options={"prompt_caching": caching})
        cached = request_body(build_params(request, cache=cache))
        assert cached == request_body(build_params(request))
