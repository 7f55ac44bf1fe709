"""Retries with exponential backoff that honour the server's Retry-After.

Only failures before the first event of a stream are retried: once text has reached the user, a
retry would duplicate it, so a later failure surfaces as it is.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from chatcli._errors import ProviderError

__all__ = ["MAX_RETRY_AFTER", "Retrying", "backoff_delay", "retrying_stream"]

T = TypeVar("T")

#: A Retry-After longer than this is not waited for: the error is shown instead.
MAX_RETRY_AFTER = 60.0


@dataclass
class Retrying:
    """A retryable failure happened before any output; the stream waits ``delay`` seconds."""

    attempt: int
    delay: float
    error: ProviderError


def backoff_delay(attempt: int, retry_after: float | None, base: float = 0.5) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based).

    The server's ``retry_after`` wins when given; otherwise ``base * 2**(attempt-1)`` with ±25%
    jitter, capped at 30 s.
    """
    if retry_after is not None and retry_after >= 0:
        return float(retry_after)
    delay = min(base * 2 ** (attempt - 1), 30.0)
    return delay * random.uniform(0.75, 1.25)


def retrying_stream(
    open_stream: Callable[[], Iterator[T]],
    max_retries: int,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[T | Retrying]:
    """Yield from ``open_stream()``, reopening it after retryable errors raised before any item.

    Before each wait a :class:`Retrying` notice is yielded, so a front end can show
    "rate limited, retrying in 2.0 s".

    :param open_stream: starts the request and returns its event iterator.
    :param max_retries: how many times to retry (0 = never).
    :param sleep: the wait function (tests pass a recorder).
    """
    attempt = 0
    while True:
        started = False
        stream: Iterator[T] | None = None
        try:
            stream = open_stream()
            for item in stream:
                started = True
                yield item
            return
        except ProviderError as err:
            retry_after = getattr(err, "retry_after", None)
            if started or not err.retryable or attempt >= max_retries:
                raise
            if retry_after is not None and retry_after > MAX_RETRY_AFTER:
                raise
            attempt += 1
            delay = backoff_delay(attempt, retry_after)
            notice = Retrying(attempt, delay, err)
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
        yield notice
        sleep(delay)
