"""Fixtures of the chatcli-context tests: an isolated chatcli home (config, data and cache in
the test's folder, no keys or CHATCLI_* leaking in), a workspace that is a project root
(it holds ``.git/``), and sessions against the OpenAI and Anthropic wire servers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import isolate_environment
from context_support import Chat
from session_harness import chats


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(os.path.realpath(tmp_path))
    home = isolate_environment(monkeypatch, base / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return home


@pytest.fixture
def config(home: Path) -> Path:
    """The user's chatcli config folder (where user bootstrap files and rules live)."""
    return home / "config"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def chat(openai_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """``chat(**settings)``: a session on the OpenAI wire server with the context plugin."""
    yield from chats(lambda **settings: Chat(openai_server, workspace, **settings))


@pytest.fixture
def anthropic_chat(anthropic_server: Any, workspace: Path) -> Iterator[Callable[..., Chat]]:
    """The same on the Anthropic wire server."""
    yield from chats(lambda **settings: Chat(anthropic_server, workspace, provider="anthropic",
                                              **settings))
