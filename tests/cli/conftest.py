"""Fixtures for the command-line tests: every test in tests/conftest.py's ``home``, starting in
its ``work`` folder, and in-process chatcli."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import Cli


@pytest.fixture(autouse=True)
def work(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``<home>/work``, the current folder; real runs (``run_process``) start there too."""
    work = home / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def cli(home: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> Cli:
    """In-process chatcli with the ``scripted`` provider (and its ``write_note`` tool)."""
    return Cli(capsys, monkeypatch)
