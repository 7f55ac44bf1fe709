"""Fixtures of the chatcli-mcp tests: every test in ``user_home`` (tests/conftest.py: config,
data and cache in the test's folder, HOME too, no keys or CHATCLI_* leaking in), and the demo
server over streamable HTTP and SSE in a subprocess on a free port."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_support import DEMO, free_port, wait_for_port


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """Every test here runs in ``user_home`` (tests/conftest.py):
    servers configured in the user's folders must not reach it."""


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
