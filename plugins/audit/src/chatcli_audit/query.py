"""Reading the log back: every record of the current and the rotated files, oldest first,
filtered.

A line that is not a JSON object (a file cut short by a full disk, a hand edit) is skipped and
counted, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from chatcli_audit.writer import rotated_files

__all__ = ["DECISIONS", "Filters", "Reading", "read_records"]

#: What ``--decision`` accepts: the final outcome (``allow``, ``deny``) or ``ask`` (a person
#: was asked, whatever they answered).
DECISIONS = ("allow", "deny", "ask")


@dataclass
class Filters:
    """What ``chatcli audit`` keeps; None keeps everything."""

    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    tool: str | None = None
    decision: str | None = None
    kind: str | None = None

    def keeps(self, record: dict[str, Any]) -> bool:
        """Whether ``record`` passes every filter."""
        if self.kind is not None and record.get("kind") != self.kind:
            return False
        if self.session is not None and not any(
                str(record.get(key) or "").startswith(self.session)
                for key in ("session", "conversation")):
            return False
        if self.tool is not None and record.get("tool") != self.tool:
            return False
        if self.decision is not None:
            if record.get("kind") != "tool_call":
                return False
            if self.decision == "ask":
                if record.get("verdict") != "ask":
                    return False
            elif record.get("decision") != self.decision:
                return False
        if self.since is not None or self.until is not None:
            when = _time(record.get("time"))
            if when is None:
                return False
            if self.since is not None and when < self.since:
                return False
            if self.until is not None and when > self.until:
                return False
        return True


@dataclass
class Reading:
    """The records kept, and how many lines were not records."""

    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _lines(file: Path) -> Iterator[bytes]:
    try:
        with open(file, "rb") as handle:
            yield from handle
    except FileNotFoundError:
        return


def read_records(file: Path, filters: Filters) -> Reading:
    """The records of ``file`` and its rotated files that ``filters`` keeps, oldest first."""
    reading = Reading()
    for path in [*rotated_files(file), file]:
        for line in _lines(path):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                reading.skipped += 1
                continue
            if not isinstance(record, dict):
                reading.skipped += 1
                continue
            if filters.keeps(record):
                reading.records.append(record)
    return reading
