"""A streaming client for an OpenAI-compatible chat-completions endpoint, written with httpx.

It speaks the wire format directly: ``POST {base_url}/chat/completions`` with ``"stream": true``,
then reads server-sent events (``data: {...}`` lines, ending with ``data: [DONE]``). Text arrives
as ``choices[0].delta.content``; tool calls arrive as fragments in
``choices[0].delta.tool_calls`` that are joined by ``index``; token usage arrives in a last chunk
(requested with ``stream_options.include_usage``).

It never retries: chatcli's engine retries retryable errors (honouring ``Retry-After``), so every
failure is raised once as the matching :mod:`chatcli` errors exception.

Every message a user reads (the errors and their fixes) is marked with ``_()``: chatcli shows it
in the user's language from this package's own catalog, in its ``locale`` folder (see
README.md, "Translations"). What goes over the wire stays as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
from chatcli import (
    ChatRequest,
    NetworkError,
    ProviderConfig,
    ProviderError,
    ProviderTimeoutError,
    ServerError,
    StreamCutError,
    StreamEvent,
    register_secret,
    translation,
)
from chatcli_provider_kit import (
    ChunkAssembler,
    chat_messages,
    retry_after_from_headers,
    status_error,
    tool_definitions,
)

__all__ = ["OpenAICompatibleProvider", "parse_stream", "request_body"]

#: This package's messages in the user's language (English when its catalog lacks one).
_, ngettext = translation(__name__)


class OpenAICompatibleProvider:
    """A chatcli :class:`~chatcli.Provider` for one OpenAI-compatible service."""

    def __init__(
        self, config: ProviderConfig, display_name: str = "{{title}}"
    ) -> None:
        self.config = config
        self.display_name = display_name
        register_secret(config.api_key)  # chatcli.redact hides it from every message
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
            # placeholders are named and filled with .format(): never an f-string inside _()
            raise ProviderTimeoutError(
                _("{who} did not answer in time ({error})").format(
                    who=self.display_name, error=type(err).__name__),
                _("raise [providers.{name}].timeout or try again").format(name=self.config.name),
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError) as err:
            raise StreamCutError(
                _("the connection to {who} broke mid-answer ({error})").format(
                    who=self.display_name, error=type(err).__name__),
                _("try again"),
            ) from None
        except httpx.TransportError as err:
            raise NetworkError(
                _("cannot reach {who} at {url} ({error})").format(
                    who=self.display_name, url=self.config.base_url, error=type(err).__name__),
                _("check that the service runs and the base URL is right"),
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
            key_hint=_("check the API key (`chatcli keys set {name}`)").format(
                name=self.config.name),
            retry_after=retry_after_from_headers(response.headers),
        )


# ------------------------------------------------------------------------------------------------
# Request
# ------------------------------------------------------------------------------------------------


def request_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions`` for ``request``."""
    # Images go as given: a URL the service fetches itself (use images="inline" to send local
    # files as data: URLs, images="text" for a model without vision).
    body: dict[str, Any] = {
        "model": request.model,
        "messages": chat_messages(request, images="source"),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = tool_definitions(request.tools)
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    body.update(request.options)
    return body


# ------------------------------------------------------------------------------------------------
# Response stream
# ------------------------------------------------------------------------------------------------


def parse_stream(
    lines: Iterable[str], display_name: str = "{{title}}"
) -> Iterator[StreamEvent]:
    """Turn the SSE lines of a chat-completions stream into chatcli stream events.

    Text is yielded as it arrives; tool calls, usage and the stop event come at the end of the
    stream. A stream that ends before a finish reason or ``[DONE]``, or carries a line that is not
    JSON, raises :class:`~chatcli.StreamCutError`.
    """
    assembler = ChunkAssembler(usage_at_end=True, strip_arguments=True, tool_use_on_calls=False)
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
                _("{who} sent a chunk that is not JSON: {data!r}").format(
                    who=display_name, data=data[:80]),
                _("try again"),
            ) from None
        if not isinstance(chunk, dict):
            raise StreamCutError(_("{who} sent an unexpected chunk: {data!r}").format(
                who=display_name, data=data[:80]))
        if "error" in chunk:
            error = chunk["error"]
            detail = error.get("message") if isinstance(error, dict) else str(error)
            raise ServerError(_("{who} failed mid-answer: {detail}").format(
                who=display_name, detail=detail), _("try again"))
        yield from assembler.feed(chunk)
    if not done and not assembler.finished:
        raise StreamCutError(_("the answer from {who} ended early").format(who=display_name),
                             _("try again"))
    yield from assembler.finish()


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
