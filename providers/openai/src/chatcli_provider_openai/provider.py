"""The OpenAI chat-completions provider, on the official ``openai`` SDK (streaming, tools, usage).

Built by the factories of :mod:`chatcli_provider_openai.plugin`; importing this module imports
the SDK. The SDK client never retries (``max_retries=0``): chatcli's engine does, honouring
Retry-After.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import httpx2
import openai
from chatcli import (
    ChatRequest,
    ModelNotFoundError,
    ProviderConfig,
    StreamCutError,
    StreamEvent,
    register_secret,
    translation,
)
from chatcli_provider_kit import (
    FINISH_REASONS,
    ChunkAssembler,
    MessageCache,
    check_base_url,
    one_line,
    shared_tls_context,
)
from openai.types.chat import ChatCompletion

from chatcli_provider_openai.errors import ErrorContext, map_error
from chatcli_provider_openai.presets import AUTO_MODEL, PRESETS, Preset
from chatcli_provider_openai.request import build_body, short_tool_ids

__all__ = ["FINISH_REASONS", "OpenAIProvider"]

#: Sent as the key to servers that need none (the SDK insists on one; never the user's key).
_NO_KEY = "not-needed"

#: What ``chat.completions.create`` asks of the client: the API key as a bearer token (and not
#: an admin key the SDK may find in the environment).
_OPTIONS: openai.RequestOptions = {"security": {"bearer_auth": True}}

_END = object()

_, ngettext = translation(__name__)


def _flag(value: Any) -> bool:
    """A config switch that may arrive as a string (``"false"``, ``"0"``, ``"no"``)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    return bool(value)


def _preset_for(name: str) -> Preset | None:
    return next((p for p in PRESETS if p.name == name), None)



def _tls_context() -> Any:
    return httpx2.create_ssl_context()


def http_client() -> openai.DefaultHttpxClient:
    """The SDK's default HTTP client, on the process's one TLS context (loading the CA bundle
    for every session's client cost ``chatcli serve`` ~40 ms of CPU and most of an idle
    session's memory)."""
    return openai.DefaultHttpxClient(verify=shared_tls_context(_tls_context))

