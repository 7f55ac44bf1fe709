"""Ctrl+C while the chat waits, driven in a real terminal (tmux): before the first token of an
answer, between retries, and at a tool approval — the chat is usable again at once, and says
what was kept."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import Fault, Reply, ToolCall

from .note_plugin import note_tool_env
from .terminal import Terminal

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def sent_messages(server: object) -> list[tuple[str, str]]:
    """(role, content) of the last request, without the system prompt."""
    messages = server.requests[-1].json["messages"]  # type: ignore[attr-defined]
    return [(m["role"], m.get("content") or "") for m in messages if m["role"] != "system"]


def test_ctrl_c_stops_an_answer_before_its_first_token(start_chat: Callable[..., Terminal],
                                                       openai_server) -> None:
    # The provider is silent (a slow model, a stalled service): Ctrl+C must not wait for the
    # provider's timeout before the chat is usable again.
    # Nothing had arrived, so nothing was kept: the chat says so instead of claiming a partial
    # answer, and /retry asks the same question again.
    openai_server.script(Fault(stall=30), Reply(text="second answer"), Reply(text="third"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("first question")
    term.wait_for("thinking…")
    pressed = time.monotonic()
    term.send("C-c")
    screen = term.wait_for("⏹ stopped before any answer arrived — /retry asks again", timeout=5)
    assert time.monotonic() - pressed < 5
    assert "partial answer" not in screen
    term.type("/retry")
    term.wait_for("second answer", timeout=5)
    assert sent_messages(openai_server) == [("user", "first question")]
    term.type("next question")
    term.wait_for("third", timeout=5)
    assert sent_messages(openai_server)[-1] == ("user", "next question")


def test_ctrl_c_stops_the_wait_between_retries(start_chat: Callable[..., Terminal],
                                               openai_server) -> None:
    openai_server.script(Fault(status=429, retry_after=20), Reply(text="retried answer"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("a question")
    term.wait_for("retrying in 20.0s")
    term.send("C-c")
    term.wait_for("⏹ stopped before any answer arrived", timeout=5)
    term.type("/retry")
    term.wait_for("retried answer", timeout=5)


def test_ctrl_c_at_a_tool_approval_denies_it_and_stops_the_answer(
        start_chat: Callable[..., Terminal], openai_server, tmp_path: Path) -> None:
    openai_server.script(
        Reply(text="I will note it.", tool_calls=[ToolCall("note", {"text": "x"})]),
        Reply(text="the model went on"),
    )
    term = start_chat("--provider", "openai", **openai_env(openai_server),
                      **note_tool_env(tmp_path))
    term.type("note x")
    term.wait_for("Allow write tool note")
    term.send("C-c")
    screen = term.wait_for("⏹ interrupted")
    assert "the model went on" not in screen
    assert len(openai_server.requests) == 1
    assert not (tmp_path / "notes.txt").exists()
