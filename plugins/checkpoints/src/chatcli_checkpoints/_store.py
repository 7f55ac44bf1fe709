"""What the plugin keeps on disk, under ``<data dir>/checkpoints/<conversation id>/``.

* ``records/r000001.<checkpoint>.json`` … — one record per recorded state, oldest first: which
  checkpoint it belongs to, when it was taken, why (``tool``: before a write/execute step;
  ``restore``: before a restore, for undo), and its data — a git commit, or file entries (see
  :mod:`._files`).
* ``blobs/<sha256>`` — file contents of records taken outside git, stored once however many
  records name them.
* ``journal.json`` — the mirror of the conversation's undo stack (which head move went with
  which restore), so ``/rewind undo`` undoes the code only when the rewind it undoes restored it.
* ``git-index-…`` — the private index git snapshots are built with (never the user's).

Every folder is ``0700`` and every file ``0600``: the contents of the user's files are as
private as their conversations.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatcli_checkpoints._layout import conversation_folder, records_folder, safe_name

__all__ = ["ConversationStore", "Record", "make_private_dir", "write_private"]

_JOURNAL_LIMIT = 500


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) as ``0700``; an existing folder of ours is narrowed."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, readable by the owner only (``0600``)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


@dataclass
class Record:
    """One recorded state of a workspace, attached to a conversation checkpoint."""

    id: str
    checkpoint: str
    checkpoint_at: float
    taken_at: float
    reason: str  # "tool" | "restore"
    kind: str  # "git" | "files"
    root: str  # the git top level, or the workspace folder
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> bytes:
        return json.dumps(self.__dict__, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Record:
        return cls(**json.loads(raw))

    def after(self, checkpoint_id: str, created_at: float) -> bool:
        """Whether this record was taken after the checkpoint (so it shows its state)."""
        return self.checkpoint == checkpoint_id or self.checkpoint_at > created_at


class ConversationStore:
    """The records, blobs and journal of one conversation."""

    def __init__(self, base: Path, conversation_id: str) -> None:
        self.conversation_id = conversation_id
        self.folder = conversation_folder(base, conversation_id)
        self.records_dir = records_folder(base, conversation_id)
        self.blobs_dir = self.folder / "blobs"

    @property
    def exists(self) -> bool:
        return self.records_dir.is_dir()

    def ensure(self) -> None:
        make_private_dir(self.folder.parent)
        make_private_dir(self.folder)
        make_private_dir(self.records_dir)
        make_private_dir(self.blobs_dir)

    # ------------------------------------------------------------------ records

    _safe = staticmethod(safe_name)

    def names(self) -> list[tuple[str, str, Path]]:
        """``(record id, checkpoint, file)`` of every record, oldest first, from the file names
        alone (``r000001.<checkpoint>.json``): pruning reads no record."""
        if not self.records_dir.is_dir():
            return []
        found = []
        for path in self.records_dir.glob("r*.json"):
            record_id, _, rest = path.name.partition(".")
            found.append((record_id, rest.removesuffix(".json"), path))
        return sorted(found)

    def records(self) -> list[Record]:
        """Every record, oldest first (unreadable ones are skipped)."""
        found = []
        for _, _, path in self.names():
            try:
                found.append(Record.from_json(path.read_bytes()))
            except (OSError, ValueError, TypeError):
                continue
        return found

    def record(self, record_id: str) -> Record | None:
        for found, _, path in self.names():
            if found == record_id:
                try:
                    return Record.from_json(path.read_bytes())
                except (OSError, ValueError, TypeError):
                    return None
        return None

    def new_id(self) -> str:
        names = self.names()
        last = int(names[-1][0][1:]) if names and names[-1][0][1:].isdigit() else 0
        return f"r{last + 1:06d}"

    def _path(self, record: Record) -> Path:
        return self.records_dir / f"{record.id}.{self._safe(record.checkpoint)}.json"

    def save(self, record: Record) -> None:
        self.ensure()
        write_private(self._path(record), record.to_json())

    def delete(self, record: Record) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self._path(record))

    # ------------------------------------------------------------------ blobs

    def blob_path(self, sha: str) -> Path:
        return self.blobs_dir / sha

    def has_blob(self, sha: str) -> bool:
        return self.blob_path(sha).is_file()

    def put_blob(self, sha: str, data: bytes) -> bool:
        """Store ``data`` under its hash; False when it was there already."""
        path = self.blob_path(sha)
        if path.is_file():
            return False
        self.ensure()
        write_private(path, data)
        return True

    def read_blob(self, sha: str) -> bytes:
        return self.blob_path(sha).read_bytes()

    def blob_bytes(self) -> int:
        if not self.blobs_dir.is_dir():
            return 0
        total = 0
        for entry in os.scandir(self.blobs_dir):
            with contextlib.suppress(OSError):
                total += entry.stat(follow_symlinks=False).st_size
        return total

    def collect_blobs(self, keep: set[str]) -> None:
        """Delete every blob no remaining record names."""
        if not self.blobs_dir.is_dir():
            return
        for entry in os.scandir(self.blobs_dir):
            if entry.name not in keep and not entry.name.startswith("."):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)

    # ------------------------------------------------------------------ journal

    def journal(self) -> list[list[str] | None]:
        """The undo stack mirror: per head move, the restore records it carries (or None)."""
        try:
            stack = json.loads((self.folder / "journal.json").read_bytes()).get("stack", [])
        except (OSError, ValueError, AttributeError):
            return []
        return [[i for i in s if isinstance(i, str)] if isinstance(s, list) else None
                for s in stack]

    def save_journal(self, stack: list[list[str] | None]) -> None:
        self.ensure()
        data = json.dumps({"stack": stack[-_JOURNAL_LIMIT:]}).encode()
        write_private(self.folder / "journal.json", data)

    def index_path(self, root: str) -> Path:
        """The private git index used for the repository at ``root``."""
        import hashlib

        self.ensure()
        return self.folder / f"git-index-{hashlib.sha256(root.encode()).hexdigest()[:16]}"
