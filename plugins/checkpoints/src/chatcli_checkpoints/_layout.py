"""Where a conversation's records are kept (names only: no file is touched here), apart from the
store so that seeing whether a conversation has records imports no more than this."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["conversation_folder", "records_folder", "safe_name"]


def safe_name(text: str) -> str:
    """``text`` as a file name: letters, digits, ``-`` and ``_`` kept, anything else ``_``."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)


def conversation_folder(base: Path, conversation_id: str) -> Path:
    """The folder of one conversation's records, blobs and journal under ``base``."""
    return base / (safe_name(conversation_id) or "_")


def records_folder(base: Path, conversation_id: str) -> Path:
    """The folder of one conversation's records (there when something was recorded)."""
    return conversation_folder(base, conversation_id) / "records"
