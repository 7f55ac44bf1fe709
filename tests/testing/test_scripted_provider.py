"""ScriptedProvider drives the real kernel Engine; scripted_plugin registers it with a host."""

from __future__ import annotations

from pathlib import Path

import chatcli as errors
import pytest
from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Retrying,
    Role,
    Settings,
    StopEvent,
    StopReason,
    TextDelta,
    ToolCallEvent,
    ToolFinished,
    TurnFinished,
    UsageEvent,
    build_provider,
    choose_provider,
)
from chatcli_testing import AddTool, Fault, Reply, ScriptedProvider, ToolCall, scripted_plugin
from hypothesis import given
from hypothesis import strategies as st


def engine(provider: ScriptedProvider, tmp_path: Path) -> Engine:
    host = PluginHost()
    host.register(AddTool(), "add-tool")
    return Engine(host, Settings(), provider, "scripted", "m1", workspace=tmp_path,
                  sleep=lambda _delay: None)


def test_engine_runs_a_tool_turn_after_a_rate_limit(tmp_path: Path, chatcli_home: Path) -> None:
    provider = ScriptedProvider([
        Fault(status=429, retry_after=0.01),
        Reply(text="let me add", tool_calls=[ToolCall("add", {"a": 2, "b": 3}, id="c1")],
              usage={"input_tokens": 5, "output_tokens": 3}),
        Reply(text="It is 5.", usage={"input_tokens": 9, "output_tokens": 4}),
    ])
    conversation = Conversation()
    events = list(engine(provider, tmp_path).run(conversation, Message.user("2+3?")))
    retries = [e for e in events if isinstance(e, Retrying)]
    assert len(retries) == 1 and retries[0].delay == pytest.approx(0.01)
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished[0].result.content == "5" and finished[0].call.id == "c1"
    turn = events[-1]
    assert isinstance(turn, TurnFinished)
    assert turn.stop_reason == StopReason.END_TURN
    assert turn.usage.input_tokens == 14 and turn.usage.output_tokens == 7
    assert conversation.messages()[-1].text == "It is 5."
    assert len(provider.requests) == 3
    assert provider.requests[-1].messages[-1].role == Role.TOOL
    assert [t.name for t in provider.requests[0].tools] == ["add"]


def test_status_faults_become_kernel_errors(tmp_path: Path) -> None:
    provider = ScriptedProvider([Fault(status=401, message="bad key")])
    events = list(engine(provider, tmp_path).run(Conversation(), Message.user("hi")))
    turn = events[-1]
    assert isinstance(turn, TurnFinished)
    assert isinstance(turn.error, errors.AuthError)
    assert "bad key" in str(turn.error)


@pytest.mark.parametrize(("status", "kind"), [
    (429, errors.RateLimitError), (401, errors.AuthError), (403, errors.AuthError),
    (404, errors.ModelNotFoundError), (400, errors.BadRequestError),
    (413, errors.ContextTooLongError), (500, errors.ServerError), (529, errors.ServerError),
])
def test_fault_status_mapping(status: int, kind: type[Exception]) -> None:
    provider = ScriptedProvider([Fault(status=status, retry_after=2)])
    with pytest.raises(kind) as info:
        list(provider.stream(_request()))
    assert info.value.status == status  # type: ignore[attr-defined]
    if status == 429:
        assert info.value.retry_after == 2  # type: ignore[attr-defined]


def test_cut_yields_partial_text_then_raises() -> None:
    provider = ScriptedProvider([Fault(cut_after=2, reply=Reply(text="abcdefgh", chunk_size=3))])
    seen: list[str] = []
    with pytest.raises(errors.StreamCutError):
        for event in provider.stream(_request()):
            seen.append(event.text)  # type: ignore[union-attr]
    assert seen == ["abc", "def"]
    assert provider.closed_early == 1


def test_events_of_a_reply() -> None:
    provider = ScriptedProvider([Reply(text="hey", tool_calls=[ToolCall("f", '{"x": ')],
                                       stop_reason="max_tokens"), "plain", ValueError("boom")])
    events = list(provider.stream(_request()))
    assert isinstance(events[0], TextDelta) and events[0].text == "hey"
    assert isinstance(events[1], ToolCallEvent)
    assert events[1].call.raw_arguments == '{"x": ' and events[1].call.arguments == {}
    assert isinstance(events[2], UsageEvent)
    assert isinstance(events[3], StopEvent) and events[3].reason == StopReason.MAX_TOKENS
    assert events[3].model == "m1"
    assert [e.text for e in provider.stream(_request()) if isinstance(e, TextDelta)] == ["plai",
                                                                                      "n"]
    with pytest.raises(ValueError, match="boom"):
        list(provider.stream(_request()))
    assert [e.text for e in provider.stream(_request()) if isinstance(e, TextDelta)] == ["ok"]


def test_scripted_plugin_registers_a_keyless_provider(chatcli_home: Path) -> None:
    provider = ScriptedProvider(["hello from the plugin"])
    host = PluginHost()
    host.register(scripted_plugin(provider, name="fake"), "fake-plugin")
    spec = choose_provider(host, Settings())
    assert spec.name == "fake" and not spec.requires_key
    built, config = build_provider(spec, Settings(), model="m9")
    assert built is provider
    assert provider.configs[-1].model == "m9" == config.model
    text = "".join(e.text for e in built.stream(_request()) if isinstance(e, TextDelta))
    assert text == "hello from the plugin"


@given(text=st.text(max_size=300), chunk_size=st.integers(1, 50))
def test_text_chunks_cover_the_text(text: str, chunk_size: int) -> None:
    reply = Reply(text=text, chunk_size=chunk_size)
    chunks = reply.text_chunks()
    assert "".join(chunks) == text
    assert all(1 <= len(c) <= chunk_size for c in chunks)


def test_reply_rejects_unknown_usage_keys() -> None:
    with pytest.raises(ValueError, match="prompt_tokens"):
        Reply(usage={"prompt_tokens": 3})


def _request():  # type: ignore[no-untyped-def]
    from chatcli import ChatRequest

    return ChatRequest(model="m1", messages=[Message.user("hi")])
