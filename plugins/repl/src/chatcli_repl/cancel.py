"""Ctrl+C that stops an answer at once, even while the provider is silent.

The engine checks the turn's cancel event between stream events, so a provider that is still
waiting for its first token (or stalls mid-answer, or is between two retries) would keep the
turn going until the provider times out — up to minutes. :class:`CancellableProvider` reads the
real provider's stream on a helper thread and hands its events over a queue, looking at the cancel
event while it waits; when it is set, the stream raises ``KeyboardInterrupt``, which the engine
treats like Ctrl+C in the one-shot CLI: the partial answer is kept, marked interrupted. The
helper thread closes the abandoned stream (releasing its connection) as soon as the provider
returns control.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from chatcli import ChatRequest, Provider, StreamEvent

#: Seconds between two looks at the cancel event while the provider is silent.
POLL_SECONDS = 0.05

_END = object()


class CancellableProvider:
    """A provider wrapper whose streams stop within :data:`POLL_SECONDS` of a cancel.

    :param inner: the real provider; every other attribute is read from it.
    :param cancel_event: returns the current turn's cancel event (None outside a turn).
    """

    def __init__(self, inner: Provider,
                 cancel_event: Callable[[], threading.Event | None]) -> None:
        self.inner = inner
        self._cancel_event = cancel_event

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        """The inner provider's events; raises ``KeyboardInterrupt`` once the turn is cancelled."""
        cancel = self._cancel_event()
        if cancel is None:
            yield from self.inner.stream(request)
            return
        events: queue.Queue[Any] = queue.Queue()
        abandoned = threading.Event()

        def pump() -> None:
            stream: Any = None
            try:
                stream = iter(self.inner.stream(request))
                for event in stream:
                    events.put(event)
                    if abandoned.is_set():
                        break
                events.put(_END)
            except BaseException as err:  # handed to the consumer, raised there
                events.put(err)
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()

        threading.Thread(target=pump, name="chatcli-stream", daemon=True).start()
        try:
            while True:
                try:
                    item = events.get(timeout=POLL_SECONDS)
                except queue.Empty:
                    if cancel.is_set():
                        raise KeyboardInterrupt from None
                    continue
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            abandoned.set()


def cancellable_sleep(cancel_event: Callable[[], threading.Event | None]
                      ) -> Callable[[float], None]:
    """A sleep for the engine's retry waits that ends with ``KeyboardInterrupt`` on cancel."""

    def sleep(seconds: float) -> None:
        cancel = cancel_event()
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise KeyboardInterrupt

    return sleep
