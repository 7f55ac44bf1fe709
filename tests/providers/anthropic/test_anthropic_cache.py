"""Prompt caching on the wire: where the ``cache_control`` breakpoints go, how many, with which
TTL, and that the cached prefix keeps its bytes turn after turn — through the real anthropic SDK
against the local Messages server, which refuses what the real API refuses (more than 4
breakpoints, a 1h breakpoint after a 5m one)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import anthropic
import pytest
from chatcli import (
    BadRequestError,
    ChatRequest,
    Message,
    PluginHost,
    PromptSection,
    ProviderConfig,
    Role,
    Session,
    SessionOptions,
    Settings,
    StopEvent,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    TurnFinished,
    hookimpl,
)
from chatcli_provider_anthropic import plugin as anthropic_plugin
from chatcli_provider_anthropic.convert import MAX_BREAKPOINTS, place_breakpoints
from chatcli_provider_anthropic.provider import AnthropicProvider
from chatcli_testing import AddTool, AnthropicServer, Reply, ToolCall
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

KEY = "sk-ant-cache-test-0123456789"
MODEL = "claude-test"
EPHEMERAL = {"type": "ephemeral"}
LONG = {"type": "ephemeral", "ttl": "1h"}


def make_provider(server: Any, **options: Any) -> AnthropicProvider:
    return AnthropicProvider(ProviderConfig(name="anthropic", model=MODEL, api_key=KEY,
                                            base_url=server.url, timeout=5.0, options=options))


def marks(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """Where the body's breakpoints are, in the API's order: ``("tools", i)``,
    ``("system", i)``, ``("messages", (i, j))``, with their ``cache_control``."""
    found: list[tuple[str, Any]] = []
    for key in ("tools", "system"):
        found += [((key, i), b["cache_control"]) for i, b in enumerate(body.get(key, []))
                  if "cache_control" in b]
    for i, message in enumerate(body["messages"]):
        found += [(("messages", (i, j)), b["cache_control"])
                  for j, b in enumerate(message["content"]) if "cache_control" in b]
    return found


def send(server: AnthropicServer, request: ChatRequest, **options: Any) -> dict[str, Any]:
    events = list(make_provider(server, **options).stream(request))
    assert isinstance(events[-1], StopEvent)  # the server took the request
    return server.requests[-1].json


# ------------------------------------------------------------------ many request shapes


texts = st.text(alphabet="abcdé ✓\n", min_size=1, max_size=8).filter(str.strip)


@st.composite
def histories(draw: Any) -> list[Message]:
    """User turns, answers with tool calls and their results, answers cut short: any mix."""
    messages: list[Message] = []
    for _ in range(draw(st.integers(0, 24))):
        kind = draw(st.sampled_from(["user", "answer", "calls", "cut"]))
        if kind == "user":
            messages.append(Message.user(draw(texts)))
        elif kind == "answer":
            messages.append(Message.assistant(draw(texts)))
        elif kind == "cut":
            messages.append(Message(role=Role.ASSISTANT, parts=[TextPart(text=draw(texts))],
                                    interrupted=True))
        else:
            calls = [ToolCallPart(id=f"toolu_{len(messages)}_{i}", name="t", arguments={"i": i})
                     for i in range(draw(st.integers(1, 3)))]
            messages.append(Message.assistant(draw(st.sampled_from(["", "on it"])), calls))
            messages.append(Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id=c.id, name="t", content=draw(texts)) for c in calls]))
    return messages or [Message.user("hi")]


sections = st.lists(st.builds(PromptSection, name=st.sampled_from("abcdefg"), text=texts,
                              stable=st.booleans(), order=st.integers(0, 3)), max_size=6)
tool_lists = st.integers(0, 6).map(lambda n: [ToolSpec(name=f"tool_{i}", description=f"tool {i}")
                                              for i in range(n)])


def expected_marks(body: dict[str, Any], request: ChatRequest, cache_messages: bool) -> list:
    """The breakpoints the provider promises, computed from the body's shape: the last tool,
    the last stable system block, the last user message before the newest one and the newest
    one — before the volatile reminder, when the newest message carries it; the earliest
    dropped beyond 4."""
    candidates: list[Any] = []
    if body.get("tools"):
        candidates.append(("tools", len(body["tools"]) - 1))
    kept = [s for s in request.ordered_system() if s.text.strip()]
    wire = body["messages"]
    last = len(wire) - 1
    tail = int(request.volatile_last and any(not s.stable for s in kept)
               and wire[last]["role"] == "user")
    if tail:
        kept = [s for s in kept if s.stable]
    stable = [i for i, s in enumerate(kept) if s.stable]
    if stable:
        candidates.append(("system", stable[-1]))
    if cache_messages:
        users = [i for i in range(last) if wire[i]["role"] == "user"]
        if users:
            candidates.append(("messages", (users[-1], len(wire[users[-1]]["content"]) - 1)))
        candidates.append(("messages", (last, len(wire[last]["content"]) - 1 - tail)))
    return candidates[-MAX_BREAKPOINTS:]


def expected_placement(body: dict[str, Any], request: ChatRequest) -> None:
    """Volatile sections travel after the history, in the newest message, when the request
    asks for it (an agent run) and that message is the person's; else at the end of the
    system prompt. The system holds only stable ones then."""
    kept = [s for s in request.ordered_system() if s.text.strip()]
    volatile = [s.text.strip() for s in kept if not s.stable]
    newest = body["messages"][-1]
    system = [b["text"] for b in body.get("system", [])]
    if volatile and newest["role"] == "user" and request.volatile_last:
        reminder = newest["content"][-1]["text"]
        assert reminder.startswith("<system-reminder>\n")
        assert reminder.endswith("\n</system-reminder>")
        assert reminder == "<system-reminder>\n" + "\n\n".join(volatile) + "\n</system-reminder>"
        assert system == [s.text for s in kept if s.stable]
    else:
        assert system == [s.text for s in kept]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=histories(), system=sections, tools=tool_lists,
       ttl=st.sampled_from([None, "5m", "1h"]), cache_messages=st.booleans(),
       volatile_last=st.booleans())
def test_breakpoints_in_any_request_shape(anthropic_server, history, system, tools, ttl,
                                          cache_messages, volatile_last):
    anthropic_server.reset()
    request = ChatRequest(model=MODEL, messages=history, system=system, tools=tools,
                          cache_ttl=ttl, volatile_last=volatile_last)
    body = send(anthropic_server, request, cache_messages=cache_messages)
    found = marks(body)
    assert len(found) <= MAX_BREAKPOINTS
    assert [where for where, _ in found] == expected_marks(body, request, cache_messages)
    assert all(control == (LONG if ttl == "1h" else EPHEMERAL) for _, control in found)
    expected_placement(body, request)


def test_every_candidate_fits_when_tools_system_and_a_long_history_come_together(
        anthropic_server):
    tools = [ToolSpec(name=f"t{i}", description="d") for i in range(30)]
    history: list[Message] = []
    for i in range(40):
        call = ToolCallPart(id=f"toolu_{i}", name="t0")
        history += [Message.user(f"q{i}"), Message.assistant("", [call]),
                    Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="t0",
                                                                  content=f"r{i}")])]
    body = send(anthropic_server, ChatRequest(
        model=MODEL, messages=history, tools=tools,
        system=[PromptSection("base", "Base."), PromptSection("date", "Monday.", stable=False)]))
    last = len(body["messages"]) - 1  # the results; the one before: results and q39
    assert [where for where, _ in marks(body)] == [
        ("tools", 29), ("system", 0), ("messages", (last - 2, 1)), ("messages", (last, 0))]


def test_beyond_the_limit_the_earliest_breakpoints_are_dropped():
    params = {"tools": [{"name": "a"}, {"name": "b"}],
              "system": [{"type": "text", "text": "s"}],
              "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]},
                           {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
                           {"role": "user", "content": [{"type": "text", "text": "q2"}]}]}
    place_breakpoints(params, stable_end=0, messages=True, ttl=None, limit=2)
    assert "cache_control" not in params["tools"][-1]
    assert "cache_control" not in params["system"][0]
    assert params["messages"][0]["content"][0]["cache_control"] == EPHEMERAL
    assert params["messages"][2]["content"][0]["cache_control"] == EPHEMERAL
    place_breakpoints(params, stable_end=0, messages=False, ttl="1h", limit=1)
    assert params["system"][0]["cache_control"] == LONG and "cache_control" not in (
        params["tools"][-1])


# ------------------------------------------------------------------ the TTL


def test_the_ttl_is_sent_only_when_the_long_one_is_asked_for(anthropic_server):
    request = ChatRequest(model=MODEL, messages=[Message.user("q")],
                          tools=[ToolSpec(name="t", description="d")],
                          system=[PromptSection("base", "Base.")])
    assert {json.dumps(c) for _, c in marks(send(anthropic_server, request))} == {
        json.dumps(EPHEMERAL)}
    request.cache_ttl = "5m"  # the API's default: no field, the same bytes as none
    default = anthropic_server.requests[-1].body
    send(anthropic_server, request)
    assert anthropic_server.requests[-1].body == default
    request.cache_ttl = "1h"
    found = marks(send(anthropic_server, request))
    assert len(found) == 3 and all(c == LONG for _, c in found)
    # the request's TTL wins over the provider's option; the option applies when it has none
    request.cache_ttl = "5m"
    assert all(c == EPHEMERAL for _, c in marks(send(anthropic_server, request, cache_ttl="1h")))
    request.cache_ttl = None
    assert all(c == LONG for _, c in marks(send(anthropic_server, request, cache_ttl="1h")))
    request.cache_ttl = "1d"  # not one the API offers: ignored
    assert all(c == EPHEMERAL for _, c in marks(send(anthropic_server, request)))


def test_no_breakpoints_with_caching_off_whatever_the_ttl(anthropic_server):
    request = ChatRequest(model=MODEL, messages=[Message.user("q")], cache_ttl="1h",
                          tools=[ToolSpec(name="t", description="d")],
                          system=[PromptSection("base", "Base.")])
    assert marks(send(anthropic_server, request, prompt_caching=False)) == []


# ------------------------------------------------------------------ the server refuses


def test_the_server_refuses_what_the_api_refuses(anthropic_server):
    client = anthropic.Anthropic(api_key=KEY, base_url=anthropic_server.url, max_retries=0)
    marked = {"type": "text", "text": "x", "cache_control": EPHEMERAL}
    five = [{"role": "user", "content": [marked] * 3}, {"role": "assistant", "content": [marked]},
            {"role": "user", "content": [marked]}]
    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.create(model=MODEL, max_tokens=10, messages=five)
    assert err.value.status_code == 400
    assert err.value.body["error"] == {
        "type": "invalid_request_error",
        "message": "A maximum of 4 blocks with cache_control may be provided. Found 5."}
    with pytest.raises(anthropic.BadRequestError, match="must not come after a ttl='5m'"):
        client.messages.create(
            model=MODEL, max_tokens=10,
            system=[{"type": "text", "text": "s", "cache_control": EPHEMERAL}],
            messages=[{"role": "user", "content": [
                {"type": "text", "text": "q", "cache_control": {"type": "ephemeral",
                                                                "ttl": "1h"}}]}])
    assert anthropic_server.pending == 0  # refusals consume no scripted reply
    anthropic_server.script(Reply(text="fine"))
    four = [{"role": "user", "content": [marked] * 4}]
    assert client.messages.create(model=MODEL, max_tokens=10,
                                  messages=four).content[0].text == "fine"


def test_a_regression_to_five_breakpoints_fails_like_the_real_api(anthropic_server,
                                                                   monkeypatch):
    import chatcli_provider_anthropic.provider as module

    built = module.build_params

    def one_too_many(request: ChatRequest, options: Any = None, cache: Any = None) -> dict:
        params = built(request, options, cache)
        params["tools"][0] = {**params["tools"][0], "cache_control": EPHEMERAL}
        return params

    request = ChatRequest(model=MODEL, messages=[Message.user("q"), Message.assistant("a"),
                                                 Message.user("q2")],
                          tools=[ToolSpec(name="t1", description="d"),
                                 ToolSpec(name="t2", description="d")],
                          system=[PromptSection("s", "S.")])
    assert len(marks(send(anthropic_server, request))) == 4
    monkeypatch.setattr(module, "build_params", one_too_many)
    with pytest.raises(BadRequestError, match="A maximum of 4 blocks with cache_control"):
        list(make_provider(anthropic_server).stream(request))


# ------------------------------------------------------------------ turn after turn


class Sections:
    """Stable sections that never change and a volatile one that changes every call."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def prompt_sections(self) -> list[PromptSection]:
        self.calls += 1
        return [PromptSection("rules", "Rule: be brief. " * 50, order=10),
                PromptSection("workspace", "Files: a.py b.py", order=90),
                PromptSection("recall", f"Recalled item {self.calls}.", stable=False)]


