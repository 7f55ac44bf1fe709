"""The ``trim`` strategy (order 100, no model call): near-lossless reductions, each recorded as
a compaction of one message, so every shortened message can be pulled back whole.

- reasoning blocks (``<think>``, ``<thinking>``, ``<reasoning>``) leave assistant answers;
- verbose markup in tool outputs is made compact (comments, whitespace between tags);
- a message identical to the one before it is dropped;
- injected copies: a block of at least ``injected_min_chars`` (whole lines of a user text or a
  tool result) that comes again later is replaced by a note naming where its newest copy is —
  the newest copy stays, and so does the text around the block;
- tool results age: older than ``age_after`` user turns (or longer than ``tool_output_max``) they
  shrink to head and tail, older than ``age_one_line_after`` to one line; both cite the
  ``context_pull`` call that brings the full result back.

Roles, tool call ids and the pairing of calls with results are kept; pinned and recent messages
(``job.protected()``) are never touched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import Compaction, Message, Role, TextPart, ToolResultPart, new_id, translation

from chatcli_compaction.copies import Copy, Text
from chatcli_compaction.copies import later_copies as find_copies
from chatcli_compaction.markers import (
    Cut,
    find_cut,
    first_line,
    head_and_tail,
    is_one_line,
    note,
    one_line,
    pull_call,
)
from chatcli_compaction.settings import CompactionConfig, read_config
from chatcli_compaction.text import compact_markup, strip_reasoning

if TYPE_CHECKING:
    from chatcli_plugin_records import CompactionJob

__all__ = ["run", "trim_view", "user_turns_after"]

_, ngettext = translation(__name__)

#: A reduction smaller than this (characters) is not worth a compaction of its own.
MIN_SAVING = 80


def run(job: CompactionJob) -> list[Compaction]:
    """The compactions trimming proposes for ``job.view`` (one per shortened message)."""
    config = read_config(job.settings.plugin_table("compaction"))
    if "trim" not in config.strategies:
        return []
    compactions = trim_view(job.view, job.protected(), config)
    if compactions:
        job.notes.append(ngettext("trim: shortened {count} message",
                                  "trim: shortened {count} messages",
                                  len(compactions)).format(count=len(compactions)))
    return compactions


def user_turns_after(view: list[Message]) -> list[int]:
    """For each message of ``view``, how many of the person's messages come after it."""
    ages = [0] * len(view)
    count = 0
    for index in range(len(view) - 1, -1, -1):
        ages[index] = count
        message = view[index]
        if message.role == Role.USER and not message.tool_results:
            count += 1
    return ages


def trim_view(view: list[Message], protected: set[str], config: CompactionConfig
              ) -> list[Compaction]:
    """One compaction per message of ``view`` that trimming shortens (none for protected
    ones)."""
    ages = user_turns_after(view)
    later = later_copies(view, config.injected_min_chars)
    compactions: list[Compaction] = []
    previous: Message | None = None
    for index, message in enumerate(view):
        if message.id not in protected:
            compaction = _trim_message(message, previous, ages[index], later, config)
            if compaction is not None:
                compactions.append(compaction)
        previous = message
    return compactions


def later_copies(view: list[Message], least: int) -> dict[tuple[str, int], Copy]:
    """The parts (user texts and tool results) holding a block of at least ``least``
    characters that comes again later in ``view``: the block, and where its newest copy is."""
    texts: list[Text] = []
    for message in view:
        for index, part in enumerate(message.parts):
            if isinstance(part, TextPart) and message.role == Role.USER:
                text, where = part.text, f"a later user message (“{first_line(part.text, 50)}”)"
            elif isinstance(part, ToolResultPart):
                text, where = part.content, (f"the later result of {part.name} "
                                             f"(“{first_line(part.content, 50)}”)")
            else:
                continue
            if len(text) >= least:
                texts.append(Text((message.id, index), text, where))
    return find_copies(texts, least)


def _same(a: Message, b: Message) -> bool:
    """Two plain text messages of one role with the same text."""
    plain = not (a.tool_calls or a.tool_results or b.tool_calls or b.tool_results)
    no_images = all(isinstance(p, TextPart) for p in (*a.parts, *b.parts))
    return plain and no_images and a.role == b.role and bool(a.text) and a.text == b.text


