"""The tables, created on first use and versioned (``chatcli_sessions_meta.schema_version``).

The same data as the SQLite store's schema (``sessions``, ``messages``, ``checkpoints``,
``head_events``, ``compactions``), with two additions for many writers:

* ``chatcli_sessions.next_seq``: the per-session counter a message's ``seq`` is taken from,
  in the transaction that locks the session's row (see :mod:`chatcli_sessions_postgres.store`);
* ``chatcli_session_messages.words``: the message's words as a ``tsvector`` made by this
  package (:mod:`chatcli_sessions_postgres.words`), not by PostgreSQL's parser, so that what is
  searched is the same whatever the server's locale.

Opening a store reads the version (one query); only a missing or older schema takes the
advisory lock and runs the migrations, so many replicas opening the same database at once
create it exactly once, and a role without CREATE can use tables someone else created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import psycopg
from chatcli import translation
from chatcli_postgres_kit.schema import ensure_schema as migrate
from chatcli_sessions_api import StoreError
from psycopg import sql

__all__ = ["SCHEMA_VERSION", "Names", "ensure_schema"]

_, ngettext = translation(__name__)

#: The schema version this package writes and reads.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Names:
    """The identifiers of the session tables, in ``schema`` (None: the connection's
    ``search_path``, normally ``public``)."""

    schema: str | None = None

    def table(self, name: str) -> sql.Identifier:
        """``name``, qualified by the schema when there is one."""
        return sql.Identifier(self.schema, name) if self.schema else sql.Identifier(name)

    @property
    def sessions(self) -> sql.Identifier:
        """One row per conversation."""
        return self.table("chatcli_sessions")

    @property
    def messages(self) -> sql.Identifier:
        """The append-only log."""
        return self.table("chatcli_session_messages")

    @property
    def checkpoints(self) -> sql.Identifier:
        """The rewind points."""
        return self.table("chatcli_session_checkpoints")

    @property
    def head_events(self) -> sql.Identifier:
        """Every head move (undo survives a restart)."""
        return self.table("chatcli_session_head_events")

    @property
    def compactions(self) -> sql.Identifier:
        """The view's compactions, in order."""
        return self.table("chatcli_session_compactions")

    @property
    def meta(self) -> sql.Identifier:
        """The table holding ``schema_version``."""
        return self.table("chatcli_sessions_meta")


def _migration_1(n: Names) -> list[sql.Composed]:
    """Version 1: the SQLite store's schema (its four migrations), on PostgreSQL."""
    fmt = {"sessions": n.sessions, "messages": n.messages, "checkpoints": n.checkpoints,
           "head_events": n.head_events, "compactions": n.compactions}
    statements = [
        """CREATE TABLE IF NOT EXISTS {sessions} (
            ord         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            id          text PRIMARY KEY,
            name        text UNIQUE,
            title       text NOT NULL DEFAULT '',
            created_at  double precision NOT NULL,
            updated_at  double precision NOT NULL,
            provider    text,
            model       text,
            head        text,
            forked_from text,
            cwd         text,
            project     text,
            parent      text,
            worker      text,
            next_seq    bigint NOT NULL DEFAULT 1
        )""",
        "CREATE INDEX IF NOT EXISTS chatcli_sessions_updated ON {sessions} (updated_at)",
        "CREATE INDEX IF NOT EXISTS chatcli_sessions_project ON {sessions} (project, updated_at)",
        "CREATE INDEX IF NOT EXISTS chatcli_sessions_parent ON {sessions} (parent)",
        """CREATE TABLE IF NOT EXISTS {messages} (
            session_id  text NOT NULL REFERENCES {sessions} (id) ON DELETE CASCADE,
            seq         bigint NOT NULL,
            id          text NOT NULL,
            parent_id   text,
            role        text NOT NULL,
            text        text NOT NULL DEFAULT '',
            json        text NOT NULL,
            created_at  double precision NOT NULL,
            words       tsvector NOT NULL DEFAULT ''::tsvector,
            PRIMARY KEY (session_id, seq),
            UNIQUE (session_id, id)
        )""",
        # fastupdate off: a new message is searchable through the index at once (see
        # chatcli-memory-postgres's schema for the cost of the pending list)
        "CREATE INDEX IF NOT EXISTS chatcli_session_messages_words ON {messages} "
        "USING gin (words) WITH (fastupdate = off)",
        "CREATE INDEX IF NOT EXISTS chatcli_session_messages_created ON {messages} (created_at)",
        """CREATE TABLE IF NOT EXISTS {checkpoints} (
            ord         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id          text NOT NULL,
            session_id  text NOT NULL REFERENCES {sessions} (id) ON DELETE CASCADE,
            head        text,
            label       text NOT NULL,
            created_at  double precision NOT NULL,
            UNIQUE (session_id, id)
        )""",
        """CREATE TABLE IF NOT EXISTS {head_events} (
            ord         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id  text NOT NULL REFERENCES {sessions} (id) ON DELETE CASCADE,
            reason      text NOT NULL,
            head        text,
            previous    text,
            created_at  double precision NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS chatcli_session_head_events_session "
        "ON {head_events} (session_id, ord)",
        """CREATE TABLE IF NOT EXISTS {compactions} (
            ord         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            id          text NOT NULL,
            session_id  text NOT NULL REFERENCES {sessions} (id) ON DELETE CASCADE,
            position    integer NOT NULL,
            json        text NOT NULL,
            created_at  double precision NOT NULL,
            UNIQUE (session_id, id)
        )""",
        "CREATE INDEX IF NOT EXISTS chatcli_session_compactions_session "
        "ON {compactions} (session_id, position)",
    ]
    return [sql.SQL(s).format(**fmt) for s in statements]


_MIGRATIONS: dict[int, Callable[[Names], list[sql.Composed]]] = {1: _migration_1}


def ensure_schema(conn: psycopg.Connection[Any], names: Names) -> int:
    """Create or upgrade the tables; returns the schema version now in place.

    :raises StoreError: the database holds a newer schema than this package knows.
    """
    return migrate(conn, meta=names.meta, schema=names.schema, lock="chatcli-sessions",
                   migrations={step: partial(make, names) for step, make in _MIGRATIONS.items()},
                   refuse_newer=_refuse_newer)


def _refuse_newer(version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            _("sessions: the PostgreSQL sessions have schema version {found}, newer than this "
              "chatcli-sessions-postgres reads ({known})").format(found=version,
                                                                 known=SCHEMA_VERSION),
            _("upgrade chatcli-sessions-postgres (chatcli plugins install "
              "chatcli-sessions-postgres)"))
