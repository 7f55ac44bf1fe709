"""Translate anthropic SDK / httpx2 exceptions into chatcli's error taxonomy (one-line messages).

Imported only by the provider (it imports the SDK).
"""

from __future__ import annotations

import json

import anthropic
import httpx2
from chatcli import (
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StreamCutError,
    translation,
)
from chatcli_provider_kit import one_line, retry_after_from_headers, status_error
from pydantic import ValidationError

__all__ = ["map_error"]

_, ngettext = translation(__name__)

P = "anthropic"


def _key_hint() -> str:
    return _("check ANTHROPIC_API_KEY or run `chatcli keys set anthropic`")


def _api_message(err: anthropic.APIStatusError) -> str:
    message = err.api_message
    if not message and isinstance(err.body, dict):
        inner = err.body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else None
    return one_line(message or err.message or "")


def _status_error(err: anthropic.APIStatusError, model: str, base_url: str) -> ProviderError:
    status = err.status_code
    kind = err.type or ""
    text = _api_message(err)
    detail = f": {text}" if text else ""
    retry_after = retry_after_from_headers(getattr(err.response, "headers", None))
    if status == 200:  # an `event: error` inside the stream
        if kind in ("overloaded_error", "api_error"):
            return ServerError(_("Anthropic failed mid-answer ({kind}){detail}").format(
                kind=kind, detail=detail), _("try again in a moment"), provider=P,
                retry_after=retry_after)
        if kind == "rate_limit_error":
            return RateLimitError(_("Anthropic rate limit hit mid-answer{detail}").format(
                detail=detail), _("wait a little and try again"), provider=P,
                retry_after=retry_after)
        return StreamCutError(_("Anthropic ended the answer with an error ({kind}){detail}").format(
            kind=kind or "unknown", detail=detail), _("try again"), provider=P)
    if status == 529 or kind == "overloaded_error":
        return ServerError(_("Anthropic is overloaded (HTTP {status}){detail}").format(
            status=status, detail=detail), _("try again in a moment"), provider=P,
            status=status, retry_after=retry_after)
    return status_error(status, text, who="Anthropic", provider=P, model=model,
                        base_url=base_url, key_hint=_key_hint(), retry_after=retry_after)


#: Failures after the connection was made: the server is there, its answer did not come.
_BROKE_AFTER_CONNECTING = (httpx2.ReadError, httpx2.WriteError, httpx2.RemoteProtocolError)


def _cause(err: BaseException) -> BaseException:
    """The transport error under the SDK's wrapper (``err`` itself when there is none)."""
    seen = 0
    while isinstance(err, anthropic.APIConnectionError) and seen < 8:
        inner = err.__cause__ or err.__context__
        if inner is None:
            break
        err, seen = inner, seen + 1
    return err


def map_error(err: BaseException, *, model: str, base_url: str, started: bool) -> ProviderError:
    """The kernel error for ``err`` (an SDK, httpx2 or decoding exception).

    ``started`` tells whether the response had begun (its status and headers: a broken
    connection is then a cut answer, as the OpenAI provider says it); a server that takes the
    connection and closes it before a whole response is named as such, not as unreachable.
    """
    if isinstance(err, ProviderError):
        return err
    if isinstance(err, anthropic.APIStatusError):
        return _status_error(err, model, base_url)
    if isinstance(err, anthropic.APITimeoutError | httpx2.TimeoutException):
        return ProviderTimeoutError(
            _("Anthropic did not answer in time (the stream stalled)") if started
            else _("Anthropic did not answer in time"),
            _("try again, or raise [providers.anthropic] timeout"), provider=P)
    if isinstance(err, httpx2.TransportError | httpx2.StreamError) and started:
        return StreamCutError(_("Anthropic dropped the connection mid-answer"), _("try again"),
                              provider=P)
    if isinstance(err, anthropic.APIConnectionError | httpx2.TransportError):
        cause = _cause(err)
        if isinstance(cause, _BROKE_AFTER_CONNECTING):  # reached, then no whole response
            return NetworkError(_("Anthropic at {url} closed the connection before a "
                                  "complete response ({reason})").format(
                                      url=base_url, reason=one_line(cause, 120)),
                                _("try again; if it keeps happening, check that "
                                  "ANTHROPIC_BASE_URL is an Anthropic API service"), provider=P)
        return NetworkError(_("cannot reach Anthropic at {url}").format(url=base_url),
                            _("check your network connection and ANTHROPIC_BASE_URL"),
                            provider=P)
    if isinstance(err, httpx2.StreamError):
        return StreamCutError(_("Anthropic dropped the connection mid-answer"), _("try again"),
                              provider=P)
    if isinstance(err, json.JSONDecodeError | ValidationError | ValueError | KeyError):
        return StreamCutError(_("Anthropic sent a stream chunk that could not be read"),
                              _("try again"), provider=P)
    if isinstance(err, anthropic.APIResponseValidationError):
        return StreamCutError(_("Anthropic sent a response that could not be read"),
                              _("try again"), provider=P)
    return ProviderError(_("Anthropic request failed: {kind}: {reason}").format(
        kind=type(err).__name__, reason=one_line(str(err))), provider=P)
