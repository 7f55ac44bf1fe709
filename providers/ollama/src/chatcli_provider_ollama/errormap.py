"""Translate ollama SDK / httpx exceptions into chatcli's error taxonomy (one-line messages).

Imported only by the provider (it imports the SDK).
"""

from __future__ import annotations

from collections.abc import Mapping

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
)
from chatcli_provider_kit import (
    looks_like_context_overflow,
    one_line,
    retry_after_from_headers,
    status_error,
)

__all__ = ["map_error"]

P = "ollama"


def _response_error(err: ollama.ResponseError, model: str, host: str, started: bool,
                    headers: Mapping[str, str] | None) -> ProviderError:
    status = err.status_code
    text = one_line(str(err.error))
    lower = text.lower()
    detail = f": {text}" if text else ""
    if ("not found" in lower and "model" in lower) or (status == 404 and "model" in lower):
        return ModelNotFoundError(f"Ollama has no model '{model}'{detail}",
                                  f"run `ollama pull {model}` or pick another with --model",
                                  provider=P, status=status)
    if status == -1:  # {"error": ...} inside the stream
        if started:
            return StreamCutError(f"Ollama stopped mid-answer{detail}", "try again", provider=P)
        return ServerError(f"Ollama failed{detail}", "check the `ollama serve` log", provider=P)
    generic = status in (401, 403, 404, 408, 429)  # never a context or tool-support problem
    if not generic and looks_like_context_overflow(text):  # Ollama says so on a 500 too
        return ContextTooLongError(f"Ollama: the conversation is too long for '{model}' "
                                   f"(HTTP {status}){detail}",
                                   "raise num_ctx or start a new conversation",
                                   provider=P, status=status)
    if not generic and status < 500 and "does not support tools" in lower:
        return BadRequestError(f"Ollama model '{model}' cannot call tools{detail}",
                               "pick a model with tool support (e.g. llama3.2, qwen3)",
                               provider=P, status=status)
    return status_error(status, text, who="Ollama", provider=P, model=model, base_url=host,
                        key_hint="check OLLAMA_API_KEY (needed only for ollama.com)",
                        retry_after=retry_after_from_headers(headers),
                        server_hint="check the `ollama serve` log and try again")


def map_error(err: BaseException, *, model: str, host: str, started: bool,
              headers: Mapping[str, str] | None = None) -> ProviderError:
    """The kernel error for ``err``; ``headers`` are those of the failed HTTP response."""
    if isinstance(err, ProviderError):
        return err
    if isinstance(err, ollama.ResponseError):
        return _response_error(err, model, host, started, headers)
    if isinstance(err, httpx.TimeoutException):
        return ProviderTimeoutError(
            f"Ollama at {host} did not answer in time" + (" (the stream stalled)" if started
                                                          else ""),
            "a large model may still be loading: try again, or raise [providers.ollama] timeout",
            provider=P)
    if isinstance(err, httpx.ConnectError | ConnectionError) or (
        isinstance(err, httpx.TransportError) and not started
    ):
        return NetworkError(f"cannot reach Ollama at {host}",
                            f"is `ollama serve` running at {host}? (set OLLAMA_HOST otherwise)",
                            provider=P)
    if isinstance(err, httpx.TransportError | httpx.StreamError):
        return StreamCutError("the connection to Ollama dropped mid-answer", "try again",
                              provider=P)
    if isinstance(err, ValueError | KeyError | TypeError):  # bad JSON line or unexpected shape
        return StreamCutError("Ollama sent a stream line that could not be read", "try again",
                              provider=P)
    return ProviderError(f"Ollama request failed: {type(err).__name__}: "
                         f"{one_line(str(err))}", provider=P)
