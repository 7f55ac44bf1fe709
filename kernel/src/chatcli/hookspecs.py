"""The plugin contract: every hook chatcli calls, with its arguments and what it returns.

Plugins implement hooks with :data:`chatcli.hookimpl`; the kernel calls them through pluggy.
A hook implementation may accept any subset of the documented arguments, by name. Unless a hook
says "first result wins", every implementation is called and the results are collected.

A plugin that raises inside a hook is reported once (one line on stderr, and in
``chatcli plugins list``) and skipped; the other plugins' results still count.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from chatcli._config import Settings
    from chatcli._conversation import Checkpoint, Conversation
    from chatcli._types import (
        ChatRequest,
        Decision,
        Message,
        PromptSection,
        ProviderSpec,
        SkillSource,
        SlashCommand,
        Tool,
        ToolCallPart,
        ToolContext,
        ToolResultPart,
        ToolSpec,
    )

hookspec = pluggy.HookspecMarker("chatcli")


# -------------------------------------------------------------------------
# Registration hooks: a plugin contributes features by calling ``register``.
# They are called once per process, when the feature kind is first needed.
# -------------------------------------------------------------------------


@hookspec
def register_providers(register: Callable[[ProviderSpec], None]) -> None:
    """Register model providers.

    Called when chatcli first needs the provider list (``-p``, ``models``, the REPL).

    :param register: call ``register(ProviderSpec(...))`` once per provider. The spec's
        ``factory`` is called only when that provider is used, so import the SDK inside it.

    A second registration under an existing name replaces the first and is reported.
    """


@hookspec
def register_tools(register: Callable[[Tool], None]) -> None:
    """Register tools the model may call.

    Called once, when a conversation engine is built.

    :param register: call ``register(Tool(...))`` once per tool. Tool names must be unique and
        match ``^[a-zA-Z0-9_-]{1,64}$`` (the providers' rule).
    """


@hookspec
def register_skill_sources(register: Callable[[SkillSource], None]) -> None:
    """Register folders of skills (each a sub-folder holding a ``SKILL.md``).

    Called once, when the skills feature first lists skills.

    :param register: call ``register(SkillSource(name=..., path=...))`` per folder.
    """


@hookspec
def register_memory_backends(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Register storage backends for long-term memory.

    :param register: call ``register(name, factory)``; ``factory(settings)`` returns the backend
        object. The backend named by the ``memory.backend`` setting is used.
    """


@hookspec
def register_compaction_strategies(register: Callable[[str, Callable[..., Any]], None]) -> None:
    """Register strategies that shorten a conversation's view when it outgrows the context.

    :param register: call ``register(name, strategy)``; ``strategy(messages, budget, settings)``
        returns the messages of the compacted view. The log itself is never changed.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add click sub-commands to the ``chatcli`` command line.

    Called while the command line is built, for every invocation except ``--version``. Keep the
    entry module light: heavy imports belong inside the command's function.

    :param cli: the root ``click.Group``; use ``cli.add_command(cmd)`` or ``@cli.command()``.
    """


@hookspec
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """Register in-chat ``/commands``.

    Called once when the REPL starts.

    :param register: call ``register(SlashCommand(...))`` per command. A later registration of
        the same name replaces an earlier one and is reported.
    """


# -------------------------------------------------------------------------
# The prompt
# -------------------------------------------------------------------------


@hookspec
def prompt_sections(
    settings: Settings, workspace: Path, messages: list[Message], provider: str, model: str
) -> list[PromptSection] | None:
    """Contribute sections of the system prompt for the next model call.

    Called before every model call of a turn.

    :param settings: the effective settings.
    :param workspace: the workspace root.
    :param messages: the conversation view about to be sent (read only).
    :param provider: the provider's name.
    :param model: the model's name.
    :return: a list of :class:`~chatcli.PromptSection` (or None). Mark material that changes
        between calls ``stable=False`` so it is placed after the cached prefix.
    """


# -------------------------------------------------------------------------
# Tool calls
# -------------------------------------------------------------------------


@hookspec(firstresult=True)
def authorize_tool_call(
    call: ToolCallPart, tool: ToolSpec, context: ToolContext
) -> Decision | None:
    """Decide whether a tool call may run. First result wins.

    Called before each tool call, after its arguments were validated.

    :param call: the call the model made.
    :param tool: the tool's spec (name, risk class).
    :param context: the workspace root and whether a person can be asked.
    :return: ``Decision.ALLOW``, ``Decision.DENY``, ``Decision.ASK`` (ask the person; denied in
        non-interactive runs), or None to leave the decision to the next plugin. When no plugin
        decides, ``read`` tools are allowed and every other risk class is asked.
    """


@hookspec
def before_tool_call(call: ToolCallPart, tool: ToolSpec, conversation: Conversation) -> None:
    """Observe a tool call that was authorized and is about to run."""


@hookspec
def after_tool_call(
    call: ToolCallPart, result: ToolResultPart, conversation: Conversation
) -> None:
    """Observe the result of a tool call (``result.is_error`` tells failures)."""


# -------------------------------------------------------------------------
# Lifecycle events: observers (logging, persistence, user shell hooks).
# Their return values are ignored.
# -------------------------------------------------------------------------


@hookspec
def session_start(conversation: Conversation, settings: Settings) -> None:
    """A conversation begins (new, resumed or forked), before the first prompt is read."""


@hookspec
def session_end(conversation: Conversation) -> None:
    """A conversation ends: the REPL exits or a one-shot run finishes."""


@hookspec
def user_prompt_submitted(conversation: Conversation, message: Message) -> None:
    """The user sent ``message``; it is already appended to ``conversation``."""


@hookspec
def message_appended(conversation: Conversation, message: Message) -> None:
    """Any message (user, assistant, tool results) was appended to the conversation log.

    This is the persistence point: a session store writes ``message`` here, so that a crash
    loses nothing already appended.
    """


@hookspec
def checkpoint_created(conversation: Conversation, checkpoint: Checkpoint) -> None:
    """A checkpoint was taken: one before each model call.

    The first call of a turn records the head before the user's message (rewinding to it brings
    back the state before that message was sent); later calls of the same turn (after tool
    results) record the head at that moment.
    """


@hookspec
def head_moved(conversation: Conversation, head: str | None, reason: str) -> None:
    """The conversation's head moved without an append.

    ``reason`` is "rewind", "undo", "clear", or "retry" (the head goes back to the last user
    message so that it is answered again).

    Nothing is deleted: messages after the new head stay in the log.
    """


@hookspec
def before_request(request: ChatRequest, conversation: Conversation) -> None:
    """A request is about to be sent; implementations may edit ``request`` in place."""


@hookspec
def after_response(message: Message, conversation: Conversation) -> None:
    """The model's answer (``message``, possibly ``interrupted``) was appended."""


@hookspec
def before_compaction(conversation: Conversation, strategy: str) -> None:
    """The conversation's view is about to be compacted with ``strategy``."""


@hookspec
def after_compaction(conversation: Conversation, strategy: str, removed: int) -> None:
    """The view was compacted; ``removed`` messages are now represented by summaries."""


# -------------------------------------------------------------------------
# Front ends: who runs the interactive chat, and where conversations come from.
# -------------------------------------------------------------------------


@hookspec(firstresult=True)
def open_conversation(
    settings: Settings, resume: str | None, continue_last: bool
) -> Conversation | None:
    """Provide the conversation to start with. First result wins.

    Called once per run, before the first prompt (``-p`` and the REPL alike).

    :param settings: the effective settings.
    :param resume: a session id (or unique prefix, or name) from ``--resume``, else None.
    :param continue_last: True for ``--continue``/``-c``: the most recent session.
    :return: a :class:`~chatcli.Conversation` (restored from storage, observing
        nothing yet), or None to let the next plugin (or the kernel: a new, unsaved
        conversation) decide. Raise :class:`chatcli.UsageError` when ``resume`` names
        nothing.
    """


@hookspec(firstresult=True)
def interactive_main(app_options: dict[str, Any]) -> int | None:
    """Run the interactive chat (``chatcli`` with no prompt on a terminal). First result wins.

    :param app_options: ``provider``, ``model``, ``system`` (or None), ``continue_last`` (bool),
        ``resume`` (str or None), ``settings`` (:class:`~chatcli.Settings`), ``host``
        (:class:`~chatcli.PluginHost`) and ``allow`` (risk classes pre-approved).
    :return: the process exit code, or None when this plugin does not provide a chat front end.
    """
