"""``PostgresSessionStore``: chatcli's sessions in PostgreSQL, shared by a team's replicas.

The same data and behaviour as chatcli-sessions' SQLite store (the contract:
:class:`chatcli_sessions_api.SessionStore`), for many writers on many machines.

How two replicas appending to one session at once never lose, duplicate or reorder a message:

* Every write to a session runs in one transaction that first locks the session's row
  (``SELECT … FOR UPDATE``). Writers of one session therefore take turns; writers of different
  sessions never wait for each other.
* A message's ``seq`` comes from the row's counter (``next_seq``), read and advanced under
  that lock, so seqs are 1, 2, 3… in commit order, with no gap and no duplicate (the unique
  ``(session_id, seq)`` key would refuse one anyway). Whether a message id is stored already
  is checked under the same lock: appending it again stores nothing (no duplicate), and its
  missing ancestors are written first (no orphan).
* The log is append-only: a message is never updated or dropped by another writer's append.
  The head is moved by compare-and-set: it moves only when the stored head is still the
  parent of what this append writes (``UPDATE … WHERE head IS NOT DISTINCT FROM expected``,
  under the row lock); otherwise the message is committed as a branch and
  :class:`~chatcli_sessions_api.HeadMoved` tells the caller, who reloads to see the other
  replica's turns. Nothing is lost either way.
* The row is locked by its own statement, and what is stored already is read by the next one:
  under ``READ COMMITTED`` each statement sees the data committed before it started, so once
  the lock is ours the reads after it see everything the writer we waited for committed (a
  read folded into the locking statement would use the snapshot taken before the wait, and
  could miss that writer's message and store it again).
* A transaction that PostgreSQL aborts (a deadlock, a serialization failure), or whose
  connection turned out dead before anything was sent for commit, is run again from the start.

Connections: see :mod:`chatcli_sessions_postgres.connections` (a few per process, one per
thread at a time).

Characters: PostgreSQL's ``text`` cannot hold NUL and psycopg cannot send a lone surrogate, so
every string is passed through :func:`chatcli.safe_text` / :func:`chatcli.safe_message` (both
become U+FFFD), as the memory backend does.
"""

from __future__ import annotations

import builtins
import random
import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from chatcli import UsageError, safe_message, safe_text, translation
from chatcli_sessions_api import HERE, UNCHECKED, HeadMoved, Here, StoreError, Unchecked
from chatcli_sessions_api import common as c
from psycopg import sql

from chatcli_sessions_postgres.connections import CONNECTION_ERRORS, Connection, Connections
from chatcli_sessions_postgres.errors import connection_error, query_error
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.words import lexemes, parse_query, snippet, tsquery_text

if TYPE_CHECKING:
    from chatcli import Checkpoint, Compaction, Conversation, Message
    from chatcli_sessions_api import SearchHit, SessionInfo

__all__ = ["PostgresSessionStore"]

T = TypeVar("T")

_, ngettext = translation(__name__)

#: Times a whole transaction is run again after PostgreSQL aborted it (deadlock, conflict).
WRITE_RETRIES = 8


def _fetch(statement: sql.Composed, params: list[Any],
           conn: Connection) -> list[dict[str, Any]]:
    """Every row of ``statement`` (never prepared: the words change every time)."""
    return conn.execute(statement, params, prepare=False).fetchall()


class _Again(Exception):
    """The transaction must run again (another writer created the session meanwhile)."""


def _t(value: str | None) -> str | None:
    """``value`` as PostgreSQL can hold it (NUL and lone surrogates become U+FFFD)."""
    return None if value is None else safe_text(value)


