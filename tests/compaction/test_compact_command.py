"""``/compact [instruction]``, ``/compact undo [all]`` and ``/compact status`` on a real Session
(the scripted provider writes the summaries)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chatcli import Message, PluginHost, Settings
from chatcli_compaction import plugin
from chatcli_testing import Reply, ScriptedProvider, scripted_plugin
from compaction_support import SUMMARY, App, tool_turn


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def app(provider: ScriptedProvider) -> Iterator[App]:
    warnings: list[str] = []
    host = PluginHost(warn=warnings.append)
    host.register(scripted_plugin(provider), "scripted")
    host.register(plugin, "compaction")
    chat = App(host, Settings(provider="scripted", context_window=8_000, compact_keep_recent=4))
    chat.warnings = warnings  # type: ignore[attr-defined]
    view: list[Message] = []
    for i in range(6):
        tool_turn(view, f"question {i} " + "q" * 600, "read", f"file {i} " + "f" * 1_200,
                  answer=f"answer {i} " + "a" * 600)
    for message in view:
        chat.conversation.append(message)
    yield chat
    chat.session.close()


def test_compact_runs_the_strategies_steered_by_the_instruction_and_reports(
        app: App, provider: ScriptedProvider) -> None:
    before = app.session.context_tokens()
    provider.script(Reply(text=SUMMARY))
    out = app.run("/compact keep the API names")
    assert out.startswith("⟲ compacted with summarise: ~")
    first = out.splitlines()[0]
    numbers = [int(n.strip("~").replace(",", "")) for n in first.split(": ")[1].split(" tokens")[
        0].split(" → ")]
    assert numbers[0] > numbers[1] and abs(numbers[0] - before) < before * 0.1
    assert "summarise: summarised 20 messages (cmp_" in out
    (request,) = provider.requests
    assert request.system[0].name == "compaction" and not request.tools
    assert "The user asked this of the summary: keep the API names" in request.system[0].text
    assert app.conversation.compactions[-1].instruction == "keep the API names"
    view = app.conversation.view()
    assert view[0].text.startswith("[Summary of earlier conversation")
    assert len(app.conversation.log) == 24  # the log keeps everything


def test_undo_puts_the_range_back_and_says_what_came_back(app: App,
                                                          provider: ScriptedProvider) -> None:
    original = app.conversation.view()
    provider.script(Reply(text=SUMMARY))
    app.run("/compact")
    out = app.run("/compact undo")
    assert out.startswith("⟲ undid summarise (cmp_")
    assert "20 messages back in the view — it had summarised 20 messages" in out
    assert app.conversation.view() == original
    assert "nothing to undo" in app.run("/compact undo")


def test_undo_all_undoes_every_compaction_of_the_path(app: App,
                                                      provider: ScriptedProvider) -> None:
    for i in range(4):  # old results age under trim; then the summary
        app.conversation.append(Message.user(f"more {i}"))
        app.conversation.append(Message.assistant("ok"))
    original = app.conversation.view()
    provider.script(Reply(text=SUMMARY))
    app.run("/compact")
    made = len(app.conversation.compactions)
    assert made > 1 and {c.strategy for c in app.conversation.compactions} == {"trim",
                                                                              "summarise"}
    out = app.run("/compact undo all")
    assert out.count("⟲ undid") == made
    assert app.conversation.view() == original
    assert app.conversation.compactions == []


def test_status_tells_the_compactions_the_tokens_and_the_thresholds(
        app: App, provider: ScriptedProvider) -> None:
    out = app.run("/compact status")
    tokens = app.session.context_tokens()
    assert out.splitlines()[0] == ("compactions in force: 0 · the log holds 24 messages, the "
                                   "view 24")
    assert f"next request: ~{tokens:,} of 8,000 tokens" in out
    assert ("chat: compacts at 75% (~6,000 tokens) · agent runs: compacts at 60% (~4,800 "
            "tokens) · keeps the newest 4 messages verbatim") in out
    provider.script(Reply(text=SUMMARY))
    app.run("/compact")
    assert "compactions in force: 1 (summarise 1)" in app.run("/compact status")
    app.session.update_settings(compact_threshold=0)
    assert "chat: never by itself" in app.run("/compact status")


def test_a_failed_compaction_says_why_and_changes_nothing(app: App,
                                                          provider: ScriptedProvider) -> None:
    from chatcli import BadRequestError

    view = app.conversation.view()
    provider.script(BadRequestError("no summaries today", provider="scripted"))
    out = app.run("/compact")
    assert out.startswith("⟲ nothing to compact (summarise failed: no summaries today")
    assert app.conversation.view() == view
    assert app.warnings == ["summarise failed: no summaries today"]  # type: ignore[attr-defined]
