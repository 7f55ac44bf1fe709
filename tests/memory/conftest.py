"""Fixtures of the chatcli-memory tests: an isolated chatcli home (config, data and cache in
the test's folder, no keys or CHATCLI_* leaking in), a workspace that is a project root
(it holds ``.git/``), a clock the tests move, and sessions on the OpenAI wire server."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import isolate_environment
from memory_support import Chat, Clock


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(os.path.realpath(tmp_path))
    home = isolate_environment(monkeypatch, base / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return home


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


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
