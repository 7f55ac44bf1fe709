"""The hook chatcli-subagents declares, ``register_agent_types``, declared here for the tests,
and chatcli-repl's own declaration of ``route_input`` (chatcli-personas implements both as
optional hooks and must work with or without a declaring plugin)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chatcli import hookimpl, hookspec


@hookspec
def register_agent_types(register: Callable[[Any], None]) -> None:
    """Register agent types (``chatcli_plugin_records.AgentType``)."""


class Declares:
    """A plugin that declares ``register_agent_types`` (as chatcli-subagents does)."""

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        import agent_type_specs
        import chatcli_repl.hookspecs

        add(agent_type_specs)
        add(chatcli_repl.hookspecs)  # route_input, as the chat declares it
