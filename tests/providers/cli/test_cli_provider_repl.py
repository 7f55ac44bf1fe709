"""Claude Code and Codex in the interactive chat, driven in a real terminal (tmux)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest
from claude_codex_fakes import all_gone, claude_answer, claude_init, codex_answer
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal

SESSION = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


@pytest.fixture
def start_chat(fakes) -> Iterator[Callable[..., Terminal]]:
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    terminals: list[Terminal] = []

    def start(*args: str) -> Terminal:
        env = {key: os.environ[key] for key in (
            "CHATCLI_CONFIG_DIR", "CHATCLI_DATA_DIR", "CHATCLI_CACHE_DIR", "PATH",
            "FAKE_CLI_STATE") if key in os.environ}
        env.update(TERM="xterm-256color", HOME=os.environ["CHATCLI_DATA_DIR"],
                   CHATCLI_MEMORY__EXTRACT="false")
        terminal = Terminal(" ".join([CHATCLI, *args]), env)
        terminals.append(terminal)
        terminal.wait_for("›")
        return terminal

    yield start
    for terminal in terminals:
        terminal.close()


def test_claude_code_in_the_chat_resumes_its_session_on_the_next_message(fakes,
                                                                         start_chat) -> None:
    fakes.script("claude", {"lines": claude_answer("The first **answer**.", SESSION)},
                 {"lines": claude_answer("The second answer.", SESSION)})
    term = start_chat("--provider", "claude-code")
    term.type("first question")
    term.wait_for("The first answer.")  # rendered as markdown: no asterisks
    term.type("second question")
    term.wait_for("The second answer.")
    first, second = fakes.calls("claude")
    assert first["stdin"] == "first question"
    assert second["argv"][second["argv"].index("--resume") + 1] == SESSION
    assert second["stdin"] == "second question"


def test_codex_in_the_chat(fakes, start_chat) -> None:
    fakes.script("codex", {"lines": codex_answer("Codex answers in the chat.")})
    term = start_chat("--provider", "codex")
    term.type("hello codex")
    term.wait_for("Codex answers in the chat.")
    assert fakes.calls("codex")[0]["stdin"] == "hello codex"


def test_ctrl_c_while_claude_code_works_kills_it_and_the_chat_goes_on(fakes,
                                                                      start_chat) -> None:
    # Claude Code runs a long tool (the child) and prints nothing: Ctrl+C must stop the
    # whole process group at once, not at the timeout, and the chat must stay usable.
    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True},
                 {"lines": claude_answer("After the interruption.", "s-2")})
    term = start_chat("--provider", "claude-code")
    term.type("run the slow tests")
    term.wait_for(lambda _: bool(fakes.calls("claude")))
    term.send("C-c")
    term.wait_for("stopped")
    assert all_gone(fakes.pids("claude"))
    term.type("and now?")
    term.wait_for("After the interruption.")


def test_a_failure_in_the_chat_is_one_line_and_the_chat_goes_on(fakes, start_chat) -> None:
    fakes.script("codex",
                 {"lines": [{"type": "thread.started", "thread_id": "t"},
                            {"type": "turn.failed", "error": {
                                "message": "unexpected status 401 Unauthorized"}}],
                  "exit": 1},
                 {"lines": codex_answer("Logged in now.")})
    term = start_chat("--provider", "codex")
    term.type("hi")
    screen = term.wait_for("codex login")
    assert "Codex failed: unexpected status 401 Unauthorized" in screen
    assert "Traceback" not in screen
    term.type("hi again")
    term.wait_for("Logged in now.")
