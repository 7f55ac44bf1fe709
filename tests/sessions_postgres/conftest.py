"""Fixtures for chatcli-sessions-postgres: one throwaway PostgreSQL server per xdist worker
(started from the installed binaries, its files in memory when there is room), a fresh schema
or database per test.

Without PostgreSQL's binaries the tests are skipped with a message saying that ``.ci/run``
installs them; with ``CHATCLI_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) they fail instead, so CI
cannot pass by skipping them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing.postgres_server import PASSWORD_ROLE, PostgresServer, PostgresUnavailable

OpenStore = Callable[..., PostgresSessionStore]

#: Where the servers keep their files when it has room: memory (see tests/memory_postgres).
MEMORY = Path("/dev/shm")


def _in_memory() -> bool:
    return MEMORY.is_dir() and os.access(MEMORY, os.W_OK) and \
        shutil.disk_usage(MEMORY).free > 2 * 1024**3


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for this worker's tests (removed at the end)."""
    saved = tempfile.tempdir  # where PostgresServer.start's mkdtemp makes the server's folder
    try:
        if _in_memory():
            tempfile.tempdir = str(MEMORY)
        server = PostgresServer().start()
    except PostgresUnavailable as err:
        if os.environ.get("CHATCLI_REQUIRE_POSTGRES") == "1":
            pytest.fail(str(err))
        pytest.skip(str(err))
    finally:
        tempfile.tempdir = saved
    yield server
    server.stop()


@pytest.fixture
def pg_database(pg_server: PostgresServer) -> str:
    """A new, empty database owned by the team role (as a team's administrator would make)."""
    return pg_server.create_database(owner=PASSWORD_ROLE)


@pytest.fixture
def pg_url(pg_server: PostgresServer, pg_database: str) -> str:
    """The team member's URL (password included) to the test's own database."""
    return pg_server.team_url(pg_database)


@pytest.fixture(scope="session")
def pg_shared_database(pg_server: PostgresServer) -> str:
    """One database for this worker's tests that each take a fresh schema in it."""
    return pg_server.create_database(owner=PASSWORD_ROLE)


@pytest.fixture
def pg_schema_url(pg_server: PostgresServer, pg_shared_database: str) -> str:
    """A URL whose ``search_path`` is a new, empty schema of the shared database (the store's
    unqualified tables land there; far cheaper than a database per test)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    pg_server.psql(f"CREATE SCHEMA {schema} AUTHORIZATION {PASSWORD_ROLE}",
                   dbname=pg_shared_database)
    return f"{pg_server.team_url(pg_shared_database)}?options=-csearch_path%3D{schema}"


@pytest.fixture
def opener() -> Iterator[OpenStore]:
    """``opener(url=…, **config)`` opens a store (every one is closed afterwards)."""
    opened: list[PostgresSessionStore] = []

    def open_(**fields: object) -> PostgresSessionStore:
        store = PostgresSessionStore.open(PostgresConfig(**fields))  # type: ignore[arg-type]
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def open_store(pg_schema_url: str, opener: OpenStore) -> OpenStore:
    """``open_store(**config)`` opens a store on the test's own schema: call it twice for two
    replicas."""

    def open_(**fields: object) -> PostgresSessionStore:
        fields.setdefault("url", pg_schema_url)
        return opener(**fields)

    return open_


@pytest.fixture
def no_database_url(monkeypatch: pytest.MonkeyPatch, chatcli_home: Path) -> Path:
    """An isolated chatcli home without DATABASE_URL or CHATCLI_SESSIONS_POSTGRES_URL."""
    for name in ("DATABASE_URL", "CHATCLI_SESSIONS_POSTGRES_URL"):
        monkeypatch.delenv(name, raising=False)
    return chatcli_home


@pytest.fixture(scope="module")
def open_store_once(pg_server: PostgresServer, pg_shared_database: str
                    ) -> Iterator[tuple[PostgresSessionStore, PostgresSessionStore]]:
    """Two replicas on one schema of the shared database for a whole module (property tests
    make a session per example)."""
    schema = f"m_{uuid.uuid4().hex[:12]}"
    stores = [PostgresSessionStore.open(PostgresConfig(url=pg_server.team_url(
        pg_shared_database), schema=schema)) for _ in range(2)]
    yield stores[0], stores[1]
    for store in stores:
        store.close()
