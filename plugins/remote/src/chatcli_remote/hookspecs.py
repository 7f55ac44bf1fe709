"""The hook chatcli-remote offers other plugins (declared through ``add_hookspecs``).

A plugin says what a session is busy with, without importing this plugin::

    @chatcli.hookimpl(optionalhook=True)
    def progress_items(conversation):
        return [ProgressItem(id="w1", title="explore: find the config loader", state="running")]

(``from chatcli_plugin_records import ProgressItem``; ``optionalhook``: chatcli-remote may be
absent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli import Conversation
    from chatcli_plugin_records import ProgressItem


@hookspec
def progress_items(conversation: Conversation) -> list[ProgressItem] | None:
    """What ``conversation`` is busy with besides the model's answer (parallel workers…).

    Called by chatcli-remote after each tool call of a served or ACP turn, and when a client
    attaches: the items become an ACP ``plan`` update, an SSE ``progress`` event and the web
    page's progress list. chatcli-subagents implements it from its board (one item per worker:
    its id and type, its description, ``queued``/``running``/``done``/``failed``/``cancelled``).

    :param conversation: the session's (root) conversation.
    :return: the items, in the order to show them, or None when the plugin has none. The lists
        of every plugin are joined.
    """
