"""Fixtures of the fallback tests: an isolated chatcli home (``chatcli_testing``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def fb_home(chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``chatcli_home`` (config, data and cache dirs in a temp dir, keys cleared) as the
    current directory."""
    monkeypatch.chdir(chatcli_home)
    return chatcli_home
