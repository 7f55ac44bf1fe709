"""Fixtures for REPL tests: a tmux terminal running chatcli against the testing servers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .terminal import CHATCLI, Terminal, have_tmux


@pytest.fixture
def start_chat(chatcli_home: Path) -> Iterator[Callable[..., Terminal]]:
    """Start ``chatcli ARGS`` in tmux with an isolated home; extra env as keyword arguments."""
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    terminals: list[Terminal] = []

    def start(*args: str, **env: str) -> Terminal:
        base = {
            "CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
            "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"],
            "TERM": "xterm-256color",
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(chatcli_home),
            # The model's answers are scripted: the memory plugin's background extraction
            # (after two exchanges) would take one of them. tests/memory covers it.
            "CHATCLI_MEMORY__EXTRACT": "false",
        }
        terminal = Terminal(" ".join([CHATCLI, *args]), {**base, **env})
        terminals.append(terminal)
        terminal.wait_for("›", timeout=20)
        return terminal

    yield start
    for terminal in terminals:
        terminal.close()
