"""The text compaction leaves in the view: the call that brings originals back, the head and
tail of a long tool result, the one line an old result shrinks to — and the parser that reads
them back (so a result is aged once per level, and a one-line copy of a head-and-tail copy
still points at the full original).

Every form names the exact call: ``context_pull {"kind": "history", "id": "cmp_…"}`` (served by
the context plugin from ``Conversation.archived``).
"""

from __future__ import annotations

import json
from typing import NamedTuple

__all__ = [
    "CUT_MARK",
    "Cut",
    "find_citation",
    "find_cut",
    "first_line",
    "head_and_tail",
    "is_one_line",
    "one_line",
    "pull_call",
]

#: What starts the note in the middle of a head-and-tail copy.
CUT_MARK = "[… "
_CUT_WORDS = " characters cut; the full text: "
_PULL = "context_pull "
_ONE_LINE = "[result of "


def pull_call(compaction_id: str) -> str:
    """The exact call that brings back what compaction ``compaction_id`` stands for."""
    return _PULL + json.dumps({"kind": "history", "id": compaction_id})


class Cut(NamedTuple):
    """What a head-and-tail note says: the characters it cut and the compaction to pull."""

    chars: int
    compaction_id: str


def find_citation(text: str) -> str | None:
    """The compaction id of the last ``context_pull {"kind": "history", "id": …}`` in ``text``
    (None when there is none). Never raises."""
    at = len(text)
    while True:
        at = text.rfind(_PULL, 0, at)
        if at < 0:
            return None
        found = _read_call(text, at + len(_PULL))
        if found is not None:
            return found
        if at == 0:
            return None


def _read_call(text: str, start: int) -> str | None:
    """The id of the history call whose JSON object starts at ``text[start]``."""
    if not text.startswith("{", start):
        return None
    end = text.find("}", start)
    if end < 0:
        return None
    try:
        value = json.loads(text[start:end + 1])
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("kind") != "history":
        return None
    found = value.get("id")
    return found if isinstance(found, str) and found else None


def head_and_tail(text: str, keep: int, compaction_id: str) -> str:
    """``text`` cut to about ``keep`` characters — two thirds from its head, one third from its
    tail, each at a line end when one is near — with a note saying how much was cut and the call
    that brings the whole text back. ``text`` is returned unchanged when it is short enough."""
    if len(text) <= keep:
        return text
    head = _at_line_end(text[: keep * 2 // 3], from_end=False)
    tail = _at_line_end(text[len(text) - keep // 3:], from_end=True)
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n{note(cut, compaction_id)}\n{tail}"


def note(cut: int, compaction_id: str) -> str:
    """The note in the middle of a head-and-tail copy."""
    return f"{CUT_MARK}{cut:,}{_CUT_WORDS}{pull_call(compaction_id)} …]"


def _at_line_end(piece: str, *, from_end: bool) -> str:
    """``piece`` shortened to a whole line when a line break is within its last (first)
    fifth."""
    if from_end:
        at = piece.find("\n")
        return piece[at + 1:] if 0 <= at < len(piece) // 5 else piece
    at = piece.rfind("\n")
    return piece[:at] if at >= len(piece) * 4 // 5 else piece


def find_cut(text: str) -> Cut | None:
    """The note of a head-and-tail copy made by :func:`head_and_tail` (None when ``text`` has
    none). Never raises."""
    at = len(text)
    while True:
        at = text.rfind(CUT_MARK, 0, at)
        if at < 0:
            return None
        start = at + len(CUT_MARK)
        words = text.find(_CUT_WORDS, start)
        if words > start:
            digits = text[start:words].replace(",", "")
            call = words + len(_CUT_WORDS)
            if digits.isdigit() and digits.isascii() and text.startswith(_PULL, call):
                found = _read_call(text, call + len(_PULL))
                if found is not None:
                    return Cut(int(digits), found)
        if at == 0:
            return None


def first_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, whitespace folded, cut to ``limit`` characters."""
    for line in text.splitlines():
        folded = " ".join(line.split())
        if folded:
            return folded if len(folded) <= limit else folded[: limit - 1] + "…"
    return ""


def one_line(tool: str, text: str, chars: int, turns: int, compaction_id: str) -> str:
    """The single line an old tool result shrinks to: which tool, how it began, how long it
    was, how old it is, and the call that brings it back."""
    start = first_line(text, 60).replace('"', "'")
    began = f' began "{start}",' if start else ""
    return (f"{_ONE_LINE}{tool} from {turns} turns ago:{began} {chars:,} characters — the full "
            f"result: {pull_call(compaction_id)}]")


def is_one_line(text: str) -> bool:
    """Whether ``text`` is already the one line :func:`one_line` writes."""
    return text.startswith(_ONE_LINE) and "\n" not in text and find_citation(text) is not None
