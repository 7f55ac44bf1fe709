"""The OpenAI chat-completions provider, on the official ``openai`` SDK (streaming, tools, usage).

Built by the factories of :mod:`chatcli_provider_openai.plugin`; importing this module imports
the SDK. The SDK client never retries (``max_retries=0``): chatcli's engine does, honouring
Retry-After.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import openai
from chatcli.errors import ModelNotFoundError, StreamCutError, register_secret
from chatcli.providers_util import check_base_url, parse_tool_arguments
from chatcli.types import (
    ChatRequest,
    ProviderConfig,
    StopEvent,
    StopReason,
    StreamEvent,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    Usage,
    UsageEvent,
    new_id,
)

from chatcli_provider_openai.errors import ErrorContext, map_error
from chatcli_provider_openai.presets import AUTO_MODEL, PRESETS, Preset
from chatcli_provider_openai.request import build_params

__all__ = ["FINISH_REASONS", "OpenAIProvider"]

#: OpenAI ``finish_reason`` → kernel stop reason.
FINISH_REASONS: dict[str, StopReason] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.END_TURN,
}

#: Sent as the key to servers that need none (the SDK insists on one; never the user's key).
_NO_KEY = "not-needed"


@dataclass
class _PendingCall:
    """A tool call whose pieces are still arriving."""

    id: str | None = None
    name: str = ""
    fragments: list[str] = field(default_factory=list)

    def part(self) -> ToolCallPart:
        raw = "".join(self.fragments)
        arguments, bad = parse_tool_arguments(raw)
        return ToolCallPart(
            id=self.id or new_id("call_"), name=self.name, arguments=arguments, raw_arguments=bad
        )


def _usage(raw: Any) -> Usage:
    """Kernel usage from an OpenAI ``usage`` object (cached prompt tokens → cache reads)."""
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached is None:  # DeepSeek reports cache hits at the top level
        extra = getattr(raw, "model_extra", None) or {}
        cached = extra.get("prompt_cache_hit_tokens")
    return Usage(
        input_tokens=int(getattr(raw, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
        cache_read_tokens=int(cached or 0),
    )


def _flag(value: Any) -> bool:
    """A config switch that may arrive as a string (``"false"``, ``"0"``, ``"no"``)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    return bool(value)


def _preset_for(name: str) -> Preset | None:
    return next((p for p in PRESETS if p.name == name), None)


