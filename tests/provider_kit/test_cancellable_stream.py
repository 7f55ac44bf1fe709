"""CancellableStream (moved from the kernel): the events pass through, ``cancel()`` runs ``stop``
once from any thread and never raises, ``close()`` closes the events."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import chatcli
import pytest
from chatcli_provider_kit import CancellableStream


def test_the_events_pass_through_and_close_closes_them() -> None:
    closed: list[bool] = []

    def events() -> Iterator[int]:
        try:
            yield 1
            yield 2
        finally:
            closed.append(True)

    stream = CancellableStream(events(), lambda: None)
    assert iter(stream) is stream and next(stream) == 1
    stream.close()
    assert closed == [True]
    with pytest.raises(StopIteration):
        next(stream)


@pytest.mark.parametrize("stop_raises", [False, True])
def test_cancel_runs_stop_once_and_never_raises(stop_raises: bool) -> None:
    calls: list[int] = []

    def stop() -> None:
        calls.append(1)
        if stop_raises:
            raise ProcessLookupError("already gone")

    stream = CancellableStream(iter([]), stop)
    stream.cancel()
    stream.cancel()
    assert calls == [1]


def test_close_accepts_events_without_close() -> None:
    CancellableStream(iter([1]), lambda: None).close()  # a list iterator has no close()


def test_cancel_from_another_thread_ends_a_silent_wait() -> None:
    released = threading.Event()

    def silent() -> Iterator[int]:
        released.wait(10)  # a process that says nothing until it is killed
        yield 1

    stream = CancellableStream(silent(), released.set)
    started = time.monotonic()
    threading.Timer(0.1, stream.cancel).start()
    assert next(stream) == 1 and time.monotonic() - started < 5
    assert "CancellableStream" not in chatcli.__all__
