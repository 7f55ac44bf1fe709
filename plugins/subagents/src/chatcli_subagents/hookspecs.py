"""The hook chatcli-subagents offers other plugins (declared through ``add_hookspecs``).

A plugin adds kinds of workers without importing this plugin::

    @chatcli.hookimpl(optionalhook=True)
    def register_agent_types(register):
        register(AgentType(name="verifier", description="checks a change", prompt="...",
                           tools=("read", "search", "test")))

(``from chatcli_plugin_records import AgentType``; ``optionalhook``: chatcli-subagents may be
absent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli_plugin_records import AgentType


@hookspec
def register_agent_types(register: Callable[[AgentType], None]) -> None:
    """Register kinds of workers the ``delegate`` tool and ``/delegate`` can start.

    Called by chatcli-subagents (through ``host.collect``) when it first needs the types of a
    run: to describe the ``delegate`` tool (its description lists every type's name and
    description, so the model can choose), to run a delegation, and for ``/agents types``. The
    result is kept until a plugin is registered or unregistered. chatcli-personas implements it:
    every persona and every ``.claude/agents/*.md`` is a type.

    The built-in types ``general`` (the parent's tools) and ``explore`` (its read-only tools)
    are chatcli-subagents' own, not registered through this hook: a type of the same name a
    plugin registers replaces them.

    :param register: call ``register(AgentType(name=..., description=..., prompt=...,
        tools=..., model=..., provider=..., isolation=..., max_turns=..., source=...))`` once
        per type. ``name`` is what the model passes as ``agent``; ``tools`` None means the
        parent's tools (a worker never gets a tool its parent does not offer); ``source`` says
        where the type comes from (a file, a plugin), shown by ``/agents types``. Anything but
        an ``AgentType`` is reported and ignored; of two types with one name the one pluggy
        calls first wins and the other is reported.

    The return value is ignored.
    """
