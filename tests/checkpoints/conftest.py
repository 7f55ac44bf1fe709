"""Fixtures for the checkpoint tests: a umask that would leave files readable by others, and an
app in a workspace (in tests/conftest.py's ``home``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli import Settings
from checkpoints_helpers import App


@pytest.fixture(autouse=True)
def _loose_umask() -> Iterator[None]:
    """A umask that would leave files readable by others (the plugin must not rely on it)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def make_app(home: Path) -> Iterator[Callable[..., App]]:
    """``make_app(workspace, settings=…, interactive=…)``: a chat app; closed afterwards."""
    apps: list[App] = []

    def make(workspace: Path, settings: Settings | None = None, **kw: object) -> App:
        app = App(workspace, settings or Settings(provider="scripted"), **kw)  # type: ignore[arg-type]
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()
