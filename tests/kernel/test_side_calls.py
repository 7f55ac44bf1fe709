"""The contract of a plugin's own model call (``Engine.side_call``) and of ``after_response``'s
``purpose``: a side call streams like a turn's call, is never appended to the conversation, and
ends — answered, failed or closed early — with exactly one ``after_response`` to the
implementations that take ``purpose`` (observers counting every call) and none to the others;
a turn's calls say "chat", or what ``before_request`` set (an agent run)."""

from __future__ import annotations

import pytest
from chatcli import (
    ChatRequest,
    Message,
    PluginHost,
    Risk,
    Session,
    SessionOptions,
    Settings,
    TextDelta,
    hookimpl,
)
from chatcli_testing import Fault, Reply, ScriptedProvider, scripted_plugin


class Counter:
    """Sees every call: takes ``purpose``."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    @hookimpl
    def after_response(self, message, error, conversation, purpose):
        self.seen.append((purpose, message and message.usage and message.usage.input_tokens,
                          message and message.model, type(error).__name__ if error else None,
                          conversation.id, message and message.provider))


class TurnsOnly:
    """An observer written for turns (no ``purpose``): side calls never reach it."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    @hookimpl
    def after_response(self, message):
        self.seen.append(message and message.text)


class AgentRun:
    """Marks every request of a turn as an agent run's."""

    @hookimpl
    def before_request(self, request):
        request.purpose = "agent"


def _session(*plugins: object) -> tuple[Session, ScriptedProvider]:
    host = PluginHost()
    provider = ScriptedProvider()
    host.register(scripted_plugin(provider), "scripted")
    for index, plugin in enumerate(plugins):
        assert host.register(plugin, f"plugin{index}")
    session = Session(host, Settings(), SessionOptions(allow=frozenset(Risk))).open()
    return session, provider


def _side_request(purpose: str = "compaction") -> ChatRequest:
    return ChatRequest(model="m", messages=[Message.user("summarise this")], purpose=purpose)


def test_a_side_call_streams_reaches_purpose_observers_only_and_is_not_appended() -> None:
    counter, turns = Counter(), TurnsOnly()
    session, provider = _session(counter, turns)
    provider.script(Reply(text="the summary", usage={"input_tokens": 42, "output_tokens": 7},
                          model="m-2024"))
    events = list(session.engine.side_call(_side_request(), session.conversation))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "the summary"
    assert provider.requests[-1].purpose == "compaction"
    assert counter.seen == [("compaction", 42, "m-2024", None, session.conversation.id,
                             "scripted")]
    assert turns.seen == []
    assert session.conversation.all_messages() == []  # never appended


@pytest.mark.parametrize(("item", "error"), [
    (Fault(status=401), "AuthError"),
    (Fault(cut_after=2), "StreamCutError"),
])
def test_a_failed_side_call_is_reported_once_and_its_error_raised(item, error) -> None:
    counter = Counter()
    session, provider = _session(counter)
    provider.script(item)
    with pytest.raises(Exception) as raised:
        list(session.engine.side_call(_side_request("memory"), session.conversation))
    assert type(raised.value).__name__ == error
    assert [(s[0], s[3]) for s in counter.seen] == [("memory", error)]


def test_a_side_call_closed_early_is_reported_once() -> None:
    counter = Counter()
    session, provider = _session(counter)
    provider.script(Reply(text="a long answer " * 20))
    events = session.engine.side_call(_side_request(), session.conversation)
    next(event for event in events if isinstance(event, TextDelta))
    events.close()
    assert [s[0] for s in counter.seen] == ["compaction"]


def test_a_side_call_with_another_provider_names_it() -> None:
    from chatcli import Use

    counter = Counter()
    session, _ = _session(counter)
    other = ScriptedProvider([Reply(text="x", usage={"input_tokens": 5})])
    use = Use(other, "other", "small-model")
    request = _side_request("memory")
    request.model = "small-model"
    list(session.engine.side_call(request, session.conversation, use=use))
    assert other.requests == [request]
    assert (counter.seen[0][:3], counter.seen[0][5]) == (("memory", 5, "small-model"), "other")


def test_turns_say_chat_or_what_before_request_set() -> None:
    counter, turns = Counter(), TurnsOnly()
    session, provider = _session(counter, turns)
    provider.script(Reply(text="hello"))
    list(session.run(Message.user("hi")))
    assert [s[0] for s in counter.seen] == ["chat"] and turns.seen == ["hello"]

    agent, _ = _session(counter := Counter(), AgentRun())
    list(agent.run(Message.user("do the task")))
    assert [s[0] for s in counter.seen] == ["agent"]


def test_an_observer_that_fails_on_a_side_call_is_isolated() -> None:
    class Broken:
        @hookimpl
        def after_response(self, purpose):
            raise RuntimeError("observer bug")

    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    provider = ScriptedProvider([Reply(text="fine")])
    host.register(scripted_plugin(provider), "scripted")
    host.register(Broken(), "broken")
    session = Session(host, Settings(), SessionOptions()).open()
    events = list(session.engine.side_call(_side_request(), session.conversation))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "fine"
    assert any("broken" in line and "after_response" in line for line in lines), lines
