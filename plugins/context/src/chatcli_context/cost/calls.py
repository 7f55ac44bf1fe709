"""What a conversation's messages do not say about its model calls, kept beside them.

The messages of a conversation carry the usage of every call of its turns; three things are
not in them:

- **side calls**: the model calls plugins make for themselves (a compaction summary, a memory
  extraction; :meth:`chatcli.Engine.side_call`), whose answers are never appended;
- **purposes**: what a turn's call was for when it was not chat (``/agent``, ``/coder``);
- **workers' calls**: every model call of a child conversation (a subagent's run,
  ``Conversation(parent=…)``), whose messages live in the child's own log; they are kept in
  the root conversation's file with the worker's id and type, so the session's spend and its
  split per worker survive ``--resume`` even when the children's logs are not read back.

All are appended, one JSON object a line, to ``<data dir>/cost/<conversation id>.jsonl`` as
they happen, and read back when a resumed conversation is first counted, so ``chatcli -c -p
/cost`` shows every call the session made. A line that cannot be read is skipped (a crash mid-
write loses at most that call); a file that cannot be written is reported once by the caller.
"""

from __future__ import annotations

import json
import re
from dataclasses import field
from pathlib import Path

from chatcli import Usage
from chatcli_records_lite import dataclass

__all__ = ["Calls", "SideCall", "WorkerCall", "calls_file", "load", "record", "side_entry",
           "worker_entry"]

_SAFE_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


@dataclass
class SideCall:
    """One side call: what it was for, who answered, what it used, when it ended."""

    purpose: str
    provider: str
    model: str
    usage: Usage
    at: float


@dataclass
class WorkerCall:
    """One model call of a worker (a child conversation), as its root conversation counts it:
    the worker's id and type, the child conversation, what the call was for, who answered,
    what it used, when it ended and the cache TTL its request asked for."""

    worker: str
    type: str
    conversation: str
    purpose: str
    provider: str
    model: str
    usage: Usage
    at: float
    ttl: str | None = None


@dataclass
class Calls:
    """A conversation's side calls (oldest first), the purposes of its turns' calls that were
    not chat (message id → purpose) and, for a root conversation, its workers' calls (oldest
    first)."""

    side: list[SideCall] = field(default_factory=list)
    purposes: dict[str, str] = field(default_factory=dict)
    workers: list[WorkerCall] = field(default_factory=list)


def calls_file(conversation_id: str) -> Path | None:
    """Where ``conversation_id``'s calls are kept; None for an id that is no safe file name."""
    from chatcli import data_dir

    if not _SAFE_ID.fullmatch(conversation_id) or conversation_id.strip(".") == "":
        return None
    return data_dir() / "cost" / f"{conversation_id}.jsonl"


def load(conversation_id: str) -> Calls:
    """The calls kept for ``conversation_id`` (none when nothing was kept)."""
    calls = Calls()
    path = calls_file(conversation_id)
    if path is None:
        return calls
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return calls
    for line in text.splitlines():
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                continue  # foreign JSON: no call
            if "worker" in entry:
                ttl = entry.get("ttl")
                calls.workers.append(WorkerCall(
                    str(entry["worker"]), str(entry["type"]), str(entry["conversation"]),
                    str(entry["purpose"]), str(entry["provider"]), str(entry["model"]),
                    Usage(**entry["usage"]), float(entry["at"]),
                    str(ttl) if ttl is not None else None))
            elif "message" in entry:
                calls.purposes[str(entry["message"])] = str(entry["purpose"])
            else:
                calls.side.append(SideCall(str(entry["purpose"]), str(entry["provider"]),
                                           str(entry["model"]), Usage(**entry["usage"]),
                                           float(entry["at"])))
        except (ValueError, TypeError, KeyError):
            continue  # a torn or foreign line: that call is lost, the others count
    return calls


def record(conversation_id: str, entry: dict[str, object]) -> None:
    """Append ``entry`` to ``conversation_id``'s calls (one write of one line, so lines of
    two writers never mix). Raises OSError when the file cannot be written."""
    import os

    path = calls_file(conversation_id)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def side_entry(call: SideCall) -> dict[str, object]:
    """The line kept for ``call``."""
    return {"purpose": call.purpose, "provider": call.provider, "model": call.model,
            "usage": call.usage.model_dump(), "at": call.at}


def worker_entry(call: WorkerCall) -> dict[str, object]:
    """The line kept for ``call`` (in its root conversation's file)."""
    return {"worker": call.worker, "type": call.type, "conversation": call.conversation,
            "purpose": call.purpose, "provider": call.provider, "model": call.model,
            "usage": call.usage.model_dump(), "at": call.at, "ttl": call.ttl}
