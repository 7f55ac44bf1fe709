"""The session store contract (``chatcli_testing.SessionStoreContract``) on a real PostgreSQL
server, each test in an empty schema: two store objects are two replicas, as two ``chatcli
serve`` processes on two machines are."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from chatcli_sessions_api import SessionStore
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing import SessionStoreContract


class TestPostgresStoreContract(SessionStoreContract):
    """Every contract test, the tables unqualified (where ``search_path`` puts them: a fresh
    schema per test here, ``public`` by default). (``[sessions] postgres_schema``, qualifying
    every name, is the setting test_pg_plugin and the replica tests use.)"""

    @pytest.fixture
    def open_store(self, opener, pg_schema_url: str) -> Iterator[Callable[[], SessionStore]]:
        def open_replica() -> SessionStore:
            store: PostgresSessionStore = opener(url=pg_schema_url)
            return store

        yield open_replica
