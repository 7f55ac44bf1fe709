"""The ``delegate`` tool: hand a task to a worker of a named type (see :mod:`.worker`).

Risk READ and ``concurrent``: the delegation changes nothing by itself (each call of the worker
is authorized on its own, by the caller's mode and rules), so several delegations of one step
run side by side, bounded by ``[agents] max_workers``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli import PluginHost, Tool, ToolContext
    from chatcli_plugin_records import AgentType

    from chatcli_subagents._args import DelegateArgs

__all__ = ["NAME", "delegate_tool", "describe"]

NAME = "delegate"
#: the most types the description lists, and the characters of each one's description
_MOST_TYPES, _TYPE_CHARS = 40, 200


def describe(types: dict[str, AgentType]) -> str:
    """The tool's description: what it does and every type (name and description)."""
    listed = [f"- {name}: {' '.join(agent.description.split())[:_TYPE_CHARS]}"
              for name, agent in list(types.items())[:_MOST_TYPES]]
    if len(types) > _MOST_TYPES:
        listed.append(f"- … {len(types) - _MOST_TYPES} more (/agents types)")
    return ("Hand a self-contained task to a worker with its own context and tools; returns "
            "its final report (and the files it changed), not its transcript. Several "
            "delegate calls in one answer run at the same time. Worker types (agent):\n"
            + "\n".join(listed))


def delegate_tool(host: PluginHost) -> Tool:
    """The tool, describing the types of ``host`` as they are now."""
    from chatcli import Risk

    from chatcli_subagents.argstool import ArgsTool
    from chatcli_subagents.types import agent_types

    return ArgsTool(name=NAME, description=describe(agent_types(host)),
                    run=lambda args, context: delegate(args, context), args="DelegateArgs",
                    risk=Risk.READ, concurrent=True)


def delegate(args: DelegateArgs, context: ToolContext) -> str:
    """Run the worker; its report (raises: an error result naming the problem)."""
    from chatcli_subagents.board import depth_of
    from chatcli_subagents.settings import agents_config
    from chatcli_subagents.types import agent_types
    from chatcli_subagents.worker import Delegation, run_worker

    engine, conversation = context.engine, context.conversation
    if engine is None or conversation is None:
        raise RuntimeError("delegate runs only inside a model turn")
    types = agent_types(engine.host)
    agent = types.get(args.agent.strip())
    if agent is None:
        raise ValueError(f"unknown agent type {args.agent!r}; the types are: "
                         + ", ".join(sorted(types)))
    config = agents_config(context.settings, engine.host)
    depth = depth_of(conversation)
    if depth >= config.max_depth:
        raise ValueError(f"workers may not delegate further (depth {depth}; [agents] "
                         f"max_depth = {config.max_depth})")
    return run_worker(Delegation(
        engine=engine, conversation=conversation, settings=context.settings, agent=agent,
        task=args.task, description=" ".join(args.description.split()), config=config,
        cancel=context.cancel, output=context.output, isolation=args.isolation,
        call_id=context.call.id if context.call is not None else None))
