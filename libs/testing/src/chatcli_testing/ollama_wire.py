"""A local server speaking Ollama's native chat API.

``POST /api/chat`` streams NDJSON lines (``stream`` defaults to true, as in Ollama): each line has
``model``, ``created_at``, ``message`` (``role`` always present), ``done``; tool calls arrive in
one line as ``message.tool_calls[{function: {index, name, arguments: {…}}}]`` (an object, not a
string); the last line has ``done: true``, ``done_reason`` and the counts (``prompt_eval_count``,
``eval_count``, durations). ``GET /api/tags`` lists ``server.models``; ``GET /api/version``.
Errors are ``{"error": "…"}``, with an HTTP status or as a line inside the stream.

Ollama's own tool parser never emits malformed arguments: a :class:`ToolCall` whose ``arguments``
string is not a JSON object is sent as plain text content, as Ollama does when parsing fails.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, ClassVar

from chatcli_testing.script import Reply
from chatcli_testing.server_base import Exchange, RecordedRequest, Route, ScriptedServer, WireEvent

__all__ = ["OllamaServer"]

_DONE_REASON = {"end_turn": "stop", "tool_use": "stop", "max_tokens": "length"}


def _line(payload: dict[str, Any]) -> bytes:
    # ASCII-escaped: the ollama client splits lines with str.splitlines(), which also breaks on
    # U+0085, U+2028 and U+2029, so raw non-ASCII text could cut a JSON line in two.
    return (json.dumps(payload) + "\n").encode()


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class OllamaServer(ScriptedServer):
    """Ollama on ``http://127.0.0.1:PORT`` (give ``url`` as ``host``)."""

    url_suffix: ClassVar[str] = ""
    stream_content_type: ClassVar[str] = "application/x-ndjson"
    default_model: ClassVar[str] = "llama-test"

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/api/chat"): self._chat,
            ("GET", "/api/tags"): self._tags,
            ("GET", "/api/version"): self._version,
            ("GET", "/"): self._root,
        }

    def _chat(self, exchange: Exchange, request: RecordedRequest) -> None:
        body = request.json if isinstance(request.json, dict) else {}
        self.answer_chat(exchange, request, stream=bool(body.get("stream", True)))

    def _tags(self, exchange: Exchange, request: RecordedRequest) -> None:
        models = [{"name": m, "model": m, "modified_at": "2025-01-01T00:00:00Z", "size": 1000,
                   "digest": "0" * 64,
                   "details": {"format": "gguf", "family": "llama", "parameter_size": "1B",
                               "quantization_level": "Q4_0"}} for m in self.models]
        exchange.send_json(200, {"models": models})

    def _version(self, exchange: Exchange, request: RecordedRequest) -> None:
        exchange.send_json(200, {"version": "0.6.3"})

    def _root(self, exchange: Exchange, request: RecordedRequest) -> None:
        exchange.send_bytes(200, b"Ollama is running", "text/plain; charset=utf-8")

    # ------------------------------------------------------------------ encoders

    def error_body(self, status: int, message: str) -> Any:
        return {"error": message}

    def _split(self, reply: Reply) -> tuple[str, list[dict[str, Any]]]:
        """Text (plus unparseable tool calls as text) and the well-formed tool calls."""
        text = reply.text
        calls = []
        for index, call in enumerate(reply.tool_calls):
            arguments = call.arguments_object()
            if arguments is None:
                text += call.arguments_json()
                continue
            calls.append({"function": {"index": index, "name": call.name,
                                       "arguments": arguments}})
        return text, calls

    def _final(self, reply: Reply, model: str, message: dict[str, Any]) -> dict[str, Any]:
        usage = reply.resolved_usage()
        return {"model": model, "created_at": _now(), "message": message, "done": True,
                "done_reason": _DONE_REASON.get(reply.resolved_stop_reason(),
                                                reply.resolved_stop_reason()),
                "total_duration": 1_000_000, "load_duration": 100_000,
                "prompt_eval_count": usage["input_tokens"], "prompt_eval_duration": 200_000,
                "eval_count": usage["output_tokens"], "eval_duration": 700_000}

    def stream_events(self, reply: Reply, model: str, body: dict[str, Any]) -> list[WireEvent]:
        text, calls = self._split(reply)
        pieces = Reply(text=text, chunk_size=reply.chunk_size).text_chunks()
        events = [
            WireEvent(_line({"model": model, "created_at": _now(),
                             "message": {"role": "assistant", "content": piece},
                             "done": False}), "content")
            for piece in pieces
        ]
        if calls:
            events.append(WireEvent(_line({"model": model, "created_at": _now(),
                                           "message": {"role": "assistant", "content": "",
                                                       "tool_calls": calls},
                                           "done": False}), "content"))
        final = self._final(reply, model, {"role": "assistant", "content": ""})
        events.append(WireEvent(_line(final), "post"))
        return events

    def full_response(self, reply: Reply, model: str, body: dict[str, Any]) -> Any:
        text, calls = self._split(reply)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = calls
        return self._final(reply, model, message)

    def malformed_event(self) -> bytes:
        return b'{"model": "broken", "message": {"role": "assis\n'

    def stream_error_event(self, message: str) -> bytes:
        return _line({"error": message})