class PostgresSessionStore:
    """Sessions in PostgreSQL (see the module's docstring). Safe to share between threads;
    any number of processes on any number of machines may open the same database."""

    name = "postgres"

    def __init__(self, config: PostgresConfig) -> None:
        self.config = config
        self._pool = Connections(config)
        self.names = self._pool.names
        self.target = self._pool.target
        n = self.names
        self._fmt = {"sessions": n.sessions, "messages": n.messages,
                     "checkpoints": n.checkpoints, "head_events": n.head_events,
                     "compactions": n.compactions}
        self._sql: dict[str, sql.Composed] = {}

    @classmethod
    def open(cls, config: PostgresConfig) -> PostgresSessionStore:
        """Connect and create or upgrade the tables now, so that a bad URL or a server that is
        down is reported when the store opens.

        :raises chatcli.ConfigError: the server cannot be reached or used (one line, the
            cause and the fix, never the password).
        """
        store = cls(config)
        with store._pool.connection():
            pass
        return store

    @property
    def pid(self) -> int:
        """The process that opened the store (a forked child opens its own connections)."""
        return self._pool._pid

    # ------------------------------------------------------------------ plumbing

    def _q(self, template: str) -> sql.Composed:
        """``template`` with its ``{sessions}``, ``{messages}``… table names filled in."""
        found = self._sql.get(template)
        if found is None:
            found = self._sql[template] = sql.SQL(template).format(**self._fmt)
        return found

    def _exec(self, conn: Connection, template: str,
              params: Iterable[Any] | dict[str, Any] = ()) -> psycopg.Cursor[dict[str, Any]]:
        return conn.execute(self._q(template), params if isinstance(params, dict)
                            else list(params))

    def _closed_check(self) -> None:
        if self._pool.closed:
            raise StoreError(_("sessions: the PostgreSQL store is closed"),
                             _("open a new one (this is a bug in the caller)"))

    def _read(self, action: str, work: Callable[[Connection], T]) -> T:
        """``work(connection)``; a connection found dead is replaced once (a read is safe to
        repeat). psycopg's errors become one-line :class:`StoreError`\\ s."""
        self._closed_check()
        for attempt in range(2):
            retry = attempt == 0 and not self._pool.nested()
            try:
                with self._pool.connection() as conn:
                    return work(conn)
            except CONNECTION_ERRORS as err:
                if self._pool.nested():  # the outer operation (a snapshot) decides
                    raise
                self._pool.discard_idle()
                if retry:
                    continue
                raise connection_error(err, self.target) from None
            except psycopg.Error as err:
                raise query_error(err, self.target, action) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _write(self, action: str, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` in one transaction, run again from the start when PostgreSQL
        aborted it or its connection was dead before the commit was sent (never after: whether
        that commit happened is unknown, so the error is reported)."""
        self._closed_check()
        for attempt in range(WRITE_RETRIES + 1):
            last = attempt == WRITE_RETRIES
            committing = False
            try:
                with self._pool.connection() as conn:
                    with conn.transaction():
                        result = work(conn)
                        committing = True
                    return result
            except _Again:
                if last:
                    raise StoreError(_("sessions: cannot {action}: the session kept changing"
                                       ).format(action=action), _("try again")) from None
            except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected) as err:
                if last:
                    raise query_error(err, self.target, action) from None
            except psycopg.errors.UniqueViolation as err:
                name = err.diag.constraint_name or ""
                if name.endswith("_name_key"):
                    raise UsageError(_("that session name is already used by another session"),
                                     _("choose another name")) from None
                if last:
                    raise query_error(err, self.target, action) from None
            except CONNECTION_ERRORS as err:
                if not self._pool.nested():
                    self._pool.discard_idle()
                if committing or last or self._pool.nested():
                    raise connection_error(err, self.target) from None
            except psycopg.Error as err:
                raise query_error(err, self.target, action) from None
            time.sleep(min(0.02 * 2**attempt, 0.5) * (0.5 + random.random()))
        raise AssertionError("unreachable")  # pragma: no cover

    def _lock_session(self, conn: Connection, session_id: str) -> dict[str, Any] | None:
        """The session's row (``head``, ``next_seq``), locked until the transaction ends."""
        return self._exec(conn, "SELECT head, next_seq FROM {sessions} WHERE id = %s FOR UPDATE",
                          [_t(session_id)]).fetchone()

    # ------------------------------------------------------------------ writing: parts

    def _insert_messages(self, conn: Connection, session_id: str,
                         messages: list[Message], next_seq: int, *,
                         write_counter: bool = True) -> int:
        """Store ``messages`` (not stored yet: checked under the row lock) with the seqs from
        ``next_seq`` on; returns the next free seq (written to the row, unless the caller
        writes it with its own UPDATE: ``write_counter`` False)."""
        if not messages:
            return next_seq
        rows = []
        for message in messages:
            message = safe_message(message)  # what UTF-8 or PostgreSQL cannot hold
            text = c.message_text(message)
            rows.append((session_id, next_seq, message.id, message.parent_id,
                         message.role.value, text, c.message_json(message),
                         message.created_at, lexemes(text)))
            next_seq += 1
        with conn.cursor() as cur:
            cur.executemany(self._q(
                "INSERT INTO {messages} (session_id, seq, id, parent_id, role, text, json,"
                " created_at, words) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
                " array_to_tsvector(%s::text[]))"), rows)
        if write_counter:
            self._exec(conn, "UPDATE {sessions} SET next_seq = %s WHERE id = %s",
                       [next_seq, session_id])
        return next_seq

    def _stored_ids(self, conn: Connection, session_id: str, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        rows = self._exec(conn, "SELECT id FROM {messages} WHERE session_id = %s"
                          " AND id = ANY(%s::text[])", [session_id, ids]).fetchall()
        return {r["id"] for r in rows}

    def _to_write(self, conn: Connection, conversation: Conversation,
                  message: Message) -> list[Message]:
        """``message`` and its ancestors the store lacks, oldest first ([] when ``message``
        is stored already). One query when its parent is stored (the usual case)."""
        sid = _t(conversation.id) or ""
        safe = safe_message(message)
        first = [safe.id] + ([safe.parent_id] if safe.parent_id else [])
        stored = self._stored_ids(conn, sid, first)
        if safe.id in stored:
            return []
        if safe.parent_id is None or safe.parent_id in stored:
            return [message]
        ancestors: list[str] = []
        cursor = message.parent_id
        while cursor is not None and cursor in conversation.log and len(ancestors) < 100_000:
            ancestors.append(_t(cursor) or "")
            cursor = conversation.log[cursor].parent_id
        known = self._stored_ids(conn, sid, ancestors)
        chain = c.unsaved_chain(conversation, message,
                                {m for m in conversation.log if _t(m) in known})
        return chain

    def _insert_checkpoint(self, conn: Connection, session_id: str, cp: Checkpoint) -> None:
        self._exec(conn, "INSERT INTO {checkpoints} (id, session_id, head, label, created_at)"
                   " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id, id) DO NOTHING",
                   [_t(cp.id), session_id, _t(cp.head), _t(cp.label), cp.created_at])

    def _prune_checkpoints(self, conn: Connection, session_id: str, keep: int) -> None:
        self._exec(conn, "DELETE FROM {checkpoints} WHERE session_id = %s AND ord NOT IN ("
                   " SELECT ord FROM {checkpoints} WHERE session_id = %s"
                   " ORDER BY created_at DESC, ord DESC LIMIT %s)",
                   [session_id, session_id, max(keep, 1)])

    def _relabel_checkpoint(self, conn: Connection, conversation: Conversation,
                            message: Message) -> None:
        """Store the label of ``message``'s checkpoint if a plugin changed it as the message
        was appended (a command that sends a prompt labels it with the command as typed)."""
        checkpoint = conversation.checkpoints[-1] if conversation.checkpoints else None
        if checkpoint is not None and checkpoint.head == message.parent_id:
            self._exec(conn, "UPDATE {checkpoints} SET label = %s WHERE session_id = %s"
                       " AND id = %s AND label <> %s",
                       [_t(checkpoint.label), _t(conversation.id), _t(checkpoint.id),
                        _t(checkpoint.label)])

    def _write_compactions(self, conn: Connection, session_id: str,
                           compactions: list[Compaction]) -> None:
        """Make the stored compactions those of ``compactions``, in order: the shared start
        stays, the rest is rewritten."""
        stored = [r["id"] for r in self._exec(
            conn, "SELECT id FROM {compactions} WHERE session_id = %s ORDER BY position",
            [session_id]).fetchall()]
        safe = [safe_message(x) for x in compactions]
        same = 0
        while same < len(stored) and same < len(safe) and stored[same] == safe[same].id:
            same += 1
        self._exec(conn, "DELETE FROM {compactions} WHERE session_id = %s AND position >= %s",
                   [session_id, same])
        for position in range(same, len(safe)):
            compaction = safe[position]
            self._exec(conn, "INSERT INTO {compactions} (id, session_id, position, json,"
                       " created_at) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id, id)"
                       " DO UPDATE SET position = excluded.position, json = excluded.json,"
                       " created_at = excluded.created_at",
                       [compaction.id, session_id, position, compaction.model_dump_json(),
                        compaction.created_at])

    def _create(self, conn: Connection, conversation: Conversation,
                name: str | None = None, forked_from: str | None = None, *,
                created_at: float | None = None, updated_at: float | None = None,
                provider: str | None = None, model: str | None = None,
                project: str | Here | None = HERE,
                history: Sequence[str | None] = (), keep_order: bool = False) -> None:
        """Write the whole conversation (row, log parents first — in ``created_at`` order, or
        in the log's own order with ``keep_order`` —, checkpoints, compactions, and
        ``history`` as head events). :class:`_Again` when the id appeared meanwhile."""
        now = time.time()
        meta = conversation.metadata
        cwd = meta.get("cwd") or c.cwd()
        if isinstance(project, Here):
            project = c.current_project(cwd)
        parent = conversation.parent.id if conversation.parent is not None \
            else meta.get("parent")
        sid = _t(conversation.id) or ""
        created = self._exec(
            conn, "INSERT INTO {sessions} (id, name, title, created_at, updated_at, provider,"
            " model, head, forked_from, cwd, project, parent, worker)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (id) DO NOTHING",
            [sid, _t(name), _t(conversation.title or c.derive_title(conversation)),
             now if created_at is None else created_at,
             now if updated_at is None else updated_at,
             _t(provider), _t(model), _t(conversation.head),
             _t(forked_from or meta.get("forked_from")), _t(str(cwd)),
             _t(project), _t(parent), _t(c.worker_json(meta.get("subagent")))]).rowcount
        if not created:
            raise _Again
        ordered = conversation.all_messages() if keep_order else \
            sorted(conversation.all_messages(), key=lambda m: m.created_at)
        self._insert_messages(conn, sid, c.parents_first(ordered), 1)
        for checkpoint in conversation.checkpoints:
            self._insert_checkpoint(conn, sid, checkpoint)
        self._write_compactions(conn, sid, conversation.compactions)
        for index, previous in enumerate(history):
            later = history[index + 1] if index + 1 < len(history) else conversation.head
            self._exec(conn, "INSERT INTO {head_events} (session_id, reason, head, previous,"
                       " created_at) VALUES (%s, 'import', %s, %s, %s)",
                       [sid, _t(later), _t(previous), now])
        if provider is None and model is None:
            for message in reversed(ordered):
                if message.provider or message.model:
                    self._exec(conn, "UPDATE {sessions} SET provider = COALESCE(%s, provider),"
                               " model = COALESCE(%s, model) WHERE id = %s",
                               [_t(message.provider), _t(message.model), sid])
                    break

    # ------------------------------------------------------------------ writing

    def append(self, conversation: Conversation, message: Message) -> None:
        """Persist ``message`` and move the head by compare-and-set (see the module's
        docstring and :meth:`chatcli_sessions_api.SessionStore.append`).

        :raises HeadMoved: another writer moved the head; ``message`` is stored all the same.
        """
        sid = _t(conversation.id) or ""
        wanted = _t(conversation.head)

        def work(conn: Connection) -> str | Unchecked | None:
            row = self._lock_session(conn, sid)
            if row is None:
                if c.answered(conversation):
                    self._create(conn, conversation)
                return UNCHECKED
            chain = self._to_write(conn, conversation, message)
            next_seq = self._insert_messages(conn, sid, chain, int(row["next_seq"]),
                                             write_counter=False)
            if message.role.value == "user":
                self._relabel_checkpoint(conn, conversation, message)
            expected = _t(chain[0].parent_id) if chain else _t(message.parent_id)
            title = c.title_of(message.text) if message.role.value == "user" else ""
            moved = self._exec(
                conn, "UPDATE {sessions} SET head = CASE WHEN head IS NOT DISTINCT FROM %s"
                " OR head IS NOT DISTINCT FROM %s THEN %s ELSE head END, updated_at = %s,"
                " provider = COALESCE(%s, provider), model = COALESCE(%s, model),"
                " title = CASE WHEN title = '' THEN %s ELSE title END, next_seq = %s"
                " WHERE id = %s RETURNING head",
                [expected, wanted, wanted, time.time(), _t(message.provider),
                 _t(message.model), _t(title), next_seq, sid]).fetchone()
            current = moved["head"] if moved else None
            return UNCHECKED if current == wanted else current

        current = self._write(_("store a message"), work)
        if not isinstance(current, Unchecked):
            raise HeadMoved(conversation.id, current, conversation.head)

    def add_checkpoint(self, conversation: Conversation, checkpoint: Checkpoint) -> bool:
        """Persist ``checkpoint``, keeping the newest ``conversation.max_checkpoints``; False
        when the session is not stored yet."""
        sid = _t(conversation.id) or ""

        def work(conn: Connection) -> bool:
            if self._lock_session(conn, sid) is None:
                return False
            self._insert_checkpoint(conn, sid, checkpoint)
            self._prune_checkpoints(conn, sid, conversation.max_checkpoints)
            return True

        return self._write(_("store a checkpoint"), work)

    def move_head(self, conversation: Conversation, head: str | None, reason: str, *,
                  expected: str | Unchecked | None = UNCHECKED) -> bool:
        """Persist a head move (rewind, undo, clear, retry) and its head event; with
        ``expected``, compare-and-set (:class:`HeadMoved`, nothing written, when the stored
        head differs). A session not stored yet is written whole once it has an answer."""
        sid = _t(conversation.id) or ""

        def work(conn: Connection) -> bool:
            row = self._lock_session(conn, sid)
            if row is None:
                if not c.answered(conversation):
                    return False
                self._create(conn, conversation)
                return True
            if not isinstance(expected, Unchecked) and row["head"] != _t(expected):
                raise HeadMoved(conversation.id, row["head"], head)
            now = time.time()
            self._exec(conn, "INSERT INTO {head_events} (session_id, reason, head, previous,"
                       " created_at) VALUES (%s, %s, %s, %s, %s)",
                       [sid, _t(reason), _t(head), row["head"], now])
            self._exec(conn, "UPDATE {sessions} SET head = %s, updated_at = %s WHERE id = %s",
                       [_t(head), now, sid])
            return True

        return self._write(_("move the head"), work)

    def save_compactions(self, conversation: Conversation) -> bool:
        """Persist ``conversation.compactions``; a session not stored yet is written whole
        once it has an answer (False: nothing to write)."""
        sid = _t(conversation.id) or ""

        def work(conn: Connection) -> bool:
            if self._lock_session(conn, sid) is None:
                if not c.answered(conversation):
                    return False
                self._create(conn, conversation)
                return True
            self._write_compactions(conn, sid, conversation.compactions)
            self._exec(conn, "UPDATE {sessions} SET updated_at = %s WHERE id = %s",
                       [time.time(), sid])
            return True

        return self._write(_("store the compactions"), work)

    def save(self, conversation: Conversation, name: str | None = None) -> None:
        """Write ``conversation`` now (even without an answer), optionally naming it."""
        name = _t(name.strip()) if name else None
        sid = _t(conversation.id) or ""

        def work(conn: Connection) -> None:
            if name is not None:
                other = self._exec(conn, "SELECT id FROM {sessions} WHERE name = %s"
                                   " AND id <> %s", [name, sid]).fetchone()
                if other is not None:
                    raise UsageError(
                        _("the name {name!r} is already used by session {session}").format(
                            name=name, session=other["id"]),
                        _("choose another name or delete that session"))
            if self._lock_session(conn, sid) is None:
                self._create(conn, conversation, name=name)
            elif name is not None:
                self._exec(conn, "UPDATE {sessions} SET name = %s, updated_at = %s"
                           " WHERE id = %s", [name, time.time(), sid])

        self._write(_("save the session"), work)

    def fork(self, conversation: Conversation) -> Conversation:
        """A new stored session holding ``conversation``'s current path and checkpoints."""
        forked = c.fork_of(conversation)
        self._write(_("store the fork"),
                    lambda conn: self._create(conn, forked, forked_from=conversation.id))
        return forked

    def import_session(self, conversation: Conversation, *, name: str | None,
                       created_at: float, updated_at: float, provider: str | None,
                       model: str | None, forked_from: str | None,
                       project: str | Here | None = None,
                       head_history: Sequence[str | None] = ()) -> None:
        """Store ``conversation`` as a new session exactly as given, all or nothing: the log
        in its own order (``seq`` follows it), ``head_history`` as head events.

        :raises UsageError: its id or ``name`` is already taken.
        """
        sid = _t(conversation.id) or ""
        safe_name = _t(name)

        def work(conn: Connection) -> None:
            if self._exec(conn, "SELECT 1 FROM {sessions} WHERE id = %s", [sid]).fetchone():
                raise UsageError(
                    _("session {session} already exists").format(session=conversation.id),
                    _("delete it first (chatcli sessions delete {session}) or import a copy "
                      "with --new-id").format(session=conversation.id))
            if safe_name is not None:
                other = self._exec(conn, "SELECT id FROM {sessions} WHERE name = %s",
                                   [safe_name]).fetchone()
                if other is not None:
                    raise UsageError(
                        _("the name {name!r} is already used by session {session}").format(
                            name=name, session=other["id"]),
                        _("import with --name OTHER"))
            try:
                self._create(conn, conversation, name=safe_name, forked_from=forked_from,
                             created_at=created_at, updated_at=updated_at, provider=provider,
                             model=model, project=project, history=list(head_history),
                             keep_order=True)
            except _Again:
                raise UsageError(_("session {session} already exists").format(
                    session=conversation.id), _("import a copy with --new-id")) from None

        self._write(_("import the session"), work)

    def delete(self, session_id: str) -> bool:
        """Delete a session, everything it holds and its workers' sessions; False when it
        did not exist."""
        sid = _t(session_id)

        def work(conn: Connection) -> bool:
            self._exec(conn, "DELETE FROM {sessions} WHERE parent = %s", [sid])
            return bool(self._exec(conn, "DELETE FROM {sessions} WHERE id = %s",
                                   [sid]).rowcount)

        return self._write(_("delete the session"), work)

    def append_raw(self, session_id: str, message: Message, head: str | None) -> None:
        """Append ``message`` to a stored session and set its head to ``head`` (no compare)."""
        sid = _t(session_id) or ""

        def work(conn: Connection) -> None:
            row = self._lock_session(conn, sid)
            if row is None:
                raise UsageError(_("no session {session}").format(session=session_id),
                                 _("see `chatcli sessions list`"))
            if safe_message(message).id not in self._stored_ids(conn, sid,
                                                                [safe_message(message).id]):
                self._insert_messages(conn, sid, [message], int(row["next_seq"]))
            self._exec(conn, "UPDATE {sessions} SET head = %s, updated_at = %s WHERE id = %s",
                       [_t(head), time.time(), sid])

        self._write(_("store a message"), work)

    # ------------------------------------------------------------------ reading

    _INFO = ("SELECT s.id, s.name, s.title, s.created_at, s.updated_at, s.provider, s.model,"
             " s.head, (SELECT count(*) FROM {messages} m WHERE m.session_id = s.id)"
             " AS messages, s.forked_from, s.project, s.cwd, s.parent{extra}"
             " FROM {sessions} s")

    def _info_sql(self, where: str, extra: str = "") -> str:
        return self._INFO.replace("{extra}", extra) + where

    @staticmethod
    def _info(row: dict[str, Any]) -> SessionInfo:
        from chatcli_sessions_api import SessionInfo

        return SessionInfo(row["id"], row["name"], row["title"], row["created_at"],
                           row["updated_at"], row["provider"], row["model"], row["head"],
                           int(row["messages"]), row["forked_from"], row["project"],
                           row["cwd"], row["parent"])

    def list(self, limit: int | None = None, project: str | None = None,
             under: str | None = None) -> builtins.list[SessionInfo]:
        """Root sessions, most recently updated first (see the contract)."""
        where = " WHERE s.parent IS NULL"
        params: builtins.list[Any] = []
        if project is not None:
            where += " AND s.project = %s"
            params.append(_t(project))
        if under is not None:
            prefix = under.rstrip("/") + "/"
            where += " AND (s.project = %s OR starts_with(s.project, %s))"
            params += [_t(under), _t(prefix)]
        where += " ORDER BY s.updated_at DESC, s.ord DESC"
        if limit is not None and limit >= 0:  # a negative limit is none (as SQLite reads it)
            where += " LIMIT %s"
            params.append(int(limit))
        statement = self._info_sql(where)
        rows = self._read(_("list the sessions"),
                          lambda conn: self._exec(conn, statement, params).fetchall())
        return [self._info(r) for r in rows]

    def count(self, project: str | None = None) -> int:
        """How many root sessions ``project`` has (every project's when None)."""
        if project is None:
            statement, params = "SELECT count(*) AS n FROM {sessions} WHERE parent IS NULL", []
        else:
            statement = "SELECT count(*) AS n FROM {sessions} WHERE parent IS NULL" \
                " AND project = %s"
            params = [_t(project)]
        row = self._read(_("count the sessions"),
                         lambda conn: self._exec(conn, statement, params).fetchone())
        return int(row["n"]) if row else 0

    def workers(self, session_id: str) -> builtins.list[tuple[SessionInfo, dict[str, Any]]]:
        """The sessions of the workers ``session_id`` delegated to, oldest first, with what
        the delegation said of each."""
        statement = self._info_sql(" WHERE s.parent = %s ORDER BY s.created_at, s.ord",
                                   ", s.worker")
        rows = self._read(_("list the workers' sessions"),
                          lambda conn: self._exec(conn, statement, [_t(session_id)]).fetchall())
        return [(self._info(r), c.worker_dict(r["worker"])) for r in rows]

    def info(self, session_id: str) -> SessionInfo | None:
        """One session's summary, or None."""
        statement = self._info_sql(" WHERE s.id = %s")
        row = self._read(_("read a session"),
                         lambda conn: self._exec(conn, statement, [_t(session_id)]).fetchone())
        return self._info(row) if row else None

    def latest(self, project: str | None = None) -> SessionInfo | None:
        """The most recently updated root session of ``project`` (of any when None)."""
        found = self.list(limit=1, project=project)
        return found[0] if found else None

    def resolve(self, ref: str) -> SessionInfo:
        """The session named by ``ref``: an exact id or name, else a unique id prefix.

        :raises UsageError: nothing or several sessions match (one line).
        """
        ref = ref.strip()
        if not ref:
            raise UsageError(_("no session given"), _("see `chatcli sessions list`"))
        if not c.is_utf8(ref):
            raise UsageError(_("the session id holds bytes that are not UTF-8"),
                             _("give it as `chatcli sessions list` shows it"))
        safe = safe_text(ref)

        def work(conn: Connection) -> builtins.list[str]:
            rows = self._exec(conn, "SELECT id FROM {sessions} WHERE id = %s OR name = %s",
                              [safe, safe]).fetchall()
            if not rows:
                escaped = safe.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                rows = self._exec(
                    conn, "SELECT id FROM {sessions} WHERE id LIKE %s ESCAPE '\\'"
                    " OR id LIKE %s ESCAPE '\\' ORDER BY updated_at DESC",
                    [escaped + "%", "s\\_" + escaped + "%"]).fetchall()
            return builtins.list(dict.fromkeys(r["id"] for r in rows))

        ids = self._read(_("find the session"), work)
        if not ids:
            raise UsageError(_("no session matches {ref!r}").format(ref=ref),
                             _("see `chatcli sessions list`"))
        if len(ids) > 1:
            shown = ", ".join(ids[:4]) + (" …" if len(ids) > 4 else "")
            raise UsageError(ngettext("{ref!r} matches {count} sessions ({ids})",
                                      "{ref!r} matches {count} sessions ({ids})",
                                      len(ids)).format(ref=ref, count=len(ids), ids=shown),
                             _("give more of the id"))
        info = self.info(ids[0])
        if info is None:  # deleted between the two reads
            raise UsageError(_("no session matches {ref!r}").format(ref=ref),
                             _("see `chatcli sessions list`"))
        return info

    def messages(self, session_id: str) -> builtins.list[Message]:
        """Every message of the session's log (all branches), in ``seq`` order."""
        from chatcli import Message as _Message

        rows = self._read(_("read the messages"), lambda conn: self._exec(
            conn, "SELECT json FROM {messages} WHERE session_id = %s ORDER BY seq",
            [_t(session_id)]).fetchall())
        return [_Message.model_validate_json(r["json"]) for r in rows]

    def checkpoints(self, session_id: str) -> builtins.list[Checkpoint]:
        """The session's checkpoints, oldest first."""
        from chatcli import Checkpoint as _Checkpoint

        rows = self._read(_("read the checkpoints"), lambda conn: self._exec(
            conn, "SELECT id, head, label, created_at FROM {checkpoints} WHERE session_id = %s"
            " ORDER BY created_at, ord", [_t(session_id)]).fetchall())
        return [_Checkpoint(id=r["id"], head=r["head"], label=r["label"],
                            created_at=r["created_at"]) for r in rows]

    def compactions(self, session_id: str) -> builtins.list[Compaction]:
        """The session's compactions, in order (unreadable ones left out)."""
        from chatcli import Compaction as _Compaction

        rows = self._read(_("read the compactions"), lambda conn: self._exec(
            conn, "SELECT json FROM {compactions} WHERE session_id = %s ORDER BY position",
            [_t(session_id)]).fetchall())
        found = []
        for row in rows:
            try:
                found.append(_Compaction.model_validate_json(row["json"]))
            except ValueError:
                continue
        return found

    def head_history(self, session_id: str) -> builtins.list[str | None]:
        """The undo stack rebuilt from the head events (undo pops, other moves push)."""
        rows = self._read(_("read the head moves"), lambda conn: self._exec(
            conn, "SELECT reason, previous FROM {head_events} WHERE session_id = %s"
            " ORDER BY ord", [_t(session_id)]).fetchall())
        stack: builtins.list[str | None] = []
        for row in rows:
            if row["reason"] == "undo":
                if stack:
                    stack.pop()
            else:
                stack.append(row["previous"])
        return stack

    def _worker(self, session_id: str) -> dict[str, Any]:
        row = self._read(_("read a session"), lambda conn: self._exec(
            conn, "SELECT worker FROM {sessions} WHERE id = %s", [session_id]).fetchone())
        return c.worker_dict(row["worker"] if row else None)

    def load(self, ref: str, max_checkpoints: int = 20, resume: bool = False) -> Conversation:
        """Restore the session named by ``ref`` from one consistent state; with ``resume``,
        repairs are written and unanswered tool calls get error results."""
        self._closed_check()
        for attempt in range(2):  # a connection found dead is replaced once
            try:
                with self._pool.snapshot():  # another replica may be appending to it
                    info = self.resolve(ref)
                    messages = self.messages(info.id)
                    checkpoints = self.checkpoints(info.id)
                    history = self.head_history(info.id)
                    compactions = self.compactions(info.id)
                    worker = self._worker(info.id) if info.parent is not None else {}
                break
            except CONNECTION_ERRORS as err:
                self._pool.discard_idle()
                if attempt == 0:
                    continue
                raise connection_error(err, self.target) from None
            except psycopg.Error as err:
                raise query_error(err, self.target, _("read the session")) from None
        else:  # pragma: no cover
            raise AssertionError("unreachable")
        head = info.head
        dropped = c.unreachable(messages)
        if dropped:
            messages, head, checkpoints = c.repair(info.id, messages, head, checkpoints,
                                                   dropped)
            if resume:
                self._persist_repair(info.id, dropped, head)
        closing = c.closing_message(messages, head) if resume else None
        if closing is not None:
            self.append_raw(info.id, closing, closing.id)
            messages.append(closing)
            head = closing.id
        return c.assemble(info, messages, head, checkpoints, history, compactions, worker,
                          max_checkpoints)

    def _persist_repair(self, session_id: str, dropped: builtins.list[Message],
                        head: str | None) -> None:
        ids = [m.id for m in dropped]

        def work(conn: Connection) -> None:
            self._lock_session(conn, session_id)
            self._exec(conn, "DELETE FROM {messages} WHERE session_id = %s"
                       " AND id = ANY(%s::text[])", [session_id, ids])
            self._exec(conn, "DELETE FROM {checkpoints} WHERE session_id = %s"
                       " AND head = ANY(%s::text[])", [session_id, ids])
            self._exec(conn, "UPDATE {sessions} SET head = %s WHERE id = %s",
                       [head, session_id])

        self._write(_("repair the session"), work)

    def search(self, text: str, limit: int = 20) -> builtins.list[SearchHit]:
        """Messages whose text holds every word of ``text`` (case and accents ignored, the
        last word a prefix; a word without letters or digits as it is), newest first."""
        if not text.strip():
            return []
        if not c.is_utf8(text):
            raise UsageError(_("the search text holds bytes that are not UTF-8"),
                             _("type it again as UTF-8 text"))
        from chatcli_sessions_api import SearchHit

        query = parse_query(text)
        if limit < 0:  # none (as SQLite reads a negative LIMIT)
            limit = 2**62
        if not query or limit == 0:
            return []
        conditions: builtins.list[str] = []
        params: builtins.list[Any] = []
        if query.tokens:
            conditions.append("m.words @@ %s::tsquery")
            params.append(tsquery_text(query))
        for literal in query.literals:
            conditions.append("strpos(m.text, %s) > 0")
            params.append(safe_text(literal))
        statement = self._q(
            "SELECT m.session_id, s.title, m.id, m.role, m.text, m.created_at"
            " FROM {messages} m JOIN {sessions} s ON s.id = m.session_id WHERE "
            + " AND ".join(conditions) + " ORDER BY m.created_at DESC, m.seq DESC"
            " LIMIT %s OFFSET %s")
        # a phrase (``foo-bar``) is checked on the rows the index gives: read on until enough
        batch = int(limit) if not query.phrases else min(max(4 * int(limit), 100), 2**62)
        hits: builtins.list[SearchHit] = []
        offset = 0
        while len(hits) < limit:
            rows = self._read(_("search the sessions"),
                              partial(_fetch, statement, [*params, batch, offset]))
            hits += [SearchHit(r["session_id"], r["title"], r["id"], r["role"],
                               snippet(r["text"], query), r["created_at"])
                     for r in rows if query.holds_phrases(r["text"])]
            if len(rows) < batch:
                break
            offset += batch
        return hits[:limit]

    def integrity(self) -> str:
        """"ok" when the server answers and every message's session and parent are stored,
        else one line saying what is wrong."""
        def work(conn: Connection) -> str:
            row = self._exec(conn, "SELECT count(*) AS n FROM {messages} m WHERE m.parent_id"
                             " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {messages} p WHERE"
                             " p.session_id = m.session_id AND p.id = m.parent_id)").fetchone()
            orphans = int(row["n"]) if row else 0
            return "ok" if not orphans else f"{orphans} messages whose parent is not stored"

        return self._read(_("check the sessions"), work)

    def close(self) -> None:
        """Close the connections (idempotent)."""
        self._pool.close()

    def __enter__(self) -> PostgresSessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
