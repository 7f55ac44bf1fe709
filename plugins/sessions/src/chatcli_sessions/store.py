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
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from chatcli import UsageError, safe_message, safe_text

from chatcli_sessions.project import current_project
from chatcli_sessions.schema import SCHEMA_VERSION, StoreError, migrate

if TYPE_CHECKING:
    from chatcli import Checkpoint, Compaction, Conversation, Message

    from chatcli_sessions.info import SearchHit, SessionInfo

__all__ = [
    "HERE",
    "SCHEMA_VERSION",
    "SearchHit",
    "SessionInfo",
    "SessionStore",
    "StoreError",
    "default_path",
    "fts_query",
    "migrate",
]

T = TypeVar("T")

#: Milliseconds a connection waits for another process's write lock before SQLITE_BUSY.
BUSY_TIMEOUT_MS = 10_000
#: Whole-transaction retries after SQLITE_BUSY / "database is locked" (on top of busy_timeout).
BUSY_RETRIES = 8


class _Here:
    """The type of :data:`HERE`."""

    def __repr__(self) -> str:
        return "HERE"


#: "the project of the current folder", where a project can be given.
HERE = _Here()


def __getattr__(name: str) -> Any:
    """``SessionInfo`` and ``SearchHit``, still importable from here (they live in
    :mod:`chatcli_sessions.info`, imported when a list or a search makes one: a run that only
    writes its session never makes their dataclasses, which costs about a millisecond each)."""
    if name in ("SessionInfo", "SearchHit"):
        from chatcli_sessions import info

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


