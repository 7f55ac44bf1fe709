"""Fixtures of the chatcli-context tests: every test in ``user_home`` (tests/conftest.py: config,
data, cache and HOME in the test's folder, no keys or CHATCLI_* leaking in), and sessions in the
``workspace`` against the OpenAI and Anthropic wire servers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from context_support import Chat
from session_harness import chats


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """Every test here runs in ``user_home`` (tests/conftest.py):
    the plugin reads the user's bootstrap files (``~/.claude/CLAUDE.md``…)."""


@pytest.fixture
def config(home: Path) -> Path:
    """The user's chatcli config folder (where user bootstrap files and rules live)."""
    return home / "config"


@pytest.fixture
def chat(openai_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """``chat(**settings)``: a session on the OpenAI wire server with the context plugin."""
    yield from chats(lambda **settings: Chat(openai_server, workspace, **settings))


@pytest.fixture
def anthropic_chat(anthropic_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """The same on the Anthropic wire server."""
    yield from chats(lambda **settings: Chat(anthropic_server, workspace, provider="anthropic",
                                              **settings))
