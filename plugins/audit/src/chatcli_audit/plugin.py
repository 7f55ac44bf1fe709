"""Entry module of the audit log (entry point ``audit``): hook implementations only.

The hooks delegate to one :class:`chatcli_audit.recorder.Recorder`, made (and its modules
imported) when a session first needs it; ``chatcli --help`` and other commands import nothing
but this module. ``chatcli audit`` is a lazy command: its module loads when it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    import click
    from chatcli import (
        Approval,
        ChatcliError,
        ChatRequest,
        Conversation,
        Message,
        PluginHost,
        Session,
        SettingRule,
        Settings,
        ToolCallPart,
        ToolResultPart,
        ToolSpec,
        Verdict,
    )

    from chatcli_audit.recorder import Recorder

__all__ = ["recorder"]

_, ngettext = translation(__name__)


_recorder: Recorder | None = None


def recorder() -> Recorder:
    """The process's recorder (made on first use)."""
    global _recorder
    if _recorder is None:
        from chatcli_audit.recorder import Recorder

        _recorder = Recorder()
    return _recorder


@hookimpl
def configure(host: PluginHost, settings: Settings, workspace: Path) -> None:
    """Keep the run's settings (``[audit]`` is read when a session starts)."""
    recorder().configure(host, settings, workspace)


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    """No project may set anything of ``[audit]``: not turn the log off, move it, shorten its
    history, nor make it keep more of what the agent saw."""
    from chatcli import SettingRule

    register(SettingRule("audit", "never"))
    register(SettingRule("audit.enabled", "never"))
    register(SettingRule("audit.path", "never"))


@hookimpl
def register_commands(cli: click.Group) -> None:
    """``chatcli audit`` (imported when it runs)."""
    from chatcli_cli import LazyCommand

    cli.add_command(LazyCommand("audit",
        lambda: _("The audit log: tool calls and who decided them, commands, files, "
                  "model calls."),
        "chatcli_audit.cli:audit"))


@hookimpl
def session_start(session: Session, conversation: Conversation, settings: Settings) -> None:
    """A ``session`` record."""
    recorder().session_start(session, conversation)


@hookimpl
def session_end(session: Session, conversation: Conversation) -> None:
    """A ``session`` record (``end``)."""
    recorder().session_end(conversation)


@hookimpl
def user_prompt_submitted(conversation: Conversation, message: Message) -> None:
    """The turn in progress."""
    recorder().user_prompt_submitted(conversation, message)


@hookimpl
def before_request(request: ChatRequest, conversation: Conversation) -> None:
    """What the conversation spent before its first model call."""
    recorder().before_request(conversation)


@hookimpl(trylast=True)  # after the policy plugins remembered the decision
def tool_call_decided(call: ToolCallPart, tool: ToolSpec, allowed: bool,
                      approval: Approval | None, verdict: Verdict,
                      conversation: Conversation | None) -> None:
    """A ``tool_call`` record."""
    recorder().tool_call_decided(call, tool, allowed, approval, verdict, conversation)


@hookimpl
def after_tool_call(call: ToolCallPart, result: ToolResultPart,
                    conversation: Conversation) -> None:
    """``command`` and ``file_change`` records."""
    recorder().after_tool_call(call, result, conversation)


@hookimpl(trylast=True)  # after the cost plugin counted the call
def after_response(message: Message | None, error: ChatcliError | None,
                   conversation: Conversation, purpose: str) -> None:
    """A ``model_call`` record (side calls included: this implementation takes ``purpose``)."""
    recorder().after_response(message, error, conversation, purpose)
