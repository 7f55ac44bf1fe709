"""One question to the person at a time, whichever thread asks: parallel workers (and the
concurrent tool calls of one answer) may each need an approval at the same moment, and a front
end (the chat, a served session, an editor) asks them one after the other in the order they came.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

__all__ = ["QuestionSlot"]


class QuestionSlot:
    """The question slot: one thread asks at a time (again and again, re-entrantly), the others
    wait in the order they came; a waiting thread may give up (its turn was stopped)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._waiting: deque[object] = deque()
        self._owner: int | None = None
        self._depth = 0

    def take(self, give_up: Callable[[], bool]) -> bool:
        """Wait for the slot (True), or until ``give_up()`` (False; checked every 50 ms)."""
        me = threading.get_ident()
        with self._changed:
            if self._owner == me:
                self._depth += 1
                return True
            ticket = object()
            self._waiting.append(ticket)
            try:
                while self._owner is not None or self._waiting[0] is not ticket:
                    if give_up():
                        return False
                    self._changed.wait(0.05)
                self._owner, self._depth = me, 1
                return True
            finally:
                self._waiting.remove(ticket)
                self._changed.notify_all()

    def give_back(self) -> None:
        """Leave the slot (the last of a thread's nested takes frees it for the next)."""
        with self._changed:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._changed.notify_all()
