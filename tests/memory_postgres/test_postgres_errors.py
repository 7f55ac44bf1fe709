"""A server that is missing, down, refusing us or gone mid-session is one line naming the cause
and the fix, a ChatcliError (never a psycopg type or a traceback), and never shows a password."""

from __future__ import annotations

import socket

import pytest
from chatcli import ChatcliError, ConfigError, redact
from chatcli_memory_api import MemoryItem
from chatcli_memory_postgres.backend import PostgresMemoryBackend
from chatcli_memory_postgres.settings import PostgresConfig
from chatcli_testing.postgres_server import PASSWORD_ROLE, PostgresServer

PASSWORD = "Tr0ub4dor-horse-staple"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _open_error(url: str) -> ChatcliError:
    with pytest.raises(ChatcliError) as caught:
        PostgresMemoryBackend.open(PostgresConfig(url=url, connect_timeout=5))
    return caught.value


def _one_line_without(err: ChatcliError, secret: str) -> str:
    line = str(err)
    assert "\n" not in line and "Traceback" not in line
    assert secret not in line and secret not in repr(err.args)
    assert err.hint, "the fix is named"
    return line


def test_server_down_names_the_server_and_the_fix() -> None:
    port = _closed_port()
    err = _open_error(f"postgresql://team:{PASSWORD}@127.0.0.1:{port}/memory")
    line = _one_line_without(err, PASSWORD)
    assert f"postgresql://team@127.0.0.1:{port}/memory" in line
    assert "refused" in line.lower()
    assert "start the server" in line and "postgres_url" in line
    assert redact(f"leaked {PASSWORD} here") == "leaked *** here"  # registered as a secret


def test_unknown_host_is_one_line() -> None:
    err = _open_error(f"postgresql://team:{PASSWORD}@no-such-host.invalid/memory")
    line = _one_line_without(err, PASSWORD)
    assert "no-such-host.invalid" in line


def test_wrong_password_is_not_shown(pg_server: PostgresServer, pg_database: str) -> None:
    url = pg_server.url(pg_database, user=PASSWORD_ROLE, password=PASSWORD)
    line = _one_line_without(_open_error(url), PASSWORD)
    assert "password authentication failed" in line
    assert "check the user and password" in line
    assert pg_server.password not in line


def test_missing_database_says_how_to_create_it(pg_server: PostgresServer) -> None:
    url = pg_server.url("no_such_db", user=PASSWORD_ROLE, password=pg_server.password)
    line = _one_line_without(_open_error(url), pg_server.password)
    assert 'database "no_such_db" does not exist' in line
    assert "createdb no_such_db" in line


def test_role_without_create_is_told_what_to_grant(pg_server: PostgresServer) -> None:
    db = pg_server.create_database()  # owned by postgres: the team role may not create tables
    pg_server.psql(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC; "
                   f"GRANT CONNECT ON DATABASE {db} TO {PASSWORD_ROLE}", dbname=db)
    line = _one_line_without(_open_error(pg_server.team_url(db)), pg_server.password)
    assert "refused to create the memory tables" in line
    assert "permission denied" in line and "grant" in line.lower()


def test_bad_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        PostgresMemoryBackend.open(PostgresConfig(url=f"postgresql://u:{PASSWORD}@[::1"))
    line = _one_line_without(caught.value, PASSWORD)
    assert "is not a PostgreSQL URL" in line and "postgresql://USER@HOST:5432/DBNAME" in line
    with pytest.raises(ConfigError):
        PostgresMemoryBackend.open(PostgresConfig(url="just some words"))


def test_server_gone_mid_session_then_back() -> None:
    with PostgresServer() as server:
        db = server.create_database(owner=PASSWORD_ROLE)
        backend = PostgresMemoryBackend.open(PostgresConfig(url=server.team_url(db)))
        kept = backend.store(MemoryItem(text="stored before the outage"))
        server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    f"WHERE datname = '{db}' AND pid <> pg_backend_pid()")
        assert backend.get(kept.id) == kept  # a dropped connection: a read reconnects
        server.stop()
        for call in (lambda: backend.store(MemoryItem(text="during the outage")),
                     lambda: backend.list(), lambda: backend.search("outage"),
                     lambda: backend.touch([kept.id])):
            with pytest.raises(ChatcliError) as caught:
                call()
            line = _one_line_without(caught.value, server.password)
            assert "cannot use PostgreSQL" in line and "start the server" in line
        backend.close()


def test_a_write_on_a_dropped_connection_fails_once_then_reconnects(
        pg_server: PostgresServer, pg_database: str, pg_url: str) -> None:
    backend = PostgresMemoryBackend.open(PostgresConfig(url=pg_url))
    try:
        pg_server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       f"WHERE datname = '{pg_database}' AND pid <> pg_backend_pid()")
        with pytest.raises(ChatcliError):  # whether it was applied is unknown: not retried
            backend.store(MemoryItem(text="lost with the connection"))
        item = backend.store(MemoryItem(text="after reconnecting"))
        assert [i.id for i in backend.list()] == [item.id]
    finally:
        backend.close()


def test_closed_backend_refuses_politely(open_backend) -> None:
    backend = open_backend()
    backend.close()
    with pytest.raises(ChatcliError, match="closed"):
        backend.list()
