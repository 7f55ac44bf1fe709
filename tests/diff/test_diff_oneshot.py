"""Diffs through the real command line: ``chatcli -p`` with the model played by the OpenAI wire
server, the real coder tools, permission policy, sessions and checkpoints.

A run that edits files prints a ``+N −M`` stat on stderr and lists the files in ``--json``'s
``files_changed``; ``chatcli -c -p /diff`` (since the session's first change), ``/diff last``
and ``/diff --git`` show the diffs; an edit's result gives its ``+N −M``; a key in a changed
file is never shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall

CHATCLI = Path(sys.executable).parent / "chatcli"
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
MINUS = "\u2212"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text(BUGGY)
    (root / "README.md").write_text("calc\n")
    _git(root, "init", "-q")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "start")
    return root


@pytest.fixture
def server() -> OpenAIServer:
    with OpenAIServer() as running:
        yield running


def _env(home: Path, server: OpenAIServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    for folder in ("config", "data", "cache"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"),
               CHATCLI_PLUGINS="openai,sessions,checkpoints,coder,agent,permissions,print",
               OPENAI_API_KEY="test", OPENAI_BASE_URL=server.url, NO_COLOR="1")
    return env


def _run(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), "--provider", "openai", "--model", "m", *args],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL)


def _results(server: OpenAIServer) -> list[str]:
    last = server.requests[-1].json["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


def _edit_script() -> list[Reply]:
    return [
        Reply(tool_calls=[ToolCall("read", {"path": "calc.py"})]),
        Reply(tool_calls=[ToolCall("edit", {"path": "calc.py", "old": "return a - b",
                                            "new": "return a + b"})]),
        Reply(tool_calls=[ToolCall("write", {"path": "NOTES.txt",
                                             "content": "add fixed\nby the agent\n"})]),
        Reply(text="Fixed."),
    ]


def test_a_run_that_edits_prints_the_stat_and_diff_shows_the_changes(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    env = _env(tmp_path / "home", server)
    server.script(*_edit_script())
    done = _run(repo, env, "--allow", "write", "-p", "fix add")
    assert done.returncode == 0, done.stderr
    assert (repo / "calc.py").read_text() == FIXED
    # the edit's result gives its +N −M (what the model and the chat see)
    results = _results(server)
    assert results[1].startswith(f"edited calc.py (1 replacement, +1 {MINUS}1)"), results
    assert results[2] == "created NOTES.txt (2 lines, 23 bytes)"
    # the stat on stderr: each file, then the total
    assert f"chatcli: 2 files changed, +3 {MINUS}1" in done.stderr, done.stderr
    rows = [" ".join(line.split()) for line in done.stderr.splitlines()]
    assert f"calc.py | +1 {MINUS}1" in rows and f"NOTES.txt | +2 {MINUS}0" in rows, rows
    assert "Fixed." in done.stdout and "files changed" not in done.stdout

    # /diff in the same session: since its first change, coloured off (NO_COLOR), whole
    shown = _run(repo, env, "-c", "-p", "/diff")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert f"2 files changed, +3 {MINUS}1 in this session:" in out, out
    assert "--- a/calc.py" in out and "+++ b/calc.py" in out
    assert "-    return a - b" in out and "+    return a + b" in out
    assert "+add fixed" in out and "+by the agent" in out
    # /diff last: the last step that changed files only (the write of NOTES.txt)
    last = _run(repo, env, "-c", "-p", "/diff last")
    assert "NOTES.txt" in last.stdout and "calc.py" not in last.stdout, last.stdout
    # /diff --stat: counts only
    stat = _run(repo, env, "-c", "-p", "/diff --stat")
    assert f"calc.py   | +1 {MINUS}1" in stat.stdout and "@@" not in stat.stdout, stat.stdout
    # /diff --git: the working tree against HEAD, the untracked note included
    (repo / "README.md").write_text("calc, by hand\n")
    against = _run(repo, env, "-c", "-p", "/diff --git")
    assert "+calc, by hand" in against.stdout and "+add fixed" in against.stdout, against.stdout
    assert "+    return a + b" in against.stdout


def test_json_lists_the_changed_files_with_their_counts(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    env = _env(tmp_path / "home", server)
    server.script(*_edit_script())
    done = _run(repo, env, "--allow", "write", "--json", "-p", "fix add")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert sorted(payload["files_changed"], key=lambda f: f["path"]) == [
        {"path": "NOTES.txt", "added": 2, "removed": 0},
        {"path": "calc.py", "added": 1, "removed": 1}]
    assert "files changed" not in done.stderr


def test_a_run_that_changes_nothing_prints_no_stat(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    env = _env(tmp_path / "home", server)
    server.script(Reply(tool_calls=[ToolCall("read", {"path": "calc.py"})]), Reply(text="ok"))
    done = _run(repo, env, "--json", "-p", "look")
    assert json.loads(done.stdout)["files_changed"] == []
    server.script(Reply(text="ok"))
    plain = _run(repo, env, "-p", "hello")
    assert "changed" not in plain.stderr, plain.stderr
    nothing = _run(repo, env, "-c", "-p", "/diff")
    assert "No file changed in this session yet" in nothing.stdout, nothing.stdout


def test_outside_git_diff_shows_the_recorded_pre_images(
        server: OpenAIServer, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "calc.py").write_text(BUGGY)
    env = _env(tmp_path / "home", server)
    server.script(*_edit_script())
    done = _run(folder, env, "--allow", "write", "-p", "fix add")
    assert f"chatcli: 2 files changed, +3 {MINUS}1" in done.stderr, done.stderr
    shown = _run(folder, env, "-c", "-p", "/diff")
    assert "-    return a - b" in shown.stdout and "+    return a + b" in shown.stdout
    assert "--- /dev/null" in shown.stdout and "+++ b/NOTES.txt" in shown.stdout
    refused = _run(folder, env, "-c", "-p", "/diff --git")
    assert "not in a git repository" in refused.stdout, refused.stdout


def test_a_key_written_to_a_file_is_not_shown_by_diff(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "Q" * 40
    env = _env(tmp_path / "home", server)
    server.script(Reply(tool_calls=[ToolCall("write", {"path": "settings.py",
                                                       "content": f"KEY = '{key}'\n"})]),
                  Reply(text="done"))
    done = _run(repo, env, "--allow", "write", "-p", "write it")
    assert done.returncode == 0, done.stderr
    assert (repo / "settings.py").read_text() == f"KEY = '{key}'\n"
    for args in (("/diff",), ("/diff --git",), ("/diff last",)):
        shown = _run(repo, env, "-c", "-p", *args)
        assert "+KEY = '" in shown.stdout, shown.stdout
        assert key not in shown.stdout and "Q" * 20 not in shown.stdout, shown.stdout


def test_in_a_sub_folder_of_a_repository_diff_shows_that_folder_relative_to_it(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "mod.py").write_text("X = 1\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "pkg")
    env = _env(tmp_path / "home", server)
    server.script(Reply(tool_calls=[ToolCall("read", {"path": "mod.py"})]),
                  Reply(tool_calls=[ToolCall("edit", {"path": "mod.py", "old": "X = 1",
                                                      "new": "X = 2"})]),
                  Reply(text="done"))
    (repo / "calc.py").write_text(FIXED)  # outside the workspace: not this session's
    done = _run(sub, env, "--allow", "write", "-p", "bump X")
    assert f"chatcli: 1 file changed, +1 {MINUS}1" in done.stderr, done.stderr
    assert "mod.py | +1" in " ".join(done.stderr.split()), done.stderr
    shown = _run(sub, env, "-c", "-p", "/diff")
    assert "--- a/mod.py" in shown.stdout and "+X = 2" in shown.stdout, shown.stdout
    assert "calc.py" not in shown.stdout
    against = _run(sub, env, "-c", "-p", "/diff --git")
    assert "--- a/mod.py" in against.stdout and "calc.py" not in against.stdout, against.stdout


def test_with_checkpoints_off_diff_says_so_and_git_still_works(
        repo: Path, server: OpenAIServer, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = _env(home, server)
    (home / "config" / "config.toml").write_text("[checkpoints]\nenabled = false\n")
    server.script(*_edit_script())
    done = _run(repo, env, "--allow", "write", "-p", "fix add")
    assert done.returncode == 0, done.stderr
    assert "files changed" not in done.stderr  # nothing recorded: no stat
    off = _run(repo, env, "-c", "-p", "/diff")
    assert "checkpoints are off" in off.stdout, off.stdout
    against = _run(repo, env, "-c", "-p", "/diff --git")
    assert "+    return a + b" in against.stdout, against.stdout
