"""``/cost``'s numbers: tokens per provider and model with one meaning of "input" across
providers, money from the price table (built-in, overridden by the config), unknown prices, and
a wrong ``[cost]`` table reported once — through real sessions against the wire servers."""

from __future__ import annotations

import pytest
from chatcli import Settings, Usage
from chatcli_context.cost.prices import BUILTIN_PRICES, Price, PriceTable, money
from chatcli_context.cost.settings import read_config
from chatcli_testing import Reply
from cost_support import ask, cost_lines, make_run, open_session, row, settings


def test_openai_and_anthropic_report_the_same_conversation_with_one_meaning(
        anthropic_server, openai_server, chatcli_home, monkeypatch, tmp_path):
    # the same prompt of 1,500 tokens, 1,000 of them read from the cache, 50 out. On the wire,
    # Anthropic counts the 500 fresh tokens apart from the cache; OpenAI counts them all
    anthropic_server.script(Reply(text="a", usage={"input_tokens": 500, "output_tokens": 50,
                                                   "cache_read_tokens": 1000}))
    openai_server.script(Reply(text="o", usage={"input_tokens": 1500, "output_tokens": 50,
                                                "cache_read_tokens": 1000}))
    run = make_run(monkeypatch, anthropic=anthropic_server, openai=openai_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        ask(session, "q1")
        session.switch("openai", "gpt-test")
        ask(session, "q2")
        lines = cost_lines(run, session)
    a, o = row(lines, "anthropic/claude-test"), row(lines, "openai/gpt-test")
    # calls, input, cache read, cache write, output, USD
    assert a[:5] == o[:5] == ["1", "1,500", "1,000", "0", "50"]
    # (500 × 3 + 1,000 × 0.3 + 50 × 15) / 1e6, for both
    assert a[5] == o[5] == "$0.0026"
    assert row(lines, "total") == ["2", "3,000", "2,000", "0", "100", "$0.0051"]
    assert any(line.startswith("input counts every prompt token") for line in lines)


def test_money_counts_fresh_input_cache_reads_writes_and_output_at_their_prices(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(
        Reply(text="one", usage={"input_tokens": 1000, "output_tokens": 100,
                                 "cache_write_tokens": 4000}),
        Reply(text="two", usage={"input_tokens": 200, "output_tokens": 300,
                                 "cache_read_tokens": 4000, "cache_write_tokens": 1100}))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        ask(session, "q1")
        ask(session, "q2")
        lines = cost_lines(run, session)
        spent = run.cost.ledger(session.conversation).money
    # fresh 1,200 × 3 + reads 4,000 × 0.3 + writes 5,100 × 3.75 + output 400 × 15
    assert spent == pytest.approx((1200 * 3 + 4000 * 0.3 + 5100 * 3.75 + 400 * 15) / 1e6)
    assert row(lines, "anthropic/claude-test") == [
        "2", "10,300", "4,000", "5,100", "400", "$0.0299"]
    assert "budget: none ([cost] budget = 5.0 sets one, in USD)" in lines


def test_built_in_prices_apply_and_an_unknown_model_says_how_to_price_it(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(
        Reply(text="a", model="claude-sonnet-4-5-20250929",
              usage={"input_tokens": 1_000_000, "output_tokens": 0}),
        Reply(text="b", usage={"input_tokens": 10, "output_tokens": 1}))
    run = make_run(monkeypatch, anthropic=anthropic_server)
    plain = Settings(provider="anthropic", model="claude-sonnet-4-5")
    with open_session(run, plain, tmp_path) as session:
        ask(session, "q1")
        session.switch(model="mystery-model")
        ask(session, "q2")
        lines = cost_lines(run, session)
    assert row(lines, "anthropic/claude-sonnet-4-5-20250929")[-1] == "$3.00"
    assert row(lines, "anthropic/mystery-model")[-1] == "?"
    assert row(lines, "total")[-3:] == ["$3.00", "+", "?"]
    assert ('no price known for anthropic/mystery-model: set '
            '[cost.prices."anthropic/mystery-model"] input = …, output = … '
            '(USD per million tokens)') in lines
    assert any(line.startswith("prices: built-in list prices, approximate") for line in lines)


def test_the_config_overrides_a_built_in_price_and_patterns_pick_the_most_specific():
    table = PriceTable({"anthropic/claude-*": Price.of(1.0, 2.0)})
    assert table.price("anthropic", "claude-sonnet-5-5") == (Price.of(1.0, 2.0), "config")
    assert table.price("openai", "gpt-5.4-mini") == (BUILTIN_PRICES["openai/gpt-5*-mini*"],
                                                     "built-in")
    assert PriceTable().price("openai", "gpt-5.5")[0] == BUILTIN_PRICES["openai/gpt-5*"]
    assert PriceTable().price("anthropic", "claude-opus-4-20250514")[0].input == 15.0
    assert PriceTable().price("anthropic", "claude-opus-4-5-20251101")[0].input == 5.0
    assert PriceTable().price("ollama", "llama3.2")[0] == Price(0, 0, 0, 0, 0)
    assert PriceTable().price("openrouter", "x/y") == (None, "unknown")
    # what an entry leaves out follows from its input price (Anthropic's multipliers)
    assert Price.of(3.0, 15.0) == Price(3.0, 15.0, 0.3, 3.75, 6.0)


def test_cache_writes_kept_an_hour_cost_the_hour_price():
    usage = Usage(input_tokens=10_000, output_tokens=0, cache_write_tokens=10_000)
    price = Price.of(3.0, 15.0)
    assert money(usage, price) == pytest.approx(0.0375)
    assert money(usage, price, "5m") == pytest.approx(0.0375)
    assert money(usage, price, "1h") == pytest.approx(0.06)


def test_a_wrong_cost_table_is_reported_once_and_left_out(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    run = make_run(monkeypatch, anthropic=anthropic_server)
    wrong = Settings(provider="anthropic", model="claude-test", cost={  # type: ignore[call-arg]
        "budget": -1, "cache_ttl": "2h", "colour": "red",
        "prices": {"anthropic/claude-test": {"input": "three", "output": 15},
                   "anthropic/other": {"input": 1.0}}})
    config = read_config(wrong, environ={})
    assert config.budget is None and config.cache_ttl is None
    assert config.prices.configured == {}
    assert len(config.problems) == 5
    with open_session(run, wrong, tmp_path) as session:
        ask(session, "q")
        cost_lines(run, session)
    reported = [w for w in run.warnings if w.startswith("cost: ")]
    assert len(reported) == 5 and len(set(reported)) == 5
    assert "cost: [cost] budget = -1 must be a positive number of USD; ignored" in reported
    assert any("'2h' is not a cache TTL" in w for w in reported)


def test_totals_come_from_the_log_rewound_branches_included(
        anthropic_server, chatcli_home, monkeypatch, tmp_path):
    anthropic_server.script(*[Reply(text=f"a{i}", usage={"input_tokens": 100,
                                                         "output_tokens": 10})
                              for i in range(3)])
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        ask(session, "q1")
        checkpoint = session.conversation.checkpoints[-1]
        ask(session, "q2")
        session.conversation.rewind(checkpoint.id)  # the second answer leaves the path
        ask(session, "q2 again")
        assert len(session.conversation.messages()) == 2
        lines = cost_lines(run, session)
    assert row(lines, "anthropic/claude-test")[:5] == ["3", "300", "0", "0", "30"]


def test_no_calls_yet(anthropic_server, chatcli_home, monkeypatch, tmp_path):
    run = make_run(monkeypatch, anthropic=anthropic_server)
    with open_session(run, settings("anthropic", "claude-test", budget=2), tmp_path) as session:
        lines = cost_lines(run, session)
    assert lines[0] == "no model calls in this session yet"
    assert "budget: $0.00 of $2.00 (0%)" in lines
    assert lines[-1].startswith("cache TTL: 5m")
