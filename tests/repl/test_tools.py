"""Tool calls in the chat, driven in a real terminal (tmux): the approval menu above the input
line — deny, allow once, allow a whole risk class for the session."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Fault, Reply, ToolCall

from .note_plugin import note_tool_env
from .terminal import Terminal, wait_until
from .test_approval import answer

pytestmark = pytest.mark.terminal

SPINNER = re.compile(r"thinking… (\d+\.\d)s")


def tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


def test_the_approval_menu_denies_allows_once_and_allows_for_the_session(
        start_chat: Callable[..., Terminal], openai_server: Any, tmp_path: Path) -> None:
    def note(text: str) -> Reply:
        return Reply(text=f"Noting {text}.", tool_calls=[ToolCall("note", {"text": text})])

    openai_server.script(note("a"), Reply(text="answer one"),
                         note("b"), Fault(stall=3, reply=Reply(text="answer two")),
                         note("c"), Reply(text="answer three"), note("d"),
                         Reply(text="answer four"))
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, **note_tool_env(tmp_path))
    notes = tmp_path / "notes.txt"

    term.type("note a")
    screen = answer(term, "Allow write tool note(text='a')?", "no")
    # the chat waits for the user, not for the model: no spinner while the menu is open
    assert "thinking…" not in screen.split("Noting a.")[-1]
    term.wait_for("answer one")
    assert tool_results(openai_server.requests[1]) == ["Error: denied by the user"]
    assert not notes.exists()

    term.type("note b")
    term.wait_for("Allow write tool note(text='b')?")
    time.sleep(0.3)  # keys in the menu's first 250 ms are taken for type-ahead and ignored
    asked = time.monotonic()
    time.sleep(1)  # the user thinks it over
    term.send("Enter", pause=0)  # the first option: allow once
    at_menu = time.monotonic() - asked
    # the model is asked again (and is slow): the spinner counts from the answer, not from
    # before the menu
    screen = term.wait_for(lambda s: SPINNER.search(s.split("Noting b.")[-1]) is not None)
    shown = float(SPINNER.findall(screen.split("Noting b.")[-1])[-1])
    assert shown < at_menu
    term.wait_for("answer two")
    assert notes.read_text() == "b\n"

    term.type("note c")
    term.wait_for("Allow write tool note(text='c')?")
    time.sleep(0.3)
    term.send("Down")
    term.send("Enter")  # allow all write tools this session
    term.wait_for("answer three")

    term.type("note d")
    screen = term.wait_for("answer four")
    assert "note(text='d')" not in screen  # not asked again
    wait_until(lambda: notes.read_text() == "b\nc\nd\n")
    assert tool_results(openai_server.requests[-1]) == [
        "Error: denied by the user", "noted", "noted", "noted"]
