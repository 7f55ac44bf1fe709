"""Fixtures of the Claude Code and Codex provider tests: fake executables first on PATH, an
isolated chatcli home, and a check after every test that no process they started survived."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_codex_fakes import FakeClis, alive, make_fakes


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chatcli_home: Path
          ) -> Iterator[FakeClis]:
    """Fake ``claude`` and ``codex`` on PATH; after the test, none of their processes (nor
    the children they started) may still run."""
    found = make_fakes(tmp_path / "fakes")
    for key, value in found.env.items():
        monkeypatch.setenv(key, value)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield found
    deadline = time.monotonic() + 5
    pids = found.pids("claude") + found.pids("codex")
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.05)
    survivors = [pid for pid in pids if alive(pid)]
    assert not survivors, f"processes outlived the test: {survivors}"


@pytest.fixture
def make_provider(fakes: FakeClis) -> Iterator[Callable[..., Any]]:
    """Build the ``claude-code`` or ``codex`` provider as the kernel would (its factory)."""
    from chatcli import ProviderConfig
    from chatcli_provider_cli import plugin

    built: list[Any] = []

    def make(name: str = "claude-code", *, model: str = "default", timeout: float = 10.0,
             **options: Any) -> Any:
        factory = plugin.make_claude if name == "claude-code" else plugin.make_codex
        provider = factory(ProviderConfig(name=name, model=model, timeout=timeout,
                                          options=options))
        built.append(provider)
        return provider

    yield make
    for provider in built:
        provider.close()
