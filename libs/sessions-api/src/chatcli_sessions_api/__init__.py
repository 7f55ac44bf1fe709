"""The session store's contract: what every store of chatcli's conversations must do.

chatcli-sessions keeps conversations in a store: the embedded SQLite one it ships (``sqlite``),
or another a plugin registers (``postgres``: chatcli-sessions-postgres, for teams). The
``[sessions] backend`` setting names the one used. Stores are plugins of chatcli-sessions: its
``register_session_stores`` hook (``chatcli_sessions/hookspecs.py``) takes a
:class:`SessionStoreSpec`. Every store must pass the same contract suite
(``chatcli_testing.SessionStoreContract``).

The data model (the same in every store):

* a **session** is one conversation: an id (``s_…``), an optional unique ``name``, a ``title``,
  times, the provider/model of its newest answer, its ``head``, ``forked_from``, the
  ``project`` (root folder) and ``cwd`` it was started in, and for a subagent worker's session
  the ``parent`` session and what the delegation said of it (``worker``: a JSON object);
* its **log** is append-only: every message ever appended (all branches) with its
  ``parent_id`` (the log is a tree) and a per-session ``seq`` 1, 2, 3… in append order with no
  gap and no duplicate; a message id is stored once per session (appending it again is a no-op);
* the **head** is the message the conversation stands on (None: empty);
* **checkpoints** are rewind points (the newest ``max_checkpoints`` are kept);
* **head events** are the head moves (rewind/undo/clear/retry) in order, from which
  :meth:`SessionStore.head_history` rebuilds the undo stack;
* **compactions** are the view's compactions, in order.

Concurrency: several processes (and several store objects — "replicas" — on one database) may
write one session at once. No message is ever lost, duplicated or reordered; the head is moved
by compare-and-set (see :class:`HeadMoved`).

Records and errors live here so that every store returns the same ones: :class:`SessionInfo`,
:class:`SearchHit` (made when first used: importing this module does not build them),
:class:`StoreError`, :class:`HeadMoved`. Store-neutral helpers every store may reuse are in
:mod:`chatcli_sessions_api.common`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import ChatcliError, translation

from chatcli_sessions_api.markers import HERE, UNCHECKED, Here, Unchecked

if TYPE_CHECKING:
    from chatcli_sessions_api.protocol import SessionStore, SessionStoreSpec
    from chatcli_sessions_api.records import SearchHit, SessionInfo

__all__ = [
    "HERE",
    "UNCHECKED",
    "HeadMoved",
    "Here",
    "SearchHit",
    "SessionInfo",
    "SessionStore",
    "SessionStoreSpec",
    "StoreError",
    "Unchecked",
]
_, ngettext = translation(__name__)


class StoreError(ChatcliError):
    """The session store cannot be used (unreadable, unreachable, newer schema, disk full…).
    One line naming the cause and the fix; never a password or a URL's secret."""


class HeadMoved(ChatcliError):
    """The stored head of ``session_id`` is no longer what the writer expected: another process
    (or another store object) moved it meanwhile. ``current`` is the head now stored, ``wanted``
    the head the writer asked for.

    Raised by :meth:`SessionStore.append` *after* the message is stored (it is never lost: it is
    a branch of the log) and by :meth:`SessionStore.move_head` with ``expected`` (nothing is
    written then). The caller reloads the session to see the other writer's turns, or goes on
    with its own branch.
    """

    def __init__(self, session_id: str, current: str | None, wanted: str | None) -> None:
        super().__init__(
            _("session {id} was moved on by another chatcli (its head is now {head})").format(
                id=session_id, head=current or _("empty")),
            _("resume it again to see the other turns: chatcli --resume {id}").format(
                id=session_id))
        self.session_id = session_id
        self.current = current
        self.wanted = wanted


#: where the names made on first use live
_LAZY = {"SessionInfo": "records", "SearchHit": "records", "SessionStore": "protocol",
         "SessionStoreSpec": "protocol"}


def __getattr__(name: str) -> Any:
    """``SessionInfo``, ``SearchHit``, ``SessionStore`` and ``SessionStoreSpec``, made on first
    use: a run that only writes its session never builds the records' dataclasses nor the
    protocol class (about a millisecond)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module == "records":
        from chatcli_sessions_api import records

        return getattr(records, name)
    from chatcli_sessions_api import protocol

    return getattr(protocol, name)
