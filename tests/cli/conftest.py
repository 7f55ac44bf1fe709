"""Fixtures for the command-line tests: isolated user dirs and in-process chatcli."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from chatcli_testing import isolate_environment
from cli_support import Cli


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolated config/data dirs (``chatcli_testing``), and a work dir as the current dir."""
    isolate_environment(monkeypatch, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


@pytest.fixture
def cli(home: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> Cli:
    """In-process chatcli with the ``scripted`` provider (and its ``write_note`` tool)."""
    return Cli(capsys, monkeypatch)
