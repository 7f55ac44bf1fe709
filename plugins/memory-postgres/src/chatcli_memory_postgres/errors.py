"""psycopg's failures as chatcli's one-line errors (chatcli-postgres-kit's, worded for the
shared memory): the cause, the fix, never a password."""

from __future__ import annotations

import chatcli_postgres_kit as kit
from chatcli import ChatcliError, translation

__all__ = ["Target", "connection_error", "query_error"]

_README = "chatcli-memory-postgres"

_, ngettext = translation(__name__)


class Target(kit.Target):
    """The server a URL names, printable without its password (errors say ``memory:``)."""

    def __init__(self, url: str, source: str) -> None:
        super().__init__(url, source, "memory")


def connection_error(err: BaseException, target: Target) -> ChatcliError:
    """The one line for a server that cannot be reached, refuses us, or lacks the database."""
    return kit.connection_error(err, target, readme=_README, make=ChatcliError)


def query_error(err: BaseException, target: Target, action: str) -> ChatcliError:
    """The one line for a statement the server refused (a permission, a broken schema)."""
    return kit.query_error(err, target, action, readme=_README, tables=_("the memory tables"),
                           make=ChatcliError)
