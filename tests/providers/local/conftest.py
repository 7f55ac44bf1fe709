"""Fixtures of the local-provider tests: isolated user dirs and one loaded model per session."""

from __future__ import annotations

import os

import pytest
from chatcli.types import ProviderConfig


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Point config and data dirs at tmp folders and drop variables that leak settings or keys."""
    for name in list(os.environ):
        if name.startswith("CHATCLI_") or name.endswith("_API_KEY"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def local_provider():
    """The default local provider (bundled SmolLM2), loaded once for the whole session."""
    from chatcli_provider_local.plugin import make_local_provider

    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
    provider.load()
    return provider
