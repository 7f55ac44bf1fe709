"""``/agents`` (the board: workers, a worker's transcript, the types) and ``/delegate TYPE
TASK`` (one worker started from the chat, outside a model turn)."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Conversation, Message, SlashCommand

__all__ = ["agents_command", "delegate_command", "transcript_lines"]

_, ngettext = translation(__name__)


def _print(app: Any, text: str, style: str = "") -> None:
    from rich.text import Text

    app.console.print(Text(text, style=style), highlight=False, soft_wrap=True)


def agents_command() -> SlashCommand:
    from chatcli import SlashCommand

    return SlashCommand(
        name="agents", run=_agents, subcommands=("show", "types", "merge", "discard"),
        help=_("the workers (subagents): /agents (the board), /agents show ID (a worker's "
               "transcript), /agents merge|discard ID (a worktree worker's branch), "
               "/agents types"))


def delegate_command() -> SlashCommand:
    from chatcli import SlashCommand

    return SlashCommand(
        name="delegate", run=_delegate, complete=_complete_types,
        help=_("run a worker now: /delegate TYPE TASK (the types: /agents types)"))


def _complete_types(app: Any, text: str) -> list[str]:
    from chatcli_subagents.types import agent_types

    return [name for name in agent_types(app.host) if name.startswith(text.strip())]


def _agents(app: Any, argument: str) -> None:
    from chatcli import UsageError

    from chatcli_subagents.board import board_lines, registry, state_name

    word, _sep, rest = argument.strip().partition(" ")
    board = registry(app.conversation)
    if not word:
        for line in board_lines(board.listed()):
            _print(app, line)
        return
    if word == "types":
        _types(app)
        return
    if word == "show":
        worker = board.find(rest) if rest.strip() else None
        if worker is None:
            known = ", ".join(w.id for w in board.listed()) or _("none yet")
            raise UsageError(_("no worker {ref!r} in this conversation (workers: {known})")
                             .format(ref=rest.strip(), known=known),
                             _("/agents show ID, with an id /agents lists"))
        _print(app, f"{worker.label}: {worker.description} — {state_name(worker.state)}",
               "bold")
        if worker.conversation is None:
            _print(app, _("(it has no conversation: it never started)"))
            return
        for line in transcript_lines(worker.conversation):
            _print(app, line)
        return
    if word in ("merge", "discard"):
        from pathlib import Path

        from chatcli_subagents.branches import settle

        try:
            _print(app, settle(app.conversation, Path(app.session.workspace), rest, word))
        except ValueError as err:
            raise UsageError(str(err), _("/agents {action} ID, with an id /agents lists")
                             .format(action=word)) from None
        return
    raise UsageError(_("unknown /agents argument {word!r}").format(word=word),
                     _("/agents, /agents show ID, /agents merge|discard ID or /agents types"))


def _types(app: Any) -> None:
    from chatcli_subagents.types import agent_types

    types = agent_types(app.host)
    width = max(len(name) for name in types)
    for name, agent in types.items():
        extras = []
        if agent.model:
            model = f"{agent.provider + '/' if agent.provider else ''}{agent.model}"
            extras.append(_("model {model}").format(model=model))
        if agent.tools is not None:
            extras.append(_("tools {names}").format(names=", ".join(agent.tools)))
        if agent.isolation:
            extras.append(_("isolation {kind}").format(kind=agent.isolation))
        more = f" [{'; '.join(extras)}]" if extras else ""
        # (a type's description is the delegate tool's text for the model: as written)
        _print(app, f"{name.ljust(width)}  {agent.source or _('plugin')}  —  "
                    f"{' '.join(agent.description.split())}{more}")


def transcript_lines(conversation: Conversation) -> list[str]:
    """A worker's conversation, plainly: each message under a heading, tool calls and results
    in brief."""
    lines: list[str] = []
    for message in conversation.messages():
        lines.extend(_message_lines(message))
    return lines or [_("(no messages)")]


def _message_lines(message: Message) -> list[str]:
    from chatcli import Role

    if message.role == Role.TOOL:
        lines = []
        for result in message.tool_results:
            mark = "✗" if result.is_error else "←"
            body = result.content.strip().splitlines() or [""]
            lines.append(f"  {mark} {result.name}: {body[0][:200]}")
            lines.extend(f"    {line[:200]}" for line in body[1:12])
            if len(body) > 12:
                lines.append("    " + ngettext("… {count} more line", "… {count} more lines",
                                                 len(body) - 12).format(count=len(body) - 12))
        return lines
    lines = [f"── {message.role.value} ──"]
    if message.text.strip():
        lines.extend(message.text.rstrip().splitlines())
    for call in message.tool_calls:
        arguments = call.raw_arguments or json.dumps(call.arguments, ensure_ascii=False)
        lines.append(f"  → {call.name} {arguments[:300]}")
    return lines


def _delegate(app: Any, argument: str) -> None:
    from chatcli import UsageError

    from chatcli_subagents.settings import agents_config
    from chatcli_subagents.types import agent_types
    from chatcli_subagents.worker import Delegation, WorkerError, run_worker

    name, _sep, task = argument.strip().partition(" ")
    types = agent_types(app.host)
    if not name or not task.strip():
        raise UsageError(_("/delegate needs a type and a task"),
                         _("/delegate TYPE TASK (types: {types})").format(
                             types=", ".join(types)))
    agent = types.get(name.removeprefix("@"))
    if agent is None:
        raise UsageError(_("unknown agent type {name!r}").format(name=name),
                         _("the types: {types}").format(types=", ".join(types)))
    session = app.session
    engine = session.engine
    output = engine.on_tool_output or (lambda line: _print(app, line, "dim"))
    first = task.strip().splitlines()[0]
    description = first if len(first) <= 60 else first[:59] + "…"
    cancel = threading.Event()
    # a front end that stops its command in progress through ``app.cancel`` (the chat's
    # Ctrl+C) stops the worker; ``turn_cancel``: the chat refuses questions of a stopped turn's
    # workers, and this worker's turn is this command
    held = {name: getattr(app, name) for name in ("cancel", "turn_cancel") if hasattr(app, name)}
    for name in held:
        setattr(app, name, cancel)
    try:
        report = run_worker(Delegation(
            engine=engine, conversation=session.conversation, settings=session.settings,
            agent=agent, task=task.strip(), description=description,
            config=agents_config(session.settings, app.host), cancel=cancel, output=output))
    except WorkerError as err:
        _print(app, str(err), "red")
        return
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        for name, value in held.items():
            if getattr(app, name) is cancel:
                setattr(app, name, value)
    _print(app, report)
