"""Entry module of the user-hooks plugin: hookimpls only; the work is in ``events``, imported
when the first conversation is configured (and only hooks that are configured cost anything).

A project's hooks are commands a repository someone else wrote would run: its Claude Code
settings files are control files (``project_control_files``), so they and the project's
``.chatcli/config.toml`` run hooks only once the user trusted the project as it is."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from chatcli import PromptSection, SettingRule


def _events() -> Any:
    from chatcli_agent.user_hooks import events

    return events


def _active() -> Any:
    """The events module once hooks are configured, else None (nothing to do)."""
    import sys

    events = sys.modules.get("chatcli_agent.user_hooks.events")
    return events if events is not None and events.STATE.hooks else None


@hookimpl
def configure(host: Any, settings: Any, workspace: Path) -> None:
    from chatcli_agent.user_hooks import config

    config.HOST = host  # whose control files workspace trust counts
    _events().configure(settings, workspace)


@hookimpl
def project_control_files() -> list[str]:
    from chatcli_agent.user_hooks.config import PROJECT_CLAUDE_FILES

    return list(PROJECT_CLAUDE_FILES)


@hookimpl
def register_setting_rules(register: Callable[[SettingRule], None]) -> None:
    from chatcli import SettingRule

    register(SettingRule("hooks.trust_project", "never"))  # a project cannot trust itself


@hookimpl
def session_start(conversation: Any) -> None:
    events = _active()
    if events is not None:
        events.session_start(conversation)


@hookimpl
def session_end(conversation: Any) -> None:
    events = _active()
    if events is not None:
        events.session_end(conversation)


@hookimpl
def user_prompt_submitted(conversation: Any, message: Any) -> None:
    events = _active()
    if events is not None:
        events.user_prompt_submitted(conversation, message)


@hookimpl
def prompt_sections() -> list[PromptSection] | None:
    events = _active()
    return events.sections() if events is not None else None


# A wrapper, run first: the PreToolUse hooks run before the permission policy decides, and the
# stricter of the two answers stands — a hook may deny a call or make it ask, never allow what
# the policy would refuse or ask about (its dangerous-command check included).
@hookimpl(wrapper=True, tryfirst=True)
def authorize_tool_call(call: Any, tool: Any, context: Any) -> Generator[None, Any, Any]:
    events = _active()
    mine = events.pre_tool_use(call, tool, context) if events is not None else None
    theirs = yield
    return theirs if events is None else events.combine(mine, theirs)


@hookimpl
def before_tool_call(call: Any) -> None:
    events = _active()
    if events is not None:
        events.tool_started(call)


@hookimpl
def after_tool_call(call: Any, result: Any, conversation: Any) -> None:
    events = _active()
    if events is not None:
        events.tool_finished(call, result, conversation)


@hookimpl
def after_response(message: Any, error: Any, conversation: Any) -> None:
    events = _active()
    if events is not None:
        events.after_response(message, error, conversation)


@hookimpl
def before_compaction(conversation: Any, strategy: str) -> None:
    events = _active()
    if events is not None:
        events.before_compaction(conversation, strategy)


@hookimpl
def after_compaction(conversation: Any, strategy: str, removed: int) -> None:
    events = _active()
    if events is not None:
        events.after_compaction(conversation, strategy, removed)
