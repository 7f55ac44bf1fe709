"""A provider's stream that the user can stop at once (Ctrl+C while the service is silent)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["CancellableStream"]


class CancellableStream:
    """A provider's stream with ``cancel()`` (see :meth:`chatcli.Provider.stream`; the engine
    calls ``cancel()`` from another thread when the user interrupts): ``events`` are the
    answer's events, ``stop`` what ends the wait behind them at once (kill the subprocess, close
    the socket). ``cancel()`` runs ``stop`` once, ignoring its failure (what it stops may be gone
    already); closing the stream closes ``events``."""

    def __init__(self, events: Iterator[Any], stop: Callable[[], None]) -> None:
        self._events, self._stop = events, stop
        self._cancelled = False

    def __iter__(self) -> CancellableStream:
        return self

    def __next__(self) -> Any:
        return next(self._events)

    def close(self) -> None:
        """Close the events (a generator runs its ``finally`` blocks)."""
        close = getattr(self._events, "close", None)
        if close is not None:
            close()

    def cancel(self) -> None:
        """Stop the answer now, from any thread."""
        if self._cancelled:
            return
        self._cancelled = True
        with contextlib.suppress(Exception):
            self._stop()
