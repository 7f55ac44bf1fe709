"""Compaction as a view: the log keeps every message; a :class:`Compaction` makes a range of what
the model sees stand for less (a summary, a trimmed copy, a note of what was dropped).

The view is the path from the root to the head with every active compaction applied in the order
they were made. A compaction names the first and last message of its range *as the view showed
them then* (an earlier compaction's replacement can be inside a later range), so it stays valid
for as long as both ends are on the view, and stops applying by itself when a rewind moves the
head before its range. Undoing the last compaction puts its range back.

Who makes compactions is a plugin's business: the kernel calls ``compact_view`` (chatcli-compaction
runs its strategies there) and records what it returns. This module only knows the record, the
bookkeeping and the token estimate; no strategy, job, report or check of a proposed compaction
(``chatcli_plugin_records.check_compaction``) lives in the kernel.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Protocol

from pydantic import BaseModel, Field

from chatcli._types import (
    ImagePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    _new_list,
    new_id,
)

__all__ = ["Compaction", "CompactionOutcome", "TokenCounter", "applied_view", "apply_compactions"]

#: Characters per token of the local estimate before any provider count corrects it.
CHARS_PER_TOKEN = 4.0
#: Tokens an image part is counted as.
IMAGE_TOKENS = 1_000


class Compaction(BaseModel):
    """One compaction of the view: the messages from ``first`` to ``last`` (ids as the view
    showed them when it was made, both included) stand replaced by ``replacement``.

    ``replacement`` holds new messages (their own ids; ``pinned`` messages of the range must be
    among them unchanged). ``strategy`` names who made it, ``instruction`` what the person asked
    (``/compact keep the API design``), ``tokens_before``/``tokens_after`` the estimate of the
    whole view around it, ``note`` a line for the person ("summarised 42 messages").
    """

    id: str = Field(default_factory=lambda: new_id("cmp_"))
    first: str
    last: str
    replacement: list[Message] = Field(default_factory=_new_list)
    strategy: str = ""
    instruction: str | None = None
    note: str = ""
    tokens_before: int = 0
    tokens_after: int = 0
    created_at: float = Field(default_factory=time.time)


def apply_compactions(path: list[Message], compactions: Iterable[Compaction]
                      ) -> list[Message]:
    """``path`` with each compaction applied in order; one whose ends are not both on the view
    (in order) is skipped."""
    return applied_view(path, compactions)[0]


def applied_view(path: list[Message], compactions: Iterable[Compaction]
                 ) -> tuple[list[Message], list[bool]]:
    """``path`` with the compactions applied in order, and for each whether it applied.

    The view is a linked list over message ids, so applying costs the length of each range
    and replacement, not the length of the view: a long session with hundreds of compactions
    still builds its view in one pass.
    """
    compactions = list(compactions)
    if not compactions:
        return path, []
    head, tail = "\x00head", "\x00tail"
    after: dict[str, str] = {}
    before: dict[str, str] = {}
    message_of: dict[str, Message] = {}
    previous = head
    for message in path:
        if message.id in message_of:  # an id twice on the path cannot be linked; do nothing
            return path, [False] * len(compactions)
        message_of[message.id] = message
        after[previous], before[message.id] = message.id, previous
        previous = message.id
    after[previous], before[tail] = tail, previous
    applied: list[bool] = []
    for compaction in compactions:
        first, last = compaction.first, compaction.last
        if first not in message_of or last not in message_of:
            applied.append(False)
            continue
        span = [first]
        while span[-1] != last and after[span[-1]] != tail:
            span.append(after[span[-1]])
        if span[-1] != last:  # ``last`` comes before ``first``
            applied.append(False)
            continue
        left, right = before[first], after[last]
        for gone in span:
            del message_of[gone], after[gone], before[gone]
        cursor = left
        for message in compaction.replacement:
            if message.id in message_of:  # already elsewhere on the view: keep it there
                continue
            message_of[message.id] = message
            after[cursor], before[message.id] = message.id, cursor
            cursor = message.id
        after[cursor], before[right] = right, cursor
        applied.append(True)
    view: list[Message] = []
    cursor = after[head]
    while cursor != tail:
        view.append(message_of[cursor])
        cursor = after[cursor]
    return view, applied


class TokenCounter:
    """Estimates tokens locally (characters / 4, images 1,000) and corrects the estimate with what
    the provider counted on the last call (:meth:`observe`). Per-message estimates are cached by
    message id, so estimating a long view again costs only its new messages."""

    def __init__(self) -> None:
        self.ratio = 1.0
        #: the provider's count of the last request's input and the local estimate of it
        self.last_counted: int | None = None
        self.last_estimated: int | None = None
        self._cache: dict[str, tuple[Message, int]] = {}

    def raw_message(self, message: Message) -> int:
        hit = self._cache.get(message.id)
        if hit is not None and hit[0] is message:
            return hit[1]
        chars = 0
        images = 0
        for part in message.parts:
            if isinstance(part, TextPart):
                chars += len(part.text)
            elif isinstance(part, ToolCallPart):
                chars += len(part.name) + len(part.raw_arguments or "") + len(
                    str(part.arguments)) + 16
            elif isinstance(part, ToolResultPart):
                chars += len(part.content) + 16
            elif isinstance(part, ImagePart):
                images += 1
        tokens = int(chars / CHARS_PER_TOKEN) + 4 + images * IMAGE_TOKENS
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[message.id] = (message, tokens)
        return tokens

    def raw(self, messages: Iterable[Message], text: str = "") -> int:
        """The uncorrected estimate of ``messages`` and extra ``text`` (a system prompt)."""
        return sum(self.raw_message(m) for m in messages) + int(len(text) / CHARS_PER_TOKEN)

    def estimate(self, messages: Iterable[Message], text: str = "") -> int:
        """Tokens of ``messages`` and ``text`` as the provider would count them (corrected)."""
        return int(self.raw(messages, text) * self.ratio)

    def text(self, text: str) -> int:
        """Tokens of a piece of text (corrected)."""
        return int(len(text) / CHARS_PER_TOKEN * self.ratio)

    def observe(self, estimated_raw: int, counted: int) -> None:
        """The provider counted ``counted`` input tokens for a request estimated at
        ``estimated_raw``: later estimates use the ratio (kept between 0.25 and 4)."""
        if counted <= 0 or estimated_raw <= 0:
            return
        self.last_counted, self.last_estimated = counted, estimated_raw
        self.ratio = min(4.0, max(0.25, counted / estimated_raw))


class CompactionOutcome(Protocol):
    """What ``compact_view`` returns (chatcli-compaction's report): whether the view changed,
    and one line for the person."""

    @property
    def changed(self) -> bool: ...

    def line(self) -> str: ...

