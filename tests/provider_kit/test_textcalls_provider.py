"""``chatcli_provider_kit.textcalls.TextToolCalls``: a model without native tools, seen by the
engine as one with them. The engine sends tools and reads ToolCallEvents; the wrapper puts the
catalog and the history as text in the prompt and parses the calls back out of the answer."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import (
    Capabilities,
    ChatRequest,
    Conversation,
    Engine,
    Message,
    PluginHost,
    ProviderConfig,
    ProviderSpec,
    Role,
    Session,
    Settings,
    StopEvent,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    ToolFinished,
    ToolResultPart,
    ToolSpec,
    TurnFinished,
    UsageEvent,
    hookimpl,
)
from chatcli_provider_kit.textcalls import (
    CATALOG_SECTION,
    MAX_CALLS,
    TextToolCalls,
    as_text,
    parse_tool_calls,
    text_tool_calls,
)
from chatcli_testing import AddTool, Reply, ScriptedProvider, ToolCall
from hypothesis import given, settings
from hypothesis import strategies as st

CALL = '<tool_call name="add" args=\'{"a": 4, "b": 5}\'/>'
ADD = ToolSpec(name="add", description="Add two numbers", parameters={
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"]})


class Events:
    """A provider answering each request with the next list of events, recording requests."""

    def __init__(self, *answers: list[Any]) -> None:
        self.answers = list(answers)
        self.requests: list[ChatRequest] = []
        self.closed = 0

    def stream(self, request: ChatRequest) -> Any:
        self.requests.append(request)
        answer = self.answers.pop(0)

        def events() -> Any:
            try:
                yield from answer
            finally:
                self.closed += 1

        return events()

    def list_models(self) -> list[str]:
        return ["m"]


def engine_with(provider: Any, **settings: Any) -> Engine:
    host = PluginHost(warn=lambda line: None)
    host.register(AddTool(), "add-tool")
    return Engine(host, Settings(**settings), provider, "scripted", "m", sleep=lambda d: None)


def run(engine: Engine, conversation: Conversation, text: str = "hi") -> list[Any]:
    return list(engine.run(conversation, Message.user(text)))


# ------------------------------------------------------------------ through the engine


def test_models_without_native_tools_use_the_text_protocol() -> None:
    inner = Events([TextDelta(text=f"Sure. {CALL}"), StopEvent()], [TextDelta(text="9"),
                                                                  StopEvent()])
    events = run(engine_with(TextToolCalls(inner)), conv := Conversation())
    assert [e.result.content for e in events if isinstance(e, ToolFinished)] == ["9"]
    first, second = inner.requests
    assert first.tools == [] and first.system[-1].name == CATALOG_SECTION
    assert "- add: Add two numbers" in first.system[-1].text
    assert [m.role for m in second.messages] == [Role.USER, Role.ASSISTANT, Role.USER]
    assert second.messages[1].text == f"Sure. {CALL}"
    assert second.messages[-1].text == "Result of tool add:\n9"
    assert events[-1].text == "9"
    answer = conv.messages()[1]  # the engine keeps the text as written and the call it made
    assert answer.text == f"Sure. {CALL}"
    assert [(c.name, c.arguments) for c in answer.tool_calls] == [("add", {"a": 4, "b": 5})]


def test_the_engine_sends_native_tools_and_never_reads_calls_from_text() -> None:
    native = Events([TextDelta(text=f"Sure. {CALL}"), StopEvent()])
    engine = engine_with(native)
    events = run(engine, Conversation())
    assert [t.name for t in native.requests[0].tools] == ["add"]
    assert CATALOG_SECTION not in [s.name for s in native.requests[0].system]
    assert not any(isinstance(e, ToolFinished) for e in events)
    assert len(native.requests) == 1


def test_the_model_is_told_when_its_text_held_more_calls_than_were_read() -> None:
    many = "".join(f'<tool_call name="add" args=\'{{"a": {i}, "b": 0}}\'/>'
                   for i in range(MAX_CALLS + 8))
    inner = Events([TextDelta(text=many), StopEvent()], [TextDelta(text="done"), StopEvent()])
    conv = Conversation()
    run(engine_with(TextToolCalls(inner), max_calls_per_step=64), conv)
    results = conv.messages()[2].tool_results
    assert len(results) == MAX_CALLS and results[-1].content == f"{MAX_CALLS - 1}"
    sent = inner.requests[1].messages[-1].text
    assert sent.startswith("Result of tool add:\n0\n\n")
    assert sent.endswith(f"Result of tool add:\n{MAX_CALLS - 1}\n\n(Only the first {MAX_CALLS} "
                         "tool calls of your answer were read; the rest were not run. Make the "
                         "remaining calls in your next answer.)")
    assert sent.count("Only the first") == 1
    # a resumed conversation (another wrapper, nothing remembered) is sent the same
    assert TextToolCalls(inner).view(conv.messages())[2].text == sent


def test_a_note_already_in_a_stored_result_is_not_repeated() -> None:
    many = "".join(f'<tool_call name="add" args=\'{{"a": {i}, "b": 0}}\'/>'
                   for i in range(MAX_CALLS + 1))
    calls = list(parse_tool_calls(many, [ADD]))
    note = (f"(Only the first {MAX_CALLS} tool calls of your answer were read; the rest were "
            "not run. Make the remaining calls in your next answer.)")
    stored = [Message.user("go"), Message(role=Role.ASSISTANT, parts=[
        *Message.assistant(many).parts, *calls]), Message(role=Role.TOOL, parts=[
            ToolResultPart(call_id=c.id, name="add", content=f"{i}\n\n{note}" if
                           i == MAX_CALLS - 1 else f"{i}") for i, c in enumerate(calls)])]
    assert TextToolCalls(Events()).view(stored)[2].text.count("Only the first") == 1


def test_a_lean_request_goes_through_untouched_and_its_tags_run_nothing() -> None:
    inner = Events([TextDelta(text=f"Sure: {CALL}"), StopEvent()])
    wrapper = TextToolCalls(inner)
    request = ChatRequest(model="m", messages=[Message.user("hi")])
    events = list(wrapper.stream(request))
    assert inner.requests == [request]  # the very object
    assert not any(isinstance(e, ToolCallEvent) for e in events)


def test_the_calls_come_just_before_the_stop_and_only_with_it() -> None:
    request = ChatRequest(model="m", messages=[Message.user("hi")], tools=[ADD])
    usage = UsageEvent(usage=None)  # type: ignore[arg-type]
    events = list(TextToolCalls(Events([TextDelta(text=CALL), usage, StopEvent()])).stream(
        request))
    assert [type(e).__name__ for e in events] == ["TextDelta", "UsageEvent", "ToolCallEvent",
                                                  "StopEvent"]
    cut = list(TextToolCalls(Events([TextDelta(text=CALL)])).stream(request))
    assert [type(e).__name__ for e in cut] == ["TextDelta"]  # a cut answer makes no calls


def test_closing_the_stream_closes_the_wrapped_one() -> None:
    inner = Events([TextDelta(text="a"), TextDelta(text="b"), StopEvent()])
    stream = TextToolCalls(inner).stream(ChatRequest(model="m", tools=[ADD]))
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert inner.closed == 1


def test_each_message_is_converted_once() -> None:
    wrapper = TextToolCalls(Events())
    call = ToolCallPart(name="add", arguments={"a": 1, "b": 2})
    history = [Message.user("1+2"), Message.assistant("", [call]),
               Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="add",
                                                            content="3", is_error=True)])]
    first, second = wrapper.view(history), wrapper.view(history)
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert first[0] is history[0]  # nothing to convert
    assert first[2].role == Role.USER and first[2].text == "Result of tool add (error):\n3"
    assert first[1].id == history[1].id and first[1].tool_calls == []


def test_text_tool_calls_wraps_only_what_the_kernel_says_has_no_native_tools() -> None:
    inner = Events()
    assert text_tool_calls(inner, ProviderConfig(name="x", model="m")) is inner
    wrapped = text_tool_calls(inner, ProviderConfig(name="x", model="m", native_tools=False))
    assert isinstance(wrapped, TextToolCalls) and wrapped.provider is inner
    assert wrapped.list_models() == ["m"]  # everything else is the wrapped provider's
    with pytest.raises(AttributeError):
        wrapped.nothing_like_this  # noqa: B018


class Text:
    """Registers ``text``: a spec without native tools whose factory wraps itself."""

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    def factory(self, config: ProviderConfig) -> Any:
        self.provider.configs.append(config)
        return text_tool_calls(self.provider, config)

    @hookimpl
    def register_providers(self, register: Any) -> None:
        register(ProviderSpec(name="text", display_name="text", requires_key=False,
                              factory=self.factory, default_model="m",
                              capabilities=Capabilities(native_tools=False)))


@pytest.mark.parametrize(("tool_calls", "native"), [("auto", False), ("text", False),
                                                    ("native", True)])
def test_the_kernel_tells_the_factory_how_tools_reach_the_model(
        tool_calls: str, native: bool, chatcli_home: Any) -> None:
    provider = ScriptedProvider([Reply(text=f"Sure. {CALL}"), Reply(text="done")])
    host = PluginHost(warn=lambda line: None)
    host.register(Text(provider), "text")
    host.register(AddTool(), "add-tool")
    settings = Settings(provider="text", providers={"text": {"tool_calls": tool_calls}})
    with Session(host, settings).open() as session:
        *_, finished = session.run(Message.user("4+5"))
    assert isinstance(finished, TurnFinished)
    assert [c.native_tools for c in provider.configs] == [native]
    assert bool(provider.requests[0].tools) is native
    assert (len(provider.requests) == 2) is not native  # a call was read from the text


def test_a_native_history_reaches_a_text_model_as_text(chatcli_home: Any) -> None:
    provider = ScriptedProvider([Reply(text="", tool_calls=[ToolCall("add", {"a": 1, "b": 2})]),
                                 Reply(text="3"), Reply(text="ok")])
    host = PluginHost(warn=lambda line: None)
    host.register(Text(provider), "text")
    host.register(AddTool(), "add-tool")
    settings = Settings(provider="text", providers={"text": {"tool_calls": "native"}})
    with Session(host, settings).open() as session:
        list(session.run(Message.user("1+2")))
        session.update_settings(providers={"text": {"tool_calls": "text"}})
        session.switch("text")
        list(session.run(Message.user("sure?")))
    last = provider.requests[-1]
    assert last.tools == [] and not any(m.tool_calls or m.tool_results for m in last.messages)
    assert "Result of tool add:\n3" in [m.text for m in last.messages]


# ------------------------------------------------------------------ same parsing results


@settings(max_examples=150)
@given(st.lists(st.one_of(st.text(max_size=40), st.sampled_from(
    [CALL, "<tool_call", "```\n", "\n```", 'TOOL_CALL: add(a=1, b=2)\n', "\x00", "\ud800",
     '{"tool_call": "add", "args": {"a": 1}}'])), max_size=8))
def test_the_calls_are_what_parse_tool_calls_reads_in_the_text(chunks: list[str]) -> None:
    from chatcli import safe_text

    request = ChatRequest(model="m", messages=[Message.user("hi")], tools=[ADD])
    events = list(TextToolCalls(Events([*(TextDelta(text=c) for c in chunks), StopEvent()]))
                  .stream(request))
    assert [e.text for e in events if isinstance(e, TextDelta)] == chunks  # unchanged
    got = [(e.call.name, e.call.arguments, e.call.raw_arguments) for e in events
           if isinstance(e, ToolCallEvent)]
    expected = parse_tool_calls("".join(safe_text(c) for c in chunks), [ADD])
    assert got == [(c.name, c.arguments, c.raw_arguments) for c in expected]


@given(st.text(max_size=200), st.booleans())
def test_as_text_keeps_the_words_of_calls_and_results(text: str, error: bool) -> None:
    call = ToolCallPart(name="add", arguments={})
    answer = Message(role=Role.ASSISTANT, parts=[*Message.assistant(text).parts, call])
    assert as_text(answer).text == answer.text and as_text(answer).tool_calls == []
    result = Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="add",
                                                           content=text, is_error=error)])
    shown = as_text(result)
    assert shown.role == Role.USER
    assert shown.text == f"Result of tool add{' (error)' if error else ''}:\n{text}"
