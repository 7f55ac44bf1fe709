"""Named contexts on disk, and which conversations they are attached to.

A context is a snapshot of files taken by ``/context create``: one JSON file per context in
``<data dir>/contexts/`` (folder 0700, files 0600, written atomically). Its text does not change
until it is created again, so an attached context is byte-identical in every request, across
resume too.

Attachments are kept in the conversation's ``metadata["contexts"]`` and, because session stores
need not keep metadata, in ``<data dir>/contexts/.attached.json`` by conversation id, which is
where a resumed conversation gets them back.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli_records_lite import dataclass

if TYPE_CHECKING:
    from chatcli import Conversation

__all__ = ["METADATA_KEY", "NAME_PATTERN", "ContextStore", "StoredContext", "StoredFile",
           "attached_names", "set_attached", "sync_attached"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
METADATA_KEY = "contexts"
_ATTACHED_FILE = ".attached.json"
#: conversations whose attachments are remembered (the newest)
_MAX_CONVERSATIONS = 2_000


@dataclass(frozen=True)
class StoredFile:
    """One file of a context: its path as shown (relative to where it was created) and text."""

    path: str
    text: str


@dataclass
class StoredContext:
    """A named snapshot of files."""

    name: str
    files: list[StoredFile]
    sources: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    root: str = ""

    @property
    def chars(self) -> int:
        return sum(len(f.text) for f in self.files)

    def file(self, path: str) -> StoredFile | None:
        """The file named ``path`` (exactly, else by its end, when that is unique)."""
        wanted = path.strip().removeprefix("./")
        for item in self.files:
            if item.path == wanted:
                return item
        ends = [f for f in self.files if f.path.endswith("/" + wanted)]
        return ends[0] if len(ends) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "name": self.name, "created_at": self.created_at,
                "root": self.root, "sources": self.sources,
                "files": [{"path": f.path, "text": f.text} for f in self.files],
                "skipped": [{"path": p, "reason": r} for p, r in self.skipped]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StoredContext:
        return cls(name=str(data["name"]),
                   files=[StoredFile(str(f["path"]), str(f["text"])) for f in data["files"]],
                   sources=[str(s) for s in data.get("sources", [])],
                   skipped=[(str(s["path"]), str(s["reason"])) for s in data.get("skipped", [])],
                   created_at=float(data.get("created_at", 0)), root=str(data.get("root", "")))


class ContextStore:
    """The contexts under ``root`` (by default ``<data dir>/contexts``)."""

    _lock = threading.RLock()
    _cache: dict[Path, tuple[tuple[int, int], StoredContext]] = {}  # noqa: RUF012 - shared

    def __init__(self, root: Path | None = None) -> None:
        if root is None:
            from chatcli import data_dir

            root = data_dir() / "contexts"
        self.root = root

    # ------------------------------------------------------------------ contexts

    def path(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def names(self) -> list[str]:
        """Every stored context's name, sorted."""
        try:
            entries = os.listdir(self.root)
        except OSError:
            return []
        return sorted(e[:-5] for e in entries if e.endswith(".json") and not e.startswith("."))

    def load(self, name: str) -> StoredContext | None:
        """The context ``name``, or None (read again only when its file changed)."""
        if not NAME_PATTERN.match(name):
            return None
        path = self.path(name)
        try:
            stat = path.stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            hit = self._cache.get(path)
            if hit is not None and hit[0] == key:
                return hit[1]
        try:
            context = StoredContext.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        with self._lock:
            self._cache[path] = (key, context)
        return context

    def save(self, context: StoredContext) -> None:
        """Write ``context`` (private, atomic)."""
        from chatcli import atomic_write

        self._private_folder()
        atomic_write(self.path(context.name), json.dumps(context.to_json(), ensure_ascii=False),
                     mode=0o600)

    def delete(self, name: str) -> bool:
        """Remove the context ``name``; False when there was none."""
        try:
            self.path(name).unlink()
        except FileNotFoundError:
            return False
        return True

    def _private_folder(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)

    # ------------------------------------------------------------------ attachments

    def attached(self, conversation_id: str) -> list[str] | None:
        """The names attached to the conversation ``conversation_id``, or None if unknown."""
        entry = self._attachments().get(conversation_id)
        names = entry.get("names") if isinstance(entry, dict) else None
        return [str(n) for n in names] if isinstance(names, list) else None

    def set_attached(self, conversation_id: str, names: list[str]) -> None:
        """Remember ``names`` as the conversation's attachments."""
        from chatcli import atomic_write

        with self._lock:
            data = self._attachments()
            data[conversation_id] = {"names": list(names), "at": time.time()}
            if len(data) > _MAX_CONVERSATIONS:
                newest = sorted(data.items(), key=lambda kv: -float(kv[1].get("at", 0)))
                data = dict(newest[:_MAX_CONVERSATIONS])
            self._private_folder()
            atomic_write(self.root / _ATTACHED_FILE,
                         json.dumps({"version": 1, "conversations": data}), mode=0o600)

    def _attachments(self) -> dict[str, Any]:
        try:
            data = json.loads((self.root / _ATTACHED_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        conversations = data.get("conversations") if isinstance(data, dict) else None
        return dict(conversations) if isinstance(conversations, dict) else {}


#: conversations already looked up in the store and found without attachments
_checked: set[tuple[Path, str]] = set()


def attached_names(conversation: Conversation | None, store: ContextStore | None = None
                   ) -> list[str]:
    """The contexts attached to ``conversation``: its metadata, else what the store remembers
    for its id (a resumed conversation), which is then put back in the metadata."""
    if conversation is None:
        return []
    names = conversation.metadata.get(METADATA_KEY)
    if isinstance(names, list):
        return [str(n) for n in names]
    store = store or ContextStore()
    key = (store.root, conversation.id)
    if key in _checked:
        return []
    remembered = store.attached(conversation.id)
    if remembered is None:
        if len(_checked) > 10_000:
            _checked.clear()
        _checked.add(key)
        return []
    conversation.metadata[METADATA_KEY] = list(remembered)
    return list(remembered)


def set_attached(conversation: Conversation, names: list[str],
                 store: ContextStore | None = None) -> None:
    """Attach exactly ``names`` to ``conversation`` (metadata and store)."""
    store = store or ContextStore()
    conversation.metadata[METADATA_KEY] = list(names)
    store.set_attached(conversation.id, names)
    _checked.discard((store.root, conversation.id))


def sync_attached(conversation: Conversation, store: ContextStore | None = None) -> None:
    """At the start of a conversation: metadata and store agree on its attachments (a fork
    carries them in its metadata, a resumed conversation finds them in the store)."""
    store = store or ContextStore()
    names = conversation.metadata.get(METADATA_KEY)
    if isinstance(names, list):
        if store.attached(conversation.id) != names:
            store.set_attached(conversation.id, [str(n) for n in names])
        return
    attached_names(conversation, store)
