"""Noticing that a small model has fallen into a loop, so its answer can be stopped.

SmolLM2-135M, asked something it cannot answer, often repeats a sentence or a line until
``max_tokens``: "I'm just a little chatbot. I'm just a little chatbot. …". :class:`RepetitionGuard`
reads the answer as it streams and says when it loops, by two rules:

- **a repeating tail**: the end of the text is one piece of 4 to 512 characters written at least
  three times in a row, over at least 200 characters (so a short run of dashes or a table rule is
  not a loop, but the sentence above, seven times, is);
- **a repeated line**: the same line (ignoring case, spacing and a list marker or number in front)
  of at least 12 characters, outside code blocks, for the fourth time in one answer.

Pure Python, no llama.cpp: the provider feeds it each piece of text and stops generating when
:meth:`RepetitionGuard.feed` returns True.
"""

from __future__ import annotations

import re

__all__ = ["LINE_REPEATS", "MIN_SPAN", "RepetitionGuard", "repeating_tail"]

#: The shortest and longest repeated piece the tail rule looks for (characters).
MIN_UNIT, MAX_UNIT = 4, 512
#: Copies in a row of one piece that make a loop (with at least MIN_SPAN characters in all).
TAIL_REPEATS = 3
MIN_SPAN = 200
#: The times one line may appear; one more is a loop.
LINE_REPEATS = 3
#: Lines shorter than this (after normalising) are never counted: "}", "---", "Example:".
MIN_LINE = 12
#: How much of the answer's end the tail rule reads.
_WINDOW = MAX_UNIT * TAIL_REPEATS + MIN_SPAN

_MARKER = re.compile(r"^(?:[-*+>•]|\d+[.)]|#+)\s+")
_SPACES = re.compile(r"\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")


def repeating_tail(text: str) -> int | None:
    """The length of the piece the end of ``text`` repeats (see the module), or None."""
    size = len(text)
    last = text[-1:] if text else ""
    for unit in range(MIN_UNIT, min(MAX_UNIT, size // TAIL_REPEATS) + 1):
        if text[-1 - unit] != last:  # the cheap test first: most lengths fail here
            continue
        span = max(unit * TAIL_REPEATS, MIN_SPAN)
        if span > size:
            continue
        tail = text[-span:]
        if tail[unit:] == tail[:-unit]:  # the tail has period ``unit``
            return unit
    return None


def _normalised(line: str) -> str:
    return _SPACES.sub(" ", _MARKER.sub("", line.strip())).lower()


class RepetitionGuard:
    """Reads an answer as it streams; :meth:`feed` is True once it loops."""

    def __init__(self) -> None:
        self._tail = ""
        self._line = ""
        self._in_code = False
        self._seen: dict[str, int] = {}
        #: which rule fired ("a repeating tail", "a repeated line"), once one has
        self.reason: str | None = None

    def feed(self, text: str) -> bool:
        """Add the next piece of the answer; True when the answer is looping."""
        if self.reason is not None:
            return True
        if not text:
            return False
        self._tail = (self._tail + text)[-_WINDOW:]
        if repeating_tail(self._tail) is not None:
            self.reason = "a repeating tail"
            return True
        *done, self._line = (self._line + text).split("\n")
        for line in done:
            if self._counts(line):
                self.reason = "a repeated line"
                return True
        return False

    def _counts(self, line: str) -> bool:
        """Count a finished line; True when it is there once too often."""
        if _FENCE.match(line):
            self._in_code = not self._in_code
            return False
        key = _normalised(line)
        if self._in_code or len(key) < MIN_LINE:
            return False
        self._seen[key] = count = self._seen.get(key, 0) + 1
        return count > LINE_REPEATS
