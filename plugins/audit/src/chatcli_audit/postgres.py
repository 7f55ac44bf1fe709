"""The audit table in PostgreSQL, where sessions live there (``[sessions] backend =
"postgres"``): every record as a row of ``chatcli_audit``, so a team's replicas and members
write to one place and ``chatcli audit`` reads it.

The server is found as the sessions store finds it — ``CHATCLI_SESSIONS_POSTGRES_URL``, then
``[sessions] postgres_url``, then ``DATABASE_URL``; ``[sessions] postgres_schema`` names the
schema — read here from the settings (this plugin imports no other). psycopg is imported only
when the first row is written or the table is read.

A failure never stops a turn: it is reported once, the JSON-lines file keeps every record, and
the server is tried again after :data:`RETRY_AFTER` seconds.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chatcli import ConfigError, translation

if TYPE_CHECKING:
    from chatcli import Settings

    from chatcli_audit.query import Filters

__all__ = ["RETRY_AFTER", "TABLE", "PostgresSink", "TableConfig", "read_table", "table_config"]

_, ngettext = translation(__name__)

TABLE = "chatcli_audit"
#: Seconds before a server that failed is tried again.
RETRY_AFTER = 30.0
URL_VARIABLES = ("CHATCLI_SESSIONS_POSTGRES_URL", "DATABASE_URL")
_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]{0,62}")
#: The columns besides ``record`` (the whole record, jsonb), filled from the record's keys.
_COLUMNS = ("kind", "session", "conversation", "turn", "call", "tool", "decision",
            "decided_by")


@dataclass(frozen=True)
class TableConfig:
    """Where the table is: the server's URL (or libpq string), the schema, the timeout."""

    url: str
    schema: str | None = None
    connect_timeout: float = 5.0

    @property
    def shown(self) -> str:
        """The server without its password, for messages."""
        from chatcli import redact

        return redact(self.url)


def table_config(settings: Settings | None) -> TableConfig | None:
    """The table's place when sessions live in PostgreSQL with a server named, else None.

    :raises ConfigError: ``[sessions] postgres_schema`` is not a plain SQL name.
    """
    if settings is None:
        return None
    sessions = settings.plugin_table("sessions")
    if sessions.get("backend") != "postgres":
        return None
    url = os.environ.get(URL_VARIABLES[0], "").strip()
    if not url and isinstance(sessions.get("postgres_url"), str):
        url = str(sessions["postgres_url"]).strip()
    url = url or os.environ.get(URL_VARIABLES[1], "").strip()
    if not url:
        return None
    schema = sessions.get("postgres_schema")
    if schema is not None and (not isinstance(schema, str)
                               or not _SCHEMA_NAME.fullmatch(schema)):
        raise ConfigError(
            _("audit: [sessions] postgres_schema must be a plain SQL name, not {schema!r}"
              ).format(schema=schema), _("use letters, digits and _, or unset it"))
    timeout = sessions.get("postgres_connect_timeout", 5)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        timeout = 5
    return TableConfig(url, schema or None, float(min(timeout, 600)))


def _connect(config: TableConfig) -> Any:
    """A connection (autocommit) with the table made when it is missing."""
    import psycopg
    from psycopg import sql

    connection = psycopg.connect(config.url, autocommit=True,
                                 connect_timeout=max(1, round(config.connect_timeout)))
    try:
        table = _table(config)
        with connection.transaction():
            # (two replicas starting at once: one makes the table, the other waits for it)
            connection.execute("SELECT pg_advisory_xact_lock(hashtext('chatcli_audit'))")
            if config.schema:
                connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    sql.Identifier(config.schema)))
            connection.execute(sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (id bigserial PRIMARY KEY, "
                "time timestamptz NOT NULL, kind text NOT NULL, session text, "
                "conversation text, turn text, call text, tool text, decision text, "
                "decided_by text, record jsonb NOT NULL)").format(table))
            for name, columns in (("time", "time"), ("session", "session, time")):
                connection.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} ({})").format(
                    sql.Identifier(f"{TABLE}_{name}"), table, sql.SQL(columns)))
    except BaseException:
        connection.close()
        raise
    return connection


def _table(config: TableConfig) -> Any:
    from psycopg import sql

    if config.schema:
        return sql.Identifier(config.schema, TABLE)
    return sql.Identifier(TABLE)


