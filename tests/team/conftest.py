"""Fixtures of the team-deployment tests: an isolated chatcli home, the model (an OpenAI wire
server answering each message by name) and a team — three ``chatcli serve`` replicas sharing
one sessions store behind Debian's nginx (see team_support.py), once on SQLite (one data folder
shared by the processes) and once on PostgreSQL (a throwaway server per xdist worker, a database
per test). nginx missing fails the tests (``.ci/run`` installs ``nginx-light``); PostgreSQL's
binaries missing skips the PostgreSQL half, or fails it with ``CHATCLI_REQUIRE_POSTGRES=1``
(``.ci/run``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_testing.postgres_server import PostgresServer
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


#: The stores the team runs on.
STORES = ("sqlite", "postgres")


@pytest.fixture(params=STORES)
def store_config(request: pytest.FixtureRequest) -> str:
    """The user config naming the replicas' sessions store: SQLite (the default: one data
    folder) or a new database on the worker's PostgreSQL server."""
    if request.param == "sqlite":
        return ""
    from chatcli_testing.postgres_server import PASSWORD_ROLE

    server: PostgresServer = request.getfixturevalue("pg_server")
    url = server.team_url(server.create_database(owner=PASSWORD_ROLE))
    return f'[sessions]\nbackend = "postgres"\npostgres_url = "{url}"\n'


@pytest.fixture
def team(home: Path, model: EchoModel, store_config: str) -> Iterator[Team]:
    """Three replicas on one store behind nginx; at the end every replica still running stops
    cleanly on SIGTERM and none wrote the provider key in its log."""
    assert nginx_binary() is not None, "nginx is not installed: apt-get install nginx-light"
    started = start_team(home, model, config=store_config)
    try:
        yield started
    finally:
        model.release.set()
        codes = stop_team(started)
    assert all(code in (0, None) for code in codes), started.logs()
    for replica in started.replicas:
        assert FAKE_KEY not in replica.log()
