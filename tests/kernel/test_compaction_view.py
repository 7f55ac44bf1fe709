"""Compaction as a view (the kernel's half): compactions over the log, undone, archived ranges
read back, persisted through ``view_changed``; the engine's trigger at the threshold, the
overflow retry, the strategies' order and failures, and the token estimate corrected by what the
provider counted."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import (
    Compacted,
    Compaction,
    ContextTooLongError,
    Conversation,
    Message,
    PluginHost,
    Role,
    Session,
    SessionOptions,
    Settings,
    TokenCounter,
    TurnFinished,
    apply_compactions,
    hookimpl,
)
from chatcli_compaction import runner
from chatcli_plugin_records import CompactionStrategy
from chatcli_testing import Reply, ScriptedProvider, scripted_plugin
from hypothesis import given, settings
from hypothesis import strategies as st


def _chat(n: int, size: int = 10) -> Conversation:
    conversation = Conversation()
    for i in range(n):
        conversation.append(Message.user(f"q{i} " + "x" * size))
        conversation.append(Message.assistant(f"a{i} " + "y" * size))
    return conversation


def _summary(text: str = "summary") -> Message:
    return Message(role=Role.USER, parts=[Message.user(text).parts[0]])


# ------------------------------------------------------------------------------- the view


def test_a_compaction_replaces_its_range_in_the_view_and_the_log_keeps_everything() -> None:
    conversation = _chat(5)
    path = conversation.messages()
    compaction = Compaction(first=path[0].id, last=path[5].id, replacement=[_summary()])
    conversation.compact(compaction)
    view = conversation.view()
    assert [m.text for m in view] == ["summary", *[m.text for m in path[6:]]]
    assert conversation.messages() == path  # the path itself is untouched
    assert len(conversation.log) == 10
    assert conversation.archived(compaction.id[:8]) == path[:6]


def test_a_later_compaction_may_cover_an_earlier_summary_and_undo_goes_back_in_order() -> None:
    conversation = _chat(6)
    path = conversation.messages()
    first = _summary("s1")
    conversation.compact(Compaction(first=path[0].id, last=path[3].id, replacement=[first]))
    second = _summary("s2")
    conversation.compact(Compaction(first=first.id, last=path[7].id, replacement=[second]))
    assert [m.text for m in conversation.view()][:2] == ["s2", path[8].text]
    assert conversation.archived(conversation.compactions[1].id) == [first, *path[4:8]]
    assert conversation.undo_compaction() is not None
    assert conversation.view()[0] is first
    assert conversation.undo_compaction() is not None
    assert conversation.view() == path
    assert conversation.undo_compaction() is None


def test_a_rewind_before_the_range_makes_the_compaction_stop_applying() -> None:
    conversation = _chat(4)
    path = conversation.messages()
    conversation.compact(Compaction(first=path[2].id, last=path[5].id,
                                    replacement=[_summary()]))
    conversation.move_head(path[3].id, "rewind")  # inside the range: its end is gone
    assert conversation.view() == path[:4]


def test_apply_skips_a_compaction_whose_range_is_not_on_the_path() -> None:
    path = _chat(2).messages()
    assert apply_compactions(path, [Compaction(first="x", last="y")]) == path


def test_token_counter_is_corrected_by_the_providers_count() -> None:
    counter = TokenCounter()
    messages = _chat(10, size=400).messages()
    raw = counter.raw(messages)
    assert raw == counter.estimate(messages)
    counter.observe(raw, raw * 2)
    assert counter.estimate(messages) == pytest.approx(raw * 2, rel=0.01)
    counter.observe(raw, raw * 100)  # nonsense is bounded
    assert counter.ratio == 4.0


# --------------------------------------------------------------------------- the engine


class Strategies:
    """Strategies that record their jobs: ``halve`` summarises the older half of the view,
    ``broken`` raises, ``zap`` replaces everything but the protected messages."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self.jobs: list[Any] = []
        self.events: list[tuple[str, str]] = []

    def _halve(self, job: Any) -> list[Compaction]:
        self.jobs.append(job)
        protected = job.protected()
        older = [m for m in job.view if m.id not in protected]
        if len(older) < 2:
            return []
        text = job.summarize(older, "Summarise the conversation.")
        return [Compaction(first=older[0].id, last=older[-1].id,
                           replacement=[Message.user(f"[summary] {text}")])]

    def _broken(self, job: Any) -> list[Compaction]:
        raise RuntimeError("strategy bug")

    @hookimpl
    def register_compaction_strategies(self, register: Any) -> None:
        if "broken" in self.names:
            register(CompactionStrategy("broken", self._broken, order=50))
        if "halve" in self.names:
            register(CompactionStrategy("halve", self._halve, order=200, uses_model=True))

    @hookimpl
    def view_changed(self, conversation: Any, reason: str, strategy: str, removed: int) -> None:
        if reason == "compacting":
            self.events.append(("before", strategy))
        elif reason == "compact":
            self.events.append(("after", f"{strategy}:{removed}"))
        self.events.append(("view", reason))


def _session(provider: ScriptedProvider, strategies: Strategies, **settings: Any) -> Session:
    host = PluginHost(warn=lambda line: strategies.events.append(("warn", line)))
    host.register(scripted_plugin(provider), "scripted")
    host.register(runner, "compaction-runner")  # the run, without the built-in strategies
    host.register(strategies, "strategies")
    return Session(host, Settings(provider="scripted", **settings), SessionOptions()).open()


