"""The conversation: an append-only log of messages with a movable head.

Every message records its parent, so the log is a tree. :meth:`Conversation.messages` walks from
the head back to the root. Rewinding moves the head to a checkpoint; nothing is ever deleted, so a
rewind can itself be undone (:meth:`Conversation.undo`).

The plugin host's lifecycle hooks (:func:`chatcli.attach_hooks`) are told of every append,
checkpoint, head move and change of the view, which is where sessions persist.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from chatcli._compaction import Compaction, applied_view, apply_compactions
from chatcli._safetext import safe_message, safe_text
from chatcli._stash import Stash
from chatcli._types import Message, Role, new_id

if TYPE_CHECKING:
    from chatcli._plugins import HookCalls

__all__ = ["Checkpoint", "Conversation"]


class Checkpoint(BaseModel):
    """A point the conversation can be rewound to: the head before a user message was sent."""

    id: str = Field(default_factory=lambda: new_id("cp_"))
    head: str | None
    label: str
    created_at: float = Field(default_factory=time.time)


class Conversation:
    """An append-only message log with a head pointer and checkpoints."""

    def __init__(self, id: str | None = None, title: str = "", max_checkpoints: int = 20,
                 metadata: dict[str, Any] | None = None, parent: Conversation | None = None
                 ) -> None:
        self.id = id or new_id("s_")
        #: The conversation this one branched from for a child run (a subagent's work, which
        #: plugins keeping per-conversation state may carry over from it); None for a root.
        self.parent = parent
        self.title = title
        self.max_checkpoints = max_checkpoints
        #: What a front end or a store keeps about the conversation (a name, where it was forked
        #: from); the kernel reads nothing from it.
        self.metadata: dict[str, Any] = metadata or {}
        self._log: dict[str, Message] = {}
        self.head: str | None = None
        #: the path :meth:`messages` last gave and the head it led to
        self._path: list[Message] = []
        self._path_head: str | None = None
        self.checkpoints: list[Checkpoint] = []
        self._head_history: list[str | None] = []
        #: the compactions of the view, oldest first (see :meth:`view`)
        self.compactions: list[Compaction] = []
        #: the lifecycle hooks told of every change (``message_appended``, ``checkpoint_created``,
        #: ``head_moved``, ``view_changed``), once :func:`chatcli.attach_hooks` set them
        self.hooks: HookCalls | None = None
        #: Plugins' state for this conversation (``conversation.stash[KEY]``; not persisted).
        self.stash = Stash()

    # ----------------------------------------------------------------- reading

    @property
    def log(self) -> Mapping[str, Message]:
        """Every message of every branch, by id (read only: the log only grows by
        :meth:`append`)."""
        return MappingProxyType(self._log)

    def all_messages(self) -> list[Message]:
        """Every message of every branch, in the order they were appended (or restored)."""
        return list(self._log.values())

    def messages(self) -> list[Message]:
        """The messages from the root to the head, in order (what the model sees).

        The path is kept between calls: after appends only the new messages are walked, so a
        long conversation is not walked again for every call (a new list is returned each time).
        """
        if self._path_head != self.head:
            newer: list[Message] = []
            cursor = self.head
            while cursor is not None and cursor != self._path_head:
                message = self._log[cursor]
                newer.append(message)
                cursor = message.parent_id
            if cursor != self._path_head:  # the head is on another branch: a new path
                self._path = []
            self._path.extend(reversed(newer))
            self._path_head = self.head
        return list(self._path)

    def view(self) -> list[Message]:
        """What the model is sent: :meth:`messages` with the compactions applied (summaries and
        trimmed copies standing in for ranges of the log). A compaction whose range is no longer
        on the path (after a rewind) does not apply."""
        path = self.messages()
        return apply_compactions(path, self.compactions) if self.compactions else path

    def archived(self, compaction_id: str) -> list[Message]:
        """The messages compaction ``compaction_id`` (or a unique prefix) stands for, as the view
        had them before it was made. Raises KeyError when there is no such compaction."""
        matches = [i for i, c in enumerate(self.compactions) if c.id.startswith(compaction_id)]
        if len(matches) != 1:
            raise KeyError(f"no single compaction matches {compaction_id!r}")
        index = matches[0]
        compaction = self.compactions[index]
        before = apply_compactions(self.messages(), self.compactions[:index])
        ids = [m.id for m in before]
        if compaction.first not in ids or compaction.last not in ids:
            return []
        return before[ids.index(compaction.first):ids.index(compaction.last) + 1]

    def last(self, role: Role | None = None) -> Message | None:
        """The newest message on the current path, optionally of a given role."""
        for message in reversed(self.messages()):
            if role is None or message.role == role:
                return message
        return None

    def __len__(self) -> int:
        return len(self.messages())

    # ----------------------------------------------------------------- writing

    def append(self, message: Message) -> Message:
        """Append ``message`` after the head and make it the head; returns what the log holds:
        ``message``, or a copy of it when it held text nothing can store or send (lone
        surrogates, NUL; see :func:`chatcli.safe_text`)."""
        message = safe_message(message)
        message.parent_id = self.head
        self._log[message.id] = message
        self.head = message.id
        if self.hooks is not None:
            self.hooks.message_appended(conversation=self, message=message)
        return message

    def checkpoint(self, label: str) -> Checkpoint:
        """Record a checkpoint at the current head; keeps the newest ``max_checkpoints``."""
        checkpoint = Checkpoint(head=self.head, label=safe_text(label[:80]))
        self.checkpoints.append(checkpoint)
        if len(self.checkpoints) > self.max_checkpoints:
            del self.checkpoints[: len(self.checkpoints) - self.max_checkpoints]
        if self.hooks is not None:
            self.hooks.checkpoint_created(conversation=self, checkpoint=checkpoint)
        return checkpoint

    def move_head(self, head: str | None, reason: str) -> None:
        """Point the conversation at ``head`` (an id in the log, or None for empty)."""
        if head is not None and head not in self._log:
            raise KeyError(f"no message {head!r} in this conversation")
        self._head_history.append(self.head)
        self.head = head
        if self.hooks is not None:
            self.hooks.head_moved(conversation=self, head=head, reason=reason)

    def rewind(self, checkpoint_id: str) -> Checkpoint:
        """Move the head back to the checkpoint with id ``checkpoint_id`` (or a unique prefix)."""
        matches = [c for c in self.checkpoints if c.id.startswith(checkpoint_id)]
        if len(matches) != 1:
            raise KeyError(f"no single checkpoint matches {checkpoint_id!r}")
        self.move_head(matches[0].head, "rewind")
        return matches[0]

    def undo(self) -> bool:
        """Undo the last head move (rewind or clear). Returns False when there is none."""
        if not self._head_history:
            return False
        previous = self._head_history.pop()
        self.head = previous
        if self.hooks is not None:
            self.hooks.head_moved(conversation=self, head=previous, reason="undo")
        return True

    def compact(self, compaction: Compaction) -> None:
        """Add ``compaction`` to the view (checked by its maker; see
        :func:`chatcli_plugin_records.check_compaction`); ``view_changed`` is told how many
        messages of the view it replaces."""
        ids = [m.id for m in self.view()] if self.hooks is not None else []
        self.compactions.append(compaction)
        if self.hooks is not None:
            first, last = compaction.first, compaction.last
            removed = ids.index(last) - ids.index(first) + 1 if {first, last} <= set(ids) else 0
            self.hooks.view_changed(conversation=self, reason="compact",
                                    strategy=compaction.strategy, removed=removed)

    def undo_compaction(self) -> Compaction | None:
        """Remove the newest compaction that applies to the current path (its range is back in
        the view); returns it, or None when there is none."""
        _view, applied = applied_view(self.messages(), self.compactions)
        for index in range(len(self.compactions) - 1, -1, -1):
            if applied[index]:
                removed = self.compactions.pop(index)
                if self.hooks is not None:
                    self.hooks.view_changed(conversation=self, reason="undo", strategy="",
                                            removed=0)
                return removed
        return None

    def clear(self) -> None:
        """Start over with an empty view; the log keeps everything (undo brings it back)."""
        self.move_head(None, "clear")

    @classmethod
    def restore(
        cls, id: str, messages: list[Message], head: str | None,
        checkpoints: list[Checkpoint] | None = None, title: str = "", max_checkpoints: int = 20,
        head_history: list[str | None] | None = None, metadata: dict[str, Any] | None = None,
        compactions: list[Compaction] | None = None,
    ) -> Conversation:
        """Rebuild a conversation from stored messages (parents before children, or any order)
        without telling the hooks. Text nothing can store or send is made safe, as
        :meth:`append` does (a message written by an older version, or an imported file).

        ``head_history`` is the undo stack (heads before each rewind/clear, oldest first), so
        :meth:`undo` works after a restart; entries not in the log are dropped. ``compactions``
        are the view's compactions, oldest first.
        """
        conversation = cls(id=id, title=title, max_checkpoints=max_checkpoints,
                           metadata=dict(metadata or {}))
        for message in messages:
            message = safe_message(message)
            conversation._log[message.id] = message
        conversation.head = head if head in conversation._log else None
        conversation.checkpoints = list(checkpoints or [])
        conversation._head_history = [h for h in (head_history or [])
                                      if h is None or h in conversation._log]
        conversation.compactions = list(compactions or [])
        return conversation
