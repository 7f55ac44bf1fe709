"""The store's connections: a few per process, one per thread at a time, reopened when dropped.

``chatcli serve`` answers many sessions at once on many threads; one connection behind a lock
would make every thread wait for every other's round trips. So a thread takes an idle
connection (or opens one) for one operation and gives it back; at most :data:`MAX_IDLE` are
kept open between operations. A connection is in autocommit mode; writes run in explicit
transactions (:meth:`Connections.transaction`), reads of one consistent state in a
``REPEATABLE READ`` read-only transaction (:meth:`Connections.snapshot`). Nested calls on one
thread (``load`` reading its parts inside its snapshot) reuse the thread's connection.

After ``fork()`` the child never touches its parent's connections (closing them would end the
parent's sessions on the server): it forgets them and opens its own.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

import psycopg
from chatcli import translation
from psycopg.rows import dict_row

from chatcli_sessions_postgres.errors import Target, connection_error, query_error
from chatcli_sessions_postgres.schema import Names, ensure_schema
from chatcli_sessions_postgres.settings import PostgresConfig

__all__ = ["CONNECTION_ERRORS", "MAX_IDLE", "Connection", "Connections"]

_, ngettext = translation(__name__)

#: Idle connections kept open per store.
MAX_IDLE = 8

CONNECTION_ERRORS = (psycopg.OperationalError, psycopg.InterfaceError)

Connection = psycopg.Connection[dict[str, Any]]


class Connections:
    """The connections of one store (see the module's docstring)."""

    def __init__(self, config: PostgresConfig) -> None:
        self.config = config
        self.target = Target(config.url, config.source)
        self.names = Names(config.schema)
        self._lock = threading.Lock()
        self._idle: list[Connection] = []
        self._local = threading.local()
        self._pid = os.getpid()
        self.closed = False
        self._schema_checked = False

    def open(self) -> Connection:
        """A new connection with the schema checked (created or upgraded the first time).

        :raises ConfigError: the server cannot be reached or used (one line, no password).
        """
        try:
            conn = psycopg.connect(self.config.url, autocommit=True, row_factory=dict_row,
                                   connect_timeout=max(1, round(self.config.connect_timeout)),
                                   application_name="chatcli-sessions")
        except CONNECTION_ERRORS as err:
            raise connection_error(err, self.target) from None
        if self._schema_checked:
            return conn
        try:
            ensure_schema(conn, self.names)
        except psycopg.Error as err:
            conn.close()
            if isinstance(err, CONNECTION_ERRORS):
                raise connection_error(err, self.target) from None
            raise query_error(err, self.target, _("create the session tables")) from None
        except BaseException:
            conn.close()
            raise
        self._schema_checked = True
        return conn

    def _take(self) -> Connection:
        with self._lock:
            if os.getpid() != self._pid:  # forked: the parent's connections are not ours
                self._idle, self._pid = [], os.getpid()
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed and not conn.broken:
                    return conn
        return self.open()

    def _give(self, conn: Connection) -> None:
        usable = not conn.closed and not conn.broken and \
            conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with self._lock:
            if usable and not self.closed and os.getpid() == self._pid \
                    and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        with contextlib.suppress(psycopg.Error):
            conn.close()

    @contextlib.contextmanager
    def connection(self) -> Iterator[Connection]:
        """This thread's connection for one operation (the one already held, when nested)."""
        held: Connection | None = getattr(self._local, "conn", None)
        if held is not None:
            yield held
            return
        conn = self._take()
        self._local.conn = conn
        try:
            yield conn
        finally:
            self._local.conn = None
            self._give(conn)

    def nested(self) -> bool:
        """Whether this thread already holds a connection (inside an operation)."""
        return getattr(self._local, "conn", None) is not None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """Reads inside see one consistent state (a ``REPEATABLE READ`` read-only transaction;
        inside another operation, that operation's)."""
        if self.nested():
            with self.connection() as conn:
                yield conn
            return
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield conn

    def discard_idle(self) -> None:
        """Close the idle connections (one turned out dead: the server restarted or cut them,
        so the others are likely dead too); new ones are opened on demand."""
        with self._lock:
            idle, self._idle = self._idle, []
            forked = os.getpid() != self._pid
        if not forked:
            for conn in idle:
                with contextlib.suppress(psycopg.Error):
                    conn.close()

    def close(self) -> None:
        """Close the idle connections; those in use close when given back (idempotent)."""
        with self._lock:
            self.closed = True
            idle, self._idle = self._idle, []
            forked = os.getpid() != self._pid
        if forked:
            return
        for conn in idle:
            with contextlib.suppress(psycopg.Error):
                conn.close()
