"""Entry module: hookimpls only (the database and commands are imported when first used).

Every change to a conversation is written as it happens — the message_appended,
checkpoint_created, head_moved and view_changed hooks each commit one transaction before
returning — so a killed process loses at most the answer that was still streaming.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

from chatcli_sessions.stores import close_stores, get_store

if TYPE_CHECKING:
    import click
    from chatcli import Checkpoint, Conversation, Message, Settings, SlashCommand
    from chatcli_plugin_records import SessionCatalog


# ------------------------------------------------------------------ persistence


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare this plugin's hooks (workspace_restore_point, workspace_undo: what /rewind
    restores besides the conversation; session_catalog: the stored sessions for a server)."""
    from chatcli_sessions import hookspecs

    add(hookspecs)


@hookimpl
def session_start(conversation: Conversation, settings: Settings) -> None:
    """Apply the ``max_checkpoints`` setting to the conversation."""
    conversation.max_checkpoints = settings.max_checkpoints


@hookimpl
def message_appended(conversation: Conversation, message: Message) -> None:
    """Write the message (and, the first time, the session row) in one transaction."""
    get_store().append(conversation, message)


@hookimpl
def checkpoint_created(conversation: Conversation, checkpoint: Checkpoint) -> None:
    """Write the checkpoint and drop the ones beyond ``max_checkpoints``."""
    get_store().add_checkpoint(conversation, checkpoint)


@hookimpl
def head_moved(conversation: Conversation, head: str | None, reason: str) -> None:
    """Write the new head (rewind, undo, clear) and remember the move for undo."""
    get_store().move_head(conversation, head, reason)


@hookimpl
def view_changed(conversation: Conversation, reason: str) -> None:
    """Write the view's compactions (one was added or undone), so ``-c`` keeps the view."""
    get_store().save_compactions(conversation)


@hookimpl
def session_end(conversation: Conversation) -> None:
    """Release the database connection; it reopens if the process goes on."""
    close_stores()


@hookimpl
def open_conversation(
    settings: Settings, resume: str | None, continue_last: bool
) -> Conversation | None:
    """``--resume REF`` restores that session, ``--continue`` the newest of the current
    project, ``--resume`` without REF (``""``) the one chosen from a list; else None."""
    if resume is None and not continue_last:
        return None
    from chatcli import UsageError

    try:
        (resume or "").encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes in argv arrive as lone surrogates
        raise UsageError("--resume: the session id holds bytes that are not UTF-8",
                         "give the id as `chatcli sessions list` shows it") from None
    store = get_store()
    if resume:
        ref = resume
    else:
        from chatcli_sessions.choose import continue_ref, pick_ref

        ref = pick_ref(store) if resume is not None else continue_ref(store)
    return store.load(ref, max_checkpoints=settings.max_checkpoints, resume=True)


@hookimpl
def session_catalog() -> SessionCatalog:
    """The sessions of this store (listed, exported and deleted by ``chatcli serve``)."""
    from chatcli_sessions.catalog import StoreCatalog

    return StoreCatalog()


# ------------------------------------------------------------------ commands


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """``/session``, ``/rewind`` and ``/fork``."""
    from chatcli_sessions.commands import slash_commands

    for command in slash_commands():
        register(command)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """``chatcli sessions list|show|export|import|delete|search`` (imported when used)."""
    from chatcli_cli import LazyGroup

    cli.add_command(LazyGroup("sessions", SESSIONS_HELP, "chatcli_sessions.cli:sessions"))


#: The ``sessions`` group's first help line, as ``chatcli --help`` lists it.
SESSIONS_HELP = "Saved conversations: list, show, export, import, delete and search them."
