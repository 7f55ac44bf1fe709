"""A server that is missing, down, refusing us or gone mid-session is one line naming the cause
and the fix (a ConfigError when the store opens, a StoreError later), never a psycopg type, a
traceback or the password."""

from __future__ import annotations

import socket
import threading

import pytest
from chatcli import ChatcliError, ConfigError, Message, redact
from chatcli_sessions_api import StoreError
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing.postgres_server import PASSWORD_ROLE, PostgresServer
from sessions_postgres_support import turn, wired

PASSWORD = "Corr3ct-h0rse-battery"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _open_error(url: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        PostgresSessionStore.open(PostgresConfig(url=url, connect_timeout=5))
    return caught.value


def _one_line_without(err: ChatcliError, secret: str) -> str:
    line = str(err)
    assert "\n" not in line and "Traceback" not in line
    assert secret not in line and secret not in repr(err.args)
    assert err.hint, "the fix is named"
    return line


def test_server_down_names_the_server_and_the_fix() -> None:
    port = _closed_port()
    err = _open_error(f"postgresql://team:{PASSWORD}@127.0.0.1:{port}/sessions")
    assert isinstance(err, StoreError)  # the store contract's error too
    line = _one_line_without(err, PASSWORD)
    assert f"postgresql://team@127.0.0.1:{port}/sessions" in line
    assert "refused" in line.lower()
    assert "start the server" in line and "postgres_url" in line
    assert redact(f"leaked {PASSWORD} here") == "leaked *** here"  # registered as a secret


def test_unknown_host_is_one_line() -> None:
    line = _one_line_without(_open_error(
        f"postgresql://team:{PASSWORD}@no-such-host.invalid/sessions"), PASSWORD)
    assert "no-such-host.invalid" in line


def test_bad_url_is_a_config_error() -> None:
    line = _one_line_without(_open_error(f"postgresql://u:{PASSWORD}@[::1"), PASSWORD)
    assert "is not a PostgreSQL URL" in line and "postgresql://USER@HOST:5432/DBNAME" in line
    _open_error("just some words")


def test_wrong_password_is_not_shown(pg_server: PostgresServer, pg_database: str) -> None:
    url = pg_server.url(pg_database, user=PASSWORD_ROLE, password=PASSWORD)
    line = _one_line_without(_open_error(url), PASSWORD)
    assert "password authentication failed" in line and "check the user and password" in line
    assert pg_server.password not in line


def test_missing_database_says_how_to_create_it(pg_server: PostgresServer) -> None:
    url = pg_server.url("no_such_db", user=PASSWORD_ROLE, password=pg_server.password)
    line = _one_line_without(_open_error(url), pg_server.password)
    assert 'database "no_such_db" does not exist' in line and "createdb no_such_db" in line


def test_role_without_create_is_told_what_to_grant(pg_server: PostgresServer) -> None:
    db = pg_server.create_database()  # owned by postgres: the team role may not create tables
    pg_server.psql(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC; "
                   f"GRANT CONNECT ON DATABASE {db} TO {PASSWORD_ROLE}", dbname=db)
    with pytest.raises(StoreError) as caught:
        PostgresSessionStore.open(PostgresConfig(url=pg_server.team_url(db)))
    line = _one_line_without(caught.value, pg_server.password)
    assert "refused to create the session tables" in line
    assert "permission denied" in line and "grant" in line.lower()


def test_a_newer_schema_is_refused(pg_url: str, pg_server: PostgresServer,
                                   pg_database: str) -> None:
    PostgresSessionStore.open(PostgresConfig(url=pg_url)).close()
    pg_server.psql("UPDATE chatcli_sessions_meta SET value = '99' "
                   "WHERE name = 'schema_version'", dbname=pg_database)
    with pytest.raises(StoreError, match="newer than this") as caught:
        PostgresSessionStore.open(PostgresConfig(url=pg_url))
    assert "upgrade chatcli-sessions-postgres" in str(caught.value)


def test_server_gone_mid_session_then_back() -> None:
    with PostgresServer() as server:
        db = server.create_database(owner=PASSWORD_ROLE)
        store = PostgresSessionStore.open(PostgresConfig(url=server.team_url(db)))
        conversation = wired(store)
        turn(conversation, "before the outage")
        server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    f"WHERE datname = '{db}' AND pid <> pg_backend_pid()")
        assert store.load(conversation.id).head == conversation.head  # a read reconnects
        message = Message.user("the first write after a dropped connection")
        conversation.append(message)  # written: the dead connection failed before the commit
        assert store.messages(conversation.id)[-1].id == message.id
        server.stop()
        during = Message.user("during the outage")
        during.parent_id = conversation.head
        for call in (lambda: store.list(), lambda: store.search("outage"),
                     lambda: store.load(conversation.id),
                     lambda: store.append(conversation, during)):
            with pytest.raises(StoreError) as caught:
                call()
            line = _one_line_without(caught.value, server.password)
            assert "cannot use PostgreSQL" in line and "start the server" in line
        store.close()


def test_closed_store_refuses_politely(open_store) -> None:
    store = open_store()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list()


def test_every_call_after_the_server_cut_all_connections_works(
        pg_server: PostgresServer, pg_database: str, pg_url: str) -> None:
    store = PostgresSessionStore.open(PostgresConfig(url=pg_url))
    try:
        conversation = wired(store)
        turn(conversation, "before the cut")
        barrier = threading.Barrier(4)

        def reader() -> None:  # several threads at once: several pooled connections
            barrier.wait()
            for _ in range(10):
                assert store.info(conversation.id) is not None

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        pg_server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       f"WHERE datname = '{pg_database}' AND pid <> pg_backend_pid()")
        assert [i.id for i in store.list()] == [conversation.id]
        assert store.search("cut")[0].session_id == conversation.id
        pg_server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       f"WHERE datname = '{pg_database}' AND pid <> pg_backend_pid()")
        after = Message.user("after the cut")
        conversation.append(after)  # a write whose connection died before BEGIN: run again
        assert store.load(conversation.id).head == after.id
    finally:
        store.close()
