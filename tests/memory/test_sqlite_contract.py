"""The SQLite backend passes the memory backend contract, through one handle and two (two
connections on one file, as two processes would have)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_memory.sqlite_backend import SqliteBackend
from chatcli_memory_api import MemoryBackend
from chatcli_testing import MemoryBackendContract


class TestSqliteContract(MemoryBackendContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[MemoryBackend]:
        store = SqliteBackend(tmp_path / "memory" / "memory.db")
        yield store
        store.close()

    @pytest.fixture
    def second_backend(self, backend: MemoryBackend, tmp_path: Path
                       ) -> Iterator[MemoryBackend]:
        store = SqliteBackend(tmp_path / "memory" / "memory.db")
        yield store
        store.close()
