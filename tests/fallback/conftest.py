"""Fixtures of the fallback tests: an isolated chatcli home (``chatcli_testing``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def fb_home(chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``chatcli_home`` (config, data and cache dirs in a temp dir, keys cleared) as the
    current directory."""
    monkeypatch.chdir(chatcli_home)
    return chatcli_home
