"""Small helpers every SDK-backed provider needs.

Nothing here imports an SDK or an HTTP library, so provider entry modules and factories may use it
freely. The functions are:

- :func:`parse_retry_after` / :func:`retry_after_from_headers` — the server's requested wait in
  seconds, from a ``Retry-After`` header (delta-seconds or an HTTP date) or ``retry-after-ms``.
- :func:`is_url`, :func:`read_image`, :func:`image_data_url` — turn an
  :class:`~chatcli.ImagePart` source (a URL or a local file) into what an API accepts.
- :func:`parse_tool_arguments` — streamed tool-call argument text to ``(arguments, raw_or_None)``,
  ready for :class:`~chatcli.ToolCallPart` (arguments nested deeper than
  :data:`MAX_ARGUMENT_DEPTH` stay raw: :func:`nested_too_deep` tells).
- :func:`one_line` — shorten a service's error text to one clean line.
- :func:`check_base_url` — refuse a configured service URL that is not ``http(s)://host…``.
- :func:`looks_like_context_overflow` — whether an error text says the prompt is too long.
- :func:`status_error` — an HTTP error status and the service's words as a kernel error.
"""

from __future__ import annotations

import base64
import datetime as _dt
import email.utils
import json
import mimetypes
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chatcli import (
    AuthError,
    BadRequestError,
    ConfigError,
    ContextTooLongError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    redact,
    translation,
)

__all__ = [
    "MAX_IMAGE_BYTES",
    "check_base_url",
    "image_data_url",
    "is_url",
    "looks_like_context_overflow",
    "one_line",
    "parse_retry_after",
    "parse_tool_arguments",
    "read_image",
    "retry_after_from_headers",
    "status_error",
]
_, ngettext = translation(__name__)

#: Images larger than this are refused before upload (every major API rejects them anyway).
MAX_IMAGE_BYTES = 20 * 1024 * 1024

_IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


# --------------------------------------------------------------------------------------------
# Retry-After
# --------------------------------------------------------------------------------------------


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait according to a ``Retry-After`` header value, or None if absent/unreadable.

    Accepts delta-seconds (``"7"``, also ``"1.5"`` which some services send) and HTTP dates
    (``"Wed, 21 Oct 2026 07:28:00 GMT"``); a date in the past gives ``0.0``. ``now`` (epoch
    seconds) is for tests; it defaults to the current time.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if seconds != seconds or seconds in (float("inf"), float("-inf")):  # NaN / inf
            return None
        return max(seconds, 0.0)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # HTTP dates are GMT
        when = when.replace(tzinfo=_dt.UTC)
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """The wait requested by response ``headers``: ``retry-after-ms`` first, then ``retry-after``.

    Header names are matched case-insensitively (works with plain dicts and httpx headers).
    """
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis)
        except ValueError:
            value = float("nan")
        if value == value and value >= 0 and value != float("inf"):
            return value / 1000.0
    return parse_retry_after(lowered.get("retry-after"))


# --------------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------------


def check_base_url(url: str | None, who: str, setting: str) -> None:
    """Raise :class:`~chatcli.ConfigError` unless ``url`` (when set) is an absolute
    ``http://`` or ``https://`` URL with a host; ``setting`` names where to fix it.

    Without this check a typo such as ``OPENAI_BASE_URL=localhost:8000/v1`` surfaces as a
    network error that is retried, rather than as a configuration error.
    """
    if url is None:
        return
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        if ok:
            parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        ok = False
    if not ok:
        raise ConfigError(
            _("the {who} base URL '{url}' is not an http:// or https:// URL").format(
                who=who, url=url),
            _("fix {setting}, e.g. http://localhost:8000/v1").format(setting=setting))


def is_url(source: str) -> bool:
    """Whether an image source is a URL the service can fetch itself (http, https or data)."""
    return source.startswith(("http://", "https://", "data:"))


