"""git (read-only views of a real repository) and test (the project's test command detected,
run like exec); and a whole coding turn: read, run the tests, fix, run them again."""

from __future__ import annotations

import json
import sys

import pytest
from chatcli import Confinement, Decision, Verdict, hookimpl
from chatcli_coder._shell import detect_test_command
from coder_support import Agent, git

# ------------------------------------------------------------------------------ git


def test_status_diff_log_changed_and_branch(repo):
    (repo / "README.md").write_text("# demo\n\nmore\n")
    (repo / "new.py").write_text("x = 1\n")
    (repo / "staged.txt").write_text("s\n")
    git(repo, "add", "staged.txt")
    agent = Agent(repo)
    status = agent.ok("git", action="status")
    assert status.splitlines()[0] == "## main"
    assert {" M README.md", "A  staged.txt", "?? new.py"} <= set(status.splitlines())

    diff = agent.ok("git", action="diff")
    assert "+more" in diff and "staged.txt" not in diff
    staged = agent.ok("git", action="diff", staged=True)
    assert "+s" in staged and "README" not in staged
    assert agent.ok("git", action="diff", path="new.py").startswith("no unstaged changes")

    changed = agent.ok("git", action="changed")
    assert set(changed.splitlines()) == {"modified: README.md", "untracked: new.py",
                                         "added: staged.txt (staged)"}

    git(repo, "commit", "-q", "-m", "second")
    log = agent.ok("git", action="log", limit=5)
    assert [line.split(": ", 1)[1] for line in log.splitlines()] == ["second", "first"]
    assert len(agent.ok("git", action="log", limit=1).splitlines()) == 1

    git(repo, "branch", "feature")
    branch = agent.ok("git", action="branch")
    assert branch.splitlines()[0] == "current branch: main"
    assert "feature" in branch


def test_git_runs_none_of_the_repository_s_configured_programs(repo):
    """A repository's config can name programs git runs (fsmonitor, external diff): the git
    tool is read-only and runs none of them."""
    git(repo, "config", "core.fsmonitor", "touch fsmonitor-ran; false")
    git(repo, "config", "diff.external", "sh -c 'touch diff-ran'")
    (repo / "README.md").write_text("changed\n")
    agent = Agent(repo)
    agent.ok("git", action="status")
    assert "+changed" in agent.ok("git", action="diff")
    assert not (repo / "fsmonitor-ran").exists()
    assert not (repo / "diff-ran").exists()


class _Hides:
    """A policy that lets every call run but hides what ``hidden`` names (as the permission
    policy does with deny rules' targets)."""

    def __init__(self, *hidden: str) -> None:
        self.hidden = hidden

    @hookimpl
    def authorize_tool_call(self, call, tool):
        return Verdict(Decision.ALLOW, confinement=Confinement(hidden=self.hidden))


#: (what a deny rule hides, relative to the workspace, as a glob or a path) → the files whose
#: changed contents the diff must not show
HIDDEN_IN_DIFFS = [
    ("a file", ".env", [".env"]),
    ("a folder", "secrets", ["secrets/key.txt", "secrets/deep/more.txt"]),
    ("a glob at any depth", "**/*.pem", ["server.pem", "certs/ca.pem"]),
    ("a folder's contents", "secrets/**", ["secrets/key.txt", "secrets/deep/more.txt"]),
]


@pytest.mark.parametrize(("name", "hidden", "files"), HIDDEN_IN_DIFFS,
                         ids=[case[0] for case in HIDDEN_IN_DIFFS])