def _trim_message(message: Message, previous: Message | None, age: int,
                  later: dict[tuple[str, int], Copy], config: CompactionConfig
                  ) -> Compaction | None:
    """A compaction replacing ``message`` by a trimmed copy (or by nothing, for a duplicate), or
    None when trimming would not change it."""
    compaction_id = new_id("cmp_")
    if previous is not None and _same(message, previous):
        return Compaction(id=compaction_id, first=message.id, last=message.id, replacement=[],
                          note="dropped a duplicate of the message before it")
    parts: list[Any] = []
    notes: list[str] = []
    for index, part in enumerate(message.parts):
        where = later.get((message.id, index))
        parts.append(_trim_part(message, part, age, where, config, compaction_id, notes))
    saved = _length(message.parts) - _length(parts)
    if saved < MIN_SAVING or not notes:
        return None
    copy = message.model_copy(update={"id": new_id("msg_"), "parts": parts})
    return Compaction(id=compaction_id, first=message.id, last=message.id, replacement=[copy],
                      note=f"{', '.join(dict.fromkeys(notes))} ({saved:,} characters fewer)")


def _trim_part(message: Message, part: Any, age: int, later: Copy | None,
               config: CompactionConfig, compaction_id: str, notes: list[str]) -> Any:
    """``part`` trimmed (``later``: where its text comes again, if it does)."""
    if isinstance(part, TextPart):
        text = _trim_text(message, part.text, later, compaction_id, notes)
        return part if text == part.text else part.model_copy(update={"text": text})
    if isinstance(part, ToolResultPart):
        content = _trim_result(part, age, later, config, compaction_id, notes)
        return part if content == part.content else part.model_copy(
            update={"content": content})
    return part


def _trim_text(message: Message, text: str, later: Copy | None, compaction_id: str,
               notes: list[str]) -> str:
    if message.role == Role.ASSISTANT:
        stripped = strip_reasoning(text)
        if stripped != text:
            notes.append("reasoning dropped")
            return stripped or "[reasoning omitted]"
        return text
    copy = _injected(text, later, compaction_id)
    if copy is not None:
        notes.append("injected copy replaced")
        return copy
    return text


def _injected(text: str, later: Copy | None, compaction_id: str) -> str | None:
    """``text`` with the block that comes again later replaced by a note naming where; None
    when nothing of it does."""
    if later is None:
        return None
    block = text[later.start:later.end]
    ending = "\n" if block.endswith("\n") else ""
    return (f"{text[:later.start]}[these {len(block):,} characters come again in "
            f"{later.where}; omitted here — this copy: {pull_call(compaction_id)}]{ending}"
            f"{text[later.end:]}")


def _trim_result(part: ToolResultPart, age: int, later: Copy | None,
                 config: CompactionConfig, compaction_id: str, notes: list[str]) -> str:
    content = part.content
    if is_one_line(content):
        return content
    copy = _injected(content, later, compaction_id)
    if copy is not None:
        notes.append("repeated result replaced")
        return copy
    compact = compact_markup(content)
    if len(content) - len(compact) >= MIN_SAVING:
        notes.append("markup compacted")
        content = compact
    cut = find_cut(content)
    if age >= config.age_one_line_after:
        original = compaction_id
        chars = len(part.content)
        if cut is not None:  # already head and tail: point at the full original
            original = cut.compaction_id
            chars = cut.chars + len(content) - len(_cut_note(cut))
        line = one_line(part.name, content, chars, age, original)
        if len(line) < len(content):
            notes.append("old result shortened to one line")
            return line
        return content
    if cut is None and (age >= config.age_after or len(content) > config.tool_output_max):
        shortened = head_and_tail(content, config.aged_chars, compaction_id)
        if shortened != content:
            notes.append("result cut to head and tail")
            return shortened
    return content


def _cut_note(cut: Cut) -> str:
    """The note (with its two line breaks) inside a head-and-tail copy."""
    return f"\n{note(cut.chars, cut.compaction_id)}\n"


def _length(parts: list[Any]) -> int:
    total = 0
    for part in parts:
        if isinstance(part, TextPart):
            total += len(part.text)
        elif isinstance(part, ToolResultPart):
            total += len(part.content)
    return total
