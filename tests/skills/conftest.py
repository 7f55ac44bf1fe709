"""Fixtures of the chatcli-skills tests: every test in ``user_home`` (tests/conftest.py: HOME,
chatcli's config, data and cache in the test's folder; no keys or CHATCLI_* leaking in), skill
folders in it and in the ``workspace``, and chats against the OpenAI and Anthropic wire servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from session_harness import chats
from skills_support import Chat


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """Every test here runs in ``user_home`` (tests/conftest.py):
    the plugin reads ``~/.claude/skills`` and ``~/.agents/skills``."""


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
