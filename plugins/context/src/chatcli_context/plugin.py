"""Entry module of the context plugin (entry point ``context``): hook implementations only.

The hooks delegate to :class:`ContextPlugin`; the module keeps one instance for the entry point
and tests may register instances of their own. Nothing but ``chatcli.hookimpl`` is imported
here: the prompt, the store, pathspec and pydantic load on first use inside the hooks, so
``chatcli --help`` pays nothing for this plugin.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import StashKey, hookimpl

if TYPE_CHECKING:
    from pathlib import Path

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
    )
    from chatcli_plugin_records import PullKind

    from chatcli_context.prompt import Plan
    from chatcli_context.pull import PullCounter

__all__ = ["PREFIX", "ContextPlugin"]

#: What the last request of a conversation held in its cacheable prefix (for ``/context
#: status``), in the conversation's stash.
PREFIX: StashKey[list[tuple[str, int]]] = StashKey()


class ContextPlugin:
    """Bootstrap files, path rules, attached contexts, the curated prompt, ``context_pull`` and
    ``/context``, for one plugin host."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        #: set by ``/context pull on|off`` for the rest of the run (None: the settings decide)
        self.pull_override: bool | None = None
        #: the conversation worked on last: the one the tool list is for (``register_tools``
        #: gets no conversation)
        self._current: weakref.ref[Conversation] | None = None
        #: whether context_pull is offered (None: not decided yet)
        self._armed: bool | None = None
        self._counter: PullCounter | None = None
        self._warned: set[str] = set()

    # ------------------------------------------------------------------ state

    @property
    def counter(self) -> PullCounter:
        if self._counter is None:
            from chatcli_context.pull import PullCounter

            self._counter = PullCounter()
        return self._counter

    def track(self, conversation: Conversation) -> None:
        """``conversation`` is the one being worked on (prompts are built for it)."""
        self._current = weakref.ref(conversation)

    def current(self) -> Conversation | None:
        return self._current() if self._current is not None else None

    def last_prefix(self, conversation: Conversation) -> list[tuple[str, int]] | None:
        """What the last request of ``conversation`` held in its cacheable prefix."""
        return conversation.stash.get(PREFIX, None)

    def pull_on(self, settings: Settings | None = None) -> bool:
        """Whether context_pull is on (``/context pull`` first, then the settings)."""
        if self.pull_override is not None:
            return self.pull_override
        from chatcli_context.settings import pull_enabled

        return pull_enabled(settings or self.settings
                            or (self.host.settings if self.host else None))

    def own_kind_names(self) -> set[str]:
        return {"contexts", "context", "history", "bootstrap"}

    def kinds(self) -> dict[str, PullKind]:
        """Every kind context_pull serves (other plugins' too, once configured)."""
        if self.host is not None:
            from chatcli_plugin_records import PullKind

            return dict(self.host.collect("register_pull_kinds", PullKind, "pull kind"))
        from chatcli_context.kinds import own_kinds

        return {kind.name: kind for kind in own_kinds()}

    def plan(self, conversation: Conversation | None, messages: list[Message] | None = None,
             settings: Settings | None = None, curated: bool | None = None) -> Plan:
        """This plugin's part of the prompt for the next call on ``conversation``."""
        from chatcli_context.prompt import build_plan

        settings = settings or self.settings or (self.host.settings if self.host else None)
        if messages is None:
            messages = conversation.view() if conversation is not None else []
        workspace = self.workspace or (self.host.workspace if self.host else None)
        if workspace is None:
            from pathlib import Path

            workspace = Path.cwd()
        plan = build_plan(settings=settings, workspace=workspace, messages=messages,
                          conversation=conversation,
                          curated=self.pull_on(settings) if curated is None else curated)
        self._warn(plan.problems)
        return plan

    def _warn(self, problems: list[str]) -> None:
        for problem in problems:
            if problem not in self._warned and self.host is not None:
                self._warned.add(problem)
                self.host.warn(f"context: {problem}")

    def offers_tool(self, plan: Plan | None, settings: Settings | None = None) -> bool:
        """Whether context_pull should be offered: pull is on and something is deferred (here,
        or by another plugin, which registered kinds of its own)."""
        if not self.pull_on(settings):
            return False
        if set(self.kinds()) - self.own_kind_names():
            return True
        return bool(plan.deferred) if plan is not None else False

    def _wanted(self, conversation: Conversation | None, settings: Settings | None) -> bool:
        """:meth:`offers_tool` with the plan built only when the answer depends on it: when
        another plugin's kinds are served, the tool is offered whatever this plugin defers."""
        if not self.pull_on(settings):
            return False
        if set(self.kinds()) - self.own_kind_names():
            return True
        return self.offers_tool(self.plan(conversation, settings=settings), settings)

    def refresh(self, conversation: Conversation | None = None, plan: Plan | None = None,
                settings: Settings | None = None) -> None:
        """Offer or withdraw context_pull so the next model call's tools match its prompt."""
        conversation = conversation or self.current()
        wanted = (self.offers_tool(plan, settings) if plan is not None
                  else self._wanted(conversation, settings))
        if wanted != self._armed:
            self._armed = wanted
            if self.host is not None:
                self.host.tools_changed()

    # ------------------------------------------------------------------ set-up hooks

    @hookimpl
    def add_hookspecs(self, add: Callable[[object], None]) -> None:
        """Declare this plugin's hook, register_pull_kinds:
        what other plugins let context_pull bring back."""
        from chatcli_context import hookspecs

        add(hookspecs)

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self.host, self.settings, self.workspace = host, settings, workspace
        self.pull_override, self._armed, self._counter = None, None, None
        self._current = None
        self._warned.clear()

    @hookimpl
    def register_pull_kinds(self, register: Callable[[PullKind], None]) -> None:
        from chatcli_context.kinds import own_kinds

        for kind in own_kinds():
            register(kind)

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None], settings: Settings) -> None:
        if not self.pull_on(self.settings or settings):
            self._armed = False
            return
        if self._armed is None:
            self._armed = self._wanted(self.current(), self.settings or settings)
        if self._armed:
            from chatcli_context.pull import make_tool

            register(make_tool(self.kinds(), self.counter))

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_context.commands import slash_command

        register(slash_command(self))

    # ------------------------------------------------------------------ sessions and turns

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        from chatcli_context.store import sync_attached

        self.settings = settings
        self.workspace = session.workspace
        self.track(conversation)
        sync_attached(conversation)
        # in a chat the plan is built here even when the tool's offer does not need it: what
        # it finds wrong in the settings or files is said as the session starts; a one-shot
        # run builds it for its prompt next, which says the same lines
        plan = self.plan(conversation) if session.interactive and self.pull_on() else None
        self.refresh(conversation, plan)

    @hookimpl
    def user_prompt_submitted(self, conversation: Conversation) -> None:
        self.track(conversation)
        self.refresh(conversation)

    @hookimpl
    def after_response(self, conversation: Conversation) -> None:
        self.refresh(conversation)

    @hookimpl
    def view_changed(self, conversation: Conversation) -> None:
        self.refresh(conversation)

    @hookimpl
    def head_moved(self, conversation: Conversation, reason: str) -> None:
        if reason == "retry":
            self.counter.reset(conversation)
        self.refresh(conversation)

    @hookimpl
    def prompt_sections(self, settings: Settings, workspace: Path, messages: list[Message],
                        conversation: Conversation | None) -> list[PromptSection] | None:
        self.settings, self.workspace = settings, workspace
        if conversation is None:  # a caller without one: the conversation worked on last
            conversation = self.current()
        plan = self.plan(conversation, messages, settings)
        wanted = self.offers_tool(plan, settings)
        if wanted != self._armed and self._armed is not None:
            self.refresh(conversation, plan, settings)
        return plan.sections or None

    @hookimpl
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        import json

        prefix = [("tools", hash(json.dumps([[t.name, t.description, t.parameters]
                                             for t in request.tools], sort_keys=True,
                                            default=str)))]
        prefix += [(s.name, hash(s.text)) for s in request.ordered_system() if s.stable]
        conversation.stash[PREFIX] = prefix


_PLUGIN = ContextPlugin()

add_hookspecs = _PLUGIN.add_hookspecs
configure = _PLUGIN.configure
register_pull_kinds = _PLUGIN.register_pull_kinds
register_tools = _PLUGIN.register_tools
register_slash_commands = _PLUGIN.register_slash_commands
session_start = _PLUGIN.session_start
user_prompt_submitted = _PLUGIN.user_prompt_submitted
after_response = _PLUGIN.after_response
view_changed = _PLUGIN.view_changed
head_moved = _PLUGIN.head_moved
prompt_sections = _PLUGIN.prompt_sections
before_request = _PLUGIN.before_request


@hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
def status_items(session: Session) -> dict[str, str] | None:
    """How full the context window was at the last answer (the provider's count: its input
    and output tokens), for the chat's status line (``ctx 12%``); nothing before an answer."""
    window = session.engine.current.context_window
    for message in reversed(session.conversation.messages()):
        if message.usage is not None and message.usage.total_tokens and window:
            return {"context": f"ctx {message.usage.total_tokens / window:.0%}"}
    return None
