"""A local server speaking OpenAI's Chat Completions wire format.

``POST /v1/chat/completions`` streams SSE ``data:`` lines of ``chat.completion.chunk`` objects
(role chunk, content pieces, tool-call fragments ``delta.tool_calls[{index,id,type,function}]``,
a finish chunk, a usage chunk with ``choices: []`` when ``stream_options.include_usage`` is set,
then ``data: [DONE]``) or answers one ``chat.completion`` object. ``GET /v1/models`` lists
``server.models``. Errors use ``{"error": {"message", "type", "param", "code"}}``.

Other clients of the same format are served too: Azure OpenAI's
``POST /openai/deployments/{deployment}/chat/completions?api-version=…`` (give ``root_url`` as
the endpoint; the key arrives as an ``api-key`` header) and ``GET /openai/models``, and GitHub
Models' catalog ``GET /catalog/models`` (a JSON array of ``{"id", "name", "publisher"}``).
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from typing import Any, ClassVar

from chatcli_testing.script import Reply
from chatcli_testing.server_base import Exchange, RecordedRequest, Route, ScriptedServer, WireEvent

__all__ = ["OpenAIServer"]

#: Azure OpenAI's chat path: the deployment's name in the middle.
_AZURE_CHAT = re.compile(r"/openai/deployments/[^/]+/chat/completions")

_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    409: ("conflict_error", None),
    422: ("invalid_request_error", None),
    429: ("requests", "rate_limit_exceeded"),
}


def _sse(payload: Any) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {text}\n\n".encode()


def openai_usage(reply: Reply) -> dict[str, Any]:
    """The ``usage`` object: prompt/completion tokens plus cached-token details."""
    u = reply.resolved_usage()
    return {
        "prompt_tokens": u["input_tokens"],
        "completion_tokens": u["output_tokens"],
        "total_tokens": u["input_tokens"] + u["output_tokens"],
        "prompt_tokens_details": {"cached_tokens": u["cache_read_tokens"], "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0,
                                      "rejected_prediction_tokens": 0},
    }


class OpenAIServer(ScriptedServer):
    """OpenAI Chat Completions on ``http://127.0.0.1:PORT/v1`` (give ``url`` as ``base_url``)."""

    url_suffix: ClassVar[str] = "/v1"
    default_model: ClassVar[str] = "gpt-test"

    #: When set, the model lists (``/v1/models``, ``/catalog/models``) are answered only once
    #: the event is set (at most 30 s): a test can hold a listing open and look at the client
    #: meanwhile.
    models_gate: threading.Event | None = None

    def dispatch(self, exchange: Exchange, request: RecordedRequest) -> None:
        """Azure's deployment paths go to the chat route; the rest as usual."""
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and _AZURE_CHAT.fullmatch(path):
            self._chat(exchange, request)
            return
        super().dispatch(exchange, request)

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/v1/chat/completions"): self._chat,
            ("GET", "/v1/models"): self._models,
            ("GET", "/openai/models"): self._models,
            ("GET", "/catalog/models"): self._catalog,
        }

    def _catalog(self, exchange: Exchange, request: RecordedRequest) -> None:
        self._hold_models()
        data = [{"id": m, "name": m.split("/")[-1], "publisher": m.split("/")[0],
                 "rate_limit_tier": "low"} for m in self.models]
        exchange.send_json(200, data)

    def _chat(self, exchange: Exchange, request: RecordedRequest) -> None:
        body = request.json if isinstance(request.json, dict) else {}
        self.answer_chat(exchange, request, stream=bool(body.get("stream")))

    def _hold_models(self) -> None:
        if self.models_gate is not None:
            self.models_gate.wait(30)

    def _models(self, exchange: Exchange, request: RecordedRequest) -> None:
        self._hold_models()
        data = [{"id": m, "object": "model", "created": 1700000000, "owned_by": "chatcli-testing"}
                for m in self.models]
        exchange.send_json(200, {"object": "list", "data": data})

    # ------------------------------------------------------------------ encoders

    def error_body(self, status: int, message: str) -> Any:
        kind, code = _ERRORS.get(status, ("server_error" if status >= 500 else "api_error", None))
        if status == 400 and "context" in message.lower():
            code = "context_length_exceeded"
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}

    def error_headers(self, status: int) -> dict[str, str]:
        return {"x-request-id": "req_" + uuid.uuid4().hex[:24]}

    def stream_headers(self) -> dict[str, str]:
        return {"x-request-id": "req_" + uuid.uuid4().hex[:24], "openai-processing-ms": "1"}

    def stream_events(self, reply: Reply, model: str, body: dict[str, Any]) -> list[WireEvent]:
        base = {"id": "chatcmpl-" + uuid.uuid4().hex[:24], "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model, "system_fingerprint": "fp_test"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return _sse({**base, "choices": [choice]})

        events = [WireEvent(chunk({"role": "assistant", "content": "", "refusal": None}), "pre")]
        events += [WireEvent(chunk({"content": piece}), "content")
                   for piece in reply.text_chunks()]
        for index, call in enumerate(reply.tool_calls):
            head = {"index": index, "id": call.call_id("call_"), "type": "function",
                    "function": {"name": call.name, "arguments": ""}}
            events.append(WireEvent(chunk({"tool_calls": [head]}), "pre"))
            for piece in reply.argument_chunks(call):
                frag = {"index": index, "function": {"arguments": piece}}
                events.append(WireEvent(chunk({"tool_calls": [frag]}), "content"))
        finish = _FINISH.get(reply.resolved_stop_reason(), reply.resolved_stop_reason())
        events.append(WireEvent(chunk({}, finish), "post"))
        options = body.get("stream_options") or {}
        if isinstance(options, dict) and options.get("include_usage"):
            events.append(WireEvent(_sse({**base, "choices": [], "usage": openai_usage(reply)}),
                                    "post"))
        events.append(WireEvent(_sse("[DONE]"), "post"))
        return events

    def full_response(self, reply: Reply, model: str, body: dict[str, Any]) -> Any:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None,
                                   "refusal": None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": c.call_id("call_"), "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments_json()}}
                for c in reply.tool_calls
            ]
        finish = _FINISH.get(reply.resolved_stop_reason(), reply.resolved_stop_reason())
        return {
            "id": "chatcmpl-" + uuid.uuid4().hex[:24],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": finish}],
            "usage": openai_usage(reply),
        }

    def malformed_event(self) -> bytes:
        return b'data: {"id": "chatcmpl-broken", "choices": [{"index": 0, "delta": {"con\n\n'

    def stream_error_event(self, message: str) -> bytes:
        return _sse({"error": {"message": message, "type": "server_error", "param": None,
                               "code": None}})
