"""The hook chatcli-print offers other plugins (declared through ``add_hookspecs``).

A plugin adds what it knows of the run to ``chatcli -p --json``'s object without importing
this plugin::

    @chatcli.hookimpl(optionalhook=True)
    def json_report(payload, conversation):
        payload["workers"] = [...]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli import Conversation


@hookspec
def json_report(payload: dict[str, Any], conversation: Conversation) -> None:
    """``chatcli -p --json`` is about to print its object.

    Called by chatcli-print once, after the session closed, only with ``--json``.

    :param payload: the JSON object (``text``, ``usage``, ``files_changed``…); add keys of your
        own (chatcli-subagents adds ``workers``), never change or remove chatcli-print's.
    :param conversation: the run's conversation.

    The return value is ignored.
    """
