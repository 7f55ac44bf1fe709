"""Fixtures of the chatcli-memory tests: every test in ``user_home`` (tests/conftest.py: config,
data, cache and HOME in the test's folder, no keys or CHATCLI_* leaking in), a clock the tests
move, and sessions in the ``workspace`` on the OpenAI wire server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_support import Chat, Clock


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """Every test here runs in ``user_home`` (tests/conftest.py):
    the memory database lives in chatcli's data dir, never the user's."""


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def chat(openai_server: Any, workspace: Path, clock: Clock) -> Iterator[Callable[..., Chat]]:
    """``chat(**settings)``: a new session (a new conversation) with the memory plugin."""
    made: list[Chat] = []

    def make(**settings: Any) -> Chat:
        made.append(Chat(openai_server, workspace, clock, **settings))
        return made[-1]

    yield make
    for one in made:
        one.close()
        one.runtime.close()
