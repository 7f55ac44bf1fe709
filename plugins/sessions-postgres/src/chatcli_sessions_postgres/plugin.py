"""Entry module: the hook implementations only (psycopg is imported when the store opens)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    from chatcli import SettingRule, Settings
    from chatcli_sessions_api import SessionStore, SessionStoreSpec


def open_store(settings: Settings) -> SessionStore:
    """The ``postgres`` store's factory: connect with the ``[sessions]`` settings (the tables
    are created on first use).

    :raises chatcli.ConfigError: no URL, a bad one, or a server that cannot be used (one line
        with the cause and the fix, never the password).
    """
    from chatcli_sessions_postgres.settings import resolve
    from chatcli_sessions_postgres.store import PostgresSessionStore

    return PostgresSessionStore.open(resolve(settings))


@hookimpl
def register_session_stores(register: Callable[[SessionStoreSpec], None]) -> None:
    """Offer ``[sessions] backend = "postgres"``: one store shared by a team's replicas."""
    from chatcli import translation
    from chatcli_sessions_api import SessionStoreSpec

    _, _n = translation(__name__)
    register(SessionStoreSpec(
        name="postgres", factory=open_store,
        description=_("PostgreSQL (psycopg 3): sessions shared by a team's chatcli serve "
                      "replicas; [sessions] postgres_url or DATABASE_URL")))


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    """A project's config never names the server sessions go to (``[sessions]
    postgres_url`` would send every conversation — and the password in the URL — anywhere;
    ``postgres_schema`` and ``postgres_connect_timeout`` choose where and how long to wait):
    the user's config or ``CHATCLI_SESSIONS_POSTGRES_URL``/``DATABASE_URL`` only."""
    from chatcli import SettingRule

    for key in ("postgres_url", "postgres_schema", "postgres_connect_timeout"):
        register(SettingRule(f"sessions.{key}", "never"))
