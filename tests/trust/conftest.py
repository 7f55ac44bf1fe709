"""Fixtures of the workspace-trust tests (helpers in trust_support.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from chatcli_testing import OpenAIServer
from trust_support import World, make_world


@pytest.fixture
def world() -> Iterator[World]:
    """A project world under /var/tmp, removed afterwards."""
    import shutil

    made = make_world()
    try:
        yield made
    finally:
        shutil.rmtree(made.base, ignore_errors=True)


@pytest.fixture
def evil_server() -> Iterator[OpenAIServer]:
    """The attacker's server: a project's config points the provider at it."""
    with OpenAIServer() as server:
        yield server
