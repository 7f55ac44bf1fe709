"""Entry module: hookimpls only (the database and commands are imported when first used).

Every change to a conversation is written as it happens — the message_appended,
checkpoint_created, head_moved and view_changed hooks each commit one transaction before
returning — so a killed process loses at most the answer that was still streaming.

The store is the one ``[sessions] backend`` names (:mod:`chatcli_sessions.stores`). Its head
is compare-and-set: when another process moved a session on, this one's messages are still
saved (a branch), the head stays with the other process, and one warning says so.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import StashKey, hookimpl, translation

from chatcli_sessions.stores import close_stores as close_stores  # (tests close the stores)
from chatcli_sessions.stores import get_store

if TYPE_CHECKING:
    from pathlib import Path

    import click
    from chatcli import (
        Checkpoint,
        Conversation,
        Message,
        PluginHost,
        SettingRule,
        Settings,
        SlashCommand,
    )
    from chatcli_plugin_records import SessionCatalog
    from chatcli_sessions_api import HeadMoved, SessionStore, SessionStoreSpec

_, ngettext = translation(__name__)

#: the head this process last knew the store to hold for a conversation (the ``expected`` of
#: a head move); unset: not known, the move is not compared
STORED_HEAD: StashKey[str | None] = StashKey()
#: set once the person was told another process moved the session on
WARNED: StashKey[bool] = StashKey()


def _moved_on(conversation: Conversation, err: HeadMoved) -> None:
    """Remember the head another process stored; tell the person once."""
    conversation.stash[STORED_HEAD] = err.current
    if not conversation.stash.get(WARNED, False):
        conversation.stash[WARNED] = True
        print(_("chatcli: warning: {problem}; this chat goes on as a branch of it, every "
                "message saved — {fix}").format(problem=err.message, fix=err.hint),
              file=sys.stderr, flush=True)


# ------------------------------------------------------------------ persistence


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare this plugin's hooks (workspace_restore_point, workspace_undo: what /rewind
    restores besides the conversation; session_catalog: the stored sessions for a server)."""
    from chatcli_sessions import hookspecs

    add(hookspecs)


@hookimpl
def configure(host: PluginHost, settings: Settings, workspace: Path) -> None:
    """Remember the host and settings: which store ``[sessions] backend`` names, and the
    plugins that register stores."""
    from chatcli_sessions import stores

    stores.configure(host, settings)


@hookimpl
def register_session_stores(register: Callable[[SessionStoreSpec], None]) -> None:
    """``sqlite``: the embedded store in the data folder (the default)."""
    from chatcli_sessions_api import SessionStoreSpec

    from chatcli_sessions.stores import sqlite_factory

    register(SessionStoreSpec("sqlite", sqlite_factory,
                              _("an embedded SQLite file in the data folder (the default)")))


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    """A project's config never chooses where conversations are stored (``[sessions]
    backend``): a cloned repository must not send them to another store."""
    from chatcli import SettingRule

    register(SettingRule("sessions.backend", "never"))


@hookimpl
def session_start(conversation: Conversation, settings: Settings) -> None:
    """Apply the ``max_checkpoints`` setting to the conversation; the store stays open until
    the last conversation of the process ends."""
    from chatcli_sessions import stores

    conversation.max_checkpoints = settings.max_checkpoints
    stores.retain()


@hookimpl
def message_appended(conversation: Conversation, message: Message) -> None:
    """Write the message (and, the first time, the session row) in one transaction."""
    from chatcli_sessions_api import HeadMoved

    try:
        get_store().append(conversation, message)
    except HeadMoved as err:
        _moved_on(conversation, err)
        return
    conversation.stash[STORED_HEAD] = conversation.head


@hookimpl
def checkpoint_created(conversation: Conversation, checkpoint: Checkpoint) -> None:
    """Write the checkpoint and drop the ones beyond ``max_checkpoints``."""
    get_store().add_checkpoint(conversation, checkpoint)


@hookimpl
def head_moved(conversation: Conversation, head: str | None, reason: str) -> None:
    """Write the new head (rewind, undo, clear) and remember the move for undo; compared with
    the head this process last stored, when it knows it."""
    from chatcli_sessions_api import UNCHECKED, HeadMoved

    try:
        get_store().move_head(conversation, head, reason,
                              expected=conversation.stash.get(STORED_HEAD, UNCHECKED))
    except HeadMoved as err:
        _moved_on(conversation, err)
        return
    conversation.stash[STORED_HEAD] = head


@hookimpl
def view_changed(conversation: Conversation, reason: str) -> None:
    """Write the view's compactions (one was added or undone), so ``-c`` keeps the view."""
    get_store().save_compactions(conversation)


@hookimpl
def session_end(conversation: Conversation) -> None:
    """Release the store when this was the process's last open conversation (a server holds
    many: closing it under another's turn would lose that turn's messages); it reopens if the
    process goes on."""
    from chatcli_sessions import stores

    stores.release()


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
        raise UsageError(_("--resume: the session id holds bytes that are not UTF-8"),
                         _("give the id as `chatcli sessions list` shows it")) from None
    store: SessionStore = get_store(settings=settings)
    if resume:
        ref = resume
    else:
        from chatcli_sessions.choose import continue_ref, pick_ref

        ref = pick_ref(store) if resume is not None else continue_ref(store)
    conversation = store.load(ref, max_checkpoints=settings.max_checkpoints, resume=True)
    conversation.stash[STORED_HEAD] = conversation.head
    return conversation


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

    cli.add_command(LazyGroup("sessions", sessions_help, "chatcli_sessions.cli:sessions"))


def sessions_help() -> str:
    """The ``sessions`` group's first help line, as ``chatcli --help`` lists it (made when a
    help page shows it, not when this module is imported)."""
    return _("Saved conversations: list, show, export, import, delete and search them.")
