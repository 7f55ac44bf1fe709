"""The group provider on its own, with in-process providers: the order it asks entries in
(cooling and unhealthy ones last, the soonest to recover first; round-robin from the shared
position), usage before any text still moving on, and an entry's own failure being recorded."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chatcli import (
    ChatRequest,
    Message,
    PluginHost,
    ProviderSpec,
    RateLimitError,
    ServerError,
    Settings,
    StopEvent,
    TextDelta,
    Usage,
    UsageEvent,
)
from chatcli_fallback.group import GroupProvider
from chatcli_fallback.settings import Entry, Group, Options
from chatcli_fallback.state import State


class Fake:
    """A provider whose stream is a list of events and exceptions, recording its calls."""

    def __init__(self, name: str, calls: list[str], events: list[object]) -> None:
        self.name, self.calls, self.events = name, calls, events

    def stream(self, request: ChatRequest) -> Iterator[object]:
        self.calls.append(f"{self.name}:{request.model}")
        for event in self.events:
            if isinstance(event, Exception):
                raise event
            yield event


def _group(strategy: str, behaviours: dict[str, list[object]], tmp_path, now: list[float],
           **options: float) -> tuple[GroupProvider, list[str]]:
    calls: list[str] = []
    specs = {}
    for name, events in behaviours.items():
        def factory(config, name=name, events=events):
            return Fake(name, calls, events)

        specs[Entry(name, f"m-{name}")] = ProviderSpec(name, name, factory, "default",
                                                       requires_key=False)
    group = Group("g", strategy, tuple(specs), Options(**options))
    provider = GroupProvider(group, PluginHost(warn=lambda line: None), Settings(), specs,
                             State(tmp_path / "state.json", lambda: now[0]))
    return provider, calls


def _ask(provider: GroupProvider) -> list[object]:
    return list(provider.stream(ChatRequest(model="chain", messages=[Message.user("hi")])))


OK = [TextDelta("ok"), StopEvent()]


def test_when_every_entry_cools_down_the_soonest_to_recover_is_asked_first(tmp_path):
    now = [1000.0]
    provider, calls = _group("chain", {"a": [RateLimitError("busy")],
                                       "b": [ServerError("down")], "c": OK}, tmp_path, now,
                             cooldown=10, cooldown_factor=3)
    assert isinstance(_ask(provider)[-1], StopEvent)
    assert calls == ["a:m-a", "b:m-b", "c:m-c"]
    provider.state.record_failure("c/m-c", "down", "ServerError", lambda n: 30.0)
    provider.state.record_failure("b/m-b", "down", "ServerError", lambda n: 5.0)
    calls.clear()
    stop = _ask(provider)[-1]
    # a cools until 1010, b until 1005 (just now), c until 1030: b, a, then c
    assert calls == ["b:m-b", "a:m-a", "c:m-c"]
    assert stop.provider == "c" and [f.kind for f in stop.failed] == [
        "ServerError", "RateLimitError"]


def test_usage_before_any_text_is_no_answer_yet(tmp_path):
    provider, calls = _group(
        "chain", {"a": [UsageEvent(Usage(input_tokens=5)), ServerError("cut before text")],
                  "b": OK}, tmp_path, [0.0])
    events = _ask(provider)
    assert calls == ["a:m-a", "b:m-b"]
    assert not any(isinstance(e, UsageEvent) for e in events)
    assert events[-1].provider == "b" and events[-1].model == "m-b"


def test_text_then_a_failure_never_switches(tmp_path):
    provider, calls = _group("chain", {"a": [TextDelta("half"), ServerError("cut")], "b": OK},
                             tmp_path, [0.0])
    with pytest.raises(ServerError) as err:
        _ask(provider)
    assert calls == ["a:m-a"]
    assert [f.provider for f in err.value.failed] == ["a"]


def test_round_robin_starts_one_further_each_call_and_puts_unhealthy_last(tmp_path):
    now = [0.0]
    provider, calls = _group("round_robin", {"a": OK, "b": OK, "c": OK}, tmp_path, now,
                             unhealthy_after=2, recovery=60)
    for _ in range(4):
        _ask(provider)
    assert calls == ["a:m-a", "b:m-b", "c:m-c", "a:m-a"]
    for _ in range(2):
        provider.state.record_failure("b/m-b", "down", "ServerError", lambda n: 0.0)
    order, parked = provider.plan()  # the position is at b now: b is unhealthy, so c, a, b
    assert [e.provider for e in order] == ["c", "a", "b"]
    assert [e.provider for e, _why in parked] == ["b"]
    now[0] = 61.0  # the recovery time passed: b is asked again (at its turn)
    order, parked = provider.plan()
    assert parked == [] and [e.provider for e in order] == ["c", "a", "b"]


def test_only_the_services_errors_move_on():
    from chatcli import AuthError, ConfigError, StreamCutError, UsageError
    from chatcli_fallback.group import error_kind

    class Overloaded(ServerError):
        """A provider plugin's own subclass."""

    assert error_kind(Overloaded("busy")) == "ServerError"
    assert error_kind(StreamCutError("cut")) == "StreamCutError"
    assert error_kind(ConfigError("no API key for X")) == "AuthError"
    assert error_kind(AuthError("bad key")) == "AuthError"
    assert error_kind(UsageError("odd")) == "UsageError"
    assert not Options().moves_on(error_kind(UsageError("odd")))


class _Silent:
    """An entry whose stream waits in silence (a CLI assistant at work) until cancelled."""

    def __init__(self, calls: list[str]) -> None:
        import threading

        self.calls, self.released = calls, threading.Event()

    def stream(self, request: ChatRequest):
        self.calls.append("silent")
        outer = self

        class Events:
            def __iter__(self):
                return self

            def __next__(self):
                outer.released.wait(30)
                raise ServerError("killed")  # what a killed process looks like to its provider

            def cancel(self):
                outer.calls.append("cancelled")
                outer.released.set()

        return Events()


def test_cancel_reaches_the_entry_answering_and_no_other_entry_is_asked(tmp_path):
    import threading

    calls: list[str] = []
    silent = _Silent(calls)
    specs = {Entry("slow", "m"): ProviderSpec("slow", "slow", lambda c: silent, "m",
                                              requires_key=False),
             Entry("b", "m"): ProviderSpec("b", "b", lambda c: Fake("b", calls, OK), "m",
                                           requires_key=False)}
    provider = GroupProvider(Group("g", "chain", tuple(specs), Options()),
                             PluginHost(warn=lambda line: None), Settings(), specs,
                             State(tmp_path / "state.json", lambda: 1000.0))
    stream = provider.stream(ChatRequest(model="chain", messages=[Message.user("hi")]))
    seen: list[object] = []

    def read() -> None:
        try:
            seen.extend(stream)
        except ServerError as err:  # the engine has let go by then; it is not shown
            seen.append(err)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for _ in range(200):
        if calls:
            break
        threading.Event().wait(0.05)
    stream.cancel()  # the engine, on Ctrl+C, from its own thread
    reader.join(10)
    assert not reader.is_alive()
    assert calls == ["silent", "cancelled"]  # b was never asked
    assert [type(e) for e in seen] == [ServerError]
    assert provider.state.snapshot().get("slow/m") is None  # not the entry's failure
