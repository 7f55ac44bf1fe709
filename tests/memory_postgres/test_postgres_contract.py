"""The memory backend contract on a real PostgreSQL server, each test in an empty schema."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from chatcli_memory_api import MemoryBackend
from chatcli_testing import MemoryBackendContract


class TestPostgresContract(MemoryBackendContract):
    """Every contract test, the tables unqualified (where ``search_path`` puts them: ``public``
    by default, here a fresh schema per test)."""

    @pytest.fixture
    def backend(self, opener, pg_schema_url: str) -> Iterator[MemoryBackend]:
        yield opener(url=pg_schema_url)

    @pytest.fixture
    def second_backend(self, backend, opener, pg_schema_url: str) -> Iterator[MemoryBackend]:
        yield opener(url=pg_schema_url)  # another connection, as another machine opens it


class TestPostgresContractInASchema(MemoryBackendContract):
    """The same with ``[memory] postgres_schema`` set: the backend creates the schema and
    qualifies every name."""

    @pytest.fixture
    def schema(self) -> str:
        return f"memory_{uuid.uuid4().hex[:12]}"

    @pytest.fixture
    def backend(self, opener, pg_server, pg_shared_database: str,
                schema: str) -> Iterator[MemoryBackend]:
        yield opener(url=pg_server.team_url(pg_shared_database), schema=schema)

    @pytest.fixture
    def second_backend(self, backend, opener, pg_server, pg_shared_database: str,
                       schema: str) -> Iterator[MemoryBackend]:
        yield opener(url=pg_server.team_url(pg_shared_database), schema=schema)
