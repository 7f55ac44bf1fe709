"""The Ollama provider: streams ``/api/chat`` through the official ``ollama`` SDK.

Ollama has no retries of its own; the kernel engine retries. Failures surface as
:mod:`chatcli` errors exceptions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import httpx
import ollama
from chatcli import (
    ChatRequest,
    ConfigError,
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
)

from chatcli_provider_ollama.convert import build_params
from chatcli_provider_ollama.errormap import map_error

__all__ = ["OllamaProvider", "stop_reason"]


def stop_reason(done_reason: str | None, has_tool_calls: bool) -> StopReason:
    """The kernel stop reason for Ollama's ``done_reason``."""
    if done_reason == "length":
        return StopReason.MAX_TOKENS
    return StopReason.TOOL_USE if has_tool_calls else StopReason.END_TURN


class OllamaProvider:
    """Streams chat requests to an Ollama server."""

    def __init__(self, config: ProviderConfig) -> None:
        from chatcli_provider_ollama.plugin import DEFAULT_HOST

        self.config = config
        self.host = (config.base_url or DEFAULT_HOST).rstrip("/")
        timeout = float(config.timeout)
        self._error_headers: Mapping[str, str] | None = None
        try:
            self.client = ollama.Client(
                host=self.host,
                timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
                event_hooks={"response": [self._remember_headers]},
            )
        except ValueError as err:  # the SDK parses the host: "::::", "http://h:port"…
            raise ConfigError(
                f"the Ollama address '{self.host}' is not valid ({err})",
                "set OLLAMA_HOST or [providers.ollama].base_url to host:port or http://host:port",
            ) from None

    def _remember_headers(self, response: httpx.Response) -> None:
        """Keep the headers of a failed response (the SDK's error drops them: Retry-After)."""
        self._error_headers = dict(response.headers) if response.status_code >= 400 else None

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and the stop event."""
        params = build_params(request, self.config.options)
        chunks: Any = None
        started = False
        self._error_headers = None
        try:
            chunks = self.client.chat(stream=True, **params)
            for event in self._events(chunks, request):
                started = True
                yield event
        except Exception as err:
            raise map_error(err, model=request.model, host=self.host, started=started,
                            headers=self._error_headers) from None
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def _events(self, chunks: Iterator[Any], request: ChatRequest) -> Iterator[StreamEvent]:
        calls = 0
        for chunk in chunks:
            message = chunk.message
            if message.content:
                yield TextDelta(text=message.content)
            for call in message.tool_calls or []:
                calls += 1
                yield ToolCallEvent(call=ToolCallPart(name=call.function.name,
                                                      arguments=dict(call.function.arguments)))
            if chunk.done:
                yield UsageEvent(usage=Usage(input_tokens=chunk.prompt_eval_count or 0,
                                             output_tokens=chunk.eval_count or 0))
                yield StopEvent(reason=stop_reason(chunk.done_reason, calls > 0),
                                model=chunk.model or request.model)
                return
        raise StreamCutError("the Ollama answer stream ended early", "try again", provider="ollama")
