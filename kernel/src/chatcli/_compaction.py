"""Compaction as a view: the log keeps every message; a :class:`Compaction` makes a range of what
the model sees stand for less (a summary, a trimmed copy, a note of what was dropped).

The view is the path from the root to the head with every active compaction applied in the order
they were made. A compaction names the first and last message of its range *as the view showed
them then* (an earlier compaction's replacement can be inside a later range), so it stays valid
for as long as both ends are on the view, and stops applying by itself when a rewind moves the
head before its range. Undoing the last compaction puts its range back.

Strategies (plugins, through ``register_compaction_strategies``) propose compactions for a
:class:`CompactionJob`; :func:`run_compaction` runs them in order until the view fits the budget.
This module only knows the contract and the bookkeeping; no strategy lives in the kernel.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

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

if TYPE_CHECKING:
    from chatcli._config import Settings

__all__ = [
    "Compaction",
    "CompactionJob",
    "CompactionReport",
    "CompactionStrategy",
    "TokenCounter",
    "applied_view",
    "apply_compactions",
    "check_compaction",
    "describe_messages",
    "run_compaction",
]

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


def check_compaction(view: list[Message], compaction: Compaction) -> str | None:
    """Why ``compaction`` cannot apply to ``view`` (None when it can): its ends are not on the
    view in order, it drops a pinned message, or its replacement separates a tool call from its
    result."""
    ids = [m.id for m in view]
    if compaction.first not in ids or compaction.last not in ids:
        return "its range is not on the view"
    start, end = ids.index(compaction.first), ids.index(compaction.last)
    if end < start:
        return "its range ends before it starts"
    kept = {m.id: m for m in compaction.replacement}
    for message in view[start:end + 1]:
        if message.pinned and kept.get(message.id) != message:
            return f"it changes the pinned message {message.id}"
    if not _pairs_hold(apply_compactions(view, [compaction])):
        return "it separates a tool call from its result"
    return None


def _pairs_hold(view: Sequence[Message]) -> bool:
    """Every tool call in ``view`` is answered by the next message, and every result answers a
    call of the message before it."""
    for index, message in enumerate(view):
        results = {r.call_id for r in message.tool_results}
        if results:
            before = view[index - 1] if index else None
            if before is None or not results <= {c.id for c in before.tool_calls}:
                return False
        calls = {c.id for c in message.tool_calls}
        if calls:
            following = view[index + 1] if index + 1 < len(view) else None
            if following is None:
                continue  # the last answer's calls are still running
            if not calls <= {r.call_id for r in following.tool_results}:
                return False
    return True


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


@dataclass
class CompactionJob:
    """What a strategy is asked to do: make ``view`` fit ``budget`` tokens.

    - ``view``: the messages the model would be sent now (compactions applied), oldest first.
    - ``budget``: the tokens the whole view should fit in after compaction (the target, below
      the trigger so the next turns have room); ``system_tokens`` is what the system prompt and
      tools take besides.
    - ``keep_recent``: how many of the newest messages stay verbatim (the cut never separates a
      tool call from its result: move it earlier rather than later).
    - ``instruction``: what the person asked of this compaction (``/compact keep the API``).
    - ``reason``: ``"threshold"`` (the view passed the trigger), ``"manual"`` (``/compact``),
      ``"overflow"`` (the provider said the request is too long).
    - ``count(messages)``: the corrected token estimate of some messages.
    - ``summarize(messages, instructions)``: asks the model in use to write text about
      ``messages`` following ``instructions`` (no tools, a time limit of ``compact_timeout``);
      raises :class:`chatcli.ChatcliError` on failure or timeout.
    - ``settings``: the session's settings (strategies read their own table from them).

    A strategy returns the compactions it proposes (each checked with
    :func:`check_compaction` against the view as the earlier ones left it; one that fails the
    check is dropped and reported), or an empty list when it has nothing to do.
    """

    view: list[Message]
    budget: int
    keep_recent: int
    count: Callable[[Sequence[Message]], int]
    summarize: Callable[[Sequence[Message], str], str]
    settings: Settings
    reason: str = "threshold"
    instruction: str | None = None
    system_tokens: int = 0
    #: notes a strategy leaves for the person (shown after the compaction)
    notes: list[str] = field(default_factory=list)

    def protected(self) -> set[str]:
        """Ids the strategies must keep verbatim: pinned messages and the recent ones."""
        recent = self.view[-self.keep_recent:] if self.keep_recent else []
        return {m.id for m in self.view if m.pinned} | {m.id for m in recent}

    def tokens(self) -> int:
        """The estimate of the whole request: the view and the system prompt."""
        return self.count(self.view) + self.system_tokens


class CompactionStrategy(NamedTuple):
    """A compaction strategy as a plugin registers it.

    ``run(job)`` returns a list of :class:`Compaction` for the job's view (see
    :class:`CompactionJob`). Strategies run in ``order`` (lower first; the three built-in ones use
    100 trim, 200 summarise, 300 truncate) until the view fits the budget. ``uses_model`` says
    that ``run`` calls ``job.summarize`` (so a failure of the model falls through to the next
    strategy).
    """

    name: str
    run: Callable[[CompactionJob], list[Compaction]]
    order: int = 100
    description: str = ""
    uses_model: bool = False


@dataclass
class CompactionReport:
    """What one compaction run did: tokens before and after, the compactions it made, and one
    line per strategy that failed or refused (``notes``)."""

    tokens_before: int
    tokens_after: int
    compactions: list[Compaction] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str = "threshold"

    @property
    def changed(self) -> bool:
        return bool(self.compactions)

    def line(self) -> str:
        """One line for the person."""
        if not self.compactions:
            why = f" ({self.notes[-1]})" if self.notes else ""
            return f"nothing to compact{why}"
        names = ", ".join(dict.fromkeys(c.strategy for c in self.compactions))
        return (f"compacted with {names}: ~{self.tokens_before:,} → ~{self.tokens_after:,} "
                f"tokens")


def run_compaction(
    strategies: Sequence[CompactionStrategy],
    job: CompactionJob,
    apply: Callable[[Compaction], None],
    *,
    warn: Callable[[str], None] = lambda line: None,
    before: Callable[[str], None] = lambda name: None,
) -> CompactionReport:
    """Run ``strategies`` in order on ``job`` until its view fits ``job.budget``.

    Each proposed compaction is checked against the current view, given to ``apply`` (which
    records it on the conversation) and the view is updated; ``before(name)`` is told before
    each strategy runs. A strategy that raises is reported
    in one line and the next one runs. For a manual compaction every strategy runs once even if
    the view already fits (the person asked for it), the last resort (order ≥ 300) only when the
    view still does not fit.
    """
    report = CompactionReport(tokens_before=job.tokens(), tokens_after=job.tokens(),
                              reason=job.reason)
    for strategy in sorted(strategies, key=lambda s: (s.order, s.name)):
        fits = job.tokens() <= job.budget
        if fits and (job.reason != "manual" or strategy.order >= 300):
            break
        before(strategy.name)
        try:
            proposed = strategy.run(job)
        except Exception as err:  # a strategy's failure must not lose the turn
            line = f"{strategy.name} failed: {_short(err)}"
            report.notes.append(line)
            warn(line)
            continue
        for compaction in proposed or []:
            why = check_compaction(job.view, compaction)
            if why is not None:
                line = f"{strategy.name}: a compaction was refused ({why})"
                report.notes.append(line)
                warn(line)
                continue
            compaction.strategy = compaction.strategy or strategy.name
            compaction.instruction = compaction.instruction or job.instruction
            compaction.tokens_before = job.tokens()
            job.view = apply_compactions(job.view, [compaction])
            compaction.tokens_after = job.tokens()
            apply(compaction)
            report.compactions.append(compaction)
        report.notes.extend(job.notes)
        job.notes = []
    report.tokens_after = job.tokens()
    return report


def _short(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:200]


def describe_messages(messages: Sequence[Message], limit: int = 400) -> str:
    """A compact plain-text rendering of ``messages`` (role, text, calls, results cut to
    ``limit`` characters each), for summaries and archives."""
    lines = []
    for message in messages:
        role = str(message.role)  # a StrEnum: its value
        if message.text:
            lines.append(f"[{role}] {message.text[:limit]}")
        for call in message.tool_calls:
            lines.append(f"[{role} calls {call.name}] {str(call.arguments)[:limit]}")
        for result in message.tool_results:
            flag = " (error)" if result.is_error else ""
            lines.append(f"[result of {result.name}{flag}] {result.content[:limit]}")
    return "\n".join(lines)
