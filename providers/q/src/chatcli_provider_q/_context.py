"""What chatcli tells ``q`` for one request: only the newest message, or the conversation.

Q keeps a conversation of its own (the daemon's process, or ``--resume``'s per-directory state).
:class:`Tracker` remembers which of chatcli's messages that conversation has seen; when the
request goes on from there (the same messages, then Q's own answer, then new ones), only the new
messages are sent. Otherwise (a new process, ``/rewind``, a compacted view, another
conversation, ``chatcli -c`` in a new process) Q starts afresh and gets the conversation as a
transcript (:func:`transcript`), the way the Kamaji reference does::

    Previous conversation:

    User: …
    Assistant: …

    Current question: …
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from chatcli import ChatRequest, Message, Role

__all__ = ["Plan", "Tracker", "guard_command", "is_chat", "render", "transcript"]

#: Put before a message that would otherwise start with ``/`` (a Q slash command), ``!`` (Q runs
#: the rest in bash) or ``@`` (a Q prompt): a zero-width space, which Q does not trim.
_GUARD = "\u200b"


def guard_command(text: str) -> str:
    """``text`` made safe to hand to ``q chat`` as a question: Q treats input starting with
    ``/``, ``!`` or ``@`` as its own commands (``!`` runs a shell command)."""
    stripped = text.lstrip()
    return _GUARD + stripped if stripped[:1] in ("/", "!", "@") else text


def render(message: Message) -> str:
    """One message as plain text: its text, its tool calls, its tool results, its images."""
    pieces = [message.text]
    for call in message.tool_calls:
        pieces.append(f"[tool call {call.name}: {call.raw_arguments or call.arguments}]")
    for result in message.tool_results:
        flag = " (error)" if result.is_error else ""
        pieces.append(f"[tool result {result.name}{flag}]\n{result.content}")
    for part in message.parts:
        source = getattr(part, "source", None)
        if getattr(part, "type", "") == "image" and source:
            pieces.append(f"[image: {source}]")
    return "\n".join(piece for piece in pieces if piece)


_NAMES = {Role.USER: "User", Role.ASSISTANT: "Assistant", Role.TOOL: "Tool"}


def transcript(history: Sequence[Message], current: str) -> str:
    """The previous conversation and the current question as one prompt."""
    if not history:
        return current
    lines = ["Previous conversation:", ""]
    for message in history:
        text = render(message)
        if text:
            lines.append(f"{_NAMES.get(message.role, 'User')}: {text}")
            lines.append("")
    lines.append(f"Current question: {current}")  # untranslated: the model reads it
    return "\n".join(lines)


#: Sections q is not told about unless ``system_prompt`` is set: chatcli's own identity (q has
#: its own) and the date (q knows it).
_NOT_FOR_Q = ("chatcli", "date")


def is_chat(request: ChatRequest) -> bool:
    """Whether ``request`` is a turn of the chat (the engine's requests carry chatcli's base
    section) rather than a task of a plugin (memory extraction, a compaction summary)."""
    return any(section.name == "chatcli" for section in request.system)


def _instructions(request: ChatRequest, system_prompt: bool) -> str:
    """The system prompt q is told about: every section (the request is lean: q uses no
    chatcli tools, so only what the user chose — a persona, an attached file, ``--system`` —
    or a plugin's task instructions are there), without chatcli's identity and the date unless
    ``system_prompt``."""
    chosen = [s for s in request.ordered_system() if system_prompt or s.name not in _NOT_FOR_Q]
    return "\n\n".join(s.text for s in chosen if s.text)


class Plan(NamedTuple):
    """What to send: ``text``, and whether it continues Q's conversation (``resume``)."""

    text: str
    resume: bool


class Tracker:
    """Which messages of chatcli's conversation a Q conversation has seen."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def forget(self) -> None:
        """Q's conversation is gone (a new process): the next request starts afresh."""
        self.seen = []

    def plan(self, request: ChatRequest, *, system_prompt: bool = False,
             can_resume: bool = True) -> Plan:
        """The text for ``request``: the new messages when Q's conversation has seen the rest
        (and ``can_resume``), else the transcript."""
        messages = request.messages
        tail = len(messages)
        while tail > 0 and messages[tail - 1].role != Role.ASSISTANT:
            tail -= 1
        new = [render(m) for m in messages[tail:]]
        current = "\n\n".join(text for text in new if text) or "(no message)"
        if can_resume and self._continues(messages, tail):
            return Plan(guard_command(current), True)
        instructions = _instructions(request, system_prompt)
        text = transcript(messages[:tail], current)
        if instructions:
            text = f"Instructions:\n{instructions}\n\n{text}"
        return Plan(guard_command(text), False)

    def _continues(self, messages: Sequence[Message], tail: int) -> bool:
        seen = self.seen
        if not seen or len(messages) <= len(seen):
            return False
        if [m.id for m in messages[:len(seen)]] != seen:
            return False
        between = messages[len(seen):tail]  # Q's own answer to what it was sent last
        return len(between) == 1 and between[0].role == Role.ASSISTANT

    def sent(self, request: ChatRequest) -> None:
        """Q's conversation now holds every message of ``request`` (and will hold its answer)."""
        self.seen = [m.id for m in request.messages]
