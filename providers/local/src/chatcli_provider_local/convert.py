"""Translation between chatcli's types and llama.cpp's OpenAI-style chat completion chunks.

Pure functions and a small state machine, no llama.cpp import: :func:`request_body` builds the
request, :class:`ChunkMapper` turns the streamed chunk dicts into kernel stream events, and
:func:`error_from_payload` maps llama.cpp's error objects onto the kernel's error taxonomy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from chatcli.errors import (
    BadRequestError,
    ContextTooLongError,
    ModelNotFoundError,
    ProviderError,
    ServerError,
    StreamCutError,
)
from chatcli.types import (
    ChatRequest,
    ImagePart,
    Message,
    Role,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    Usage,
    UsageEvent,
)

__all__ = ["DEFAULT_MAX_TOKENS", "ChunkMapper", "error_from_payload", "request_body"]

#: Answer length cap when the request sets none: a 135M model may otherwise ramble until the
#: context is full.
DEFAULT_MAX_TOKENS = 1024

_STOP_REASONS = {
    "stop": StopReason.END_TURN,
    "length": StopReason.MAX_TOKENS,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
}


def request_body(request: ChatRequest, *, tools: bool) -> dict[str, Any]:
    """The chat-completion request for ``request``.

    :param tools: whether the model's chat template renders tools. When it does not, tool specs
        are left out and earlier tool calls and results are written into the text, so the model
        still sees what happened.
    """
    messages: list[dict[str, Any]] = []
    system = request.system_text()
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        messages.extend(_messages(message, tools=tools))
    body: dict[str, Any] = {
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "cache_prompt": True,
    }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if tools and request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                },
            }
            for spec in request.tools
        ]
    for key in ("seed", "top_p", "top_k", "repeat_penalty", "stop"):
        if key in request.options:
            body[key] = request.options[key]
    return body


def _text(message: Message) -> str:
    pieces = []
    for part in message.parts:
        if isinstance(part, TextPart):
            pieces.append(part.text)
        elif isinstance(part, ImagePart):
            pieces.append(f"[image: {part.source}]")  # this model has no vision
    return "".join(pieces)


def _messages(message: Message, *, tools: bool) -> list[dict[str, Any]]:
    if message.role == Role.USER:
        return [{"role": "user", "content": _text(message)}]
    if message.role == Role.ASSISTANT:
        text = _text(message)
        calls = message.tool_calls
        if not calls:
            return [{"role": "assistant", "content": text}]
        if not tools:
            described = "\n".join(
                f"[called tool {c.name} with {json.dumps(c.arguments, ensure_ascii=False)}]"
                for c in calls
            )
            return [{"role": "assistant", "content": f"{text}\n{described}".strip()}]
        return [{
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.raw_arguments
                        if c.raw_arguments is not None
                        else json.dumps(c.arguments, ensure_ascii=False),
                    },
                }
                for c in calls
            ],
        }]
    results = [p for p in message.parts if isinstance(p, ToolResultPart)]
    if not tools:
        text = "\n\n".join(
            f"[result of tool {r.name}{' (error)' if r.is_error else ''}]\n{r.content}"
            for r in results
        )
        return [{"role": "user", "content": text}] if text else []
    return [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results]


def error_from_payload(payload: Any) -> ProviderError:
    """The kernel error for an ``{"error": {...}}`` object llama.cpp returned."""
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    if not isinstance(error, dict):
        return ServerError(f"local model error: {str(error)[:200]}", provider="local")
    message = str(error.get("message") or "unknown error").splitlines()[0][:300]
    kind = str(error.get("type") or "")
    code = error.get("code")
    status = code if isinstance(code, int) else None
    if kind == "exceed_context_size_error" or "context size" in message:
        return ContextTooLongError(
            f"the conversation is too long for the local model: {message}",
            "start a new conversation, or raise providers.local.context_size",
            provider="local", status=status,
        )
    if kind == "not_found_error" or status == 404:
        return ModelNotFoundError(f"local model: {message}", provider="local", status=status)
    if kind in ("invalid_request_error", "not_supported_error") or (
        status is not None and 400 <= status < 500
    ):
        return BadRequestError(f"local model rejected the request: {message}",
                               provider="local", status=status)
    return ServerError(f"local model failed: {message}", provider="local", status=status)


@dataclass
class _PendingCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def part(self) -> ToolCallPart:
        raw = "".join(self.arguments).strip()
        kwargs: dict[str, Any] = {"name": self.name}
        if self.id:
            kwargs["id"] = self.id
        if not raw:
            return ToolCallPart(**kwargs)
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return ToolCallPart(arguments=parsed, **kwargs)
        return ToolCallPart(raw_arguments=raw, **kwargs)


class ChunkMapper:
    """Turns streamed chat-completion chunks into kernel events, in order.

    Feed each chunk dict to :meth:`feed`; call :meth:`finish` when the stream ends. Tool-call
    fragments are assembled and emitted as whole :class:`ToolCallEvent` objects when the choice
    finishes (or the stream ends).
    """

    def __init__(self, model: str) -> None:
        self.model = model
        self.calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self._emitted_calls = 0

    def feed(self, chunk: Any) -> Iterator[StreamEvent]:
        """The events carried by one chunk; raises a kernel error for an error chunk."""
        if not isinstance(chunk, dict):
            raise StreamCutError(f"local model sent an unreadable chunk: {str(chunk)[:100]}",
                                 provider="local")
        if "error" in chunk:
            raise error_from_payload(chunk)
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if content:
                yield TextDelta(text=content)
            for fragment in delta.get("tool_calls") or []:
                self._add_call_fragment(fragment)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
                yield from self._flush_calls()
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            details = usage.get("prompt_tokens_details") or {}
            self.usage = Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cache_read_tokens=int(details.get("cached_tokens") or 0),
            )
            yield UsageEvent(usage=self.usage)

    def finish(self) -> Iterator[StreamEvent]:
        """The closing events: any unflushed tool calls, then the :class:`StopEvent`."""
        if self.finish_reason is None:
            raise StreamCutError("the local model's answer stopped before its end",
                                 provider="local")
        yield from self._flush_calls()
        reason = _STOP_REASONS.get(self.finish_reason or "stop", StopReason.END_TURN)
        if self._emitted_calls and reason == StopReason.END_TURN:
            reason = StopReason.TOOL_USE
        yield StopEvent(reason=reason, model=self.model)

    def _add_call_fragment(self, fragment: dict[str, Any]) -> None:
        index = fragment.get("index", len(self.calls))
        pending = self.calls.setdefault(index, _PendingCall())
        if fragment.get("id"):
            pending.id = fragment["id"]
        function = fragment.get("function") or {}
        if function.get("name"):
            pending.name += function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            pending.arguments.append(arguments)
        elif isinstance(arguments, dict):
            pending.arguments.append(json.dumps(arguments))

    def _flush_calls(self) -> Iterator[StreamEvent]:
        for index in sorted(self.calls):
            pending = self.calls[index]
            if pending.name:
                self._emitted_calls += 1
                yield ToolCallEvent(call=pending.part())
        self.calls.clear()
