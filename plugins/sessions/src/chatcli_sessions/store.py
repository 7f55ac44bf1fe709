"""The session store: conversations persisted in an embedded SQLite database.

One file, ``sessions.db`` in :func:`chatcli.data_dir`, holds every session:

* ``sessions``    one row per conversation (id, name, title, times, provider, model, head)
* ``messages``    the append-only log: the pydantic JSON of each kernel ``Message`` plus its
                  ``parent_id`` (the log is a tree) and a per-session ``seq``
* ``checkpoints`` the rewind points (the newest N per session are kept)
* ``head_events`` every head move (rewind, undo, clear), so ``undo`` survives a restart
* ``compactions`` the view's compactions (summaries and trims standing in for ranges of the
                  log), in order, so ``-c`` keeps the compacted view and ``/compact undo`` works
                  after a restart
* ``messages_fts`` an FTS5 index over message text (search falls back to LIKE without FTS5)

Crash safety. The database runs in WAL mode with ``synchronous=FULL``: every change is one short
transaction, and a transaction is durable once :meth:`SessionStore` returns. WAL alone already
makes a killed process (``kill -9``) lose nothing that was committed and never leaves a file
needing repair — SQLite replays or drops the WAL tail on the next open. ``FULL`` adds an fsync of
the WAL on each commit, so a power cut or OS crash does not drop the last turns either. chatcli
commits a handful of times per turn (checkpoint, user message, answer), next to a model call that
takes seconds, so the fsync costs nothing a person could notice.

Privacy. Conversations are private: the folder the store creates is 0700, and the database
with its ``-wal``/``-shm`` files is 0600 — fixed on every open, so files an older chatcli
created world-readable are narrowed too. A data folder that already exists is left as it is.

Concurrency. Several chatcli processes may share the file: writers take the write lock up front
(``BEGIN IMMEDIATE``, so no read-to-write upgrade can deadlock), wait up to ``busy_timeout`` for
it, and the whole transaction is retried with backoff if SQLite still reports it busy.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import random
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from chatcli import UsageError, safe_message, safe_text, translation
from chatcli_sessions_api import HERE, UNCHECKED, HeadMoved, Here, StoreError
from chatcli_sessions_api.common import (
    UNSTORABLE_ARGUMENTS,
    answered,
    assemble,
    closing_message,
    current_project,
    cwd,
    derive_title,
    fork_of,
    is_utf8,
    message_json,
    message_text,
    parents_first,
    repair,
    snippet,
    title_of,
    unreachable,
    worker_dict,
    worker_json,
)

from chatcli_sessions.schema import SCHEMA_VERSION, migrate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from chatcli import Checkpoint, Compaction, Conversation, Message
    from chatcli_sessions_api import SearchHit, SessionInfo, Unchecked

__all__ = [
    "HERE",
    "SCHEMA_VERSION",
    "UNSTORABLE_ARGUMENTS",
    "HeadMoved",
    "SearchHit",
    "SessionInfo",
    "SessionStore",
    "StoreError",
    "default_path",
    "fts_query",
    "migrate",
]

T = TypeVar("T")

_, ngettext = translation(__name__)

#: Milliseconds a connection waits for another process's write lock before SQLITE_BUSY.
BUSY_TIMEOUT_MS = 10_000
#: Whole-transaction retries after SQLITE_BUSY / "database is locked" (on top of busy_timeout).
BUSY_RETRIES = 8


def __getattr__(name: str) -> Any:
    """``SessionInfo`` and ``SearchHit``, still importable from here (they live in
    :mod:`chatcli_sessions_api.records`, imported when a list or a search makes one: a run that
    only writes its session never makes their dataclasses, which costs about a millisecond
    each)."""
    if name in ("SessionInfo", "SearchHit"):
        from chatcli_sessions_api import records as info

        return getattr(info, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_path() -> Path:
    """Where the session database lives: ``data_dir()/sessions.db``."""
    from chatcli import data_dir

    return data_dir() / "sessions.db"


def _is_busy(err: sqlite3.OperationalError) -> bool:
    text = str(err).lower()
    return "locked" in text or "busy" in text


def fts_query(text: str) -> str:
    """Turn free text into a safe FTS5 query: every word must appear (the last as a prefix)."""
    words = [w for w in text.replace("\x00", " ").split() if w.strip('"*')]
    quoted = ['"' + w.replace('"', '""') + '"' for w in words]
    if quoted:
        quoted[-1] += "*"
    return " ".join(quoted)


# ------------------------------------------------------------------------------------ store


class SessionStore:
    """A connection to the session database. Safe to share between threads of one process."""

    def __init__(self, path: Path | str | None = None, *, synchronous: str = "FULL") -> None:
        self.path = Path(path) if path is not None else default_path()
        self.pid = os.getpid()
        self._lock = threading.RLock()
        try:
            _make_folder(self.path.parent)
            _create_private(self.path)
            self.db = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as err:
            raise StoreError(
                _("cannot open the session database {path}: {error}").format(path=self.path,
                                                                            error=err),
                _("check the permissions of that folder or set CHATCLI_DATA_DIR"),
            ) from None
        try:
            self._retry(lambda: self._setup(synchronous))
        except sqlite3.DatabaseError as err:
            self.db.close()
            raise StoreError(
                _("the session database {path} is unusable: {error}").format(path=self.path,
                                                                            error=err),
                _("move it aside; chatcli starts a new one"),
            ) from None
        for suffix in ("", "-wal", "-shm"):  # older versions left these world-readable
            _make_private(Path(f"{self.path}{suffix}"))
        self.has_fts = self._table_exists("messages_fts")

    def _setup(self, synchronous: str) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(
                f"cannot switch to WAL (journal_mode={mode})")  # untranslated: in sqlite's words
        self.db.execute(f"PRAGMA synchronous = {synchronous}")
        self.db.execute("PRAGMA foreign_keys = ON")
        migrate(self.db)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self.db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def _table_exists(self, name: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ?", (name,)
        ).fetchone()
        return row is not None

    def _retry(self, action: Callable[[], T]) -> T:
        """Run ``action``, retrying with backoff while another process holds the lock."""
        for attempt in range(BUSY_RETRIES + 1):
            try:
                return action()
            except sqlite3.OperationalError as err:
                if not _is_busy(err) or attempt == BUSY_RETRIES:
                    raise
                time.sleep(min(0.05 * 2**attempt, 1.0) * (0.5 + random.random()))
        raise AssertionError("unreachable")  # pragma: no cover

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT); rolled back on any error."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(db)`` in one write transaction, retried as a whole when busy."""

        def attempt() -> T:
            with self._write() as db:
                return work(db)

        with self._lock:
            try:
                return self._retry(attempt)
            except sqlite3.Error as err:
                raise StoreError(_("cannot write the session database: {error}").format(
                    error=err)) from None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one consistent state of the database (one read transaction)."""
        with self._lock:
            if self.db.in_transaction:  # nested: the outer snapshot holds
                yield
                return
            self.db.execute("BEGIN")
            try:
                yield
            finally:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("COMMIT")

    def _read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._retry(lambda: self.db.execute(sql, params).fetchall())

    # ------------------------------------------------------------------ writing

    @staticmethod
    def _exists(db: sqlite3.Connection, session_id: str) -> bool:
        row = db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return row is not None

    @staticmethod
    def _insert_message(db: sqlite3.Connection, session_id: str, message: Message) -> None:
        message = safe_message(message)  # what UTF-8 cannot hold would fail the JSON
        seq = db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        db.execute(
            "INSERT OR IGNORE INTO messages"
            "(id, session_id, parent_id, seq, role, text, json, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                message.id,
                session_id,
                message.parent_id,
                seq,
                message.role.value,
                message_text(message),
                message_json(message),
                message.created_at,
            ),
        )

    @staticmethod
    def _insert_checkpoint(db: sqlite3.Connection, session_id: str, cp: Checkpoint) -> None:
        db.execute(
            "INSERT OR IGNORE INTO checkpoints(id, session_id, head, label, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (safe_text(cp.id), session_id, None if cp.head is None else safe_text(cp.head),
             safe_text(cp.label), cp.created_at),
        )

    @staticmethod
    def _relabel_checkpoint(db: sqlite3.Connection, conversation: Conversation,
                            message: Message) -> None:
        """Store the label of ``message``'s checkpoint (the newest, taken right before it) if a
        plugin changed it as the message was appended: a command that sends a prompt
        (``/coder fix it``) labels it with the command as typed, which /rewind puts back."""
        checkpoint = conversation.checkpoints[-1] if conversation.checkpoints else None
        if checkpoint is not None and checkpoint.head == message.parent_id:
            db.execute("UPDATE checkpoints SET label = ? WHERE session_id = ? AND id = ?"
                       " AND label != ?", (safe_text(checkpoint.label), conversation.id,
                                           safe_text(checkpoint.id), safe_text(checkpoint.label)))

    @staticmethod
    def _prune_checkpoints(db: sqlite3.Connection, session_id: str, keep: int) -> None:
        db.execute(
            "DELETE FROM checkpoints WHERE session_id = ? AND rowid NOT IN ("
            " SELECT rowid FROM checkpoints WHERE session_id = ?"
            " ORDER BY created_at DESC, rowid DESC LIMIT ?)",
            (session_id, session_id, max(keep, 1)),
        )

    def _create(
        self,
        db: sqlite3.Connection,
        conversation: Conversation,
        name: str | None = None,
        forked_from: str | None = None,
        *,
        created_at: float | None = None,
        updated_at: float | None = None,
        provider: str | None = None,
        model: str | None = None,
        project: str | Here | None = HERE,
        log_order: bool = False,
        head_history: Sequence[str | None] = (),
    ) -> None:
        """Write the whole conversation (row, log in append order, checkpoints).

        ``provider``/``model`` default to those of the newest message that names them;
        ``project`` to the project of the current folder (:func:`current_project`). The log is
        written in ``created_at`` order, or with ``log_order`` in the conversation's own order
        (an import: ``seq`` as it was); ``head_history`` becomes head events (an undo stack).
        """
        now = time.time()
        meta = conversation.metadata
        folder = meta.get("cwd") or cwd()
        if isinstance(project, Here):
            project = current_project(folder)
        db.execute(
            "INSERT INTO sessions(id, name, title, created_at, updated_at, provider, model,"
            " head, forked_from, cwd, project, parent, worker)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation.id,
                safe_text(name) if name is not None else None,
                safe_text(conversation.title or derive_title(conversation)),
                now if created_at is None else created_at,
                now if updated_at is None else updated_at,
                provider,
                model,
                conversation.head,
                forked_from or meta.get("forked_from"),
                folder,
                None if project is None else safe_text(project),
                conversation.parent.id if conversation.parent is not None else meta.get("parent"),
                worker_json(meta.get("subagent")),
            ),
        )
        ordered = conversation.all_messages()
        if not log_order:
            ordered = sorted(ordered, key=lambda m: m.created_at)
        for message in parents_first(ordered):
            self._insert_message(db, conversation.id, message)
        stored = created_at if created_at is not None else now
        for previous in head_history:  # replayed as rewinds: head_history() rebuilds the stack
            db.execute(
                "INSERT INTO head_events(session_id, reason, head, previous, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (conversation.id, "rewind", None, previous, stored),
            )
        for checkpoint in conversation.checkpoints:
            self._insert_checkpoint(db, conversation.id, checkpoint)
        self._write_compactions(db, conversation.id, conversation.compactions)
        if provider is None and model is None:
            _record_provider(db, conversation.id, ordered)

    @staticmethod
    def _write_compactions(db: sqlite3.Connection, session_id: str,
                           compactions: list[Compaction]) -> None:
        """Make the stored compactions of the session those of ``compactions``, in order: what
        they share at the start stays, the rest is rewritten (an append writes one row)."""
        stored = [r[0] for r in db.execute(
            "SELECT id FROM compactions WHERE session_id = ? ORDER BY position", (session_id,))]
        same = 0
        while (same < len(stored) and same < len(compactions)
               and stored[same] == compactions[same].id):
            same += 1
        db.execute("DELETE FROM compactions WHERE session_id = ? AND position >= ?",
                   (session_id, same))
        for position in range(same, len(compactions)):
            compaction = safe_message(compactions[position])
            db.execute(
                "INSERT OR REPLACE INTO compactions(id, session_id, position, json, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (compaction.id, session_id, position, compaction.model_dump_json(),
                 compaction.created_at),
            )

    def append(self, conversation: Conversation, message: Message) -> None:
        """Persist ``message`` (just appended to ``conversation``) and the new head.

        The first append of a conversation creates its session row and writes everything the
        conversation holds (checkpoints taken before that first message included). A message is
        never stored without its parent: ancestors an earlier append failed to write (the disk
        was full, the database locked past every retry) are written first, in the same
        transaction, so either the message and its whole chain are stored or nothing is.

        A conversation is written once it has an answer: a first question whose answer never
        came (the network failed, the key was wrong) leaves no session behind; it is written
        with the first answer, the question included.

        The head is compare-and-set: it moves only if the stored head is the parent of the
        first message written (or already is the conversation's head); else the messages stay
        stored and :class:`~chatcli_sessions_api.HeadMoved` is raised with the stored head.
        """

        def work(db: sqlite3.Connection) -> tuple[str | None, bool]:
            row = db.execute("SELECT head FROM sessions WHERE id = ?",
                             (conversation.id,)).fetchone()
            if row is None:
                if answered(conversation):
                    self._create(db, conversation)
                return None, True
            chain = [*_unsaved_ancestors(db, conversation, message), message]
            for missing in chain:
                self._insert_message(db, conversation.id, missing)
            if message.role.value == "user":
                self._relabel_checkpoint(db, conversation, message)
            stored = row[0]
            moves = stored in (chain[0].parent_id, conversation.head)
            title = title_of(message.text) if message.role.value == "user" else ""
            db.execute(
                "UPDATE sessions SET head = CASE WHEN ? THEN ? ELSE head END, updated_at = ?,"
                " provider = COALESCE(?, provider), model = COALESCE(?, model),"
                " title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?",
                (moves, conversation.head, time.time(), message.provider, message.model, title,
                 conversation.id),
            )
            return stored, moves

        stored, moved = self.transaction(work)
        if not moved:
            raise HeadMoved(conversation.id, stored, conversation.head)

    def add_checkpoint(self, conversation: Conversation, checkpoint: Checkpoint) -> bool:
        """Persist ``checkpoint``, keeping the newest ``conversation.max_checkpoints``.

        Returns False when the session has no row yet (it is written with the first message).
        """

        def work(db: sqlite3.Connection) -> bool:
            if not self._exists(db, conversation.id):
                return False
            self._insert_checkpoint(db, conversation.id, checkpoint)
            self._prune_checkpoints(db, conversation.id, conversation.max_checkpoints)
            return True

        return self.transaction(work)

    def move_head(self, conversation: Conversation, head: str | None, reason: str, *,
                  expected: str | Unchecked | None = UNCHECKED) -> bool:
        """Persist a head move (rewind, undo, clear). False when the session has no row yet.

        With ``expected``: compare-and-set (a stored head that is not ``expected`` raises
        :class:`~chatcli_sessions_api.HeadMoved`, nothing written)."""

        def work(db: sqlite3.Connection) -> bool | tuple[str | None]:
            row = db.execute(
                "SELECT head FROM sessions WHERE id = ?", (conversation.id,)
            ).fetchone()
            if row is None:
                if not answered(conversation):
                    return False
                self._create(db, conversation)
                return True
            if expected is not UNCHECKED and row[0] != expected:
                return (row[0],)
            db.execute(
                "INSERT INTO head_events(session_id, reason, head, previous, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (conversation.id, reason, head, row[0], time.time()),
            )
            db.execute(
                "UPDATE sessions SET head = ?, updated_at = ? WHERE id = ?",
                (head, time.time(), conversation.id),
            )
            return True

        done = self.transaction(work)
        if isinstance(done, tuple):
            raise HeadMoved(conversation.id, done[0], head)
        return done

    def save_compactions(self, conversation: Conversation) -> bool:
        """Persist ``conversation.compactions`` (after ``view_changed``). A conversation with no
        row yet is written whole; False when it holds nothing to write."""

        def work(db: sqlite3.Connection) -> bool:
            if not self._exists(db, conversation.id):
                if not answered(conversation):
                    return False
                self._create(db, conversation)
                return True
            self._write_compactions(db, conversation.id, conversation.compactions)
            db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?",
                       (time.time(), conversation.id))
            return True

        return self.transaction(work)

    def save(self, conversation: Conversation, name: str | None = None) -> None:
        """Write ``conversation`` now (even when empty), optionally giving it ``name``."""
        name = name.strip() if name else None

        def work(db: sqlite3.Connection) -> None:
            if name is not None:
                other = db.execute(
                    "SELECT id FROM sessions WHERE name = ? AND id != ?",
                    (safe_text(name), conversation.id)
                ).fetchone()
                if other is not None:
                    raise UsageError(
                        _("the name {name!r} is already used by session {session}").format(
                            name=name, session=other[0]),
                        _("choose another name or delete that session"),
                    )
            if not self._exists(db, conversation.id):
                self._create(db, conversation, name=name)
            elif name is not None:
                db.execute(
                    "UPDATE sessions SET name = ?, updated_at = ? WHERE id = ?",
                    (safe_text(name), time.time(), conversation.id),
                )

        self.transaction(work)

    def fork(self, conversation: Conversation) -> Conversation:
        """A new saved session holding the current path of ``conversation`` and its checkpoints.

        The copy starts where ``conversation`` stands (root to head); checkpoints that lie on
        that path come along, so the fork can be rewound too.
        """
        forked = fork_of(conversation)
        self.transaction(lambda db: self._create(db, forked, forked_from=conversation.id))
        return forked

    def import_session(
        self,
        conversation: Conversation,
        *,
        name: str | None,
        created_at: float,
        updated_at: float,
        provider: str | None,
        model: str | None,
        forked_from: str | None,
        project: str | Here | None = None,
        head_history: Sequence[str | None] = (),
    ) -> None:
        """Store ``conversation`` (read from an export, or another store) as a new session, all
        or nothing: the log in the conversation's order, ``head_history`` as head events.

        ``project`` is the project the export names (None: no project; :data:`HERE`: the
        current folder's).

        Raises :class:`~chatcli.UsageError` when its id or ``name`` is already taken.
        """

        def work(db: sqlite3.Connection) -> None:
            if self._exists(db, conversation.id):
                raise UsageError(
                    _("session {session} already exists").format(session=conversation.id),
                    _("delete it first (chatcli sessions delete {session}) or import a copy "
                      "with --new-id").format(session=conversation.id),
                )
            if name is not None:
                other = db.execute("SELECT id FROM sessions WHERE name = ?", (name,)).fetchone()
                if other is not None:
                    raise UsageError(
                        _("the name {name!r} is already used by session {session}").format(
                            name=name, session=other[0]),
                        _("import with --name OTHER"),
                    )
            self._create(db, conversation, name=name, forked_from=forked_from,
                         created_at=created_at, updated_at=updated_at,
                         provider=provider, model=model, project=project, log_order=True,
                         head_history=head_history)

        self.transaction(work)

    def delete(self, session_id: str) -> bool:
        """Delete a session and everything it holds. False when it did not exist."""

        def work(db: sqlite3.Connection) -> bool:
            db.execute("DELETE FROM sessions WHERE parent = ?", (session_id,))  # its workers'
            cursor = db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            return cursor.rowcount > 0

        return self.transaction(work)

    def append_raw(self, session_id: str, message: Message, head: str | None) -> None:
        """Append ``message`` to a stored session and point its head at ``head``."""

        def work(db: sqlite3.Connection) -> None:
            self._insert_message(db, session_id, message)
            db.execute(
                "UPDATE sessions SET head = ?, updated_at = ? WHERE id = ?",
                (head, time.time(), session_id),
            )

        self.transaction(work)

    # ------------------------------------------------------------------ reading

    _INFO_SQL = (
        "SELECT s.id, s.name, s.title, s.created_at, s.updated_at, s.provider, s.model, s.head,"
        " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id), s.forked_from,"
        " s.project, s.cwd, s.parent FROM sessions s"
    )

    # (below this method, ``list`` in annotations means it: they say ``builtins.list``)
    def list(self, limit: int | None = None, project: str | None = None,
             under: str | None = None) -> list[SessionInfo]:
        """Sessions, most recently updated first: those of ``project`` (a project root, as
        :func:`current_project` gives it), or of every project when it is None; ``under``: only
        those whose project is that folder or inside it (an absolute, resolved path)."""
        sql = self._INFO_SQL + " WHERE s.parent IS NULL"  # workers' sessions: see workers()
        params: tuple[Any, ...] = ()
        if project is not None:
            sql += " AND s.project = ?"
            params = (project,)
        if under is not None:
            prefix = under.rstrip("/") + "/"
            sql += " AND (s.project = ? OR substr(s.project, 1, ?) = ?)"
            params = (*params, under, len(prefix), prefix)
        sql += " ORDER BY s.updated_at DESC, s.rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params = (*params, limit)
        from chatcli_sessions_api.records import SessionInfo

        return [SessionInfo(*row) for row in self._read(sql, params)]

    def count(self, project: str | None = None) -> int:
        """How many sessions ``project`` has (every project's when None)."""
        if project is None:
            return int(self._read("SELECT COUNT(*) FROM sessions WHERE parent IS NULL")[0][0])
        return int(self._read("SELECT COUNT(*) FROM sessions WHERE parent IS NULL"
                              " AND project = ?", (project,))[0][0])

    def workers(self, session_id: str) -> builtins.list[tuple[SessionInfo, dict[str, Any]]]:
        """The sessions of the workers ``session_id`` delegated to (oldest first), each with
        what the delegation said of it (``metadata["subagent"]``: id, type, task…)."""
        from chatcli_sessions_api.records import SessionInfo

        rows = self._read(self._INFO_SQL.replace(" FROM sessions s", ", s.worker FROM sessions s")
                          + " WHERE s.parent = ? ORDER BY s.created_at, s.rowid", (session_id,))
        return [(SessionInfo(*row[:-1]), worker_dict(row[-1])) for row in rows]

    def info(self, session_id: str) -> SessionInfo | None:
        """One session's summary, or None."""
        from chatcli_sessions_api.records import SessionInfo

        rows = self._read(self._INFO_SQL + " WHERE s.id = ?", (session_id,))
        return SessionInfo(*rows[0]) if rows else None

    def latest(self, project: str | None = None) -> SessionInfo | None:
        """The most recently updated session of ``project`` (of any project when None), or
        None when there is none."""
        found = self.list(limit=1, project=project)
        return found[0] if found else None

    def resolve(self, ref: str) -> SessionInfo:
        """The session named by ``ref``: an exact id or name, else a unique id prefix.

        Raises :class:`~chatcli.UsageError` (one line) when nothing or several match.
        """
        ref = ref.strip()
        if not ref:
            raise UsageError(_("no session given"), _("see `chatcli sessions list`"))
        if not is_utf8(ref):
            raise UsageError(_("the session id holds bytes that are not UTF-8"),
                             _("give it as `chatcli sessions list` shows it"))
        rows = self._read("SELECT id FROM sessions WHERE id = ? OR name = ?", (ref, ref))
        if not rows:
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = self._read(
                "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' OR id LIKE ? ESCAPE '\\'"
                " ORDER BY updated_at DESC",
                (escaped + "%", "s\\_" + escaped + "%"),
            )
        ids = list(dict.fromkeys(r[0] for r in rows))
        if not ids:
            raise UsageError(_("no session matches {ref!r}").format(ref=ref),
                             _("see `chatcli sessions list`"))
        if len(ids) > 1:
            shown = ", ".join(ids[:4]) + (" …" if len(ids) > 4 else "")
            raise UsageError(
                ngettext("{ref!r} matches {count} sessions ({ids})",
                         "{ref!r} matches {count} sessions ({ids})", len(ids)).format(
                    ref=ref, count=len(ids), ids=shown), _("give more of the id")
            )
        info = self.info(ids[0])
        if info is None:  # deleted between the two reads
            raise UsageError(_("no session matches {ref!r}").format(ref=ref),
                             _("see `chatcli sessions list`"))
        return info

    def messages(self, session_id: str) -> builtins.list[Message]:
        """Every message of the session's log (all branches), in append order."""
        from chatcli import Message as _Message

        rows = self._read(
            "SELECT json FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [_Message.model_validate_json(r[0]) for r in rows]

    def checkpoints(self, session_id: str) -> builtins.list[Checkpoint]:
        """The session's checkpoints, oldest first."""
        from chatcli import Checkpoint as _Checkpoint

        rows = self._read(
            "SELECT id, head, label, created_at FROM checkpoints WHERE session_id = ?"
            " ORDER BY created_at, rowid",
            (session_id,),
        )
        return [_Checkpoint(id=r[0], head=r[1], label=r[2], created_at=r[3]) for r in rows]

    def compactions(self, session_id: str) -> builtins.list[Compaction]:
        """The session's compactions, oldest first (a row this version cannot read is left
        out: the view then shows more of the log, never less)."""
        from chatcli import Compaction as _Compaction

        found = []
        for (raw,) in self._read(
            "SELECT json FROM compactions WHERE session_id = ? ORDER BY position", (session_id,)
        ):
            try:
                found.append(_Compaction.model_validate_json(raw))
            except ValueError:
                continue
        return found

    def head_history(self, session_id: str) -> builtins.list[str | None]:
        """The undo stack rebuilt from the stored head moves (undo pops, other moves push)."""
        stack: builtins.list[str | None] = []
        for reason, previous in self._read(
            "SELECT reason, previous FROM head_events WHERE session_id = ? ORDER BY rowid",
            (session_id,),
        ):
            if reason == "undo":
                if stack:
                    stack.pop()
            else:
                stack.append(previous)
        return stack

    def load(self, ref: str, max_checkpoints: int = 20, resume: bool = False) -> Conversation:
        """Restore the session named by ``ref`` (id, name or unique id prefix).

        With ``resume`` (the conversation will continue), tool calls left without results by
        a killed process get error results appended, so the next request is valid.
        """
        with self.snapshot():  # another process may be appending to this very session
            info = self.resolve(ref)
            messages = self.messages(info.id)
            checkpoints = self.checkpoints(info.id)
            history = self.head_history(info.id)
            compactions = self.compactions(info.id)
            worker = worker_dict(self._read("SELECT worker FROM sessions WHERE id = ?",
                                            (info.id,))[0][0]) if info.parent else {}
        head = info.head
        dropped = unreachable(messages)
        if dropped:
            messages, head, checkpoints = self._repair(info.id, messages, head, checkpoints,
                                                       dropped, persist=resume)
        closing = closing_message(messages, head) if resume else None
        if closing is not None:
            self.append_raw(info.id, closing, closing.id)
            messages.append(closing)
            head = closing.id
        return assemble(info, messages, head, checkpoints, history, compactions, worker,
                        max_checkpoints)

    def _repair(self, session_id: str, messages: builtins.list[Message], head: str | None,
                checkpoints: builtins.list[Checkpoint], dropped: builtins.list[Message], *,
                persist: bool
                ) -> tuple[builtins.list[Message], str | None, builtins.list[Checkpoint]]:
        """The session without ``dropped`` (messages whose chain of parents does not reach the
        start: an older chatcli stored a tool result whose assistant message it could not
        save). The head moves to the newest message kept from before them; one line on
        stderr says what was dropped. With ``persist`` (the session goes on) the repair is
        written, so it is made and told once."""
        kept, head, checkpoints = repair(session_id, messages, head, checkpoints, dropped)
        if persist:
            def work(db: sqlite3.Connection) -> None:
                db.executemany("DELETE FROM messages WHERE session_id = ? AND id = ?",
                               [(session_id, m.id) for m in dropped])
                db.executemany("DELETE FROM checkpoints WHERE session_id = ? AND head = ?",
                               [(session_id, m.id) for m in dropped])
                db.execute("UPDATE sessions SET head = ? WHERE id = ?", (head, session_id))

            self.transaction(work)
        return kept, head, checkpoints

    def search(self, text: str, limit: int = 20) -> builtins.list[SearchHit]:
        """Messages whose text contains every word of ``text``, newest first."""
        if not text.strip():
            return []
        from chatcli_sessions_api.records import SearchHit

        if not is_utf8(text):
            raise UsageError(_("the search text holds bytes that are not UTF-8"),
                             _("type it again as UTF-8 text"))
        if self.has_fts:
            query = fts_query(text)
            if not query:
                return []
            rows = self._read(
                "SELECT m.session_id, s.title, m.id, m.role,"
                " snippet(messages_fts, 0, '[', ']', '…', 12), m.created_at"
                " FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid"
                " JOIN sessions s ON s.id = m.session_id"
                " WHERE messages_fts MATCH ? ORDER BY m.created_at DESC LIMIT ?",
                (query, limit),
            )
            return [SearchHit(*r) for r in rows]
        words = text.split()
        clauses = " AND ".join("m.text LIKE ? ESCAPE '\\'" for _ in words)
        params = tuple(
            "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            for w in words
        )
        rows = self._read(
            "SELECT m.session_id, s.title, m.id, m.role, m.text, m.created_at FROM messages m"
            f" JOIN sessions s ON s.id = m.session_id WHERE {clauses}"
            " ORDER BY m.created_at DESC LIMIT ?",
            (*params, limit),
        )
        return [SearchHit(r[0], r[1], r[2], r[3], snippet(r[4], words[0]), r[5]) for r in rows]

    def integrity(self) -> str:
        """``PRAGMA integrity_check``: "ok" for a healthy database."""
        return str(self._read("PRAGMA integrity_check")[0][0])


# ------------------------------------------------------------------------------------ helpers


def _make_folder(folder: Path) -> None:
    """Create ``folder`` and its missing parents, each 0700; existing folders are left alone."""
    missing: list[Path] = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:  # another process was quicker; its folder, its mode
            continue
        os.chmod(path, 0o700)  # mkdir's mode went through the umask


def _create_private(path: Path) -> None:
    """Create an empty database file 0600 (SQLite gives its -wal/-shm files the same mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    _make_private(path)


def _make_private(path: Path) -> None:
    """Take the group and other permission bits off ``path`` (missing or not ours: skipped)."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except (FileNotFoundError, PermissionError):
        pass


def _unsaved_ancestors(db: sqlite3.Connection, conversation: Conversation,
                       message: Message) -> list[Message]:
    """The ancestors of ``message`` in ``conversation`` that the database does not hold yet,
    oldest first (usually none: one indexed lookup finds the parent stored)."""
    missing: list[Message] = []
    cursor = message.parent_id
    while cursor is not None:
        stored = db.execute("SELECT 1 FROM messages WHERE session_id = ? AND id = ?",
                            (conversation.id, cursor)).fetchone()
        parent = conversation.log.get(cursor)
        if stored is not None or parent is None:
            break
        missing.append(parent)
        cursor = parent.parent_id
    missing.reverse()
    return missing


def _record_provider(db: sqlite3.Connection, session_id: str, messages: list[Message]) -> None:
    for message in reversed(messages):
        if message.provider or message.model:
            db.execute(
                "UPDATE sessions SET provider = COALESCE(?, provider),"
                " model = COALESCE(?, model) WHERE id = ?",
                (message.provider, message.model, session_id),
            )
            return

