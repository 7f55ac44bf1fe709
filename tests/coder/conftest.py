"""Fixtures of the coder tests: an isolated home, a workspace, an agent, a git repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli_testing import isolate_environment
from coder_support import Agent, git


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Config and data under tmp_path, no leaking keys or settings."""
    isolate_environment(monkeypatch, tmp_path / "home")
    return tmp_path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def agent(workspace: Path) -> Agent:
    return Agent(workspace)


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The workspace as a git repository with one commit."""
    git(workspace, "init", "-q", "-b", "main")
    (workspace / "README.md").write_text("# demo\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "first")
    return workspace
