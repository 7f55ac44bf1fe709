"""What differs between a recorded state and the workspace now, and how to say it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Change", "describe", "error_text", "prune_empty_folders", "remove_file",
           "restored_line"]

#: How many file names a summary lists before "… and N more".
SHOWN = 8


@dataclass(frozen=True)
class Change:
    """One file that a restore would change.

    ``path`` is relative to the backend's root (the git top level, or the workspace), ``shown``
    relative to the workspace. ``kind``: ``changed`` (rewritten), ``created`` (it did not exist
    then: removed), ``deleted`` (it existed then: recreated) or ``kept`` (it differs but cannot
    be put back; ``why`` says why).
    """

    path: str
    shown: str
    kind: str
    why: str = ""

    @property
    def restorable(self) -> bool:
        return self.kind != "kept"


_SUMMARY = {
    "changed": "changed",
    "created": "created since, removed on restore",
    "deleted": "deleted since, recreated",
}


def _names(items: list[str]) -> str:
    shown = items[:SHOWN]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f", … and {more} more" if more > 0 else "")


def _count(n: int) -> str:
    return f"{n} file" + ("" if n == 1 else "s")


def describe(changes: list[Change]) -> str:
    """``3 files: a.py (changed), new.txt (created since, removed on restore), …``."""
    restorable = [c for c in changes if c.restorable]
    kept = [c for c in changes if not c.restorable]
    parts = []
    if restorable:
        listed = _names([f"{c.shown} ({_SUMMARY[c.kind]})" for c in restorable])
        parts.append(f"{_count(len(restorable))}: {listed}")
    if kept:
        listed = _names([f"{c.shown} ({c.why})" for c in kept])
        parts.append(f"cannot restore {_count(len(kept))}: {listed}")
    return "; ".join(parts)


def restored_line(done: list[Change], failed: list[tuple[Change, str]],
                  kept: list[Change]) -> str:
    """One line saying what a restore did."""
    marks = {"created": " (removed)", "deleted": " (recreated)", "changed": ""}
    if done:
        line = f"Restored {_count(len(done))}: " + _names(
            [f"{c.shown}{marks[c.kind]}" for c in done])
    else:
        line = "Restored no file"
    if kept:
        line += "; not restored: " + _names([f"{c.shown} ({c.why})" for c in kept])
    if failed:
        line += "; failed: " + _names([f"{c.shown} ({why})" for c, why in failed])
    return line + "."


def prune_empty_folders(start: Path, stop: Path) -> None:
    """Remove ``start`` and its parents while they are empty, never ``stop`` or above it."""
    folder = start
    stop = stop.resolve()
    while True:
        try:
            resolved = folder.resolve()
        except OSError:
            return
        if resolved == stop or stop not in resolved.parents:
            return
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.parent


def remove_file(path: Path) -> None:
    """Remove a file or link (not a folder)."""
    os.unlink(path)


def error_text(err: OSError) -> str:
    return err.strerror or type(err).__name__
