"""Translate ollama SDK / httpx exceptions into chatcli's error taxonomy (one-line messages).

Imported only by the provider (it imports the SDK).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
import ollama
from chatcli import (
    BadRequestError,
    ContextTooLongError,
    ModelNotFoundError,
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    ServerError,
    StreamCutError,
    translation,
)
from chatcli_provider_kit import (
    looks_like_context_overflow,
    one_line,
    retry_after_from_headers,
    status_error,
)

__all__ = ["error_words", "map_error", "service_error"]

_, ngettext = translation(__name__)

P = "ollama"


def error_words(payload: Any) -> str:
    """The service's own words in an error payload, on one line.

    Ollama sends ``{"error": "text"}``; proxies and compatible servers in front of it may nest an
    object (``{"error": {"message": "text", "type": …}}``) or send other JSON. Strings are kept
    (a JSON text is read first), objects give their ``message`` / ``error`` / ``detail``, lists
    their items; anything else is shown as JSON, never as a Python repr.
    """
    if isinstance(payload, str):
        try:
            parsed = json.loads(payload)
        except ValueError:
            return one_line(payload)
        return error_words(parsed) if isinstance(parsed, dict | list) else one_line(payload)
    if isinstance(payload, dict):
        for key in ("error", "message", "detail"):
            if payload.get(key):
                return error_words(payload[key])
    if isinstance(payload, list) and payload:
        return one_line("; ".join(error_words(item) for item in payload))
    if payload is None or payload == "" or payload == {} or payload == []:
        return ""
    return one_line(json.dumps(payload, ensure_ascii=False))


def service_error(status: int, text: str, *, model: str, host: str, started: bool,
                  headers: Mapping[str, str] | None = None) -> ProviderError:
    """The kernel error for Ollama's error answer: an HTTP ``status`` (``-1`` for an error line
    inside the stream) and its words ``text`` (see :func:`error_words`)."""
    lower = text.lower()
    detail = f": {text}" if text else ""
    if ("not found" in lower and "model" in lower) or (status == 404 and "model" in lower):
        return ModelNotFoundError(_("Ollama has no model '{model}'{detail}").format(
                                      model=model, detail=detail),
                                  _("run `ollama pull {model}` or pick another with "
                                    "--model").format(model=model),
                                  provider=P, status=status)
    if status == -1:  # {"error": ...} inside the stream
        if started:
            return StreamCutError(_("Ollama stopped mid-answer{detail}").format(detail=detail),
                                  _("try again"), provider=P)
        return ServerError(_("Ollama failed{detail}").format(detail=detail),
                           _("check the `ollama serve` log"), provider=P)
    generic = status in (401, 403, 404, 408, 429)  # never a context or tool-support problem
    if not generic and looks_like_context_overflow(text):  # Ollama says so on a 500 too
        return ContextTooLongError(_("Ollama: the conversation is too long for '{model}' "
                                     "(HTTP {status}){detail}").format(
                                         model=model, status=status, detail=detail),
                                   _("raise num_ctx or start a new conversation"),
                                   provider=P, status=status)
    if not generic and status < 500 and "does not support tools" in lower:
        return BadRequestError(_("Ollama model '{model}' cannot call tools{detail}").format(
                                   model=model, detail=detail),
                               _("pick a model with tool support (e.g. llama3.2, qwen3)"),
                               provider=P, status=status)
    return status_error(status, text, who="Ollama", provider=P, model=model, base_url=host,
                        key_hint=_("check OLLAMA_API_KEY (needed only for ollama.com)"),
                        retry_after=retry_after_from_headers(headers),
                        server_hint=_("check the `ollama serve` log and try again"))


def map_error(err: BaseException, *, model: str, host: str, started: bool,
              responded: bool | None = None,
              headers: Mapping[str, str] | None = None) -> ProviderError:
    """The kernel error for ``err``; ``headers`` are those of the failed HTTP response.

    ``started`` tells whether part of the answer had arrived, ``responded`` whether the server
    had answered at all (status and headers; defaults to ``started``): a connection that breaks
    after that is a cut stream, not an unreachable server.
    """
    responded = started if responded is None else responded
    if isinstance(err, ProviderError):
        return err
    if isinstance(err, ollama.ResponseError):
        return service_error(err.status_code, error_words(err.error), model=model, host=host,
                             started=started, headers=headers)
    if isinstance(err, httpx.TimeoutException):
        return ProviderTimeoutError(
            (_("Ollama at {host} did not answer in time (the stream stalled)") if responded
             else _("Ollama at {host} did not answer in time")).format(host=host),
            _("a large model may still be loading: try again, or raise [providers.ollama] "
              "timeout"),
            provider=P)
    if not responded and isinstance(err, httpx.ReadError | httpx.WriteError
                                    | httpx.RemoteProtocolError):  # reached, no response
        return NetworkError(_("Ollama at {host} closed the connection before a complete "
                              "response ({reason})").format(host=host, reason=one_line(err, 120)),
                            _("try again; if it keeps happening, check that OLLAMA_HOST is an "
                              "Ollama server"), provider=P)
    if not responded and isinstance(err, httpx.TransportError | ConnectionError):
        return NetworkError(_("cannot reach Ollama at {host}").format(host=host),
                            _("is `ollama serve` running at {host}? (set OLLAMA_HOST "
                              "otherwise)").format(host=host),
                            provider=P)
    if isinstance(err, httpx.TransportError | httpx.StreamError | ConnectionError):
        return StreamCutError(_("Ollama dropped the connection mid-answer"), _("try again"),
                              provider=P)
    if isinstance(err, ValueError | KeyError | TypeError):  # bad JSON line or unexpected shape
        return StreamCutError(_("Ollama sent a stream line that could not be read"),
                              _("try again"), provider=P)
    return ProviderError(_("Ollama request failed: {kind}: {reason}").format(
        kind=type(err).__name__, reason=one_line(str(err))), provider=P)
