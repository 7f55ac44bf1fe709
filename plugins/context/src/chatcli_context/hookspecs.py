"""The hook chatcli-context offers other plugins (declared through ``add_hookspecs``): what its
``context_pull`` tool can bring back. A plugin implements it without importing this one::

    @chatcli.hookimpl
    def register_pull_kinds(register):
        register(PullKind("mine", "what it brings back", fetch))

(``from chatcli_plugin_records import PullKind``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_plugin_records import PullKind


@hookspec
def register_pull_kinds(register: Callable[[PullKind], None]) -> None:
    """Register what ``context_pull`` can bring back: material the curated prompt left out
    while keeping it reachable (skills, MCP tool descriptions, archived history, attached
    contexts).

    Called by chatcli-context the first time the kinds are listed (through ``host.collect``;
    once per process, and again after a plugin is registered).

    :param register: call ``register(PullKind(name, description, fetch))``. ``fetch(arguments,
        context)`` receives the call's arguments (a dict, already freed of wrappers like
        ``{"args": {...}}``) and the :class:`chatcli.ToolContext`, and returns the text for the
        model; it raises :class:`chatcli.ToolError` with a message the model can act on. Two
        kinds with one name: the one pluggy calls first wins and the other is reported.

    The return value is ignored.
    """
