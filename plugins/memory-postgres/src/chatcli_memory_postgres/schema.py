"""The tables, created on first use and versioned (``chatcli_memory_meta.schema_version``).

Opening a backend reads the version (one query); only a missing or older schema takes the
advisory lock and runs the migrations, so many members opening the same memory at once create
it exactly once, and a role without CREATE can use a schema someone else created.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import psycopg
from chatcli import ChatcliError, translation
from chatcli_postgres_kit.schema import ensure_schema as migrate
from psycopg import sql

__all__ = ["SCHEMA_VERSION", "Names", "ensure_schema"]

_, ngettext = translation(__name__)

#: The schema version this package writes and reads (2: the words are stemmed).
SCHEMA_VERSION = 2

#: The text search configuration: PostgreSQL's ``english`` (lower case, Snowball stems, English
#: stop words left out), so "testing frameworks" finds "the test framework" — as the SQLite
#: backend's ``porter`` tokenizer does. Queries use it too (:mod:`.search`).
TS_CONFIG = "english"


def _tsv(config: str) -> str:
    """The words searched: the text, the subject and the category, punctuation turned into
    spaces (``pre-commit`` → ``pre commit``, ``file.py`` → ``file py``), as ``config`` reads
    them."""
    return (f"to_tsvector('{config}', regexp_replace("
            "text || ' ' || subject || ' ' || category, '[[:punct:]]+', ' ', 'g'))")


#: The searched words of version 2 and later.
TSV_EXPRESSION = _tsv(TS_CONFIG)


@dataclass(frozen=True)
class Names:
    """The identifiers of the memory tables, in ``schema`` (None: the connection's
    ``search_path``, normally ``public``)."""

    schema: str | None = None

    def table(self, name: str) -> sql.Identifier:
        """``name``, qualified by the schema when there is one."""
        return sql.Identifier(self.schema, name) if self.schema else sql.Identifier(name)

    @property
    def items(self) -> sql.Identifier:
        """The items table."""
        return self.table("chatcli_memory_items")

    @property
    def meta(self) -> sql.Identifier:
        """The table holding ``schema_version``."""
        return self.table("chatcli_memory_meta")


def _migration_1(names: Names) -> list[sql.SQL | sql.Composed]:
    """Version 1: the items, their generated tsvector and its GIN index."""
    items = names.items
    return [
        sql.SQL("""
        CREATE TABLE IF NOT EXISTS {items} (
            id            text PRIMARY KEY,
            kind          text NOT NULL,
            text          text NOT NULL,
            category      text NOT NULL DEFAULT '',
            subject       text NOT NULL DEFAULT '',
            key           text NOT NULL DEFAULT '',
            confidence    double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
            provenance    text NOT NULL,
            scope         text NOT NULL,
            created_at    double precision NOT NULL,
            updated_at    double precision NOT NULL,
            last_used_at  double precision,
            uses          bigint NOT NULL DEFAULT 0,
            archived      boolean NOT NULL DEFAULT false,
            superseded_by text,
            metadata      jsonb NOT NULL DEFAULT '{{}}',
            tsv           tsvector GENERATED ALWAYS AS ({tsv}) STORED
        )""").format(items=items, tsv=sql.SQL(_tsv("simple"))),
        _tsv_index(names),
        sql.SQL("CREATE INDEX IF NOT EXISTS {name} ON {items} (created_at DESC)").format(
            name=sql.Identifier("chatcli_memory_items_created"), items=items),
        sql.SQL("CREATE INDEX IF NOT EXISTS {name} ON {items} (scope, kind)").format(
            name=sql.Identifier("chatcli_memory_items_scope"), items=items),
    ]


def _tsv_index(names: Names) -> sql.Composed:
    # fastupdate off: a new item goes straight into the index. With the pending list on,
    # the newest items (up to 4 MB of them: a whole 10,000-item memory) are scanned one by
    # one on every search until a vacuum merges them, and the planner then prefers a
    # sequential scan: 5-10x slower searches for a memory that is read far more than written.
    return sql.SQL("CREATE INDEX IF NOT EXISTS {name} ON {items} USING gin (tsv) "
                   "WITH (fastupdate = off)").format(
        name=sql.Identifier("chatcli_memory_items_tsv"), items=names.items)


def _migration_2(names: Names) -> list[sql.SQL | sql.Composed]:
    """Version 2: the searched words are stemmed (:data:`TS_CONFIG`): the column is made
    again (its index goes with it) from every item's text."""
    items = names.items
    return [
        sql.SQL("ALTER TABLE {items} DROP COLUMN IF EXISTS tsv").format(items=items),
        sql.SQL("ALTER TABLE {items} ADD COLUMN tsv tsvector GENERATED ALWAYS AS ({tsv}) "
                "STORED").format(items=items, tsv=sql.SQL(TSV_EXPRESSION)),
        _tsv_index(names),
    ]


_MIGRATIONS = {1: _migration_1, 2: _migration_2}


def ensure_schema(conn: psycopg.Connection[Any], names: Names) -> int:
    """Create or upgrade the tables; returns the schema version now in place.

    :raises ChatcliError: the database holds a newer schema than this package knows.
    """
    return migrate(conn, meta=names.meta, schema=names.schema, lock="chatcli-memory",
                   migrations={step: partial(make, names) for step, make in _MIGRATIONS.items()},
                   refuse_newer=_refuse_newer)


def _refuse_newer(version: int | None) -> None:
    if version is not None and version > SCHEMA_VERSION:
        raise ChatcliError(
            _("memory: the PostgreSQL memory has schema version {found}, newer than this "
              "chatcli-memory-postgres reads ({known})").format(found=version,
                                                               known=SCHEMA_VERSION),
            _("upgrade chatcli-memory-postgres (chatcli plugins install "
              "chatcli-memory-postgres)"))
