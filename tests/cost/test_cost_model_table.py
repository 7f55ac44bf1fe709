"""/cost prices models from the model table (``[models."provider/model"] input/output…``, glob
patterns too) where ``[cost.prices]`` says nothing; ``[cost.prices]`` still wins where both
price a model; a half-priced entry is named as a problem."""

from __future__ import annotations

import pytest
from chatcli import Settings, Usage
from chatcli_context.cost.prices import money
from chatcli_context.cost.settings import read_config
from chatcli_testing import Reply
from cost_support import OPENAI_KEY, row, run_chatcli

CONFIG = """\
[models."openai/gpt-test*"]
context_window = 50000
input = 2.0
output = 10.0
cache_read = 0.5
"""


def test_cost_uses_the_model_tables_prices_through_the_real_cli(tmp_path, openai_server):
    pytest.importorskip("chatcli_sessions")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(CONFIG)
    openai_server.script(Reply(text="priced", usage={
        "input_tokens": 1000, "output_tokens": 100, "cache_read_tokens": 400}))
    env = {"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": openai_server.url,
           "CHATCLI_PLUGINS": "openai,sessions,cost,print"}
    done = run_chatcli(tmp_path, "-p", "q1", "--provider", "openai", "--model", "gpt-test-2",
                       **env)
    assert done.returncode == 0, done.stderr
    shown = run_chatcli(tmp_path, "-c", "-p", "/cost", **env)
    assert shown.returncode == 0, shown.stderr
    # (600 fresh × 2 + 400 read × 0.5 + 100 × 10) / 1e6 = $0.0024
    assert row(shown.stdout.splitlines(), "openai/gpt-test-2")[-1] == "$0.0024"
    assert "no price known" not in shown.stdout


def test_cost_prices_win_over_the_model_table_and_bare_names_match():
    settings = Settings(
        models={"gpt-test*": {"input": 2.0, "output": 10.0},
                "anthropic/claude-x": {"input": 1.0, "output": 5.0}},
        cost={"prices": {"anthropic/claude-x": {"input": 3.0, "output": 15.0}}})  # type: ignore[call-arg]
    table = read_config(settings).prices
    price, source = table.price("openai", "gpt-test-9")
    assert (price.input, price.output, source) == (2.0, 10.0, "config")
    assert price.cache_read == pytest.approx(0.2)  # 0.1× input when left out
    price, _ = table.price("anthropic", "claude-x")
    assert (price.input, price.output) == (3.0, 15.0)
    usage = Usage(input_tokens=1_000_000, output_tokens=0)
    assert money(usage, table.price("openai", "gpt-test")[0]) == pytest.approx(2.0)


def test_without_an_entry_the_built_in_prices_stand():
    table = read_config(Settings(models={"openai/other": {"input": 9.0, "output": 9.0}})).prices
    assert table.price("openai", "gpt-5.4-mini")[1] == "built-in"


def test_an_entry_with_only_one_price_is_a_problem_and_prices_nothing():
    config = read_config(Settings(models={"openai/gpt-test": {"input": 2.0,
                                                              "context_window": 9000}}))
    assert any('[models."openai/gpt-test"] needs both input and output' in p
               for p in config.problems)
    assert config.prices.price("openai", "gpt-test") == (None, "unknown")
