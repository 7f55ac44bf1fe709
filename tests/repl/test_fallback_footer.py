"""The footer after an answer a fallback chain handed on (chatcli-fallback): who answered, via
which chain, and which entries failed — in a real terminal (tmux)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chatcli_testing import Fault

from .terminal import Terminal

pytestmark = pytest.mark.terminal


def test_the_footer_names_who_answered_and_who_failed(
        start_chat: Callable[..., Terminal], anthropic_server, openai_server,
        chatcli_home) -> None:
    (chatcli_home / "config" / "config.toml").write_text(
        '[fallback]\nchain = ["anthropic/claude-test", "openai/gpt-test"]\n')
    anthropic_server.script(Fault(status=429, message="slow down"))
    openai_server.script("the second entry answers")
    term = start_chat("--provider", "fallback",
                      ANTHROPIC_API_KEY="sk-ant-footer-test-123456",
                      ANTHROPIC_BASE_URL=anthropic_server.url,
                      OPENAI_API_KEY="sk-footer-test-123456", OPENAI_BASE_URL=openai_server.url,
                      CHATCLI_PLUGINS="fallback,openai,anthropic,repl")
    term.type("hello")
    screen = term.wait_for("via fallback")
    assert "the second entry answers" in screen
    footer = next(line for line in screen.splitlines() if "via fallback" in line)
    assert "openai/gpt-test via fallback" in footer
    assert "anthropic/claude-test failed" in footer


def test_switch_to_the_chain_and_its_health_table(
        start_chat: Callable[..., Terminal], anthropic_server, openai_server,
        chatcli_home) -> None:
    (chatcli_home / "config" / "config.toml").write_text(
        '[fallback]\nchain = ["anthropic/claude-test", "openai/gpt-test"]\n')
    openai_server.script("plain openai", "the chain's second entry")
    anthropic_server.script(Fault(status=500, message="claude is down"))
    term = start_chat("--provider", "openai",
                      ANTHROPIC_API_KEY="sk-ant-footer-test-123456",
                      ANTHROPIC_BASE_URL=anthropic_server.url,
                      OPENAI_API_KEY="sk-footer-test-123456", OPENAI_BASE_URL=openai_server.url,
                      CHATCLI_PLUGINS="fallback,openai,anthropic,repl")
    term.type("one")
    term.wait_for("plain openai")
    term.type("/switch fallback")
    term.wait_for("now using fallback")
    term.type("two")
    screen = term.wait_for("via fallback")
    assert "the chain's second entry" in screen
    term.type("/providers")
    screen = term.wait_for("claude is down")
    row = next(line for line in screen.splitlines()
               if line.startswith("fallback") and "anthropic/claude-test" in line)
    assert "cooling down" in row
