"""The server's events turned back into the kernel's own (``TextDelta``, ``ToolStarted``,
``ToolFinished``, ``Compacted``, ``Retrying``, ``TurnFinished``), so chatcli-repl and
chatcli-print show a remote turn exactly as a local one; and the read-only mirror of a server's
conversation (a :class:`chatcli.Conversation` rebuilt from ``GET /api/sessions/{id}``).

Only data comes from the server: nothing here runs what it sends, and text meant for the
terminal (a slash command's ``output``) is the front end's to print raw or not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from chatcli import (
    ChatcliError,
    Compacted,
    Conversation,
    Decision,
    Message,
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    Retrying,
    Risk,
    Role,
    ServerError,
    StopReason,
    TextDelta,
    TextPart,
    ToolCallPart,
    ToolFinished,
    ToolResultPart,
    ToolStarted,
    Usage,
    Verdict,
    translation,
)

from chatcli_remote.client_sse import SseEvent

__all__ = ["Output", "RemoteCompaction", "RemoteTool", "Translator", "approval_parts",
           "error_from", "mirror", "stop_reason", "usage_from"]

_, ngettext = translation(__name__)


@dataclass(frozen=True)
class Output:
    """A slash command's console text (``ansi``: it holds the server's colour codes)."""

    text: str
    ansi: bool = False


@dataclass(frozen=True)
class RemoteCompaction:
    """What a ``compacted`` event says (a :class:`chatcli.CompactionOutcome`)."""

    text: str
    changed: bool = True

    def line(self) -> str:
        """The server's one line about the compaction."""
        return self.text


#: A ``retrying`` event's reason -> the error class the front ends name it by.
_RETRY_KINDS: dict[str, type[ProviderError]] = {
    "RateLimitError": RateLimitError, "rate limited": RateLimitError,
    "ServerError": ServerError, "server error": ServerError,
    "ProviderTimeoutError": ProviderTimeoutError, "timed out": ProviderTimeoutError,
    "NetworkError": NetworkError, "network error": NetworkError,
}


def _error_classes() -> dict[str, type[ChatcliError]]:
    import chatcli

    found: dict[str, type[ChatcliError]] = {}
    for name in ("AuthError", "BadRequestError", "ConfigError", "ContextTooLongError",
                 "ModelNotFoundError", "NetworkError", "ProviderError", "ProviderTimeoutError",
                 "RateLimitError", "ServerError", "StreamCutError", "UsageError"):
        found[name] = getattr(chatcli, name)
    return found


def error_from(line: str, kind: str = "") -> ChatcliError:
    """The server's one error line as a :class:`chatcli.ChatcliError` of the kind it names (so
    the exit code is the one a local run gives: 2 for a usage or configuration error)."""
    return _error_classes().get(kind, ChatcliError)(line)


def usage_from(data: Any) -> Usage:
    """A ``Usage`` from the server's token counts (unknown keys left out)."""
    if not isinstance(data, dict):
        return Usage()
    counts = {name: int(value) for name, value in data.items()
              if name in Usage.model_fields and isinstance(value, int | float)}
    return Usage(**counts)


def stop_reason(text: Any) -> StopReason:
    """The server's stop reason (an unknown one reads as an error's)."""
    try:
        return StopReason(str(text))
    except ValueError:
        return StopReason.ERROR


