"""Fixtures of the coder tests: every test in tests/conftest.py's ``home``; its ``workspace`` is
no git repository (``repo`` makes it one); an agent in it."""

from __future__ import annotations

from pathlib import Path

import pytest
from coder_support import Agent, git


@pytest.fixture(autouse=True)
def _isolated(home: Path) -> None:
    """Config, data and cache in the test's ``home``; no keys or settings leaking in."""


@pytest.fixture
def workspace_is_project_root() -> bool:
    """The coder's workspace is no git repository: what the sandbox does about a ``.git``
    made by a command depends on it."""
    return False


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
