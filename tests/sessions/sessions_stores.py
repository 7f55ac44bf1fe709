"""A tiny store plugin for the tests: registers ``second``, the SQLite store on another file
(the target of ``sessions migrate``, or the ``[sessions] backend``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from chatcli import ChatcliError, hookimpl
from chatcli_sessions.store import SessionStore
from chatcli_sessions_api import SessionStoreSpec


class SecondStore:
    """``second``: a SessionStore on ``path``; ``broken``: a store whose factory fails."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.opened: list[SessionStore] = []

    def open(self, settings: Any) -> SessionStore:
        store = SessionStore(self.path)
        self.opened.append(store)
        return store

    @staticmethod
    def fail(settings: Any) -> SessionStore:
        raise ChatcliError("cannot reach the server at db.example:5432", "start the server")

    @hookimpl
    def register_session_stores(self, register: Callable[[SessionStoreSpec], None]) -> None:
        register(SessionStoreSpec("second", self.open, "the SQLite store on another file"))
        register(SessionStoreSpec("broken", self.fail, "never opens"))
