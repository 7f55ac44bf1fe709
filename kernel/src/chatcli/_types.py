"""The conversation's data model: messages made of parts, and token usage.

These are pydantic models because they are stored (sessions), exported and read back, and a
stored message must validate when it is loaded. What plugins register and what flows through one
model call are plain dataclasses in :mod:`chatcli._specs`.
"""

from __future__ import annotations

import time
import uuid
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from chatcli._specs import StopReason

__all__ = ["ImagePart", "Message", "Part", "Role", "TextPart", "ToolCallPart", "ToolResultPart",
           "Usage", "new_id"]


def _new_list() -> list[Any]:
    """``list`` as a pydantic default factory: pydantic reads a factory's signature when it
    builds a model, and a builtin's is parsed from its text signature by the tokenizer, whose
    first use compiles a large regular expression (a few ms of every start-up)."""
    return []


def _new_dict() -> dict[str, Any]:
    """``dict`` as a pydantic default factory (see :func:`_new_list`)."""
    return {}


def new_id(prefix: str = "") -> str:
    """Return a short random identifier, optionally prefixed (``call_…``, ``msg_…``)."""
    return prefix + uuid.uuid4().hex[:16]


# ------------------------------------------------------------------------------ Messages


class Role(StrEnum):
    """Who wrote a message. Tool results travel in ``tool`` messages."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class TextPart(BaseModel):
    """Plain text (markdown) written by the user or the model."""

    type: Literal["text"] = "text"
    text: str


class ToolCallPart(BaseModel):
    """The model asks to run a tool.

    ``arguments`` is the parsed JSON object; ``raw_arguments`` keeps the text the model sent when it
    was not valid JSON, so the engine can tell the model what was wrong instead of guessing.
    """

    type: Literal["tool_call"] = "tool_call"
    id: str = Field(default_factory=lambda: new_id("call_"))
    name: str
    arguments: dict[str, Any] = Field(default_factory=_new_dict)
    raw_arguments: str | None = None


class ToolResultPart(BaseModel):
    """The outcome of one tool call, sent back to the model."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    content: str
    is_error: bool = False


class ImagePart(BaseModel):
    """A reference to an image (a local path or a URL); providers with vision load it."""

    type: Literal["image"] = "image"
    source: str
    media_type: str | None = None


Part = Annotated[TextPart | ToolCallPart | ToolResultPart | ImagePart, Field(discriminator="type")]


class Usage(BaseModel):
    """Token counts of one response (or a sum of several: ``a + b``)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{name: getattr(self, name) + getattr(other, name)
                        for name in Usage.model_fields})

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens (cache reads and writes are part of the input)."""
        return self.input_tokens + self.output_tokens


class Message(BaseModel):
    """One entry of the conversation: a role and its parts.

    ``parent_id`` links the message to the one before it, so the log is a tree: rewinding moves the
    conversation's head, and a new message after a rewind starts a branch.
    ``interrupted`` marks an assistant answer cut short (Ctrl+C, a dropped stream); what arrived is
    kept. ``model``/``provider``/``usage`` are filled for assistant messages. ``pinned``
    messages (bootstrap material, the task of an agent run, what the person marked) are never
    compacted away: a compaction must keep them unchanged. ``author`` names who wrote an
    assistant message when a plugin spoke through someone (a persona; the ``answer_author``
    hook), None when chatcli answered as itself. ``via`` names the provider the session
    used when it handed the call to ``provider`` (a fallback chain or pool: ``fallback``);
    ``chatcli -c`` goes on with ``via``.
    """

    id: str = Field(default_factory=lambda: new_id("msg_"))
    parent_id: str | None = None
    role: Role
    parts: list[Part] = Field(default_factory=_new_list)
    created_at: float = Field(default_factory=time.time)
    interrupted: bool = False
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    pinned: bool = False
    author: str | None = None
    via: str | None = None

    @classmethod
    def user(cls, text: str, *images: str) -> Message:
        """A user message with ``text`` and optional image references."""
        parts: list[Any] = [TextPart(text=text)]
        parts.extend(ImagePart(source=src) for src in images)
        return cls(role=Role.USER, parts=parts)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: list[ToolCallPart] | None = None) -> Message:
        """An assistant message with ``text`` and optional tool calls."""
        parts: list[Any] = [TextPart(text=text)] if text else []
        parts.extend(tool_calls or [])
        return cls(role=Role.ASSISTANT, parts=parts)

    @property
    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The tool-call parts, in order."""
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def tool_results(self) -> list[ToolResultPart]:
        """The tool-result parts, in order."""
        return [p for p in self.parts if isinstance(p, ToolResultPart)]
