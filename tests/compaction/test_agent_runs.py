"""Agent runs (``/agent TASK``) compact at ``agent_compact_threshold``, put ``compact_threshold``
back afterwards, and pin their task: it is stored pinned and reaches the model verbatim after a
compaction."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import compaction_files_plugin as files
import pytest
from chatcli import Message, PluginHost, Settings
from chatcli_agent.modes import plugin as modes
from chatcli_compaction import plugin
from chatcli_sessions import plugin as sessions_plugin
from chatcli_sessions.store import SessionStore, default_path
from chatcli_testing import Reply, ScriptedProvider, ToolCall, scripted_plugin
from compaction_support import App, SummarisingProvider

TASK = "read src/a.py and report what it defines"
NO_COUNT = {"input_tokens": 0, "output_tokens": 5}  # keeps the local estimate uncorrected


@pytest.fixture
def app(chatcli_home: Any) -> Iterator[tuple[App, Any]]:
    provider = ScriptedProvider()
    summaries = SummarisingProvider(provider)

    def fail(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    host = PluginHost(warn=fail)
    for name, module in (("scripted", scripted_plugin(summaries)), ("agent", modes),
                         ("sessions", sessions_plugin), ("compaction", plugin),
                         ("files", files)):
        host.register(module, name)
    chat = App(host, Settings(provider="scripted", context_window=8_000, compact_threshold=0.9,
                              agent_compact_threshold=0.5, compact_keep_recent=2))
    yield chat, summaries
    chat.session.close()
    sessions_plugin.close_stores()


def _fill(chat: App, share: float) -> None:
    """Chat turns until the next request is about ``share`` of the window."""
    number = 0
    while chat.session.context_tokens() < share * 8_000:
        chat.conversation.append(Message.user(f"old question {number} " + "q" * 400))
        chat.conversation.append(Message.assistant(f"old answer {number} " + "a" * 400))
        number += 1


def test_a_run_compacts_at_the_agent_threshold_pins_its_task_and_puts_the_setting_back(
        app: tuple[App, Any]) -> None:
    chat, provider = app
    _fill(chat, 0.55)  # above the agent runs' 50 %, far below the chat's 90 %
    provider.script(Reply(text="a chat answer", usage=NO_COUNT))
    chat.ask("a chat question first")
    assert chat.conversation.compactions == []  # a chat turn does not compact at 55 %

    provider.script(Reply(tool_calls=[ToolCall("read", {"path": "src/a.py"})], usage=NO_COUNT),
                    Reply(text="src/a.py defines forty functions.", usage=NO_COUNT))
    chat.run(f"/agent {TASK}")
    first_step, second_step = provider.requests[-2:]
    assert provider.summary_calls  # before the run's first step
    for call in provider.summary_calls:
        assert TASK not in call.messages[0].text  # the pinned task is not summarised
    for step in (first_step, second_step):
        texts = [m.text for m in step.messages]
        assert texts[0].startswith("[Summary of earlier conversation")
        assert TASK in texts  # verbatim
    assert chat.settings.compact_threshold == 0.9  # put back after the run
    assert chat.settings.max_turns == Settings().max_turns

    task = next(m for m in chat.conversation.messages() if m.text == TASK)
    assert task.pinned
    with SessionStore(default_path()) as store:
        stored = next(m for m in store.messages(chat.conversation.id) if m.id == task.id)
        assert stored.pinned  # pinned before the store wrote it
        assert [c.id for c in store.compactions(chat.conversation.id)] == [
            c.id for c in chat.conversation.compactions]
    # a chat message after the run is not pinned
    provider.script(Reply(text="fine"))
    chat.ask("thanks")
    assert not chat.conversation.messages()[-2].pinned
