"""The hook chatcli-subagents declares, ``register_agent_types``, declared here for the tests
(chatcli-personas implements it as an optional hook and must work with or without the
declaring plugin): a module of its own, given to ``add_hookspecs``."""

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

        add(agent_type_specs)
