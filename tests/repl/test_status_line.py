"""The status line under the input line — model, permission mode, context use, spend — in a
real terminal (tmux): the REPL declares ``status_items`` and chatcli-agent (the mode),
chatcli-context (context use) and its cost plugin (spend) fill it, none importing another."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal

pytestmark = pytest.mark.terminal

PLUGINS = "openai,repl,permissions,context,cost"


def status(screen: str) -> str:
    """The status line: the last line that names the model."""
    lines = [line for line in screen.splitlines() if line.startswith("openai/")]
    return lines[-1].strip() if lines else ""


def test_the_status_line_shows_model_mode_context_and_spend(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    # gpt-4o: a 128,000-token window, $2.50 / $10 per million input / output tokens
    openai_server.script(Reply(text="first answer",
                               usage={"input_tokens": 12_000, "output_tokens": 800}),
                         Reply(text="second answer",
                               usage={"input_tokens": 25_000, "output_tokens": 600}))
    term = start_chat("--provider", "openai", "--model", "gpt-4o", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_PLUGINS=PLUGINS)
    screen = term.wait_for(lambda s: "default mode" in status(s))
    assert status(screen) == "openai/gpt-4o · default mode"  # nothing spent, no count yet

    term.type("hello")
    screen = term.wait_for(lambda s: "$" in status(s))
    # 12,800 of 128,000 tokens; 12,000 × 2.5 + 800 × 10 per million = $0.038
    assert status(screen) == "openai/gpt-4o · default mode · ctx 10% · $0.0380"

    term.send("BTab")  # Shift+Tab: the next permission mode, shown at once
    screen = term.wait_for(lambda s: "accept-edits mode" in status(s))

    term.type("/switch openai/gpt-4o-mini")
    term.wait_for(lambda s: status(s).startswith("openai/gpt-4o-mini"))
    term.type("again")
    screen = term.wait_for(lambda s: "second answer" in s and "ctx 20%" in status(s))
    # 25,600 of 128,000; $0.038 + 25,000 × 0.15 + 600 × 0.6 per million = $0.0421…
    assert status(screen) == ("openai/gpt-4o-mini · accept-edits mode · ctx 20% · $0.0421")


def test_without_the_plugins_the_status_line_names_the_model(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    term = start_chat("--provider", "openai", "--model", "gpt-4o", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_PLUGINS="openai,repl")
    screen = term.wait_for(lambda s: status(s) != "")
    assert status(screen) == "openai/gpt-4o"
