"""Which persona speaks: an ``@name`` that starts the message being answered, else the
conversation's persona (``/persona NAME``).

The conversation's persona is kept in ``conversation.metadata["persona"]`` and, because session
stores need not keep metadata, in ``<data dir>/personas/active.json`` by conversation id, where a
resumed conversation (``chatcli -c``) finds it again. The same record keeps the provider and
model that were in use before the persona switched them, to put back with ``/persona off``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey

if TYPE_CHECKING:
    from chatcli import Conversation, Message, Session

    from chatcli_personas.catalog import Catalog
    from chatcli_personas.persona import Persona

__all__ = ["COMMAND_TOOLS", "METADATA_KEY", "SESSION", "ActiveStore", "mention", "mentioned_name",
           "speaker", "typed_text"]

METADATA_KEY = "persona"
#: where the provider/model to restore is kept in the metadata: ``[provider, model]``
RESTORE_KEY = "persona_restore"

#: ``@name`` at the very start of a message (after blanks), then a blank or the end.
_MENTION = re.compile(r"^\s*@([A-Za-z0-9][A-Za-z0-9_.-]{0,63})(?=\s|$)")

#: The session holding a conversation (the provider in use), in the conversation's stash.
SESSION: StashKey[Session] = StashKey()
#: (command name, its allowed-tools) while a command template's answer runs, in the stash of
#: the conversation it answers.
COMMAND_TOOLS = StashKey[tuple[str, tuple[str, ...]]]()

#: conversations whose persona is remembered (the newest)
_MAX_CONVERSATIONS = 2_000


def typed_text(message: Message) -> str:
    """What the user typed: the message's first text part (files attached after it are not)."""
    from chatcli import TextPart

    for part in message.parts:
        if isinstance(part, TextPart):
            return part.text
    return ""


def mention(text: str) -> str | None:
    """The name of an ``@name`` that starts ``text`` (whatever it names), else None."""
    match = _MENTION.match(text)
    return match.group(1) if match else None


def mentioned_name(conversation: Conversation) -> str | None:
    """The ``@name`` the last user message starts with (whatever it names), else None."""
    from chatcli import Role

    message = conversation.last(Role.USER)
    return mention(typed_text(message)) if message is not None else None


def mentioned(conversation: Conversation, catalog: Catalog) -> Persona | None:
    """The persona the last user message starts with ``@``, if it names one."""
    name = mentioned_name(conversation)
    return catalog.get(name) if name else None


def speaker(conversation: Conversation | None, catalog: Catalog,
            store: ActiveStore | None = None) -> Persona | None:
    """Who answers ``conversation`` now: the ``@name`` of its last user message, else its
    persona, else nobody (chatcli itself)."""
    if conversation is None:
        return None
    found = mentioned(conversation, catalog)
    if found is not None:
        return found
    name = active_name(conversation, store)
    return catalog.get(name) if name else None


def active_name(conversation: Conversation, store: ActiveStore | None = None) -> str | None:
    """The conversation's persona (``/persona``): its metadata, else what the store remembers
    for its id (a resumed conversation), which is then put back in the metadata."""
    value = conversation.metadata.get(METADATA_KEY)
    if isinstance(value, str) or (value is None and METADATA_KEY in conversation.metadata):
        return value or None
    if store is None:
        return None
    record = store.get(conversation.id)
    persona: str | None = record.get("persona") if record else None
    conversation.metadata[METADATA_KEY] = persona
    if record and record.get("restore"):
        conversation.metadata[RESTORE_KEY] = list(record["restore"])
    return persona


def set_active(conversation: Conversation, name: str | None, restore: list[str] | None,
               store: ActiveStore | None) -> None:
    """Make ``name`` (None: nobody) the conversation's persona, with the provider and model to
    put back when it goes (``restore``), in the metadata and the store."""
    conversation.metadata[METADATA_KEY] = name
    if restore:
        conversation.metadata[RESTORE_KEY] = list(restore)
    else:
        conversation.metadata.pop(RESTORE_KEY, None)
    if store is not None:
        store.put(conversation.id, {"persona": name, "restore": restore} if name else None)


class ActiveStore:
    """``{conversation id: {"persona": name, "restore": [provider, model] | None}}`` in one
    JSON file (written atomically; the newest conversations kept)."""

    def __init__(self, path: Path | None = None) -> None:
        if path is None:
            from chatcli import data_dir

            path = data_dir() / "personas" / "active.json"
        self.path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        conversations = data.get("conversations") if isinstance(data, dict) else None
        return dict(conversations) if isinstance(conversations, dict) else {}

    def get(self, conversation_id: str) -> dict[str, Any] | None:
        """The record of ``conversation_id``, or None."""
        record = self._read().get(conversation_id)
        return record if isinstance(record, dict) else None

    def put(self, conversation_id: str, record: dict[str, Any] | None) -> None:
        """Remember ``record`` for ``conversation_id`` (None forgets it)."""
        from chatcli import atomic_write

        with self._lock:
            conversations = self._read()
            conversations.pop(conversation_id, None)
            if record is not None:
                conversations[conversation_id] = {**record, "at": time.time()}
            if len(conversations) > _MAX_CONVERSATIONS:
                newest = sorted(conversations.items(), key=lambda kv: kv[1].get("at", 0))
                conversations = dict(newest[-_MAX_CONVERSATIONS:])
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                atomic_write(self.path, json.dumps({"version": 1,
                                                    "conversations": conversations}), 0o600)
            except OSError:
                pass  # the metadata still holds it for this run
