"""A local server speaking Anthropic's Messages wire format.

``POST /v1/messages`` streams SSE events, each with an ``event: NAME`` line and a matching
``"type"`` in its data: ``message_start`` → per block ``content_block_start`` (``text`` or
``tool_use``), ``content_block_delta`` (``text_delta`` / ``input_json_delta``),
``content_block_stop`` → ``message_delta`` (stop_reason and usage) → ``message_stop``; or answers
one ``message`` object. ``GET /v1/models`` lists ``server.models``;
``POST /v1/messages/count_tokens`` answers a rough count. Errors use
``{"type": "error", "error": {"type", "message"}, "request_id"}``; an in-stream error is an
``event: error`` with the same data.
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
        message = {"id": "msg_" + uuid.uuid4().hex[:24], "type": "message", "role": "assistant",
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
