"""Where the plugin keeps its state in conversations' stashes, and the root of a conversation:
small enough for the hooks that run at every start and call (a status line, a request) to
look without loading the board (:mod:`chatcli_subagents.board`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli import Conversation

    from chatcli_subagents.board import Registry, Worker

__all__ = ["OFFERED", "REGISTRY", "WORKER", "root_of"]

#: the root conversation's board of workers
REGISTRY: StashKey[Registry] = StashKey()
#: a worker's record, in its own conversation's stash
WORKER: StashKey[Worker] = StashKey()
#: the tools the conversation's last request offered (after plugins trimmed them: a persona's
#: list): a worker it starts gets none other
OFFERED: StashKey[frozenset[str]] = StashKey()


def root_of(conversation: Conversation) -> Conversation:
    """The conversation at the top of ``conversation``'s parents."""
    while conversation.parent is not None:
        conversation = conversation.parent
    return conversation
