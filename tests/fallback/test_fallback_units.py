"""The parts of chatcli-fallback on their own: the entries parser (hypothesis), the options'
checks, cooldowns growing to their cap, the state file's health and its recovery from a broken
file, and what a group can do (native tools only when every entry has them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chatcli import ConfigError
from chatcli_fallback.settings import (
    DEFAULT_OPTIONS,
    Entry,
    Options,
    group_names,
    load_groups,
    parse_entries,
)
from chatcli_fallback.state import Health, State
from hypothesis import example, given
from hypothesis import strategies as st

NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,12}", fullmatch=True)
MODEL = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,30}", fullmatch=True)


@given(st.lists(st.tuples(NAME, st.none() | MODEL), min_size=1, max_size=6))
@example([("openrouter", "anthropic/claude-sonnet-4.5"), ("local", None)])
def test_entries_read_back_from_text_and_arrays(pairs):
    entries = tuple(Entry(p, m) for p, m in pairs)
    texts = [e.key for e in entries]
    assert parse_entries(texts, "x") == entries
    assert parse_entries(", ".join(texts), "x") == entries
    assert parse_entries(json.dumps(texts), "x") == entries
    tables = [{"provider": p, **({"model": m} if m else {})} for p, m in pairs]
    assert parse_entries(tables, "x") == entries


@given(st.one_of(st.integers(), st.none(), st.lists(st.integers(), min_size=1),
                 st.just([]), st.just(""), st.just("[1, 2"), st.just(["/model"])))
def test_bad_entries_are_one_config_error(value):
    with pytest.raises(ConfigError) as err:
        parse_entries(value, "[fallback] chain")
    assert "\n" not in str(err.value) and "[fallback] chain" in str(err.value)


def test_options_are_checked_with_the_key_and_the_fix():
    with pytest.raises(ConfigError, match="'cooldown' must be a number"):
        load_groups({"fallback": {"chain": ["a"], "cooldown": "soon"}})
    with pytest.raises(ConfigError, match="did you mean 'auth'"):
        load_groups({"fallback": {"chain": ["a"], "also_on": ["auht"]}})
    with pytest.raises(ConfigError, match="did you mean 'cooldown'"):
        load_groups({"fallback": {"chain": ["a"], "cooldwn": 3}})
    with pytest.raises(ConfigError, match="strategy must be one of"):
        load_groups({"fallback": {"pools": {"p": {"entries": ["a"], "strategy": "random"}}}})
    groups = load_groups({"fallback": {"chain": "a/x,b", "cooldown": "4", "also_on": "auth",
                                       "pools": {"p": {"entries": ["a"], "recovery": 9}}}})
    assert groups["fallback"].options.cooldown == 4.0
    assert groups["fallback"].options.moves_on("AuthError")
    assert groups["p"].options.recovery == 9 and groups["p"].options.cooldown == 4.0
    assert group_names({"fallback": {"pools": {"p": {}, "q": {}}}}) == ["fallback", "p", "q"]


def test_cooldowns_grow_with_each_failure_in_a_row_up_to_the_cap():
    options = Options(cooldown=10, cooldown_factor=2, cooldown_max=60)
    assert [options.cooldown_for(n) for n in range(1, 6)] == [10, 20, 40, 60, 60]
    assert options.cooldown_for(1, retry_after=30) == 30  # the service's own wait, if longer
    assert not DEFAULT_OPTIONS.moves_on("AuthError")
    assert DEFAULT_OPTIONS.moves_on("RateLimitError")


def test_health_is_shared_through_the_file(tmp_path):
    now = [1000.0]
    first, second = (State(tmp_path / "state.json", lambda: now[0]) for _ in range(2))
    options = Options(cooldown=10, cooldown_factor=2)
    for _ in range(5):
        first.record_failure("a/x", "down", "ServerError", options.cooldown_for)
    health = second.health("a/x")
    assert (health.errors, health.failures, health.cooldown_until) == (5, 5, 1000 + 160)
    assert health.unhealthy(now[0] + 299, 5, 300) and not health.unhealthy(now[0] + 300, 5, 300)
    second.record_success("a/x", 0.2)
    second.record_success("a/x", 0.4)
    health = first.health("a/x")
    assert health.errors == 0 and health.cooling(now[0]) == 0
    assert health.response_ms == pytest.approx(0.3 * 400 + 0.7 * 200)
    assert [first.next_cursor("p", 3) for _ in range(4)] == [0, 1, 2, 0]
    assert (tmp_path / "state.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("content", ["{not json", "[]", '{"entries": 3}',
                                     '{"entries": {"a/x": {"errors": "many"}}}'])
def test_a_broken_state_file_starts_afresh(tmp_path, content):
    path = tmp_path / "state.json"
    path.write_text(content)
    state = State(path)
    assert state.health("a/x") == Health()
    state.record_failure("a/x", "down", "ServerError", lambda n: 1.0)
    assert State(path).health("a/x").errors == 1


def test_a_chain_uses_native_tools_only_when_every_entry_does(chatcli_home, monkeypatch):
    from chatcli import PluginHost, Settings, build_provider, find_provider
    from chatcli_fallback.runtime import RUNTIME

    monkeypatch.setattr(RUNTIME, "built", {})
    monkeypatch.setattr(RUNTIME, "host", None)
    monkeypatch.setattr(RUNTIME, "settings", None)
    monkeypatch.setenv("CHATCLI_PLUGINS", "fallback,openai,anthropic,local,print")
    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    spec = find_provider(host, "fallback")
    assert spec.capabilities.native_tools is False  # nothing configured yet: the safe side

    def chain(*entries: str, **tables) -> Settings:
        settings = Settings.model_validate({"provider": "fallback", "providers": tables,
                                            "fallback": {"chain": list(entries)}})
        host.settings = None
        host.configure(settings, chatcli_home)
        build_provider(spec, settings)
        return settings

    chain("anthropic/claude-x", "openai/gpt-x")
    assert spec.capabilities.native_tools is True
    assert spec.capabilities.prompt_caching is True  # anthropic caches; openai ignores hints
    assert spec.context_window("chain") == min(
        find_provider(host, "anthropic").context_window("claude-x") or 10**9,
        find_provider(host, "openai").context_window("gpt-x") or 10**9)
    chain("anthropic/claude-x", "local")
    assert spec.capabilities.native_tools is False  # the offline model reads the text protocol
    assert spec.context_window("chain") == find_provider(host, "local").context_window(
        find_provider(host, "local").default_model)
    chain("anthropic/claude-x", "openai/gpt-x", openai={"tool_calls": "text"})
    assert spec.capabilities.native_tools is False


def _fail_many(path: str, count: int) -> None:
    state = State(Path(path))
    for _ in range(count):
        state.record_failure("a/x", "down", "ServerError", lambda n: 1.0)


def test_processes_updating_the_state_at_once_lose_nothing(tmp_path):
    import multiprocessing

    path = tmp_path / "state.json"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_fail_many, args=(str(path), 40)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    assert State(path).health("a/x").failures == 120
