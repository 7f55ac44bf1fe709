"""``chatcli -c`` in the chat, driven in a real terminal (tmux): after ``kill -9`` the question
that was not answered yet waits for /retry, and an interrupted last answer is marked as such."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal, wait_until

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def test_continue_in_the_repl_after_kill_9(start_chat: Callable[..., Terminal],
                                           openai_server) -> None:
    openai_server.script(Reply(text="The **first** answer."),
                         Reply(text="slow answer " * 200, delay=0.05, chunk_size=6),
                         Reply(text="picked up again"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("first question")
    term.wait_for("The first answer.")
    term.type("second question")
    term.wait_for("slow answer slow answer")
    os.kill(term.program_pid(), signal.SIGKILL)
    term.wait_for("EXIT=137")

    again = start_chat("--provider", "openai", "-c", **openai_env(openai_server))
    screen = again.wait_for("not answered yet")
    assert "resumed 3 messages" in screen and "› second question" in screen
    again.type("/retry")
    again.wait_for("picked up again")
    wait_until(lambda: len(openai_server.requests) == 3)
    sent = [(m["role"], m["content"]) for m in openai_server.requests[2].json["messages"][1:]]
    assert sent == [("user", "first question"), ("assistant", "The **first** answer."),
                    ("user", "second question")]


def test_continue_shows_that_the_last_answer_was_interrupted(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="word " * 400, delay=0.05, chunk_size=5))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("tell me a long story")
    term.wait_for("word word word")
    term.send("C-c")
    term.wait_for("interrupted — the partial answer is kept")
    term.send("C-d")
    term.wait_for("EXIT=0")

    again = start_chat("--provider", "openai", "-c", **openai_env(openai_server))
    screen = again.wait_for("resumed 2 messages")
    screen = again.wait_for("this answer was interrupted — /retry answers again")
    assert screen.index("› tell me a long story") < screen.index("this answer was interrupted")
