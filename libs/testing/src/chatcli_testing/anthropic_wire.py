"""A local server speaking Anthropic's Messages wire format.

``POST /v1/messages`` streams SSE events, each with an ``event: NAME`` line and a matching
``"type"`` in its data: ``message_start`` → per block ``content_block_start`` (``text`` or
``tool_use``), ``content_block_delta`` (``text_delta`` / ``input_json_delta``),
``content_block_stop`` → ``message_delta`` (stop_reason and usage) → ``message_stop``; or answers
one ``message`` object. ``GET /v1/models`` lists ``server.models``;
``POST /v1/messages/count_tokens`` answers a rough count. Errors use
``{"type": "error", "error": {"type", "message"}, "request_id"}``; an in-stream error is an
``event: error`` with the same data.

Like the real API, a request whose ``cache_control`` breakpoints break its rules is refused
with a 400 ``invalid_request_error`` in the API's words (and consumes no scripted reply): more
than 4 breakpoints, a ``type`` other than ``ephemeral``, a ``ttl`` other than ``5m``/``1h``, a
``1h`` breakpoint after a ``5m`` one (in ``tools`` → ``system`` → ``messages`` order), or a
breakpoint on an empty text block.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, ClassVar

from chatcli_testing.script import Reply
from chatcli_testing.server_base import Exchange, RecordedRequest, Route, ScriptedServer, WireEvent

__all__ = ["AnthropicServer"]

_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


#: The most ``cache_control`` breakpoints the Messages API accepts in one request.
MAX_CACHE_BREAKPOINTS = 4


def _marked_blocks(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(path, block)`` of every block carrying ``cache_control``, in the API's processing
    order: ``tools``, ``system``, ``messages``."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key in ("tools", "system"):
        items = body.get(key)
        if isinstance(items, list):
            found += [(f"{key}.{i}", b) for i, b in enumerate(items)
                      if isinstance(b, dict) and "cache_control" in b]
    messages = body.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            found += [(f"messages.{i}.content.{j}", b) for j, b in enumerate(content)
                      if isinstance(b, dict) and "cache_control" in b]
    return found


def cache_control_error(body: dict[str, Any]) -> str | None:
    """What the real API answers (400) to the request's breakpoints, or None when it takes
    them."""
    marked = _marked_blocks(body)
    if len(marked) > MAX_CACHE_BREAKPOINTS:
        return (f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be "
                f"provided. Found {len(marked)}.")
    seen_short = False
    for path, block in marked:
        control = block["cache_control"]
        if not isinstance(control, dict) or control.get("type") != "ephemeral":
            return f"{path}.cache_control.type: Input should be 'ephemeral'"
        ttl = control.get("ttl", "5m")
        if ttl not in ("5m", "1h"):
            return f"{path}.cache_control.ttl: Input should be '5m' or '1h'"
        if ttl == "1h" and seen_short:
            return (f"{path}.cache_control.ttl: a ttl='1h' cache_control block must not come "
                    "after a ttl='5m' cache_control block. Note that blocks are processed in "
                    "the following order: `tools`, `system`, `messages`.")
        seen_short = seen_short or ttl == "5m"
        if block.get("type") == "text" and not block.get("text"):
            return f"{path}: cache_control cannot be set for empty text blocks"
    return None


def _event(name: str, payload: dict[str, Any]) -> bytes:
    data = json.dumps({"type": name, **payload}, ensure_ascii=False)
    return f"event: {name}\ndata: {data}\n\n".encode()


def anthropic_usage(reply: Reply, final: bool) -> dict[str, Any]:
    """The ``usage`` object; ``message_start`` carries 1 output token, ``message_delta`` all."""
    u = reply.resolved_usage()
    return {
        "input_tokens": u["input_tokens"],
        "cache_creation_input_tokens": u["cache_write_tokens"],
        "cache_read_input_tokens": u["cache_read_tokens"],
        "output_tokens": u["output_tokens"] if final else 1,
    }


class AnthropicServer(ScriptedServer):
    """Anthropic Messages on ``http://127.0.0.1:PORT`` (give ``url`` as ``base_url``)."""

    url_suffix: ClassVar[str] = ""
    default_model: ClassVar[str] = "claude-test"

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/v1/messages"): self._messages,
            ("POST", "/v1/messages/count_tokens"): self._count_tokens,
            ("GET", "/v1/models"): self._models,
        }

    def _count_tokens(self, exchange: Exchange, request: RecordedRequest) -> None:
        """A rough count (a token per 4 bytes of the request), never consuming the script."""
        exchange.send_json(200, {"input_tokens": max(1, len(request.body) // 4)})

    def _messages(self, exchange: Exchange, request: RecordedRequest) -> None:
        body = request.json if isinstance(request.json, dict) else {}
        refused = cache_control_error(body)
        if refused is not None:
            exchange.send_json(400, self.error_body(400, refused), self.error_headers(400))
            return
        self.answer_chat(exchange, request, stream=bool(body.get("stream")))

    def _models(self, exchange: Exchange, request: RecordedRequest) -> None:
        data = [{"type": "model", "id": m, "display_name": m,
                 "created_at": "2025-01-01T00:00:00Z"} for m in self.models]
        exchange.send_json(200, {"data": data, "has_more": False,
                                 "first_id": data[0]["id"] if data else None,
                                 "last_id": data[-1]["id"] if data else None})

    # ------------------------------------------------------------------ encoders

    def error_body(self, status: int, message: str) -> Any:
        kind = _ERRORS.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message},
                "request_id": "req_" + uuid.uuid4().hex[:24]}

    def error_headers(self, status: int) -> dict[str, str]:
        return {"request-id": "req_" + uuid.uuid4().hex[:24]}

    def stream_headers(self) -> dict[str, str]:
        return {"request-id": "req_" + uuid.uuid4().hex[:24]}

    def stream_events(self, reply: Reply, model: str, body: dict[str, Any]) -> list[WireEvent]:
        message: dict[str, Any] = {
            "id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": anthropic_usage(reply, final=False)}
        events = [WireEvent(_event("message_start", {"message": message}), "pre")]
        index = 0
        if reply.text:
            events.append(WireEvent(_event("content_block_start", {
                "index": index, "content_block": {"type": "text", "text": ""}}), "pre"))
            events.append(WireEvent(_event("ping", {}), "pre"))
            for piece in reply.text_chunks():
                events.append(WireEvent(_event("content_block_delta", {
                    "index": index, "delta": {"type": "text_delta", "text": piece}}), "content"))
            events.append(WireEvent(_event("content_block_stop", {"index": index}), "pre"))
            index += 1
        for call in reply.tool_calls:
            block = {"type": "tool_use", "id": call.call_id("toolu_"), "name": call.name,
                     "input": {}}
            events.append(WireEvent(_event("content_block_start", {
                "index": index, "content_block": block}), "pre"))
            for piece in reply.argument_chunks(call):
                events.append(WireEvent(_event("content_block_delta", {
                    "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                    "content"))
            events.append(WireEvent(_event("content_block_stop", {"index": index}), "pre"))
            index += 1
        events.append(WireEvent(_event("message_delta", {
            "delta": {"stop_reason": reply.resolved_stop_reason(), "stop_sequence": None},
            "usage": anthropic_usage(reply, final=True)}), "post"))
        events.append(WireEvent(_event("message_stop", {}), "post"))
        return events

    def full_response(self, reply: Reply, model: str, body: dict[str, Any]) -> Any:
        content: list[dict[str, Any]] = []
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for call in reply.tool_calls:
            parsed = call.arguments_object()
            content.append({"type": "tool_use", "id": call.call_id("toolu_"), "name": call.name,
                            "input": parsed if parsed is not None else {}})
        return {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
                "model": model, "content": content, "stop_reason": reply.resolved_stop_reason(),
                "stop_sequence": None, "usage": anthropic_usage(reply, final=True)}

    def malformed_event(self) -> bytes:
        return b'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n'

    def stream_error_event(self, message: str) -> bytes:
        return _event("error", {"error": {"type": "overloaded_error", "message": message}})
