"""The ``summarise`` strategy (order 200, uses the model): the middle of the view — between the
leading pinned messages and the recent ones, cut so no tool call loses its results — becomes one
structured summary (files read, files modified, commands run, key decisions, errors and fixes,
current task state), followed by the pinned messages of that range unchanged.

The summary is a user message that opens with ``[Summary of earlier conversation …]`` (a user
turn keeps the roles alternating for Anthropic, whose converter merges it with a following user
message) and ends with the ``context_pull`` call that brings the originals back. A middle too
big for one summary call is summarised in pieces, and the pieces' summaries are then combined.
A failed or timed-out model call raises, so the next strategy runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from chatcli import (
    ChatcliError,
    Compaction,
    Message,
    Role,
    TextPart,
    new_id,
    translation,
)
from chatcli_plugin_records import describe_messages

from chatcli_compaction.markers import first_line, pull_call
from chatcli_compaction.ranges import kept_in_range, middle
from chatcli_compaction.sections import drop_invented_files, parse_summary
from chatcli_compaction.settings import CompactionConfig, read_config

if TYPE_CHECKING:
    from chatcli_plugin_records import CompactionJob

__all__ = ["SUMMARY_MARK", "group_items", "is_summary", "piece_limit", "run", "split_pieces",
           "summarise_messages"]

_, ngettext = translation(__name__)

#: How a summary message begins.
SUMMARY_MARK = "[Summary of earlier conversation"
#: Characters of each message part the summary call sees (the kernel's rendering).
SEEN_CHARS = 4_000

PROMPT = """\
You summarise part of a conversation between a developer and an AI assistant working in their \
terminal, so that the assistant can go on without the original messages. The messages are given \
as lines: [user] …, [assistant] …, [assistant calls TOOL] {{arguments}}, [result of TOOL] output.

Write exactly these six sections, each a markdown heading followed by short bullet points \
(write "- none" under a section with nothing to say):

## Files read
## Files modified
## Commands run
## Key decisions
## Errors and fixes
## Current task state

