"""openai SDK exceptions → chatcli's error taxonomy, with one-line messages that name the fix.

Imported only by :mod:`chatcli_provider_openai.provider`, after the SDK is loaded.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai
from chatcli import (
    BadRequestError,
    NetworkError,
    ProviderError,
    ProviderTimeoutError,
    ServerError,
    StreamCutError,
    translation,
)
from chatcli_provider_kit import one_line, retry_after_from_headers, status_error
from chatcli_records_lite import dataclass

__all__ = ["ErrorContext", "map_error"]

_, ngettext = translation(__name__)


@dataclass(frozen=True)
class ErrorContext:
    """What an error message needs to name: the service, its URL, the model and the key's source."""

    name: str
    display_name: str
    base_url: str
    model: str
    timeout: float
    env_keys: tuple[str, ...] = ()
    base_url_env: str | None = None


def _detail(err: openai.APIError) -> str:
    """The service's own words: ``error.message`` of the body, else the SDK's message."""
    body: Any = getattr(err, "body", None)
    if isinstance(body, dict):
        message = body.get("message") or body.get("error")
        if isinstance(message, dict):
            message = message.get("message")
        if isinstance(message, str) and message:
            return one_line(message)
    elif isinstance(body, str) and body.strip():
        return one_line(body)
    return one_line(getattr(err, "message", "") or str(err))


def _key_hint(ctx: ErrorContext) -> str:
    if not ctx.env_keys:
        return _("run `chatcli keys set {name}`").format(name=ctx.name)
    variables = ctx.env_keys[0]
    for variable in ctx.env_keys[1:]:
        variables = _("{first} or {second}").format(first=variables, second=variable)
    return _("export {variables} or run `chatcli keys set {name}`").format(
        variables=variables, name=ctx.name)


def _status_error(err: openai.APIStatusError, ctx: ErrorContext) -> ProviderError:
    detail = _detail(err)
    code = str(getattr(err, "code", "") or "")
    lowered = detail.lower()
    if err.status_code == 429 and "quota" in lowered and "exceeded" in lowered:
        code = "insufficient_quota"  # some compatible services say so only in words
    return status_error(
        err.status_code,
        detail,
        who=ctx.display_name,
        provider=ctx.name,
        model=ctx.model,
        base_url=ctx.base_url,
        key_hint=_key_hint(ctx),
        retry_after=retry_after_from_headers(err.response.headers),
        code=code,
    )


def map_error(err: BaseException, ctx: ErrorContext, *, streaming: bool = False) -> ProviderError:
    """The kernel error for an SDK (or decoding) exception ``err``.

    ``streaming`` is True once the response has started: a dropped connection then means a cut
    stream rather than an unreachable service.
    """
    who = ctx.display_name
    kw: dict[str, Any] = {"provider": ctx.name}
    if isinstance(err, openai.APITimeoutError):
        return ProviderTimeoutError(
            _("{who} did not answer within {timeout:g}s").format(who=who, timeout=ctx.timeout),
            _("try again, or raise [providers.{name}].timeout").format(name=ctx.name),
            **kw,
        )
    if isinstance(err, openai.APIConnectionError | httpx2.TransportError):
        if streaming:
            return StreamCutError(
                _("{who} dropped the connection mid-answer").format(who=who), _("try again"), **kw
            )
        cause = err if isinstance(err, httpx2.TransportError) else (
            err.__cause__ or err.__context__)
        reason = one_line(cause) if cause else one_line(err)
        if isinstance(cause, httpx2.ReadError | httpx2.WriteError | httpx2.RemoteProtocolError):
            # reached, then no whole response
            return NetworkError(
                _("{who} at {url} closed the connection before a complete response "
                  "({reason})").format(who=who, url=ctx.base_url, reason=one_line(cause, 120)),
                _("try again; if it keeps happening, check that the base URL is an "
                  "OpenAI-compatible API"), **kw)
        if ctx.base_url_env:
            fix = _("check that the service runs there, or set [providers.{name}].base_url or "
                    "{variable}").format(name=ctx.name, variable=ctx.base_url_env)
        else:
            fix = _("check that the service runs there, or set "
                    "[providers.{name}].base_url").format(name=ctx.name)
        return NetworkError(
            _("cannot reach {who} at {url}: {reason}").format(
                who=who, url=ctx.base_url, reason=reason),
            fix,
            **kw,
        )
    if isinstance(err, openai.APIStatusError):
        return _status_error(err, ctx)
    if isinstance(err, openai.APIResponseValidationError):
        return StreamCutError(_("{who} sent data that could not be read").format(who=who),
                              _("try again"), **kw)
    if isinstance(err, openai.APIError):  # an error event inside the stream
        return ServerError(
            _("{who} reported an error mid-answer: {detail}").format(
                who=who, detail=_detail(err)), _("try again"), **kw
        )
    if isinstance(err, ValueError):  # a chunk that is not JSON
        return StreamCutError(
            _("{who} sent a malformed stream chunk: {reason}").format(
                who=who, reason=one_line(err, 120)), _("try again"), **kw
        )
    return BadRequestError(f"{who}: {one_line(err)}", _("check the provider settings"), **kw)
