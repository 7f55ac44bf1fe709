"""psycopg's failures as chatcli's one-line errors (chatcli-postgres-kit's, worded for the
session store): the cause, the fix, never a password."""

from __future__ import annotations

import chatcli_postgres_kit as kit
from chatcli import ConfigError, translation
from chatcli_sessions_api import StoreError

__all__ = ["Target", "UnusableServer", "connection_error", "query_error"]

_README = "chatcli-sessions-postgres"

_, ngettext = translation(__name__)


class UnusableServer(StoreError, ConfigError):
    """The server cannot be reached or refuses us: a :class:`~chatcli_sessions_api.StoreError`
    (the store's contract) that is a :class:`~chatcli.ConfigError` too (the fix is in the
    settings or on the server; exit code 2)."""


class Target(kit.Target):
    """The server a URL names, printable without its password (errors say ``sessions:``)."""

    def __init__(self, url: str, source: str) -> None:
        super().__init__(url, source, "sessions")


def connection_error(err: BaseException, target: Target) -> UnusableServer:
    """The one line for a server that cannot be reached, refuses us, or lacks the database."""
    return kit.connection_error(err, target, readme=_README, make=UnusableServer)


def query_error(err: BaseException, target: Target, action: str) -> StoreError:
    """The one line for a statement the server refused (a permission, a broken schema)."""
    return kit.query_error(err, target, action, readme=_README, tables=_("the session tables"),
                           make=StoreError)
