"""The prompt cache's TTL chosen by evidence: the short TTL until the session sees its prefix
expire in a pause the hour would have covered, then the hour — once, never back; never over an
explicit setting; never on a provider without the long TTL. Pauses are simulated (the cost
plugin's clock), the requests go through the real SDKs to the wire servers."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import (
    Capabilities,
    Conversation,
    Message,
    ProviderSpec,
    Role,
    SessionOptions,
    TextPart,
    Usage,
    hookimpl,
)
from chatcli_context.cost.ttl import Call, TtlState, prefix_expired
from chatcli_testing import Reply, ScriptedProvider
from cost_support import ask, cost_lines, make_run, open_session, settings, ttl_line

PREFIX = 5000
WRITE = {"input_tokens": 20, "output_tokens": 5, "cache_write_tokens": PREFIX}
HIT = {"input_tokens": 20, "output_tokens": 5, "cache_read_tokens": PREFIX,
       "cache_write_tokens": 200}
EXPIRED = {"input_tokens": 20, "output_tokens": 5, "cache_write_tokens": PREFIX + 300}


def ttls(server: Any) -> list[set[str | None]]:
    """The TTLs each request's breakpoints asked for (None: the default, five minutes)."""
    out = []
    for request in server.requests:
        body = request.json
        blocks = [*body.get("tools", []), *body.get("system", []),
                  *(b for m in body["messages"] for b in m["content"])]
        out.append({b["cache_control"].get("ttl") for b in blocks if "cache_control" in b})
    return out


def play(session: Any, clock: Any, pauses: list[float]) -> None:
    for i, pause in enumerate(pauses):
        clock.advance(pause)
        ask(session, f"question {i}")


# ------------------------------------------------------------------ the switch


