"""Helpers shared by the chatcli-sessions-postgres tests: a conversation wired to a store, as
chatcli-sessions wires the configured store to the kernel's hooks."""

from __future__ import annotations

from chatcli import (
    Checkpoint,
    Conversation,
    Message,
    PluginHost,
    attach_hooks,
    hookimpl,
)
from chatcli_sessions_api import SessionStore


class StoreHooks:
    """The persistence hooks of chatcli-sessions, writing to ``store``."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    @hookimpl
    def message_appended(self, conversation: Conversation, message: Message) -> None:
        """Write the message."""
        self.store.append(conversation, message)

    @hookimpl
    def checkpoint_created(self, conversation: Conversation, checkpoint: Checkpoint) -> None:
        """Write the checkpoint."""
        self.store.add_checkpoint(conversation, checkpoint)

    @hookimpl
    def head_moved(self, conversation: Conversation, head: str | None, reason: str) -> None:
        """Write the head move."""
        self.store.move_head(conversation, head, reason)

    @hookimpl
    def view_changed(self, conversation: Conversation, reason: str) -> None:
        """Write the compactions."""
        self.store.save_compactions(conversation)


def wired(store: SessionStore, conversation: Conversation | None = None,
          max_checkpoints: int = 20) -> Conversation:
    """``conversation`` (a new one by default) written to ``store`` as it changes."""

    def warn(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    host = PluginHost(warn=warn)
    assert host.register(StoreHooks(store), "store-hooks")
    conversation = conversation or Conversation(max_checkpoints=max_checkpoints)
    attach_hooks(conversation, host)
    return conversation


def turn(conversation: Conversation, question: str, answer: str | None = None) -> None:
    """One turn as the engine does it: checkpoint, user message, assistant answer."""
    conversation.checkpoint(question.strip().splitlines()[0] if question.strip() else "")
    conversation.append(Message.user(question))
    reply = Message.assistant(answer if answer is not None else f"answer to {question}")
    reply.provider, reply.model = "scripted", "m1"
    conversation.append(reply)


def path_texts(conversation: Conversation) -> list[str]:
    """The texts on the conversation's current path."""
    return [m.text for m in conversation.messages()]
