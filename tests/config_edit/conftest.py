"""These tests never touch the user's real configuration."""

from __future__ import annotations

import pytest
from chatcli_testing import isolate_environment


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Config and data dirs under tmp_path, no leaking keys or settings, tmp_path as the cwd."""
    isolate_environment(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path
