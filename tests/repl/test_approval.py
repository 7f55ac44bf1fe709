"""Tool approvals, type-ahead, Shift+Tab and live tool output in the chat, in a real terminal.

The model is the OpenAI wire server; small plugins written by the tests stand in for the tools
and the permission policy: ``note`` (a write tool), ``asker`` (a policy that asks about every
call with a reason and the rule an "always" would save, and records the person's answers),
``modes`` (a ``/permissions`` command that cycles a mode) and ``slow`` (a tool printing lines
while it runs).
"""

from __future__ import annotations

import re
import subprocess
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Fault, Reply, ToolCall

from .note_plugin import note_tool_env
from .terminal import Terminal, wait_until

pytestmark = pytest.mark.terminal

ASKER = """
import json, os
from chatcli import Decision, Verdict, hookimpl

@hookimpl(tryfirst=True)
def authorize_tool_call(call, tool):
    if tool.name == "note":
        return Verdict(Decision.ASK, "the note file is outside src", "note(notes.txt)")

@hookimpl
def tool_call_decided(call, approval, verdict):
    with open(os.environ["APPROVALS_FILE"], "a") as out:
        out.write(json.dumps([approval.allow, approval.scope, approval.reason, verdict.rule])
                  + "\\n")
"""

MODES = """
from chatcli import SlashCommand, hookimpl

MODES = ["default", "accept-edits", "plan", "auto"]
state = {"mode": 0}

def permissions(app, argument):
    if argument == "cycle":
        state["mode"] = (state["mode"] + 1) % len(MODES)
    app.console.print(f"permission mode: {MODES[state['mode']]}", markup=False)

@hookimpl
def register_slash_commands(register):
    register(SlashCommand(name="permissions", help="permission mode", run=permissions,
                          subcommands=["cycle"]))
"""

SLOW = """
import time
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class _Args(BaseModel):
    lines: int

def _run(args, context):
    out = []
    for number in range(1, args.lines + 1):
        line = f"out-{number:02d} \\x1b[31mred\\x1b[0m"
        context.output(line)
        out.append(line)
        time.sleep(0.25)
    return "slow done\\n" + "\\n".join(out)

@hookimpl
def register_tools(register):
    register(Tool(name="slow", description="prints lines slowly", args_model=_Args,
                  risk=Risk.READ, run=_run))
"""


def plugin(folder: Path, name: str, body: str) -> None:
    """A plugin module ``NAME_plugin`` with an entry point ``NAME``, found on PYTHONPATH."""
    (folder / f"{name}_plugin.py").write_text(textwrap.dedent(body))
    info = folder / f"{name}_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")


def option(screen: str, label: str) -> str:
    """The number of the menu option whose text starts with ``label``."""
    options = [found.groups() for line in screen.splitlines()
               if (found := re.match(r"\s*[❯ ]?\s*(\d+)\. (.*?)\s*$", line))]
    for exact in (True, False):
        for number, text in reversed(options):
            if text == label if exact else text.startswith(label):
                return number
    raise AssertionError(f"no option {label!r} on screen:\n{screen}")


def answer(term: Terminal, title: str, label: str) -> str:
    """Wait for the menu ``title``, let the type-ahead guard pass, choose ``label``."""
    screen = term.wait_for(title)
    time.sleep(0.4)
    term.type(option(screen, label))
    return screen


def tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


def note(text: str, **extra: Any) -> Reply:
    return Reply(text=f"Noting {text}.", tool_calls=[ToolCall("note", {"text": text})], **extra)


@pytest.fixture
def chat(start_chat: Callable[..., Terminal], openai_server: Any, tmp_path: Path
         ) -> Callable[..., Terminal]:
    """Start the chat with the ``note`` tool and the given extra plugins only."""

    def start(*plugins: str, **env: str) -> Terminal:
        return start_chat("--provider", "openai", OPENAI_API_KEY="test",
                          OPENAI_BASE_URL=openai_server.url,
                          CHATCLI_PLUGINS=",".join(["openai", "repl", "note", *plugins]),
                          APPROVALS_FILE=str(tmp_path / "approvals.jsonl"),
                          **{**note_tool_env(tmp_path), **env})

    return start


