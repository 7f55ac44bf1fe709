"""The hook chatcli-compaction declares for other plugins (added through ``add_hookspecs``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_plugin_records import CompactionStrategy


@hookspec
def register_compaction_strategies(
    register: Callable[[CompactionStrategy], None],
) -> None:
    """Register strategies that shorten a conversation's *view* when it outgrows the context.

    Called once per host, the first time a compaction runs. When the view passes
    ``compact_threshold`` (``agent_compact_threshold`` in agent runs) of the context window
    before a model call, or the person runs ``/compact``, chatcli-compaction (through the
    kernel's ``compact_view``) builds a :class:`chatcli_plugin_records.CompactionJob` (the view,
    a budget in tokens, how many recent messages stay verbatim, a token counter, a
    ``summarize`` callable using the model in use, the instruction) and runs the strategies in
    ``order`` until the view fits the budget.

    :param register: call ``register(CompactionStrategy(name, run, order))``
        (``chatcli_plugin_records.CompactionStrategy``). ``run(job)`` returns a list of
        :class:`chatcli.Compaction` (a range of the view, first and last message ids, and the
        messages that replace it); each is checked (pinned messages kept, tool calls not
        separated from their results) and refused in one line if not. The log itself is never
        changed: compactions are undone with :meth:`chatcli.Conversation.undo_compaction`. Two
        strategies with one name: the first registered wins and the other is reported.

    The return value is ignored.
    """
