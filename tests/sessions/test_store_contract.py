"""The SQLite store against the session store contract (``chatcli_testing``): two
:class:`SessionStore` objects on one file are two replicas, as two chatcli processes are."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli_sessions.store import SessionStore
from chatcli_sessions_api import SessionStore as SessionStoreProtocol
from chatcli_testing import SessionStoreContract


class TestSqliteStoreContract(SessionStoreContract):
    @pytest.fixture
    def open_store(self, tmp_path: Path) -> Iterator[Callable[[], SessionStoreProtocol]]:
        opened: list[SessionStore] = []

        def open_replica() -> SessionStoreProtocol:
            store = SessionStore(tmp_path / "data" / "sessions.db")
            opened.append(store)
            replica: SessionStoreProtocol = store
            return replica

        yield open_replica
        for store in opened:
            store.close()
