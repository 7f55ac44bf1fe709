"""Fixtures of the chatcli-skills tests: an isolated home (HOME, chatcli's config, data and cache
in the test's folder; no keys or CHATCLI_* leaking in), a workspace that is a project root
(it holds ``.git/``), and chats against the OpenAI and Anthropic wire servers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import isolate_environment
from session_harness import chats
from skills_support import Chat


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(os.path.realpath(tmp_path))
    home = isolate_environment(monkeypatch, base / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return home


@pytest.fixture
def config(home: Path) -> Path:
    """The user's chatcli config folder."""
    return home / "config"


@pytest.fixture
def user_skills(config: Path) -> Path:
    """The user's own skills folder (``<config dir>/skills``)."""
    folder = config / "skills"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def project_skills(workspace: Path) -> Path:
    folder = workspace / ".chatcli" / "skills"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The user trusts every project (as ``[skills] trust_project = true`` would)."""
    monkeypatch.setenv("CHATCLI_SKILLS__TRUST_PROJECT", "1")


@pytest.fixture
def chat(openai_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """``chat(**settings)``: a session on the OpenAI wire server with the skills plugin."""
    yield from chats(lambda **kwargs: Chat(openai_server, workspace, **kwargs))


@pytest.fixture
def anthropic_chat(anthropic_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """The same on the Anthropic wire server."""
    yield from chats(lambda **kwargs: Chat(anthropic_server, workspace, provider="anthropic",
                                              **kwargs))
