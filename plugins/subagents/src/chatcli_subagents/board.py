"""The workers of a root conversation: their records (what ``/agents`` shows and ``-p --json``
lists), their ids (``w1``, ``w2``… per root conversation) and the places they run in.

The registry lives in the root conversation's stash (``REGISTRY``); each worker's record also
sits in its own conversation's stash (``WORKER``), where the plugin's hooks find it to count
its model calls, tokens and changed files.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_subagents.keys import REGISTRY, WORKER, root_of

if TYPE_CHECKING:
    from chatcli import Conversation

__all__ = ["REGISTRY", "WORKER", "Registry", "Worker", "registry", "root_of"]

#: the states a worker goes through: queued (waiting for a place), running, then one of
#: done, failed (an error ended it), stopped (a limit ended it) or cancelled (its parent was)
ENDED = frozenset({"done", "failed", "stopped", "cancelled"})

_, ngettext = translation(__name__)


def state_name(state: str) -> str:
    """A worker's state as the board shows it (the record and ``-p --json`` keep the word)."""
    names = {"queued": _("queued"), "running": _("running"), "done": _("done"),
             "failed": _("failed"), "stopped": _("stopped"), "cancelled": _("cancelled")}
    return names.get(state, state)


@dataclass
class Worker:
    """One delegation: what it was asked, where it is, what it spent and produced."""

    id: str
    type: str
    description: str
    task: str
    depth: int = 1
    state: str = "queued"
    turns: int = 0
    tokens: int = 0
    created: float = field(default_factory=time.monotonic)
    started: float | None = None
    ended: float | None = None
    #: why it failed or was stopped (one line)
    error: str = ""
    #: the final answer, cut to a bound
    result: str = ""
    #: workspace paths its successful write calls named
    changed: list[str] = field(default_factory=list)
    #: the worktree's branch and diff stat, when it ran isolated
    branch: str | None = None
    diffstat: str = ""
    conversation: Conversation | None = None
    #: set to stop it (its parent was cancelled, or it passed a limit: ``stop_reason`` says)
    cancel: threading.Event = field(default_factory=threading.Event)
    stop_reason: str = ""
    max_tokens: int = 0

    @property
    def label(self) -> str:
        """``w2 explore``: how its lines and questions are labelled."""
        return f"{self.id} {self.type}"

    @property
    def seconds(self) -> float:
        if self.started is None:
            return 0.0
        return (self.ended or time.monotonic()) - self.started

    def stop(self, reason: str) -> None:
        """Stop the worker's run (the first reason given is kept)."""
        if not self.stop_reason:
            self.stop_reason = reason
        self.cancel.set()

    def counted(self, tokens: int) -> None:
        """A model call of the worker spent ``tokens``: past ``max_tokens`` it is stopped."""
        self.tokens += tokens
        if self.max_tokens and self.tokens > self.max_tokens:
            self.stop(f"the token limit ({self.max_tokens:,}) passed")

    def as_json(self) -> dict[str, Any]:
        """What ``-p --json`` lists of the worker."""
        return {"id": self.id, "type": self.type, "description": self.description,
                "state": self.state, "turns": self.turns, "tokens": self.tokens,
                "seconds": round(self.seconds, 3), "files_changed": list(self.changed),
                "branch": self.branch, "error": self.error or None,
                "conversation_id": self.conversation.id if self.conversation else None}


class Registry:
    """The workers of one root conversation, and the places they run in."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.workers: dict[str, Worker] = {}
        self._places: dict[int, threading.BoundedSemaphore] = {}
        self._given = 0
        #: tool call id -> the worker id kept for it (ids follow the model's order of calls)
        self._reserved: dict[str, str] = {}

    def reserve(self, call_id: str) -> str:
        """Keep the next id for the ``delegate`` call ``call_id`` (on the turn's thread, in the
        model's order), so its worker is ``w1`` when it is the first call, whichever worker
        thread starts first."""
        with self.lock:
            if call_id not in self._reserved:
                self._given += 1
                self._reserved[call_id] = f"w{self._given}"
            return self._reserved[call_id]

    def add(self, type_name: str, description: str, task: str, depth: int,
            call_id: str | None = None) -> Worker:
        """A new worker record: the id kept for its call, else the next id."""
        with self.lock:
            worker_id = self._reserved.pop(call_id, None) if call_id else None
            if worker_id is None:
                self._given += 1
                worker_id = f"w{self._given}"
            worker = Worker(id=worker_id, type=type_name, description=description, task=task,
                            depth=depth)
            self.workers[worker.id] = worker
        return worker

    def places(self, depth: int, size: int) -> threading.BoundedSemaphore:
        """The places workers at nesting ``depth`` run in (``size`` when first asked). One per
        level: a worker waiting for its own workers never holds the place they need."""
        with self.lock:
            places = self._places.get(depth)
            if places is None:
                places = self._places[depth] = threading.BoundedSemaphore(size)
            return places

    def find(self, ref: str) -> Worker | None:
        """The worker ``w3`` (or ``3``)."""
        ref = ref.strip()
        with self.lock:
            return self.workers.get(ref) or self.workers.get(f"w{ref}")

    def listed(self) -> list[Worker]:
        with self.lock:
            return list(self.workers.values())


_made = threading.Lock()


def registry(conversation: Conversation) -> Registry:
    """The registry of ``conversation``'s root (made on first need)."""
    root = root_of(conversation)
    with _made:
        found = root.stash.get(REGISTRY, None)
        if found is None:
            found = root.stash[REGISTRY] = Registry()
        return found


def depth_of(conversation: Conversation | None) -> int:
    """How many workers deep ``conversation`` is (0: the user's own conversation)."""
    depth = 0
    while conversation is not None and conversation.parent is not None:
        depth += 1
        conversation = conversation.parent
    return depth


def board_lines(workers: list[Worker]) -> list[str]:
    """The board: one line per worker (``/agents``)."""
    if not workers:
        return [_("no workers yet (the model starts them with the delegate tool; /delegate "
                  "TYPE TASK starts one)")]
    rows = [(_("ID"), _("TYPE"), _("STATE"), _("TURNS"), _("TOKENS"), _("TIME"), _("TASK"))]
    for worker in workers:
        state = state_name(worker.state) + (f" ({worker.error})" if worker.error and (
            worker.state in ("failed", "stopped")) else "")
        rows.append((worker.id, worker.type, state[:60], str(worker.turns),
                     f"{worker.tokens:,}", f"{worker.seconds:.1f}s", worker.description))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)
                      ) + "  " + row[-1] for row in rows]
