"""Fixtures of the chatcli-personas tests: an isolated home (config, data, cache and HOME in the
test's folder — ``~/.claude`` included — no keys or CHATCLI_* leaking in), a workspace that is a
project root (it holds ``.git/``) and is the current folder, and sessions against the OpenAI
wire server with the personas plugin."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import isolate_environment
from personas_support import Chat
from session_harness import chats


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(os.path.realpath(tmp_path))
    home = isolate_environment(monkeypatch, base / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def config(home: Path) -> Path:
    """The user's chatcli config folder (``agents/`` and ``commands/`` live there)."""
    return home / "config"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def chat(openai_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """``chat(**options)``: a session on the OpenAI wire server with the personas plugin."""
    yield from chats(lambda **options: Chat(openai_server, workspace, **options))
