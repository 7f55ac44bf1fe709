"""Diffs in the chat, in a real terminal (tmux): the approval of an edit shows the coloured diff it
would apply (folded past a screenful, the rest one choice away), a long command is shown whole,
the result line gives ``+N −M``, and ``/diff`` / ``/diff last`` open what the session changed.

The model is the OpenAI wire server; the tools are the real coder tools under the real
permission policy, in a git repository of the test's own.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal

MINUS = "\u2212"
GREEN, RED = "\x1b[32m", "\x1b[31m"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=repo,
                   check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "start")
    return root


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def chat(repo: Path, server: OpenAIServer, chatcli_home: Path) -> Iterator[Terminal]:
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    env = {
        "CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
        "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"],
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(chatcli_home),
        "CHATCLI_MEMORY__EXTRACT": "false",
        "CHATCLI_PLUGINS": "openai,sessions,checkpoints,coder,agent,permissions,repl",
        "OPENAI_API_KEY": "test",
        "OPENAI_BASE_URL": server.url,
    }
    term = Terminal(f"{CHATCLI} --provider openai --model m", env, cwd=repo)
    try:
        term.wait_for("›", timeout=20)
        yield term
    finally:
        term.close()


def coloured(term: Terminal) -> str:
    """The screen with its colours (escape sequences kept)."""
    return subprocess.run(["tmux", "capture-pane", "-e", "-p", "-J", "-S", "-500", "-t",
                           term.name], capture_output=True, text=True, check=True).stdout


def choose(term: Terminal, screen: str, label: str) -> None:
    from repl.test_approval import option

    time.sleep(0.4)  # the approval's type-ahead guard
    term.type(option(screen, label))


def test_an_edit_is_approved_on_its_coloured_diff_and_diff_opens_it_again(
        chat: Terminal, server: OpenAIServer, repo: Path) -> None:
    server.script(
        Reply(tool_calls=[ToolCall("read", {"path": "calc.py"})]),
        Reply(tool_calls=[ToolCall("edit", {"path": "calc.py", "old": "return a - b",
                                            "new": "return a + b"})]),
        Reply(text="Fixed the sign."))
    chat.type("fix add")
    title = f"Allow write tool edit(calc.py +1 {MINUS}1)?"
    # (the diff reaches the scrollback through the input line's stdout proxy: a moment later)
    screen = chat.wait_for(lambda s: title in s and "+    return a + b" in s)
    above = screen.split(title)[0]
    # the diff, whole, above the question — no truncated arguments
    for line in ("edit would change calc.py:", "--- a/calc.py", "+++ b/calc.py", "@@ -1,2 +1,2 @@",
                 "-    return a - b", "+    return a + b"):
        assert line in above, above
    assert "old='" not in screen and "…)" not in screen
    colours = coloured(chat)
    assert f"{GREEN}+    return a + b" in colours and f"{RED}-    return a - b" in colours
    choose(chat, screen, "yes, once")
    screen = chat.wait_for("Fixed the sign.")
    assert f"✓ edited calc.py (1 replacement, +1 {MINUS}1)" in screen, screen
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"

    chat.type("/diff")
    screen = chat.wait_for(f"1 file changed, +1 {MINUS}1 in this session:")
    after = screen.split("1 file changed")[-1]
    assert "-    return a - b" in after and "+    return a + b" in after, after
    chat.type("/diff last")
    screen = chat.wait_for(f"1 file changed, +1 {MINUS}1 in the last step that changed files:")


def test_a_long_diff_is_folded_and_the_rest_is_one_choice_away(
        chat: Terminal, server: OpenAIServer, repo: Path) -> None:
    content = "".join(f"line {n:03d}\n" for n in range(1, 61))
    server.script(
        Reply(tool_calls=[ToolCall("write", {"path": "big.txt", "content": content})]),
        Reply(text="Not written."))
    chat.type("write a big file")
    title = f"Allow write tool write(big.txt +60 {MINUS}0)?"
    screen = chat.wait_for(lambda s: title in s and "more diff lines" in s)
    above = screen.split(title)[0]
    assert "+line 001" in above and "+line 060" not in above, above
    folded = screen.split("show the whole diff (")[1].split(" more lines)")[0]
    assert f"… {folded} more diff lines (the last choice shows them)" in above, above
    assert int(folded) > 30, folded
    choose(chat, screen, "show the whole diff")
    # the rest is printed and the same question comes back, without that choice
    screen = chat.wait_for(lambda s: "+line 060" in s and title in s.split("+line 060")[-1])
    assert "show the whole diff" not in screen.split("+line 060")[-1]
    choose(chat, screen, "no")
    chat.wait_for("Not written.")
    assert not (repo / "big.txt").exists()


def test_a_long_command_is_shown_whole(chat: Terminal, server: OpenAIServer,
                                       repo: Path) -> None:
    command = "echo " + " ".join(f"word{n:02d}" for n in range(40)) + " > words.txt"
    server.script(Reply(tool_calls=[ToolCall("exec", {"command": command})]),
                  Reply(text="Not run."))
    chat.type("run it")
    title = "Allow execute tool exec(the command above)?"
    screen = chat.wait_for(lambda s: title in s and "words.txt" in s.split(title)[0])
    above = " ".join(screen.split(title)[0].split())  # the terminal wrapped it
    assert "$ " + command in above, above
    choose(chat, screen, "no")
    chat.wait_for("Not run.")
    assert not (repo / "words.txt").exists()


def test_p_on_a_terminal_prints_the_diff_before_asking(
        repo: Path, server: OpenAIServer, chatcli_home: Path) -> None:
    """``chatcli -p`` whose stdin and stderr are a terminal asks on stderr: the diff first."""
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    env = {
        "CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
        "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"],
        "TERM": "xterm-256color", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(chatcli_home), "CHATCLI_PLUGINS": "openai,checkpoints,coder,print",
        "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url,
    }
    server.script(
        Reply(tool_calls=[ToolCall("read", {"path": "calc.py"})]),
        Reply(tool_calls=[ToolCall("edit", {"path": "calc.py", "old": "return a - b",
                                            "new": "return a + b"})]),
        Reply(text="Fixed."))
    term = Terminal(f"{CHATCLI} --provider openai --model m -p 'fix add'", env, cwd=repo)
    try:
        screen = term.wait_for("allow write tool edit(")
        above = screen.split("allow write tool edit(")[0]
        assert "--- a/calc.py" in above and "+    return a + b" in above, above
        term.type("y")
        screen = term.wait_for("EXIT=0")
        assert f"1 file changed, +1 {MINUS}1" in screen, screen
    finally:
        term.close()
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
