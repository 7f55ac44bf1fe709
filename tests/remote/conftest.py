"""Shared set-up of the chatcli-remote tests: an isolated user home (tests/conftest.py's
``user_home``), a wire server speaking OpenAI, a project under a token's root, a token made by
the real ``chatcli serve token create`` and a real ``chatcli serve`` process (see
remote_support.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import OpenAIServer, Reply
from remote_support import FAKE_KEY, ServeProcess, create_token, serve_env


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """No real key, setting or session leaks in."""


class Wire(OpenAIServer):
    """The OpenAI wire server, answering chatcli-memory's background extraction requests
    (after a turn — a subagent worker's too — whenever they come) with nothing to keep, so the
    script is the chat's: an extraction that came first took the answer a test scripted."""

    def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
        system = json.dumps((request.json or {}).get("messages", [{}])[0])
        if "long-term memory" in system:
            reply = Reply(text="{}")
            if stream:
                self.run_stream(exchange, self.stream_events(reply, "gpt-test", request.json),
                                reply, None)
            else:
                self.send_full(exchange, reply, "gpt-test", request.json, None)
            return
        super().answer_chat(exchange, request, stream)


@pytest.fixture
def wire() -> Iterator[OpenAIServer]:
    """The model: a started OpenAI wire server (script it with ``wire.script(...)``);
    chatcli-memory's extraction requests are answered apart (:class:`Wire`)."""
    with Wire() as server:
        yield server


@pytest.fixture
def root(home: Path) -> Path:
    """The token's root: a folder holding the project ``root/project`` (a git root)."""
    folder = home / "roots" / "main"
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture
def env(home: Path, wire: OpenAIServer) -> dict[str, str]:
    """The served chatcli's environment."""
    return serve_env(home, wire)


@pytest.fixture
def token(env: dict[str, str], root: Path) -> str:
    """A token for ``root``, made through ``chatcli serve token create``."""
    secret, _ = create_token(env, "tests", root)
    return secret


@pytest.fixture
def serve_config() -> str:
    """The user's config file (TOML) the ``server`` starts with (a module overrides it)."""
    return ""


@pytest.fixture
def server(home: Path, env: dict[str, str], root: Path, token: str,
           serve_config: str) -> Iterator[ServeProcess]:
    """A running ``chatcli serve --port 0 --port-file F`` (stopped with SIGTERM at the end);
    no response it gave may hold the provider key or the token."""
    if serve_config:
        (home / "config" / "config.toml").write_text(serve_config)
    process = ServeProcess(home, env, root).start()
    try:
        yield process
    finally:
        stopped = process.stop()
    assert stopped == 0, process.log()
    seen = process.all_bodies()
    assert FAKE_KEY.encode() not in seen
    assert token.encode() not in seen
