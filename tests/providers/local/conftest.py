"""Fixtures of the local-provider tests: isolated user dirs and one loaded model per session."""

from __future__ import annotations

import pytest
from chatcli import ProviderConfig
from chatcli_testing import isolate_environment


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Config and data dirs under tmp_path, no leaking keys or settings, tmp_path as the cwd."""
    isolate_environment(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="session")
def local_provider():
    """The default local provider (bundled SmolLM2), loaded once for the whole session."""
    from chatcli_provider_local.plugin import make_local_provider

    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
    provider.load()
    return provider
