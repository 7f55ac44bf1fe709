"""Entry module of the permission policy (entry point ``permissions``).

The hooks delegate to :class:`PermissionsPlugin`; the module keeps one instance for the entry
point, and tests register instances of their own. Nothing heavy is imported until a session
starts or a tool call is judged.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, hookimpl, translation

from chatcli_agent.permissions.cli_options import register_cli_options  # --allow and the mode

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import (
        Approval,
        Conversation,
        Decision,
        PluginHost,
        Session,
        Settings,
        SlashCommand,
        ToolCallPart,
        ToolContext,
        ToolSpec,
        Verdict,
    )

    from chatcli_agent.permissions.state import PermissionState

__all__ = ["STATE", "PermissionsPlugin", "current_mode", "register_cli_options", "set_mode",
           "state_of"]

_, ngettext = translation(__name__)

#: The permissions of a session, in its stash and in the stash of each conversation it holds
#: (the same object: ``/new`` keeps the rules granted for the session).
STATE: StashKey[PermissionState] = StashKey()


class PermissionsPlugin:
    """The permission policy as a plugin: ``authorize_tool_call`` (a wrapper, so that no other
    plugin's answer can let a dangerous call through), ``tool_call_decided``, ``configure``,
    ``session_start`` and ``/permissions``."""

    def __init__(self) -> None:
        self._last: PermissionState | None = None
        self._settings: Settings | None = None
        self._workspace: Path | None = None
        self._host: PluginHost | None = None

    # ------------------------------------------------------------------ state

    def state_for(self, session: Session) -> PermissionState:
        """The permissions of ``session`` (made on first need)."""
        state = session.stash.get(STATE, None)
        if state is None:
            from chatcli_agent.permissions.state import load_state

            options = session.options
            try:
                tools = list(session.host.tools())
            except Exception:  # a host that cannot list its tools: the built-in names only
                tools = []
            state = load_state(session.settings, session.workspace, options.allow,
                               options.permission_mode, tools=tools)
            session.stash[STATE] = state
        self._last = state
        return state

    def _state(self, context: ToolContext) -> PermissionState:
        conversation = context.conversation
        branch = conversation
        while branch is not None:  # a child run (a subagent's) is judged by its parent's rules
            state = branch.stash.get(STATE, None)
            if state is not None:
                if branch is not conversation:
                    conversation.stash[STATE] = state  # type: ignore[union-attr]
                return state
            branch = branch.parent
        if self._last is not None and conversation is None:
            return self._last
        from chatcli_agent.permissions.state import load_state

        state = load_state(context.settings, context.workspace)
        if conversation is not None:
            conversation.stash[STATE] = state
        return state

    # ------------------------------------------------------------------ hooks

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self._settings, self._workspace, self._host = settings, workspace, host

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        conversation.stash[STATE] = self.state_for(session)

    @hookimpl(wrapper=True)
    def authorize_tool_call(self, call: ToolCallPart, tool: ToolSpec, context: ToolContext
                            ) -> Generator[None, Any, Decision | Verdict | None]:
        other = yield
        return self.decide(call, tool, context, other)

    def decide(self, call: ToolCallPart, tool: ToolSpec, context: ToolContext,
               other: Decision | Verdict | None = None) -> Verdict:
        """The policy's verdict, combined with another plugin's answer: another plugin may
        deny, or ask where the policy allows, or allow what the policy would merely ask about —
        never what is denied, dangerous or hidden from it."""
        from chatcli import Decision, Verdict

        state = self._state(context)
        judgement = state.policy.judge(call, tool)
        mine = judgement.verdict
        theirs = other if isinstance(other, Verdict) or other is None else Verdict(other)
        if theirs is not None and theirs.confinement is None:
            # what the call may reach is the policy's to say (deny rules' paths stay hidden)
            theirs = theirs._replace(confinement=mine.confinement)
        verdict = mine
        if theirs is not None:
            if theirs.decision == Decision.DENY:
                return theirs
            if theirs.decision == Decision.ALLOW and mine.decision == Decision.ASK:
                from chatcli_agent.permissions.policy import ASK_RULE

                if not any(p.level <= ASK_RULE for p in judgement.parts):
                    return theirs
            if theirs.decision == Decision.ASK and mine.decision == Decision.ALLOW:
                from chatcli_agent.permissions.policy import NEED, Judgement, Part

                judgement = Judgement(theirs, [], True, [Part(NEED, theirs.reason or _(
                    "{tool} asks").format(tool=tool.name))])
                verdict = theirs
        if verdict.decision == Decision.ASK:
            if not context.interactive:
                return state.policy.unattended(judgement)
            state.pending[call.id] = judgement
        return verdict

    @hookimpl
    def tool_call_decided(self, call: ToolCallPart, tool: ToolSpec, approval: Approval | None,
                          verdict: Verdict, conversation: Conversation | None) -> None:
        # the permissions that asked: the conversation's (as ``decide`` found them)
        state = (conversation.stash.get(STATE, None) if conversation is not None
                 else self._last)
        judgement = state.pending.pop(call.id, None) if state is not None else None
        if state is None or judgement is None or approval is None:
            return
        if not approval.allow or approval.scope not in ("session", "always"):
            return
        if judgement.hard or not judgement.rules:
            return
        from chatcli_agent.permissions.state import SAVED, SESSION, save_project_allow_rules

        if approval.scope == "always":  # for this project, in the user's own config folder
            rules = ", ".join(judgement.rules)
            try:
                root, path = save_project_allow_rules(state.workspace, judgement.rules)
            except Exception as err:
                line = _("could not save {rules} for this project: {error}; allowed for this "
                         "session only").format(rules=rules, error=err)
                state.add_rules(judgement.rules, "allow", SESSION)
                state.notes.append(line)
            else:  # (/permissions lists the rule and names the file)
                line = _("saved {rules} for this project ({root}) in {path}; other projects "
                         "still ask (/permissions lists the rules)").format(rules=rules,
                                                                            root=root, path=path)
                state.add_rules(judgement.rules, "allow", SAVED)
            if self._host is not None:
                self._host.warn(_("permissions: {line}").format(line=line))
        else:
            state.add_rules(judgement.rules, "allow", SESSION)

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_agent.permissions.command import slash_command

        register(slash_command(self))


@hookimpl
def register_setting_rules(register: Callable[[Any], None]) -> None:
    """What a project's config may set of ``[permissions]``: never the mode; allow rules only
    when trusted, and only edits inside it (never reads, exec, network or MCP); deny and ask
    rules always, added to the user's (a project cannot erase them)."""
    from chatcli import SettingRule

    register(SettingRule("permissions.mode", "never"))
    register(SettingRule("permissions.allow", "trusted", "union", keep=_project_allow_rules))
    register(SettingRule("permissions.deny", "always", "union"))
    register(SettingRule("permissions.ask", "always", "union"))


def _project_allow_rules(value: Any, _root: Path) -> list[str]:
    """The allow rules a trusted project may add: edits of a relative path that stays inside
    the project and names no dot-file or dot-folder (chatcli's and git's control files —
    ``.git/hooks``, ``.chatcli``, ``.mcp.json`` — nor a glob that could spell one: ``[.]git``,
    ``?git``, ``\\.git``). Not reads: inside the workspace they run anyway, so a project's
    read rule could only unlock what asks (credentials)."""
    from chatcli_agent.permissions.rules import EDIT_TOOLS, RuleError, parse_rule

    kept = []
    for text in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
        try:
            rule = parse_rule(text)
        except RuleError:
            continue
        spec = rule.specifier or ""
        parts = spec.removeprefix("./").split("/")
        if (rule.tool in EDIT_TOOLS | {"edit"} and spec
                and not spec.startswith(("/", "~", "$")) and ".." not in parts
                and not any(part.startswith((".", "?")) or "[" in part or "\\" in part
                            for part in parts)):
            kept.append(text)
    return kept


_PLUGIN = PermissionsPlugin()

configure = _PLUGIN.configure
session_start = _PLUGIN.session_start
authorize_tool_call = _PLUGIN.authorize_tool_call
tool_call_decided = _PLUGIN.tool_call_decided
register_slash_commands = _PLUGIN.register_slash_commands


def state_of(session: Session) -> PermissionState:
    """The permissions of ``session`` as the installed policy sees them."""
    return _PLUGIN.state_for(session)


def current_mode(session: Session) -> str:
    """The permission mode of ``session`` (``default``, ``accept-edits``, ``plan``, ``auto``)."""
    return _PLUGIN.state_for(session).mode


def set_mode(session: Session, mode: str) -> None:
    """Switch the permission mode of ``session``; raises ValueError for an unknown mode."""
    _PLUGIN.state_for(session).set_mode(mode, "set_mode")


@hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
def status_items(session: Session) -> dict[str, str] | None:
    """The permission mode, for the chat's status line (``plan mode``)."""
    return {"mode": _("{mode} mode").format(mode=_PLUGIN.state_for(session).mode)}
