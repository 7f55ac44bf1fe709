"""Fixtures of the repomap tests: chatcli's folders in the test's own home (``home``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated(home: Path) -> None:
    """Every test here keeps chatcli's cache (the map's) in its own folder."""
