"""Reading a provider's answer: on a helper thread, with retries, deadlines and Ctrl+C.

A provider's ``stream()`` blocks while the service is silent. The engine therefore reads it on a
helper thread and takes its events from a queue, looking in between at the turn's cancel event
and at two deadlines:

- the answer must *start* within ``response_timeout`` seconds of the request, across every retry
  (a service that accepts the connection and never answers, or drips keep-alive comments, no
  longer keeps the user waiting for the provider's own timeout times the retries);
- once it has started, ``response_timeout`` seconds of silence end it (the part that arrived is
  kept, as with any cut stream).

Retries (exponential backoff that honours the server's Retry-After) happen only before the
first event: once text reached the user, a retry would repeat it.
"""

from __future__ import annotations

import contextlib
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from chatcli_records_lite import dataclass

from chatcli._errors import ChatcliError, ProviderError, ProviderTimeoutError, StreamCutError
from chatcli._i18n import translation

__all__ = ["MAX_RETRY_AFTER", "Retrying", "backoff_delay", "read_answer", "retrying_stream",
           "threaded"]

T = TypeVar("T")
_, ngettext = translation(__name__)

#: A Retry-After longer than this is not waited for: the error is shown instead.
MAX_RETRY_AFTER = 60.0

#: Seconds between two looks at the cancel event and the clock while the provider is silent.
POLL_SECONDS = 0.05

_END = object()


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
    delay = min(base * 2.0 ** (attempt - 1), 30.0)
    return delay * random.uniform(0.75, 1.25)