def anthropic_session(server: AnthropicServer, monkeypatch, tmp_path, *plugins: Any,
                      **provider_settings: Any) -> Session:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    host = PluginHost(warn=lambda line: None)
    host.register(anthropic_plugin, "anthropic")
    for i, plugin in enumerate(plugins):
        host.register(plugin, f"test-{i}")
    settings = Settings(provider="anthropic", model=MODEL,
                        providers={"anthropic": provider_settings} if provider_settings else {})
    return Session(host, settings, SessionOptions(), workspace=tmp_path).open()


def run_turn(session: Session, text: str) -> TurnFinished:
    *_, finished = session.run(Message.user(text))
    assert isinstance(finished, TurnFinished) and finished.error is None, finished.error
    return finished


def test_the_stable_system_blocks_keep_their_bytes_turn_after_turn(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(
        Reply(text="one", tool_calls=[ToolCall("add", {"a": 1, "b": 2})]), Reply(text="two"),
        Reply(text="three"), Reply(text="four"))
    session = anthropic_session(anthropic_server, monkeypatch, tmp_path, Sections(), AddTool())
    with session:
        run_turn(session, "first")
        run_turn(session, "second")
        run_turn(session, "third")
    bodies = [r.json for r in anthropic_server.requests]
    assert len(bodies) == 4

    def stable_part(body: dict[str, Any]) -> bytes:
        system = body["system"]
        end = next(i for i, b in enumerate(system) if "cache_control" in b)
        return json.dumps([body["tools"], system[:end + 1]]).encode()

    assert len({stable_part(b) for b in bodies}) == 1
    assert len({json.dumps(b["system"]) for b in bodies}) == 4  # the volatile part moved
    for body in bodies:
        system = body["system"]
        # chatcli's base prompt, rules, workspace | the date, the recalled item
        assert [("cache_control" in b) for b in system] == [False, False, True, False, False]
        assert system[-1]["text"].startswith("Recalled item")  # volatile: after the prefix
        assert len(marks(body)) <= MAX_BREAKPOINTS
    # each request's newest breakpoint is where the next one's previous-turn breakpoint sits
    for before, after in itertools.pairwise(bodies):
        (where, _), *_ = [m for m in marks(before) if m[0][0] == "messages"][-1:]
        i, j = where[1]
        assert after["messages"][i]["content"][j]["cache_control"] == EPHEMERAL
        assert json.dumps(after["messages"][:i]) == json.dumps(
            [{**m, "content": [{k: v for k, v in b.items() if k != "cache_control"}
                               for b in m["content"]]} for m in before["messages"][:i]])


def test_the_text_protocol_caches_the_catalog_with_the_stable_prefix(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(Reply(text='<tool_call name="add" args=\'{"a": 2, "b": 3}\'/>'),
                            Reply(text="It is 5."))
    session = anthropic_session(anthropic_server, monkeypatch, tmp_path, AddTool(),
                                tool_calls="text")
    with session:
        finished = run_turn(session, "2+3?")
    assert finished.text == "It is 5."
    first, second = (r.json for r in anthropic_server.requests)
    for body in (first, second):
        assert "tools" not in body
        catalog = [b for b in body["system"] if b["text"].startswith("You can use tools")]
        assert catalog and catalog[0].get("cache_control") == EPHEMERAL  # last stable block
        assert "cache_control" not in body["system"][-1]  # the date
        assert len(marks(body)) <= MAX_BREAKPOINTS
    assert [w for w, _ in marks(second)] == [
        ("system", 1), ("messages", (0, 0)), ("messages", (2, 0))]


class AgentRun(Sections):
    """The same sections, and every request asks for the volatile ones after the history, as
    an agent run's do (chatcli-agent sets ``volatile_last``)."""

    @hookimpl
    def before_request(self, request: ChatRequest) -> None:
        request.volatile_last = True


def test_in_an_agent_run_each_step_reads_the_whole_previous_request_from_the_cache(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(
        Reply(text="one", tool_calls=[ToolCall("add", {"a": 1, "b": 2})]),
        Reply(tool_calls=[ToolCall("add", {"a": 3, "b": 4})]), Reply(text="two"),
        Reply(text="three"))
    session = anthropic_session(anthropic_server, monkeypatch, tmp_path, AgentRun(), AddTool())
    with session:
        run_turn(session, "first")
        run_turn(session, "second")
    bodies = [r.json for r in anthropic_server.requests]
    assert len(bodies) == 4
    assert len({json.dumps(b["system"]) for b in bodies}) == 1  # nothing volatile in it
    for number, body in enumerate(bodies, start=1):
        # chatcli's base prompt, rules, workspace; the date and the recalled item come last
        assert [("cache_control" in b) for b in body["system"]] == [False, False, True]
        newest = body["messages"][-1]["content"]
        assert newest[-1]["text"].startswith("<system-reminder>\nToday is ")
        assert newest[-1]["text"].endswith(f"\n\nRecalled item {number}.\n</system-reminder>")
        assert "cache_control" not in newest[-1] and newest[-2]["cache_control"] == EPHEMERAL
        older = json.dumps(body["messages"][:-1])  # only the newest message carries one
        assert "system-reminder" not in older and "Recalled item" not in older
        assert len(marks(body)) <= MAX_BREAKPOINTS
    # the prefix up to each request's newest breakpoint starts the next request, byte for byte
    for before, after in itertools.pairwise(bodies):
        *_, (where, _) = [m for m in marks(before) if m[0][0] == "messages"]
        i, j = where[1]
        assert after["messages"][i]["content"][j]["cache_control"] == EPHEMERAL

        def plain(messages: list[Any]) -> str:
            return json.dumps([{**m, "content": [
                {k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
                for m in messages])

        assert plain(after["messages"][:i]) == plain(before["messages"][:i])
        assert plain([{"content": after["messages"][i]["content"][:j + 1]}]) == plain(
            [{"content": before["messages"][i]["content"][:j + 1]}])


# ------------------------------------------------------------------ the spec


def test_the_spec_declares_caching_its_ttls_and_the_context_windows():
    host = PluginHost(warn=lambda line: None)
    host.register(anthropic_plugin, "anthropic")
    spec = host.providers()["anthropic"]
    assert spec.capabilities.prompt_caching
    assert spec.capabilities.cache_ttls == ("5m", "1h")
    for model in (*anthropic_plugin.MODELS, "claude-3-5-haiku-20241022"):
        assert spec.context_window(model) == 200_000
    assert spec.context_window("kimi-k2") is None  # another service behind the base URL
