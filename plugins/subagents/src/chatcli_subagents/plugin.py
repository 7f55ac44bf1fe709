"""Entry module of chatcli-subagents (entry point ``subagents``): hook implementations only;
the tool, the workers and the board load when first used.

- ``add_hookspecs``: declares ``register_agent_types`` (:mod:`.hookspecs`).
- ``register_tools``: ``delegate`` (its description lists the agent types).
- ``register_slash_commands``: ``/agents`` (the board) and ``/delegate TYPE TASK``.
- ``register_setting_rules``: a project's ``[agents]`` limits may only lower the user's.
- ``prompt_sections``: a worker's conversation gets its type's prompt.
- ``before_request``: a worker's requests are ``purpose="subagent"`` with ``volatile_last``; a
  request offering ``delegate`` gets the delegation guide (plan, dispatch, verify).
- ``tool_call_decided``: an allowed ``delegate`` call keeps its worker id (w1, w2… in the
  model's order of calls, whichever worker starts first).
- ``after_response``, ``after_tool_call``: a worker's tokens (its ``max_tokens``) and the files
  its write calls changed.
- ``json_report`` (chatcli-print's, optional): ``-p --json`` lists the workers (``workers``).
- ``status_items`` (chatcli-repl's, optional): the chat's status line counts the workers running.
- ``progress_items`` (chatcli-remote's, optional): one item per worker, for a remote client's
  plan view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from chatcli import (
        ChatRequest,
        Conversation,
        Message,
        PluginHost,
        PromptSection,
        Session,
        Settings,
        SlashCommand,
        Tool,
        ToolCallPart,
        ToolResultPart,
    )
    from chatcli_plugin_records import ProgressItem

    from chatcli_subagents.board import Worker

_, ngettext = translation(__name__)

#: the host of the run (set by ``configure``)
_host: PluginHost | None = None
#: the argument names of a write tool that name the file it changes
_PATH_KEYS = ("path", "file_path", "file", "filename")


def _worker(conversation: Conversation | None) -> Worker | None:
    if conversation is None:
        return None
    from chatcli_subagents.keys import WORKER

    return conversation.stash.get(WORKER, None)


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare register_agent_types: plugins add kinds of workers."""
    from chatcli_subagents import hookspecs

    add(hookspecs)


@hookimpl
def configure(host: PluginHost, settings: Settings) -> None:
    """Keep the host; a wrong ``[agents]`` value is reported now, once, not at the first
    delegation."""
    global _host
    _host = host
    if settings.plugin_table("agents"):
        from chatcli_subagents.settings import agents_config

        agents_config(settings, host)


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    from chatcli_subagents.tool import delegate_tool

    if _host is not None:
        from chatcli_subagents.branches import worker_branch_tool

        register(delegate_tool(_host))
        register(worker_branch_tool())


@hookimpl
def session_start(session: Session) -> None:
    """Remove the worktrees a crashed or killed chatcli left in this repository (their work
    is committed on their branches first); one line each on stderr."""
    from chatcli import data_dir

    if not (data_dir() / "worktrees").is_dir():  # no worktree was ever made: nothing to load
        return
    from chatcli_subagents.worktree import clean_stale

    try:
        done = clean_stale(session.workspace)
    except Exception as err:  # a broken repository must not stop the session
        done = [_("could not check for stale worktrees: {kind}: {error}").format(
            kind=type(err).__name__, error=err)]
    for line in done:
        session.host.warn(f"chatcli-subagents: {line}")


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    from chatcli_subagents.commands import agents_command, delegate_command

    register(agents_command())
    register(delegate_command())


@hookimpl
def register_setting_rules(register: Callable[[Any], None]) -> None:
    """A project may lower the limits of ``[agents]``, never raise them."""
    from chatcli import SettingRule

    for key in ("max_workers", "max_depth", "max_turns", "max_seconds", "max_tokens"):
        register(SettingRule(f"agents.{key}", "always", "min"))


@hookimpl
def prompt_sections(conversation: Conversation | None) -> list[PromptSection] | None:
    """A worker's instructions and its type's prompt."""
    worker = _worker(conversation)
    if worker is None or conversation is None:
        return None
    from chatcli_subagents.prompt import worker_section
    from chatcli_subagents.worker import AGENT

    agent = conversation.stash.get(AGENT, None)
    return [worker_section(agent, worker)] if agent is not None else None


