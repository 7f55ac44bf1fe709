"""The :class:`SessionStore` protocol and :class:`SessionStoreSpec` (importable from
:mod:`chatcli_sessions_api`; a module of its own so that a run that only writes its session does
not build the protocol class)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from chatcli_sessions_api.markers import UNCHECKED, Here, Unchecked

if TYPE_CHECKING:
    from chatcli import Checkpoint, Compaction, Conversation, Message, Settings

    from chatcli_sessions_api.records import SearchHit, SessionInfo

__all__ = ["SessionStore", "SessionStoreSpec"]


@runtime_checkable
class SessionStore(Protocol):
    """Where conversations live. Safe to share between the threads of one process; several
    processes and several store objects may share one backing database. Every write is one
    transaction: durable once the method returns, all or nothing when it raises.

    Errors: :class:`StoreError` when the store cannot be reached, read or written;
    :class:`chatcli.UsageError` (one line with a hint) for a bad reference or a name clash;
    :class:`HeadMoved` for a lost compare-and-set on the head.
    """

    # ------------------------------------------------------------------ writing

    def append(self, conversation: Conversation, message: Message) -> None:
        """Persist ``message`` (just appended to ``conversation``: it is its head) and move the
        stored head to ``conversation.head``.

        * The first append of a conversation that holds an answer (an assistant message)
          creates the session and writes everything the conversation holds: its whole log
          (parents first), checkpoints, compactions, metadata (``session_name`` is not read;
          ``forked_from``, ``parent``, ``cwd``, ``subagent`` are), ``project`` = the project of
          ``metadata["cwd"]`` or of the current folder
          (:func:`chatcli_sessions_api.common.current_project`), provider/model of the newest
          message naming them, ``title`` = ``conversation.title`` or the first user message's
          first line. Before an answer exists nothing is written (no session is left behind by
          a question whose answer never came).
        * Later appends store ``message`` with its ``parent_id`` and the next ``seq``. Ancestors
          of ``message`` present in ``conversation`` but missing from the store (an earlier
          append failed) are written first, in the same transaction: a message is never stored
          without its parent. A message id already stored is not stored again.
        * The head is compare-and-set: it moves to ``conversation.head`` only if the stored
          head is the parent of the first message this call writes (usually
          ``message.parent_id``), or already is ``conversation.head``. Otherwise the messages
          are still stored (committed) and :class:`HeadMoved` is raised with the stored head.
        * ``updated_at`` is now; provider/model become the message's when it names them; an
          empty title becomes the first line of a user message.
        """
        ...

    def add_checkpoint(self, conversation: Conversation, checkpoint: Checkpoint) -> bool:
        """Persist ``checkpoint`` (an id already stored is kept as it is) and drop the oldest
        beyond ``conversation.max_checkpoints`` (at least one is kept). Returns False, writing
        nothing, when the session does not exist yet (it is written with its first answer)."""
        ...

    def move_head(self, conversation: Conversation, head: str | None, reason: str, *,
                  expected: str | Unchecked | None = UNCHECKED) -> bool:
        """Persist a head move without an append (``reason``: "rewind", "undo", "clear",
        "retry") and record it as a head event (the previous stored head with it), so
        :meth:`head_history` can rebuild the undo stack.

        With ``expected`` (a message id or None), the move is compare-and-set: when the stored
        head is not ``expected`` nothing is written and :class:`HeadMoved` is raised. A session
        not stored yet is written whole when the conversation holds an answer (True), else
        nothing is written (False).
        """
        ...

    def save_compactions(self, conversation: Conversation) -> bool:
        """Make the stored compactions those of ``conversation.compactions``, in order (the
        shared prefix stays, the rest is rewritten). A session not stored yet is written whole
        when it holds an answer; False when there is nothing to write."""
        ...

    def save(self, conversation: Conversation, name: str | None = None) -> None:
        """Write ``conversation`` now, even without an answer (as :meth:`append` would create
        it), and/or give it ``name`` (stripped; names are unique: another session's name raises
        :class:`chatcli.UsageError`)."""
        ...

    def fork(self, conversation: Conversation) -> Conversation:
        """A new stored session (new id) holding ``conversation``'s current path (root to
        head: same message ids and parents), the checkpoints on that path, its compactions;
        title ``fork of <title>``, ``forked_from`` the original's id, no name. Returns it."""
        ...

    def import_session(self, conversation: Conversation, *, name: str | None,
                       created_at: float, updated_at: float, provider: str | None,
                       model: str | None, forked_from: str | None,
                       project: str | Here | None = None,
                       head_history: Sequence[str | None] = ()) -> None:
        """Store ``conversation`` as a new session exactly as given, all or nothing: its whole
        log (all branches, in ``conversation.all_messages()`` order with parents first: ``seq``
        follows it), head, checkpoints (all of them), compactions, title
        (``conversation.title``, else derived), times, provider/model, ``forked_from``;
        ``metadata["parent"]``/``["subagent"]``/``["cwd"]`` as :meth:`append` reads them;
        ``head_history`` (an undo stack, oldest first) as head events, so :meth:`head_history`
        returns it. ``project``: None (no project), a root folder, or :data:`HERE` (the current
        folder's). Used by ``sessions import`` and ``sessions migrate``.

        Raises :class:`chatcli.UsageError` when the id or ``name`` is already taken.
        """
        ...

    def delete(self, session_id: str) -> bool:
        """Delete a session with everything it holds, and its workers' sessions (those whose
        ``parent`` is it). False when it did not exist."""
        ...

    def append_raw(self, session_id: str, message: Message, head: str | None) -> None:
        """Append ``message`` to a stored session and set its head to ``head`` without
        comparing (a repair made from a state just read: the closing message of a resumed
        session whose tool calls were left unanswered)."""
        ...

    # ------------------------------------------------------------------ reading

    def list(self, limit: int | None = None, project: str | None = None,
             under: str | None = None) -> list[SessionInfo]:
        """Root sessions (not workers'), most recently updated first (ties: newest created
        first): those of ``project`` (exactly), or of every project when None; ``under``: only
        those whose project is that folder or inside it (an absolute path)."""
        ...

    def count(self, project: str | None = None) -> int:
        """How many root sessions ``project`` has (every project's when None)."""
        ...

    def workers(self, session_id: str) -> builtins.list[tuple[SessionInfo, dict[str, Any]]]:
        """The sessions of the workers ``session_id`` delegated to, oldest first, each with
        what the delegation said of it (its ``metadata["subagent"]``; {} when none)."""
        ...

    def info(self, session_id: str) -> SessionInfo | None:
        """One session's summary (root or worker) by exact id, or None."""
        ...

    def latest(self, project: str | None = None) -> SessionInfo | None:
        """The most recently updated root session of ``project`` (of any when None)."""
        ...

    def resolve(self, ref: str) -> SessionInfo:
        """The session named by ``ref`` (stripped): an exact id or name, else a unique id
        prefix (with or without the ``s_``). Raises :class:`chatcli.UsageError` (one line)
        when ``ref`` is empty, not UTF-8, matches nothing or several sessions."""
        ...

    def messages(self, session_id: str) -> builtins.list[Message]:
        """Every message of the session's log (all branches), in ``seq`` order."""
        ...

    def checkpoints(self, session_id: str) -> builtins.list[Checkpoint]:
        """The session's checkpoints, oldest first."""
        ...

    def compactions(self, session_id: str) -> builtins.list[Compaction]:
        """The session's compactions, in order (unreadable ones left out)."""
        ...

    def head_history(self, session_id: str) -> builtins.list[str | None]:
        """The undo stack rebuilt from the head events: an "undo" event pops, any other pushes
        the head stored before it."""
        ...

    def load(self, ref: str, max_checkpoints: int = 20, resume: bool = False) -> Conversation:
        """The session named by ``ref`` (see :meth:`resolve`) as a conversation: log, head,
        the newest ``max_checkpoints`` checkpoints, undo stack, compactions, title, metadata
        (``session_name``, ``forked_from``, ``parent``, ``subagent`` when set), read from one
        consistent state. Messages whose chain of parents does not reach the root are dropped
        with one warning on stderr. With ``resume``, a head whose tool calls have no results
        gets error results appended (:meth:`append_raw`) and the repair is written.
        :func:`chatcli_sessions_api.common.assemble` does the store-neutral part."""
        ...

    def search(self, text: str, limit: int = 20) -> builtins.list[SearchHit]:
        """Messages whose text (or tool results' text) holds every word of ``text`` (case
        insensitive; the last word may be a prefix), newest first, at most ``limit``; [] for
        blank text; :class:`chatcli.UsageError` for text that is not UTF-8."""
        ...

    def integrity(self) -> str:
        """"ok" when the backing storage is healthy, else a one-line description."""
        ...

    def close(self) -> None:
        """Release connections (idempotent)."""
        ...


class SessionStoreSpec(NamedTuple):
    """A session store as a plugin registers it (``register_session_stores``):
    ``factory(settings)`` opens it — import its driver there, never at start-up."""

    name: str
    factory: Callable[[Settings], SessionStore]
    description: str = ""
