"""Personas and command templates in the real chat, driven in a terminal (tmux) against the
OpenAI wire server: ``@security-specialist review this`` is answered under that persona's prompt
and headed by its icon and name (in its colour; plain under NO_COLOR), ``@`` completes persona
names beside files, a template expands into the request, and ``chatcli -p`` on a terminal heads
its answer too."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply
from personas_support import SECURITY_BODY_START, last_user, system_of, write
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal


@pytest.fixture
def run_in_terminal(home: Path, workspace: Path, openai_server: Any
                    ) -> Iterator[Callable[..., Terminal]]:
    """``run(ARGS, ready=TEXT, **env)``: chatcli in tmux, in the workspace, on the server."""
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    started: list[Terminal] = []

    def run(*args: str, ready: str | None = "›", **env: str) -> Terminal:
        base = {"CHATCLI_CONFIG_DIR": str(home / "config"), "CHATCLI_DATA_DIR": str(home / "data"),
                "CHATCLI_CACHE_DIR": str(home / "cache"), "HOME": str(home),
                "TERM": "xterm-256color", "COLORTERM": "truecolor",
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": openai_server.url,
                "CHATCLI_PLUGINS": "openai,repl,print,sessions,personas,personas-core"}
        inner = " ".join([f"cd {shlex.quote(str(workspace))} && exec", CHATCLI,
                          *(shlex.quote(a) for a in args), "--provider", "openai",
                          "--model", "m"])
        terminal = Terminal(f"sh -c {shlex.quote(inner)}", {**base, **env})
        started.append(terminal)
        if ready is not None:
            terminal.wait_for(ready, timeout=20)
        return terminal

    yield run
    for terminal in started:
        terminal.close()


def colours(terminal: Terminal) -> str:
    """The screen with its escape sequences (colours)."""
    return subprocess.run(["tmux", "capture-pane", "-p", "-e", "-J", "-S", "-500", "-t",
                           terminal.name], capture_output=True, text=True, check=True).stdout


def styles(line: str) -> set[str]:
    """The SGR codes set in ``line`` (``1`` bold, ``38`` a colour, ``0`` a reset…)."""
    return {code for sgr in re.findall(r"\x1b\[([0-9;]*)m", line) for code in sgr.split(";")}


def label_line(screen: str, label: str) -> str:
    return next(line for line in screen.splitlines() if label in line)


GOLD = "38;2;255;215;0"  # #FFD700, the Security Specialist's colour


def test_at_security_specialist_answers_under_its_prompt_headed_by_its_name(
        run_in_terminal, openai_server) -> None:
    openai_server.script(Reply(text="The login form is open to **SQL injection**.", delay=0.01),
                         Reply(text="Plain answer."))
    terminal = run_in_terminal()
    terminal.type("@security-specialist review this")
    screen = terminal.wait_for(lambda s: "SQL injection." in s and " in · " in s)
    request = openai_server.requests[0]
    assert SECURITY_BODY_START in system_of(request)
    assert last_user(request) == "@security-specialist review this"
    lines = screen.splitlines()
    heading = next(i for i, line in enumerate(lines) if "🛡 Security Specialist" in line)
    answer = next(i for i, line in enumerate(lines) if "The login form is open" in line)
    asked = next(i for i, line in enumerate(lines) if "› @security-specialist review" in line)
    assert asked < heading < answer
    assert lines[heading].strip() == "🛡 Security Specialist"
    assert GOLD in label_line(colours(terminal), "Security Specialist")

    terminal.type("and now?")  # the next message: chatcli itself again, no heading
    screen = terminal.wait_for("Plain answer.")
    assert screen.count("🛡 Security Specialist") == 1
    assert SECURITY_BODY_START not in system_of(openai_server.requests[1])


def test_under_no_color_the_heading_is_plain_text(run_in_terminal, openai_server) -> None:
    openai_server.script(Reply(text="Boilers first."))
    terminal = run_in_terminal(NO_COLOR="1")
    terminal.type("@kamaji how do I start?")
    terminal.wait_for("Boilers first.")
    line = label_line(colours(terminal), "Kamaji")
    assert "🔥 Kamaji" in line
    assert styles(line) <= {"0", "39", "49", ""}  # resets only: no colour, no bold


def test_at_completes_persona_names_beside_files(run_in_terminal, workspace) -> None:
    write(workspace, "security-notes.md", "notes\n")
    terminal = run_in_terminal()
    terminal.send("-l", "@sec")
    screen = terminal.wait_for(lambda s: "@security-specialist" in s and "security-notes.md" in s)
    assert "Reviews code and designs the way" in screen  # the persona's description beside it
    terminal.send("Tab")
    terminal.wait_for(lambda s: re.search(r"› @security-specialist\s*$", s, re.M) is not None)


def test_persona_command_and_agents_in_the_chat(run_in_terminal, openai_server) -> None:
    openai_server.script(Reply(text="Mind the pressure valve."))
    terminal = run_in_terminal()
    terminal.type("/agents")
    screen = terminal.wait_for("@NAME … sends one message")
    assert "@timbl" in screen and "🌐" in screen
    terminal.type("/persona kamaji")
    terminal.wait_for("now speaking as 🔥 Kamaji (@kamaji)")
    terminal.type("the build is slow")
    screen = terminal.wait_for("Mind the pressure valve.")
    assert "🔥 Kamaji" in screen.split("› the build is slow")[1]
    assert "You are Kamaji" in system_of(openai_server.requests[-1])


def test_a_command_template_expands_into_the_request(run_in_terminal, workspace,
                                                     openai_server) -> None:
    write(workspace, ".chatcli/commands/review.md",
          "---\ndescription: Review a file\nargument-hint: FILE\n---\n"
          "Review $1 for bugs. Arguments: $ARGUMENTS\n")
    write(workspace, "src/app.py", "print('hi')\n")
    openai_server.script(Reply(text="Reviewed."))
    terminal = run_in_terminal()
    terminal.type("/help")
    screen = terminal.wait_for("/review")
    assert "Review a file FILE (project)" in screen
    terminal.type('/review src/app.py "the whole thing"')
    terminal.wait_for("Reviewed.")
    assert last_user(openai_server.requests[-1]) == (
        "Review src/app.py for bugs. Arguments: src/app.py \"the whole thing\"")


def test_chatcli_p_on_a_terminal_heads_the_answer(run_in_terminal, openai_server) -> None:
    openai_server.script(Reply(text="Use stable URLs."))
    terminal = run_in_terminal("-p", "@timbl how should I name these pages?", ready="EXIT=")
    screen = terminal.wait_for("EXIT=0")
    lines = [line for line in screen.splitlines() if line.strip()]
    heading = lines.index(next(line for line in lines if "🌐 TimBL" in line))
    assert "Use stable URLs." in lines[heading + 1]
    assert "You are TimBL" in system_of(openai_server.requests[-1])
