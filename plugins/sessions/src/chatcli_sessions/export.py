"""Exporting a session: a readable markdown transcript, or JSON holding the whole log."""

from __future__ import annotations

import datetime as _dt
import json
import re
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Conversation
    from chatcli_sessions_api.records import SessionInfo

__all__ = ["FORMATS", "close_fences", "render", "to_json", "to_markdown"]

_, ngettext = translation(__name__)

FORMATS = ("markdown", "json")
EXPORT_FORMAT = "chatcli-session"
EXPORT_VERSION = 1


def _when(timestamp: float) -> str:
    return _dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


def _fence(text: str) -> str:
    """A code fence longer than any backtick run inside ``text``."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


#: A fence line (CommonMark): up to three spaces, then ``` or ~~~ (or longer), then the rest.
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def close_fences(text: str) -> str:
    """``text`` with a closing fence added when it ends inside a fenced code block.

    An answer cut short (Ctrl+C, a dropped stream) can stop inside a code block; left open,
    the block would swallow everything after it in the export.
    """
    open_fence: str | None = None
    for line in text.splitlines():
        match = _FENCE_LINE.match(line)
        if match is None:
            continue
        fence, rest = match.groups()
        if open_fence is None:
            if not (fence[0] == "`" and "`" in rest):  # a backtick fence's info has none
                open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not rest.strip():
            open_fence = None
    return text if open_fence is None else f"{text.rstrip()}\n{open_fence}"


def to_markdown(conversation: Conversation, info: SessionInfo | None = None) -> str:
    """The conversation as it stands (root to head) in markdown."""
    title = conversation.title or (info.title if info else "") or _("Untitled session")
    lines = [f"# {title}", ""]
    # i18n: the transcript's first line: its parts are joined with " · "
    meta = [_("session `{session}`").format(session=conversation.id)]
    if info is not None:
        if info.name:
            meta.append(_("name **{name}**").format(name=info.name))
        meta.append(_("created {time}").format(time=_when(info.created_at)))
        if info.provider or info.model:
            meta.append(" / ".join(x for x in (info.provider, info.model) if x))
    lines += ["_" + " · ".join(meta) + "_", ""]
    for message in conversation.messages():
        role = message.role.value
        if role == "user":
            # i18n: a transcript's heading: the user's message
            lines += ["## " + _("User"), ""]
        elif role == "assistant":
            # i18n: a transcript's heading: the model's answer
            label = "## " + _("Assistant") + (
                f" — {message.author}" if message.author else "") + (
                f" ({message.model})" if message.model else "")
            # i18n: after a transcript's heading: the answer was cut short
            lines += [label + (" — " + _("interrupted") if message.interrupted else ""), ""]
        if message.text:
            lines += [close_fences(message.text.rstrip()), ""]
        if role == "assistant" and message.interrupted:
            lines += ["_" + _("(interrupted: the answer stops here)") + "_", ""]
        for part in message.parts:
            if part.type == "tool_call":
                args = json.dumps(part.arguments, ensure_ascii=False)
                lines += ["> " + _("tool call `{name}` {arguments}").format(name=part.name,
                                                                           arguments=args), ""]
            elif part.type == "tool_result":
                fence = _fence(part.content)
                said = (_("**{name}** result (error):") if part.is_error
                        else _("**{name}** result:"))
                lines += [said.format(name=part.name), "", fence,
                          part.content.rstrip(), fence, ""]
            elif part.type == "image":
                lines += [f"![image]({part.source})", ""]
    return "\n".join(lines).rstrip() + "\n"


def to_json(conversation: Conversation, info: SessionInfo | None = None) -> str:
    """The whole session — every branch of the log, head, checkpoints, the view's
    compactions — as JSON."""
    data: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "session": info.to_dict() if info is not None else {"id": conversation.id},
        "head": conversation.head,
        "messages": [
            json.loads(m.model_dump_json())
            for m in sorted(conversation.all_messages(), key=lambda m: m.created_at)
        ],
        "path": [m.id for m in conversation.messages()],
        "checkpoints": [json.loads(c.model_dump_json()) for c in conversation.checkpoints],
        "compactions": [json.loads(c.model_dump_json()) for c in conversation.compactions],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def render(conversation: Conversation, fmt: str, info: SessionInfo | None = None) -> str:
    """Export in ``fmt`` ("markdown"/"md" or "json")."""
    fmt = fmt.lower()
    if fmt in ("markdown", "md"):
        return to_markdown(conversation, info)
    if fmt == "json":
        return to_json(conversation, info)
    from chatcli import UsageError

    raise UsageError(_("unknown export format {format!r}").format(format=fmt),
                     _("use markdown or json"))
