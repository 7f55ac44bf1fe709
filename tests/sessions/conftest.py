"""Fixtures for the sessions plugin tests (``home`` is tests/conftest.py's)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_sessions import plugin as sessions_plugin
from chatcli_sessions.store import default_path
from sessions_helpers import FakeApp


@pytest.fixture(autouse=True)
def _close_stores(home: Path) -> Iterator[None]:
    """Every test here runs in ``home``; the plugin's connections are closed afterwards."""
    yield
    sessions_plugin.close_stores()


@pytest.fixture
def host(home: Path) -> PluginHost:
    """A plugin host with only the sessions plugin; any plugin failure fails the test."""

    def warn(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    h = PluginHost(warn=warn)
    assert h.register(sessions_plugin, "sessions")
    return h


@pytest.fixture
def db_path(home: Path) -> Path:
    """Where the plugin keeps its database in this test."""
    return default_path()


@pytest.fixture
def app(host: PluginHost) -> Iterator[FakeApp]:
    """A chat app with an open session (scripted provider) wired to the sessions plugin."""
    from chatcli_testing import ScriptedProvider, scripted_plugin

    assert host.register(scripted_plugin(ScriptedProvider()), "scripted")
    fake = FakeApp(host)
    yield fake
    fake.session.close()
