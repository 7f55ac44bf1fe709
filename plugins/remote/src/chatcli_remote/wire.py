"""Engine events as the wire's JSON events (``Event(id, kind, data)``) and their SSE frames.

Every string an event carries is redacted (``chatcli.redact``) when the event is made; tool
results are cut at :data:`CONTENT_LIMIT` characters; diffs come from ``Verdict.preview`` (a
call that was asked) or ``Tool.preview`` (an auto-allowed one, worked out before it runs). The
kinds and their fields (plugins/remote/README.md lists them for clients):

- ``turn_started{turn, client, kind: message|command}``, ``user{text}``, ``text{delta}``
- ``retrying{reason, delay, attempt, error_type}``, ``compacted{line}``
- ``tool_started{call_id, name, args, activity, preview?}``, ``tool_output{line, call_id?}``
  (the call named when only one runs), ``tool_finished{call_id, name, is_error, content,
  added?, removed?}``
- ``approval{qid, call_id, tool, risk, args, options, preview?, reason?, rule?, label?}``
  (``options``: once, session, always — only with a rule to save — and no; ``label`` names the
  worker that asks: ``w2 (explore)``), ``question{qid, title, options}`` (a command's menu),
  ``answered{qid, by, allow, scope?}`` or ``answered{qid, by, choice}`` (``by`` is the client,
  or ``cancel``/``timeout``)
- ``output{text, ansi}`` (a command's console), ``prefill{text}`` (for the input line, after
  ``/rewind``), ``log{head, reason}`` (the head moved: rewind, undo, clear, retry)
- ``progress{items: [{id, title, state}]}``, ``status{items: [str]}``,
  ``usage{input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, context_tokens}``
- ``done{stop_reason, model, provider, error_line?, answered_by?}``
- ``reset{snapshot}``: first, for a Last-Event-ID of another boot or older than the log; and
  logged when the session's conversation is replaced (``/fork``, ``/session load``), the
  snapshot then naming the new id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chatcli import translation

__all__ = [
    "CONTENT_LIMIT",
    "Event",
    "activity",
    "approval_data",
    "cut",
    "diff_counts",
    "engine_event",
    "make_event",
    "redacted",
    "retry_reason",
    "tool_finished_data",
    "tool_started_data",
]

_, ngettext = translation(__name__)

#: The most characters of a tool result an event carries (the model got it whole).
CONTENT_LIMIT = 4_096
#: What JSON leaves raw that a line splitter may break on: written as \\uXXXX escapes.
_LINE_ENDS = {ord(ch): f"\\u{ord(ch):04x}" for ch in "\x85\u2028\u2029"}
#: Arguments longer than this (as JSON) are cut in ``approval`` and ``tool_started`` events.
ARGS_LIMIT = 16_384


@dataclass(frozen=True)
class Event:
    """One entry of a live session's event log: ``id`` is ``"{boot}-{seq}"``, ``kind`` one of
    the event kinds, ``data`` JSON-able and redacted. The SSE frame is encoded once, at
    creation, and shared by every subscriber."""

    id: str
    kind: str
    data: dict[str, object]
    _frame: bytes = field(default=b"", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        payload = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str)
        # characters some readers take for line ends (Python's splitlines) stay escaped
        payload = payload.translate(_LINE_ENDS)
        frame = f"id: {self.id}\nevent: {self.kind}\ndata: {payload}\n\n".encode()
        object.__setattr__(self, "_frame", frame)

    def sse(self) -> bytes:
        """The encoded SSE frame: ``id:``, ``event:`` and one ``data:`` line (JSON)."""
        return self._frame

    def json(self) -> str:
        """The data as one line of JSON."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str)


