"""The hooks chatcli-sessions offers other plugins (declared through ``add_hookspecs``): what
``/rewind`` can restore besides the conversation — a plugin tracking the workspace's files
(chatcli-checkpoints) implements them without importing this one — and the stored sessions as a
catalog, which this plugin implements for a server (chatcli-remote) that must not import it::

    hook = getattr(host.hook, "session_catalog", None)  # absent without chatcli-sessions
    catalog = hook() if hook is not None else None

and where sessions are stored: a store (PostgreSQL) implements ``register_session_stores``
without importing this plugin::

    @chatcli.hookimpl
    def register_session_stores(register):
        register(chatcli_sessions_api.SessionStoreSpec("mine", factory))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

# at run time: the host checks an implementation's result against the annotation
from chatcli_plugin_records import RestorePoint

if TYPE_CHECKING:
    from chatcli import Checkpoint, Conversation
    from chatcli_plugin_records import SessionCatalog
    from chatcli_sessions_api import SessionStoreSpec


@hookspec(firstresult=True)
def workspace_restore_point(
    conversation: Conversation, checkpoint: Checkpoint
) -> RestorePoint | None:
    """The workspace's files as they were at ``checkpoint``, to offer with a rewind. First result
    wins.

    Called by ``/rewind`` once the person chose a checkpoint, on the thread running the
    command.

    :param conversation: the conversation being rewound.
    :param checkpoint: the checkpoint chosen.
    :return: a :class:`chatcli_plugin_records.RestorePoint` (what would change, and how to
        put it back), or None when no plugin tracks the workspace or nothing changed since the
        checkpoint.
    """


@hookspec(firstresult=True)
def workspace_undo(conversation: Conversation) -> str | None:
    """Undo the last workspace restore of ``conversation``. First result wins.

    Called by ``/rewind undo``, after the conversation's own undo.

    :return: one line saying what was put back, or None when there is nothing to undo.
    """


@hookspec(firstresult=True)
def session_catalog() -> SessionCatalog | None:
    """The stored sessions: list, describe, export and delete them. First result wins.

    Called by chatcli-remote (``chatcli serve``: its sessions list, export and delete; it
    refuses to start when nothing answers), on any thread; chatcli-sessions implements it
    with its SQLite store, and a plugin with another store (PostgreSQL) may answer first
    (``tryfirst``). Opening a session goes through the kernel (``SessionOptions(resume=id)``
    and ``open_conversation``), not through the catalog.

    :return: a :class:`chatcli_plugin_records.SessionCatalog` (``list(project, limit)``, the
        user's own sessions, not subagent workers', newest first, those whose project is
        inside ``project`` when given; ``info(id)``; ``delete(id)``, with its workers';
        ``export(id, "md"|"json")``), or None when this plugin keeps no sessions.
    """


@hookspec
def register_session_stores(register: Callable[[SessionStoreSpec], None]) -> None:
    """Register stores for conversations (sessions).

    Called by chatcli-sessions through ``host.collect``, when a store other than the built-in
    ``sqlite`` one is first needed in a process (the ``[sessions] backend`` setting names it),
    and by ``chatcli sessions migrate --to NAME``.

    :param register: call ``register(SessionStoreSpec(name, factory))``; ``factory(settings)``
        opens a :class:`chatcli_sessions_api.SessionStore` (import its driver there, not at
        start-up) and raises :class:`chatcli.ChatcliError` (one line: cause and fix) when it
        cannot. chatcli-sessions registers ``sqlite`` (its own file; the name always means it).
        The store named by ``[sessions] backend`` is used; one that is not registered or fails
        to open is a one-line :class:`chatcli.ConfigError` naming the setting and the fix. Two
        stores with one name: the one pluggy calls first wins and the other is reported.

    The return value is ignored.
    """
