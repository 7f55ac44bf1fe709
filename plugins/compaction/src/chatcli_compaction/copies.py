"""Injected copies: long blocks of text (a file attached again, the same piped input, a tool
result read twice) that come again later in the view. The newest copy stays; each earlier one
is found as a span of whole lines (difflib's longest matching run of lines), so the text around
it (the question typed with the file) stays too. Never raises."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher

__all__ = ["Copy", "Text", "later_copies", "shared_block"]


@dataclass
class Text:
    """One text of the view that may hold a copy: its key (message id, part index), where it
    is (for the note naming it), and its lines (without their line breaks, for comparing)."""

    key: tuple[str, int]
    text: str
    where: str
    lines: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = self.text.splitlines(keepends=True)
        self.keys = [line.rstrip("\r\n") for line in self.lines]


@dataclass(frozen=True)
class Copy:
    """``text[start:end]`` comes again, in ``where``."""

    start: int
    end: int
    where: str


def shared_block(text: Text, other: Text, least: int) -> tuple[int, int] | None:
    """The longest run of whole lines of ``text`` that ``other`` holds verbatim, as (start,
    end) in ``text``, when it is at least ``least`` characters; else None."""
    if len(text.text) < least or len(other.text) < least:
        return None
    matcher = SequenceMatcher(None, text.keys, other.keys)
    match = matcher.find_longest_match(0, len(text.keys), 0, len(other.keys))
    if match.size == 0:
        return None
    start = sum(len(line) for line in text.lines[:match.a])
    end = start + sum(len(line) for line in text.lines[match.a:match.a + match.size])
    if end - start < least or _lines(text.text[start:end]).rstrip("\n") not in _lines(
            other.text):
        return None
    return start, end


def _lines(text: str) -> str:
    """``text`` with every line break as ``\n`` (the lines were compared without them)."""
    return "\n".join(text.splitlines())


#: Lines shorter than this are too common to point at a copy (blank lines, braces).
_TELLING = 8


def later_copies(texts: list[Text], least: int) -> dict[tuple[str, int], Copy]:
    """For each of ``texts`` (oldest first) holding a block of at least ``least`` characters
    that a later one holds too: the block and the newest text holding it.

    Only pairs sharing enough telling lines are compared (an index of lines to texts), so a
    long view of unrelated results costs one pass over its lines."""
    index: dict[str, set[int]] = {}
    for number, text in enumerate(texts):
        for key in set(text.keys):
            if len(key) >= _TELLING:
                index.setdefault(key, set()).add(number)
    found: dict[tuple[str, int], Copy] = {}
    for number, text in enumerate(texts):
        if len(text.text) < least:
            continue
        shared: dict[int, int] = {}
        for key, times in Counter(text.keys).items():
            if len(key) >= _TELLING:
                for other in index.get(key, ()):
                    if other > number:
                        shared[other] = shared.get(other, 0) + len(key) * times
        for other in sorted((o for o, chars in shared.items() if chars >= least // 4),
                            reverse=True):  # the newest first
            span = shared_block(text, texts[other], least)
            if span is not None:
                found[text.key] = Copy(span[0], span[1], texts[other].where)
                break
    return found
