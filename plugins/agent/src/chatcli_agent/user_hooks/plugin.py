"""Entry module of the user-hooks plugin: hookimpls only; the work is in ``events``, imported
when some hook is configured (a run without hooks reads the settings and imports nothing else).

A project's hooks are commands a repository someone else wrote would run: its Claude Code
settings files are control files (a ``ControlFile`` each, in ``register_setting_rules``), so
they and the project's ``.chatcli/config.toml`` run hooks only once the user trusted the
project as it is."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl

from chatcli_agent.user_hooks.state import state_of

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from chatcli import ControlFile, Conversation, PromptSection, SettingRule


def _events() -> Any:
    from chatcli_agent.user_hooks import events

    return events


@hookimpl
def configure(host: Any, settings: Any, workspace: Path) -> None:
    from chatcli import user_config_path

    from chatcli_agent.user_hooks.state import CONFIG, nothing_configured

    user_file = user_config_path()
    # host: whose control files trust counts
    if not nothing_configured(settings, workspace, user_file, host):
        from chatcli_agent.user_hooks.settings import load

        loaded = load(settings, workspace, user_file, host=host)
        if loaded.hooks or loaded.problems:
            _events().configure(host, settings, workspace, loaded)
            return
    # no hook: what reads and runs them is never imported
    CONFIG.hooks, CONFIG.workspace = [], workspace


@hookimpl
def register_setting_rules(register: Callable[[SettingRule | ControlFile], None]) -> None:
    from chatcli import ControlFile, SettingRule

    from chatcli_agent.user_hooks.state import PROJECT_CLAUDE_FILES

    register(SettingRule("hooks.trust_project", "never"))  # a project cannot trust itself
    for pattern in PROJECT_CLAUDE_FILES:  # the project's .claude/ settings files
        register(ControlFile(pattern))


@hookimpl
def session_start(conversation: Any) -> None:
    state = state_of(conversation)
    if state is not None:
        _events().session_start(state, conversation)


@hookimpl
def session_end(conversation: Any) -> None:
    state = state_of(conversation)
    if state is not None:
        _events().session_end(state, conversation)


@hookimpl
def user_prompt_submitted(conversation: Any, message: Any) -> None:
    state = state_of(conversation)
    if state is not None:
        _events().user_prompt_submitted(state, conversation, message)


@hookimpl
def prompt_sections(conversation: Conversation | None) -> list[PromptSection] | None:
    state = state_of(conversation)
    return _events().sections(state) if state is not None else None


# A wrapper, run first: the PreToolUse hooks run before the permission policy decides, and the
# stricter of the two answers stands — a hook may deny a call or make it ask, never allow what
# the policy would refuse or ask about (its dangerous-command check included).
@hookimpl(wrapper=True, tryfirst=True)
def authorize_tool_call(call: Any, tool: Any, context: Any) -> Generator[None, Any, Any]:
    state = state_of(context.conversation)
    mine = _events().pre_tool_use(state, call, tool, context) if state is not None else None
    theirs = yield
    return theirs if state is None else _events().combine(mine, theirs)


@hookimpl
def tool_call_decided(call: Any, allowed: bool, conversation: Any) -> None:
    state = state_of(conversation) if allowed else None
    if state is not None:
        _events().tool_started(state, call)


@hookimpl
def after_tool_call(call: Any, result: Any, conversation: Any) -> None:
    state = state_of(conversation)
    if state is not None:
        _events().tool_finished(state, call, result, conversation)


@hookimpl
def after_response(message: Any, error: Any, conversation: Any) -> None:
    state = state_of(conversation)
    if state is not None:
        _events().after_response(state, message, error, conversation)


@hookimpl
def view_changed(conversation: Any, reason: str, strategy: str, removed: int) -> None:
    if reason == "compacting" and state_of(conversation) is not None:
        _events().before_compaction(conversation, strategy)
    elif reason == "compact" and state_of(conversation) is not None:
        _events().after_compaction(conversation, strategy, removed)
