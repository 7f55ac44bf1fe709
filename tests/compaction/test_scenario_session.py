"""The Done-when scenario on a real Session against the OpenAI and Anthropic wire servers: a
long scripted conversation with a 4,000-token context window; the threshold fires compaction;
the recent messages and the pinned rule reach the model verbatim in the next request; ``/compact
undo`` restores the view (the next request has the originals again); the compactions are in the
session store."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import compaction_files_plugin as files
import pytest
from chatcli import (
    Compacted,
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
    TextPart,
    TurnFinished,
)
from chatcli_compaction import plugin
from chatcli_sessions import plugin as sessions_plugin
from chatcli_sessions.store import SessionStore, default_path
from chatcli_testing import Reply, ToolCall
from compaction_support import App, answer_summaries, chat_requests, is_summary_request

RULE = "Project rule: every answer ends with the word DONE."
NO_COUNT = {"input_tokens": 0, "output_tokens": 5}  # keeps the local estimate uncorrected


def _host(provider: str) -> PluginHost:
    from importlib import import_module

    def fail(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    host = PluginHost(warn=fail)
    host.register(import_module(f"chatcli_provider_{provider}.plugin"), provider)
    host.register(sessions_plugin, "sessions")
    host.register(plugin, "compaction")
    host.register(files, "files")
    return host


@pytest.fixture
def openai(chatcli_home: Any, openai_server: Any, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[tuple[App, Any]]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    answer_summaries(openai_server)
    host = _host("openai")
    session = Session(host, Settings(provider="openai", model="m", context_window=4_000,
                                     compact_keep_recent=6)).open()
    yield App(host, session=session), openai_server
    session.close()
    sessions_plugin.close_stores()


def _turn(app: App, prompt: Message) -> list[Any]:
    return list(app.session.run(prompt))


def _read_turn(app: App, server: Any, number: int) -> list[Any]:
    server.script(Reply(tool_calls=[ToolCall("read", {"path": f"src/mod{number}.py"})],
                        usage=NO_COUNT),
                  Reply(text=f"mod{number} defines functions. DONE", usage=NO_COUNT))
    return _turn(app, Message.user(f"what is in src/mod{number}.py?"))


def _texts(request: Any) -> list[tuple[str, str]]:
    """(role, content) of an OpenAI request's messages, the system prompt left out."""
    out = []
    for message in request.json["messages"][1:]:
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content)
        out.append((message["role"], content))
    return out


def test_the_threshold_compacts_keeps_recent_and_pinned_verbatim_and_undo_restores(
        openai: tuple[App, Any]) -> None:
    app, server = openai
    server.script(Reply(text="Understood. DONE", usage=NO_COUNT))
    rule = Message(role=Role.USER, parts=[TextPart(text=RULE)], pinned=True)
    _turn(app, rule)
    compacted: list[Compacted] = []
    number = 0
    while not compacted:
        number += 1
        assert number < 20, "the threshold never fired"
        events = _read_turn(app, server, number)
        compacted = [e for e in events if isinstance(e, Compacted)]
        assert isinstance(events[-1], TurnFinished) and events[-1].error is None
    report = compacted[0].report
    assert report.changed and report.tokens_after < report.tokens_before
    assert report.tokens_before > 0.75 * 4_000
    assert "summarise" in [c.strategy for c in report.compactions]

    # the summary call got the old messages; the next request carries the summary instead
    summary_calls = [r for r in server.requests if is_summary_request(r)]
    assert summary_calls and "src/mod1.py line 0" in summary_calls[0].json["messages"][-1][
        "content"]
    after = server.requests[server.requests.index(summary_calls[-1]) + 1]
    sent = _texts(after)
    assert sent[0] == ("user", RULE)  # pinned: verbatim, and first
    assert sent[1][0] == "user" and sent[1][1].startswith("[Summary of earlier conversation")
    assert sent[1][1].rstrip().endswith('"}')
    assert 'context_pull {"kind": "history", "id": "cmp_' in sent[1][1]
    assert "src/mod1.py line 0" not in str(sent)
    # the recent messages reach the model verbatim, as the log holds them
    log = app.conversation.messages()
    last = next(i for i, m in enumerate(log) if m.text == sent[-1][1] or (
        m.tool_results and m.tool_results[0].content == sent[-1][1]))
    for message in log[last - 5:last + 1]:  # compact_keep_recent = 6
        text = message.tool_results[0].content if message.tool_results else message.text
        if text:
            assert (message.role.value, text) in sent
    assert f"src/mod{number}.py" in str(sent[-3:])

    # persisted by the sessions plugin
    with SessionStore(default_path()) as store:
        stored = store.compactions(app.conversation.id)
    assert [c.id for c in stored] == [c.id for c in app.conversation.compactions]

    # /compact undo all: the originals are back in the next request
    out = app.run("/compact undo all")
    assert "⟲ undid summarise" in out
    app.session.update_settings(compact_threshold=0)  # no new compaction for this request
    server.script(Reply(text="all there. DONE", usage=NO_COUNT))
    _turn(app, Message.user("list every file you read"))
    sent = _texts(chat_requests(server)[-1])
    assert sent[0] == ("user", RULE)
    assert not any(text.startswith("[Summary") for _, text in sent)
    assert ("tool", files.file_text("src/mod1.py")) in sent
    with SessionStore(default_path()) as store:
        assert store.compactions(app.conversation.id) == []


@pytest.fixture
def anthropic(chatcli_home: Any, anthropic_server: Any, monkeypatch: pytest.MonkeyPatch
              ) -> Iterator[tuple[App, Any]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    answer_summaries(anthropic_server)
    host = _host("anthropic")
    session = Session(host, Settings(provider="anthropic", model="claude-test",
                                     context_window=4_000, compact_keep_recent=5)).open()
    yield App(host, session=session), anthropic_server
    session.close()
    sessions_plugin.close_stores()


def test_with_anthropic_the_compacted_request_alternates_and_pairs_every_result(
        anthropic: tuple[App, Any]) -> None:
    app, server = anthropic
    server.script(Reply(text="Understood. DONE", usage=NO_COUNT))
    _turn(app, Message(role=Role.USER, parts=[TextPart(text=RULE)], pinned=True))
    number = 0
    while not any(is_summary_request(r) for r in server.requests):
        number += 1
        assert number < 20, "the threshold never fired"
        events = _read_turn(app, server, number)
        assert events[-1].error is None
    request = chat_requests(server)[-1]
    messages = request.json["messages"]
    roles = [m["role"] for m in messages]
    assert roles[0] == "user" and all(a != b for a, b in pairwise(roles))
    first = messages[0]["content"]
    texts = [b["text"] for b in first if b.get("type") == "text"]
    assert texts[0] == RULE and texts[1].startswith("[Summary of earlier conversation")
    for index, message in enumerate(messages):  # every result answers a call just before it
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                calls = {b["id"] for b in messages[index - 1]["content"]
                         if b.get("type") == "tool_use"}
                assert block["tool_use_id"] in calls
