"""Where a compaction may cut the view: the recent messages stay, leading pinned material stays
in front, and no cut separates a tool call from its results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from chatcli import Message

__all__ = ["Middle", "kept_in_range", "middle", "pair_safe_end", "recent_start"]


class Middle(NamedTuple):
    """The part of the view a compaction may replace: ``view[start:end]``."""

    start: int
    end: int

    def __bool__(self) -> bool:
        return self.end > self.start


def recent_start(view: Sequence[Message], keep_recent: int) -> int:
    """Where the verbatim tail of ``view`` begins: ``keep_recent`` messages from the end (at
    least the last one), moved earlier while it would start at tool results (their call must
    stay with them)."""
    cut = max(len(view) - max(keep_recent, 1), 0)
    while cut > 0 and view[cut].tool_results:
        cut -= 1
    return cut


def middle(view: Sequence[Message], keep_recent: int) -> Middle:
    """The range between the leading pinned messages (bootstrap material stays first) and the
    recent messages."""
    end = recent_start(view, keep_recent)
    start = 0
    while start < end and (view[start].pinned or view[start].tool_results):
        start += 1  # results at the start belong to a pinned call before them
    while end > start and view[end - 1].pinned:
        end -= 1
    return Middle(start, pair_safe_end(view, start, end))


def pair_safe_end(view: Sequence[Message], start: int, end: int) -> int:
    """``end`` moved earlier until ``view[start:end]`` does not end with a call whose results
    come after it."""
    while end > start and end < len(view) and view[end].tool_results:
        end -= 1
    return end


def kept_in_range(view: Sequence[Message], start: int, end: int) -> list[Message]:
    """The messages of ``view[start:end]`` a compaction must keep unchanged: the pinned ones,
    each with the partner that pairs its tool calls or results (so both stay together), in
    their order."""
    keep: set[int] = set()
    for index in range(start, end):
        if not view[index].pinned:
            continue
        keep.add(index)
        if view[index].tool_calls and index + 1 < end and view[index + 1].tool_results:
            keep.add(index + 1)
        if view[index].tool_results and index - 1 >= start and view[index - 1].tool_calls:
            keep.add(index - 1)
    return [view[i] for i in sorted(keep)]
