"""chatcli-workspace: which paths are chatcli's or git's control files (``is_control_file``) and
which of them exist in a workspace (``control_paths``, what a sandbox mounts read-only)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from chatcli_workspace import control_paths, is_control_file
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path / "ws"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("x")
    (root / "hooks").symlink_to(".git/hooks")
    (root / "config-link").symlink_to(".git/config")
    return root


CONTROL = [
    ".git", ".git/config", "./.git/config", ".git/hooks/pre-commit", ".git/info/attributes",
    "sub/../.git/hooks/x", "src/../.git/config", ".GIT/config", ".Git/hooks/x", ".git./config",
    ".g\u200cit/config", ".chatcli", ".chatcli/config.toml", "sub/.chatcli/config.toml",
    ".mcp.json", "sub/.mcp.json", ".MCP.json", ".claude/settings.json",
    ".claude/settings.local.json", "x/.claude/settings.json", ".gitattributes",
    "src/deep/.gitattributes", ".gitmodules", "vendor/.gitmodules", "hooks/post-commit",
    "config-link", ".git/modules/sub/config", ".git/worktrees/w/HEAD",
]
NOT_CONTROL = [
    "src/app.py", ".gitignore", ".github/workflows/ci.yml", "git/config", "src/.gitkeep",
    ".claude/notes.md", ".claude/agents/x.md", "mcp.json", ".mcp.json.bak/x", ".chatclirc",
    "gitattributes", "docs/.git-notes", "my.git", ".gits/config",
]


@pytest.mark.parametrize("path", CONTROL)
def test_control_files_in_every_spelling(repo: Path, path: str) -> None:
    assert is_control_file(path, repo)
    assert is_control_file(repo / path, repo)  # absolute too


@pytest.mark.parametrize("path", NOT_CONTROL)
def test_near_misses_are_not(repo: Path, path: str) -> None:
    assert not is_control_file(path, repo)


def test_a_git_file_points_to_a_control_folder(repo: Path) -> None:
    store = repo / "store"
    subprocess.run(["git", "init", "-q", "--bare", str(store)], check=True)
    (repo / "wt").mkdir()
    (repo / "wt" / ".git").write_text("gitdir: ../store\n")
    assert is_control_file("store/config", repo)  # a repository's own folder
    assert is_control_file("store/hooks/pre-commit", repo)
    assert is_control_file("wt/.git", repo)
    assert str(store) in {str(p) for p in control_paths(repo)}
    # the workspace itself may be a worktree whose .git file points elsewhere
    linked = repo.parent / "linked"
    linked.mkdir()
    (linked / ".git").write_text(f"gitdir: {store}\n")
    assert is_control_file(store / "config", linked)


def test_control_paths_lists_what_exists(repo: Path) -> None:
    (repo / ".chatcli").mkdir()
    (repo / ".chatcli" / "config.toml").write_text("")
    (repo / "src" / ".gitattributes").write_text("")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text("{}")
    (repo / ".claude" / "notes.md").write_text("")
    found = {p.relative_to(repo).as_posix() for p in control_paths(repo)
             if p.is_relative_to(repo)}
    assert {".git", ".chatcli", "src/.gitattributes", ".claude/settings.json"} <= found
    assert ".claude/notes.md" not in found and ".git/config" not in found  # the folder is


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_judged_without_raising(text: str) -> None:
    root = Path(os.path.realpath("."))
    try:
        is_control_file(text, root)
    except ValueError:  # a NUL: not a path
        assert "\x00" in text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", ".", "..", "src"]), max_size=4),
       st.sampled_from([".git/config", ".gitattributes", ".chatcli/x", ".mcp.json"]),
       st.booleans())
def test_any_folder_and_case_keeps_a_control_file_one(tmp_path_factory: pytest.TempPathFactory,
                                                      folders: list[str], name: str,
                                                      upper: bool) -> None:
    root = Path(os.path.realpath(tmp_path_factory.getbasetemp()))
    tail = name.upper() if upper else name
    assert is_control_file("/".join([*folders, tail]), root)
