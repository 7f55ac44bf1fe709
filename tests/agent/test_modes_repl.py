"""``/agent`` in the interactive chat, driven in a real terminal (tmux): each step shown as it
happens (tool, arguments, result, time), the final answer, the closing line, and the chat's
settings and history as they were — ``max_turns`` back to its value, the run in the history."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply, ToolCall
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal

LOOK = """
import time
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class _Args(BaseModel):
    path: str

def _look(args, context):
    time.sleep(0.2)
    return f"contents of {args.path}\\nsecond line"

@hookimpl
def register_tools(register):
    register(Tool(name="look", description="look at a file", args_model=_Args, risk=Risk.READ,
                  run=_look))
"""


@pytest.fixture
def terminal(tmp_path: Path, openai_server: Any):
    term = start(tmp_path, openai_server)
    yield term
    term.close()


def start(tmp_path: Path, openai_server: Any, config: str = "") -> Terminal:
    """The chat in tmux, answering through ``openai_server``; ``config``: its config.toml."""
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    site = tmp_path / "site"
    site.mkdir()
    (site / "look_plugin.py").write_text(textwrap.dedent(LOOK))
    info = site / "look_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: look-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\nlook = look_plugin\n")
    home = tmp_path / "home"
    for folder in ("config", "data"):
        (home / folder).mkdir(parents=True)
    (home / "config" / "config.toml").write_text(config)
    env = {"CHATCLI_CONFIG_DIR": str(home / "config"), "CHATCLI_DATA_DIR": str(home / "data"),
           "HOME": str(home), "TERM": "xterm-256color",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(site),
           "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": openai_server.url,
           "CHATCLI_PLUGINS": "openai,repl,agent,look"}
    term = Terminal(f"{CHATCLI} --provider openai --model m", env)
    term.wait_for("›", timeout=20)
    return term


def test_agent_in_the_chat_shows_each_step_and_leaves_the_chat_as_it_was(
        terminal: Terminal, openai_server: Any) -> None:
    openai_server.script(
        Reply(text="Let me look.", tool_calls=[ToolCall("look", {"path": "a.py"})]),
        Reply(tool_calls=[ToolCall("look", {"path": "b.py"})]),
        Reply(text="Both files are fine."),
        Reply(text="You asked about a.py and b.py."))
    terminal.type("/agent check a.py and b.py")
    screen = terminal.wait_for("✔ agent: done")
    assert "▶ agent mode · at most 50 steps · check a.py and b.py" in screen
    assert '⚙ look(path="a.py")' in screen and '⚙ look(path="b.py")' in screen
    assert re.search(r"✓ contents of a\.py \(1 more line\) · 0\.[2-9]s", screen)
    assert re.search(r"✓ contents of b\.py \(1 more line\) · 0\.[2-9]s", screen)
    assert "Both files are fine." in screen
    assert re.search(r"✔ agent: done in 3 steps · 2 tool calls · \d+\.\ds", screen)
    # the chat shows every step live: no second trace at the end
    assert "agent trace:" not in screen
    # the anchor travels after the history, in the newest message (cached prefix kept)
    anchors = [re.search(r"Step (\d+) of at most 50", r.json["messages"][-1]["content"])
               for r in openai_server.requests]
    assert [a.group(1) for a in anchors if a] == ["1", "2", "3"]

    terminal.type("/config get max_turns")
    terminal.wait_for(lambda s: "\n20\n" in s.split("› /config get max_turns")[-1])

    terminal.type("what did I ask?")
    terminal.wait_for("You asked about a.py and b.py.")
    last = openai_server.requests[-1].json
    said = [m.get("content") for m in last["messages"] if m["role"] == "user"]
    assert said == ["check a.py and b.py", "what did I ask?"]
    assert "You are working on" not in last["messages"][0]["content"]


def test_a_model_without_tools_is_named_before_the_run_and_it_ends_without_success(
        tmp_path: Path, openai_server: Any) -> None:
    openai_server.script(Reply(text="The README will be updated tomorrow."))
    term = start(tmp_path, openai_server, "[providers.openai]\ntools = false\n")
    try:
        term.type("/coder add a README")
        screen = term.wait_for("coder: finished")
        flat = " ".join(screen.split())  # (long lines wrap on the screen)
        assert "gets no tools" in flat and "chatcli keys set" in flat
        assert flat.index("gets no tools") < flat.index("The README will be updated tomorrow.")
        assert "⚠ coder: finished, but it made no tool call (this model gets no tools)" in flat
        assert "✔" not in screen
        term.type("/config get max_turns")  # the chat goes on (no error ended it)
        term.wait_for(lambda s: "\n20\n" in s.split("› /config get max_turns")[-1])
    finally:
        term.close()
