"""What a CLI assistant is sent each turn: only the new message when its own session already
holds the conversation (``--resume``), else the conversation as a transcript.

Claude Code and Codex keep each session on disk, with the tool calls and results they made —
which chatcli never sees. Resuming that session is therefore both cheaper (the history is not
sent again) and more faithful (the assistant remembers what it read and ran) than a transcript.
A session is resumed only when chatcli's conversation is exactly what that session saw: the
same messages up to the request it answered (by id), then the answer it gave (by its text), in
the same folder. After a rewind, an edit, a compaction, an answer from another provider or an
interrupted answer, the conversation no longer matches, and the assistant gets a transcript in a
new session instead.

The links live in one small JSON file, ``<data dir>/provider-cli/sessions.json``: for the last
message of each request answered, the session id, a digest of the message ids before it, and a
digest of the answer. Only a session's latest link is kept: once it went on, its earlier
states are not what resuming it gives (Codex continues the same thread; a resumed Claude Code
run may report a new id, which is then linked instead).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import ChatRequest, Message

__all__ = ["Plan", "SessionStore", "plan_prompt", "render_transcript"]

#: Links kept in the store (the oldest are forgotten first).
MAX_LINKS = 500
#: Characters of one tool result kept in a transcript.
TOOL_RESULT_CHARS = 2_000


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", errors="replace")).hexdigest()[:32]


def _ids_digest(messages: Sequence[Message]) -> str:
    return _digest(*(m.id for m in messages))


class SessionStore:
    """The links from chatcli conversations to a CLI assistant's sessions (one JSON file)."""

    def __init__(self, path: Path, provider: str) -> None:
        self.path = path
        self.provider = provider
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def find(self, request_key: str) -> dict[str, Any] | None:
        """The link recorded for ``request_key``, if any."""
        with self._lock:
            link = self._load().get(f"{self.provider}:{request_key}")
        return link if isinstance(link, dict) else None

    def record(self, messages: Sequence[Message], session_id: str, answer: str,
               cwd: str) -> None:
        """Remember that ``session_id`` answered ``messages`` with ``answer`` in ``cwd``."""
        if not messages or not session_id:
            return
        from chatcli import atomic_write

        key = f"{self.provider}:{messages[-1].id}"
        link = {"session": session_id, "before": _ids_digest(messages[:-1]),
                "answer": _digest(answer.strip()), "cwd": cwd}
        with self._lock:
            data = self._load()
            # a session that went on is no longer the state its earlier links describe (a
            # /retry or a rewind to one of them must not resume it): only its latest link stays
            prefix = f"{self.provider}:"
            for old in [k for k, v in data.items() if k.startswith(prefix)
                        and isinstance(v, dict) and v.get("session") == session_id]:
                del data[old]
            data.pop(key, None)
            data[key] = link
            while len(data) > MAX_LINKS:
                data.pop(next(iter(data)))
            # resuming is an optimisation: a transcript works without it
            with contextlib.suppress(OSError):
                atomic_write(self.path, json.dumps(data, indent=0), mode=0o600)


@dataclass(frozen=True)
class Plan:
    """How one turn is sent: ``prompt`` on stdin, in session ``resume`` (None: a new one)."""

    prompt: str
    resume: str | None = None


def plan_prompt(request: ChatRequest, store: SessionStore | None, *, cwd: str | None = None,
                instructions: str = "") -> Plan:
    """The prompt for ``request``: the new messages in the matching session, else a
    transcript of the whole conversation (just the message when it is the first)."""
    from chatcli import Role

    messages = list(request.messages)
    cwd = cwd or os.getcwd()
    last_answer = max((i for i, m in enumerate(messages) if m.role == Role.ASSISTANT),
                      default=None)
    if store is not None and last_answer is not None and last_answer > 0:
        before, answer = messages[:last_answer], messages[last_answer]
        link = store.find(before[-1].id)
        new = messages[last_answer + 1:]
        if (link and link.get("cwd") == cwd and new
                and all(m.role == Role.USER for m in new)
                and link.get("before") == _ids_digest(before[:-1])
                and link.get("answer") == _digest(answer.text.strip())
                and not answer.interrupted and isinstance(link.get("session"), str)):
            text = "\n\n".join(_message_text(m) for m in new)
            return Plan(_with_instructions(text, instructions), resume=link["session"])
    if len(messages) == 1 and messages[0].role == Role.USER:
        return Plan(_with_instructions(_message_text(messages[0]), instructions))
    return Plan(_with_instructions(render_transcript(messages), instructions))


def _with_instructions(text: str, instructions: str) -> str:
    if not instructions.strip():
        return text
    return f"<instructions>\n{instructions.strip()}\n</instructions>\n\n{text}"


def _message_text(message: Message) -> str:
    """A message as plain text: its text, images named by their source, tool calls and
    results described (they come from another provider's answers)."""
    from chatcli import ImagePart, TextPart, ToolCallPart, ToolResultPart

    pieces: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            pieces.append(part.text)
        elif isinstance(part, ImagePart):
            pieces.append(f"[image: {part.source}]")
        elif isinstance(part, ToolCallPart):
            args = json.dumps(part.arguments, ensure_ascii=False)[:500]
            pieces.append(f"[called tool {part.name} with {args}]")
        elif isinstance(part, ToolResultPart):
            content = part.content
            if len(content) > TOOL_RESULT_CHARS:
                content = content[:TOOL_RESULT_CHARS] + " …(cut)"
            state = "failed" if part.is_error else "returned"
            pieces.append(f"[tool {part.name} {state}: {content}]")
    return "\n".join(p for p in pieces if p)


def render_transcript(messages: Sequence[Message]) -> str:
    """The conversation as one prompt: earlier messages as a transcript, then the last one,
    which is what must be answered."""
    from chatcli import Role

    names = {Role.USER: "User", Role.ASSISTANT: "Assistant (you)", Role.TOOL: "Tool results"}
    *earlier, last = messages
    blocks = [f"### {names.get(m.role, str(m.role))}\n{_message_text(m)}" for m in earlier
              if _message_text(m)]
    history = "\n\n".join(blocks)
    return ("This conversation started elsewhere; here it is so far:\n\n<transcript>\n"
            f"{history}\n</transcript>\n\nAnswer the user's latest message:\n\n"
            f"{_message_text(last)}")
