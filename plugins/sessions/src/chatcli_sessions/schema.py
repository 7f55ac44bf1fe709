"""The session database's schema and its migrations (``PRAGMA user_version``).

To change the schema, append a function to :data:`MIGRATIONS`; never edit a released one. A
database newer than this code is refused with a one-line error instead of being written to.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from chatcli import translation
from chatcli_sessions_api import StoreError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "StoreError", "migrate"]

_, ngettext = translation(__name__)


def _migration_1(db: sqlite3.Connection) -> None:
    """The first schema: sessions, messages, checkpoints, head events, full-text index."""
    db.execute(
        """CREATE TABLE sessions (
            id          TEXT PRIMARY KEY,
            name        TEXT UNIQUE,
            title       TEXT NOT NULL DEFAULT '',
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            provider    TEXT,
            model       TEXT,
            head        TEXT,
            forked_from TEXT,
            cwd         TEXT
        )"""
    )
    db.execute("CREATE INDEX sessions_updated ON sessions(updated_at)")
    db.execute(
        """CREATE TABLE messages (
            rowid       INTEGER PRIMARY KEY,
            id          TEXT NOT NULL,
            session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            parent_id   TEXT,
            seq         INTEGER NOT NULL,
            role        TEXT NOT NULL,
            text        TEXT NOT NULL DEFAULT '',
            json        TEXT NOT NULL,
            created_at  REAL NOT NULL,
            UNIQUE (session_id, id),
            UNIQUE (session_id, seq)
        )"""
    )
    db.execute(
        """CREATE TABLE checkpoints (
            rowid       INTEGER PRIMARY KEY,
            id          TEXT NOT NULL,
            session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            head        TEXT,
            label       TEXT NOT NULL,
            created_at  REAL NOT NULL,
            UNIQUE (session_id, id)
        )"""
    )
    db.execute(
        """CREATE TABLE head_events (
            rowid       INTEGER PRIMARY KEY,
            session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            reason      TEXT NOT NULL,
            head        TEXT,
            previous    TEXT,
            created_at  REAL NOT NULL
        )"""
    )
    db.execute("CREATE INDEX head_events_session ON head_events(session_id, rowid)")
    try:
        db.execute(
            "CREATE VIRTUAL TABLE messages_fts USING fts5("
            "text, content='messages', content_rowid='rowid', tokenize='unicode61')"
        )
    except sqlite3.OperationalError:  # SQLite built without FTS5: search uses LIKE
        return
    db.execute(
        """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, text) VALUES (new.rowid, new.text);
        END"""
    )
    db.execute(
        """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts(messages_fts, rowid, text)
            VALUES ('delete', old.rowid, old.text);
        END"""
    )


def _migration_2(db: sqlite3.Connection) -> None:
    """The view's compactions (chatcli-compaction's summaries and trims): one row each, in the
    conversation's order, the kernel ``Compaction`` as pydantic JSON."""
    db.execute(
        """CREATE TABLE compactions (
            rowid       INTEGER PRIMARY KEY,
            id          TEXT NOT NULL,
            session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            position    INTEGER NOT NULL,
            json        TEXT NOT NULL,
            created_at  REAL NOT NULL,
            UNIQUE (session_id, id)
        )"""
    )
    db.execute("CREATE INDEX compactions_session ON compactions(session_id, position)")


def _migration_3(db: sqlite3.Connection) -> None:
    """Sessions belong to a project: ``project`` is the project root the session was started
    in (the git root, else the folder). Sessions written before have none (NULL): they belong
    to no project, and lists show them only with ``--all``."""
    db.execute("ALTER TABLE sessions ADD COLUMN project TEXT")
    db.execute("CREATE INDEX sessions_project ON sessions(project, updated_at)")


def _migration_4(db: sqlite3.Connection) -> None:
    """A worker's conversation (a subagent's: ``Conversation.parent``) is a branch of the
    session that started it: ``parent`` is that session's id, ``worker`` what the delegation
    said of it (its ``metadata["subagent"]`` as JSON). Lists, ``-c`` and the resume picker show
    root sessions only; deleting a session deletes its workers' too."""
    db.execute("ALTER TABLE sessions ADD COLUMN parent TEXT")
    db.execute("ALTER TABLE sessions ADD COLUMN worker TEXT")
    db.execute("CREATE INDEX sessions_parent ON sessions(parent)")


#: ``MIGRATIONS[i]`` brings a database from ``user_version`` i to i + 1. Append, never edit.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_migration_1, _migration_2,
                                                          _migration_3, _migration_4]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema of ``db`` up to :data:`SCHEMA_VERSION`; returns the version found.

    Each step runs in its own write transaction that re-reads ``user_version`` after taking the
    lock, so two processes opening a new database at once migrate it exactly once.
    """
    found: int = db.execute("PRAGMA user_version").fetchone()[0]
    if found > SCHEMA_VERSION:
        raise StoreError(
            _("the session database has schema version {found}, newer than this chatcli "
              "understands ({known})").format(found=found, known=SCHEMA_VERSION),
            _("upgrade chatcli-sessions"),
        )
    while found < SCHEMA_VERSION:
        db.execute("BEGIN IMMEDIATE")
        try:
            found = db.execute("PRAGMA user_version").fetchone()[0]
            if found < SCHEMA_VERSION:
                MIGRATIONS[found](db)
                found += 1
                db.execute(f"PRAGMA user_version = {found}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return found


