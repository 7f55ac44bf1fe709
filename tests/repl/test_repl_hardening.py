"""Regressions from the hardening audit of the REPL, driven in a real terminal (tmux)."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import Fault, Reply, ToolCall

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


def test_a_message_starting_with_a_path_is_sent_not_taken_for_a_command(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.script(Reply(text="a typo in line 12"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    trace = "/home/me/app.py:12: TypeError: unsupported operand\nwhy does this fail?"
    term.paste(trace)
    term.send("Enter")
    screen = term.wait_for("a typo in line 12")
    assert "unknown command" not in screen
    assert sent_messages(openai_server)[-1] == ("user", trace)
    term.type("/hepl")  # a mistyped command is still a command
    term.wait_for("unknown command /hepl — did you mean /help?")


#: A plugin with one write tool (it needs approval) that notes each run in a file.
NOTE_TOOL = """
import os
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class _Args(BaseModel):
    text: str

def _run(args, context):
    with open(os.environ["NOTE_FILE"], "a") as out:
        out.write(args.text + "\\n")
    return "noted"

@hookimpl
def register_tools(register):
    register(Tool(name="note", description="write a note", args_model=_Args, risk=Risk.WRITE,
                  run=_run))
"""


def note_tool_env(folder: Path) -> dict[str, str]:
    """Environment that makes the ``note`` tool plugin discoverable (an entry point on
    PYTHONPATH) and says where it writes."""
    (folder / "note_tool.py").write_text(textwrap.dedent(NOTE_TOOL))
    info = folder / "note_tool-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: note-tool\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\nnote = note_tool\n")
    return {"PYTHONPATH": str(folder), "NOTE_FILE": str(folder / "notes.txt")}


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


def test_plain_answers_reach_the_scrollback_whole(start_chat: Callable[..., Terminal],
                                                  openai_server, chatcli_home: Path) -> None:
    # markdown = false: text streamed in small pieces used to be written above the prompt a
    # piece at a time, and each redraw of the prompt overwrote the start of the line.
    (chatcli_home / "config" / "config.toml").write_text("markdown = false\n")
    answer = "".join(f"line {i}: the {i}th line of a plain answer\n" for i in range(12))
    openai_server.script(Reply(text=answer + "the end", chunk_size=3, delay=0.01))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type("plain please")
    screen = term.wait_for(lambda s: "the end" in s and "openai/" in s.split("the end")[-1])
    shown = screen.split("› plain please\n", 1)[1].split("the end")[0]
    assert [line.rstrip() for line in shown.splitlines()] == answer.splitlines()