def _is_utf8(text: str) -> bool:
    """False for text holding lone surrogates (undecodable bytes from argv or a file name)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _message_text(message: Message) -> str:
    """What the full-text index holds of a message: its text, or its tool results' text."""
    text = message.text
    if not text and message.tool_results:
        text = "\n".join(r.content for r in message.tool_results)[:4000]
    return text


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
                f"cannot open the session database {self.path}: {err}",
                "check the permissions of that folder or set CHATCLI_DATA_DIR",
            ) from None
        try:
            self._retry(lambda: self._setup(synchronous))
        except sqlite3.DatabaseError as err:
            self.db.close()
            raise StoreError(
                f"the session database {self.path} is unusable: {err}",
                "move it aside; chatcli starts a new one",
            ) from None
        for suffix in ("", "-wal", "-shm"):  # older versions left these world-readable
            _make_private(Path(f"{self.path}{suffix}"))
        self.has_fts = self._table_exists("messages_fts")

    def _setup(self, synchronous: str) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = self.db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"cannot switch to WAL (journal_mode={mode})")
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
                raise StoreError(f"cannot write the session database: {err}") from None

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
                _message_text(message),
                _message_json(message),
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
        project: str | _Here | None = HERE,
    ) -> None:
        """Write the whole conversation (row, log in append order, checkpoints).

        ``provider``/``model`` default to those of the newest message that names them;
        ``project`` to the project of the current folder (:func:`current_project`).
        """
        now = time.time()
        meta = conversation.metadata
        cwd = meta.get("cwd") or _cwd()
        if isinstance(project, _Here):
            project = current_project(cwd)
        db.execute(
            "INSERT INTO sessions(id, name, title, created_at, updated_at, provider, model,"
            " head, forked_from, cwd, project, parent, worker)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                conversation.id,
                safe_text(name) if name is not None else None,
                safe_text(conversation.title or _derive_title(conversation)),
                now if created_at is None else created_at,
                now if updated_at is None else updated_at,
                provider,
                model,
                conversation.head,
                forked_from or meta.get("forked_from"),
                cwd,
                None if project is None else safe_text(project),
                conversation.parent.id if conversation.parent is not None else meta.get("parent"),
                _worker_json(meta.get("subagent")),
            ),
        )
        ordered = sorted(conversation.all_messages(), key=lambda m: m.created_at)
        for message in _parents_first(ordered):
            self._insert_message(db, conversation.id, message)
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
        """

        def work(db: sqlite3.Connection) -> None:
            if not self._exists(db, conversation.id):
                if _answered(conversation):
                    self._create(db, conversation)
                return
            for missing in _unsaved_ancestors(db, conversation, message):
                self._insert_message(db, conversation.id, missing)
            self._insert_message(db, conversation.id, message)
            if message.role.value == "user":
                self._relabel_checkpoint(db, conversation, message)
            title = _title_of(message.text) if message.role.value == "user" else ""
            db.execute(
                "UPDATE sessions SET head = ?, updated_at = ?,"
                " provider = COALESCE(?, provider), model = COALESCE(?, model),"
                " title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?",
                (conversation.head, time.time(), message.provider, message.model, title,
                 conversation.id),
            )

        self.transaction(work)

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

    def move_head(self, conversation: Conversation, head: str | None, reason: str) -> bool:
        """Persist a head move (rewind, undo, clear). False when the session has no row yet."""

        def work(db: sqlite3.Connection) -> bool:
            row = db.execute(
                "SELECT head FROM sessions WHERE id = ?", (conversation.id,)
            ).fetchone()
            if row is None:
                if not _answered(conversation):
                    return False
                self._create(db, conversation)
                return True
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

        return self.transaction(work)

    def save_compactions(self, conversation: Conversation) -> bool:
        """Persist ``conversation.compactions`` (after ``view_changed``). A conversation with no
        row yet is written whole; False when it holds nothing to write."""

        def work(db: sqlite3.Connection) -> bool:
            if not self._exists(db, conversation.id):
                if not _answered(conversation):
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
                        f"the name {name!r} is already used by session {other[0]}",
                        "choose another name or delete that session",
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
        from chatcli import Conversation as _Conversation

        path = [m.model_copy(deep=True) for m in conversation.messages()]
        on_path = {m.id for m in path} | {None}
        checkpoints = [
            c.model_copy(deep=True) for c in conversation.checkpoints if c.head in on_path
        ]
        base_title = conversation.title or _derive_title(conversation) or "untitled"
        title = base_title if base_title.startswith("fork of ") else f"fork of {base_title}"
        forked = _Conversation.restore(
            id=_new_session_id(),
            messages=path,
            head=path[-1].id if path else None,
            checkpoints=checkpoints,
            title=title[:80],
            max_checkpoints=conversation.max_checkpoints,
            metadata={**{k: v for k, v in conversation.metadata.items() if k != "session_name"},
                      "forked_from": conversation.id},
            compactions=[c.model_copy(deep=True) for c in conversation.compactions],
        )
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
        project: str | _Here | None = None,
    ) -> None:
        """Store ``conversation`` (read from an export) as a new session, all or nothing.

        ``project`` is the project the export names (None: no project; :data:`HERE`: the
        current folder's).

        Raises :class:`~chatcli.UsageError` when its id or ``name`` is already taken.
        """

        def work(db: sqlite3.Connection) -> None:
            if self._exists(db, conversation.id):
                raise UsageError(
                    f"session {conversation.id} already exists",
                    f"delete it first (chatcli sessions delete {conversation.id}) "
                    "or import a copy with --new-id",
                )
            if name is not None:
                other = db.execute("SELECT id FROM sessions WHERE name = ?", (name,)).fetchone()
                if other is not None:
                    raise UsageError(
                        f"the name {name!r} is already used by session {other[0]}",
                        "import with --name OTHER",
                    )
            self._create(db, conversation, name=name, forked_from=forked_from,
                         created_at=created_at, updated_at=updated_at,
                         provider=provider, model=model, project=project)

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
        from chatcli_sessions.info import SessionInfo

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
        from chatcli_sessions.info import SessionInfo

        rows = self._read(self._INFO_SQL.replace(" FROM sessions s", ", s.worker FROM sessions s")
                          + " WHERE s.parent = ? ORDER BY s.created_at, s.rowid", (session_id,))
        return [(SessionInfo(*row[:-1]), _worker_dict(row[-1])) for row in rows]

    def info(self, session_id: str) -> SessionInfo | None:
        """One session's summary, or None."""
        from chatcli_sessions.info import SessionInfo

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
            raise UsageError("no session given", "see `chatcli sessions list`")
        if not _is_utf8(ref):
            raise UsageError("the session id holds bytes that are not UTF-8",
                             "give it as `chatcli sessions list` shows it")
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
            raise UsageError(f"no session matches {ref!r}", "see `chatcli sessions list`")
        if len(ids) > 1:
            shown = ", ".join(ids[:4]) + (" …" if len(ids) > 4 else "")
            raise UsageError(
                f"{ref!r} matches {len(ids)} sessions ({shown})", "give more of the id"
            )
        info = self.info(ids[0])
        if info is None:  # deleted between the two reads
            raise UsageError(f"no session matches {ref!r}", "see `chatcli sessions list`")
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
        from chatcli import Conversation as _Conversation

        with self.snapshot():  # another process may be appending to this very session
            info = self.resolve(ref)
            messages = self.messages(info.id)
            checkpoints = self.checkpoints(info.id)
            history = self.head_history(info.id)
            compactions = self.compactions(info.id)
        head = info.head
        dropped = _unreachable(messages)
        if dropped:
            messages, head, checkpoints = self._repair(info.id, messages, head, checkpoints,
                                                       dropped, persist=resume)
        checkpoints = checkpoints[-max_checkpoints:]
        closing = _closing_message(messages, head) if resume else None
        if closing is not None:
            self.append_raw(info.id, closing, closing.id)
            messages.append(closing)
            head = closing.id
        conversation = _Conversation.restore(
            id=info.id,
            messages=messages,
            head=head,
            checkpoints=checkpoints,
            title=info.title,
            max_checkpoints=max_checkpoints,
            head_history=history,
            compactions=compactions,
            # The provider/model to go on with are the last answer's (the kernel reads the log).
            metadata={k: v for k, v in (("session_name", info.name),
                                        ("forked_from", info.forked_from),
                                        ("parent", info.parent)) if v is not None},
        )
        if info.parent is not None:
            worker = _worker_dict(self._read("SELECT worker FROM sessions WHERE id = ?",
                                             (info.id,))[0][0])
            if worker:
                conversation.metadata["subagent"] = worker
        return conversation

    def _repair(self, session_id: str, messages: builtins.list[Message], head: str | None,
                checkpoints: builtins.list[Checkpoint], dropped: builtins.list[Message], *,
                persist: bool
                ) -> tuple[builtins.list[Message], str | None, builtins.list[Checkpoint]]:
        """The session without ``dropped`` (messages whose chain of parents does not reach the
        start: an older chatcli stored a tool result whose assistant message it could not
        save). The head moves to the newest message kept from before them; one line on
        stderr says what was dropped. With ``persist`` (the session goes on) the repair is
        written, so it is made and told once."""
        gone = {m.id for m in dropped}
        kept = [m for m in messages if m.id not in gone]
        if head is not None and (head in gone or head not in {m.id for m in kept}):
            first = next(i for i, m in enumerate(messages) if m.id in gone)
            before = [m for m in messages[:first] if m.id not in gone]
            head = before[-1].id if before else (kept[-1].id if kept else None)
        checkpoints = [c for c in checkpoints if c.head is None or c.head not in gone]
        shown = ", ".join(m.id for m in dropped[:3]) + (" …" if len(dropped) > 3 else "")
        roles = ", ".join(sorted({m.role.value for m in dropped}))
        print(f"chatcli: warning: session {session_id}: dropped {len(dropped)} saved "
              f"message{'s' if len(dropped) != 1 else ''} ({roles}: {shown}) whose earlier "
              "message was never saved (a fault of an older chatcli); the rest of the "
              "session is kept", file=sys.stderr, flush=True)
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
        from chatcli_sessions.info import SearchHit

        if not _is_utf8(text):
            raise UsageError("the search text holds bytes that are not UTF-8",
                             "type it again as UTF-8 text")
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
        return [SearchHit(r[0], r[1], r[2], r[3], _snippet(r[4], words[0]), r[5]) for r in rows]

    def integrity(self) -> str:
        """``PRAGMA integrity_check``: "ok" for a healthy database."""
        return str(self._read("PRAGMA integrity_check")[0][0])


# ------------------------------------------------------------------------------------ helpers


def _cwd() -> str:
    """The current folder (the filesystem root when it was deleted under us)."""
    try:
        return os.getcwd()
    except OSError:
        return os.sep


def _answered(conversation: Conversation) -> bool:
    """Whether the conversation holds an answer (a session is written from its first one)."""
    return any(m.role.value == "assistant" for m in conversation.all_messages())


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


def _closing_message(messages: list[Message], head: str | None) -> Message | None:
    """Error results for the tool calls of the head message, when a killed process left them
    unanswered; None when the head needs nothing."""
    from chatcli import Message as _Message
    from chatcli import Role, ToolResultPart

    last = next((m for m in messages if m.id == head), None)
    if last is None or last.role != Role.ASSISTANT or not last.tool_calls:
        return None
    return _Message(
        role=Role.TOOL,
        parent_id=last.id,
        parts=[
            ToolResultPart(call_id=c.id, name=c.name, is_error=True,
                           content="not run: chatcli stopped before the tool finished")
            for c in last.tool_calls
        ],
    )


def _new_session_id() -> str:
    from chatcli import new_id

    return new_id("s_")


def _title_of(text: str) -> str:
    """A session title from a message: its first line, shortened."""
    lines = text.strip().splitlines()
    if not lines:
        return ""
    return lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"


def _derive_title(conversation: Conversation) -> str:
    """The title from the first user message of the conversation's log."""
    for message in sorted(conversation.all_messages(), key=lambda m: m.created_at):
        if message.role.value == "user" and message.text.strip():
            return _title_of(message.text)
    return ""


#: What a tool call's arguments become in the file when JSON cannot hold them.
UNSTORABLE_ARGUMENTS = "(arguments not stored: nested too deeply to write as JSON)"


def _message_json(message: Message) -> str:
    """The message as pydantic JSON. Arguments nested deeper than JSON serialisers go are stored
    as a note instead (the rest of the message is kept): a message that could never be written
    would stop every later one, which is written after its parents."""
    try:
        return message.model_dump_json()
    except ValueError:  # PydanticSerializationError: maximum serialization depth exceeded
        from chatcli import ToolCallPart

        parts = [p.model_copy(update={"arguments": {}, "raw_arguments": UNSTORABLE_ARGUMENTS})
                 if isinstance(p, ToolCallPart) else p for p in message.parts]
        return message.model_copy(update={"parts": parts}).model_dump_json()


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


def _unreachable(messages: list[Message]) -> list[Message]:
    """The messages whose chain of parents does not end at a first message (a parent that is
    not stored, or a loop), in log order; usually none."""
    children: dict[str | None, list[str]] = {}
    for message in messages:
        children.setdefault(message.parent_id, []).append(message.id)
    reached: set[str] = set()
    stack = list(children.get(None, []))
    while stack:
        current = stack.pop()
        if current not in reached:
            reached.add(current)
            stack.extend(children.get(current, []))
    return [m for m in messages if m.id not in reached]


def _parents_first(messages: list[Message]) -> list[Message]:
    """Order messages so every parent precedes its children (ties keep ``messages`` order)."""
    ids = {m.id for m in messages}
    done: set[str] = set()
    result: list[Message] = []
    pending = list(messages)
    while pending:
        rest = []
        for message in pending:
            if message.parent_id is None or message.parent_id not in ids or (
                message.parent_id in done
            ):
                result.append(message)
                done.add(message.id)
            else:
                rest.append(message)
        if len(rest) == len(pending):  # a cycle cannot happen; keep everything anyway
            result.extend(rest)
            break
        pending = rest
    return result


def _record_provider(db: sqlite3.Connection, session_id: str, messages: list[Message]) -> None:
    for message in reversed(messages):
        if message.provider or message.model:
            db.execute(
                "UPDATE sessions SET provider = COALESCE(?, provider),"
                " model = COALESCE(?, model) WHERE id = ?",
                (message.provider, message.model, session_id),
            )
            return


def _snippet(text: str, word: str, width: int = 60) -> str:
    at = text.lower().find(word.lower())
    start = max(at - width // 2, 0)
    piece = text[start : start + width].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def _worker_json(worker: Any) -> str | None:
    """What a delegation said of a worker (``metadata["subagent"]``) as stored JSON."""
    if not isinstance(worker, dict):
        return None
    import json

    return json.dumps(worker, default=str, ensure_ascii=False)


def _worker_dict(stored: str | None) -> dict[str, Any]:
    """The stored JSON of :func:`_worker_json` read back ({} when absent or unreadable)."""
    if not stored:
        return {}
    import json

    try:
        value = json.loads(stored)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
