"""Creating and upgrading a plugin's tables: versioned migrations that several processes may
run at once (replicas, team members starting together), each under one advisory lock."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql

__all__ = ["ensure_schema", "stored_version"]

#: One migration: the statements that take the tables from the version before to its own.
Migration = Callable[[], Iterable[sql.SQL | sql.Composed]]


def _first(row: dict[str, Any] | Sequence[Any]) -> Any:
    """The first column of a row, whichever row factory made it (dict rows or tuples)."""
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


def stored_version(conn: psycopg.Connection[Any], meta: sql.Composable) -> int | None:
    """The schema version stored in the ``meta`` table (``name``/``value`` rows), or None when
    that table does not exist yet."""
    row = conn.execute("SELECT to_regclass(%s) IS NOT NULL AS present",
                       [meta.as_string(conn)]).fetchone()
    if not row or not _first(row):
        return None
    row = conn.execute(sql.SQL("SELECT value FROM {meta} WHERE name = 'schema_version'")
                       .format(meta=meta)).fetchone()
    return int(_first(row)) if row else None


def ensure_schema(conn: psycopg.Connection[Any], *, meta: sql.Composable, schema: str | None,
                  lock: str, migrations: Mapping[int, Migration],
                  refuse_newer: Callable[[int | None], None]) -> int:
    """Create or upgrade the tables to the newest of ``migrations`` (numbered from 1); returns
    the version now in place.

    The work runs in one transaction holding the advisory lock named ``lock`` (with the ``meta``
    table's name): a process that waited for it reads the version again and finds the work
    done. ``schema`` (when given) is created first.

    :param refuse_newer: raises the plugin's own error when the stored version is newer than
        ``migrations`` knows (it is given None when nothing is stored).
    """
    target = max(migrations)
    version = stored_version(conn, meta)
    if version == target:
        return version
    refuse_newer(version)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                     [f"{lock}:{meta.as_string(conn)}"])
        if schema:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {meta} "
                             "(name text PRIMARY KEY, value text NOT NULL)").format(meta=meta))
        version = stored_version(conn, meta) or 0  # another process may have just done it
        refuse_newer(version)
        for step in range(version + 1, target + 1):
            for statement in migrations[step]():
                conn.execute(statement)
        conn.execute(sql.SQL("INSERT INTO {meta} (name, value) VALUES ('schema_version', %s) "
                             "ON CONFLICT (name) DO UPDATE SET value = excluded.value").format(
                                 meta=meta), [str(target)])
    return target
