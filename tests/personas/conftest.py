"""Fixtures of the chatcli-personas tests: every test in ``user_home`` (tests/conftest.py: config,
data, cache and HOME in the test's folder — ``~/.claude`` included — no keys or CHATCLI_* leaking
in), and sessions in the ``workspace`` against the OpenAI wire server with the personas plugin."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from personas_support import Chat
from session_harness import chats


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """Every test here runs in ``user_home`` (tests/conftest.py):
    the plugin reads ``~/.claude/agents`` and ``~/.claude/commands``."""


@pytest.fixture
def config(home: Path) -> Path:
    """The user's chatcli config folder (``agents/`` and ``commands/`` live there)."""
    return home / "config"


@pytest.fixture
def chat(openai_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """``chat(**options)``: a session on the OpenAI wire server with the personas plugin."""
    yield from chats(lambda **options: Chat(openai_server, workspace, **options))
