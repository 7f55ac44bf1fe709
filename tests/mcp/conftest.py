"""Fixtures of the chatcli-mcp tests: an isolated chatcli home (config, data and cache in the
test's folder, HOME too, no keys or CHATCLI_* leaking in), a workspace that is a project root,
and the demo server over streamable HTTP and SSE in a subprocess on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_testing import isolate_environment
from mcp_support import DEMO, free_port, wait_for_port


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    base = Path(os.path.realpath(tmp_path))
    home = isolate_environment(monkeypatch, base / "home")
    (home / "cache").mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "project"
    (root / ".git").mkdir(parents=True)
    return root


def _serve(transport: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(DEMO), "--transport", transport,
                                "--port", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/" + ("mcp" if transport == "http" else "sse")
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def http_server() -> Iterator[str]:
    """The demo server over streamable HTTP: its URL (…/mcp)."""
    yield from _serve("http")


@pytest.fixture
def sse_server() -> Iterator[str]:
    """The demo server over legacy SSE: its URL (…/sse)."""
    yield from _serve("sse")
