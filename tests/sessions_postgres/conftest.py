"""Fixtures for chatcli-sessions-postgres: stores opened on the PostgreSQL server of
chatcli-testing's ``pg_server`` (one per xdist worker), a fresh schema or database per test."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing.postgres_server import PostgresServer

OpenStore = Callable[..., PostgresSessionStore]


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