class OpenAIProvider:
    """Streams chat completions from OpenAI or any OpenAI-compatible server.

    ``config.options`` (extra keys of ``[providers.NAME]``) may hold ``max_tokens_param``,
    ``stream_usage`` (False for servers that reject ``stream_options``), ``headers`` (extra HTTP
    headers), ``extra_body`` (extra request fields) and ``volatile_last`` (False keeps the
    volatile prompt sections at the end of the system message instead of after the history).
    """

    def __init__(self, config: ProviderConfig, preset: Preset | None = None) -> None:
        self.config = config
        self.preset = preset or _preset_for(config.name) or _preset_for("openai")
        assert self.preset is not None
        options = config.options or {}
        self.max_tokens_param = str(options.get("max_tokens_param") or self.preset.max_tokens_param)
        self.stream_usage = _flag(options.get("stream_usage", True))
        self.volatile_last = _flag(options.get("volatile_last", True))
        self.extra_body = dict(options.get("extra_body") or {})
        self.base_url = config.base_url or self.preset.base_url
        setting = f"[providers.{config.name}].base_url"
        check_base_url(self.base_url, self.preset.display_name, _("{first} or {second}").format(
            first=setting, second=self.preset.base_url_env) if self.preset.base_url_env
            else setting)
        register_secret(config.api_key)
        headers = options.get("headers") or None
        self.client = self._make_client(
            {str(k): str(v) for k, v in headers.items()} if headers else None)
        self._resolved_model: str | None = None
        self._messages = MessageCache()

    def _make_client(self, headers: dict[str, str] | None) -> openai.OpenAI:
        """The SDK client (a subclass may build another, as Azure's does)."""
        return openai.OpenAI(
            api_key=self.config.api_key or _NO_KEY,
            base_url=self.base_url,
            timeout=self.config.timeout,
            max_retries=0,
            default_headers=headers,
            http_client=http_client(),
        )

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
                    _("{who} at {url} serves no model").format(
                        who=ctx.display_name, url=self.base_url),
                    _("load a model there, or set --model / [providers.{name}].model").format(
                        name=ctx.name),
                    provider=ctx.name,
                )
            self._resolved_model = ids[0]
        return self._resolved_model

    def list_models(self) -> list[str]:
        """The model ids the service lists (``GET {base_url}/models`` through the SDK, or the
        preset's own ``models_path``: GitHub's catalog), in its order.

        Gemini's compatible endpoint names them ``models/gemini-…``; the prefix is dropped, as
        chat requests take the bare id.
        """
        assert self.preset is not None
        ctx = self._context(self.config.model)
        path = self.preset.models_path
        try:
            if path == "models":
                entries: Any = [{"id": m.id} for m in self.client.models.list().data]
            else:
                url = urljoin(str(self.client.base_url).rstrip("/") + "/", path)
                body: Any = self.client.get(url, cast_to=object, options=_OPTIONS)
                entries = body.get("data", []) if isinstance(body, dict) else body
        except openai.OpenAIError as err:
            raise map_error(err, ctx) from None
        if not isinstance(entries, list):
            raise StreamCutError(_("{who} sent a model list of an unexpected shape").format(
                                     who=ctx.display_name),
                                 _("check that the base URL is an OpenAI-compatible API"),
                                 provider=ctx.name)
        ids: list[str] = []
        for entry in entries:
            ident = entry.get("id") if isinstance(entry, dict) else None
            if isinstance(ident, str) and ident:
                ids.append(ident.removeprefix("models/"))
        return list(dict.fromkeys(ids))

    # ------------------------------------------------------------------ streaming

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """Send ``request`` and yield text, tool calls, usage and finally a :class:`StopEvent`.

        Nothing is sent until the first ``next()``. Closing the iterator early closes the HTTP
        response. Failures raise :class:`chatcli.ProviderError` subclasses.
        """
        model = self.resolve_model(request.model)
        ctx = self._context(model)
        body = build_body(
            request,
            model,
            max_tokens_param=self.max_tokens_param,
            stream_usage=self.stream_usage,
            extra_body=self.extra_body,
            cache=self._messages,
            volatile_last=self.volatile_last,
        )
        if self.preset is not None and self.preset.short_tool_ids:
            body["messages"] = short_tool_ids(body["messages"])
        try:
            # What chat.completions.create does, minus its walk over the params (maybe_transform,
            # about 0.15 ms per history message, for plain dicts that need no transform).
            # Stream[object] yields each chunk's JSON as parsed, unvalidated.
            response = self.client.post(
                "/chat/completions",
                body=body,
                options=_OPTIONS,
                cast_to=ChatCompletion,
                stream=True,
                stream_cls=openai.Stream[object],
            )
        except (openai.OpenAIError, httpx2.TransportError) as err:  # an error body cut short
            raise map_error(err, ctx) from None
        try:
            yield from self._events(response, ctx)
        finally:
            response.close()

    def _events(self, response: openai.Stream[object], ctx: ErrorContext
                ) -> Iterator[StreamEvent]:
        assembler = ChunkAssembler()
        chunks: Iterator[Any] = iter(response)
        while True:
            try:
                chunk: Any = next(chunks, _END)  # JSON of any shape: feed() checks it
            except (openai.OpenAIError, ValueError) as err:
                raise map_error(err, ctx, streaming=True) from None
            if chunk is _END:
                break
            try:
                events = list(assembler.feed(chunk))
            except (AttributeError, TypeError, ValueError):  # valid JSON of the wrong shape
                raise StreamCutError(
                    _("{who} sent a stream chunk of an unexpected shape: {chunk}").format(
                        who=ctx.display_name, chunk=one_line(json.dumps(chunk), 100)),
                    _("try again, or check that the base URL is an OpenAI-compatible API"),
                    provider=ctx.name,
                ) from None
            yield from events
        if not assembler.finished:
            raise StreamCutError(
                _("{who} ended the answer stream before it finished").format(
                    who=ctx.display_name),
                _("try again"),
                provider=ctx.name,
            )
        yield from assembler.finish()

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self.client.close()
