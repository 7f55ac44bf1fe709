"""What memory keeps about itself between runs (``<data dir>/memory/state.json``): the last
extraction and its outcome, the last maintenance, which conversation messages were extracted,
and the MEMORY.md files imported. Written atomically (0600); a missing or unreadable file is an
empty state."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

__all__ = ["State"]

#: conversations whose extraction marks are kept
MAX_MARKS = 200


class State:
    """A small JSON document, read once and written after each change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self.data: dict[str, Any] = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            value = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self.data.get(key, default)

    def update(self, **values: Any) -> None:
        """Set ``values`` and write the file (failures to write are ignored: state is a
        convenience, memory itself is in the backend)."""
        self._change(lambda data: data.update(values))

    def _change(self, change: Any) -> None:
        from chatcli import atomic_write

        with self._lock:
            fresh = self._read()  # another process may have written since
            change(fresh)
            marks = fresh.get("extracted")
            if isinstance(marks, dict) and len(marks) > MAX_MARKS:
                fresh["extracted"] = dict(list(marks.items())[-MAX_MARKS:])
            self.data = fresh
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                atomic_write(self.path, json.dumps(fresh, indent=1, sort_keys=True), 0o600)
            except OSError:
                pass

    def mark(self, conversation_id: str, message_id: str) -> None:
        """Messages of ``conversation_id`` up to ``message_id`` were extracted."""
        def change(data: dict[str, Any]) -> None:
            marks = data.get("extracted")
            marks = dict(marks) if isinstance(marks, dict) else {}
            marks.pop(conversation_id, None)
            marks[conversation_id] = message_id
            data["extracted"] = marks

        self._change(change)

    def marked(self, conversation_id: str) -> str | None:
        marks = self.get("extracted") or {}
        value = marks.get(conversation_id) if isinstance(marks, dict) else None
        return value if isinstance(value, str) else None