def test_a_pause_that_expires_the_cache_switches_to_the_hour_once_and_never_back(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(Reply(text="1", usage=WRITE), Reply(text="2", usage=HIT),
                            Reply(text="3", usage=EXPIRED), Reply(text="4", usage=HIT),
                            Reply(text="5", usage=EXPIRED), Reply(text="6", usage=HIT))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        play(session, run.clock, [0, 120, 600])
        assert ttl_line(cost_lines(run, session)) == (
            "cache TTL: 1h (a 10 min pause outlived the 5m cache; the long TTL holds for the "
            "rest of the session)")
        play(session, run.clock, [30, 2 * 3600, 10])  # even an expiry of the hour: no way back
        lines = cost_lines(run, session)
        conversation = session.conversation
    assert ttls(anthropic_server) == [{None}, {None}, {None}, {"1h"}, {"1h"}, {"1h"}]
    assert ttl_line(lines).startswith("cache TTL: 1h (a 10 min pause")
    # the hour's writes cost 2× the input price ($6), the five minutes' 1.25× ($3.75)
    state = run.cost.state(conversation).ttl
    answers = [m for m in conversation.messages() if m.role == Role.ASSISTANT]
    assert [state.used[m.id] for m in answers] == ["5m", "5m", "5m", "1h", "1h", "1h"]
    spent = run.cost.ledger(conversation).money
    writes_5m, writes_1h = PREFIX + 200 + PREFIX + 300, 200 + PREFIX + 300 + 200
    expected = (6 * 20 * 3 + 3 * PREFIX * 0.3 + writes_5m * 3.75 + writes_1h * 6.0
                + 6 * 5 * 15) / 1e6
    assert spent == pytest.approx(expected)


@pytest.mark.parametrize(("pause", "usage", "why"), [
    (240, EXPIRED, "a pause the short TTL covers"),
    (2 * 3600, EXPIRED, "a pause the hour would not have covered either"),
    (600, HIT, "the cache was still read"),
    (600, {"input_tokens": 20, "output_tokens": 5, "cache_write_tokens": 1000},
     "only a small part written again"),
])
def test_no_switch_without_the_evidence(anthropic_server, chatcli_home, monkeypatch, tmp_path,
                                        pause, usage, why):
    anthropic_server.script(Reply(text="1", usage=WRITE), Reply(text="2", usage=usage),
                            Reply(text="3", usage=HIT))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        play(session, run.clock, [0, pause, 10])
        lines = cost_lines(run, session)
    assert ttls(anthropic_server) == [{None}] * 3, why
    assert ttl_line(lines).startswith("cache TTL: 5m (the short one"), why


def test_a_first_call_with_nothing_cached_before_is_no_evidence():
    empty = Call(0.0, Usage(input_tokens=100))
    later = Call(600.0, Usage(input_tokens=5100, cache_write_tokens=5000))
    assert not prefix_expired(empty, later)
    state = TtlState()
    assert not state.observe(later, may_switch=True)  # nothing before it
    assert state.by_evidence == "5m"


# ------------------------------------------------------------------ never over a setting


@pytest.mark.parametrize(("fixed", "how"), [
    ("5m", "cost"), ("1h", "cost"), ("5m", "env"), ("1h", "env"), ("1h", "provider")])
def test_never_over_an_explicit_setting(anthropic_server, chatcli_home, monkeypatch, tmp_path,
                                        fixed, how):
    anthropic_server.script(Reply(text="1", usage=WRITE), Reply(text="2", usage=EXPIRED),
                            Reply(text="3", usage=HIT))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    chosen = settings("anthropic", "claude-test",
                      providers={"anthropic": {"cache_ttl": fixed}} if how == "provider" else {},
                      **({"cache_ttl": fixed} if how == "cost" else {}))
    if how == "env":
        monkeypatch.setenv("CHATCLI_PROMPT_CACHE_TTL", fixed)
    with open_session(run, chosen, tmp_path) as session:
        play(session, run.clock, [0, 900, 10])
        lines = cost_lines(run, session)
    expected = {None} if fixed == "5m" else {"1h"}
    assert ttls(anthropic_server) == [expected] * 3
    where = {"cost": "[cost] cache_ttl", "env": "CHATCLI_PROMPT_CACHE_TTL",
             "provider": "[providers.anthropic] cache_ttl"}[how]
    assert ttl_line(lines) == f"cache TTL: {fixed} (set by {where})"


def test_the_variable_reaches_the_settings_like_every_chatcli_variable(monkeypatch):
    from chatcli import load_settings
    from chatcli_context.cost.settings import read_config

    monkeypatch.setenv("CHATCLI_PROMPT_CACHE_TTL", "1h")
    assert read_config(load_settings(), environ={}).cache_ttl == ("1h",
                                                                 "CHATCLI_PROMPT_CACHE_TTL")
    monkeypatch.setenv("CHATCLI_PROMPT_CACHE_TTL", "auto")  # the evidence decides
    assert read_config(load_settings(), environ={}).cache_ttl is None


# ------------------------------------------------------------------ never without the hour


def test_never_on_openai(openai_server, chatcli_home, monkeypatch, tmp_path):
    usage = {"input_tokens": 5020, "output_tokens": 5, "cache_read_tokens": 0}
    openai_server.script(Reply(text="1", usage={**usage, "cache_read_tokens": 5000}),
                         Reply(text="2", usage=usage), Reply(text="3", usage=usage))
    run = make_run(monkeypatch, openai=openai_server)
    seen: list[Any] = []

    def record(provider: Any) -> Any:
        class Recording:
            def stream(self, request: Any) -> Any:
                seen.append(request.cache_ttl)
                return provider.stream(request)
        return Recording()

    with open_session(run, settings("openai", "gpt-test"), tmp_path,
                      wrap_provider=record) as session:
        play(session, run.clock, [0, 900, 10])
        lines = cost_lines(run, session)
    assert seen == [None, None, None]
    assert ttl_line(lines) == "cache TTL: none to choose (openai offers none)"
    assert all("cache_control" not in r.body.decode() for r in openai_server.requests)


def test_never_on_a_provider_whose_spec_lacks_the_hour(chatcli_home, monkeypatch, tmp_path):
    provider = ScriptedProvider([Reply(text="1", usage=WRITE), Reply(text="2", usage=EXPIRED),
                                 Reply(text="3", usage=HIT)])

    class ShortOnly:  # caches, but offers one TTL only
        @hookimpl
        def register_providers(self, register: Any) -> None:
            register(ProviderSpec(name="short", display_name="Short", default_model="m",
                                  factory=lambda config: provider, requires_key=False,
                                  capabilities=Capabilities(prompt_caching=True,
                                                            cache_ttls=("5m",))))

    run = make_run(monkeypatch, plugins=(ShortOnly(),))
    with open_session(run, settings("short", "m"), tmp_path) as session:
        play(session, run.clock, [0, 900, 10])
        lines = cost_lines(run, session)
        assert run.cost.state(session.conversation).ttl.switch is None
    assert [r.cache_ttl for r in provider.requests] == ["5m", "5m", "5m"]
    assert ttl_line(lines).startswith("cache TTL: 5m")


def test_another_plugins_choice_stands(anthropic_server, chatcli_home, monkeypatch, tmp_path):
    class Chooser:
        @hookimpl
        def before_request(self, request: Any) -> None:
            request.cache_ttl = "1h"

    anthropic_server.script(Reply(text="1", usage=WRITE), Reply(text="2", usage=EXPIRED))
    run = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Chooser(),))
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        play(session, run.clock, [0, 900])
    assert ttls(anthropic_server) == [{"1h"}, {"1h"}]


