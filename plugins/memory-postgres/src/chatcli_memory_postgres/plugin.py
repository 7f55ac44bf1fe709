"""Entry module: the hook implementation only (psycopg is imported when the backend opens)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import SettingRule, Settings
    from chatcli_memory_api import MemoryBackend, MemoryBackendSpec


def open_backend(settings: Settings) -> MemoryBackend:
    """The ``postgres`` backend's factory: connect with the ``[memory]`` settings."""
    from chatcli_memory_postgres.backend import PostgresMemoryBackend
    from chatcli_memory_postgres.settings import resolve

    return PostgresMemoryBackend.open(resolve(settings))


@hookimpl
def register_memory_backends(register: Callable[[MemoryBackendSpec], None]) -> None:
    """Offer ``memory.backend = "postgres"``: one memory shared by a team."""
    from chatcli import translation
    from chatcli_memory_api import MemoryBackendSpec

    _, _n = translation(__name__)
    register(MemoryBackendSpec(
        name="postgres", factory=open_backend,
        description=_("PostgreSQL (psycopg 3): one memory shared by a team; "
                      "[memory] postgres_url or DATABASE_URL")))


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    """A project's config never names the server memories go to (``[memory] postgres_url``,
    which would send what the user remembers — and the password in the URL — anywhere): the
    user's config or ``CHATCLI_MEMORY_POSTGRES_URL``/``DATABASE_URL`` only."""
    from chatcli import SettingRule

    register(SettingRule("memory.postgres_url", "never"))
