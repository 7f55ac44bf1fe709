"""The compaction records of chatcli-plugin-records (``register_compaction_strategies`` and
``compact_view``, declared by chatcli-compaction): imported when first named, so a run that
never compacts does not make these classes. Import them from :mod:`chatcli_plugin_records`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Compaction, Message, Settings

__all__ = ["CompactionJob", "CompactionReport", "CompactionStrategy", "check_compaction",
           "describe_messages"]

_, ngettext = translation(__name__)


@dataclass
class CompactionJob:
    """What a compaction strategy is asked to do: make ``view`` fit ``budget`` tokens
    (``register_compaction_strategies``, declared by chatcli-compaction).

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
    :func:`check_compaction` against the view as the earlier ones left it; one that
    fails the check is dropped and reported), or an empty list when it has nothing to do.
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
    """A compaction strategy as a plugin registers it (``register_compaction_strategies``,
    declared by chatcli-compaction).

    ``run(job)`` returns a list of :class:`chatcli.Compaction` for the job's view (see
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
    """What one compaction run did (``compact_view`` returns it): tokens before and after, the
    compactions it made, and one line per strategy that failed or refused (``notes``)."""

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
            if self.notes:
                return _("nothing to compact ({note})").format(note=self.notes[-1])
            return _("nothing to compact")
        names = ", ".join(dict.fromkeys(c.strategy for c in self.compactions))
        return _("compacted with {names}: ~{before:,} → ~{after:,} tokens").format(
            names=names, before=self.tokens_before, after=self.tokens_after)


def describe_messages(messages: Sequence[Message], limit: int = 400) -> str:
    """A compact plain-text rendering of ``messages`` (role, text, calls, results cut to
    ``limit`` characters each): what chatcli-compaction's summaries read and chatcli-context's
    ``history`` pull shows of a compaction's originals."""
    lines = []
    for message in messages:
        role = str(message.role)  # a StrEnum: its value
        if message.text:
            lines.append(f"[{role}] {message.text[:limit]}")
        for call in message.tool_calls:
            # untranslated: the model that summarizes reads it
            lines.append(f"[{role} calls {call.name}] {str(call.arguments)[:limit]}")
        for result in message.tool_results:
            flag = " (error)" if result.is_error else ""
            lines.append(f"[result of {result.name}{flag}] {result.content[:limit]}")
    return "\n".join(lines)


def check_compaction(view: list[Message], compaction: Compaction) -> str | None:
    """Why ``compaction`` cannot apply to ``view`` (None when it can): its ends are not on the
    view in order, it drops a pinned message, or its replacement separates a tool call from its
    result. chatcli-compaction checks every compaction a strategy proposes with it
    (``chatcli.check_compaction`` until kernel 2.0)."""
    from chatcli import apply_compactions

    ids = [m.id for m in view]
    if compaction.first not in ids or compaction.last not in ids:
        return _("its range is not on the view")
    start, end = ids.index(compaction.first), ids.index(compaction.last)
    if end < start:
        return _("its range ends before it starts")
    kept = {m.id: m for m in compaction.replacement}
    for message in view[start:end + 1]:
        if message.pinned and kept.get(message.id) != message:
            return _("it changes the pinned message {id}").format(id=message.id)
    if not _pairs_hold(apply_compactions(view, [compaction])):
        return _("it separates a tool call from its result")
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
