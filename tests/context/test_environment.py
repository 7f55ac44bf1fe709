"""The environment section (chatcli-repomap's ``environment`` plugin) in the request the model
receives through the real command line, next to this plugin's sections: once per session, in
the stable part of the prompt, after the bootstrap files; git's state as git reports it, for
each state a repository can be in; commit subjects bounded and cleaned."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer
from context_support import cli, openai_system, write

PLUGINS = "openai,sessions,context,environment,repomap"


def git(root: Path, *args: str, check: bool = True) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=check,
                   timeout=30)


def _repo(root: Path, commits: int = 1) -> Path:
    if (root / ".git").is_dir():
        (root / ".git").rmdir()  # the suite's empty marker
    git(root, "init", "-q", "-b", "main")
    write(root, "main.py", "def main_entry():\n    pass\n")
    git(root, "add", "-A")
    for index in range(commits):
        git(root, "commit", "-q", "--allow-empty", "-m", f"commit number {index}")
    return root


def _environment(server: OpenAIServer, index: int = 0) -> str:
    system = openai_system(server.requests[index])
    start = system.index("Environment (")
    end = system.find("\n\n", start)
    return system[start:end if end > 0 else None]


def clean(ws: Path) -> None:
    _repo(ws)


def detached(ws: Path) -> None:
    _repo(ws, 2)
    git(ws, "checkout", "-q", "--detach", "HEAD~1")


def unborn(ws: Path) -> None:
    (ws / ".git").rmdir()  # the suite's empty marker
    git(ws, "init", "-q", "-b", "trunk")
    write(ws, "a.py", "x = 1\n")


def ahead(ws: Path) -> None:
    upstream = ws.parent / "upstream.git"
    subprocess.run(["git", "init", "-q", "--bare", str(upstream)], check=True)
    _repo(ws)
    git(ws, "remote", "add", "origin", str(upstream))
    git(ws, "push", "-q", "-u", "origin", "main")
    git(ws, "commit", "-q", "--allow-empty", "-m", "local only")


def dirty(ws: Path) -> None:
    _repo(ws)
    write(ws, "main.py", "changed\n")
    write(ws, "staged.py", "new\n")
    git(ws, "add", "staged.py")
    for index in range(6):
        write(ws, f"new{index}.txt", "u\n")


def conflicted(ws: Path) -> None:
    _repo(ws)
    git(ws, "checkout", "-q", "-b", "other")
    write(ws, "main.py", "theirs\n")
    git(ws, "commit", "-q", "-am", "theirs")
    git(ws, "checkout", "-q", "main")
    write(ws, "main.py", "ours\n")
    git(ws, "commit", "-q", "-am", "ours")
    git(ws, "merge", "-q", "other", check=False)  # (fails: the conflict)


STATES: list[tuple[Callable[[Path], None], list[str], list[str]]] = [
    # (how the workspace is made, lines the section has, texts it must not have)
    (clean, ["- Git branch: main", "- Uncommitted changes: none (the working tree is clean)",
             "  - ", "commit number 0"], []),
    (detached, ["- Git branch: (detached HEAD)", "commit number 0"], ["commit number 1"]),
    (unborn, ["- Git branch: trunk (no commits yet)", "1 untracked — a.py"],
     ["Recent commits"]),
    (ahead, ["- Git branch: main (ahead 1)", "local only"], []),
    (dirty, ["1 staged, 1 modified, 6 untracked — main.py, staged.py, new0.txt, new1.txt …"],
     ["new5.txt"]),
    (conflicted, ["- Uncommitted changes: 1 conflicted — main.py"], []),
]


@pytest.mark.parametrize(("make", "present", "absent"), STATES,
                         ids=[s[0].__name__ for s in STATES])
def test_the_git_state_as_the_model_reads_it(home: Path, workspace: Path,
                                             openai_server: OpenAIServer, make, present,
                                             absent) -> None:
    make(workspace)
    openai_server.script("ok")
    done = cli(home, workspace, openai_server, "-p", "hello", plugins=PLUGINS)
    assert done.returncode == 0, done.stderr
    section = _environment(openai_server)
    assert f"- Working directory: {workspace}" in section
    for text in present:
        assert text in section
    for text in absent:
        assert text not in section


def test_commits_are_bounded_and_cleaned(home: Path, workspace: Path,
                                         openai_server: OpenAIServer) -> None:
    _repo(workspace, 6)
    git(workspace, "commit", "-q", "--allow-empty", "-m", "evil \x1b[31mred\x1b[0m " + "x" * 300)
    write(home / "config", "config.toml", "[repomap]\ncommits = 3\n")
    openai_server.script("ok")
    done = cli(home, workspace, openai_server, "-p", "hello", plugins=PLUGINS)
    assert done.returncode == 0, done.stderr
    section = _environment(openai_server)
    listed = [line for line in section.splitlines() if line.startswith("  - ")]
    assert len(listed) == 3 and "commit number 5" in listed[1]
    assert "\x1b" not in section and "evil [31mred[0m" in listed[0]
    assert listed[0].endswith("…") and len(listed[0]) <= 110


def test_the_section_sits_with_the_stable_ones_after_the_bootstrap_files(
        home: Path, workspace: Path, openai_server: OpenAIServer) -> None:
    _repo(workspace)
    write(workspace, "AGENTS.md", "Run the tests.\n")
    openai_server.script("ok")
    done = cli(home, workspace, openai_server, "-p", "hello", plugins=PLUGINS)
    assert done.returncode == 0, done.stderr
    system = openai_system(openai_server.requests[0])
    assert (system.index("Contents of AGENTS.md") < system.index("Environment (")
            < system.index("Repository map"))
    messages = openai_server.requests[0].json["messages"]
    assert "Environment (" not in messages[-1]["content"]  # not with the turn's volatile part


def test_no_section_when_it_is_switched_off(home: Path, workspace: Path,
                                            openai_server: OpenAIServer) -> None:
    _repo(workspace)
    write(home / "config", "config.toml", "[repomap]\nenvironment = false\ncommits = -1\n")
    openai_server.script("ok")
    done = cli(home, workspace, openai_server, "-p", "hello", plugins=PLUGINS)
    assert done.returncode == 0, done.stderr
    assert "Environment (" not in openai_system(openai_server.requests[0])
    assert "[repomap] commits must be a whole number" in done.stderr
