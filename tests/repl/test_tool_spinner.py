"""The spinner names the tool that runs (``running exec…``, ``edit calc.py…``), not
``thinking…``, and says ``thinking…`` again while the model is asked with the result — in a
real terminal (tmux)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_render import activity
from chatcli_testing import Reply, ToolCall
from hypothesis import given
from hypothesis import strategies as st

from .terminal import Terminal

pytestmark = pytest.mark.terminal

#: Two slow tools (read risk: no approval), named like the coder's.
SLOW_TOOLS = """
import time
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class _Command(BaseModel):
    command: str

class _Edit(BaseModel):
    path: str

def _slow(args, context):
    time.sleep(2.5)
    return "done"

@hookimpl
def register_tools(register):
    register(Tool(name="exec", description="run", args_model=_Command, risk=Risk.READ,
                  run=_slow))
    register(Tool(name="edit", description="edit", args_model=_Edit, risk=Risk.READ,
                  run=_slow))
"""


def slow_tools_env(folder: Path) -> dict[str, str]:
    (folder / "slow_tools.py").write_text(textwrap.dedent(SLOW_TOOLS))
    info = folder / "slow_tools-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slow-tools\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\nslow = slow_tools\n")
    return {"PYTHONPATH": str(folder), "CHATCLI_PLUGINS": "openai,repl,slow"}


def spinner_line(screen: str) -> str:
    lines = [line for line in screen.splitlines() if re.search(r"… \d+\.\ds", line)]
    return lines[-1] if lines else ""


def test_the_spinner_names_the_running_tool(start_chat: Callable[..., Terminal],
                                            openai_server, tmp_path: Path) -> None:
    openai_server.script(
        Reply(tool_calls=[ToolCall("exec", {"command": "pytest -q"})]),
        Reply(tool_calls=[ToolCall("edit", {"path": "calc.py"})]),
        Reply(text="all fixed"))
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, **slow_tools_env(tmp_path))
    term.type("fix it")
    screen = term.wait_for(lambda s: "running exec…" in spinner_line(s))
    assert "thinking" not in spinner_line(screen)
    screen = term.wait_for(lambda s: "edit calc.py…" in spinner_line(s))
    assert "thinking" not in spinner_line(screen)
    screen = term.wait_for("all fixed")
    assert not spinner_line(screen.split("all fixed")[-1])  # gone once the answer is there


#: (tool, arguments, what the spinner says)
ACTIVITIES = [
    ("exec", {"command": "pytest -q"}, "running exec"),
    ("edit", {"path": "calc.py", "old": "a", "new": "b"}, "edit calc.py"),
    ("write", {"file_path": "src/app.py"}, "write src/app.py"),
    ("read_file", {"path": "x" * 60}, "read_file …" + "x" * 39),
    ("edit", {"path": "a\x1b[2Jb\nc"}, "edit a[2Jbc"),
    ("grep", {"pattern": "TODO"}, "running grep"),
    ("apply_patch", "not a dict", "running apply_patch"),
    ("edit", {"path": 12}, "running edit"),
]


@pytest.mark.parametrize(("name", "arguments", "shown"), ACTIVITIES)
def test_activity_names_the_tool_and_its_file(name: str, arguments: object, shown: str) -> None:
    assert activity(name, arguments) == shown


@given(st.text(), st.dictionaries(st.sampled_from(["path", "command", "x"]), st.text()))
def test_activity_is_one_printable_line_of_bounded_length(name: str, arguments: dict) -> None:
    shown = activity(name, arguments)
    assert shown.isprintable()
    assert len(shown) <= len("running ") + len(name) + 1 + 40
