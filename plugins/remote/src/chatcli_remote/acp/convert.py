"""chatcli's records as ACP values: tool calls (title, kind, locations, diff content), stop
reasons, progress items as plan entries, and a conversation's history as replayed updates.

Pure functions of their arguments (no connection, no thread), so each is easy to test.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_tool_call,
    update_user_message_text,
)
from chatcli import translation

if TYPE_CHECKING:
    from acp.helpers import SessionUpdate, ToolCallContentVariant
    from acp.schema import FileEditToolCallContent, PlanEntry, ToolCallLocation
    from chatcli import Message, ToolCallPart

__all__ = [
    "ToolKindName",
    "diff_contents",
    "history_updates",
    "plan_entries",
    "stop_reason",
    "tool_kind",
    "tool_locations",
    "tool_title",
]

_, ngettext = translation(__name__)

ToolKindName = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch",
                       "switch_mode", "other"]

#: tools whose kind the name says better than their risk class
_KIND_BY_NAME: dict[str, ToolKindName] = {
    "search": "search", "glob": "search", "tree": "read", "read": "read",
    "write": "edit", "edit": "edit", "multiedit": "edit", "apply_patch": "edit",
    "exec": "execute", "test": "execute", "git": "execute",
    "fetch": "fetch", "web_fetch": "fetch", "web_search": "fetch",
    "delegate": "think",
}
_KIND_BY_RISK: dict[str, ToolKindName] = {
    "read": "read", "write": "edit", "execute": "execute", "network": "fetch",
}
#: the argument that names what a call works on, in the order looked for
_SUBJECTS = ("path", "command", "pattern", "url", "query", "description")
#: the longest title shown (the editor's tool call header)
_TITLE_MAX = 120
#: the longest tool result sent back to the editor
RESULT_MAX = 4_000


def tool_kind(name: str, risk: str | None) -> ToolKindName:
    """The ACP kind of a tool call: by the tool's name for chatcli's own tools, else by risk."""
    return _KIND_BY_NAME.get(name) or _KIND_BY_RISK.get(risk or "", "other")


def tool_title(call: ToolCallPart) -> str:
    """``edit src/app.py``, ``exec pytest -q``: the tool and what it works on (one line)."""
    args = call.arguments
    subject = next((str(args[key]) for key in _SUBJECTS
                    if isinstance(args.get(key), (str, int, float)) and str(args[key])), "")
    if not subject and isinstance(args.get("edits"), list):
        paths = sorted({str(e.get("path")) for e in args["edits"] if isinstance(e, dict)})
        subject = ", ".join(paths)
    title = f"{call.name} {' '.join(subject.split())}".strip()
    return title if len(title) <= _TITLE_MAX else title[: _TITLE_MAX - 1] + "…"


def tool_locations(call: ToolCallPart, workspace: Path) -> list[ToolCallLocation]:
    """The files a call names (``path`` arguments), absolute, for the editor to follow."""
    from acp.schema import ToolCallLocation

    args = call.arguments
    paths = [args.get("path")]
    if isinstance(args.get("edits"), list):
        paths += [e.get("path") for e in args["edits"] if isinstance(e, dict)]
    seen: list[str] = []
    for path in paths:
        if isinstance(path, str) and path and (full := str(workspace / path)) not in seen:
            seen.append(full)
    return [ToolCallLocation(path=path) for path in seen]


def stop_reason(reason: str) -> Literal["end_turn", "max_tokens", "max_turn_requests", "refusal",
                                         "cancelled"]:
    """chatcli's stop reason as ACP's (an error ends the turn: its line is said as text)."""
    if reason == "interrupted":
        return "cancelled"
    if reason == "max_tokens":
        return "max_tokens"
    if reason in ("turn_limit", "repeated_calls"):
        return "max_turn_requests"
    return "end_turn"


def plan_entries(items: Iterable[Any]) -> list[PlanEntry]:
    """``progress_items`` (id, title, state) as plan entries (queued -> pending, running ->
    in_progress, every end -> completed with the state said when it is not ``done``)."""
    entries = []
    for item in items:
        state = str(getattr(item, "state", ""))
        title = str(getattr(item, "title", "")) or str(getattr(item, "id", ""))
        if state == "failed":
            title = _("{title} (failed)").format(title=title)
        elif state == "cancelled":
            title = _("{title} (cancelled)").format(title=title)
        status: Literal["pending", "in_progress", "completed"] = (
            "pending" if state == "queued" else
            "in_progress" if state == "running" else "completed")
        entries.append(plan_entry(title, status=status))
    return entries


# ------------------------------------------------------------------------------ diffs


def _counts(spec: str) -> tuple[int, int]:
    """``-12,3`` -> (12, 3); ``-12`` -> (12, 1)."""
    first, _sep, length = spec[1:].partition(",")
    return (int(first) if first.isdigit() else 0), (int(length) if length.isdigit() else 1)


def _hunks(diff: str) -> Iterator[tuple[str | None, str | None, list[tuple[int, list[str]]]]]:
    """Each file of a unified diff: (old path, new path, hunks as (old start, lines))."""
    old: str | None = None
    new: str | None = None
    hunks: list[tuple[int, list[str]]] = []
    started = False
    old_left = new_left = 0
    for line in diff.splitlines(keepends=True):
        if old_left > 0 or new_left > 0 or (line.startswith("\\") and hunks):
            kind = line[:1]
            old_left -= kind in (" ", "-")
            new_left -= kind in (" ", "+")
            hunks[-1][1].append(line)
        elif line.startswith("--- "):
            if started:
                yield old, new, hunks
            old, new, hunks, started = _path(line[4:]), None, [], True
        elif line.startswith("+++ ") and started:
            new = _path(line[4:])
        elif line.startswith("@@ ") and started and len(line.split()) >= 3:
            parts = line.split()
            start, old_left = _counts(parts[1])
            new_left = _counts(parts[2])[1]
            hunks.append((start + 1 if old_left == 0 else start, []))  # 0 lines: after it
    if started:
        yield old, new, hunks


def _path(header: str) -> str | None:
    name = header.rstrip("\n").split("\t")[0]
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _apply(before: str, hunks: list[tuple[int, list[str]]]) -> str | None:
    """``before`` with the hunks applied, or None when a hunk does not match it."""
    lines = before.splitlines(keepends=True)
    out: list[str] = []
    at = 0
    for start, body in hunks:
        begin = max(start - 1, 0)
        if begin < at or begin > len(lines):
            return None
        out += lines[at:begin]
        at = begin
        last = ""
        for row in body:
            kind, text = row[:1], row[1:]
            if kind == "\\":  # "\ No newline at end of file", of the line before: an added
                if last == "+" and out[-1].endswith("\n"):  # one loses its end (the old
                    out[-1] = out[-1][:-1]  # side's lines are the file's own)
                continue
            last = kind
            if kind in (" ", "-"):
                if at >= len(lines) or lines[at].rstrip("\r\n") != text.rstrip("\r\n"):
                    return None
                if kind == " ":
                    out.append(lines[at])
                at += 1
            else:
                out.append(text)
    out += lines[at:]
    return "".join(out)


def diff_contents(diff: str | None, workspace: Path, read: Callable[[Path], str | None]
                  ) -> list[FileEditToolCallContent]:
    """A tool's preview (a unified diff) as ACP diff content, one per file, with absolute
    paths: the whole file before and after when ``read`` (the session's file access) gives the
    text the diff applies to, else the hunks' lines alone."""
    out = []
    for old, new, hunks in _hunks(diff or ""):
        path = new or old
        if path is None:
            continue
        full = workspace / path
        before = read(workspace / old) if old is not None else None
        after = _apply(before or "", hunks) if (before is not None or old is None) else None
        if new is None:  # a deleted file
            after = ""
        if after is None:  # the hunks alone
            before = "".join(r[1:] for _start, body in hunks for r in body if r[:1] in (" ", "-"))
            after = "".join(r[1:] for _start, body in hunks for r in body if r[:1] in (" ", "+"))
        out.append(tool_diff_content(str(full), after, before if old is not None else None))
    return out


# ------------------------------------------------------------------------------ history


def _result_text(text: str) -> str:
    return text if len(text) <= RESULT_MAX else text[:RESULT_MAX] + "\n… (cut)"


def result_content(text: str) -> list[ToolCallContentVariant]:
    """A tool's result as the content of its tool call (cut at :data:`RESULT_MAX`)."""
    return [tool_content(text_block(_result_text(text)))] if text else []


def history_updates(messages: Iterable[Message], workspace: Path) -> list[SessionUpdate]:
    """A conversation's messages as the updates that replay it in the editor: user and agent
    message chunks, each tool call as a finished tool call with its result."""
    from chatcli import ToolResultPart

    updates: list[SessionUpdate] = []
    for message in messages:
        role = str(message.role)
        if role == "user":
            if message.text:
                updates.append(update_user_message_text(message.text))
        elif role == "assistant":
            if message.text:
                updates.append(update_agent_message_text(message.text))
            for call in message.tool_calls:
                updates.append(start_tool_call(
                    call.id, tool_title(call), kind=tool_kind(call.name, None),
                    status="completed", locations=tool_locations(call, workspace),
                    raw_input=json.loads(json.dumps(call.arguments, default=str))))
        elif role == "tool":
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    updates.append(update_tool_call(
                        part.call_id, status="failed" if part.is_error else "completed",
                        content=result_content(part.content)))
    return updates
