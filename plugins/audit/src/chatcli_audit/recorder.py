"""The audit plugin's work: a record for each thing worth auditing, appended to the log.

Records (one JSON object a line; see the README for every field):

- ``session``: a conversation begins or ends in a session (``event``: ``start``/``end``);
- ``tool_call``: a call was decided — the policy's decision, whether it runs, who decided;
- ``command``: a shell tool ran a command — the command (an excerpt) and its exit code;
- ``file_change``: a file tool changed a file — its path and what was done;
- ``model_call``: a model call ended — provider, model, purpose, tokens, cost.

A record never holds a key (every text goes through :func:`chatcli.redact`) nor more of a
command, of arguments or of a reason than ``[audit] excerpt`` characters; results and file
contents are never recorded.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, translation

from chatcli_audit.cost import CostReader
from chatcli_audit.decided import decided_by, managed
from chatcli_audit.records import (
    changed_paths,
    command_of,
    excerpt,
    exit_status,
    now,
    shown_arguments,
)
from chatcli_audit.settings import AuditConfig, read_config
from chatcli_audit.writer import JsonlWriter

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import (
        Approval,
        ChatcliError,
        Conversation,
        Message,
        PluginHost,
        Session,
        Settings,
        ToolCallPart,
        ToolResultPart,
        ToolSpec,
        Verdict,
    )

__all__ = ["Recorder", "Sink"]

_, ngettext = translation(__name__)


class Sink:
    """Where records go: the JSON-lines file, and the PostgreSQL table when there is one
    (:class:`chatcli_audit.postgres.PostgresSink`)."""

    def __init__(self, config: AuditConfig, table: Any = None) -> None:
        self.config = config
        self.writer = JsonlWriter(config.file, config.max_bytes, config.keep)
        self.table = table

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line (an :class:`OSError` is raised after the table, if
        any, got it)."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        try:
            self.writer.append(line.encode("utf-8", errors="replace") + b"\n")
        finally:
            if self.table is not None:
                self.table.write(json.loads(line))  # (what the file has: plain JSON values)


class ConversationAudit:
    """What the audit keeps about one conversation: its session, the turn in progress, the
    calls allowed to run (id → the tool's spec)."""

    def __init__(self, session_id: str, mode: str) -> None:
        self.session_id = session_id
        self.mode = mode
        self.session: Session | None = None
        self.turn: str | None = None
        self.running: dict[str, ToolSpec] = {}
        #: the calls decided whose result has not come yet
        self.decided: set[str] = set()


#: The audit's state of a conversation, in its stash.
STATE: StashKey[ConversationAudit] = StashKey()


def _root(conversation: Conversation) -> Conversation:
    seen = {id(conversation)}
    while conversation.parent is not None and id(conversation.parent) not in seen:
        conversation = conversation.parent
        seen.add(id(conversation))
    return conversation


def _value(item: Any) -> str:
    """An enum's value, or the text of anything else."""
    return str(getattr(item, "value", item))


class Recorder:
    """Makes the records and hands them to the sink; one per process (the plugin's)."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        self.settings: Settings | None = None
        self.workspace: Path | None = None
        self._sink: Sink | None = None
        self._config: AuditConfig | None = None
        self._lock = threading.Lock()
        self._reported: set[str] = set()
        self.cost = CostReader()

    # ------------------------------------------------------------------ set-up

    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        """Keep the host, the settings and the workspace. The ``[audit]`` table is read when
        a session starts (``session_start`` may stop the run with a :class:`ConfigError`: a
        wrong value is one line naming the key, exit 2)."""
        self.host, self.settings, self.workspace = host, settings, workspace
        self._config = None
        self._sink = None

    @property
    def config(self) -> AuditConfig:
        """The settings in force (read on first need)."""
        if self._config is None:
            self._config = read_config(self.settings)
        return self._config

    def sink(self) -> Sink | None:
        """The sink, made on first need; None when the log is off."""
        if not self.config.enabled:
            return None
        with self._lock:
            if self._sink is None:
                self._sink = Sink(self.config, self._table())
            return self._sink

    def _table(self) -> Any:
        """The PostgreSQL sink, where sessions live in PostgreSQL (and ``[audit] postgres``
        is not false), else None."""
        if not self.config.postgres or self.settings is None \
                or self.settings.plugin_table("sessions").get("backend") != "postgres":
            return None  # (the table's place needs sessions in PostgreSQL: see table_config)
        from chatcli_audit.postgres import PostgresSink, table_config

        place = table_config(self.settings)
        return PostgresSink(place, self._warn) if place is not None else None

    def _warn(self, line: str) -> None:
        if line in self._reported or self.host is None:
            return
        self._reported.add(line)
        self.host.warn(line)

    def emit(self, conversation: Conversation | None, kind: str, **fields: Any) -> None:
        """Write one record of ``kind`` about ``conversation``; a failure is reported once
        (the turn goes on)."""
        sink = self.sink()
        if sink is None:
            return
        record: dict[str, Any] = {"time": now(), "kind": kind}
        if conversation is not None:
            state = self.state(conversation)
            record["session"] = state.session_id
            if conversation.id != state.session_id:
                record["conversation"] = conversation.id
            if state.turn is not None:
                record["turn"] = state.turn
        record.update(fields)
        try:
            sink.write(record)
        except OSError as err:
            from chatcli import redact

            self._warn(_("audit: could not write to {path} ({reason}); records are being lost — "
                         "fix the folder or set [audit] path").format(path=sink.config.file,
                                                                      reason=redact(str(err))))

    # ------------------------------------------------------------------ state

    def state(self, conversation: Conversation) -> ConversationAudit:
        """The audit's state of ``conversation`` (a child run's — a subagent's — belongs to
        its root conversation's session)."""
        state = conversation.stash.get(STATE, None)
        if state is None:
            root = _root(conversation)
            parent = root.stash.get(STATE, None) if root is not conversation else None
            state = ConversationAudit(parent.session_id if parent else root.id,
                                      parent.mode if parent else self._mode(None))
            if parent is not None:
                state.session = parent.session
            conversation.stash[STATE] = state
        return state

    def _mode(self, session: Session | None) -> str:
        """The permission mode: what the policy shows (``status_items``, when a front end
        declares it), else the ``--permission-mode`` flag, else ``[permissions] mode``."""
        if session is not None and self.host is not None \
                and "status_items" in self.host.declared_hooks:
            try:
                items = self.host.hook.status_items(session=session) or []
            except Exception:  # (isolated by the host; be safe when it is not)
                items = []
            for item in items:
                mode = item.get("mode") if isinstance(item, dict) else None
                if isinstance(mode, str) and mode.endswith(" mode"):
                    return mode.removesuffix(" mode")
        flag = session.options.permission_mode if session is not None else None
        if flag:
            return str(flag)
        settings = session.settings if session is not None else self.settings
        table = settings.plugin_table("permissions") if settings is not None else {}
        mode = table.get("mode")
        return mode if isinstance(mode, str) and mode else "default"

    def _allow_rules(self, state: ConversationAudit | None) -> list[str] | None:
        """The session's ``--allow`` values and ``[permissions] allow`` rules (None when the
        session is not known)."""
        session = state.session if state is not None else None
        if session is None:
            return None
        rules = [str(item) for item in session.options.allow]
        configured = session.settings.plugin_table("permissions").get("allow")
        if isinstance(configured, str):
            configured = [configured]
        if isinstance(configured, list):
            rules.extend(str(item) for item in configured)
        return rules

    # ------------------------------------------------------------------ hooks

    def session_start(self, session: Session, conversation: Conversation) -> None:
        """A ``session`` record (``start``): provider, model, mode, workspace, user."""
        if not self.config.enabled:
            return
        import getpass

        state = self.state(conversation)
        state.session, state.mode = session, self._mode(session)
        self.cost.baseline(self.host, conversation)
        try:
            user = getpass.getuser()
        except Exception:  # (no name for this uid in a container)
            user = None
        self.emit(conversation, "session", event="start", provider=session.provider_name,
                  model=session.model, mode=state.mode, workspace=str(session.workspace),
                  user=user)

    def session_end(self, conversation: Conversation) -> None:
        """A ``session`` record (``end``)."""
        if self.config.enabled:
            self.emit(conversation, "session", event="end")

    def user_prompt_submitted(self, conversation: Conversation, message: Message) -> None:
        """The turn's id from now on: the id of the user's message that started it."""
        if self.config.enabled:
            self.state(conversation).turn = message.id

    def before_request(self, conversation: Conversation) -> None:
        """Before a conversation's first call: what it had spent (for the calls' costs)."""
        if self.config.enabled:
            self.cost.baseline(self.host, conversation)

    def tool_call_decided(self, call: ToolCallPart, tool: ToolSpec, allowed: bool,
                          approval: Approval | None, verdict: Verdict,
                          conversation: Conversation | None) -> None:
        """A ``tool_call`` record: whether the call runs (``decision``), what the policy said
        (``verdict``: ``ask`` when a person was to be asked), who decided."""
        if not self.config.enabled:
            return
        limit = self.config.excerpt
        state = self.state(conversation) if conversation is not None else None
        if state is not None and state.session is not None:
            mode = self._mode(state.session)
        else:
            mode = state.mode if state is not None else self._mode(None)
        decision = _value(verdict.decision)
        risk = _value(tool.risk)
        who = decided_by(decision, verdict.reason or "", verdict.rule,
                         approval.allow if approval is not None else None, risk, mode,
                         tool.name, self._allow_rules(state), verdict.by)
        who, managed_file = managed(who)
        fields: dict[str, Any] = {
            "call": call.id, "tool": tool.name, "risk": risk,
            "decision": "allow" if allowed else "deny", "verdict": decision,
            "decided_by": who.by, "mode": mode,
            "arguments": shown_arguments(call.arguments, call.raw_arguments, limit)}
        if who.rule:
            fields["rule"] = excerpt(who.rule, limit)
        if managed_file is not None:
            fields["managed_file"] = managed_file
        if verdict.reason:
            fields["reason"] = excerpt(verdict.reason, limit)
        if approval is not None:
            fields["approval"] = {"allow": approval.allow, "scope": approval.scope}
            if approval.reason:
                fields["approval"]["reason"] = excerpt(approval.reason, limit)
        if state is not None:
            state.decided.add(call.id)
            if allowed:
                state.running[call.id] = tool
        self.emit(conversation, "tool_call", **fields)

    def after_tool_call(self, call: ToolCallPart, result: ToolResultPart,
                        conversation: Conversation) -> None:
        """For a call that ran: a ``command`` record (a shell tool's), ``file_change`` records
        (a file tool's that succeeded). For a call that was never decided (an unknown tool,
        arguments that did not validate): its ``tool_call`` record, ``decided_by`` ``invalid``
        (the reason is the error the model was sent)."""
        if not self.config.enabled:
            return
        state = self.state(conversation)
        limit = self.config.excerpt
        if call.id not in state.decided:  # never decided: an unknown tool, bad arguments
            self.emit(conversation, "tool_call", call=call.id, tool=call.name, risk=None,
                      decision="deny", verdict=None, decided_by="invalid",
                      arguments=shown_arguments(call.arguments, call.raw_arguments, limit),
                      reason=excerpt(result.content, limit))
            return
        state.decided.discard(call.id)
        tool = state.running.pop(call.id, None)
        if tool is None:
            return
        risk = _value(tool.risk)
        command = command_of(call.arguments, tool.subject)
        if command is not None and risk in ("execute", "network"):
            code, ended = exit_status(result.content, result.is_error)
            self.emit(conversation, "command", call=call.id, tool=tool.name,
                      command=excerpt(command, limit), exit_code=code, outcome=ended)
            return
        if risk == "write" and not result.is_error:
            for path, action in changed_paths(call.arguments, tool.name):
                self.emit(conversation, "file_change", call=call.id, tool=tool.name,
                          path=excerpt(path, limit), action=action)

    def after_response(self, message: Message | None, error: ChatcliError | None,
                       conversation: Conversation, purpose: str) -> None:
        """A ``model_call`` record: provider, model, purpose, tokens, cost, how it ended."""
        if not self.config.enabled:
            return
        state = self.state(conversation)
        session = state.session
        provider = (message.provider if message is not None and message.provider else
                    session.provider_name if session is not None else None)
        model = (message.model if message is not None and message.model else
                 session.model if session is not None else None)
        usage = message.usage if message is not None else None
        fields: dict[str, Any] = {"provider": provider, "model": model, "purpose": purpose}
        if message is not None:
            fields["message"] = message.id
        if usage is not None:
            fields.update(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                          cache_read_tokens=usage.cache_read_tokens,
                          cache_write_tokens=usage.cache_write_tokens)
        fields["cost_usd"] = (self.cost.call_cost(self.host, conversation, provider, model)
                              if usage is not None else None)
        if message is not None and message.interrupted:
            fields["interrupted"] = True
        if error is not None:
            fields["error"] = excerpt(f"{type(error).__name__}: {error}", self.config.excerpt)
        self.emit(conversation, "model_call", **fields)
