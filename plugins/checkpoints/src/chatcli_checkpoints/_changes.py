"""What differs between a recorded state and the workspace now, and how to say it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from chatcli import translation

__all__ = ["Change", "describe", "error_text", "prune_empty_folders", "remove_file",
           "restored_line"]

_, ngettext = translation(__name__)

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


def _summary(kind: str) -> str:
    """How a restorable change is named in a summary."""
    if kind == "created":
        return _("created since, removed on restore")
    if kind == "deleted":
        return _("deleted since, recreated")
    return _("changed")


def _names(items: list[str]) -> str:
    shown = items[:SHOWN]
    more = len(items) - len(shown)
    if more > 0:
        return ngettext("{names}, … and {count} more", "{names}, … and {count} more",
                        more).format(names=", ".join(shown), count=more)
    return ", ".join(shown)


def describe(changes: list[Change]) -> str:
    """``3 files: a.py (changed), new.txt (created since, removed on restore), …``."""
    restorable = [c for c in changes if c.restorable]
    kept = [c for c in changes if not c.restorable]
    parts = []
    if restorable:
        listed = _names([f"{c.shown} ({_summary(c.kind)})" for c in restorable])
        parts.append(ngettext("{count} file: {names}", "{count} files: {names}",
                              len(restorable)).format(count=len(restorable), names=listed))
    if kept:
        listed = _names([f"{c.shown} ({c.why})" for c in kept])
        parts.append(ngettext("cannot restore {count} file: {names}",
                              "cannot restore {count} files: {names}",
                              len(kept)).format(count=len(kept), names=listed))
    return "; ".join(parts)


def _marked(change: Change) -> str:
    """A restored file's name, with what the restore did to it when it was not a rewrite."""
    if change.kind == "created":
        return _("{path} (removed)").format(path=change.shown)
    if change.kind == "deleted":
        return _("{path} (recreated)").format(path=change.shown)
    return change.shown


def restored_line(done: list[Change], failed: list[tuple[Change, str]],
                  kept: list[Change], undone: bool = False) -> str:
    """One line saying what a restore did (``undone``: what undoing a code rewind did)."""
    names = _names([_marked(c) for c in done])
    if done and undone:
        line = ngettext("Code rewind undone: {count} file: {names}",
                        "Code rewind undone: {count} files: {names}",
                        len(done)).format(count=len(done), names=names)
    elif done:
        line = ngettext("Restored {count} file: {names}", "Restored {count} files: {names}",
                        len(done)).format(count=len(done), names=names)
    else:
        line = _("Code rewind undone: no file") if undone else _("Restored no file")
    if kept:
        line = _("{line}; not restored: {names}").format(
            line=line, names=_names([f"{c.shown} ({c.why})" for c in kept]))
    if failed:
        line = _("{line}; failed: {names}").format(
            line=line, names=_names([f"{c.shown} ({why})" for c, why in failed]))
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