def retrying_stream(open_stream: Callable[[], Iterator[T]], max_retries: int, *,
                    sleep: Callable[[float], None] = time.sleep, deadline: float | None = None
                    ) -> Iterator[T | Retrying]:
    """Yield from ``open_stream()``, reopening it after retryable errors raised before any item.

    Before each wait a :class:`Retrying` notice is yielded, so a front end can show
    "rate limited, retrying in 2.0 s". No retry starts whose wait would end after ``deadline``
    (a ``time.monotonic()`` value): the error is raised instead.
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
            too_long = err.retry_after is not None and err.retry_after > MAX_RETRY_AFTER
            if started or not err.retryable or attempt >= max_retries or too_long:
                raise
            attempt += 1
            delay = backoff_delay(attempt, err.retry_after)
            if deadline is not None and time.monotonic() + delay >= deadline:
                raise
            notice = Retrying(attempt, delay, err)
        finally:
            _close(stream)
        yield notice
        sleep(delay)


def threaded(events: Callable[[], Iterator[T]], *, cancel: threading.Event | None,
             first_deadline: float | None, idle_timeout: float | None, who: str,
             on_abandon: Callable[[], None] | None = None) -> Iterator[T]:
    """``events()`` iterated on a helper thread; this generator hands its items over.

    Raises ``KeyboardInterrupt`` within :data:`POLL_SECONDS` of ``cancel`` being set, a
    non-retryable :class:`~chatcli.ProviderTimeoutError` when nothing arrived by
    ``first_deadline`` (``time.monotonic()``), and :class:`~chatcli.StreamCutError` after
    ``idle_timeout`` seconds without an item once items flowed. Whatever ``events`` raises is
    raised here. The abandoned stream is closed by the helper as soon as it regains control;
    ``on_abandon`` is called here when the stream is abandoned while the helper is still inside
    it (the provider's ``cancel()``).
    """
    # SimpleQueue: put and get are C code, with no Condition to notify per item (queue.Queue's
    # notify was 9% of a busy server's GIL time, one per streamed token)
    handed: queue.SimpleQueue[Any] = queue.SimpleQueue()
    abandoned = threading.Event()

    def pump() -> None:
        stream: Any = None
        try:
            stream = iter(events())
            for item in stream:
                handed.put(item)
                if abandoned.is_set():
                    break
            handed.put(_END)
        except BaseException as err:  # handed to the consumer, raised there
            handed.put(err)
        finally:
            _close(stream)

    helper = threading.Thread(target=pump, name="chatcli-stream", daemon=True)
    helper.start()
    started_at = time.monotonic()
    last = None
    try:
        while True:
            try:
                item = handed.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if cancel is not None and cancel.is_set():
                    raise KeyboardInterrupt from None
                now = time.monotonic()
                if last is None and first_deadline is not None and now >= first_deadline:
                    error = ProviderTimeoutError(
                        _("{who} sent no answer in {seconds:.0f}s").format(
                            who=who, seconds=now - started_at),
                        _("try again, or raise response_timeout (`chatcli config set "
                          "response_timeout 300`)"))
                    error.retryable = False  # the wait for the answer to start is spent
                    raise error from None
                if last is not None and idle_timeout is not None and now - last >= idle_timeout:
                    raise StreamCutError(
                        _("{who} went silent for {seconds:g}s in the middle of the answer").format(
                            who=who, seconds=idle_timeout),
                        _("the part that arrived is kept; /retry or run the command again")
                    ) from None
                continue
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            last = time.monotonic()
            yield item
    finally:
        abandoned.set()
        if on_abandon is not None and helper.is_alive():
            with contextlib.suppress(Exception):  # a provider's cancel must not hide the cause
                on_abandon()


def read_answer(open_stream: Callable[[], Iterator[Any]], *, who: str, max_retries: int,
                response_timeout: float | None, cancel: threading.Event | None = None,
                sleep: Callable[[float], None] | None = None,
                on_retry: Callable[[Retrying], None] | None = None) -> Iterator[Any]:
    """One model call's events (and :class:`Retrying` notices), as the engine reads them.

    ``open_stream`` starts the provider's stream; it runs on a helper thread for every attempt.
    The answer must start within ``response_timeout`` seconds (retries included) and not fall
    silent that long once started; setting ``cancel`` ends it with ``KeyboardInterrupt``.
    ``sleep`` waits between retries (default: a wait that ends with ``KeyboardInterrupt`` when
    ``cancel`` is set). Exceptions that are not :class:`~chatcli.ChatcliError` become a one-line
    :class:`~chatcli.ProviderError` naming ``who``.
    """
    deadline = None if response_timeout is None else time.monotonic() + response_timeout

    def attempt() -> Iterator[Any]:
        opened: list[Any] = []

        def cancel_opened() -> None:
            stop = getattr(opened[0], "cancel", None) if opened else None
            if callable(stop):
                stop()

        return threaded(lambda: _guarded(open_stream, who, opened), cancel=cancel,
                        first_deadline=deadline, idle_timeout=response_timeout, who=who,
                        on_abandon=cancel_opened)

    def wait(seconds: float) -> None:
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise KeyboardInterrupt

    for event in retrying_stream(attempt, max_retries, sleep=sleep or wait, deadline=deadline):
        if isinstance(event, Retrying) and on_retry is not None:
            on_retry(event)
        yield event


def _guarded(open_stream: Callable[[], Iterator[Any]], who: str, opened: list[Any]
             ) -> Iterator[Any]:
    """The provider's events (the stream also put in ``opened``), with any exception that is
    not a :class:`~chatcli.ChatcliError` turned into a :class:`~chatcli.ProviderError`.

    A provider that leaks an SDK or programming error (``KeyError``, an unmapped ``httpx``
    error, ``sys.exit()``) must still end the turn like any provider failure: the partial answer
    is kept and the user gets one line naming the provider.
    """
    events: Any = None
    try:
        events = open_stream()
        opened.append(events)
        yield from events
    except ChatcliError:
        raise
    except (Exception, SystemExit) as err:
        raise ProviderError.unexpected(
            f"the {who} provider failed", err,
            "try again; if it persists, report it to the provider plugin's authors "
            "(CHATCLI_DEBUG=1 shows the traceback)", who) from err
    finally:
        _close(events)


def _close(stream: Any) -> None:
    """Close ``stream`` when it can be closed (a generator, an SDK's stream)."""
    close = getattr(stream, "close", None)
    if close is not None:
        close()
