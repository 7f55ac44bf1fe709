"""The open stores of this process: one :class:`~chatcli_sessions.store.SessionStore` per data
folder, opened when first used (the plugin's hooks, ``/session`` and ``chatcli sessions`` share
it). A module of its own, so that the entry module and the commands both import it and not each
other."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli_sessions.store import SessionStore

__all__ = ["close_stores", "get_store"]

_stores: dict[Path, SessionStore] = {}
_lock = threading.Lock()


def get_store() -> SessionStore:
    """The store for the current data directory (one connection per process and path).

    A store inherited through ``fork()`` is never reused: SQLite connections must not cross a
    fork, so the child opens its own.
    """
    from chatcli_sessions.store import SessionStore, default_path

    path = default_path()
    with _lock:
        store = _stores.get(path)
        if store is None or store.pid != os.getpid():
            store = SessionStore(path)
            _stores[path] = store
        return store


def close_stores() -> None:
    """Close this process's connections (they reopen on next use)."""
    with _lock:
        for path, store in list(_stores.items()):
            if store.pid == os.getpid():
                store.close()
            del _stores[path]
