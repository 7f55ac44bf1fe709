"""Fixtures of the managed-policy tests (helpers in managed_support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chatcli_testing import OpenAIServer
from managed_support import World, make_world


@pytest.fixture
def world() -> Iterator[World]:
    """A world under /var/tmp with an (empty) user file and a git project, removed after."""
    made = make_world()
    try:
        yield made
    finally:
        made.remove()


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    """The scripted model (OpenAI's wire format)."""
    with OpenAIServer() as running:
        yield running
