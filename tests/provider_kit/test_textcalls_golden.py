"""The text tool-call protocol sends byte-identical prompts since it left the kernel.

``textcalls_golden.json`` holds what the providers were sent — the requests a scripted provider
received and the request bodies on the OpenAI and Anthropic wires — and the conversation logs,
for representative conversations with tools, captured from the kernel's text protocol before it
moved to ``chatcli_provider_kit.textcalls``. Each scenario runs again here and must produce the
same bytes: the catalog, the calls and results rendered as text, the parsed calls, the note
about unread calls, the lean view, switching between native and text models.

Regenerate only on purpose:
``CHATCLI_CAPTURE_GOLDEN=1 pytest tests/provider_kit/test_textcalls_golden.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    Capabilities,
    ChatRequest,
    Message,
    PluginHost,
    PromptSection,
    ProviderConfig,
    ProviderSpec,
    Session,
    SessionOptions,
    Settings,
    ToolCallPart,
    ToolResultPart,
    TurnFinished,
    hookimpl,
)
from chatcli_provider_kit.textcalls import text_tool_calls
from chatcli_testing import AddTool, Reply, ScriptedProvider, ToolCall

GOLDEN = Path(__file__).with_name("textcalls_golden.json")
CAPTURE = bool(os.environ.get("CHATCLI_CAPTURE_GOLDEN"))

CALL = '<tool_call name="add" args=\'{"a": 2, "b": 3}\'/>'


def _factory(provider: ScriptedProvider) -> Callable[[ProviderConfig], Any]:
    """A factory that wraps ``provider`` as a provider without native tools does (at the
    capture, the kernel's engine did the wrapping's work itself)."""

    def factory(config: ProviderConfig) -> Any:
        return text_tool_calls(provider, config)

    return factory


class Models:
    """``text`` (no native tools), ``small`` (no native tools, lean) and ``big`` (native)."""

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    @hookimpl
    def register_providers(self, register: Any) -> None:
        for name, caps in (("text", Capabilities(native_tools=False)),
                           ("small", Capabilities(native_tools=False, uses_tools=False)),
                           ("big", Capabilities())):
            register(ProviderSpec(name=name, display_name=name, requires_key=False,
                                  factory=_factory(self.provider), default_model="m",
                                  capabilities=caps))


class Sections:
    """A stable section, an essential one, and (``agent``) one that needs tools."""

    def __init__(self, agent: bool = False) -> None:
        self.agent = agent

    @hookimpl
    def prompt_sections(self) -> list[PromptSection]:
        found = [PromptSection(name="skills-catalog", text="Skills: call context_pull …"),
                 PromptSection(name="persona", text="You are a pirate.", essential=True)]
        if self.agent:
            found.append(PromptSection(name="coder-mode", text="Work step by step.",
                                       needs_tools=True))
        return found


def _session(provider_name: str, *, agent: bool = False, **settings: Any
             ) -> tuple[Session, ScriptedProvider]:
    provider = ScriptedProvider()
    host = PluginHost(warn=lambda line: None)
    host.register(Models(provider), "models")
    host.register(AddTool(), "add-tool")
    host.register(Sections(agent), "sections")
    return Session(host, Settings(provider=provider_name, **settings)).open(), provider


def _turn(session: Session, text: str) -> TurnFinished:
    *_, finished = session.run(Message.user(text))
    assert isinstance(finished, TurnFinished)
    return finished


# ------------------------------------------------------------------ normalizing


_DATE = re.compile(r"Today is \d{4}-\d{2}-\d{2}\.")


class _Ids:
    """Random ids (messages, calls) replaced by their order of appearance."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        return self.seen.setdefault(value, f"id{len(self.seen)}")


def _clean(value: Any, ids: _Ids) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("created_at",):
                continue
            if key in ("id", "call_id", "parent_id", "tool_call_id", "tool_use_id") and \
                    isinstance(item, str):
                out[key] = ids(item)
            else:
                out[key] = _clean(item, ids)
        return out
    if isinstance(value, list):
        return [_clean(item, ids) for item in value]
    if isinstance(value, str):
        return _DATE.sub("Today is DATE.", value)
    return value


def _request(request: ChatRequest, ids: _Ids) -> dict[str, Any]:
    return _clean({
        "model": request.model,
        "system": [dataclasses.asdict(s) for s in request.system],
        "system_text": request.system_text(),
        "messages": [m.model_dump(mode="json") for m in request.messages],
        "tools": [dataclasses.asdict(t) for t in request.tools],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
    }, ids)


def _record(session: Session, provider: ScriptedProvider) -> dict[str, Any]:
    ids = _Ids()
    return {
        "requests": [_request(r, ids) for r in provider.requests],
        "log": [_clean(m.model_dump(mode="json", exclude={"usage"}), ids)
                for m in session.conversation.messages()],
    }


# ------------------------------------------------------------------ scenarios


def scenario_calls_results_and_errors() -> dict[str, Any]:
    """A call and its result; then two calls in one answer (one unknown tool, one with bad
    arguments, one unreadable), the other accepted forms, and a fenced example."""
    session, provider = _session("text")
    provider.script(
        Reply(text=f"Sure. {CALL}"), Reply(text="It is 5."),
        Reply(text=('First {"tool_call": "add", "args": {"a": 1, "b": 1}} then\n'
                    'TOOL_CALL: add(a=4, b=5)\n<tool_call name="nope" args=\'{}\'/>\n'
                    '<tool_call name="add" args=\'{"a": "x", "b": 1}\'/>\n'
                    '<tool_call name="add" args=\'{"a": 1,\'/>\n'
                    '```\n<tool_call name="add" args=\'{"a": 9, "b": 9}\'/>\n```\n')),
        Reply(text="Done."))
    _turn(session, "add 2 and 3")
    _turn(session, "now the others")
    return _record(session, provider)


