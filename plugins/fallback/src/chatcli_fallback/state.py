"""Health of every entry, shared by all chatcli processes: a small JSON file in the data dir.

``<data dir>/fallback/state.json`` (0600) holds, per ``provider/model``: errors in a row, when
its cooldown ends, the last request and the last failure, the last error's line, the moving
average of the time to the first answer event, and counts; and the round-robin position of
each pool. Every change is a read-modify-write under an exclusive ``flock`` on a lock file
beside it, written with :func:`chatcli.atomic_write`, so concurrent ``chatcli -p`` runs neither
lose each other's updates nor read a half-written file. A file that cannot be read as state is
started afresh (it holds nothing that cannot be learnt again).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

__all__ = ["Health", "State", "state_path"]

#: Weight of the newest response time in the moving average.
ALPHA = 0.3

_LOCK = threading.Lock()


def state_path() -> Path:
    """Where the shared state lives."""
    from chatcli import data_dir

    return data_dir() / "fallback" / "state.json"


@dataclass
class Health:
    """What is known of one entry."""

    errors: int = 0
    cooldown_until: float = 0.0
    last_check: float = 0.0
    last_failure: float = 0.0
    last_error: str = ""
    last_kind: str = ""
    response_ms: float | None = None
    requests: int = 0
    failures: int = 0

    @classmethod
    def load(cls, data: Any) -> Health:
        """A record from the file (unknown or mistyped fields are dropped)."""
        if not isinstance(data, dict):
            return cls()
        defaults = cls()
        values: dict[str, Any] = {}
        for name in (f.name for f in fields(cls)):
            value, default = data.get(name), getattr(defaults, name)
            if isinstance(value, bool):
                continue
            if isinstance(default, str) and isinstance(value, str):
                values[name] = value
            elif isinstance(default, int) and not isinstance(default, float) and isinstance(
                    value, int):
                values[name] = max(value, 0)
            elif (isinstance(default, float) or name == "response_ms") and isinstance(
                    value, int | float):
                values[name] = float(value)
        return cls(**values)

    def cooling(self, now: float) -> float:
        """Seconds of cooldown left (0 when none)."""
        return max(self.cooldown_until - now, 0.0)

    def unhealthy(self, now: float, threshold: int, recovery: float) -> bool:
        """Unavailable: ``threshold`` errors in a row, the last less than ``recovery`` ago."""
        return self.errors >= threshold and now - self.last_failure < recovery


class State:
    """The state file (``path``, default :func:`state_path`); ``clock`` is ``time.time``."""

    def __init__(self, path: Path | None = None, clock: Callable[[], float] = time.time
                 ) -> None:
        self.path = path or state_path()
        self.clock = clock

    # ------------------------------------------------------------------ file

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"entries": {}, "cursors": {}}
        if not isinstance(data, dict):
            return {"entries": {}, "cursors": {}}
        for key in ("entries", "cursors"):
            if not isinstance(data.get(key), dict):
                data[key] = {}
        return data

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The state for changing: locked across processes, written back on exit."""
        from chatcli import atomic_write

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK:
            fd = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
                data = self._read()
                yield data
                atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True), 0o600)
            finally:
                os.close(fd)

    # ------------------------------------------------------------------ reading

    def snapshot(self) -> dict[str, Health]:
        """Every entry's health, now (no lock: the file is replaced atomically)."""
        return {key: Health.load(value) for key, value in self._read()["entries"].items()}

    def health(self, key: str) -> Health:
        """One entry's health."""
        return self.snapshot().get(key) or Health()

    # ------------------------------------------------------------------ changing

    def next_cursor(self, group: str, size: int) -> int:
        """The round-robin position for ``group``'s next call (then moved on by one)."""
        with self._locked() as data:
            cursor = data["cursors"].get(group, 0)
            cursor = cursor if isinstance(cursor, int) and cursor >= 0 else 0
            data["cursors"][group] = (cursor + 1) % max(size, 1)
            return cursor % max(size, 1)

    def record_success(self, key: str, seconds: float | None) -> Health:
        """``key`` answered; ``seconds`` until its first event."""
        with self._locked() as data:
            health = Health.load(data["entries"].get(key))
            health.errors = 0
            health.cooldown_until = 0.0
            health.last_check = self.clock()
            health.requests += 1
            if seconds is not None:
                ms = seconds * 1000
                health.response_ms = ms if health.response_ms is None else (
                    ALPHA * ms + (1 - ALPHA) * health.response_ms)
            data["entries"][key] = asdict(health)
            return health

    def record_failure(self, key: str, error: str, kind: str,
                       cooldown: Callable[[int], float]) -> Health:
        """``key`` failed with ``error`` (one line) of class ``kind``; ``cooldown(errors)`` is
        how long it then cools down."""
        with self._locked() as data:
            health = Health.load(data["entries"].get(key))
            now = self.clock()
            health.errors += 1
            health.failures += 1
            health.requests += 1
            health.last_check = health.last_failure = now
            health.last_error, health.last_kind = error[:300], kind
            health.cooldown_until = now + cooldown(health.errors)
            data["entries"][key] = asdict(health)
            return health

    def reset(self) -> int:
        """Forget every entry's health and the pools' positions; returns how many entries."""
        with self._locked() as data:
            count = len(data["entries"])
            data["entries"], data["cursors"] = {}, {}
            return count