def test_a_diff_never_shows_a_hidden_path(repo, name: str, hidden: str, files: list[str]
                                          ) -> None:
    everything = [".env", "secrets/key.txt", "secrets/deep/more.txt", "server.pem",
                  "certs/ca.pem", "README.md"]
    for relative in everything:
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text("old\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "files")
    for relative in everything:
        (repo / relative).write_text(f"old\nCHANGED-{relative}\n")
    git(repo, "add", "certs/ca.pem", "README.md")
    agent = Agent(repo)
    agent.host.register(_Hides(str(repo / hidden)), "policy")
    shown = agent.ok("git", action="diff") + agent.ok("git", action="diff", staged=True)
    for relative in everything:
        assert (f"CHANGED-{relative}" in shown) == (relative not in files), relative
    named = agent.ok("git", action="diff", path=files[0], staged=files[0] == "certs/ca.pem")
    assert f"CHANGED-{files[0]}" not in named


def test_a_diff_stays_inside_the_workspace(repo) -> None:
    """A workspace in a sub-folder of its repository: the diff shows its own changes only."""
    (repo / "app").mkdir()
    (repo / "app" / "main.py").write_text("x = 1\n")
    (repo / "other.txt").write_text("o\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "two")
    (repo / "app" / "main.py").write_text("x = 2\n")
    (repo / "other.txt").write_text("OUTSIDE\n")
    diff = Agent(repo / "app").ok("git", action="diff")
    assert "+x = 2" in diff and "OUTSIDE" not in diff


def test_git_outside_a_repository_and_a_large_diff(workspace, repo):
    plain = workspace.parent / "plain"
    plain.mkdir()
    error = Agent(plain).fails("git", action="status")
    assert "the workspace is not in a git repository" in error
    (repo / "big.txt").write_text("".join(f"line {n}\n" for n in range(5_000)))
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "big")
    (repo / "big.txt").write_text("".join(f"LINE {n}\n" for n in range(5_000)))
    from chatcli import Settings

    text = Agent(repo, Settings(tool_output_max=4_000)).ok("git", action="diff")
    assert len(text) <= 4_000
    assert text.startswith(" big.txt | 10000")  # the stat comes first
    assert "more characters of the diff; give path to see one file" in text


# ------------------------------------------------------------------------------ test


@pytest.mark.parametrize("files,command", [
    ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python3 -m pytest"),
    ({"setup.py": "", "tests/test_x.py": ""}, "python3 -m pytest"),
    ({"package.json": json.dumps({"scripts": {"test": "vitest run"}})}, "npm test"),
    ({"go.mod": "module x\n"}, "go test ./..."),
    ({"Cargo.toml": "[package]\n"}, "cargo test"),
    ({"Makefile": "build:\n\ttrue\ntest: build\n\ttrue\n"}, "make test"),
])
def test_the_test_command_is_detected_for_each_kind_of_project(workspace, files, command):
    for name, text in files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    found = detect_test_command(workspace, workspace)
    assert found is not None and found[0] == command


def test_npm_s_placeholder_script_and_an_empty_folder_detect_nothing(agent, workspace):
    (workspace / "package.json").write_text(json.dumps(
        {"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}))
    assert detect_test_command(workspace, workspace) is None
    error = agent.fails("test")
    assert "no test command found" in error and "pass command" in error


def _python_project(root):
    """A tiny project whose tests fail, with a .venv whose python has pytest."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    venv_bin = root / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    (venv_bin / "python").chmod(0o755)
    (root / ".gitignore").write_text(".venv/\n.pytest_cache/\n__pycache__/\n")


def test_a_coding_turn_reads_runs_the_tests_fixes_and_runs_them_again(repo):
    _python_project(repo)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "calc")
    agent = Agent(repo)
    failing = agent.ok("test")
    assert "tests failed, exit code 1" in failing
    assert "ran: .venv/bin/python -m pytest  (pytest" in failing
    assert "assert -1 == 5" in failing
    assert "def test_add" in agent.ok("search", pattern="def test_add")
    agent.ok("read", path="calc.py")
    agent.ok("edit", path="calc.py", old="return a - b", new="return a + b")
    passing = agent.ok("test")
    assert "tests passed, exit code 0" in passing
    assert "1 passed" in passing
    assert agent.ok("git", action="changed") == "modified: calc.py"
    # the history holds every call with its result, in order
    names = [part.name for m in agent.conversation.messages() for part in m.tool_calls]
    assert names == ["test", "search", "read", "edit", "test", "git"]