def test_the_threshold_fires_compaction_before_the_model_call(tmp_path, monkeypatch) -> None:
    provider = ScriptedProvider()
    strategies = Strategies("halve", "broken")
    session = _session(provider, strategies, context_window=1_000, compact_threshold=0.5,
                       compact_keep_recent=2)
    for i in range(8):
        session.conversation.append(Message.user(f"question {i} " + "z" * 400))
        session.conversation.append(Message.assistant(f"answer {i} " + "w" * 400))
    provider.script(Reply(text="they talked about z and w"), Reply(text="fine"))
    events = list(session.run(Message.user("and now?")))
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert len(compacted) == 1
    report = compacted[0].report
    assert report.tokens_after < report.tokens_before
    assert any("broken failed: strategy bug" in n for n in report.notes)
    assert ("warn", "broken failed: strategy bug") in strategies.events
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "fine"
    # the summary request, then the answer sent the compacted view with the recent messages
    summary_request, answer_request = provider.requests
    assert not summary_request.tools and "question 0" in summary_request.messages[0].text
    texts = [m.text for m in answer_request.messages]
    assert texts[0] == "[summary] they talked about z and w"
    assert texts[-1] == "and now?"
    assert len(session.conversation.log) == 18  # the log keeps all 16 + prompt + answer
    assert ("view", "compact") in strategies.events
    assert ("before", "broken") in strategies.events and ("before", "halve") in strategies.events
    assert any(kind == "after" and name.startswith("halve:") for kind, name in strategies.events)
    # before each strategy, then each compaction it made (with the messages it replaced)
    halve = strategies.events.index(("before", "halve"))
    after = [(i, name) for i, (kind, name) in enumerate(strategies.events) if kind == "after"]
    assert after and all(i > halve for i, _ in after)
    assert all(int(name.split(":")[1]) > 0 for _, name in after)
    assert session.conversation.undo_compaction() is not None
    assert strategies.events[-1] == ("view", "undo")
    assert len(session.conversation.view()) == 18
    session.close()


def test_below_the_threshold_or_with_it_off_nothing_is_compacted() -> None:
    provider = ScriptedProvider()
    strategies = Strategies("halve")
    session = _session(provider, strategies, context_window=100_000, compact_threshold=0.0)
    for _ in range(30):
        session.conversation.append(Message.user("q" * 400))
    list(session.run(Message.user("hi")))
    assert strategies.jobs == []
    session.close()


def test_a_context_too_long_error_compacts_and_retries_once() -> None:
    provider = ScriptedProvider()
    strategies = Strategies("halve")
    session = _session(provider, strategies, compact_threshold=0.0, compact_keep_recent=2)
    for i in range(6):
        session.conversation.append(Message.user(f"old {i}"))
        session.conversation.append(Message.assistant(f"reply {i}"))
    provider.script(ContextTooLongError("too long", provider="scripted"),
                    Reply(text="short summary"), Reply(text="answered"))
    events = list(session.run(Message.user("go")))
    assert any(isinstance(e, Compacted) for e in events)
    assert strategies.jobs[0].reason == "overflow"
    assert events[-1].text == "answered" and events[-1].error is None
    session.close()


def test_manual_compaction_passes_the_instruction_and_reports() -> None:
    provider = ScriptedProvider()
    strategies = Strategies("halve")
    session = _session(provider, strategies, compact_keep_recent=2)
    for i in range(5):
        session.conversation.append(Message.user(f"old {i}"))
        session.conversation.append(Message.assistant(f"reply {i}"))
    provider.script(Reply(text="the summary"))
    report = session.compact("keep the API names")
    assert report.changed and report.reason == "manual"
    assert strategies.jobs[0].instruction == "keep the API names"
    assert report.compactions[0].instruction == "keep the API names"
    assert "compacted with halve" in report.line()
    session.close()


def test_the_providers_count_corrects_the_estimate() -> None:
    provider = ScriptedProvider()
    session = _session(provider, Strategies())
    provider.script(Reply(text="ok", usage={"input_tokens": 5_000, "output_tokens": 1}))
    before = session.context_tokens()
    list(session.run(Message.user("hello")))
    assert session.engine.tokens.last_counted == 5_000
    assert session.context_tokens() > before * 3  # the ratio is capped at 4
    session.close()


def _reference(path: list[Message], compactions: list[Compaction]) -> list[Message]:
    """The definition: each compaction replaces the slice from its first to its last id."""
    view = path
    for compaction in compactions:
        ids = [m.id for m in view]
        if compaction.first in ids and compaction.last in ids:
            start = ids.index(compaction.first)
            end = ids.index(compaction.last)
            if end >= start:
                view = [*view[:start], *compaction.replacement, *view[end + 1:]]
    return view


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30), st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60),
                                              st.integers(0, 3)), max_size=12))
def test_the_linked_view_equals_the_definition(size: int, specs: list) -> None:
    """Compactions over originals and over earlier replacements, in order or reversed, or
    naming ids no longer on the view: the one-pass view is the slice-by-slice definition."""
    path = [Message.user(f"m{i}") for i in range(size)]
    known = [m.id for m in path]
    compactions = []
    for first, last, replaced in specs:
        replacement = [Message.user(f"r{len(compactions)}.{j}") for j in range(replaced)]
        compactions.append(Compaction(first=known[first % len(known)],
                                      last=known[last % len(known)], replacement=replacement))
        known += [m.id for m in replacement]
    assert apply_compactions(path, compactions) == _reference(path, compactions)
