"""Agent types: the built-in ones, those plugins register, the tools and model each gets.

A type's ``tools`` are tool names or shell-style patterns (``mcp__*``); the word ``@read``
stands for every read-only tool (risk READ) the parent offers — the built-in ``explore`` type
is ``("@read",)``. A worker never gets a tool its parent does not offer (``Engine.branch``
intersects).

A type's ``model``: None, or one of Claude Code's aliases ``inherit``, ``sonnet``, ``haiku``,
``opus``, keeps the parent's provider and model (an alias names a family of another vendor's
models: chatcli does not guess which of the provider in use it means). Any other name is a model
of the type's ``provider`` (default: the parent's), or ``provider/model`` when the part before
the slash is an installed provider. A provider other than the parent's is built the way the
session builds one (``build_provider``: its ``[providers.NAME]`` table and key).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from typing import TYPE_CHECKING

from chatcli_plugin_records import AgentType

if TYPE_CHECKING:
    from chatcli import Engine, PluginHost, Settings, Tool, Use

__all__ = ["BUILT_IN", "MODEL_ALIASES", "READ_ONLY", "agent_types", "resolve_tools",
           "resolve_use"]

#: The tools word for "every read-only tool the parent offers".
READ_ONLY = "@read"
#: Claude Code's model aliases: the parent's model is kept.
MODEL_ALIASES = frozenset({"inherit", "sonnet", "haiku", "opus"})

BUILT_IN: tuple[AgentType, ...] = (
    AgentType(
        name="general",
        description="a worker with the same tools as you, for a self-contained task "
                    "(research, a change in a few files, a check) whose details you do not "
                    "need to see",  # untranslated: model-facing
        prompt="Do the task completely with the tools you have; then answer with a short "
               "report: what you did or found, the files you changed, anything left "
               "undone.",  # untranslated: model-facing
        source="built-in"),
    AgentType(
        name="explore",
        description="a read-only worker (only tools that read: no edits, no commands) that "
                    "finds files, code, definitions and facts in the workspace and reports "
                    "them with paths and line numbers",  # untranslated: model-facing
        prompt="You only read: find what the task asks for and report it concisely, with "
               "file paths and line numbers; quote only the lines that "
               "matter.",  # untranslated: model-facing
        tools=(READ_ONLY,), source="built-in"),
)


def agent_types(host: PluginHost) -> dict[str, AgentType]:
    """The types of this run by name: the built-ins, then those plugins register
    (``register_agent_types``); no plugin or project file replaces one (a repository's
    ``explore.md`` must not turn the read-only explorer into a worker with every tool)."""
    types = {agent.name: agent for agent in BUILT_IN}
    for name, agent in host.collect("register_agent_types", AgentType, "agent type").items():
        types.setdefault(name, agent)
    return types


def resolve_tools(agent: AgentType, offered: dict[str, Tool]) -> set[str]:
    """The names of the tools a worker of ``agent`` gets among ``offered`` (the parent's)."""
    from chatcli import Risk

    if agent.tools is None:
        return set(offered)
    chosen: set[str] = set()
    for pattern in agent.tools:
        if pattern == READ_ONLY:
            chosen.update(name for name, tool in offered.items() if tool.risk == Risk.READ)
        else:
            chosen.update(fnmatch.filter(offered, pattern))
    return chosen


def _split(model: str, providers: Iterable[str]) -> tuple[str | None, str]:
    head, slash, tail = model.partition("/")
    return (head, tail) if slash and head in set(providers) and tail else (None, model)


def resolve_use(agent: AgentType, engine: Engine, settings: Settings) -> Use:
    """What a worker of ``agent`` answers with (see the module's notes); raises
    ``ChatcliError`` (an unknown provider, no key) when the type names what cannot be used."""
    from chatcli import Use, build_provider, find_provider

    current = engine.current
    model = agent.model if agent.model and agent.model not in MODEL_ALIASES else None
    provider = agent.provider
    if model is not None and provider is None:
        provider, model = _split(model, engine.host.providers())
    if provider is None or provider == current.provider_name:
        if model is None or model == current.model:
            return current
        return Use(current.provider, current.provider_name, model, current.max_retries,
                   current.context_window, current.tools)
    spec = find_provider(engine.host, provider)
    built, config = build_provider(spec, settings, model)
    return Use(built, spec.name, config.model, config.max_retries, current.context_window,
               current.tools)