class OpenAIProvider:
    """Streams chat completions from OpenAI or any OpenAI-compatible server.

    ``config.options`` (extra keys of ``[providers.NAME]``) may hold ``max_tokens_param``,
    ``stream_usage`` (False for servers that reject ``stream_options``), ``headers`` (extra HTTP
    headers) and ``extra_body`` (extra request fields).
    """

    def __init__(self, config: ProviderConfig, preset: Preset | None = None) -> None:
        self.config = config
        self.preset = preset or _preset_for(config.name) or _preset_for("openai")
        assert self.preset is not None
        options = config.options or {}
        self.max_tokens_param = str(options.get("max_tokens_param") or self.preset.max_tokens_param)
        self.stream_usage = _flag(options.get("stream_usage", True))
        self.extra_body = dict(options.get("extra_body") or {})
        self.base_url = config.base_url or self.preset.base_url
        variable = f" or {self.preset.base_url_env}" if self.preset.base_url_env else ""
        check_base_url(self.base_url, self.preset.display_name,
                       f"[providers.{config.name}].base_url{variable}")
        register_secret(config.api_key)
        headers = options.get("headers") or None
        self.client = openai.OpenAI(
            api_key=config.api_key or _NO_KEY,
            base_url=self.base_url,
            timeout=config.timeout,
            max_retries=0,
            default_headers={str(k): str(v) for k, v in headers.items()} if headers else None,
        )
        self._resolved_model: str | None = None

    # ------------------------------------------------------------------ helpers

    def _context(self, model: str) -> ErrorContext:
        assert self.preset is not None
        return ErrorContext(
            name=self.config.name,
            display_name=self.preset.display_name if self.preset.name == self.config.name
            else self.config.name,
            base_url=self.base_url,
            model=model,
            timeout=self.config.timeout,
            env_keys=self.preset.env_keys,
            base_url_env=self.preset.base_url_env,
        )

    def resolve_model(self, model: str) -> str:
        """``model``, or for :data:`AUTO_MODEL` the first model the server lists (cached)."""
        if model != AUTO_MODEL:
            return model
        if self._resolved_model is None:
            try:
                page = self.client.models.list()
                ids = [m.id for m in page.data]
            except openai.OpenAIError as err:
                raise map_error(err, self._context(model)) from None
            if not ids:
                ctx = self._context(model)
                raise ModelNotFoundError(
                    f"{ctx.display_name} at {self.base_url} serves no model",
                    f"load a model there, or set --model / [providers.{ctx.name}].model",
                    provider=ctx.name,
                )
            self._resolved_model = ids[0]
        return self._resolved_model

    # ------------------------------------------------------------------ streaming

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and finally a :class:`StopEvent`.

        Nothing is sent until the first ``next()``. Closing the iterator early closes the HTTP
        response. Failures raise :class:`chatcli.errors.ProviderError` subclasses.
        """
        model = self.resolve_model(request.model)
        ctx = self._context(model)
        params = build_params(
            request,
            model,
            max_tokens_param=self.max_tokens_param,
            stream_usage=self.stream_usage,
            extra_body=self.extra_body,
        )
        try:
            response = self.client.chat.completions.create(**params)
        except openai.OpenAIError as err:
            raise map_error(err, ctx) from None
        try:
            yield from self._events(response, ctx)
        finally:
            response.close()

    def _events(self, response: Any, ctx: ErrorContext) -> Iterator[StreamEvent]:
        calls: dict[int, _PendingCall] = {}
        finish: str | None = None
        model: str | None = None
        try:
            for chunk in response:
                model = getattr(chunk, "model", None) or model
                usage = getattr(chunk, "usage", None)
                if usage is not None:
                    yield UsageEvent(usage=_usage(usage))
                for choice in getattr(chunk, "choices", None) or []:
                    delta = getattr(choice, "delta", None)
                    if delta is not None:
                        text = getattr(delta, "content", None)
                        if text:
                            yield TextDelta(text=text)
                        for tool in getattr(delta, "tool_calls", None) or []:
                            self._add_fragment(calls, tool)
                    if getattr(choice, "finish_reason", None):
                        finish = choice.finish_reason
        except (openai.OpenAIError, ValueError) as err:
            raise map_error(err, ctx, streaming=True) from None
        except (AttributeError, TypeError) as err:  # a chunk of the wrong shape
            raise StreamCutError(
                f"{ctx.display_name} sent a stream chunk that could not be read ({err})",
                "try again",
                provider=ctx.name,
            ) from None
        if finish is None:
            raise StreamCutError(
                f"{ctx.display_name} ended the answer stream before it finished",
                "try again",
                provider=ctx.name,
            )
        for index in sorted(calls):
            yield ToolCallEvent(call=calls[index].part())
        reason = FINISH_REASONS.get(finish, StopReason.END_TURN)
        if calls and reason == StopReason.END_TURN:  # some servers say "stop" after tool calls
            reason = StopReason.TOOL_USE
        yield StopEvent(reason=reason, model=model)

    @staticmethod
    def _add_fragment(calls: dict[int, _PendingCall], tool: Any) -> None:
        index = getattr(tool, "index", None)
        if index is None:  # servers that omit the index send each call whole
            index = len(calls) if getattr(tool, "id", None) or not calls else max(calls)
        pending = calls.setdefault(int(index), _PendingCall())
        if getattr(tool, "id", None) and not pending.id:
            pending.id = tool.id
        function = getattr(tool, "function", None)
        if function is not None:
            if getattr(function, "name", None) and not pending.name:
                pending.name = function.name
            if getattr(function, "arguments", None):
                pending.fragments.append(function.arguments)

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self.client.close()