def test_each_answer_of_the_approval_menu(chat: Callable[..., Terminal], openai_server: Any,
                                          tmp_path: Path) -> None:
    plugin(tmp_path, "asker", ASKER)
    openai_server.script(note("a"), Reply(text="answer a"), note("b"), Reply(text="answer b"),
                         note("c"), Reply(text="answer c"), note("d"), Reply(text="answer d"),
                         note("e"), Reply(text="answer e"))
    term = chat("asker")
    title = "Allow write tool note(text='{}')? — the note file is outside src"

    term.type("note a")
    screen = answer(term, title.format("a"), "yes, once")
    # the whole answer so far is printed above the question, and the rule is shown
    assert "Noting a." in screen.split("Allow write tool")[0]
    assert option(screen, "yes, for this session (note(notes.txt))") == "2"
    assert option(screen, "always: save the rule note(notes.txt)") == "3"
    assert option(screen, "no, and tell the model why") == "5"
    term.wait_for("answer a")

    term.type("note b")
    answer(term, title.format("b"), "yes, for this session")
    term.wait_for("answer b")

    term.type("note c")
    answer(term, title.format("c"), "always: save the rule note(notes.txt)")
    term.wait_for("answer c")

    term.type("note d")
    answer(term, title.format("d"), "no")
    term.wait_for("answer d")

    term.type("note e")
    answer(term, title.format("e"), "no, and tell the model why")
    term.wait_for("Why not? Type it in the input line")
    term.type("write it to the staging notes instead")
    term.wait_for("answer e")

    assert (tmp_path / "notes.txt").read_text() == "a\nb\nc\n"
    approvals = [line for line in (tmp_path / "approvals.jsonl").read_text().splitlines()]
    assert approvals == [
        '[true, "once", "", "note(notes.txt)"]',
        '[true, "session", "", "note(notes.txt)"]',
        '[true, "always", "", "note(notes.txt)"]',
        '[false, "once", "", "note(notes.txt)"]',
        '[false, "once", "write it to the staging notes instead", "note(notes.txt)"]',
    ]
    assert tool_results(openai_server.requests[-1]) == [
        "noted", "noted", "noted", "Error: denied by the user",
        "Error: denied by the user: write it to the staging notes instead"]
    # the trace names refused calls too
    screen = term.screen()
    assert '⚙ note(text="d")' in screen and "✗ denied by the user" in screen


def test_keys_typed_before_the_menu_do_not_answer_it(chat: Callable[..., Terminal],
                                                     openai_server: Any,
                                                     tmp_path: Path) -> None:
    # the answer streams slowly: the user starts typing the next message meanwhile
    slowly = Reply(text="Noting a, slowly, one letter at a time.", chunk_size=1, delay=0.1,
                   tool_calls=[ToolCall("note", {"text": "a"})])
    openai_server.script(slowly, Reply(text="answer a"), note("b"), Reply(text="answer b"))
    term = chat()
    term.type("note a")
    term.wait_for("Noting")
    subprocess.run(["tmux", "send-keys", "-t", term.name, "-l", "draft of my next message"],
                   check=True)
    screen = term.wait_for("Allow write tool note(text='a')?")
    # what was typed was put aside: Enter (after the guard) takes the selected option
    assert "› draft of my next message" not in screen.split("Allow write tool")[1]
    time.sleep(0.4)
    term.send("Enter")
    term.wait_for("answer a")
    assert (tmp_path / "notes.txt").read_text() == "a\n"
    # ... and the draft is back in the input line
    # (the input line is the last line starting with ›: the status line may come under it)
    term.wait_for(lambda s: [line.rstrip() for line in s.splitlines()
                             if line.startswith("›")][-1:] == ["› draft of my next message"])
    term.send("C-u")

    subprocess.run(["tmux", "send-keys", "-t", term.name, "-l", "note b"], check=True)
    term.send("Enter", pause=0)
    _wait_fast(term, "Allow write tool note(text='b')?")
    # keys arriving right after the menu appeared were typed ahead: they are ignored
    subprocess.run(["tmux", "send-keys", "-t", term.name, "3", "Enter"], check=True)
    time.sleep(1.0)
    screen = term.screen()
    assert "Allow write tool note(text='b')?" in screen
    assert "is not a choice" not in screen and "answer b" not in screen
    term.type("3")  # now it is an answer: no
    term.wait_for("answer b")
    assert tool_results(openai_server.requests[-1])[-1] == "Error: denied by the user"
    assert (tmp_path / "notes.txt").read_text() == "a\n"


