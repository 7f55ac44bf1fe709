"""Entry module of the cost plugin (entry point ``cost``): ``/cost``, the session budget and the
prompt cache's TTL chosen by evidence.

Workers (subagents) run on child conversations (``Conversation(parent=…)``): each of their
calls is counted in the child's own state (its ``/cost`` shows its own calls, its TTL evidence
is its own) and once more, as a worker's call, in its root conversation's (walking
``.parent``), with the worker's id and type from the child's ``metadata["subagent"]``; the
session's spend, its budget and ``/cost``'s workers tables come from the root.

The hooks delegate to :class:`CostPlugin`; the module keeps one instance for the entry point,
and tests register instances of their own (with a clock of their own: a pause is simulated,
not slept). Nothing but the standard library is imported until a hook runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, hookimpl, translation
from chatcli_records_lite import dataclass

if TYPE_CHECKING:
    from chatcli import (
        ChatcliError,
        ChatRequest,
        Conversation,
        Message,
        PluginHost,
        Session,
        Settings,
        SlashCommand,
    )

    from chatcli_context.cost.calls import Calls
    from chatcli_context.cost.ledger import Ledger
    from chatcli_context.cost.settings import CostConfig
    from chatcli_context.cost.ttl import TtlState

__all__ = ["COST", "SESSION", "CostPlugin", "Pending", "plugin", "root_of", "worker_of"]

_, ngettext = translation(__name__)


@dataclass
class Pending:
    """A request on its way: when it was sent, to whom, and the TTL it asked for."""

    started: float
    provider: str | None
    asked: str | None
    may_switch: bool


@dataclass
class ConversationCost:
    """What the plugin keeps about one conversation."""

    ttl: TtlState
    #: the calls its messages do not show (plugins' side calls, purposes other than chat)
    calls: Calls
    pending: Pending | None = None
    #: the budget warnings given: 0, 80 or 100 (percent)
    warned: int = 0


#: What the plugin keeps about a conversation, in the conversation's stash.
COST = StashKey[ConversationCost]()
#: The session holding a conversation (its settings and provider), in the conversation's stash.
SESSION: StashKey[Session] = StashKey()


def root_of(conversation: Conversation) -> Conversation:
    """The conversation at the top of ``conversation``'s ``.parent`` chain (itself for a root;
    a chain that loops ends where it would repeat)."""
    seen = {id(conversation)}
    while conversation.parent is not None and id(conversation.parent) not in seen:
        conversation = conversation.parent
        seen.add(id(conversation))
    return conversation


def worker_of(conversation: Conversation) -> tuple[str, str]:
    """The worker a child conversation's calls are attributed to, ``(id, type)``: the nearest
    conversation of its chain below the root whose ``metadata["subagent"]`` names an id (a
    subagent's own, even a nested one), else the child itself (its title or id, type "-")."""
    root = root_of(conversation)
    cursor: Conversation | None = conversation
    seen: set[int] = set()
    while cursor is not None and cursor is not root and id(cursor) not in seen:
        seen.add(id(cursor))
        subagent = cursor.metadata.get("subagent") if isinstance(cursor.metadata, dict) else None
        if isinstance(subagent, dict) and subagent.get("id"):
            kind = subagent.get("type")
            return str(subagent["id"]), str(kind) if kind else "-"
        cursor = cursor.parent
    return conversation.title.split(":", 1)[0].strip() or conversation.id, "-"


class CostPlugin:
    """The cost plugin: ``configure``, ``session_start``, ``before_request`` (the TTL),
    ``after_response`` (the evidence and the budget; it takes ``purpose``, so it also counts
    the side calls plugins make through :meth:`chatcli.Engine.side_call`) and ``/cost``.

    :param clock: the time in seconds since the epoch (as ``Message.created_at`` counts it).
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        #: set by ``configure``, which is historic: it comes before any hook or command that
        #: reads it, even for an instance registered after the session opened
        self.host: PluginHost
        self.settings: Settings | None = None
        self._config: tuple[Any, CostConfig] | None = None
        self._reported: set[str] = set()
        #: side calls come on the threads that make them (memory's worker)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ settings

    def config(self, settings: Settings | None = None) -> CostConfig:
        """The ``[cost]`` settings (of ``settings``, else of the run); a wrong value is
        reported once and left out."""
        from chatcli_context.cost.settings import CostConfig, read_config

        settings = settings if settings is not None else self.settings
        if settings is None:
            return CostConfig()
        if self._config is None or self._config[0] is not settings:
            self._config = (settings, read_config(settings))
            for problem in self._config[1].problems:
                self._warn(_("cost: {problem}; ignored").format(problem=problem))
        return self._config[1]

    def _warn(self, line: str) -> None:
        if line in self._reported:
            return
        self._reported.add(line)
        self.host.warn(line)

    def _settings_of(self, conversation: Conversation) -> Settings | None:
        session = root_of(conversation).stash.get(SESSION, None)
        return session.settings if session is not None else self.settings

    def offered_ttls(self, provider: str | None) -> tuple[str, ...]:
        """The TTLs ``provider`` offers (its spec's ``Capabilities.cache_ttls``)."""
        if provider is None:
            return ()
        spec = self.host.providers().get(provider)
        return tuple(spec.capabilities.cache_ttls) if spec is not None else ()

    def fixed_ttl(self, provider: str | None, settings: Settings | None = None
                  ) -> tuple[str, str] | None:
        """``(ttl, where)`` when a setting fixes ``provider``'s TTL: ``CHATCLI_PROMPT_CACHE_TTL``
        or ``[cost] cache_ttl``, else the provider's own ``cache_ttl`` option."""
        explicit = self.config(settings).cache_ttl
        if explicit is not None:
            return explicit
        settings = settings if settings is not None else self.settings
        if provider is None or settings is None:
            return None
        extra = settings.provider_settings(provider).model_extra or {}
        value = extra.get("cache_ttl")
        if value in self.offered_ttls(provider):
            return str(value), f"[providers.{provider}] cache_ttl"
        return None

    def ttl_in_force(self, conversation: Conversation, provider: str | None
                     ) -> tuple[str | None, str]:
        """The TTL ``provider``'s requests in ``conversation`` ask for, and why."""
        from chatcli_context.cost.ttl import LONG, SHORT

        offered = self.offered_ttls(provider)
        if not offered:
            return None, "no choice"
        fixed = self.fixed_ttl(provider, self._settings_of(conversation))
        if fixed is not None:
            ttl, where = fixed
            if ttl in offered:
                return ttl, _("set by {where}").format(where=where)
            return offered[0], _("the only one")
        state = self.state(conversation).ttl
        if state.switch is not None and LONG in offered:
            return LONG, "evidence"
        return SHORT if SHORT in offered else offered[0], "default"

    # ------------------------------------------------------------------ state

    def state(self, conversation: Conversation) -> ConversationCost:
        """What the plugin knows of ``conversation``; the first time, its log is replayed, so
        a resumed conversation goes on with the TTL its history earned."""
        with self._lock:
            state = conversation.stash.get(COST, None)
            if state is None:
                from chatcli_context.cost.calls import load
                from chatcli_context.cost.ttl import TtlState

                state = conversation.stash[COST] = ConversationCost(TtlState(),
                                                                    load(conversation.id))
                self._replay(conversation, state)
            return state

    def _replay(self, conversation: Conversation, state: ConversationCost) -> None:
        from chatcli_context.cost.ttl import Call, answers

        log = conversation.log
        for message in answers(conversation.all_messages()):
            parent = log.get(message.parent_id) if message.parent_id else None
            started = parent.created_at if parent is not None else message.created_at
            asked, may_switch = self._asking(conversation, message.provider, state)
            assert message.usage is not None
            state.ttl.observe(Call(started, message.usage, message.provider), may_switch,
                              message.id, asked)

    def _asking(self, conversation: Conversation, provider: str | None,
                state: ConversationCost) -> tuple[str | None, bool]:
        """The TTL a request to ``provider`` asks for now, and whether the evidence may act."""
        from chatcli_context.cost.ttl import LONG, SHORT

        offered = self.offered_ttls(provider)
        if not offered:
            return None, False
        fixed = self.fixed_ttl(provider, self._settings_of(conversation))
        if fixed is not None:
            return (fixed[0] if fixed[0] in offered else offered[0]), False
        ttl = state.ttl.by_evidence
        return (ttl if ttl in offered else offered[0]), (LONG in offered and ttl == SHORT)

    def provider_of(self, conversation: Conversation) -> str | None:
        """The provider answering ``conversation``: its session's, else the last answer's (a
        worker's before its first answer: its root's)."""
        session = conversation.stash.get(SESSION, None)
        if session is not None:
            return session.provider_name
        for message in reversed(conversation.messages()):
            if message.provider:
                return message.provider
        root = root_of(conversation)
        return self.provider_of(root) if root is not conversation else None

    def ledger(self, conversation: Conversation) -> Ledger:
        """What ``conversation`` spent, per provider and model, from its messages."""
        from chatcli_context.cost.ledger import ledger

        state = self.state(conversation)
        with self._lock:
            side, purposes = list(state.calls.side), dict(state.calls.purposes)
            workers = list(state.calls.workers)
            used = dict(state.ttl.used)
        return ledger(conversation.all_messages(),
                      self.config(self._settings_of(conversation)).prices,
                      lambda message: used.get(message.id), side=side,
                      purpose_of=lambda message: purposes.get(message.id, "chat"),
                      workers=workers)

    def counted_any(self, conversation: Conversation) -> bool:
        """Whether :meth:`ledger` of ``conversation`` has a line: a model call answered with
        usage, a side call or a worker's call."""
        from chatcli import Role

        state = self.state(conversation)
        with self._lock:
            if state.calls.side or state.calls.workers:
                return True
        return any(message.role == Role.ASSISTANT and message.usage is not None
                   for message in conversation.all_messages())

    # ------------------------------------------------------------------ hooks

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self.host, self.settings = host, settings
        self.config(settings)

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        conversation.stash[SESSION] = session
        self.state(conversation)

    @hookimpl(trylast=True)
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        limit = self.config(self._settings_of(conversation)).limit
        if limit is not None:  # spent: the call is refused (a ConfigError ends the turn)
            from chatcli_context.cost.limit import check_limit

            check_limit(self.ledger(root_of(conversation)).money, limit)
        state = self.state(conversation)
        provider = self.provider_of(conversation)
        asked: str | None
        if request.cache_ttl is not None:  # another plugin chose: the evidence stays out
            asked, may_switch = request.cache_ttl, False
        else:
            asked, may_switch = self._asking(conversation, provider, state)
            request.cache_ttl = asked
        state.pending = Pending(self.clock(), provider, asked, may_switch)

    @hookimpl
    def after_response(self, message: Message | None, error: ChatcliError | None,
                       conversation: Conversation, purpose: str) -> None:
        from chatcli_context.cost.ttl import Call

        state = self.state(conversation)
        if message is not None and message.id not in conversation.log:  # a plugin's side call
            self._side_call(conversation, state, message, purpose)
            self._worker_call(conversation, message, purpose, None)
            self._check_budget(conversation)
            return
        pending, state.pending = state.pending, None
        if message is None or message.usage is None:
            return
        # (counted by the conversation's ledger from its log, with or without a pending
        # request: so its worker's call too)
        self._worker_call(conversation, message, purpose,
                          pending.asked if pending is not None else None)
        if pending is not None:
            if purpose != "chat":
                with self._lock:
                    state.calls.purposes[message.id] = purpose
                self._keep(conversation, {"message": message.id, "purpose": purpose})
            state.ttl.observe(Call(pending.started, message.usage, message.provider),
                              pending.may_switch and message.provider == pending.provider,
                              message.id, pending.asked)
        self._check_budget(conversation)

    def _side_call(self, conversation: Conversation, state: ConversationCost,
                   message: Message, purpose: str) -> None:
        """Count a side call (its usage; none when it failed before the provider said)."""
        from chatcli import Usage

        from chatcli_context.cost.calls import SideCall, side_entry

        call = SideCall(purpose, message.provider or "unknown", message.model or "unknown",
                        message.usage or Usage(), self.clock())
        with self._lock:
            state.calls.side.append(call)
        self._keep(conversation, side_entry(call))

    def _worker_call(self, conversation: Conversation, message: Message, purpose: str,
                     ttl: str | None) -> None:
        """Count a child conversation's call once more in its root's calls, as its worker's
        (nothing for a root's own call)."""
        root = root_of(conversation)
        if root is conversation:
            return
        from chatcli import Usage

        from chatcli_context.cost.calls import WorkerCall, worker_entry

        worker, kind = worker_of(conversation)
        call = WorkerCall(worker, kind, conversation.id, purpose, message.provider or "unknown",
                          message.model or "unknown", message.usage or Usage(), self.clock(),
                          ttl)
        state = self.state(root)
        with self._lock:
            state.calls.workers.append(call)
        self._keep(root, worker_entry(call))

    def _keep(self, conversation: Conversation, entry: dict[str, object]) -> None:
        """Append ``entry`` to the conversation's calls file (reported once when it fails)."""
        from chatcli_context.cost.calls import record

        try:
            record(conversation.id, entry)
        except OSError as err:
            self._warn(_("cost: the calls of this session could not be kept ({error}); /cost "
                         "after -c will miss them").format(error=err))

    def _check_budget(self, conversation: Conversation) -> None:
        """Warn when the session's spend (its root conversation's, workers included) crosses
        80 % or 100 % of ``[cost] budget``, once each."""
        budget = self.config(self._settings_of(conversation)).budget
        if budget is None:
            return
        conversation = root_of(conversation)
        state = self.state(conversation)
        spent = self.ledger(conversation).money
        share = spent / budget
        level = 100 if share >= 1 else 80 if share >= 0.8 else 0
        with self._lock:
            if level <= state.warned:
                return
            state.warned = level
        from chatcli_context.cost.command import usd

        if level == 100:
            line = _("cost: {spent} spent, over this session's budget of {budget} "
                     "({share:.0%}); /cost shows where it went, [cost] budget moves the line")
        else:
            line = _("cost: {spent} spent, {share:.0%} of this session's budget of {budget}; "
                     "/cost shows where it went")
        line = line.format(spent=usd(spent), budget=usd(budget), share=share)
        self.host.warn(line)

    @hookimpl
    def register_slash_commands(self, register: Callable[[SlashCommand], None]) -> None:
        from chatcli_context.cost.command import slash_command

        register(slash_command(self))


#: The instance behind the entry point.
plugin = CostPlugin()

configure = plugin.configure
session_start = plugin.session_start
before_request = plugin.before_request
after_response = plugin.after_response
register_slash_commands = plugin.register_slash_commands


@hookimpl
def register_setting_rules(register: Callable[[Any], None]) -> None:
    """``[cost] limit``: a project's (even untrusted) may only lower it, and so may every layer
    under the managed policy's."""
    from chatcli import SettingRule

    register(SettingRule("cost.limit", "always", "min"))


@hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
def status_items(session: Session) -> dict[str, str] | None:
    """What the session spent so far, for the chat's status line (``$0.0123``; ``+ ?`` when a
    call had no known price); nothing before the first call."""
    if not plugin.counted_any(session.conversation):
        return None  # (an empty ledger has no lines: neither made nor imported)
    from chatcli_context.cost.command import usd

    ledger = plugin.ledger(session.conversation)
    if not ledger.lines:
        return None
    return {"spend": usd(ledger.money) + (" + ?" if ledger.unpriced else "")}
