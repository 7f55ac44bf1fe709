"""Whole agent runs through the real command line: ``chatcli -p "/coder …"`` in a temporary git
repository, the model played by a wire server (tool calls native on OpenAI and Anthropic, and in
the text protocol), the real coder tools, permission policy, sessions and checkpoints.

The scripted model does what a good model does on a small bug: reads the code and its test, runs
the tests (they fail), edits the code, runs them again (they pass), writes a note with a shell
command, and answers. The files, the history the model was sent, and ``/rewind`` (which puts back
the buggy file and removes the note the shell command made, then is undone) are checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import AnthropicServer, OpenAIServer, Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"

TASK = "fix the failing test"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with a bug in calc.py that test_calc.py finds."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text(BUGGY)
    (root / "test_calc.py").write_text(TEST)
    _git(root, "init", "-q")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "start")
    return root


def _environment(home: Path, plugins: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    for folder in ("config", "data", "cache"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"), CHATCLI_PLUGINS=f"{plugins},print", **extra)
    return env


def _chatcli(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL)


def _steps() -> list[list[ToolCall]]:
    """The tool calls of each step of the scripted run."""
    return [
        [ToolCall("read", {"path": "calc.py"}), ToolCall("read", {"path": "test_calc.py"})],
        [ToolCall("test", {"command": PYTEST})],
        [ToolCall("edit", {"path": "calc.py", "old": "return a - b", "new": "return a + b"})],
        [ToolCall("test", {"command": PYTEST})],
        [ToolCall("exec", {"command": "echo 'add fixed' > NOTES.txt"})],
    ]


FINAL = "Fixed: add() subtracted. The test passes now."


def _native_script() -> list[Reply]:
    return [Reply(tool_calls=calls) for calls in _steps()] + [Reply(text=FINAL)]


def _text_script() -> list[Reply]:
    """The same run as a model without native tools writes it: tags in its text."""
    replies = []
    for calls in _steps():
        tags = "".join(f"<tool_call name=\"{c.name}\" args='{json.dumps(c.arguments)}'/>\n"
                       for c in calls)
        replies.append(Reply(text="Next step.\n" + tags))
    return [*replies, Reply(text=FINAL)]


class Setup:
    """A wire server playing the model and the environment pointing chatcli at it."""

    def __init__(self, kind: str, home: Path) -> None:
        self.kind = kind
        self.server = AnthropicServer() if kind == "anthropic" else OpenAIServer()
        self.server.__enter__()
        plugins = "sessions,checkpoints,coder,agent,permissions"
        if kind == "anthropic":
            self.env = _environment(home, f"anthropic,{plugins}", ANTHROPIC_API_KEY="test",
                                    ANTHROPIC_BASE_URL=self.server.url)
            self.provider = "anthropic"
        else:
            self.env = _environment(home, f"openai,{plugins}", OPENAI_API_KEY="test",
                                    OPENAI_BASE_URL=self.server.url)
            self.provider = "openai"
        if kind == "text":
            (home / "config" / "config.toml").write_text(
                '[providers.openai]\ntool_calls = "text"\n')
        self.server.script(*(_text_script() if kind == "text" else _native_script()))

    def close(self) -> None:
        self.server.__exit__(None, None, None)

    def tool_results(self) -> list[str]:
        """The tool results the model was sent, in order, as the last request carried them."""
        body = self.server.requests[-1].json
        if self.kind == "anthropic":
            return [block["content"] if isinstance(block["content"], str)
                    else "".join(part.get("text", "") for part in block["content"])
                    for message in body["messages"] if message["role"] == "user"
                    and isinstance(message["content"], list)
                    for block in message["content"] if block.get("type") == "tool_result"]
        if self.kind == "openai":
            return [m["content"] for m in body["messages"] if m["role"] == "tool"]
        return [part for m in body["messages"]
                if m["role"] == "user" and m["content"].startswith("Result of tool ")
                for part in re.split(r"(?:^|\n\n)Result of tool \w+(?: \(error\))?:\n",
                                     m["content"])[1:]]

    def calls_and_results_pair_up(self) -> bool:
        """Every tool call of the history the model was last sent has its result, in order."""
        body = self.server.requests[-1].json
        if self.kind == "openai":
            pending: list[str] = []
            for message in body["messages"]:
                if pending and message["role"] != "tool":
                    return False
                if message["role"] == "assistant":
                    pending = [c["id"] for c in message.get("tool_calls") or []]
                elif message["role"] == "tool" and (
                        not pending or message["tool_call_id"] != pending.pop(0)):
                    return False
            return not pending
        if self.kind == "anthropic":
            messages = body["messages"]
            for index, message in enumerate(messages):
                if message["role"] != "assistant" or isinstance(message["content"], str):
                    continue
                ids = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
                if not ids:
                    continue
                answered = [b["tool_use_id"] for b in messages[index + 1]["content"]
                            if b.get("type") == "tool_result"]
                if answered != ids:
                    return False
            return True
        return True


@pytest.fixture(params=["openai", "anthropic", "text"])
def setup(request: Any, tmp_path: Path):
    made = Setup(request.param, tmp_path / "home")
    yield made
    made.close()


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts}


def test_a_coder_run_fixes_the_bug_and_rewind_puts_everything_back(setup: Setup,
                                                                    repo: Path) -> None:
    start = _tree(repo)
    done = _chatcli(repo, setup.env, "--provider", setup.provider, "--model", "m",
                    "--permission-mode", "accept-edits",
                    "--allow", f"test({PYTEST})", "--allow", "exec(echo:*)",
                    "-p", f"/coder {TASK}")
    assert done.returncode == 0, done.stderr
    assert FINAL in done.stdout

    # The files: the bug fixed by the edit tool, the note made by the shell command.
    assert (repo / "calc.py").read_text() == FIXED
    assert (repo / "NOTES.txt").read_text() == "add fixed\n"
    assert _git(repo, "status", "--porcelain").splitlines() == [" M calc.py", "?? NOTES.txt"]

    # What the model was told at each step, in order.
    results = setup.tool_results()
    assert len(results) == 6, results
    assert "return a - b" in results[0] and "assert add(2, 3) == 5" in results[1]
    assert "tests failed, exit code 1" in results[2] and "1 failed" in results[2]
    assert results[3].startswith("edited calc.py (1 replacement, +1 \u22121)")
    assert "a + b" in results[3]
    assert "tests passed, exit code 0" in results[4] and "1 passed" in results[4]
    assert results[5].startswith("exit code 0")
    if shutil.which("bwrap"):
        assert "sandbox: bwrap" in results[5]
    assert setup.calls_and_results_pair_up()
    first = setup.server.requests[0].json
    system = (first.get("system") if setup.kind == "anthropic" else
              next(m["content"] for m in first["messages"] if m["role"] == "system"))
    system_text = system if isinstance(system, str) else json.dumps(system)
    assert "read" in system_text.lower() and "test" in system_text.lower()  # coder's prompt
    assert len(setup.server.requests) == 6  # one model call per step and the answer
    # Native tools go in the request's tools field; the text protocol describes them instead.
    assert ("tools" in first) == (setup.kind != "text")
    if setup.kind == "text":
        assert "<tool_call" in system_text

    # The history on disk is the run: task, six steps' calls and results, the answer.
    listed = subprocess.run([str(CHATCLI), "sessions", "list", "--json"], cwd=repo,
                            env=setup.env, capture_output=True, text=True, timeout=60)
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1 and sessions[0]["messages"] >= 12

    # /rewind with code: the buggy file is back, the shell's note is gone, git untouched.
    rewound = _chatcli(repo, setup.env, "-c", "-p", "/rewind last")
    assert rewound.returncode == 0, rewound.stderr
    assert "Restored 2 files" in rewound.stdout
    assert _tree(repo) == start
    assert _git(repo, "status", "--porcelain") == ""

    undone = _chatcli(repo, setup.env, "-c", "-p", "/rewind undo")
    assert undone.returncode == 0, undone.stderr
    assert (repo / "calc.py").read_text() == FIXED
    assert (repo / "NOTES.txt").read_text() == "add fixed\n"


def test_without_the_allow_rules_the_run_changes_nothing(setup: Setup, repo: Path) -> None:
    """The same run with no rules and nobody to ask: reads happen, the rest is denied."""
    start = _tree(repo)
    done = _chatcli(repo, setup.env, "--provider", setup.provider, "--model", "m",
                    "-p", f"/coder {TASK}")
    # every change and command was refused: no success mark, exit 3, what was denied named
    assert done.returncode == 3, done.stderr
    assert "✔" not in done.stderr
    assert ("⚠ coder: finished, but every change or command it tried was denied — nothing was "
            "changed or run; denied: test(" in done.stderr)
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith("chatcli: error: /coder did nothing: every change or command it "
                            "tried was denied; denied: test(")
    assert 'edit(path="calc.py"' in error and "--permission-mode accept-edits" in error
    assert _tree(repo) == start
    results = setup.tool_results()
    assert "return a - b" in results[0]
    assert all("denied:" in r and "nobody can be asked" in r for r in results[2:]), results
    assert "writes NOTES.txt" in results[5]  # the shell redirect is seen as the write it is
    assert "denied" in done.stderr
