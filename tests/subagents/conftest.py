"""Shared set-up of the chatcli-subagents tests: every test in tests/conftest.py's
``user_home`` (chatcli's folders and HOME in a temporary folder, fake provider keys)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """No real key, setting or persona leaks in."""
