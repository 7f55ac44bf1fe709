"""The chat (REPL) in a real terminal (tmux) answering through the fake q, plain and daemon."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from q_support import FakeQ, assert_no_orphans
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal

MODES = {"daemon": {}, "plain": {"CHATCLI_Q_DAEMON": "false"}}


@pytest.fixture
def start_chat(chatcli_home: Path, fake_q: FakeQ) -> Iterator[Callable[..., Terminal]]:
    if not have_tmux():
        pytest.skip("tmux is not installed: the chat tests drive a real terminal through tmux")
    terminals: list[Terminal] = []
    work = chatcli_home / "work"
    work.mkdir(exist_ok=True)

    def start(**env: str) -> Terminal:
        base = {"CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
                "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"], "TERM": "xterm-256color",
                "HOME": str(chatcli_home), "CHATCLI_MEMORY__EXTRACT": "false", **fake_q.env()}
        terminal = Terminal(f"{CHATCLI} --provider q", {**base, **env}, work)
        terminals.append(terminal)
        terminal.wait_for("›")
        return terminal

    yield start
    for terminal in terminals:
        terminal.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_conversation_in_the_chat(start_chat: Callable[..., Terminal], fake_q: FakeQ,
                                    mode: str) -> None:
    term = start_chat(**MODES[mode])
    term.type("hello Q ✨")
    screen = term.wait_for("I know 0 earlier questions.")
    assert "You said: hello Q ✨" in screen
    for furniture in ("Thinking", "Did you know", "/help all commands", "━━", "⠋", "chatting"):
        assert furniture not in screen
    term.type("and again")
    screen = term.wait_for("You said: and again")
    if mode == "daemon":  # one q chat holds the conversation
        term.wait_for("I know 1 earlier questions.")
        assert len(fake_q.starts()) == 1
    else:  # each answer is a q chat of its own, given the conversation as a transcript
        term.wait_for("I was given a transcript.")
        assert len(fake_q.starts()) == 2
    pids = fake_q.pids()
    term.send("C-d")
    term.wait_for("EXIT=0")
    assert_no_orphans(pids)


@pytest.mark.parametrize("mode", MODES)
def test_an_error_in_the_chat_is_one_line_and_the_chat_goes_on(
        start_chat: Callable[..., Terminal], fake_q: FakeQ, mode: str) -> None:
    term = start_chat(FAKE_Q_MODE="notloggedin", **MODES[mode])
    term.type("hi")
    screen = term.wait_for("run `q login`")
    assert "Traceback" not in screen
    term.type("/help")
    term.wait_for("/switch")


def test_ctrl_c_in_the_chat_stops_q(start_chat: Callable[..., Terminal], fake_q: FakeQ) -> None:
    term = start_chat(FAKE_Q_DELAY="0.3")
    term.type("a long one")
    term.wait_for("You said:")
    first = fake_q.pids()
    term.send("C-c")
    term.wait_for("interrupted")
    assert_no_orphans(first, wait=40)  # the answer's q is killed once the turn lets go
    term.type("next")
    term.wait_for("You said: next", timeout=40)
