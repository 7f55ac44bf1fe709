"""The server's limits: the request body's size (an ASGI middleware counting what arrives, not
only what ``Content-Length`` promises) and each token's request rate (a token bucket)."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from chatcli import translation
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chatcli_remote.serve.errors import ApiError, error_response

__all__ = ["BodyLimit", "BodyTooLarge", "RateLimiter", "settings_int"]

_, ngettext = translation(__name__)

#: The error bodies' types (the protocol's words, never translated).
_TOO_LARGE, _BAD_REQUEST, _RATE_LIMITED = "PayloadTooLarge", "BadRequest", "RateLimited"


class BodyTooLarge(ApiError):
    """The body grew past the limit while it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, _TOO_LARGE, _too_large(limit))


def _too_large(limit: int) -> str:
    return _("the request body is larger than {limit:,} bytes — send less, or raise "
             "[serve] max_request_bytes in the server's config").format(limit=limit)


class BodyLimit:
    """413 for a request whose body is over ``limit`` bytes: at once when ``Content-Length``
    says so, else as soon as the chunks received add up to more (chunked uploads)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > self.limit:
                    response = error_response(
                        413 if declared > self.limit else 400,
                        _TOO_LARGE if declared > self.limit else _BAD_REQUEST,
                        _too_large(self.limit) if declared > self.limit
                        else _("the Content-Length header is not a number — send a valid one"))
                    await response(scope, receive, send)
                    return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        await self.app(scope, counted, send)


class RateLimiter:
    """A token bucket per key: ``burst`` requests at once, refilled at ``per_minute``."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = max(per_minute, 0.001) / 60.0
        self.burst = max(1, burst)
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """Take one request for ``key``: 0 when allowed, else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            level, last = self._buckets.get(key, (float(self.burst), now))
            level = min(float(self.burst), level + (now - last) * self.rate)
            if level >= 1.0:
                self._buckets[key] = (level - 1.0, now)
                return 0.0
            self._buckets[key] = (level, now)
            return (1.0 - level) / self.rate

    def check(self, key: str) -> None:
        """Raise a 429 :class:`ApiError` (with ``Retry-After``) when ``key`` is over its rate."""
        wait = self.take(key)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise ApiError(429, _RATE_LIMITED,
                           _("too many requests for this token — wait {seconds} s (Retry-After), "
                             "or raise [serve.rate] per_minute/burst in the server's config"
                             ).format(seconds=seconds),
                           headers={"Retry-After": str(seconds)})


def settings_int(table: dict[str, Any], key: str, default: int, where: str = "serve") -> int:
    """``table[key]`` (a positive whole number), ``default`` when it is not set; any other
    value is a :class:`chatcli.ConfigError` naming the setting."""
    value = table.get(key, default)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    from chatcli import ConfigError

    raise ConfigError(_("[{table}] {key} must be a positive whole number, not {value!r:.40}"
                        ).format(table=where, key=key, value=value),
                      _("fix it in your config file (`chatcli config path` shows where)"))