class PostgresSink:
    """Writes records as rows; one connection, made on first need.

    :param warn: reports a failure (once per kind of failure).
    """

    def __init__(self, config: TableConfig, warn: Callable[[str], None]) -> None:
        self.config = config
        self.warn = warn
        self._lock = threading.Lock()
        self._connection: Any = None
        self._failed_at: float | None = None

    def write(self, record: dict[str, Any]) -> None:
        """Insert ``record``; a failure is reported and the record left to the file."""
        with self._lock:
            if self._failed_at is not None and \
                    time.monotonic() - self._failed_at < RETRY_AFTER:
                return
            try:
                if self._connection is None:
                    self._connection = _connect(self.config)
                self._insert(record)
            except Exception as err:
                self._failed_at = time.monotonic()
                self.close()
                self.warn(_("audit: the audit table at {server} could not be written ({reason}); "
                            "the records stay in the file, and the server is tried again in "
                            "{seconds:g} s").format(server=self.config.shown,
                                                    reason=_first_line(err), seconds=RETRY_AFTER))
            else:
                self._failed_at = None

    def _insert(self, record: dict[str, Any]) -> None:
        from psycopg import sql
        from psycopg.types.json import Jsonb

        names = ["time", *_COLUMNS, "record"]
        values = [datetime.fromisoformat(record["time"]),
                  *(_text(record.get(name)) for name in _COLUMNS), Jsonb(record)]
        self._connection.execute(
            sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
                _table(self.config), sql.SQL(", ").join(map(sql.Identifier, names)),
                sql.SQL(", ").join(sql.Placeholder() * len(names))),
            values)

    def close(self) -> None:
        """Close the connection (the next record opens one again)."""
        if self._connection is not None:
            try:
                self._connection.close()
            finally:
                self._connection = None


def _first_line(err: BaseException) -> str:
    """The error's first line, keys and passwords redacted."""
    from chatcli import redact

    if isinstance(err, ModuleNotFoundError) and err.name == "psycopg":
        return "psycopg is not installed: pip install 'chatcli-audit[postgres]'"

    lines = redact(str(err)).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def read_table(config: TableConfig, filters: Filters, limit: int | None) -> list[dict[str, Any]]:
    """The rows ``filters`` keeps, oldest first (the last ``limit`` of them).

    :raises ConfigError: the server cannot be reached or the table read (one line, with the
        fix).
    """
    from psycopg import sql

    where: list[Any] = []
    values: list[Any] = []
    if filters.kind is not None:
        where.append(sql.SQL("kind = %s"))
        values.append(filters.kind)
    if filters.session is not None:
        prefix = filters.session.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.append(sql.SQL("(session LIKE %s OR conversation LIKE %s)"))
        values += [prefix + "%", prefix + "%"]
    if filters.tool is not None:
        where.append(sql.SQL("tool = %s"))
        values.append(filters.tool)
    if filters.decision == "ask":
        where.append(sql.SQL("kind = 'tool_call' AND record->>'verdict' = 'ask'"))
    elif filters.decision is not None:
        where.append(sql.SQL("kind = 'tool_call' AND decision = %s"))
        values.append(filters.decision)
    if filters.since is not None:
        where.append(sql.SQL("time >= %s"))
        values.append(filters.since)
    if filters.until is not None:
        where.append(sql.SQL("time <= %s"))
        values.append(filters.until)
    query = sql.SQL("SELECT record FROM {}").format(_table(config))
    if where:
        query += sql.SQL(" WHERE ") + sql.SQL(" AND ").join(where)
    query += sql.SQL(" ORDER BY time DESC, id DESC")
    if limit:
        query += sql.SQL(" LIMIT {}").format(sql.Literal(limit))
    try:
        connection = _connect(config)
        try:
            rows = connection.execute(query, values).fetchall()
        finally:
            connection.close()
    except Exception as err:
        raise ConfigError(
            _("audit: the audit table at {server} could not be read ({reason})").format(
                server=config.shown, reason=_first_line(err)),
            _("check the server, or read this machine's log: chatcli audit --file")) from None
    records = [row[0] for row in reversed(rows) if isinstance(row[0], dict)]
    return [record for record in records if filters.keeps(record)]
