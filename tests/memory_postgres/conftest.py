"""Fixtures for chatcli-memory-postgres: backends opened on the PostgreSQL server of
chatcli-testing's ``pg_server`` (one per xdist worker), a fresh database per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli_memory_postgres.backend import PostgresMemoryBackend
from chatcli_memory_postgres.settings import PostgresConfig

OpenBackend = Callable[..., PostgresMemoryBackend]


@pytest.fixture
def opener() -> Iterator[OpenBackend]:
    """``opener(url=…, **config)`` opens a backend (every one is closed afterwards)."""
    opened: list[PostgresMemoryBackend] = []

    def open_(**fields: object) -> PostgresMemoryBackend:
        backend = PostgresMemoryBackend.open(PostgresConfig(**fields))  # type: ignore[arg-type]
        opened.append(backend)
        return backend

    yield open_
    for backend in opened:
        backend.close()


@pytest.fixture
def open_backend(pg_url: str, opener: OpenBackend) -> OpenBackend:
    """``open_backend(**config)`` opens a backend on the test's own database."""

    def open_(**fields: object) -> PostgresMemoryBackend:
        fields.setdefault("url", pg_url)
        return opener(**fields)

    return open_


@pytest.fixture
def no_database_url(monkeypatch: pytest.MonkeyPatch, chatcli_home: Path) -> Path:
    """An isolated chatcli home without DATABASE_URL or CHATCLI_MEMORY_POSTGRES_URL."""
    for name in ("DATABASE_URL", "CHATCLI_MEMORY_POSTGRES_URL"):
        monkeypatch.delenv(name, raising=False)
    return chatcli_home
