"""Per-session state for plugins: the typed Stash on sessions and conversations, and the historic
``configure`` that reaches plugins registered after it ran (exactly once, guarded)."""

from __future__ import annotations

import chatcli
import pytest
from chatcli import (
    ControlFile,
    Conversation,
    Message,
    PluginHost,
    Session,
    Settings,
    Stash,
    StashKey,
    hookimpl,
)
from chatcli_testing import ScriptedProvider, scripted_plugin
from hypothesis import given
from hypothesis import strategies as st

COUNT = StashKey[int]()
NAME = StashKey[str]()


def test_stash_and_stash_key_are_public() -> None:
    assert {"Stash", "StashKey"} <= set(chatcli.__all__)


def test_a_stash_stores_by_key_object_and_reports_what_is_missing() -> None:
    stash = Stash()
    assert COUNT not in stash and len(stash) == 0
    with pytest.raises(KeyError):
        stash[COUNT]
    assert stash.get(COUNT, None) is None
    assert stash.setdefault(COUNT, 3) == 3
    assert stash.setdefault(COUNT, 9) == 3  # already set: kept
    stash[NAME] = "x"
    assert stash[COUNT] == 3 and stash[NAME] == "x" and len(stash) == 2
    del stash[COUNT]
    assert COUNT not in stash and stash.get(COUNT, -1) == -1
    with pytest.raises(KeyError):
        del stash[COUNT]


def test_two_keys_never_collide_even_for_the_same_type() -> None:
    first, second = StashKey[int](), StashKey[int]()
    stash = Stash()
    stash[first] = 1
    assert second not in stash
    stash[second] = 2
    assert (stash[first], stash[second]) == (1, 2)


@given(st.lists(st.tuples(st.integers(0, 4), st.text())))
def test_a_stash_behaves_like_a_dict_keyed_by_key_objects(operations) -> None:
    keys = [StashKey[str]() for _ in range(5)]
    stash, model = Stash(), {}
    for index, value in operations:
        stash[keys[index]] = value
        model[index] = value
    assert len(stash) == len(model)
    for index, key in enumerate(keys):
        assert stash.get(key, None) == model.get(index)


def test_sessions_and_conversations_each_carry_their_own_stash() -> None:
    host = PluginHost(warn=lambda line: None)
    host.register(scripted_plugin(ScriptedProvider()), "scripted")
    first, second = Conversation(), Conversation()
    first.stash[COUNT] = 1
    assert COUNT not in second.stash
    with Session(host, Settings()) as session:
        session.stash[COUNT] = 5
        assert COUNT not in session.conversation.stash
    with Session(host, Settings()) as other:
        assert COUNT not in other.stash


def test_a_plugin_keeps_per_conversation_state_in_the_stash() -> None:
    class Counter:
        @hookimpl
        def user_prompt_submitted(self, conversation):
            conversation.stash[COUNT] = conversation.stash.get(COUNT, 0) + 1

    host = PluginHost(warn=lambda line: None)
    host.register(scripted_plugin(ScriptedProvider()), "scripted")
    host.register(Counter(), "counter")
    with Session(host, Settings()) as session:
        for text in ("one", "two", "three"):
            list(session.run(Message.user(text)))
        assert session.conversation.stash[COUNT] == 3
        session.set_conversation(Conversation())
        list(session.run(Message.user("four")))
        assert session.conversation.stash[COUNT] == 1


# ------------------------------------------------------------------------ historic configure


class Configured:
    def __init__(self) -> None:
        self.calls: list[tuple[PluginHost, int]] = []

    @hookimpl
    def configure(self, host, settings):
        self.calls.append((host, settings.max_turns))


def _configured_host() -> tuple[PluginHost, list[str]]:
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    host.register(scripted_plugin(ScriptedProvider()), "scripted")
    with Session(host, Settings(max_turns=7)):
        pass
    return host, lines


def test_a_plugin_registered_after_configure_ran_gets_it_once() -> None:
    host, lines = _configured_host()
    late = Configured()
    assert host.register(late, "late")
    assert late.calls == [(host, 7)]
    with Session(host, Settings()):
        pass  # configure runs once per process: nothing new
    assert late.calls == [(host, 7)] and lines == []


def test_a_plugin_registered_again_in_its_place_is_not_configured_twice() -> None:
    host, _ = _configured_host()
    late = Configured()
    host.register(late, "late")
    # an entry-point plugin standing before "late" arrives: "late" is taken out and put back
    host._positions["early"] = -1
    early = Configured()
    assert {"early", "late"} <= host._register_in_order([("early", early)])
    assert late.calls == [(host, 7)] and early.calls == [(host, 7)]


def test_a_plugin_unregistered_and_registered_anew_is_configured_again() -> None:
    host, _ = _configured_host()
    plugin = Configured()
    host.register(plugin, "again")
    host.unregister("again")
    host.register(plugin, "again")
    assert plugin.calls == [(host, 7), (host, 7)]


def test_a_late_configure_that_raises_is_reported_and_the_plugin_stays() -> None:
    class Broken:
        @hookimpl
        def configure(self):
            raise RuntimeError("no config")

        @hookimpl
        def register_setting_rules(self, register):
            register(ControlFile("still-here.txt"))

    host, lines = _configured_host()
    assert host.register(Broken(), "broken")
    assert [(f.name, f.stage) for f in host.failures] == [("broken", "in hook configure")]
    assert len(lines) == 1 and "no config" in lines[0]
    seen: list[object] = []
    host.hooks.register_setting_rules(register=seen.append)
    assert seen == [ControlFile("still-here.txt")]


def test_a_configure_wrapper_is_refused_in_one_line() -> None:
    class Wrapping:
        @hookimpl(wrapper=True)
        def configure(self):
            return (yield)

    host, lines = _configured_host()
    assert not host.register(Wrapping(), "wrapping")
    assert host.failures[0].stage == "validation" and "historic" in lines[0]
