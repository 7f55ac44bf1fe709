"""The ``truncate`` strategy (order 300, the last resort, no model call): the oldest messages of
the middle of the view — never the leading pinned ones, never the recent ones — are dropped until
the view fits, and one note says what was dropped (how many, from which message) and the
``context_pull`` call that brings them back. Pinned messages of the range stay, unchanged, after
the note; a call and its results are dropped together."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import Compaction, Message, Role, TextPart, new_id, translation
from chatcli_plugin_records import describe_messages

from chatcli_compaction.markers import first_line, pull_call
from chatcli_compaction.ranges import kept_in_range, middle
from chatcli_compaction.settings import read_config

if TYPE_CHECKING:
    from chatcli_plugin_records import CompactionJob

__all__ = ["DROP_MARK", "run"]

_, ngettext = translation(__name__)

#: How the note of a truncation begins.
DROP_MARK = "[Dropped to fit the context window"


def run(job: CompactionJob) -> list[Compaction]:
    """The compaction dropping the oldest middle messages until ``job.view`` fits its budget."""
    config = read_config(job.settings.plugin_table("compaction"))
    if "truncate" not in config.strategies:
        return []
    view = job.view
    span = middle(view, job.keep_recent)
    need = job.tokens() - job.budget
    if not span or need <= 0:
        return []
    compaction_id = new_id("cmp_")
    staying = {m.id for m in kept_in_range(view, span.start, span.end)}  # pinned, with partners
    end = span.start
    shed = 0
    allowance = job.count([_note([view[span.start]], compaction_id)])
    while end < span.end and (shed < need + allowance or view[end].tool_results):
        if view[end].id not in staying:  # (results always go with their call)
            shed += job.count([view[end]])
        end += 1
    kept = kept_in_range(view, span.start, end)
    kept_ids = {m.id for m in kept}
    dropped = [m for m in view[span.start:end] if m.id not in kept_ids]
    if not dropped:
        return []
    if shed < need + allowance:
        job.notes.append(_("truncate: even without the whole middle the view does not fit; "
                           "the recent and pinned messages stay"))
    return [Compaction(id=compaction_id, first=view[span.start].id, last=view[end - 1].id,
                       replacement=[_note(dropped, compaction_id), *kept],
                       note=f"dropped the {len(dropped)} oldest messages")]


def _note(dropped: list[Message], compaction_id: str) -> Message:
    first = first_line(dropped[0].text or describe_messages(dropped[:1], 200), 60)
    count = len(dropped)
    text = (f"{DROP_MARK}: {count} earlier message{'' if count == 1 else 's'}, from “{first}”, "
            f"not summarised. The original messages: {pull_call(compaction_id)}]")
    return Message(role=Role.USER, parts=[TextPart(text=text)])
