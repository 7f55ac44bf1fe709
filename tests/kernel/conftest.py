"""Kernel tests never touch the user's real configuration."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Point config and data dirs at tmp folders and drop variables that leak settings."""
    import os

    for name in list(os.environ):
        if name.startswith("CHATCLI_") or name.endswith("_API_KEY"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    return tmp_path
