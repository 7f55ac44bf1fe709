"""The hook chatcli-subagents declares, ``register_agent_types``, and the front-end hook
``route_input`` no front end declares yet, declared here for the tests (chatcli-personas
implements both as optional hooks and must work with or without a declaring plugin): a module of
its own, given to ``add_hookspecs``."""

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


@hookspec(firstresult=True)
def route_input(app: Any, text: str) -> str | None:
    """The front-end hook chatcli-personas implements for ``@name task`` (not declared by any
    front end yet): a sent line to run instead of ``text``, or None."""
