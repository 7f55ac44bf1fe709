"""A streaming client for an OpenAI-compatible chat-completions endpoint, written with httpx.

It speaks the wire format directly: ``POST {base_url}/chat/completions`` with ``"stream": true``,
then reads server-sent events (``data: {...}`` lines, ending with ``data: [DONE]``). Text arrives
as ``choices[0].delta.content``; tool calls arrive as fragments in
``choices[0].delta.tool_calls`` that are joined by ``index``; token usage arrives in a last chunk
(requested with ``stream_options.include_usage``).

It never retries: chatcli's engine retries retryable errors (honouring ``Retry-After``), so every
failure is raised once as the matching :mod:`chatcli.errors` exception.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from chatcli.errors import (
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    ServerError,
    StreamCutError,
    register_secret,
)
from chatcli.providers_util import retry_after_from_headers, status_error
from chatcli.types import (
    ChatRequest,
    ImagePart,
    Message,
    ProviderConfig,
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
    new_id,
)

__all__ = ["OpenAICompatibleProvider", "parse_stream", "request_body"]

_FINISH_REASONS = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
}


class OpenAICompatibleProvider:
    """A chatcli :class:`~chatcli.types.Provider` for one OpenAI-compatible service."""

    def __init__(self, config: ProviderConfig, display_name: str = "the service") -> None:
        self.config = config
        self.display_name = display_name
        register_secret(config.api_key)  # chatcli.errors.redact hides it from every message
        headers = {"Accept": "text/event-stream"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._client = httpx.Client(
            base_url=(config.base_url or "").rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout, connect=min(config.timeout, 10.0)),
        )

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and a final stop event."""
        body = request_body(request)
        try:
            with self._client.stream("POST", "chat/completions", json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    raise self._status_error(response)
                yield from parse_stream(response.iter_lines(), self.display_name)
        except httpx.TimeoutException as err:
            raise ProviderTimeoutError(
                f"{self.display_name} did not answer in time ({type(err).__name__})",
                f"raise [providers.{self.config.name}].timeout or try again",
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as err:
            raise StreamCutError(
                f"the connection to {self.display_name} broke mid-answer ({type(err).__name__})",
                "try again",
            ) from None
        except httpx.TransportError as err:
            raise NetworkError(
                f"cannot reach {self.display_name} at {self.config.base_url} "
                f"({type(err).__name__})",
                "check that the service runs and the base URL is right",
            ) from None

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _status_error(self, response: httpx.Response) -> ProviderError:
        """Map an HTTP error answer to chatcli's error taxonomy (the kernel's shared table)."""
        return status_error(
            response.status_code,
            _error_message(response),
            who=self.display_name,
            provider=self.config.name,
            model=self.config.model,
            base_url=self.config.base_url,
            key_hint=f"check the API key (`chatcli keys set {self.config.name}`)",
            retry_after=retry_after_from_headers(response.headers),
        )


# ------------------------------------------------------------------------------------------------
# Request
# ------------------------------------------------------------------------------------------------


def request_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for ``request``."""
    messages: list[dict[str, Any]] = []
    system = request.system_text()
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        messages.extend(_wire_messages(message))
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    body.update(request.options)
    return body


def _wire_messages(message: Message) -> list[dict[str, Any]]:
    """One chatcli message as OpenAI messages (tool results become one message each)."""
    if message.role == Role.TOOL:
        return [
            {"role": "tool", "tool_call_id": part.call_id, "content": part.content}
            for part in message.parts
            if isinstance(part, ToolResultPart)
        ]
    if message.role == Role.ASSISTANT:
        wire: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": call.raw_arguments or json.dumps(call.arguments),
                    },
                }
                for call in message.tool_calls
            ]
        return [wire]
    images = [part for part in message.parts if isinstance(part, ImagePart)]
    if not images:
        return [{"role": "user", "content": message.text}]
    content: list[dict[str, Any]] = [
        {"type": "text", "text": part.text} for part in message.parts if isinstance(part, TextPart)
    ]
    content.extend({"type": "image_url", "image_url": {"url": image.source}} for image in images)
    return [{"role": "user", "content": content}]


# ------------------------------------------------------------------------------------------------
# Response stream
# ------------------------------------------------------------------------------------------------


@dataclass
class _PendingCall:
    """A tool call whose fragments are still arriving."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def part(self) -> ToolCallPart:
        text = "".join(self.arguments).strip() or "{}"
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            parsed = None
        call_id = self.id or new_id("call_")
        if isinstance(parsed, dict):
            return ToolCallPart(id=call_id, name=self.name, arguments=parsed)
        # Not a JSON object: keep the text so the engine can tell the model what was wrong.
        return ToolCallPart(id=call_id, name=self.name, raw_arguments=text)


def parse_stream(lines: Iterable[str], display_name: str = "the service") -> Iterator[StreamEvent]:
    """Turn the SSE lines of a chat-completions stream into chatcli stream events.

    Text is yielded as it arrives; tool calls, usage and the stop event come at the end of the
    stream. A stream that ends before a finish reason or ``[DONE]``, or carries a line that is not
    JSON, raises :class:`~chatcli.errors.StreamCutError`.
    """
    calls: dict[int, _PendingCall] = {}
    usage: Usage | None = None
    reason: StopReason | None = None
    model: str | None = None
    done = False
    for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, comments (": ping"), "event:" lines
        data = line[5:].strip()
        if data == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError:
            raise StreamCutError(
                f"{display_name} sent a chunk that is not JSON: {data[:80]!r}", "try again"
            ) from None
        if not isinstance(chunk, dict):
            raise StreamCutError(f"{display_name} sent an unexpected chunk: {data[:80]!r}")
        if "error" in chunk:
            error = chunk["error"]
            detail = error.get("message") if isinstance(error, dict) else str(error)
            raise ServerError(f"{display_name} failed mid-answer: {detail}", "try again")
        model = chunk.get("model") or model
        if chunk.get("usage"):
            usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                yield TextDelta(text=delta["content"])
            for fragment in delta.get("tool_calls") or []:
                pending = calls.setdefault(fragment.get("index", len(calls)), _PendingCall())
                pending.id = fragment.get("id") or pending.id
                function = fragment.get("function") or {}
                pending.name = function.get("name") or pending.name
                if function.get("arguments"):
                    pending.arguments.append(function["arguments"])
            if choice.get("finish_reason"):
                reason = _FINISH_REASONS.get(choice["finish_reason"], StopReason.END_TURN)
    if not done and reason is None:
        raise StreamCutError(f"the answer from {display_name} ended early", "try again")
    for index in sorted(calls):
        yield ToolCallEvent(call=calls[index].part())
    if usage is not None:
        yield UsageEvent(usage=usage)
    if reason is None:
        reason = StopReason.TOOL_USE if calls else StopReason.END_TURN
    yield StopEvent(reason=reason, model=model)


def _usage(raw: dict[str, Any]) -> Usage:
    """OpenAI usage → chatcli usage (``prompt_tokens`` already counts cached tokens)."""
    details = raw.get("prompt_tokens_details") or {}
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=int(details.get("cached_tokens") or 0),
    )


def _error_message(response: httpx.Response) -> str:
    """The one-line message of an error answer (``{"error": {"message": ...}}`` or text)."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        text = str(error.get("message") or error) if isinstance(error, dict) else str(error)
    else:
        text = response.text or response.reason_phrase
    lines = text.strip().splitlines()
    return (lines[0] if lines else response.reason_phrase)[:300]
