"""The pytest plugin's fixtures: started servers and an isolated chatcli home."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
from chatcli import _paths as paths


def test_chatcli_home_isolates_dirs_and_clears_keys(monkeypatch: pytest.MonkeyPatch,
                                                    request: pytest.FixtureRequest) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-user-key-0000")
    monkeypatch.setenv("CHATCLI_PROVIDER", "openai")
    monkeypatch.setenv("OLLAMA_HOST", "http://elsewhere:11434")
    home: Path = request.getfixturevalue("chatcli_home")
    assert paths.config_dir() == home / "config"
    assert paths.data_dir() == home / "data"
    assert paths.config_dir().is_dir() and paths.data_dir().is_dir()
    for name in ("OPENAI_API_KEY", "CHATCLI_PROVIDER", "OLLAMA_HOST", "ANTHROPIC_API_KEY"):
        assert name not in os.environ


@pytest.mark.parametrize(
    ("fixture", "path"),
    [("openai_server", "/models"), ("anthropic_server", "/v1/models"),
     ("ollama_server", "/api/tags")],
)
def test_server_fixtures_are_started(request: pytest.FixtureRequest, fixture: str,
                                     path: str) -> None:
    server = request.getfixturevalue(fixture)
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        body = json.load(response)
    assert body
    assert server.requests[-1].method == "GET"