def _arguments(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


class Translator:
    """One stream's server events -> kernel events; what is not shown as an event goes to the
    callbacks: a running tool's output lines, retries (``on_retry`` before the event, as the
    engine does), approvals, a command's menus, the status line."""

    def __init__(self, *, on_tool_output: Callable[[str], None] | None = None,
                 on_retry: Callable[[Retrying], None] | None = None,
                 on_approval: Callable[[dict[str, Any]], None] | None = None,
                 on_question: Callable[[dict[str, Any]], None] | None = None,
                 on_status: Callable[[list[str]], None] | None = None) -> None:
        self.on_tool_output = on_tool_output
        self.on_retry = on_retry
        self.on_approval = on_approval
        self.on_question = on_question
        self.on_status = on_status
        self.calls: dict[str, ToolCallPart] = {}
        self.usage = Usage()
        self.attempt = 0
        self.done: dict[str, Any] | None = None
        self.context_tokens: int | None = None
        #: a ``reset`` said no turn runs any more (the server restarted, the log moved on)
        self.lost = False
        self.last_id = ""

    def events(self, event: SseEvent) -> Iterator[object]:
        """The kernel events (and :class:`Output`) one server event stands for."""
        if event.id:
            self.last_id = event.id
        data, kind = event.data, event.kind
        if kind == "text":
            delta = str(data.get("delta", ""))
            if delta:
                yield TextDelta(delta)
        elif kind == "tool_started":
            call = self._call(data)
            yield ToolStarted(call)
        elif kind == "tool_finished":
            call = self._call(data)
            self.calls.pop(call.id, None)
            yield ToolFinished(call, ToolResultPart(
                call_id=call.id, name=str(data.get("name") or call.name),
                content=str(data.get("content", "")), is_error=bool(data.get("is_error"))))
        elif kind == "tool_output":
            if self.on_tool_output is not None:
                self.on_tool_output(str(data.get("line", "")))
        elif kind == "retrying":
            yield self._retrying(data)
        elif kind == "compacted":
            yield Compacted(RemoteCompaction(str(data.get("line", ""))))
        elif kind == "output":
            yield Output(str(data.get("text", "")), bool(data.get("ansi")))
        elif kind == "approval":
            if self.on_approval is not None:
                self.on_approval(data)
        elif kind == "question":
            if self.on_question is not None:
                self.on_question(data)
        elif kind == "status":
            items = data.get("items")
            if self.on_status is not None and isinstance(items, list):
                self.on_status([str(item) for item in items])
        elif kind == "usage":
            self.usage = usage_from(data)
            if isinstance(data.get("context_tokens"), int):
                self.context_tokens = int(data["context_tokens"])
        elif kind == "done":
            self.done = dict(data)
        elif kind == "reset":  # followed after a cut: the server lost the events in between
            snapshot = data.get("snapshot")
            self.lost = not (isinstance(snapshot, dict) and snapshot.get("running"))
        # turn_started, user, answered, progress, log: nothing to show in a turn

    def _call(self, data: dict[str, Any]) -> ToolCallPart:
        call_id = str(data.get("call_id") or "")
        known = self.calls.get(call_id)
        if known is not None:
            return known
        call = ToolCallPart(name=str(data.get("name") or data.get("tool") or "?"),
                            arguments=_arguments(data.get("args")),
                            **({"id": call_id} if call_id else {}))
        self.calls[call.id] = call
        return call

    def _retrying(self, data: dict[str, Any]) -> Retrying:
        self.attempt += 1
        reason = str(data.get("reason") or "")
        kind = _RETRY_KINDS.get(str(data.get("error_type") or ""),
                                _RETRY_KINDS.get(reason, ProviderError))
        try:
            delay = float(data.get("delay") or 0.0)
        except (TypeError, ValueError):
            delay = 0.0
        retrying = Retrying(attempt=int(data.get("attempt") or self.attempt), delay=delay,
                            error=kind(reason or _("the model's service failed")))
        if self.on_retry is not None:
            self.on_retry(retrying)
        return retrying


def _message(entry: dict[str, Any]) -> Message | None:
    """One message of a snapshot (``role``, ``text``, ``tool_calls``, ``tool_results``…)."""
    try:
        role = Role(str(entry.get("role")))
    except ValueError:
        return None
    parts: list[Any] = []
    text = entry.get("text")
    if isinstance(text, str) and text:
        parts.append(TextPart(text=text))
    for call in entry.get("tool_calls") or []:
        if isinstance(call, dict):
            parts.append(ToolCallPart(
                name=str(call.get("name") or "?"), arguments=_arguments(
                    call.get("args", call.get("arguments"))),
                **({"id": str(call.get("call_id") or call["id"])}
                   if call.get("call_id") or call.get("id") else {})))
    for result in entry.get("tool_results") or []:
        if isinstance(result, dict):
            parts.append(ToolResultPart(
                call_id=str(result.get("call_id") or ""), name=str(result.get("name") or "?"),
                content=str(result.get("content", "")), is_error=bool(result.get("is_error"))))
    fields: dict[str, Any] = {"role": role, "parts": parts,
                              "interrupted": bool(entry.get("interrupted"))}
    for name in ("id", "provider", "model", "author", "via"):
        if isinstance(entry.get(name), str) and entry[name]:
            fields[name] = entry[name]
    if isinstance(entry.get("created_at"), int | float):
        fields["created_at"] = float(entry["created_at"])
    return Message(**fields)


def mirror(snapshot: dict[str, Any]) -> Conversation:
    """A local copy of the server's conversation (its current path): what the front ends read
    (``messages()``, ``last()``, ``len``); changing it changes nothing on the server."""
    conversation = Conversation(id=str(snapshot.get("id") or "") or None,
                                title=str(snapshot.get("title") or ""))
    for entry in snapshot.get("messages") or []:
        message = _message(entry) if isinstance(entry, dict) else None
        if message is not None:
            conversation.append(message)  # (no hooks: nothing local observes the mirror)
    return conversation


class RemoteTool:
    """What an approver reads of the tool a server asks about: its name and risk."""

    def __init__(self, name: str, risk: str) -> None:
        self.name = name
        try:
            self.risk = Risk(risk)
        except ValueError:
            self.risk = Risk.EXECUTE  # an unknown risk is asked as the strongest


#: A worker's label as the server sends it (``w2 (explore)``): the chat's approval names the
#: worker when the reason starts with ``w2 explore:`` (chatcli-subagents' own words).
_WORKER_LABEL = re.compile(r"(w\d+) \(([^\s:()]+)\)")


def approval_parts(data: dict[str, Any]) -> tuple[ToolCallPart, RemoteTool, Verdict]:
    """What the front end's approver is asked for an ``approval`` event: the call, the tool
    (name and risk) and the verdict (reason — with the asking worker's label as the
    subagents write it —, the rule an "always" would save, the diff)."""
    args = data.get("args")
    call = ToolCallPart(
        name=str(data.get("tool") or "?"),
        arguments=args if isinstance(args, dict) else {},
        raw_arguments=args if isinstance(args, str) else None,
        **({"id": str(data["call_id"])} if data.get("call_id") else {}))
    tool = RemoteTool(call.name, str(data.get("risk") or ""))
    reason = str(data.get("reason") or "")
    worker = _WORKER_LABEL.fullmatch(str(data.get("label") or ""))
    if worker is not None:
        label = f"{worker[1]} {worker[2]}"
        reason = f"{label}: {reason}" if reason else label
    verdict = Verdict(Decision.ASK, reason, str(data["rule"]) if data.get("rule") else None,
                      None, str(data["preview"]) if data.get("preview") else None)
    return call, tool, verdict