def scenario_more_calls_than_are_read() -> dict[str, Any]:
    """An answer with 40 calls: the first 32 run, the model is told about the rest."""
    session, provider = _session("text", max_calls_per_step=64)
    many = "".join(f'<tool_call name="add" args=\'{{"a": {i}, "b": 0}}\'/>' for i in range(40))
    provider.script(Reply(text=many), Reply(text="done"))
    _turn(session, "many")
    return _record(session, provider)


def scenario_native_then_text_then_native() -> dict[str, Any]:
    """Native calls in the history reach a text model as text; its calls reach a native model
    as calls."""
    session, provider = _session("big")
    provider.script(Reply(text="Let me add.", tool_calls=[ToolCall("add", {"a": 1, "b": 2})]),
                    Reply(text="3"))
    _turn(session, "1+2")
    session.switch("text")
    provider.script(Reply(text=f"Again: {CALL}"), Reply(text="5"))
    _turn(session, "2+3")
    session.switch("big")
    provider.script(Reply(text="Yes."))
    _turn(session, "sure?")
    return _record(session, provider)


def scenario_lean_model() -> dict[str, Any]:
    """A lean model sees earlier calls as text and writes tags that run nothing; an agent run
    makes its request full."""
    session, provider = _session("small")
    call = ToolCallPart(id="c1", name="add", arguments={"a": 2, "b": 3})
    session.conversation.append(Message.user("add 2 and 3"))
    session.conversation.append(Message(role="assistant", parts=[call]))
    session.conversation.append(Message(role="tool", parts=[
        ToolResultPart(call_id="c1", name="add", content="5")]))
    session.conversation.append(Message.assistant("It is 5."))
    provider.script(Reply(text=f"Sure: {CALL}"))
    _turn(session, "again")
    record = _record(session, provider)
    agent, agent_provider = _session("small", agent=True)
    agent_provider.script(Reply(text=CALL), Reply(text="5"))
    _turn(agent, "add 2 and 3")
    record["agent"] = _record(agent, agent_provider)
    return record


SCENARIOS = {f.__name__.removeprefix("scenario_"): f for f in (
    scenario_calls_results_and_errors, scenario_more_calls_than_are_read,
    scenario_native_then_text_then_native, scenario_lean_model)}


def _wire(kind: str, server: Any, monkeypatch: pytest.MonkeyPatch, workspace: Path
          ) -> list[Any]:
    """Two turns with tools through the real provider with ``tool_calls = "text"``: the
    request bodies on the wire."""
    if kind == "openai":
        from chatcli_provider_openai import plugin
    else:
        from chatcli_provider_anthropic import plugin
    monkeypatch.setenv(f"{kind.upper()}_API_KEY", "test-key")
    monkeypatch.setenv(f"{kind.upper()}_BASE_URL", server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(plugin, kind)
    host.register(AddTool(), "add-tool")
    host.register(Sections(), "sections")
    settings = Settings(provider=kind, model="test-model",
                        providers={kind: {"tool_calls": "text"}})
    server.script(Reply(text=f"Sure. {CALL}"), Reply(text="It is 5."),
                  Reply(text='<tool_call name="nope" args=\'{}\'/>'), Reply(text="Sorry."))
    with Session(host, settings, SessionOptions(), workspace=workspace).open() as session:
        _turn(session, "add 2 and 3")
        _turn(session, "again")
    ids = _Ids()
    return [_clean(r.json, ids) for r in server.requests]


# ------------------------------------------------------------------ the tests


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8")) if GOLDEN.exists() else {}


def _check(name: str, got: Any) -> None:
    if CAPTURE:
        data = _golden()
        data[name] = got
        GOLDEN.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                          encoding="utf-8")
        return
    expected = _stored_now(_golden()[name])
    assert json.dumps(got, sort_keys=True, ensure_ascii=False) == json.dumps(
        expected, sort_keys=True, ensure_ascii=False)


_NOTE = re.compile(r"\n\n\(Only the first \d+ tool calls of your answer were read;[^)]*\)\Z")


def _stored_now(value: Any, in_log: bool = False) -> Any:
    """The golden data as stored now. The one difference from the kernel's protocol: the note
    about unread calls is part of what the model is sent (the requests are identical), no longer
    of the tool result kept in the conversation log."""
    if isinstance(value, dict):
        return {k: _stored_now(v, in_log or k == "log") for k, v in value.items()}
    if isinstance(value, list):
        return [_stored_now(item, in_log) for item in value]
    return _NOTE.sub("", value) if in_log and isinstance(value, str) else value


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_prompts_and_the_log_are_the_golden_ones(name: str, chatcli_home: Path) -> None:
    _check(name, SCENARIOS[name]())


def test_the_openai_wire_body_is_the_golden_one(openai_server: Any, chatcli_home: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    _check("wire_openai", _wire("openai", openai_server, monkeypatch, tmp_path))


def test_the_anthropic_wire_body_is_the_golden_one(anthropic_server: Any, chatcli_home: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    _check("wire_anthropic", _wire("anthropic", anthropic_server, monkeypatch, tmp_path))
