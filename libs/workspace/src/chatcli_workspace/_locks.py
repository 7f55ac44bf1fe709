"""Per-file claims: parallel workers (child conversations) never write the same file at once.

A worker's write tool claims each file before it reads and writes it; the claim is held until
the worker ends (:func:`release_claims`), so a second worker wanting the file waits, at most
``wait`` seconds, then gets :class:`FileBusy` — a one-line error naming the file and the worker
holding it. A root conversation (``parent`` None: the user's own) holds nothing: it only waits
for a worker's claim. A claim held by an ancestor of the claimant (the worker that delegated to
it, which is waiting for it) does not block it. Process-wide and thread-safe; the path is the
key once resolved (symbolic links followed).

The common case, one agent and no worker, costs a truth test of a dict: nothing is resolved and
no lock is taken.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli import Conversation

__all__ = ["FileBusy", "claim", "claims_of", "holder", "release_claims"]

#: resolved path -> the conversation holding it
_held: dict[str, Conversation] = {}
_changed = threading.Condition()
#: how often a waiter looks at its cancel event
_POLL = 0.1


class FileBusy(RuntimeError):
    """A file another worker holds (after waiting ``waited`` seconds for it)."""

    def __init__(self, path: str | os.PathLike[str], holder: str, waited: float,
                 cancelled: bool = False) -> None:
        self.path, self.holder, self.waited = os.fspath(path), holder, waited
        self.cancelled = cancelled
        how = "the turn was stopped while waiting" if cancelled else (
            f"waited {waited:.3g} s" if waited > 0 else "")
        super().__init__(f"'{self.path}' is being edited by {holder}; wait for it to finish "
                         "or work on another file" + (f" ({how})" if how else ""))


def label(owner: Conversation) -> str:
    """How a holder is named: ``worker w2 (explore)`` for a subagent, else its title or id."""
    about = owner.metadata.get("subagent") if isinstance(owner.metadata, dict) else None
    if isinstance(about, dict) and about.get("id"):
        kind = f" ({about['type']})" if about.get("type") else ""
        return " ".join(f"worker {about['id']}{kind}".split())
    return " ".join((owner.title or owner.id).split())  # one line whatever the title holds


def _key(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(os.fspath(path))


def _blocks(holding: Conversation, owner: Conversation) -> bool:
    """Whether ``holding``'s claim keeps ``owner`` waiting: not its own, nor an ancestor's."""
    ancestor: Conversation | None = owner
    while ancestor is not None:
        if ancestor is holding:
            return False
        ancestor = ancestor.parent
    return True


def claim(path: Path, owner: Conversation, wait: float, *,
          cancel: threading.Event | None = None) -> None:
    """Claim ``path`` for ``owner`` before writing it, waiting at most ``wait`` seconds while
    another worker holds it (then :class:`FileBusy`; also when ``cancel`` is set meanwhile).

    A child conversation keeps the claim until :func:`release_claims`; a root conversation
    only waits and holds nothing. Claiming again what one holds is immediate."""
    if not _held and owner.parent is None:
        return  # one agent, no worker anywhere: the usual case
    key = _key(path)
    deadline = time.monotonic() + max(wait, 0.0)
    with _changed:
        while True:
            holding = _held.get(key)
            if holding is None or not _blocks(holding, owner):
                if holding is None and owner.parent is not None:
                    _held[key] = owner
                return
            left = deadline - time.monotonic()
            if cancel is not None and cancel.is_set():
                raise FileBusy(path, label(holding), wait - max(left, 0.0), cancelled=True)
            if left <= 0:
                raise FileBusy(path, label(holding), wait)
            _changed.wait(min(left, _POLL) if cancel is not None else left)


def release_claims(owner: Conversation) -> list[str]:
    """Give up every claim of ``owner`` (a worker that ended), waking whoever waits for one;
    the paths released."""
    with _changed:
        mine = [key for key, holding in _held.items() if holding is owner]
        for key in mine:
            del _held[key]
        if mine:
            _changed.notify_all()
    return mine


def holder(path: Path) -> str | None:
    """Who holds ``path`` (as :class:`FileBusy` names it), or None."""
    if not _held:
        return None
    with _changed:
        holding = _held.get(_key(path))
    return None if holding is None else label(holding)


def claims_of(owner: Conversation) -> list[str]:
    """The paths ``owner`` holds (resolved), sorted."""
    with _changed:
        return sorted(key for key, holding in _held.items() if holding is owner)
