"""Fixtures of the team-deployment tests: an isolated chatcli home, the model (an OpenAI wire
server answering each message by name) and a team — three ``chatcli serve`` replicas sharing
one sessions store behind Debian's nginx (see team_support.py). nginx missing fails the tests
(``.ci/run`` installs ``nginx-light``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from team_support import FAKE_KEY, EchoModel, Team, nginx_binary, start_team, stop_team


@pytest.fixture(autouse=True)
def _isolated(user_home: Path) -> None:
    """No real key, setting or session leaks in."""


@pytest.fixture
def model() -> Iterator[EchoModel]:
    """The model every replica calls."""
    with EchoModel() as server:
        yield server
        server.release.set()


@pytest.fixture
def team(home: Path, model: EchoModel) -> Iterator[Team]:
    """Three replicas on one SQLite store (one data folder) behind nginx; at the end every
    replica still running stops cleanly on SIGTERM."""
    assert nginx_binary() is not None, "nginx is not installed: apt-get install nginx-light"
    started = start_team(home, model)
    try:
        yield started
    finally:
        model.release.set()
        codes = stop_team(started)
    assert all(code in (0, None) for code in codes), started.logs()
    for replica in started.replicas:
        assert FAKE_KEY not in replica.log()