def redacted(value: Any) -> Any:
    """``value`` with every string in it redacted (dicts, lists and tuples walked; other
    scalars kept; anything else shown as its redacted ``str``)."""
    from chatcli import redact

    if isinstance(value, str):
        return redact(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {str(key): redacted(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redacted(item) for item in value]
    return redact(str(value))


def make_event(event_id: str, kind: str, data: Mapping[str, Any]) -> Event:
    """An :class:`Event` with ``data`` redacted."""
    return Event(event_id, kind, redacted(dict(data)))


def cut(text: str, limit: int = CONTENT_LIMIT) -> str:
    """``text`` up to ``limit`` characters, with a note saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit:,} more characters)"


def diff_counts(diff: str | None) -> tuple[int, int] | None:
    """(lines added, lines removed) of a unified diff; None without one."""
    if not diff:
        return None
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed


#: Arguments that name what a call works on, in the order looked for.
_SUBJECT_KEYS = ("path", "file_path", "file", "command", "pattern", "query", "url", "name")


def activity(name: str, arguments: object, limit: int = 60) -> str:
    """What a running tool call does, in a few words: ``edit calc.py``, ``exec pytest -q``, or
    ``running exec``. Control characters are dropped; a long subject keeps its end."""
    if isinstance(arguments, Mapping):
        for key in _SUBJECT_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value.strip():
                subject = " ".join("".join(ch if ch.isprintable() else " " for ch in value)
                                   .split())
                if len(subject) > limit:
                    subject = "…" + subject[-(limit - 1):]
                return f"{name} {subject}"
    return _("running {tool}").format(tool=name)


def _arguments(call: Any) -> object:
    if getattr(call, "raw_arguments", None) is not None:
        return cut(str(call.raw_arguments), ARGS_LIMIT)
    args = dict(getattr(call, "arguments", {}) or {})
    text = json.dumps(args, ensure_ascii=False, default=str)
    return args if len(text) <= ARGS_LIMIT else cut(text, ARGS_LIMIT)


def tool_started_data(call: Any, preview: str | None) -> dict[str, object]:
    """``tool_started``'s data for ``call`` (a ``ToolCallPart``), with the diff it applies."""
    data: dict[str, object] = {
        "call_id": call.id, "name": call.name, "args": _arguments(call),
        "activity": activity(call.name, call.arguments),
    }
    if preview:
        data["preview"] = preview
    return data


def tool_finished_data(call: Any, result: Any, preview: str | None) -> dict[str, object]:
    """``tool_finished``'s data: the result cut at :data:`CONTENT_LIMIT`, and the diff's line
    counts when the call had a preview and ran without an error."""
    data: dict[str, object] = {
        "call_id": call.id, "name": call.name, "is_error": bool(result.is_error),
        "content": cut(result.content),
    }
    counts = diff_counts(preview) if not result.is_error else None
    if counts is not None:
        data["added"], data["removed"] = counts
    return data


def retry_reason(error: object) -> str:
    """A retry's cause in words (``rate limited``, ``server error``…): the wire's words, which
    the client reads back (never translated)."""
    return {"RateLimitError": "rate limited", "ServerError": "server error",
            "ProviderTimeoutError": "timed out", "NetworkError": "network error"}.get(
                type(error).__name__, "failed")


def engine_event(event: object, preview: Callable[[Any], str | None]
                 ) -> tuple[str, dict[str, object]] | None:
    """The wire's ``(kind, data)`` for one engine event, None for ``TurnFinished`` (the turn's
    end is ``usage`` then ``done``, sent by whoever ran it) and for kinds it does not know.
    ``preview(call)`` gives the diff a call applies (None without one)."""
    from chatcli import Compacted, Retrying, TextDelta, ToolFinished, ToolStarted

    if isinstance(event, TextDelta):
        return "text", {"delta": event.text}
    if isinstance(event, ToolStarted):
        return "tool_started", tool_started_data(event.call, preview(event.call))
    if isinstance(event, ToolFinished):
        return "tool_finished", tool_finished_data(event.call, event.result,
                                                   preview(event.call))
    if isinstance(event, Retrying):
        return "retrying", {"reason": retry_reason(event.error), "delay": round(event.delay, 3),
                            "attempt": event.attempt,
                            "error_type": type(event.error).__name__}
    if isinstance(event, Compacted):
        return "compacted", {"line": f"⟲ {event.report.line()}"}
    return None


def approval_data(qid: str, call: Any, tool: Any, verdict: Any, reason: str, label: str,
                  options: list[str]) -> dict[str, object]:
    """``approval``'s data: the call, its risk, the diff (``verdict.preview``) and who asks."""
    data: dict[str, object] = {
        "qid": qid, "call_id": call.id, "tool": call.name, "risk": tool.risk.value,
        "args": _arguments(call), "options": list(options),
    }
    preview = getattr(verdict, "preview", None)
    if preview:
        data["preview"] = preview
    if reason:
        data["reason"] = reason
    if getattr(verdict, "rule", None):
        data["rule"] = verdict.rule
    if label:
        data["label"] = label
    return data
