"""OpenAI caches prompts by exact prefix, with no markers: the body must start with the same
bytes turn after turn while only volatile sections change — stable sections first."""

from __future__ import annotations

import itertools
import json
from typing import Any

import chatcli_provider_openai.plugin as openai_plugin
from chatcli import (
    ChatRequest,
    Message,
    PluginHost,
    PromptSection,
    Session,
    SessionOptions,
    Settings,
    TurnFinished,
    hookimpl,
)
from chatcli_testing import AddTool, Reply, ToolCall
from hypothesis import given, settings
from hypothesis import strategies as st

KEY = "sk-prefix-test-0123456789"


class Sections:
    """Stable sections given in a scrambled order and a volatile one that changes every call."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def prompt_sections(self) -> list[PromptSection]:
        self.calls += 1
        return [PromptSection("recall", f"Recalled item {self.calls}.", stable=False, order=0),
                PromptSection("workspace", "Files: a.py b.py", order=90),
                PromptSection("rules", "Rule: be brief. " * 40, order=10)]


def test_only_volatile_sections_change_after_the_stable_prefix(openai_server, chatcli_home,
                                                                monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    host.register(Sections(), "sections")
    openai_server.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    with Session(host, Settings(provider="openai", model="gpt-test"), SessionOptions(),
                 workspace=tmp_path).open() as session:
        for prompt in ("first", "second", "third"):
            *_, finished = session.run(Message.user(prompt))
            assert isinstance(finished, TurnFinished) and finished.error is None

    bodies = [r.body for r in openai_server.requests]
    system = json.loads(bodies[0])["messages"][0]
    assert system["role"] == "system"
    text = system["content"]
    # stable sections first, in their order; the volatile ones (the date, the recall) after
    assert text.index("Rule: be brief.") < text.index("Files: a.py") < text.index("Today is")
    assert text.index("Files: a.py") < text.index("Recalled item 1.") < text.index("Today is")
    end = min(bodies[0].index(b"Today is"), bodies[0].index(b"Recalled item"))
    assert b"Files: a.py b.py" in bodies[0][:end]
    for body in bodies[1:]:
        assert body[:end] == bodies[0][:end]  # byte for byte up to the volatile part
    assert len({json.loads(b)["messages"][0]["content"] for b in bodies}) == 3
    # and each request starts with the whole previous one's messages
    for before, after in itertools.pairwise(bodies):
        previous, current = json.loads(before)["messages"], json.loads(after)["messages"]
        assert current[1:len(previous)] == previous[1:]


class AgentRun(Sections):
    """The same sections, and every request asks for the volatile ones after the history, as
    an agent run's do (chatcli-agent sets ``volatile_last``)."""

    @hookimpl
    def before_request(self, request: ChatRequest) -> None:
        request.volatile_last = True