def _wait_fast(term: Terminal, text: str, timeout: float = 15.0) -> None:
    """Poll the screen without pausing, so the next keys arrive moments after ``text``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = subprocess.run(["tmux", "capture-pane", "-p", "-t", term.name],
                               capture_output=True, text=True).stdout
        if text in shown:
            return
    raise AssertionError(f"{text!r} never appeared")


def test_allowing_a_risk_for_the_session_without_a_policy(chat: Callable[..., Terminal],
                                                          openai_server: Any,
                                                          tmp_path: Path) -> None:
    openai_server.script(note("a"), Reply(text="answer a"), note("b"), Reply(text="answer b"))
    term = chat()
    term.type("note a")
    screen = answer(term, "Allow write tool note(text='a')?",
                    "yes, and allow all write tools this session")
    assert "always" not in screen  # no policy: no rule to save
    term.wait_for("answer a")
    term.type("note b")
    screen = term.wait_for("answer b")
    assert "note(text='b')?" not in screen
    assert (tmp_path / "notes.txt").read_text() == "a\nb\n"


def test_shift_tab_cycles_the_permission_mode_at_once(chat: Callable[..., Terminal],
                                                      openai_server: Any,
                                                      tmp_path: Path) -> None:
    plugin(tmp_path, "modes", MODES)
    openai_server.script(Fault(stall=3, reply=Reply(text="the slow answer")))
    term = chat("modes")
    term.send("BTab")
    term.wait_for("permission mode: accept-edits")
    term.type("a question")
    term.wait_for("thinking…")
    term.send("BTab")  # while the answer is on its way: not queued behind it
    screen = term.wait_for("permission mode: plan")
    assert "the slow answer" not in screen
    term.wait_for("the slow answer")
    term.send("BTab")
    term.wait_for("permission mode: auto")


def test_shift_tab_does_nothing_without_a_permissions_command(
        chat: Callable[..., Terminal], openai_server: Any) -> None:
    term = chat()
    term.send("BTab", pause=1.0)
    term.type("/help")
    screen = term.wait_for("/clear")
    assert "permission" not in screen and "unknown command" not in screen


def test_live_output_of_a_running_tool_is_shown_dim_and_capped(
        chat: Callable[..., Terminal], openai_server: Any, tmp_path: Path) -> None:
    plugin(tmp_path, "slow", SLOW)
    openai_server.script(Reply(tool_calls=[ToolCall("slow", {"lines": 16})]),
                         Reply(text="all lines read"))
    term = chat("slow")
    term.type("run the slow thing")
    screen = term.wait_for("│ out-03")
    assert "│ out-01 red" in screen  # colours stripped: no escape sequences on screen
    screen = term.wait_for("│ out-16")
    # only the last lines stay on screen, with a count of the rest
    assert "│ out-07" in screen and "│ out-06" not in screen and "│ out-01" not in screen
    assert "│ … 6 earlier lines" in screen
    screen = term.wait_for("all lines read")
    assert "│ out-" not in screen  # the live area is gone once the tool finished
    assert re.search(r"✓ slow done \(16 more lines\) · \d+\.\ds · 16 lines of output", screen)
    # the model got the whole output
    (result,) = tool_results(openai_server.requests[-1])
    assert result.count("out-") == 16


def test_a_tool_call_in_the_trace_has_its_arguments_result_and_time(
        chat: Callable[..., Terminal], openai_server: Any, tmp_path: Path) -> None:
    plugin(tmp_path, "slow", SLOW)
    openai_server.script(Reply(tool_calls=[ToolCall("slow", {"lines": 2})]), Reply(text="ok"))
    term = chat("slow")
    term.type("go")
    screen = term.wait_for("ok")
    assert "⚙ slow(lines=2)" in screen
    assert re.search(r"✓ slow done \(2 more lines\) · 0\.\ds", screen)
    wait_until(lambda: "›" in term.screen())


def test_shift_tab_with_the_real_permission_policy(chat: Callable[..., Terminal]) -> None:
    term = chat("permissions")
    term.send("BTab")
    term.wait_for("permission mode: accept-edits")
    term.send("BTab")
    term.wait_for("permission mode: plan")