# ------------------------------------------------------------------ a resumed session


def logged(pause: float) -> Conversation:
    """A stored conversation whose second call came ``pause`` seconds after the first and
    wrote the whole prefix again."""
    conversation = Conversation()
    start = 1_700_000_000.0
    for i, (at, usage) in enumerate(((start, WRITE), (start + pause, EXPIRED))):
        conversation.append(Message(role=Role.USER, parts=[TextPart(text=f"q{i}")],
                                    created_at=at))
        conversation.append(Message(role=Role.ASSISTANT, parts=[TextPart(text=f"a{i}")],
                                    created_at=at + 5, provider="anthropic",
                                    model="claude-test", usage=Usage(
                                        input_tokens=usage["input_tokens"]
                                        + usage["cache_write_tokens"],
                                        output_tokens=5,
                                        cache_write_tokens=usage["cache_write_tokens"])))
    return conversation


@pytest.mark.parametrize(("pause", "expected"), [(900, "1h"), (60, None)])
def test_a_resumed_conversation_goes_on_with_the_ttl_its_log_earned(
        anthropic_server, chatcli_home, monkeypatch, tmp_path, pause, expected):
    conversation = logged(pause)

    class Store:
        @hookimpl
        def open_conversation(self) -> Conversation:
            return conversation

    anthropic_server.script(Reply(text="3", usage=HIT))
    run = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Store(),))
    with open_session(run, settings("anthropic", "claude-test"), tmp_path,
                      SessionOptions(continue_last=True)) as session:
        ask(session, "and then?")
        lines = cost_lines(run, session)
    assert ttls(anthropic_server) == [{expected}]
    assert ttl_line(lines).startswith(f"cache TTL: {expected or '5m'}")


def test_a_pause_before_the_first_call_of_a_resumed_run_counts(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    conversation = logged(60)  # no evidence in the log itself
    last = conversation.messages()[-2].created_at  # the last call started then

    class Store:
        @hookimpl
        def open_conversation(self) -> Conversation:
            return conversation

    anthropic_server.script(Reply(text="3", usage=EXPIRED), Reply(text="4", usage=HIT))
    run = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Store(),))
    run.clock.now = last + 20 * 60  # resumed twenty minutes later: the cache had expired
    with open_session(run, settings("anthropic", "claude-test"), tmp_path,
                      SessionOptions(continue_last=True)) as session:
        play(session, run.clock, [0, 10])
    assert ttls(anthropic_server) == [{None}, {"1h"}]
