"""The Anthropic provider: streams the Messages API through the official ``anthropic`` SDK.

The SDK's own retries are off (``max_retries=0``): the kernel engine retries with backoff and
honours Retry-After. Every SDK failure surfaces as a :mod:`chatcli` errors exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
from anthropic.types import Message as WireMessage
from anthropic.types import RawMessageStreamEvent
from chatcli import (
    ChatRequest,
    ProviderConfig,
    StopEvent,
    StopReason,
    StreamCutError,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    Usage,
    UsageEvent,
    register_secret,
    translation,
)
from chatcli_provider_kit import (
    MessageCache,
    check_base_url,
    parse_tool_arguments,
    shared_tls_context,
)

from chatcli_provider_anthropic.convert import build_params, request_body
from chatcli_provider_anthropic.errormap import map_error

__all__ = ["AnthropicProvider", "stop_reason"]

_, ngettext = translation(__name__)


def _tls_context() -> Any:
    return httpx2.create_ssl_context()

_STOP_REASONS = {
    "end_turn": StopReason.END_TURN,
    "stop_sequence": StopReason.END_TURN,
    "pause_turn": StopReason.END_TURN,
    "refusal": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
}


def stop_reason(value: str | None, has_tool_calls: bool) -> StopReason:
    """The kernel stop reason for Anthropic's ``stop_reason``."""
    if value is None:
        return StopReason.TOOL_USE if has_tool_calls else StopReason.END_TURN
    return _STOP_REASONS.get(value, StopReason.END_TURN)


class _ToolBlock:
    """A ``tool_use`` content block being assembled from ``input_json_delta`` fragments."""

    def __init__(self, block_id: str | None, name: str, initial: Any) -> None:
        self.id = block_id
        self.name = name
        self.initial = initial if isinstance(initial, dict) else {}
        self.fragments: list[str] = []

    def call(self) -> ToolCallPart:
        text = "".join(self.fragments)
        kwargs: dict[str, Any] = {"name": self.name}
        if self.id:
            kwargs["id"] = self.id
        if not text.strip():
            return ToolCallPart(arguments=dict(self.initial), **kwargs)
        arguments, raw = parse_tool_arguments(text)
        return ToolCallPart(arguments=arguments, raw_arguments=raw, **kwargs)


class _UsageCounter:
    """Usage from ``message_start`` updated by ``message_delta`` (cumulative counts)."""

    def __init__(self) -> None:
        self.input = 0
        self.output = 0
        self.cache_read = 0
        self.cache_write = 0

    def update(self, usage: Any) -> None:
        if usage is None:
            return
        for attr, field in (("input_tokens", "input"), ("output_tokens", "output"),
                            ("cache_read_input_tokens", "cache_read"),
                            ("cache_creation_input_tokens", "cache_write")):
            value = getattr(usage, attr, None)
            if isinstance(value, int):
                setattr(self, field, value)

    def usage(self) -> Usage:
        # Anthropic counts cached input apart; chatcli's input includes cache reads and writes.
        return Usage(
            input_tokens=self.input + self.cache_read + self.cache_write,
            output_tokens=self.output,
            cache_read_tokens=self.cache_read,
            cache_write_tokens=self.cache_write,
        )


class AnthropicProvider:
    """Streams chat requests to Anthropic (or an ``ANTHROPIC_BASE_URL`` service)."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        register_secret(config.api_key)
        check_base_url(config.base_url, "Anthropic", _("{first} or {second}").format(
            first="[providers.anthropic].base_url", second="ANTHROPIC_BASE_URL"))
        timeout = float(config.timeout)
        self.client = anthropic.Anthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=anthropic.Timeout(timeout, connect=min(timeout, 15.0)),
            max_retries=0,
            # the process's one TLS context (loading the CA bundle per client cost ~40 ms of
            # CPU and most of an idle served session's memory)
            http_client=anthropic.DefaultHttpxClient(verify=shared_tls_context(_tls_context)),
        )
        self.base_url = str(self.client.base_url).rstrip("/")
        self._messages = MessageCache()

    def list_models(self) -> list[str]:
        """The model ids the service lists (``GET /v1/models`` through the SDK, every page)."""
        try:
            return [m.id for m in self.client.models.list(limit=1000)]
        except Exception as err:
            raise map_error(err, model=self.config.model, base_url=self.base_url,
                            started=False) from None

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and the stop event."""
        params = build_params(request, self.config.options, self._messages)
        stream = None
        started = False
        try:
            # What messages.create(stream=True, **params) sends, as ready bytes: the SDK would
            # otherwise copy the whole body (every block of the history) on every request.
            stream = self.client.post(
                "/v1/messages",
                content=request_body(params),
                cast_to=WireMessage,
                stream=True,
                stream_cls=anthropic.Stream[RawMessageStreamEvent],
            )
            for event in self._events(stream, request):
                started = True
                yield event
        except Exception as err:
            raise map_error(err, model=request.model, base_url=self.base_url,
                            started=started or stream is not None) from None
        finally:
            if stream is not None:
                stream.close()

    def _events(self, stream: Any, request: ChatRequest) -> Iterator[StreamEvent]:
        tools: dict[int, _ToolBlock] = {}
        counter = _UsageCounter()
        model: str | None = None
        reason: str | None = None
        calls = 0
        finished = False
        for event in stream:
            kind = getattr(event, "type", None)
            if kind == "message_start":
                message = event.message
                model = getattr(message, "model", None) or model
                counter.update(getattr(message, "usage", None))
            elif kind == "content_block_start":
                block = event.content_block
                if getattr(block, "type", None) == "tool_use":
                    tools[event.index] = _ToolBlock(getattr(block, "id", None), block.name,
                                                    getattr(block, "input", None))
            elif kind == "content_block_delta":
                delta = event.delta
                delta_type = getattr(delta, "type", None)
                if delta_type == "text_delta":
                    if delta.text:
                        yield TextDelta(text=delta.text)
                elif delta_type == "input_json_delta" and event.index in tools:
                    tools[event.index].fragments.append(delta.partial_json or "")
            elif kind == "content_block_stop":
                block = tools.pop(event.index, None)
                if block is not None:
                    calls += 1
                    yield ToolCallEvent(call=block.call())
            elif kind == "message_delta":
                reason = getattr(event.delta, "stop_reason", None) or reason
                counter.update(getattr(event, "usage", None))
            elif kind == "message_stop":
                finished = True
                break
        if not finished:
            raise StreamCutError(_("Anthropic ended the answer stream before it finished"),
                                 _("try again"), provider="anthropic")
        for block in tools.values():  # blocks never closed: still hand them over
            calls += 1
            yield ToolCallEvent(call=block.call())
        yield UsageEvent(usage=counter.usage())
        yield StopEvent(reason=stop_reason(reason, calls > 0), model=model or request.model)
