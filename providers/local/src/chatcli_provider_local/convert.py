"""Translation between chatcli's types and llama.cpp's OpenAI-style chat completion chunks.

Pure functions and a small state machine, no llama.cpp import: :func:`request_body` builds the
request, :class:`ChunkMapper` turns the streamed chunk dicts into kernel stream events, and
:func:`error_from_payload` maps llama.cpp's error objects onto the kernel's error taxonomy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chatcli import (
    BadRequestError,
    ChatRequest,
    ContextTooLongError,
    ModelNotFoundError,
    ProviderError,
    ServerError,
    StreamCutError,
    StreamEvent,
    Usage,
    translation,
)
from chatcli_provider_kit import (
    ChunkAssembler,
    MessageCache,
    chat_messages,
    tool_definitions,
    usage_from,
)

__all__ = ["DEFAULT_MAX_TOKENS", "ChunkMapper", "error_from_payload", "request_body"]

_, ngettext = translation(__name__)

#: Answer length cap when neither the request nor ``providers.local.max_tokens`` sets one: a
#: 135M model may otherwise ramble until the context is full. 512 tokens is a page of text,
#: about 7 s of generation on 2 cores.
DEFAULT_MAX_TOKENS = 512


def request_body(request: ChatRequest, *, tools: bool, cache: MessageCache | None = None,
                 max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """The chat-completion request for ``request``.

    :param tools: whether the model's chat template renders tools. When it does not, tool specs
        are left out and earlier tool calls and results are written into the text, so the model
        still sees what happened.
    :param cache: keeps each message's wire form between requests (converted once).
    :param max_tokens: the answer's length when the request sets none.
    """
    messages = chat_messages(request, tools=tools, images="text", empty_content="", cache=cache)
    body: dict[str, Any] = {
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.max_tokens or max_tokens,
        "cache_prompt": True,
        # every chunk then says how many prompt tokens were read and answer tokens made: the
        # usage of an answer the provider stops (llama.cpp sends none after a stop)
        "timings_per_token": True,
    }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if tools and request.tools:
        body["tools"] = tool_definitions(request.tools)
    for key in ("seed", "top_p", "top_k", "repeat_penalty", "stop"):
        if key in request.options:
            body[key] = request.options[key]
    return body


def error_from_payload(payload: Any) -> ProviderError:
    """The kernel error for an ``{"error": {...}}`` object llama.cpp returned."""
    error = payload.get("error", payload) if isinstance(payload, dict) else payload
    if not isinstance(error, dict):
        return ServerError(_("local model error: {reason}").format(reason=str(error)[:200]),
                           provider="local")
    message = str(error.get("message") or "unknown error").splitlines()[0][:300]
    kind = str(error.get("type") or "")
    code = error.get("code")
    status = code if isinstance(code, int) else None
    if kind == "exceed_context_size_error" or "context size" in message:
        return ContextTooLongError(
            _("the conversation is too long for the local model: {reason}").format(
                reason=message),
            _("start a new conversation, or raise providers.local.context_size"),
            provider="local", status=status,
        )
    if kind == "not_found_error" or status == 404:
        return ModelNotFoundError(_("local model: {reason}").format(reason=message),
                                  provider="local", status=status)
    if kind in ("invalid_request_error", "not_supported_error") or (
        status is not None and 400 <= status < 500
    ):
        return BadRequestError(_("local model rejected the request: {reason}").format(
            reason=message), provider="local", status=status)
    return ServerError(_("local model failed: {reason}").format(reason=message),
                       provider="local", status=status)


class ChunkMapper(ChunkAssembler):
    """Turns llama.cpp's streamed chat-completion chunks into kernel events, in order.

    Feed each chunk dict to :meth:`feed`; call :meth:`finish` when the stream ends. Tool-call
    fragments are assembled and emitted as whole :class:`ToolCallEvent` objects when the choice
    finishes (or the stream ends); error chunks raise the matching kernel error.
    """

    def __init__(self, model: str) -> None:
        super().__init__(
            model=model, flush_on_finish=True, skip_nameless=True, join_names=True,
            strip_arguments=True,
        )
        #: llama.cpp's figures of the answer so far (``timings_per_token``)
        self.timings: dict[str, Any] | None = None

    def feed(self, chunk: Any) -> Iterator[StreamEvent]:
        """The events carried by one chunk; raises a kernel error for an error chunk."""
        if not isinstance(chunk, dict):
            raise StreamCutError(_("local model sent an unreadable chunk: {chunk}").format(
                chunk=str(chunk)[:100]), provider="local")
        if "error" in chunk:
            raise error_from_payload(chunk)
        timings = chunk.get("timings")
        if isinstance(timings, dict):
            self.timings = timings
        yield from super().feed(chunk)

    def usage_so_far(self) -> Usage | None:
        """The usage of an answer stopped before its end, from llama.cpp's last ``timings``
        (prompt tokens read, from its cache, answer tokens made), or None without them."""
        timings = self.timings
        if not timings:
            return None
        cached = int(timings.get("cache_n") or 0)
        return usage_from({"prompt_tokens": int(timings.get("prompt_n") or 0) + cached,
                           "completion_tokens": int(timings.get("predicted_n") or 0),
                           "prompt_tokens_details": {"cached_tokens": cached}})

    def finish(self) -> Iterator[StreamEvent]:
        """The closing events: any unflushed tool calls, then the :class:`StopEvent`."""
        if self.finish_reason is None:
            raise StreamCutError(_("the local model's answer stopped before its end"),
                                 provider="local")
        yield from super().finish()