def read_image(source: str, media_type: str | None = None) -> tuple[str, str]:
    """Read a local image file; returns ``(media_type, base64_text)``.

    ``~`` is expanded and relative paths are taken from the current directory. Raises
    :class:`~chatcli.BadRequestError` (one line, with the fix) when the file is missing,
    unreadable, too large or not a known image type.
    """
    path = Path(source).expanduser()
    if not path.is_file():
        raise BadRequestError(_("image not found: {source}").format(source=source),
                              _("check the path of the attached image"))
    kind = media_type or _IMAGE_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path)[0]
    if not kind or not kind.startswith("image/"):
        raise BadRequestError(_("not an image file: {source}").format(source=source),
                              _("attach a .png, .jpg, .gif or .webp file"))
    try:
        size = path.stat().st_size
        if size > MAX_IMAGE_BYTES:
            raise BadRequestError(
                _("image too large: {source} ({size} MB)").format(source=source,
                                                                  size=size // (1024 * 1024)),
                _("shrink it below {size} MB").format(size=MAX_IMAGE_BYTES // (1024 * 1024)))
        data = path.read_bytes()
    except OSError as err:
        raise BadRequestError(
            _("cannot read image {source}: {reason}").format(source=source,
                                                             reason=err.strerror or err),
            _("check the file's permissions")) from None
    return kind, base64.b64encode(data).decode("ascii")


def image_data_url(source: str, media_type: str | None = None) -> str:
    """A URL for an image source: URLs pass through, local files become ``data:`` URLs."""
    if is_url(source):
        return source
    kind, data = read_image(source, media_type)
    return f"data:{kind};base64,{data}"


# --------------------------------------------------------------------------------------------
# Tool calls and error text
# --------------------------------------------------------------------------------------------


def parse_tool_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """Parse the JSON argument text of a tool call.

    Returns ``(arguments, None)`` for a JSON object (empty text counts as ``{}``), otherwise
    ``({}, raw)`` so the caller sets :attr:`ToolCallPart.raw_arguments` and the engine can tell
    the model what was wrong. Control characters written raw inside strings (a NUL, a tab)
    are read as themselves rather than refused (``strict=False``): the engine then makes them
    safe like any other text (see :func:`chatcli.safe_text`).
    """
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = json.loads(raw, strict=False)
    except (ValueError, RecursionError):
        return {}, raw
    if isinstance(value, dict) and not nested_too_deep(value):
        return value, None
    return {}, raw


#: Tool-call arguments nesting deeper than this are refused like unreadable ones (the text
#: tool-call parser's ``MAX_DEPTH``): deeper values break JSON encoders and the session store.
MAX_ARGUMENT_DEPTH = 64


def nested_too_deep(value: Any, limit: int = MAX_ARGUMENT_DEPTH) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels (iterative: any depth
    is safe to ask about)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(
            item, list | tuple) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list | tuple))
    return False


_SPACES = re.compile(r"\s+")


def one_line(text: object, limit: int = 240) -> str:
    """``text`` collapsed to one line of at most ``limit`` characters (``…`` marks a cut)."""
    flat = _SPACES.sub(" ", str(text or "")).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


#: (compiled by ``re``'s cache when an error is read, not at import: every -p run imports this)
_CONTEXT_WORDS = (
    r"context[ _-]?(length|window)|maximum context|context_length_exceeded|too many tokens"
    r"|prompt is too long|input is too long|reduce the length|tokens? exceed|exceeds? the "
    r"(model'?s? )?(maximum|max)"
)


def looks_like_context_overflow(text: str | None) -> bool:
    """Whether a service's error text says the request is larger than the model's context."""
    return bool(text) and bool(re.search(_CONTEXT_WORDS, text or "", re.IGNORECASE))


# --------------------------------------------------------------------------------------------
# HTTP status → error taxonomy
# --------------------------------------------------------------------------------------------


def status_error(
    status: int,
    detail: str,
    *,
    who: str,
    provider: str,
    model: str | None,
    base_url: str | None,
    key_hint: str,
    retry_after: float | None = None,
    code: str = "",
    server_hint: str | None = None,
) -> ProviderError:
    """The kernel error for an HTTP error answer: ``status`` plus the service's own ``detail``.

    ``who`` names the service in the message (``"OpenAI"``), ``provider`` is its chatcli name
    (``[providers.NAME]``), ``key_hint`` says how to fix the API key, ``retry_after`` is the
    server's requested wait (see :func:`retry_after_from_headers`) and ``code`` an OpenAI-style
    error code when the body carries one (``insufficient_quota``, ``context_length_exceeded``).
    ``server_hint`` replaces the fix named for a 5xx answer. The decision table:

    - 401 / 403 → :class:`~chatcli.AuthError` naming ``key_hint``;
    - 429 → :class:`~chatcli.RateLimitError` with ``retry_after``, but
      :class:`~chatcli.AuthError` (not retried) for code ``insufficient_quota``;
    - 404 → :class:`~chatcli.ModelNotFoundError`;
    - 408 → :class:`~chatcli.ProviderTimeoutError`;
    - 413, or 400 / 422 whose text says the prompt is too long (or code
      ``context_length_exceeded``) → :class:`~chatcli.ContextTooLongError`;
    - 5xx (529 too) → :class:`~chatcli.ServerError` with ``retry_after``;
    - anything else → :class:`~chatcli.BadRequestError`.

    The message is one line, ``"{who} <what happened> (HTTP {status}): {detail}"``, with known
    secrets redacted before ``detail`` is shortened. Cases only one service has (an
    "overloaded" type, a "model not found" text on another status…) are for the provider to
    check before calling this.
    """
    text = one_line(redact(detail or ""))
    said = f": {text}" if text else ""
    kw: dict[str, Any] = {"provider": provider, "status": status}
    if status in (401, 403):
        what = (_("{who} rejected the API key (HTTP {status})") if status == 401 else
                _("{who} denied access (HTTP {status})"))
        return AuthError(what.format(who=who, status=status) + said, key_hint, **kw)
    if status == 429:
        if code == "insufficient_quota":
            return AuthError(_("{who} quota exhausted (HTTP 429)").format(who=who) + said,
                             _("check the plan and billing of this API key"), **kw)
        wait = (_("the service asks to wait {seconds:.0f}s before retrying, or lower the "
                  "request rate").format(seconds=retry_after)
                if retry_after is not None and retry_after >= 1 else
                _("wait a moment and retry, or lower the request rate"))
        return RateLimitError(_("{who} rate limit reached (HTTP 429)").format(who=who) + said,
                              wait, retry_after=retry_after, **kw)
    if status == 404:
        what = (_("{who} does not know model '{model}' (HTTP 404)") if model else
                _("{who} found nothing (HTTP 404)"))
        hint = (_("pick a model from `chatcli models` (--model or [providers.{provider}].model), "
                  "or check the base URL {url}") if base_url else
                _("pick a model from `chatcli models` (--model or [providers.{provider}].model), "
                  "or check the base URL"))
        return ModelNotFoundError(what.format(who=who, model=model) + said,
                                  hint.format(provider=provider, url=base_url), **kw)
    if status == 408:
        return ProviderTimeoutError(_("{who} timed out (HTTP 408)").format(who=who) + said,
                                    _("try again"), **kw)
    if status == 413 or (status in (400, 422) and (
        code == "context_length_exceeded" or looks_like_context_overflow(detail)
    )):
        what = (_("{who}: the conversation is too long for '{model}' (HTTP {status})") if model
                else _("{who}: the conversation is too long for the model (HTTP {status})"))
        return ContextTooLongError(what.format(who=who, model=model, status=status) + said,
                                   _("start a new conversation, rewind, or compact it"), **kw)
    if status >= 500:
        return ServerError(_("{who} server error (HTTP {status})").format(who=who, status=status)
                           + said, server_hint or _("the service has a problem; try again later"),
                           retry_after=retry_after, **kw)
    return BadRequestError(
        _("{who} rejected the request (HTTP {status})").format(who=who, status=status) + said,
        _("check the model and options in [providers.{provider}]").format(provider=provider), **kw)
