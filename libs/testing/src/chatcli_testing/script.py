"""What a test scripts: replies (:class:`Reply`, :class:`ToolCall`) and faults (:class:`Fault`).

The same objects drive the local wire servers (``OpenAIServer``…) and the in-process
:class:`chatcli_testing.ScriptedProvider`. Usage keys are chatcli's own names
(``input_tokens``, ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``); every server
maps them to its provider's wire names.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

__all__ = ["USAGE_KEYS", "Fault", "Reply", "ToolCall", "new_call_id"]

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def new_call_id(prefix: str) -> str:
    """A random id with the provider's prefix (``call_``, ``toolu_``…)."""
    return prefix + uuid.uuid4().hex[:20]


@dataclass
class ToolCall:
    """A tool call the scripted model makes.

    ``arguments`` is a JSON object (a dict), or a string sent verbatim — use a string to send
    deliberately malformed JSON. ``id`` defaults to a fresh provider-style id.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        """The arguments as the JSON text a model streams."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    def arguments_object(self) -> dict[str, Any] | None:
        """The arguments as an object, or None if they are not a JSON object."""
        if isinstance(self.arguments, dict):
            return self.arguments
        try:
            value = json.loads(self.arguments)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def call_id(self, prefix: str) -> str:
        """``id`` if given, else a fresh one with the provider's ``prefix``."""
        return self.id or new_call_id(prefix)


@dataclass
class Reply:
    """One scripted model answer: text streamed in chunks, tool calls, usage and stop reason."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, int] | None = None
    chunk_size: int = 4
    stop_reason: str | None = None
    model: str | None = None
    delay: float = 0.0
    #: content chunk index -> seconds to wait before sending it (a model that pauses mid-answer)
    pauses: dict[int, float] = field(default_factory=dict)

    def wait_before(self, sent: int) -> float:
        """Seconds to wait before the content chunk after ``sent`` others: ``delay`` between
        chunks plus any pause at that point."""
        return (self.delay if sent else 0.0) + self.pauses.get(sent, 0.0)

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError("Reply.chunk_size must be at least 1")
        if self.usage:
            unknown = set(self.usage) - set(USAGE_KEYS)
            if unknown:
                raise ValueError(f"unknown usage keys {sorted(unknown)}; use {list(USAGE_KEYS)}")

    def text_chunks(self) -> list[str]:
        """The text cut into pieces of ``chunk_size`` characters."""
        size = self.chunk_size
        return [self.text[i : i + size] for i in range(0, len(self.text), size)]

    def argument_chunks(self, call: ToolCall) -> list[str]:
        """A tool call's argument JSON cut into pieces of ``chunk_size`` characters."""
        raw = call.arguments_json()
        size = self.chunk_size
        return [raw[i : i + size] for i in range(0, len(raw), size)] or [""]

    def resolved_stop_reason(self) -> str:
        """``stop_reason``, defaulting to ``tool_use`` with tool calls and ``end_turn`` without."""
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"

    def resolved_usage(self) -> dict[str, int]:
        """All four usage counts; without ``usage``: 10 input tokens, one output per chunk."""
        usage = {key: 0 for key in USAGE_KEYS}
        if self.usage is None:
            usage["input_tokens"] = 10
            usage["output_tokens"] = max(1, len(self.text_chunks()) + len(self.tool_calls))
        else:
            usage.update(self.usage)
        return usage


@dataclass
class Fault:
    """A failure to inject into one request.

    ``status``: answer with this HTTP status and the provider's error JSON (plus ``Retry-After``
    when ``retry_after`` is set). The stream faults send ``reply`` (default ``Reply(text=…)`` long
    enough to cut) and count *content chunks* (text pieces and tool-argument fragments; protocol
    preamble such as Anthropic's ``message_start`` comes before them for free):
    ``cut_after`` drops the connection after N chunks, ``malformed_after`` sends a garbage chunk
    after N, ``error_event_after`` sends the provider's in-stream error after N, and ``stall``
    sends the headers then waits that many seconds before streaming anything — writing a
    keep-alive comment every ``keepalive`` seconds meanwhile, when set (SSE servers only), as
    proxies and some services do.
    """

    status: int | None = None
    retry_after: float | None = None
    message: str = "Injected fault from chatcli_testing"
    cut_after: int | None = None
    malformed_after: int | None = None
    stall: float | None = None
    keepalive: float | None = None
    reply: Reply | None = None
    error_event_after: int | None = None

    def partial_reply(self) -> Reply:
        """The reply streamed by a stream fault."""
        if self.reply is not None:
            return self.reply
        return Reply(text="The quick brown fox jumps over the lazy dog. " * 3)


DEFAULT_REPLY_TEXT = "ok"