Rules:
- Copy paths, file names, commands, identifiers, versions and numbers exactly as they appear.
- Only what the messages show: never invent a file, a command, a result or a decision; leave \
out what you are unsure of.
- Keep what the user asked for, their constraints and preferences, and what is still to do \
(under Current task state).
- Under Errors and fixes, give each error with its fix, or say it is unresolved.
- At most about {words} words. No preamble, no closing remarks."""

COMBINE = """\
You merge partial summaries of consecutive parts of one conversation (oldest first) into one \
summary with the same six sections: ## Files read, ## Files modified, ## Commands run, \
## Key decisions, ## Errors and fixes, ## Current task state (each with short bullet points, \
"- none" when empty). Keep every exact path, command, identifier and decision; drop repetitions; \
where the parts disagree about the current task state, the later part wins. Never add anything \
the partial summaries do not say. At most about {words} words. No preamble, no closing remarks."""


def is_summary(message: Message) -> bool:
    """Whether ``message`` is a summary this strategy wrote."""
    return message.role == Role.USER and message.text.startswith(SUMMARY_MARK)


def run(job: CompactionJob) -> list[Compaction]:
    """The summary compaction of ``job.view``'s middle (an empty list when there is nothing
    worth summarising). Raises :class:`chatcli.ChatcliError` when the model fails."""
    config = read_config(job.settings.plugin_table("compaction"))
    if "summarise" not in config.strategies:
        return []
    view = job.view
    span = middle(view, job.keep_recent)
    kept = kept_in_range(view, span.start, span.end)
    kept_ids = {m.id for m in kept}
    messages = [m for m in view[span.start:span.end] if m.id not in kept_ids]
    if len(messages) < 2:
        job.notes.append(_("summarise: nothing to summarise besides the recent and pinned "
                           "messages"))
        return []
    compaction_id = new_id("cmp_")
    body = summarise_messages(job, messages, config)
    summary = Message(role=Role.USER, parts=[TextPart(text=_summary_text(
        messages, body, compaction_id, len(kept)))])
    if job.count([summary]) >= job.count(messages):
        job.notes.append(_("summarise: the summary was no shorter than the messages; kept "
                           "them"))
        return []
    return [Compaction(id=compaction_id, first=view[span.start].id, last=view[span.end - 1].id,
                       replacement=[summary, *kept],
                       note=f"summarised {len(messages)} messages"
                            + (f", kept {len(kept)} pinned" if kept else ""))]


def _summary_text(messages: Sequence[Message], body: str, compaction_id: str, kept: int) -> str:
    first = first_line(messages[0].text or describe_messages(messages[:1], 200), 60)
    pinned = f" The {kept} pinned message{'s' if kept != 1 else ''} of that part follow " \
             f"unchanged." if kept else ""
    head = (f"{SUMMARY_MARK}: {len(messages)} messages, from “{first}”, summarised to save "
            f"context.{pinned}]")
    return f"{head}\n\n{body}\n\nThe original messages: {pull_call(compaction_id)}"


def piece_limit(job: CompactionJob, config: CompactionConfig) -> int:
    """The most tokens of messages one summary call is given: ``summary_piece_tokens``, else
    half the context window, else the compaction's budget with the system prompt's share."""
    if config.summary_piece_tokens:
        return config.summary_piece_tokens
    window = job.settings.context_window
    if window:
        return max(window // 2, 500)
    return max(job.budget + job.system_tokens, 500)


def _target_words(job: CompactionJob) -> int:
    """How long the summary may be: about a quarter of the budget, within 150–1,200 words."""
    return max(150, min(1_200, int(job.budget * 0.25 * 0.75)))


def _seen_tokens(job: CompactionJob, message: Message) -> int:
    """Tokens of ``message`` as the summary call renders it."""
    return job.count([Message.user(describe_messages([message], SEEN_CHARS))])


def split_pieces(messages: Sequence[Message], limit: int,
                 size: Callable[[Message], int]) -> list[list[Message]]:
    """``messages`` in consecutive pieces of at most ``limit`` tokens each (``size`` of each
    message); a message bigger than the limit is a piece of its own."""
    pieces: list[list[Message]] = []
    current: list[Message] = []
    total = 0
    for message in messages:
        tokens = size(message)
        if current and total + tokens > limit:
            pieces.append(current)
            current, total = [], 0
        current.append(message)
        total += tokens
    if current:
        pieces.append(current)
    return pieces


def summarise_messages(job: CompactionJob, messages: Sequence[Message],
                       config: CompactionConfig) -> str:
    """The structured summary of ``messages`` (in pieces when they exceed one call), in normal
    form, files the messages never mention left out."""
    limit = piece_limit(job, config)
    words = _target_words(job)
    prompt = PROMPT.format(words=words)
    if job.instruction:
        prompt += (f"\n\nThe user asked this of the summary: {job.instruction.strip()}\n"
                   "Follow it where it does not break the rules above.")
    pieces = split_pieces(messages, limit, lambda m: _seen_tokens(job, m))
    source = describe_messages(messages, SEEN_CHARS)
    if len(pieces) == 1:
        return _checked(job.summarize(pieces[0], prompt), source)
    partial = []
    for number, piece in enumerate(pieces, 1):
        part_prompt = (prompt.replace(f"{words} words", f"{max(words // 2, 150)} words")
                       + f"\n\nThese messages are part {number} of {len(pieces)} of the "
                         "conversation, in order: summarise only them.")
        partial.append(_checked(job.summarize(piece, part_prompt), source))
    return _checked(_combine(job, partial, limit, words), source)


def _combine(job: CompactionJob, partial: list[str], limit: int, words: int) -> str:
    """One summary from the partial ones, merged in groups that fit one call, round after
    round (every group holds at least two, so each round shrinks)."""
    prompt = COMBINE.format(words=words)
    while len(partial) > 1:
        items = [_as_messages(f"Partial summary {i} of {len(partial)}", text)
                 for i, text in enumerate(partial, 1)]
        partial = [_nonempty(job.summarize(group, prompt)) for group in
                   group_items(items, limit, job.count)]
    return partial[0]


def group_items(items: Sequence[list[Message]], limit: int,
                count: Callable[[Sequence[Message]], int]) -> list[list[Message]]:
    """Consecutive ``items`` packed into groups of at most ``limit`` tokens where possible,
    each group holding at least two items (a lone last item joins the group before it)."""
    groups: list[list[Message]] = []
    current: list[Message] = []
    total = held = 0
    for item in items:
        tokens = count(item)
        if held >= 2 and total + tokens > limit:
            groups.append(current)
            current, total, held = [], 0, 0
        current.extend(item)
        total += tokens
        held += 1
    if current:
        if held == 1 and groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def _nonempty(text: str) -> str:
    if not text.strip():
        raise ChatcliError(_("the model returned an empty summary"),
                           _("try /compact again, or with another model"))
    return text.strip()


def _as_messages(label: str, text: str) -> list[Message]:
    """``text`` as user messages of at most :data:`SEEN_CHARS` characters each (the summary
    call sees no more of one message), cut at line ends."""
    size = SEEN_CHARS - len(label) - 20
    chunks: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > size:
            if current:
                chunks.append(current)
                current = ""
            chunks.append(line[:size])
            line = line[size:]
        if len(current) + len(line) > size:
            chunks.append(current)
            current = ""
        current += line
    if current:
        chunks.append(current)
    return [Message.user(f"{label}{' (continued)' if i else ''}:\n{chunk}")
            for i, chunk in enumerate(chunks or [""])]


def _checked(text: str, source: str) -> str:
    """The model's summary in normal form; raises when it wrote nothing usable."""
    summary = parse_summary(_nonempty(text))
    if summary.empty():
        raise ChatcliError(_("the model's summary held nothing but empty sections"),
                           _("try /compact again, or with another model"))
    return drop_invented_files(summary, source).render()
