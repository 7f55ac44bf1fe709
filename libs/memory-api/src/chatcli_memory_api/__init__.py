"""Long-term memory's contract: what a memory item is and what a backend must do.

A backend stores :class:`MemoryItem` records and finds them again by text; the memory plugin
decides what to remember (extraction, de-duplication, decay) and what to show the model (the
index, recall). Backends are plugins (``register_memory_backends``): the embedded SQLite one ships
with chatcli-memory, a PostgreSQL one lets a team share memory. The setting ``memory.backend``
names the one used.

Every backend must pass the same contract suite (``chatcli_testing.MemoryBackendContract``).
This library is the contract both sides import (chatcli 1.x served these names from ``chatcli``);
the hook that registers a backend is declared by chatcli-memory (its ``hookspecs.py``).
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from chatcli import new_id
from chatcli_records_lite import NamedTuple
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = [
    "MemoryBackend",
    "MemoryBackendSpec",
    "MemoryHit",
    "MemoryItem",
    "MemoryKind",
    "Provenance",
]


class MemoryKind(StrEnum):
    """What an item is: a fact, a field of the user's profile, a recurring topic, an active
    project, or a daily note."""

    FACT = "fact"
    PROFILE = "profile"
    TOPIC = "topic"
    PROJECT = "project"
    DAILY = "daily"


class Provenance(StrEnum):
    """Where an item came from: the user said it, the user corrected an earlier item, or a
    model extracted it from a conversation."""

    STATED = "stated"
    CORRECTED = "corrected"
    EXTRACTED = "extracted"


def _now() -> float:
    return time.time()


def _new_dict() -> dict[str, Any]:
    """``dict`` as a pydantic default factory: a builtin's signature would be read by the
    tokenizer, whose first use compiles a large regular expression (start-up time)."""
    return {}


class MemoryItem(BaseModel):
    """One remembered thing.

    ``scope`` is ``"global"`` or ``"project:<key>"`` (the memory plugin derives the key from the
    project root). ``subject`` names what the item is about (``"package manager"``), so a newer
    item on the same subject can supersede an older one (``superseded_by``). ``confidence`` is
    0–1; ``uses`` and ``last_used_at`` count recalls; ``archived`` items are kept but no longer
    recalled (memory never deletes silently). ``key`` is a profile field's name (``"name"``,
    ``"role"``) or a daily note's date.
    """

    #: the validator is built when the first item is made (a run that reads no item, as a
    #: ``-p`` run with an empty memory, never builds it)
    model_config = ConfigDict(defer_build=True)

    id: str = Field(default_factory=lambda: new_id("mem_"))
    kind: MemoryKind = MemoryKind.FACT
    text: str
    category: str = ""
    subject: str = ""
    key: str = ""
    confidence: float = Field(0.6, ge=0.0, le=1.0)
    provenance: Provenance = Provenance.EXTRACTED
    scope: str = "global"
    created_at: float = Field(default_factory=_now)
    updated_at: float = Field(default_factory=_now)
    last_used_at: float | None = None
    uses: int = 0
    archived: bool = False
    superseded_by: str | None = None
    metadata: dict[str, Any] = Field(default_factory=_new_dict)


class MemoryHit(NamedTuple):
    """A search result: the item and its score (higher is better; backends blend text
    relevance with recency and confidence, each in its own way)."""

    item: MemoryItem
    score: float


@runtime_checkable
class MemoryBackend(Protocol):
    """Where memory items live. Implementations are safe to call from several threads of one
    process, and several processes may share one store (writes are transactions; ``store`` and
    ``touch``/``reinforce`` never lose a concurrent writer's change).

    Errors: a backend raises :class:`chatcli.ChatcliError` (one line naming the cause and the
    fix) when its store cannot be reached or read; the memory plugin reports it and goes on
    without memory.
    """

    name: str

    def store(self, item: MemoryItem) -> MemoryItem:
        """Add ``item`` (its ``id`` must be new); returns it as stored."""
        ...

    def update(self, item: MemoryItem) -> MemoryItem:
        """Replace the stored item with ``item`` (same ``id``; ``updated_at`` is set now);
        raises KeyError when there is none."""
        ...

    def delete(self, item_id: str) -> bool:
        """Remove an item for good (``memory forget``); False when there was none."""
        ...

    def get(self, item_id: str) -> MemoryItem | None:
        """The item with ``item_id``, or None."""
        ...

    def list(self, *, kind: MemoryKind | None = None, scopes: Sequence[str] | None = None,
             include_archived: bool = False, limit: int | None = None) -> list[MemoryItem]:
        """Items, newest first, filtered by kind and scope (None: all)."""
        ...

    def search(self, query: str, *, kind: MemoryKind | None = None,
               scopes: Sequence[str] | None = None, include_archived: bool = False,
               limit: int = 10) -> builtins.list[MemoryHit]:  # (`list` is the method above)
        """Items matching ``query`` (words; any order; punctuation ignored), best first. An
        empty or unmatched query returns an empty list, never an error."""
        ...

    def touch(self, item_ids: Sequence[str], when: float | None = None) -> None:
        """Record that the items were recalled: ``uses`` += 1, ``last_used_at`` = ``when``
        (now by default), atomically."""
        ...

    def reinforce(self, item_id: str, delta: float) -> MemoryItem | None:
        """Add ``delta`` to the item's confidence (kept within 0–1), atomically; returns the
        updated item, or None when there is none."""
        ...

    def close(self) -> None:
        """Release connections and files."""
        ...


class MemoryBackendSpec(NamedTuple):
    """A memory backend as a plugin registers it: ``factory(settings)`` opens it (imports its
    driver then, not at start-up)."""

    name: str
    factory: Callable[[Settings], MemoryBackend]
    description: str = ""