@hookimpl(trylast=True)
def before_request(request: ChatRequest, conversation: Conversation) -> None:
    """A worker's request: ``purpose`` and ``volatile_last``; a request offering ``delegate``:
    the guide. Last (``trylast``), so that the tools recorded as offered are those left after
    the other plugins trimmed them (a persona's list)."""
    if request.tools:
        from chatcli_subagents.keys import OFFERED

        conversation.stash[OFFERED] = frozenset(tool.name for tool in request.tools)
    worker = _worker(conversation)
    if worker is not None:
        worker.turns += 1
        request.purpose = "subagent"  # /cost and -p --json count a worker's calls apart
        request.volatile_last = True
    if _host is not None and any(tool.name == "delegate" for tool in request.tools):
        from chatcli_subagents.prompt import SECTION, delegation_section
        from chatcli_subagents.types import agent_types

        if not any(section.name == SECTION for section in request.system):
            request.system.append(delegation_section(agent_types(_host)))


@hookimpl
def after_response(message: Message | None, conversation: Conversation) -> None:
    worker = _worker(conversation)
    if worker is not None and message is not None and message.usage is not None:
        worker.counted(message.usage.total_tokens)


@hookimpl
def tool_call_decided(call: ToolCallPart, allowed: bool,
                      conversation: Conversation | None) -> None:
    """An allowed ``delegate`` call keeps the next worker id, in the model's order of calls
    (the workers of one answer start side by side, in any order)."""
    if allowed and conversation is not None and call.name == "delegate":
        from chatcli_subagents.board import registry

        registry(conversation).reserve(call.id)


@hookimpl
def after_tool_call(call: ToolCallPart, result: ToolResultPart,
                    conversation: Conversation) -> None:
    """A worker's successful write call: the file it names is one it changed."""
    worker = _worker(conversation)
    if worker is None or result.is_error or _host is None:
        return
    from chatcli import Risk

    tool = _host.tools().get(call.name)
    if tool is None or tool.risk != Risk.WRITE:
        return
    for key in _PATH_KEYS:
        value = call.arguments.get(key)
        if isinstance(value, str) and value and value not in worker.changed:
            worker.changed.append(value)
            break


@hookimpl(optionalhook=True)
def json_report(payload: dict[str, Any], conversation: Conversation) -> None:
    """``chatcli -p --json`` (chatcli-print's hook): the run's workers."""
    from chatcli_subagents.keys import REGISTRY, root_of

    board = root_of(conversation).stash.get(REGISTRY, None)
    payload["workers"] = [worker.as_json() for worker in board.listed()] if board else []


@hookimpl(optionalhook=True)
def status_items(session: Session) -> dict[str, str] | None:
    """The chat's status line (chatcli-repl's hook): workers running and queued, if any."""
    from chatcli_subagents.keys import REGISTRY, root_of

    if not session.is_open:
        return None
    board = root_of(session.conversation).stash.get(REGISTRY, None)
    states = [worker.state for worker in board.listed()] if board is not None else []
    running, queued = states.count("running"), states.count("queued")
    if not running and not queued:
        return None
    if queued:
        text = ngettext("{running} worker running, {queued} queued",
                        "{running} workers running, {queued} queued", running)
    else:
        text = ngettext("{running} worker running", "{running} workers running", running)
    return {"workers": text.format(running=running, queued=queued)}


#: a worker's state as a progress item's (a limit that stopped it is a failure)
_PROGRESS_STATE = {"stopped": "failed"}


@hookimpl(optionalhook=True)
def progress_items(conversation: Conversation) -> list[ProgressItem] | None:
    """What a served or ACP session is busy with (chatcli-remote's hook): one item per worker
    of the conversation's board, ``w1`` with ``explore: find the loader`` and its state."""
    from chatcli_plugin_records import ProgressItem

    from chatcli_subagents.keys import REGISTRY, root_of

    board = root_of(conversation).stash.get(REGISTRY, None)
    if board is None:
        return None
    return [ProgressItem(id=worker.id, title=f"{worker.type}: {worker.description}",
                         state=_PROGRESS_STATE.get(worker.state, worker.state))
            for worker in board.listed()]