def test_in_an_agent_run_each_request_starts_with_the_whole_previous_one(
        openai_server, chatcli_home, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    host.register(AgentRun(), "sections")
    host.register(AddTool(), "add")
    openai_server.script(Reply(tool_calls=[ToolCall("add", {"a": 1, "b": 2})]),
                         Reply(tool_calls=[ToolCall("add", {"a": 3, "b": 4})]),
                         Reply(text="done"), Reply(text="again"))
    with Session(host, Settings(provider="openai", model="gpt-test"), SessionOptions(),
                 workspace=tmp_path).open() as session:
        for prompt in ("first", "second"):
            *_, finished = session.run(Message.user(prompt))
            assert isinstance(finished, TurnFinished) and finished.error is None

    bodies = [r.body for r in openai_server.requests]
    assert len(bodies) == 4
    systems = {json.loads(b)["messages"][0]["content"] for b in bodies}
    assert len(systems) == 1  # stable sections only
    assert "Today is" not in systems.pop()
    for number, body in enumerate(bodies, start=1):
        messages = json.loads(body)["messages"]
        newest = messages[-1]
        assert newest["role"] == "user"
        # after tool results a message of its own; after the person's, in the same message
        assert (newest["content"].startswith("<system-reminder>\nRecalled item ")
                if messages[-2]["role"] == "tool" else
                newest["content"].split("\n\n<system-reminder>\n")[0] in ("first", "second"))
        assert newest["content"].endswith("\n</system-reminder>")
        assert f"Recalled item {number}." in newest["content"]
        assert "system-reminder" not in json.dumps(messages[:-1])
    # each request starts with the whole previous one, byte for byte, up to its reminder
    for before, after in itertools.pairwise(bodies):
        alone = before.rfind(b'{"role":"user","content":"<system-reminder>')
        stable_end = alone if alone >= 0 else before.rindex(b"\\n\\n<system-reminder>")
        assert after[:stable_end] == before[:stable_end]
        assert after[stable_end:stable_end + 1] in (b"{", b'"')  # the next message, the text's end


def test_where_the_reminder_goes_for_each_kind_of_newest_message(tmp_path):
    from chatcli import PromptSection, Role, ToolCallPart, ToolResultPart
    from chatcli_provider_openai.request import build_messages

    png = tmp_path / "dot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    system = [PromptSection("base", "Base."), PromptSection("date", "Today is Monday.",
                                                            stable=False)]
    call = ToolCallPart(id="call_1", name="add", arguments={})
    reminder = "<system-reminder>\nToday is Monday.\n</system-reminder>"
    cases = [  # (newest messages, what the newest wire message is, system keeps the date)
        ([Message.user("hi")], {"role": "user", "content": f"hi\n\n{reminder}"}, False),
        ([Message.user("see", str(png))], "parts", False),
        ([Message.assistant("", [call]), Message(role=Role.TOOL, parts=[
            ToolResultPart(call_id="call_1", name="add", content="3")])],
         {"role": "user", "content": reminder}, False),
        ([Message.user("hi"), Message.assistant("Partial")], "assistant", True),
    ]
    for messages, newest, in_system in cases:
        for asked in (True, False):
            request = ChatRequest(model="m", system=system, messages=messages,
                                  volatile_last=asked)
            wire = build_messages(request)
            moved = asked and not in_system
            assert ("Today is" in wire[0]["content"]) == (not moved)
            assert ("system-reminder" in json.dumps(wire[1:])) == moved
            if not moved:
                continue
            if newest == "parts":
                assert wire[-1]["content"][-1] == {"type": "text", "text": reminder}
                assert wire[-1]["content"][0] == {"type": "text", "text": "see"}
            else:
                assert wire[-1] == newest
    # the provider's switch keeps them in the system message whatever the request says
    request = ChatRequest(model="m", system=system, messages=[Message.user("hi")],
                          volatile_last=True)
    assert build_messages(request, volatile_last=False)[0]["content"] == "Base.\n\nToday is Monday."


any_text = st.text(min_size=0, max_size=12)


@st.composite
def conversations(draw: Any) -> list[Message]:
    """User turns, answers with tool calls and their results, answers cut short: any mix."""
    from chatcli import Role, TextPart, ToolCallPart, ToolResultPart

    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["user", "answer", "calls", "cut"]))
        if kind == "user":
            messages.append(Message.user(draw(any_text)))
        elif kind == "answer":
            messages.append(Message.assistant(draw(any_text)))
        elif kind == "cut":
            messages.append(Message(role=Role.ASSISTANT, parts=[TextPart(text=draw(any_text))],
                                    interrupted=True))
        else:
            calls = [ToolCallPart(id=f"call_{len(messages)}_{i}", name="t", arguments={})
                     for i in range(draw(st.integers(1, 2)))]
            messages.append(Message.assistant(draw(any_text), calls))
            messages.append(Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id=c.id, name="t", content=draw(any_text)) for c in calls]))
    return messages


@settings(max_examples=150, deadline=None)
@given(messages=conversations(), stable=any_text, volatile=st.lists(any_text, max_size=3))
def test_an_agent_runs_request_is_the_plain_one_with_the_reminder_after_the_history(
        messages: list[Message], stable: str, volatile: list[str]) -> None:
    from chatcli import PromptSection, safe_text
    from chatcli_provider_openai.request import build_messages

    sections = [PromptSection("base", stable or "Base.", order=0),
                *(PromptSection(f"v{i}", text, stable=False, order=i)
                  for i, text in enumerate(volatile))]
    plain = build_messages(ChatRequest(model="m", system=[sections[0]], messages=messages))
    moved = build_messages(ChatRequest(model="m", system=sections, messages=messages,
                                       volatile_last=True))
    kept = [safe_text(t.strip()) for t in volatile if t.strip()]
    if not kept or not messages or plain[-1]["role"] not in ("user", "tool"):
        # nothing to move, or the newest message is the model's: the system message keeps them
        assert moved == build_messages(ChatRequest(model="m", system=sections,
                                                   messages=messages))
        return
    reminder = "<system-reminder>\n" + "\n\n".join(kept) + "\n</system-reminder>"
    json.dumps(moved, ensure_ascii=False).encode()  # always sendable
    if plain[-1]["role"] == "tool":
        assert moved == [*plain, {"role": "user", "content": reminder}]
    else:
        assert moved[:-1] == plain[:-1]
        text = plain[-1]["content"]
        assert isinstance(text, str)
        assert moved[-1] == {**plain[-1],
                             "content": f"{text}\n\n{reminder}" if text else reminder}
