"""``/cost`` where people run it: from the shell on a resumed session (``chatcli -c -p
"/cost"``: the totals come from the stored messages, so every run counts) and in the chat."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from chatcli_testing import Reply
from cost_support import ANTHROPIC_KEY, CHATCLI, Terminal, process_env, row, run_chatcli

CONFIG = """\
[cost]
budget = 1.0

[cost.prices."anthropic/claude-test"]
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75
"""


@pytest.fixture
def prices(home: Path) -> None:
    """The config of ``home`` (tests/conftest.py) sets a budget and the test model's prices."""
    (home / "config" / "config.toml").write_text(CONFIG)


def anthropic_env(server) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": server.url,
            "CHATCLI_PLUGINS": "anthropic,sessions,cost,print"}


@pytest.mark.usefixtures("prices")
def test_cost_after_continue_counts_every_run_of_the_session(home, anthropic_server):
    pytest.importorskip("chatcli_sessions")
    anthropic_server.script(
        Reply(text="first", usage={"input_tokens": 1000, "output_tokens": 100,
                                   "cache_write_tokens": 4000}),
        Reply(text="second", usage={"input_tokens": 500, "output_tokens": 200,
                                    "cache_read_tokens": 4000}))
    env = anthropic_env(anthropic_server)
    for args in (["-p", "q1", "--model", "claude-test"], ["-c", "-p", "q2"]):
        done = run_chatcli(home, *args, **env)
        assert done.returncode == 0, done.stderr
    shown = run_chatcli(home, "-c", "-p", "/cost", **env)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    # calls, input (cache included), cache read, cache write, output, USD:
    # (1,500 × 3 + 4,000 × 0.3 + 4,000 × 3.75 + 300 × 15) / 1e6 = $0.0252
    assert row(lines, "anthropic/claude-test") == [
        "2", "9,500", "4,000", "4,000", "300", "$0.0252"]
    assert "budget: $0.0252 of $1.00 (3%)" in lines
    assert lines[-1].startswith("cache TTL: 5m (the short one")
    assert len(anthropic_server.requests) == 2  # /cost calls no model
    # a new session starts from nothing
    fresh = run_chatcli(home, "-p", "/cost", **env)
    assert fresh.stdout.splitlines()[0] == "no model calls in this session yet"


@pytest.mark.terminal
@pytest.mark.usefixtures("prices")
def test_cost_in_the_chat(home, anthropic_server):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the chat is driven in a real terminal")
    anthropic_server.script(Reply(text="Hello there.", usage={
        "input_tokens": 1000, "output_tokens": 10, "cache_write_tokens": 2000}))
    env = process_env(home, TERM="xterm-256color", HOME=str(home),
                      CHATCLI_PLUGINS="anthropic,repl,cost", **{
                          k: v for k, v in anthropic_env(anthropic_server).items()
                          if k != "CHATCLI_PLUGINS"})
    (home / "work").mkdir(exist_ok=True)
    terminal = Terminal(f"{CHATCLI} --model claude-test", env, home / "work")
    try:
        terminal.wait_for("›")
        terminal.type("hi")
        terminal.wait_for("Hello there.")
        terminal.type("/cost")
        screen = terminal.wait_for("cache TTL:")
    finally:
        terminal.close()
    lines = screen.splitlines()
    # (1,000 × 3 + 2,000 × 3.75 + 10 × 15) / 1e6
    assert row(lines, "anthropic/claude-test") == ["1", "3,000", "0", "2,000", "10", "$0.0106"]
    assert any(line.startswith("budget: $0.0106 of $1.00 (1%)") for line in lines)


def test_the_entry_module_is_light_and_registers_its_hooks():
    import json
    import subprocess
    import sys

    code = ("import json, sys, chatcli_context.cost.plugin as p; "
            "print(json.dumps([sorted(m for m in sys.modules if m.startswith(('pydantic', "
            "'rich', 'chatcli_context.cost.'))), sorted(n for n in dir(p) "
            "if hasattr(getattr(p, n), 'chatcli_impl'))]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == [["chatcli_context.cost.plugin"], [
        "after_response", "before_request", "configure", "register_setting_rules",
        "register_slash_commands", "session_start", "status_items"]]
